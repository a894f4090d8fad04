package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The datastore HTTP interface against loopback HTTP servers that answer as vCenter, or as a hostile hop would. */
class DatastoreHttpTest {

  private final List<HttpServer> servers = new ArrayList<>();
  private final List<String> seen = new ArrayList<>();

  private URL serve(Consumer<HttpExchange> handler) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 4);
    s.createContext("/", ex -> {
      synchronized (seen) {
        seen.add(s.getAddress().getPort() + " " + ex.getRequestURI() + " cookie=" + ex.getRequestHeaders()
            .getFirst("Cookie") + " range=" + ex.getRequestHeaders().getFirst("Range"));
      }
      try (ex) {
        handler.accept(ex);
      }
    });
    s.start();
    servers.add(s);
    return new URL("http://127.0.0.1:" + s.getAddress().getPort() + "/sdk");
  }

  @AfterEach
  void stop() {
    servers.forEach(s -> s.stop(0));
  }

  private static void answer(HttpExchange ex, int status, byte[] body, String... headers) {
    try {
      for (int i = 0; i < headers.length; i += 2) {
        ex.getResponseHeaders().set(headers[i], headers[i + 1]);
      }
      ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
      if (body.length > 0) {
        ex.getResponseBody().write(body);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aRedirectIsNeverFollowedWithTheSessionCookie() throws Exception {
    URL elsewhere = serve(ex -> answer(ex, 200, "stolen".getBytes(StandardCharsets.UTF_8)));
    URL vcenter = serve(ex -> answer(ex, 302, new byte[0], "Location",
        "http://user:pw@127.0.0.1:" + elsewhere.getPort() + "/collect"));
    DatastoreHttp http = new DatastoreHttp(vcenter, null, "vmware_soap_session=\"secret\"");
    assertThatThrownBy(() -> http.tail("Folder/DC0", "ds1", "vm/vmware.log", 1024))
        .isInstanceOf(IOException.class).hasMessageContaining("302").hasMessageContaining("not followed")
        .hasMessageNotContaining("pw");
    assertThat(seen).as("only the vCenter was asked").singleElement()
        .satisfies(r -> assertThat(r).startsWith(vcenter.getPort() + " "));
  }

  @Test
  void theEndOfAFileIsAskedForWithARangeAndTheFullDatacenterPath() throws Exception {
    byte[] file = new byte[10_000];
    Arrays.fill(file, (byte) 'a');
    URL vcenter = serve(ex -> answer(ex, 206, Arrays.copyOfRange(file, 8976, 10_000), "Content-Range",
        "bytes 8976-9999/10000"));
    VcenterConnection.Tail tail = new DatastoreHttp(vcenter, null, "c=1").tail("Sites/East/DC 1", "ds 1",
        "gpu vm/vmware.log", 1024);
    assertThat(tail.offset()).isEqualTo(8976);
    assertThat(tail.content()).hasSize(1024);
    assertThat(seen).singleElement().satisfies(r -> assertThat(r)
        .contains("/folder/gpu%20vm/vmware.log?dcPath=Sites%2FEast%2FDC+1&dsName=ds+1").contains("cookie=c=1")
        .contains("range=bytes=-1024"));
  }

  @Test
  void aServerThatIgnoresTheRangeGivesOnlyTheLastBytesKept() throws Exception {
    byte[] file = new byte[100_003];
    for (int i = 0; i < file.length; i++) {
      file[i] = (byte) (i % 251);
    }
    URL vcenter = serve(ex -> answer(ex, 200, file));
    VcenterConnection.Tail tail = new DatastoreHttp(vcenter, null, "c=1").tail("DC0", "ds1", "vmware.log", 4096);
    assertThat(tail.offset()).isEqualTo(100_003 - 4096);
    assertThat(tail.content()).isEqualTo(Arrays.copyOfRange(file, file.length - 4096, file.length));
    VcenterConnection.Tail whole = DatastoreHttp.lastBytes(new ByteArrayInputStream(file, 0, 10), 4096);
    assertThat(whole.offset()).isZero();
    assertThat(whole.content()).hasSize(10);
  }

  @Test
  void aMissingFileIsNotFoundAndADirectoryListsItsFiles() throws Exception {
    URL vcenter = serve(ex -> {
      if (ex.getRequestURI().getPath().endsWith("/")) {
        answer(ex, 200, ("<pre>\n<a href=\"sub/\">sub/</a>\n<a href=\"vmware-3.log\">vmware-3.log</a>\n"
            + "<a href=\"/folder/vm/vmware.log?dcPath=DC0&amp;dsName=ds1\"> vmware.log </a>\n</pre>")
            .getBytes(StandardCharsets.UTF_8));
      } else {
        answer(ex, 404, new byte[0]);
      }
    });
    DatastoreHttp http = new DatastoreHttp(vcenter, null, "c=1");
    assertThatThrownBy(() -> http.tail("DC0", "ds1", "vm/vmware.log", 1024))
        .isInstanceOf(FileNotFoundException.class).hasMessageContaining("[ds1] vm/vmware.log");
    assertThat(http.directory("DC0", "ds1", "vm/")).containsExactly("vmware-3.log", "vmware.log");
  }

  @Test
  void theContentRangeOfAPartialAnswerGivesWhereTheBytesStart() throws Exception {
    assertThat(DatastoreHttp.rangeStart("bytes 1048576-9437183/9437184", "f")).isEqualTo(1_048_576L);
    assertThat(DatastoreHttp.rangeStart("bytes 0-99/*", "f")).isZero();
    assertThatThrownBy(() -> DatastoreHttp.rangeStart(null, "[ds] a.log"))
        .hasMessageContaining("[ds] a.log").hasMessageContaining("Content-Range");
  }
}
