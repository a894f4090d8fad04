package io.stunwatch.launcher.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TarGzTest {

  @TempDir
  Path dir;

  private static void tar(Path archive, Path from, String... args) throws Exception {
    String[] cmd = new String[4 + args.length];
    cmd[0] = "tar";
    cmd[1] = "czf";
    cmd[2] = archive.toString();
    cmd[3] = "-C" + from;
    System.arraycopy(args, 0, cmd, 4, args.length);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
  }

  @Test
  void filesAndFoldersUnpackAndLinksAndEscapingPathsAreLeftOutAndCounted() throws Exception {
    Path src = Files.createDirectories(dir.resolve("src/a/" + "long-folder-name-".repeat(8)));
    Files.writeString(src.resolve("gpu.csv"), "timestamp, index\n");
    Files.writeString(dir.resolve("src/top.txt"), "x".repeat(2000));
    Files.createSymbolicLink(dir.resolve("src/link"), Path.of("/etc/passwd"));
    Path archive = dir.resolve("b.tar.gz");
    tar(archive, dir.resolve("src"), ".");
    Path out = Files.createDirectories(dir.resolve("out"));
    TarGz.Result r = TarGz.unpack(archive, out);
    assertThat(r.files()).isEqualTo(2);
    assertThat(r.leftOut()).isEqualTo(1);
    assertThat(r.firstLeftOut()).contains("link").contains("not followed");
    assertThat(Files.readString(out.resolve("a/" + "long-folder-name-".repeat(8) + "/gpu.csv")))
        .isEqualTo("timestamp, index\n");
    assertThat(Files.size(out.resolve("top.txt"))).isEqualTo(2000);
    assertThat(Files.exists(out.resolve("link"))).isFalse();
  }

  @Test
  void aPathThatLeavesTheBundleIsNotWritten() throws Exception {
    Path src = Files.createDirectories(dir.resolve("x/y"));
    Files.writeString(dir.resolve("x/evil.txt"), "evil");
    Path archive = dir.resolve("evil.tar.gz");
    // GNU tar keeps "../" with -P: the entry's name is y/../../evil.txt relative to the extraction folder
    tar(archive, src, "-P", "--transform=s|^|../../|", "../evil.txt");
    Path out = Files.createDirectories(dir.resolve("deep/out"));
    TarGz.Result r = TarGz.unpack(archive, out);
    assertThat(r.files()).isZero();
    assertThat(r.leftOut()).isEqualTo(1);
    assertThat(r.firstLeftOut()).contains("leaves the bundle");
    assertThat(Files.exists(dir.resolve("deep/evil.txt"))).isFalse();
    assertThat(Files.exists(dir.resolve("evil.txt"))).isFalse();
  }
}
