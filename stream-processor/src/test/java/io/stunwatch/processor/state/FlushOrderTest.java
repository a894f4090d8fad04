package io.stunwatch.processor.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlushOrderTest {

  private final List<String> written = new ArrayList<>();

  /** A member that records its turn as {@code task/name}. */
  private FlushOrder.Member member(String task, String name) {
    return new FlushOrder.Member() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public void writeOwnPending() {
        written.add(task + "/" + name);
      }
    };
  }

  @Test
  void aTasksMembersAreWrittenInTheGivenOrderWhateverOrderTheyJoinedIn() {
    FlushOrder order = new FlushOrder("alerts", "rows", "blocks");
    File task = new File("0_1");
    order.join(task, member("0_1", "blocks"));
    order.join(task, member("0_1", "alerts"));
    order.join(task, member("0_1", "rows"));

    order.flush(task);

    assertThat(written).containsExactly("0_1/alerts", "0_1/rows", "0_1/blocks");
  }

  @Test
  void aFlushWritesItsOwnTaskOnlyAndSkipsMembersThatLeft() {
    FlushOrder order = new FlushOrder("alerts", "rows");
    File one = new File("0_1");
    File two = new File("0_2");
    FlushOrder.Member rowsOfOne = member("0_1", "rows");
    order.join(one, member("0_1", "alerts"));
    order.join(one, rowsOfOne);
    order.join(two, member("0_2", "alerts"));
    order.join(two, member("0_2", "rows"));

    order.leave(one, rowsOfOne);
    order.flush(one);
    order.flush(new File("0_3")); // no member: nothing to do

    assertThat(written).containsExactly("0_1/alerts");
  }

  @Test
  void aMemberThatReplacedAnotherIsNotRemovedByTheOldOnesLeaving() {
    FlushOrder order = new FlushOrder("alerts");
    File task = new File("0_1");
    FlushOrder.Member old = member("0_1", "alerts");
    order.join(task, old);
    order.join(task, member("0_1", "alerts")); // the task's store reopened before the old one closed

    order.leave(task, old);
    order.flush(task);

    assertThat(written).containsExactly("0_1/alerts");
  }

  @Test
  void aStoreOutsideTheOrderIsRefused() {
    FlushOrder order = new FlushOrder("alerts");
    assertThatThrownBy(() -> order.join(new File("0_1"), member("0_1", "impacts")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("impacts");
  }
}
