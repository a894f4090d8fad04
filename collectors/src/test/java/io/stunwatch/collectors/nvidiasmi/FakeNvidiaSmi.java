package io.stunwatch.collectors.nvidiasmi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A fake {@code nvidia-smi} written as a shell script: answers {@code --help-query-gpu} from the project's own help
 * fixture, and for a query runs the script body given for the Nth start (the last one repeats). Every start is
 * logged with its arguments, so tests can count forks.
 */
final class FakeNvidiaSmi {

  final Path script;
  final Path starts;

  private FakeNvidiaSmi(Path script, Path starts) {
    this.script = script;
    this.starts = starts;
  }

  /**
   * @param dir    where to write it
   * @param bodies shell snippets for the 1st, 2nd, ... start; {@code $LINE} is a valid CSV line of the full query
   */
  static FakeNvidiaSmi write(Path dir, List<String> bodies) throws IOException {
    Path starts = dir.resolve("starts.log");
    StringBuilder s = new StringBuilder("#!/bin/bash\n")
        .append("if [ \"$1\" = --help-query-gpu ]; then\n")
        .append("  for f in timestamp index uuid name pci.bus_id utilization.gpu utilization.memory memory.used "
            + "memory.total power.draw temperature.gpu clocks.sm pstate; do printf '\"%s\"\\nhelp text\\n\\n' \"$f\"; "
            + "done\n  exit 0\nfi\n")
        .append("echo \"$*\" >> '").append(starts).append("'\n")
        .append("n=$(wc -l < '").append(starts).append("')\n")
        .append("LINE='2026/11/21 12:00:00.000, 0, GPU-1, GRID T4-16C, 00000000:02:00.0, 50, 10, 1000, 16384, "
            + "[N/A], [N/A], 1590, P0'\n")
        .append("case $n in\n");
    for (int i = 0; i < bodies.size(); i++) {
      s.append(i == bodies.size() - 1 ? "  *)" : "  " + (i + 1) + ")").append('\n').append(bodies.get(i))
          .append("\n  ;;\n");
    }
    s.append("esac\n");
    Path script = dir.resolve("nvidia-smi");
    Files.writeString(script, s.toString());
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return new FakeNvidiaSmi(script, starts);
  }

  /** How many times a query child was started. */
  int starts() throws IOException {
    return Files.exists(starts) ? Files.readAllLines(starts).size() : 0;
  }

  /** The arguments of the first start. */
  String firstArguments() throws IOException {
    return Files.readAllLines(starts).get(0);
  }
}
