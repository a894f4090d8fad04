package io.stunwatch.collectors.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The text format (0.0.4) and OpenMetrics 1.0 as their specifications write them. */
class ExpositionParserTest {

  private final ExpositionParser parser = new ExpositionParser();

  @Test
  void commentsHelpAndTypeAreSkippedAndSamplesKeepTheirLabelsInOrder() {
    ExpositionParser.Page p = parser.parse("""
        # HELP http_requests_total The total number of HTTP requests.
        # TYPE http_requests_total counter
        # a comment of no kind
        http_requests_total{method="post",code="200"} 1027 1395066363000

        metric_without_labels 12.47
        trailing_comma{a="1",} 3
        spaced { a = "1" , b="2" }\t4
        """, "page", false);
    assertThat(p.errors()).isEmpty();
    assertThat(p.samples()).hasSize(4);
    ExpositionParser.Sample first = p.samples().get(0);
    assertThat(first.name()).isEqualTo("http_requests_total");
    assertThat(first.labels()).containsExactly(Map.entry("method", "post"), Map.entry("code", "200"));
    assertThat(first.value()).isEqualTo(1027);
    assertThat(first.timestampMillis()).as("milliseconds in the text format").isEqualTo(1395066363000L);
    assertThat(first.line()).isEqualTo(4);
    assertThat(p.samples().get(1).labels()).isEmpty();
    assertThat(p.samples().get(1).timestampMillis()).isNull();
    assertThat(p.samples().get(2).labels()).containsExactly(Map.entry("a", "1"));
    assertThat(p.samples().get(3).labels()).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
  }

  @Test
  void labelValuesUnescapeBackslashQuoteAndNewline() {
    ExpositionParser.Page p = parser.parse("msdos_file_access_time_seconds{path=\"C:\\\\DIR\\\\FILE.TXT\","
        + "error=\"Cannot find file:\\n\\\"FILE.TXT\\\"\"} 1.458255915e9\n", "page", false);
    assertThat(p.errors()).isEmpty();
    assertThat(p.samples().get(0).label("path")).isEqualTo("C:\\DIR\\FILE.TXT");
    assertThat(p.samples().get(0).label("error")).isEqualTo("Cannot find file:\n\"FILE.TXT\"");
    assertThat(p.samples().get(0).value()).isEqualTo(1.458255915e9);
  }

  @Test
  void nanAndInfinitiesAreValuesNotErrors() {
    ExpositionParser.Page p = parser.parse("a NaN\nb +Inf\nc -Inf\nd -0.5e-3\n", "page", false);
    assertThat(p.errors()).isEmpty();
    assertThat(p.samples()).extracting(ExpositionParser.Sample::value)
        .containsExactly(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0005);
  }

  @Test
  void openMetricsEndsAtEofTakesTimestampsInSecondsAndSkipsExemplars() {
    ExpositionParser.Page p = parser.parse("""
        # TYPE gpu_util gauge
        # UNIT gpu_util percent
        gpu_util{gpu="0"} 97 1764230400.250
        requests_total{path="/"} 5 # {trace_id="abc"} 1.0 1764230400
        # EOF
        """, "dump.om", false);
    assertThat(p.openMetrics()).as("told by its # EOF").isTrue();
    assertThat(p.errors()).isEmpty();
    assertThat(p.samples().get(0).timestampMillis()).isEqualTo(1_764_230_400_250L);
    assertThat(p.samples().get(1).value()).isEqualTo(5);
    assertThat(parser.parse("a 1\n# EOF\nb 2\n", "late", true).errors()).singleElement()
        .satisfies(e -> assertThat(e.getMessage()).isEqualTo("late:3: text after '# EOF'"));
  }

  @Test
  void aQuotedNameInsideTheBracesIsTheMetricsName() {
    ExpositionParser.Page p = parser.parse("{\"gpu.util\",gpu=\"0\"} 3\n", "page", false);
    assertThat(p.errors()).isEmpty();
    assertThat(p.samples().get(0).name()).isEqualTo("gpu.util");
    assertThat(p.samples().get(0).labels()).containsExactly(Map.entry("gpu", "0"));
  }

  @Test
  void aBrokenLineIsReportedWithItsNumberAndTheRestIsRead() {
    ExpositionParser.Page p = parser.parse("""
        good 1
        bad{a="1" 2
        unquoted{a=1} 2
        twice{a="1",a="2"} 2
        notanumber 1d
        wrong_escape{a="\\t"} 1
        0leading 1
        unclosed{a="x} 1
        also_good 2 17
        """, "http://x/metrics", false);
    assertThat(p.samples()).extracting(ExpositionParser.Sample::name).containsExactly("good", "also_good");
    assertThat(p.errors()).extracting(Throwable::getMessage).containsExactly(
        "http://x/metrics:2: expected ',' at column 11, found '2'",
        "http://x/metrics:3: label a: its value must be quoted",
        "http://x/metrics:4: label a given twice",
        "http://x/metrics:5: value '1d' is not a number",
        "http://x/metrics:6: unknown escape \\t at column 17",
        "http://x/metrics:7: a metric name cannot begin with a digit",
        "http://x/metrics:8: a quoted string is not closed");
  }
}
