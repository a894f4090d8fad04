package io.stunwatch.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Class-data-sharing archives for the {@code stunwatch} processes the ITs start, one per kind of process (its first
 * two arguments: {@code collect worker}, {@code api}, ...). The suite starts hundreds of them on two shared cores,
 * most living for a second or two, and loading and verifying the same classes is most of that: a {@code collect
 * worker --replay} took 1.97 s (2.5 s of CPU) without an archive and 1.24 s (1.5 s) with one (docs/tests.md).
 *
 * <p>The first process of a kind that finds no archive writes one as it exits ({@code -XX:ArchiveClassesAtExit}),
 * to a file of its own, which becomes the kind's archive once it has exited by itself; a process killed meanwhile
 * leaves nothing, and the next one of its kind tries again. Later processes map the archive
 * ({@code -XX:SharedArchiveFile}). An archive is named after the jar's size and time, so a rebuilt jar gets its own.
 * The JVM's own messages about archives are off: one it cannot use is ignored, silently, as if there were none, and
 * the process's output is what the product printed. Where the JDK has no base archive of its own, which a dynamic
 * archive is built on, nothing is added.
 *
 * <p>Contract: the options change how fast a process gets going, never what it does.
 */
final class ClassDataArchives {

  /** A lock older than this was left by a test JVM that died while its process wrote an archive. */
  static final Duration STALE_LOCK = Duration.ofMinutes(10);

  private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");

  private ClassDataArchives() {
  }

  /** What one process does with its kind's archive. */
  static final class Plan {

    static final Plan NONE = new Plan(List.of(), null, null, null);

    private final List<String> options;
    private final Path writing;
    private final Path archive;
    private final Path lock;
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * @param options the JVM options to add
     * @param writing the file the process writes its archive to as it exits, or null
     * @param archive the kind's archive, which {@code writing} becomes
     * @param lock    what says that a process is writing the kind's archive, or null
     */
    Plan(List<String> options, Path writing, Path archive, Path lock) {
      this.options = options;
      this.writing = writing;
      this.archive = archive;
      this.lock = lock;
    }

    List<String> options() {
      return options;
    }

    /** The process has ended: by itself (an exit status of its own), or killed. Only the first call counts. */
    void ended(boolean byItself) {
      if (writing == null || !ended.compareAndSet(false, true)) {
        return;
      }
      try {
        if (byItself && Files.size(writing) > 0) {
          Files.move(writing, archive, StandardCopyOption.ATOMIC_MOVE);
        }
      } catch (IOException e) {
        // no archive written (a JVM that could not dump one): the next process of the kind tries again
      } finally {
        try {
          Files.deleteIfExists(writing);
          Files.deleteIfExists(lock);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  /** The plan of a process of {@code jar} started with {@code args}. */
  static Plan plan(Path jar, List<String> args) {
    Path base = Path.of(System.getProperty("java.home"), "lib", "server", "classes.jsa");
    if (args.isEmpty() || !Files.isRegularFile(base)) {
      return Plan.NONE;
    }
    try {
      Path dir = Files.createDirectories(jar.toAbsolutePath().getParent().resolve("cds"));
      String kind = String.join("-", args.subList(0, Math.min(2, args.size()))).replaceAll("[^A-Za-z0-9-]", "_");
      String name = kind + "-" + Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis();
      Path archive = dir.resolve(name + ".jsa");
      if (Files.isRegularFile(archive)) {
        return new Plan(concat("-XX:SharedArchiveFile=" + archive), null, archive, null);
      }
      Path lock = dir.resolve(name + ".lock");
      if (Files.exists(lock) && Files.getLastModifiedTime(lock).toMillis()
          < System.currentTimeMillis() - STALE_LOCK.toMillis()) {
        Files.deleteIfExists(lock);
      }
      try {
        Files.createFile(lock);
      } catch (FileAlreadyExistsException e) {
        return Plan.NONE; // another process writes it now
      }
      Path writing = dir.resolve(name + "." + ProcessHandle.current().pid() + "." + System.nanoTime() + ".tmp");
      return new Plan(concat("-XX:ArchiveClassesAtExit=" + writing), writing, archive, lock);
    } catch (IOException e) {
      return Plan.NONE; // a read-only build directory: processes start as they would without
    }
  }

  private static List<String> concat(String option) {
    return List.of(option, QUIET.get(0), QUIET.get(1));
  }
}
