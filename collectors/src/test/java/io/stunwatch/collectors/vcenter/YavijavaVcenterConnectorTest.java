package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import com.vmware.vim25.EventFilterSpec;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class YavijavaVcenterConnectorTest {

  @Test
  void theEventFilterNamesTheEncryptedVmotionIdForARealVcenterThatHonoursIt() {
    Instant since = Instant.parse("2026-11-26T10:00:00Z");
    EventFilterSpec spec = YavijavaVcenterConnection.eventFilter(since);
    assertThat(spec.getEventTypeId())
        .as("a real vCenter matches an EventEx by its eventTypeId: the class name lets none through")
        .contains(MigrationEventTypes.ENCRYPTED_VMOTION, "TaskEvent", "VmMigratedEvent", "DrsVmMigratedEvent",
            "VmBeingHotMigratedEvent", "VmFailedMigrateEvent", "VmRelocatedEvent", "VmPoweredOnEvent")
        .doesNotContain("EventEx", "ExtendedEvent")
        .doesNotHaveDuplicates();
    assertThat(spec.getTime().getBeginTime().toInstant()).isEqualTo(since);
    assertThat(spec.getTime().getEndTime()).isNull();
    // the DRS guard's maintenance-mode events are asked for too; every other type asked for is one the collector
    // keeps, and nothing it categorizes is filtered out on the server
    assertThat(spec.getEventTypeId()).contains(MigrationEventTypes.MAINTENANCE.toArray(String[]::new));
    for (String id : spec.getEventTypeId()) {
      if (MigrationEventTypes.MAINTENANCE.contains(id)) {
        continue;
      }
      boolean ex = id.contains(".");
      String type = ex ? "EventEx" : id;
      assertThat(MigrationEventTypes.categorize(type, ex ? id : null,
          "TaskEvent".equals(id) ? "VirtualMachine.relocate" : null)).as(id).isPresent();
    }
  }
}
