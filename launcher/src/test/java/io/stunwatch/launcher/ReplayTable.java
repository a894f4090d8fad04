package io.stunwatch.launcher;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the table a replay prints: {@code file  kind  published  skipped} per file, then the total. */
final class ReplayTable {

  private static final Pattern ROW = Pattern.compile("^(\\S+)\\s+(.+?)\\s+(\\d+)\\s+(\\d+|refused)$");

  private ReplayTable() {
  }

  /** Records published from the files read as {@code kind}. */
  static long published(List<String> stdout, String kind) {
    long n = 0;
    for (String l : stdout) {
      Matcher m = ROW.matcher(l);
      if (m.matches() && !l.startsWith("total (") && m.group(2).equals(kind)) {
        n += Long.parseLong(m.group(3));
      }
    }
    return n;
  }

  /** Lines skipped over every file, and files refused. */
  static long skipped(List<String> stdout) {
    long n = 0;
    for (String l : stdout) {
      Matcher m = ROW.matcher(l);
      if (m.matches() && !l.startsWith("total (")) {
        n += m.group(4).equals("refused") ? 1 : Long.parseLong(m.group(4));
      }
    }
    return n;
  }
}
