package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NvidiaSmiValuesTest {

  @ParameterizedTest
  @ValueSource(strings = {"[N/A]", "N/A", "[Not Supported]", "[Unknown Error]", "[Insufficient Permissions]",
      "[Requested functionality has been deprecated]", "[Function Not Found]", " [N/A] ", "Not Found", "",
      "Not available in WDDM driver model"})
  void everyNoValueFormIsUnknownNeverZero(String raw) {
    assertThat(NvidiaSmiValues.number(raw)).isNull();
    assertThat(NvidiaSmiValues.text(raw)).isNull();
  }

  @ParameterizedTest
  @CsvSource({"575 MiB, 575", "38 %, 38", "39.32 W, 39.32", "1980 MHz, 1980", "-5 C, -5", "' 40 % ', 40", "0, 0"})
  void numbersReadWithOrWithoutUnits(String raw, double expected) {
    assertThat(NvidiaSmiValues.number(raw)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"lots", "12abc34", "0x1F", "NaN", "1.2.3"})
  void somethingElseIsAnErrorQuotingTheValue(String raw) {
    assertThatThrownBy(() -> NvidiaSmiValues.number(raw)).isInstanceOf(NumberFormatException.class)
        .hasMessageContaining(raw);
  }

  @ParameterizedTest
  @ValueSource(strings = {"12.5 MiB"})
  void aFractionIsNotAWholeNumber(String raw) {
    assertThatThrownBy(() -> NvidiaSmiValues.whole(raw)).hasMessageContaining("not a whole number");
  }
}
