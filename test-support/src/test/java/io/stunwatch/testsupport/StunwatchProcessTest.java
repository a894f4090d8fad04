package io.stunwatch.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StunwatchProcessTest {

  private static String status(String sigIgn) {
    return "Name:\tjava\nState:\tS (sleeping)\nSigPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n"
        + "SigIgn:\t" + sigIgn + "\nSigCgt:\t2000000181005ccf\n";
  }

  @Test
  void aSigIgnMaskWithSignalTwoMeansSigintIsIgnored() {
    // A JVM started from a background job of a shell without job control: SIGINT (bit 1) and SIGQUIT (bit 2).
    assertThat(StunwatchProcess.ignoresSigint(status("0000000000000006"))).isTrue();
    assertThat(StunwatchProcess.ignoresSigint(status("0000000000000002"))).isTrue();
  }

  @Test
  void aMaskWithoutSignalTwoOrNoStatusAtAllMeansSigintIsHandled() {
    assertThat(StunwatchProcess.ignoresSigint(status("0000000000000000"))).isFalse();
    assertThat(StunwatchProcess.ignoresSigint(status("0000000000001004"))).as("SIGQUIT and SIGPIPE only").isFalse();
    assertThat(StunwatchProcess.ignoresSigint("")).as("no /proc").isFalse();
  }
}
