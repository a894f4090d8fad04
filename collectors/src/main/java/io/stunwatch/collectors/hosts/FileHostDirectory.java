package io.stunwatch.collectors.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hosts of a file, one {@code name [address[:port]]} per line ({@code #} starts a comment), reread when it
 * changes. A bad line is logged with the file and line, counted, and skipped; the rest are followed. A file that
 * cannot be read keeps the hosts last read.
 */
public final class FileHostDirectory implements HostDirectory {

  private static final Logger LOG = LoggerFactory.getLogger(FileHostDirectory.class);
  private static final long CHECK_EVERY_MS = 2000;

  private final Path file;
  private final int defaultPort;
  private final Clock clock;
  private final Runnable badLine;
  private Map<String, HostAddress> hosts = Map.of();
  private FileTime modified;
  private long size = -1;
  private long checkedAt = Long.MIN_VALUE;

  public FileHostDirectory(Path file, int defaultPort, Clock clock, Runnable badLine) {
    this.file = file;
    this.defaultPort = defaultPort;
    this.clock = clock;
    this.badLine = badLine;
  }

  @Override
  public synchronized Map<String, HostAddress> hosts() {
    long now = clock.millis();
    if (now - checkedAt < CHECK_EVERY_MS && checkedAt != Long.MIN_VALUE) {
      return hosts;
    }
    checkedAt = now;
    try {
      FileTime m = Files.getLastModifiedTime(file);
      long s = Files.size(file);
      if (m.equals(modified) && s == size) {
        return hosts;
      }
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      modified = m;
      size = s;
      hosts = parse(lines);
      LOG.info("{}: {} hosts", file, hosts.size());
    } catch (NoSuchFileException e) {
      if (modified != null || size != -2) {
        LOG.warn("{}: no such file; following the {} hosts last read", file, hosts.size());
      }
      modified = null;
      size = -2;
    } catch (IOException e) {
      LOG.warn("{}: cannot read ({}); following the {} hosts last read", file, e.getMessage(), hosts.size());
    }
    return hosts;
  }

  private Map<String, HostAddress> parse(List<String> lines) {
    Map<String, HostAddress> read = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int hash = line.indexOf('#');
      String[] words = (hash >= 0 ? line.substring(0, hash) : line).trim().split("\\s+");
      if (words.length == 1 && words[0].isEmpty()) {
        continue;
      }
      try {
        HostAddress h = entry(words);
        if (read.putIfAbsent(h.name(), h) != null) {
          throw new IllegalArgumentException("host " + h.name() + " is listed twice; the first line is kept");
        }
      } catch (IllegalArgumentException e) {
        badLine.run();
        LOG.warn("{}:{}: {}: the line is skipped", file, i + 1, e.getMessage());
      }
    }
    return read;
  }

  private HostAddress entry(String[] words) {
    if (words.length > 2) {
      throw new IllegalArgumentException("expected 'name [address[:port]]', found " + words.length + " words");
    }
    String name = words[0];
    if (words.length == 1) {
      return new HostAddress(name, name, defaultPort);
    }
    String address = words[1];
    int port = defaultPort;
    int colon = address.lastIndexOf(':');
    boolean bracketed = address.startsWith("[");
    if (bracketed) {
      int close = address.indexOf(']');
      if (close < 0) {
        throw new IllegalArgumentException("'" + address + "' has no closing ']'");
      }
      port = close + 1 < address.length() ? port(address.substring(close + 1)) : defaultPort;
      address = address.substring(1, close);
    } else if (colon > 0 && address.indexOf(':') == colon) {
      port = port(address.substring(colon));
      address = address.substring(0, colon);
    }
    return new HostAddress(name, address, port);
  }

  private static int port(String colonPort) {
    if (!colonPort.startsWith(":")) {
      throw new IllegalArgumentException("'" + colonPort + "' is not ':port'");
    }
    try {
      int p = Integer.parseInt(colonPort.substring(1));
      if (p < 1 || p > 65535) {
        throw new NumberFormatException();
      }
      return p;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("port '" + colonPort.substring(1) + "' is not in 1..65535");
    }
  }

  @Override
  public void close() {
  }
}
