package io.stunwatch.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClassDataArchivesTest {

  @TempDir
  Path dir;
  Path jar;

  @BeforeEach
  void jar() throws Exception {
    assumeTrue(Files.isRegularFile(Path.of(System.getProperty("java.home"), "lib", "server", "classes.jsa")),
        "this JDK has no base archive: no archive is planned at all");
    jar = Files.writeString(dir.resolve("stunwatch.jar"), "not really a jar");
  }

  private static String option(ClassDataArchives.Plan p, String prefix) {
    return p.options().stream().filter(o -> o.startsWith(prefix)).findFirst().orElse(null);
  }

  @Test
  void theFirstProcessOfAKindWritesItsArchiveAsItExitsAndTheNextOnesMapIt() throws Exception {
    ClassDataArchives.Plan first = ClassDataArchives.plan(jar, List.of("collect", "worker", "--replay", "x"));
    String writes = option(first, "-XX:ArchiveClassesAtExit=");
    assertThat(writes).isNotNull();
    assertThat(first.options()).contains("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    assertThat(ClassDataArchives.plan(jar, List.of("collect", "worker")).options())
        .as("a second one while the first runs: nothing to map yet, and only one writes").isEmpty();
    assertThat(option(ClassDataArchives.plan(jar, List.of("api")), "-XX:ArchiveClassesAtExit="))
        .as("another kind writes its own").isNotNull();

    Files.writeString(Path.of(writes.substring(writes.indexOf('=') + 1)), "what the JVM dumped");
    first.ended(true);
    first.ended(false); // a second call (close after awaitExit) changes nothing
    ClassDataArchives.Plan next = ClassDataArchives.plan(jar, List.of("collect", "worker", "--replay", "y"));
    String maps = option(next, "-XX:SharedArchiveFile=");
    assertThat(maps).isNotNull();
    assertThat(Path.of(maps.substring(maps.indexOf('=') + 1))).hasContent("what the JVM dumped");
    try (var files = Files.list(dir.resolve("cds"))) {
      assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("collect-worker")))
          .as("the archive alone: no lock, no file being written").hasSize(1);
    }
  }

  @Test
  void aProcessKilledWhileItWouldWriteLeavesNoArchiveAndTheNextOfItsKindTriesAgain() throws Exception {
    ClassDataArchives.Plan killed = ClassDataArchives.plan(jar, List.of("replay", "site"));
    String writes = option(killed, "-XX:ArchiveClassesAtExit=");
    Files.writeString(Path.of(writes.substring(writes.indexOf('=') + 1)), "half an archive");
    killed.ended(false);
    ClassDataArchives.Plan again = ClassDataArchives.plan(jar, List.of("replay", "site"));
    assertThat(option(again, "-XX:SharedArchiveFile=")).isNull();
    assertThat(option(again, "-XX:ArchiveClassesAtExit=")).isNotNull();
  }

  @Test
  void aRebuiltJarGetsAnArchiveOfItsOwn() throws Exception {
    ClassDataArchives.Plan first = ClassDataArchives.plan(jar, List.of("broker"));
    String writes = option(first, "-XX:ArchiveClassesAtExit=");
    Files.writeString(Path.of(writes.substring(writes.indexOf('=') + 1)), "classes of the first build");
    first.ended(true);
    Files.writeString(jar, "another build, of another size");
    assertThat(option(ClassDataArchives.plan(jar, List.of("broker")), "-XX:ArchiveClassesAtExit="))
        .as("the archive of the first build is not mapped into the second").isNotNull();
  }
}
