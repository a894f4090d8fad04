package io.stunwatch.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

  @Test
  void aReservedPortIsBelowTheEphemeralRangeFreeAndNeverGivenTwice() throws Exception {
    Set<Integer> given = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = Ports.reserve();
      assertThat(port).isBetween(Ports.FIRST, Ports.LAST);
      if (Ports.lowestEphemeral() > Ports.FIRST + 1_000) {
        assertThat(port).as("outside the range outgoing connections take ports from")
            .isLessThan(Ports.lowestEphemeral());
      }
      assertThat(given.add(port)).as("port %d handed out twice", port).isTrue();
      // nothing listens there: the test's process can bind it
      try (ServerSocket s = new ServerSocket(port)) {
        assertThat(s.getLocalPort()).isEqualTo(port);
      }
    }
  }

  @Test
  void aPortSomethingListensOnIsNotBindable() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      assertThat(Ports.bindable(s.getLocalPort())).isFalse();
    }
  }
}
