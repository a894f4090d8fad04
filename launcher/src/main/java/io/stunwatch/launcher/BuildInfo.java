package io.stunwatch.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.apache.kafka.common.utils.AppInfoParser;
import picocli.CommandLine.IVersionProvider;

/** Version information of this build, from {@code stunwatch-version.properties} written by Maven. */
public final class BuildInfo implements IVersionProvider {

  /** The Stunwatch version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static String version() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream("/stunwatch-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to "unknown": a version line is not worth failing a command
    }
    return p.getProperty("version", "unknown");
  }

  @Override
  public String[] getVersion() {
    return new String[] {
        "stunwatch " + version(),
        "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")",
        "Kafka " + AppInfoParser.getVersion()};
  }
}
