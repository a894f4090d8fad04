package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.metrics.CollectorInput;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;

/** Replays recorded nvidia-smi output through the live parse-and-publish path. */
public final class NvidiaSmiReplay {

  private NvidiaSmiReplay() {
  }

  /**
   * A {@code --query-gpu} CSV with its header line ({@code --format=csv}, with or without units); timestamps come
   * from its {@code timestamp} column, read in {@code zone}.
   */
  public static void csv(Path file, ZoneId zone, Inputs inputs) throws IOException {
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String header = r.readLine();
      if (header == null) {
        inputs.parseError(CollectorInput.NVIDIA_SMI, new InputParseException(file.toString(), 0, "empty file"));
        return;
      }
      NvidiaSmiCsvParser parser;
      try {
        parser = NvidiaSmiCsvParser.forHeader(header, zone, inputs.identity(), inputs.clock(), file.toString());
      } catch (InputParseException e) {
        inputs.parseError(CollectorInput.NVIDIA_SMI, e);
        return;
      }
      String line;
      long n = 1;
      while ((line = r.readLine()) != null) {
        n++;
        if (!line.isBlank()) {
          NvidiaSmiStreamingSource.accept(parser, line, n, false, inputs);
        }
      }
    }
  }

  /** An {@code nvidia-smi -q -x} document. */
  public static void xml(Path file, ZoneId zone, Inputs inputs) throws IOException {
    NvidiaSmiXmlSnapshotSource.accept(new NvidiaSmiXmlParser(zone, inputs.identity(), inputs.clock()),
        Files.readAllBytes(file), file.toString(), inputs);
  }
}
