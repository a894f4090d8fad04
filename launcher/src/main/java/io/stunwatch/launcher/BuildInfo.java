package io.stunwatch.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** Version information of this build, from {@code stunwatch-version.properties} written by Maven. */
public final class BuildInfo implements IVersionProvider {

  /** The Stunwatch version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    return property("/stunwatch-version.properties", "version");
  }

  /**
   * The Kafka clients' version, from the file their jar carries ({@code kafka/kafka-version.properties}): the class
   * that reads it moved into Kafka's internals in 4.4.
   */
  public static String kafkaVersion() {
    return property("/kafka/kafka-version.properties", "version");
  }

  private static String property(String resource, String key) {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(resource)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown": a version line is not worth failing a command
    }
    return p.getProperty(key, "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {
        "stunwatch " + version(),
        "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")",
        "Kafka " + kafkaVersion()};
  }
}
