package io.stunwatch.collectors.vcenter;

import com.vmware.vim25.ManagedObjectReference;
import com.vmware.vim25.ws.ClientCreator;
import com.vmware.vim25.ws.WSClient;
import io.stunwatch.logging.LogLimiter;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.rmi.RemoteException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.TrustManager;
import org.dom4j.Document;
import org.dom4j.DocumentException;
import org.dom4j.Element;
import org.dom4j.Namespace;
import org.dom4j.QName;
import org.dom4j.io.SAXReader;
import org.doublecloud.ws.util.TypeUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * yavijava's SOAP client, made to read answers of a vCenter newer than its vim25 6.0 binding. yavijava fails a whole
 * response on one property or type it does not know (a vCenter 8 ServiceContent, a new event class, a new enum
 * value), and then the collector could not even log in. This client removes each such element from the response
 * first: the element is skipped, counted by vCenter ({@link #skipped(URL)}) and logged; the rest of the response is
 * kept. It also parses the response with DOCTYPEs refused, so no external entity is ever resolved.
 *
 * <p>Installed process-wide as yavijava's client class by {@link #install()}.
 */
public final class YavijavaTolerantClient extends WSClient {

  private static final Logger LOG = LoggerFactory.getLogger(YavijavaTolerantClient.class);
  private static final QName XSI_TYPE = QName.get("type",
      Namespace.get("xsi", "http://www.w3.org/2001/XMLSchema-instance"));
  private static final Map<String, LongAdder> SKIPPED = new ConcurrentHashMap<>();
  private static final LogLimiter PROBLEM_LOG = new LogLimiter(10);

  public YavijavaTolerantClient(String url, boolean ignoreCert) throws MalformedURLException, RemoteException {
    super(url, ignoreCert);
  }

  public YavijavaTolerantClient(String url, boolean ignoreCert, TrustManager trustManager)
      throws MalformedURLException, RemoteException {
    super(url, ignoreCert, trustManager);
  }

  /** Makes every yavijava connection of this process use this client. */
  public static void install() {
    ClientCreator.clientClass = YavijavaTolerantClient.class;
  }

  /** Elements skipped so far in the answers of the vCenter at {@code url} (its host and port). */
  public static long skipped(URL url) {
    LongAdder n = SKIPPED.get(authority(url));
    return n == null ? 0 : n.sum();
  }

  @Override
  public Object unMarshall(String returnType, InputStream is) throws Exception {
    byte[] body = is.readAllBytes();
    Document doc;
    try {
      SAXReader reader = SAXReader.createDefault();
      reader.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      doc = reader.read(new ByteArrayInputStream(body));
    } catch (DocumentException e) {
      throw new RemoteException("the vCenter's answer to " + returnType + " is not XML: " + e.getMessage());
    }
    int removed = clean(doc, returnType);
    if (removed > 0) {
      SKIPPED.computeIfAbsent(authority(getBaseUrl()), k -> new LongAdder()).add(removed);
      body = doc.asXML().getBytes(StandardCharsets.UTF_8);
    }
    return super.unMarshall(returnType, new ByteArrayInputStream(body));
  }

  /** Removes what the binding does not know from the answer; how many elements. */
  static int clean(Document doc, String returnType) {
    Element body = doc.getRootElement().element("Body");
    if (body == null || body.elements().isEmpty()) {
      return 0;
    }
    Element response = body.elements().get(0);
    if (response.getName().contains("Fault") || returnType == null) {
      return 0; // a fault is read by yavijava's own fault mapping
    }
    String rt = returnType.endsWith("[]") ? returnType.substring(0, returnType.length() - 2) : returnType;
    Class<?> declared = vimClass(rt);
    if (declared == null || leaf(declared)) {
      return 0;
    }
    int removed = 0;
    for (Element value : List.copyOf(response.elements())) {
      Class<?> type = typeOf(value, declared);
      if (type == null) {
        removed += skip(response, value, rt);
      } else if (!leaf(type)) {
        removed += clean(value, type);
      }
    }
    return removed;
  }

  private static int clean(Element element, Class<?> type) {
    int removed = 0;
    for (Element child : List.copyOf(element.elements())) {
      Field field = field(type, child.getName());
      if (field == null) {
        removed += skip(element, child, type.getSimpleName());
        continue;
      }
      Class<?> declared = field.getType().isArray() ? field.getType().getComponentType() : field.getType();
      Class<?> actual = typeOf(child, declared);
      if (actual == null) {
        removed += skip(element, child, type.getSimpleName());
      } else if (actual.isEnum()) {
        if (!isConstant(actual, child.getTextTrim())) {
          removed += skip(element, child, type.getSimpleName());
        }
      } else if (!leaf(actual)) {
        removed += clean(child, actual);
      }
    }
    return removed;
  }

  /** The class of an element: its xsi:type when it has one, else the declared; null when the binding lacks it. */
  private static Class<?> typeOf(Element e, Class<?> declared) {
    String xsi = e.attributeValue(XSI_TYPE);
    if (xsi == null || xsi.startsWith("xsd:")) {
      return declared;
    }
    return vimClass(xsi.contains(":") ? xsi.substring(xsi.indexOf(':') + 1) : xsi);
  }

  private static Class<?> vimClass(String name) {
    try {
      return TypeUtil.getVimClass(name);
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
  }

  private static boolean leaf(Class<?> c) {
    return c == ManagedObjectReference.class || c.isPrimitive() || TypeUtil.isBasicType(c) || c == Object.class
        || c.getName().startsWith("java.");
  }

  /** The binding's field for a tag: yavijava prefixes a Java keyword with an underscore. */
  private static Field field(Class<?> type, String tag) {
    try {
      return type.getField(TypeUtil.isPrimitiveType(tag) ? "_" + tag : tag);
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  private static boolean isConstant(Class<?> enumType, String text) {
    for (Object c : enumType.getEnumConstants()) {
      if (((Enum<?>) c).name().equals(text)) {
        return true;
      }
    }
    return false;
  }

  private static int skip(Element parent, Element child, String in) {
    parent.remove(child);
    String suffix = PROBLEM_LOG.admit();
    if (suffix != null) {
      String xsi = child.attributeValue(XSI_TYPE);
      LOG.warn("vCenter answer: skipped <{}{}> of {}, newer than the vim25 6.0 binding; the rest is kept{}",
          child.getName(), xsi == null ? "" : " xsi:type=" + xsi, in, suffix);
    }
    return 1;
  }

  private static String authority(URL url) {
    return url == null ? "" : url.getHost() + ":" + (url.getPort() < 0 ? url.getDefaultPort() : url.getPort());
  }
}
