package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import com.vmware.vim25.EventFilterSpec;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class YavijavaVcenterConnectorTest {

  @Test
  void theEventFilterNamesTheEncryptedVmotionIdForARealVcenterThatHonoursIt() {
    Instant since = Instant.parse("2026-11-26T10:00:00Z");
    EventFilterSpec spec = YavijavaVcenterConnector.eventFilter(since);
    assertThat(spec.getEventTypeId())
        .as("a real vCenter matches an EventEx by its eventTypeId: the class name lets none through")
        .contains(MigrationEventTypes.ENCRYPTED_VMOTION, "TaskEvent", "VmMigratedEvent", "DrsVmMigratedEvent",
            "VmBeingHotMigratedEvent", "VmFailedMigrateEvent", "VmRelocatedEvent", "VmPoweredOnEvent")
        .doesNotContain("EventEx", "ExtendedEvent")
        .doesNotHaveDuplicates();
    assertThat(spec.getTime().getBeginTime().toInstant()).isEqualTo(since);
    assertThat(spec.getTime().getEndTime()).isNull();
    // every type the collector keeps is asked for: nothing it categorizes is filtered out on the server
    for (String id : spec.getEventTypeId()) {
      boolean ex = id.contains(".");
      String type = ex ? "EventEx" : id;
      assertThat(MigrationEventTypes.categorize(type, ex ? id : null,
          "TaskEvent".equals(id) ? "VirtualMachine.relocate" : null)).as(id).isPresent();
    }
  }

  @Test
  void aServerThatIgnoresTheRangeGivesOnlyTheLastBytesKept() throws Exception {
    byte[] file = new byte[100_003];
    for (int i = 0; i < file.length; i++) {
      file[i] = (byte) (i % 251);
    }
    VcenterConnection.Tail tail = YavijavaVcenterConnector.lastBytes(new java.io.ByteArrayInputStream(file), 4096);
    assertThat(tail.offset()).isEqualTo(100_003 - 4096);
    assertThat(tail.content()).isEqualTo(java.util.Arrays.copyOfRange(file, file.length - 4096, file.length));
    VcenterConnection.Tail whole = YavijavaVcenterConnector.lastBytes(new java.io.ByteArrayInputStream(file, 0, 10),
        4096);
    assertThat(whole.offset()).isZero();
    assertThat(whole.content()).hasSize(10);
  }

  @Test
  void theContentRangeOfAPartialAnswerGivesWhereTheBytesStart() throws Exception {
    assertThat(YavijavaVcenterConnector.rangeStart("bytes 1048576-9437183/9437184", "f")).isEqualTo(1_048_576L);
    assertThat(YavijavaVcenterConnector.rangeStart("bytes 0-99/*", "f")).isZero();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> YavijavaVcenterConnector.rangeStart(null, "[ds] a.log"))
        .hasMessageContaining("[ds] a.log").hasMessageContaining("Content-Range");
  }
}
