/*
 * A stand-in for nvidia-smi in the CPU benchmark: with "-lms N" it prints one CSV sample every N ms until killed,
 * like `nvidia-smi --query-gpu=... -lms N`; without, it prints one sample and exits, like a single query.
 * The same binary serves both collectors, so the comparison measures how they use it, nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void sample(unsigned long i) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  printf("%04d/%02d/%02d %02d:%02d:%02d.000, 0, GPU-bench, GRID T4-16C, 00000000:02:00.0, %lu, 10, %lu, 16384, "
         "[N/A], [N/A], 1590, P0\n", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
         tm.tm_sec, i % 101, 1000 + i % 1000);
}

int main(int argc, char **argv) {
  long interval_ms = -1;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help-query-gpu") == 0) {
      puts("\"timestamp\"\n\"index\"\n\"uuid\"\n\"name\"\n\"pci.bus_id\"\n\"utilization.gpu\"\n"
           "\"utilization.memory\"\n\"memory.used\"\n\"memory.total\"\n\"power.draw\"\n\"temperature.gpu\"\n"
           "\"clocks.sm\"\n\"pstate\"");
      return 0;
    }
    if (strcmp(argv[i], "-lms") == 0 && i + 1 < argc) {
      interval_ms = atol(argv[i + 1]);
    }
  }
  if (interval_ms < 0) {
    sample(0);
    return 0;
  }
  struct timespec ts = {interval_ms / 1000, (interval_ms % 1000) * 1000000L};
  for (unsigned long i = 0;; i++) {
    sample(i);
    fflush(stdout);
    nanosleep(&ts, NULL);
  }
}
