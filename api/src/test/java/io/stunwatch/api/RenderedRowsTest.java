package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.Initiator;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Json;
import io.stunwatch.processor.readmodel.MigrationAnnotation;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RowArraysTest {

  private static List<MigrationSummary> summaries(int n) {
    List<MigrationSummary> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(new MigrationSummary(ApiServerTest.migration(i, "T4-16C", i % 2 == 0 ? Initiator.DRS : Initiator.USER,
          i == 3 ? MigrationState.IN_PROGRESS : MigrationState.SUCCEEDED), i % 2 == 0,
          i == 3 ? null : new StunTime(1.5 * i, StunTime.Source.SAMPLE_GAP_ESTIMATE), 512.0 * i, null));
    }
    return out;
  }

  @Test
  void anArrayOfRowsIsWhatTheMapperWritesForTheListOfSummariesOrOfAnnotations() throws Exception {
    for (int n : new int[] {0, 1, 5}) {
      List<MigrationSummary> s = summaries(n);
      List<MigrationRow> rows = s.stream().map(MigrationRow::of).toList();
      assertThat(RenderedRows.summaries(rows).toString()).isEqualTo(Json.mapper().writeValueAsString(s));
      assertThat(RenderedRows.annotations(rows).toString())
          .isEqualTo(Json.mapper().writeValueAsString(s.stream().map(MigrationAnnotation::of).toList()));
    }
  }

  @Test
  void forwardedRowsReadBackAsTheSameRowsInTheSameOrder() {
    List<MigrationRow> rows = summaries(5).stream().map(MigrationRow::of).toList();
    assertThat(RenderedRows.read(RenderedRows.stored(rows), MigrationRow::decode)).containsExactlyElementsOf(rows);
    assertThat(RenderedRows.read(RenderedRows.stored(List.of()), MigrationRow::decode)).isEmpty();
  }

  @Test
  void aDamagedForwardedBodyIsRefusedWithWhereItBroke() {
    Buffer body = RenderedRows.stored(summaries(2).stream().map(MigrationRow::of).toList());
    assertThatThrownBy(() -> RenderedRows.read(body.getBuffer(0, body.length() - 1), MigrationRow::decode))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("a value of");
    assertThatThrownBy(() -> RenderedRows.read(body.copy().appendByte((byte) 0).appendByte((byte) 0),
        MigrationRow::decode))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("stray bytes at " + body.length());
    assertThatThrownBy(() -> RenderedRows.read(Buffer.buffer("[{\"migration\":{}}]"), MigrationRow::decode))
        .isInstanceOf(IllegalStateException.class);
  }
}
