package io.stunwatch.collectors.rdma;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.metrics.CollectorInput;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * RDMA counters as people copy them: {@code grep -H . /sys/class/infiniband/&#42;/ports/&#42;/counters/&#42;}, one
 * {@code PATH:VALUE} line per file, {@code hw_counters} and {@code N/A (no PMA)} included.
 *
 * <p>The listing is laid out again as the sysfs tree it was taken from, in a private temporary directory, and read
 * by {@link SysfsRdmaReader}: the same widths, saturation and unavailability rules as a live read. A line that is
 * no such file's is skipped and counted.
 */
public final class RdmaListing {

  /** {@code [...]/infiniband/<device>/ports/<n>/<file or dir/file>:<value>}; the path has no colon. */
  private static final Pattern LINE = Pattern.compile("^(?:[^:\\s]*/)?infiniband/([^/:\\s]+)/ports/(\\d+)/"
      + "([A-Za-z0-9_./-]+):(.*)$");

  private RdmaListing() {
  }

  /** Publishes the ports of a listing once, as a replay of the tree would. */
  public static void replay(Path file, Inputs inputs) throws IOException {
    Path tree = Files.createTempDirectory("stunwatch-rdma-listing");
    try {
      try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        long n = 0;
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          n++;
          if (line.isBlank()) {
            continue;
          }
          Matcher m = LINE.matcher(line.strip());
          if (!m.matches() || m.group(3).contains("..")) {
            inputs.parseError(CollectorInput.RDMA, new InputParseException(file.toString(), n,
                "not a 'PATH:VALUE' line of a /sys/class/infiniband/<device>/ports/<n>/ file: '"
                    + InputParseException.quote(line, 80) + "'"));
            continue;
          }
          Path target = tree.resolve(m.group(1)).resolve("ports").resolve(m.group(2)).resolve(m.group(3))
              .normalize();
          if (!target.startsWith(tree)) {
            continue; // unreachable after the ".." check; kept so no listing writes outside its tree
          }
          Files.createDirectories(target.getParent());
          Files.writeString(target, m.group(4).strip() + "\n", StandardCharsets.US_ASCII);
        }
      }
      SysfsRdmaSource.readOnce(tree, inputs);
    } finally {
      try (Stream<Path> walk = Files.walk(tree)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
