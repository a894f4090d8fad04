package io.stunwatch.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for a process that a test starts and that binds its port itself, seconds later.
 *
 * <p>A port found free by binding port 0 comes from the kernel's ephemeral range, the one every outgoing connection
 * also takes its local port from. Between the test's look and the process's bind, a Kafka client, a broker or
 * another test fork on the same machine may have taken it: "Address already in use", more often the busier the
 * machine. A port from here is below that range, so no outgoing connection takes it, and it is held, for the life
 * of this JVM, by a lock file that every test JVM on the machine respects, so no other fork hands it out.
 */
public final class Ports {

  /** Below the lowest ephemeral port that Linux and the IANA range start from, and above the well-known ones. */
  static final int FIRST = 20_000;
  static final int LAST = 32_000;

  private static final Path LOCKS = Path.of(System.getProperty("java.io.tmpdir"), "stunwatch-test-ports");
  /** Held until this JVM exits: the lock is released when its channel is closed. */
  private static final List<FileChannel> HELD = new CopyOnWriteArrayList<>();

  private Ports() {
  }

  /**
   * A port that nothing listens on now, that is outside the ephemeral range, and that no other caller of this
   * method on this machine is given while this JVM runs.
   */
  public static int reserve() {
    int lowestEphemeral = lowestEphemeral();
    // a kernel whose ephemeral range starts lower leaves the lock files to keep the forks apart
    int last = lowestEphemeral > FIRST + 1_000 ? Math.min(LAST, lowestEphemeral - 1) : LAST;
    try {
      Files.createDirectories(LOCKS);
      for (int attempt = 0; attempt < 2_000; attempt++) {
        int port = ThreadLocalRandom.current().nextInt(FIRST, last + 1);
        FileChannel channel = FileChannel.open(LOCKS.resolve(port + ".lock"), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null; // this JVM holds it already
        }
        if (lock == null || !bindable(port)) {
          channel.close();
          continue;
        }
        HELD.add(channel);
        return port;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot reserve a port under " + LOCKS, e);
    }
    throw new IllegalStateException("no free port between " + FIRST + " and " + last + " after 2000 tries");
  }

  /** Whether {@code port} can be listened on, on every address and on the loopback one. */
  static boolean bindable(int port) {
    for (InetAddress address : new InetAddress[] {null, InetAddress.getLoopbackAddress()}) {
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(address == null ? new InetSocketAddress(port) : new InetSocketAddress(address, port));
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  /** The first port of the kernel's ephemeral range; 32768 where it cannot be read. */
  static int lowestEphemeral() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
