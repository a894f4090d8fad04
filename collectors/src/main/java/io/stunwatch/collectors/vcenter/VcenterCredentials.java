package io.stunwatch.collectors.vcenter;

import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The login and trust of one vCenter, from the credentials file ({@code vcenter.credentials-file}): one
 * {@code HOST.FIELD=VALUE} per line, where HOST is the URL's host, or {@code host:port} where two vCenters share a
 * host, and FIELD one of {@code username}, {@code password-file}, {@code ca-file}, {@code thumbprint}:
 * <pre>
 * vc01.example.com.username=stunwatch@vsphere.local
 * vc01.example.com.password-file=/run/secrets/vc01-password
 * vc02.example.com.thumbprint=44:8F:62:...:9B:F6
 * </pre>
 * The password is read from its own file, never written in this one. A field a vCenter leaves out falls back to the
 * global key ({@code vcenter.username}, {@code vcenter.password}, {@code vcenter.ca-file}, {@code vcenter.thumbprints}).
 *
 * @param username   the user, or null for the global one
 * @param password   the password, or null for the global one
 * @param caFile     a CA bundle, or null for the global one
 * @param thumbprint a pinned SHA-256 thumbprint, or null for the global pins
 */
public record VcenterCredentials(String username, String password, Path caFile, String thumbprint) {

  private static final List<String> FIELDS = List.of("username", "password-file", "ca-file", "thumbprint");

  @Override
  public String toString() {
    return "VcenterCredentials[username=" + username + ", password=" + (password == null ? "null" : "****")
        + ", caFile=" + caFile + ", thumbprint=" + thumbprint + "]";
  }

  /** The entry for {@code url}: by {@code host:port}, else by host; null when the file has none. */
  static VcenterCredentials lookup(Map<String, VcenterCredentials> byHost, URL url) {
    String host = url.getHost().toLowerCase(Locale.ROOT);
    int port = url.getPort() < 0 ? url.getDefaultPort() : url.getPort();
    VcenterCredentials c = byHost.get(host + ":" + port);
    return c != null ? c : byHost.get(host);
  }

  /**
   * Reads a credentials file.
   *
   * @throws IllegalArgumentException naming the file and line of each problem (never a secret)
   */
  static Map<String, VcenterCredentials> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    Map<String, Map<String, String>> fields = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int eq = line.indexOf('=');
      int dot = eq < 0 ? -1 : line.lastIndexOf('.', eq);
      String field = dot < 0 ? null : line.substring(dot + 1, eq).strip();
      if ("password".equals(field)) {
        problems.add(file + ":" + (i + 1) + ": a password is not written here: give password-file");
        continue;
      }
      if (eq < 0 || dot <= 0 || !FIELDS.contains(field)) {
        problems.add(file + ":" + (i + 1) + ": expected HOST.FIELD=VALUE with FIELD one of " + FIELDS);
        continue;
      }
      String host = line.substring(0, dot).strip().toLowerCase(Locale.ROOT);
      if (fields.computeIfAbsent(host, h -> new LinkedHashMap<>()).put(field, line.substring(eq + 1).strip())
          != null) {
        problems.add(file + ":" + (i + 1) + ": " + host + "." + field + " is given twice");
      }
    }
    Map<String, VcenterCredentials> out = new LinkedHashMap<>();
    fields.forEach((host, f) -> {
      String password = null;
      if (f.containsKey("password-file")) {
        Path p = Path.of(f.get("password-file"));
        try {
          password = Files.readString(p, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
          problems.add(file + ": " + host + ".password-file: cannot read " + p + ": " + e.getClass().getSimpleName());
        }
      }
      String thumbprint = f.get("thumbprint");
      if (thumbprint != null) {
        try {
          VcenterTrust.pinned(thumbprint); // validates the form
        } catch (IllegalArgumentException e) {
          problems.add(file + ": " + host + ".thumbprint: " + e.getMessage());
        }
      }
      out.put(host, new VcenterCredentials(f.get("username"), password,
          f.containsKey("ca-file") ? Path.of(f.get("ca-file")) : null, thumbprint));
    });
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return Map.copyOf(out);
  }
}
