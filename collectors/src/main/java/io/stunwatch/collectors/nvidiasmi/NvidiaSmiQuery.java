package io.stunwatch.collectors.nvidiasmi;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The {@code --query-gpu} field list for the driver at hand. Learnt from {@code nvidia-smi --help-query-gpu}, so a
 * field an old driver lacks is left out of the query (its values are then absent) instead of breaking the stream.
 *
 * @param fields the fields queried, in column order
 */
record NvidiaSmiQuery(List<GpuField> fields) {

  private static final Pattern FIELD_LINE = Pattern.compile("^\"([^\"]+)\"((?:\\s+or\\s+\"[^\"]+\")*)\\s*$");
  private static final Pattern ALIAS = Pattern.compile("\"([^\"]+)\"");

  NvidiaSmiQuery {
    fields = List.copyOf(fields);
  }

  /** Every field the collector wants, as when the driver's help cannot be read. */
  static NvidiaSmiQuery all() {
    return new NvidiaSmiQuery(List.of(GpuField.values()));
  }

  /**
   * The wanted fields that the driver supports, from the text of {@code nvidia-smi --help-query-gpu}.
   *
   * @throws IllegalArgumentException when the help lists no fields at all or lacks a required one
   */
  static NvidiaSmiQuery fromHelp(String helpText) {
    Set<String> supported = supportedNames(helpText);
    if (supported.isEmpty()) {
      throw new IllegalArgumentException("nvidia-smi --help-query-gpu listed no fields");
    }
    List<GpuField> fields = new ArrayList<>();
    for (GpuField f : GpuField.values()) {
      if (f.names().stream().anyMatch(supported::contains)) {
        fields.add(f);
      } else if (GpuField.REQUIRED.contains(f)) {
        throw new IllegalArgumentException("this nvidia-smi does not support the required field " + f.queryName());
      }
    }
    return new NvidiaSmiQuery(fields);
  }

  /** Field names listed by {@code --help-query-gpu}: lines like {@code "clocks.current.sm" or "clocks.sm"}. */
  static Set<String> supportedNames(String helpText) {
    Set<String> names = new HashSet<>();
    for (String line : helpText.split("\\R")) {
      Matcher m = FIELD_LINE.matcher(line.trim());
      if (m.matches()) {
        names.add(m.group(1));
        Matcher alias = ALIAS.matcher(m.group(2));
        while (alias.find()) {
          names.add(alias.group(1));
        }
      }
    }
    return names;
  }

  /** The {@code --query-gpu=} argument value. */
  String queryArgument() {
    return fields.stream().map(GpuField::queryName).collect(Collectors.joining(","));
  }

  /** The wanted fields this driver lacks (their values will be absent). */
  List<GpuField> missing() {
    List<GpuField> missing = new ArrayList<>(List.of(GpuField.values()));
    missing.removeAll(fields);
    return missing;
  }
}
