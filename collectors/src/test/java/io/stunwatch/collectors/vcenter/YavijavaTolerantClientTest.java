package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.vmware.vim25.Event;
import com.vmware.vim25.TaskEvent;
import com.vmware.vim25.VmMigratedEvent;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What a vCenter 8 answer holds that the vim25 6.0 binding does not know, read through the tolerant client. */
class YavijavaTolerantClientTest {

  private static final String ENVELOPE = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      + "<soapenv:Envelope xmlns:soapenc=\"http://schemas.xmlsoap.org/soap/encoding/\" "
      + "xmlns:soapenv=\"http://schemas.xmlsoap.org/soap/envelope/\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
      + "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soapenv:Body>"
      + "<ReadNextEventsResponse xmlns=\"urn:vim25\">%s</ReadNextEventsResponse></soapenv:Body></soapenv:Envelope>";

  private static final String MIGRATED = "<returnval xsi:type=\"VmMigratedEvent\"><key>9003</key><chainId>9001"
      + "</chainId><createdTime>2026-11-26T10:00:00Z</createdTime><userName>admin</userName>"
      + "<vm><name>train-01</name><vm type=\"VirtualMachine\">vm-42</vm></vm>"
      + "<fullFormattedMessage>Migration of train-01 completed</fullFormattedMessage>"
      + "<encryptedVMotionState>required</encryptedVMotionState>" // a property newer than 6.0
      + "<sourceHost><name>esx01</name><host type=\"HostSystem\">host-1</host></sourceHost></returnval>";

  private static Object read(String returnType, String xml) throws Exception {
    YavijavaTolerantClient client = new YavijavaTolerantClient("https://127.0.0.1:1/sdk", true);
    return client.unMarshall(returnType, new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void newerPropertiesTypesAndEnumValuesAreSkippedAndTheRestOfTheAnswerIsKept() throws Exception {
    long before = YavijavaTolerantClient.skipped(URI.create("https://127.0.0.1:1/sdk").toURL());
    String answer = String.format(ENVELOPE, MIGRATED
        + "<returnval xsi:type=\"VmMigratedToVsanEsaEvent\"><key>9004</key><chainId>9004</chainId>"
        + "<createdTime>2026-11-26T10:00:01Z</createdTime></returnval>" // a type newer than 6.0
        + "<returnval xsi:type=\"TaskEvent\"><key>9005</key><chainId>9005</chainId>"
        + "<createdTime>2026-11-26T10:00:02Z</createdTime><info><key>task-77</key><task type=\"Task\">task-77</task>"
        + "<name>RelocateVM_Task</name><descriptionId>VirtualMachine.relocate</descriptionId>"
        + "<state>paused</state>" // an enum value newer than 6.0
        + "<cancelled>false</cancelled><cancelable>true</cancelable><reason xsi:type=\"TaskReasonUser\">"
        + "<userName>admin</userName></reason><queueTime>2026-11-26T10:00:02Z</queueTime><eventChainId>9005"
        + "</eventChainId></info></returnval>");
    Event[] events = (Event[]) read("Event[]", answer);
    assertThat(events).hasSize(2);
    VmMigratedEvent migrated = (VmMigratedEvent) events[0];
    assertThat(migrated.getKey()).isEqualTo(9003);
    assertThat(migrated.getVm().getVm().getVal()).isEqualTo("vm-42");
    assertThat(migrated.getSourceHost().getName()).isEqualTo("esx01");
    TaskEvent task = (TaskEvent) events[1];
    assertThat(task.getInfo().getDescriptionId()).isEqualTo("VirtualMachine.relocate");
    assertThat(task.getInfo().getState()).as("unknown value: unknown, not a guess").isNull();
    assertThat(YavijavaTolerantClient.skipped(URI.create("https://127.0.0.1:1/sdk").toURL()) - before)
        .isEqualTo(3);
  }

  @Test
  void anAnswerWithADoctypeIsRefusedSoNoExternalEntityIsRead() {
    String xxe = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
        + String.format(ENVELOPE, MIGRATED.replace("admin", "&e;")).substring("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".length());
    assertThatThrownBy(() -> read("Event[]", xxe)).hasMessageContaining("not XML")
        .hasMessageNotContaining("root:");
  }
}
