package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.LocalTimes;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.model.VgpuProfile;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Reads {@code nvidia-smi -q -x} (DTD v9 to v13, or none) into a {@link GpuSnapshot}.
 *
 * <p>The parser loads no DTD and resolves no external entity: nvidia-smi's {@code <!DOCTYPE ... SYSTEM
 * "nvsmi_device_v12.dtd">} is read and ignored, and a document that tries to pull in a file or URL gets nothing.
 */
public final class NvidiaSmiXmlParser {

  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy",
      Locale.ENGLISH);

  private final DocumentBuilderFactory factory;
  /** One per parser, as a parser reads one host's snapshots in order: the fall-back hour reads forward. */
  private final LocalTimes localTimes;
  private final WorkerIdentity identity;
  private final Clock clock;

  public NvidiaSmiXmlParser(ZoneId zone, WorkerIdentity identity, Clock clock) {
    this.factory = secureFactory();
    this.localTimes = new LocalTimes(zone, clock);
    this.identity = identity;
    this.clock = clock;
  }

  /** A DOM factory with DTD loading, external entities and XInclude off, and JAXP's secure processing on. */
  static DocumentBuilderFactory secureFactory() {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    try {
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
      f.setFeature("http://xml.org/sax/features/external-general-entities", false);
      f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("the XML parser cannot be secured: " + e.getMessage(), e);
    }
    f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
    f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
    f.setXIncludeAware(false);
    f.setExpandEntityReferences(false);
    f.setNamespaceAware(false);
    f.setValidating(false);
    return f;
  }

  /**
   * Parses one document.
   *
   * @param xml    the bytes nvidia-smi printed
   * @param source names the file or command in errors
   * @throws InputParseException naming the source, line and reason when it is not an nvidia-smi XML log
   */
  public GpuSnapshot parse(byte[] xml, String source) throws InputParseException {
    Document doc;
    try {
      DocumentBuilder builder = factory.newDocumentBuilder();
      builder.setErrorHandler(null);
      builder.setEntityResolver((publicId, systemId) -> new InputSource(new ByteArrayInputStream(new byte[0])));
      doc = builder.parse(new ByteArrayInputStream(xml));
    } catch (SAXParseException e) {
      throw new InputParseException(source, Math.max(e.getLineNumber(), 0), "not well-formed XML: "
          + e.getMessage());
    } catch (SAXException | IOException | ParserConfigurationException e) {
      throw new InputParseException(source, 0, "cannot read XML: " + e.getMessage());
    }
    Element root = doc.getDocumentElement();
    if (!"nvidia_smi_log".equals(root.getTagName())) {
      throw new InputParseException(source, 0, "root element is <" + root.getTagName() + ">, not <nvidia_smi_log>");
    }
    try {
      List<GpuSnapshot.Gpu> gpus = new ArrayList<>();
      for (Element gpu : children(root, "gpu")) {
        gpus.add(gpu(gpu));
      }
      return new GpuSnapshot(identity.vmId(), identity.hostname(), timestamp(childText(root, "timestamp")),
          childText(root, "driver_version"), childText(root, "cuda_version"), gpus);
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new InputParseException(source, 0, e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new InputParseException(source, 0, e.getMessage());
    }
  }

  private GpuSnapshot.Gpu gpu(Element gpu) {
    String name = childText(gpu, "product_name");
    Element fb = child(gpu, "fb_memory_usage");
    Element util = child(gpu, "utilization");
    Element virt = child(gpu, "gpu_virtualization_mode");
    Element mig = child(gpu, "mig_mode");
    List<GpuSnapshot.MigDevice> migDevices = new ArrayList<>();
    Element migs = child(gpu, "mig_devices");
    if (migs != null) {
      for (Element m : children(migs, "mig_device")) {
        Element mfb = child(m, "fb_memory_usage");
        Long index = NvidiaSmiValues.whole(childText(m, "index"));
        migDevices.add(new GpuSnapshot.MigDevice(index == null ? migDevices.size() : index.intValue(),
            integer(childText(m, "gpu_instance_id")), integer(childText(m, "compute_instance_id")),
            mfb == null ? null : NvidiaSmiValues.whole(childText(mfb, "total")),
            mfb == null ? null : NvidiaSmiValues.whole(childText(mfb, "used"))));
      }
    }
    List<GpuSnapshot.GpuProcess> processes = new ArrayList<>();
    Element procs = child(gpu, "processes");
    if (procs != null) {
      for (Element p : children(procs, "process_info")) {
        processes.add(new GpuSnapshot.GpuProcess(NvidiaSmiValues.whole(childText(p, "pid")),
            childText(p, "type"), childText(p, "process_name"), NvidiaSmiValues.whole(childText(p, "used_memory")),
            integer(childText(p, "gpu_instance_id")), integer(childText(p, "compute_instance_id"))));
      }
    }
    return new GpuSnapshot.Gpu(gpu.getAttribute("id").isEmpty() ? null : gpu.getAttribute("id"),
        childText(gpu, "uuid"), name, integer(childText(gpu, "minor_number")),
        virt == null ? null : childText(virt, "virtualization_mode"),
        virt == null ? null : childText(virt, "host_vgpu_mode"),
        mig == null ? null : childText(mig, "current_mig"),
        fb == null ? null : NvidiaSmiValues.whole(childText(fb, "total")),
        fb == null ? null : NvidiaSmiValues.whole(childText(fb, "used")),
        util == null ? null : NvidiaSmiValues.number(childText(util, "gpu_util")),
        VgpuProfile.parse(name).orElse(null), migDevices, processes);
  }

  private Instant timestamp(String raw) {
    if (raw == null) {
      return clock.instant(); // trimmed logs have no timestamp: the read time is the best we know
    }
    // "Fri Aug  4 11:44:30 2023" pads the day with a space; "Sun Mar 2 15:02:02 2025" does not.
    return localTimes.resolve(LocalDateTime.parse(raw.replaceAll("\\s+", " "), TIMESTAMP));
  }

  private static Integer integer(String raw) {
    Long v = NvidiaSmiValues.whole(raw);
    return v == null ? null : Math.toIntExact(v);
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node n = nodes.item(i);
      if (n instanceof Element e && e.getTagName().equals(name)) {
        out.add(e);
      }
    }
    return out;
  }

  private static Element child(Element parent, String name) {
    List<Element> c = children(parent, name);
    return c.isEmpty() ? null : c.get(0);
  }

  /** The trimmed text of a direct child, or null when absent or one of nvidia-smi's "no value" forms. */
  private static String childText(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : NvidiaSmiValues.text(e.getTextContent());
  }
}
