package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JsonFragmentsTest {

  record Row(String name, Double value) {
  }

  @Test
  void anArrayIsByteForByteWhatJacksonWritesForTheList() throws Exception {
    var fragments = new JsonFragments<Row>(r -> r, 8);
    for (List<Row> rows : List.of(List.<Row>of(), List.of(new Row("a", 1.5)),
        List.of(new Row("ü → x", null), new Row("b\"q", -0.0), new Row("c", 3e9)))) {
      assertThat(fragments.array(rows).toString(StandardCharsets.UTF_8))
          .isEqualTo(Json.mapper().writeValueAsString(rows));
    }
  }

  @Test
  void theSameInstanceIsRenderedOnceAndAnEqualButOtherInstanceAgain() {
    AtomicInteger renders = new AtomicInteger();
    var fragments = new JsonFragments<Row>(r -> {
      renders.incrementAndGet();
      return Map.of("n", r.name());
    }, 1024);
    Row row = new Row("a", 1.0);
    byte[] first = fragments.of(row);
    assertThat(fragments.of(row)).isSameAs(first);
    assertThat(renders).hasValue(1);
    assertThat(fragments.of(new Row("a", 1.0))).isEqualTo(first);
    assertThat(renders).hasValue(2);
  }

  @Test
  void aFullTableStillRendersEveryValueRight() {
    var fragments = new JsonFragments<Row>(r -> r, 2);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(new Row("r" + i, (double) i));
    }
    for (int round = 0; round < 2; round++) {
      for (Row r : rows) {
        assertThat(new String(fragments.of(r), StandardCharsets.UTF_8))
            .isEqualTo("{\"name\":\"" + r.name() + "\",\"value\":" + r.value() + "}");
      }
    }
  }
}
