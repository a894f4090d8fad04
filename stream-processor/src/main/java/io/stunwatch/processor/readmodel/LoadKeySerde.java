package io.stunwatch.processor.readmodel;

import io.stunwatch.processor.state.Uuids;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The bytes of a load key ({@link LoadKeys}) in {@link StoreNames#VM_LIVE}: a VM id that is a canonical UUID as its
 * 16 bytes and one byte for the view (0 the guest's, 1 the host's), 17 bytes rather than 36 or 41 of text; any other
 * key as its UTF-8. Every VM's record is written at every commit, and its key was most of a record's bytes.
 *
 * <p>A VM's guest view sorts right before its host's, as the text keys do. Text is never 17 bytes ending in a 0 or 1
 * byte unless it holds a control character, which a VM id does not: such a key is refused rather than misread.
 */
public final class LoadKeySerde implements Serde<String> {

  public static final LoadKeySerde INSTANCE = new LoadKeySerde();

  private static final int PACKED = Uuids.BYTES + 1;

  private LoadKeySerde() {
  }

  public static byte[] encode(String key) {
    if (key == null) {
      return null;
    }
    boolean host = key.endsWith(LoadKeys.HOST_SUFFIX);
    int idLength = host ? key.length() - LoadKeys.HOST_SUFFIX.length() : key.length();
    if (idLength == Uuids.TEXT_LENGTH && Uuids.isCanonical(key.substring(0, idLength), 0)) {
      byte[] b = new byte[PACKED];
      Uuids.pack(key, 0, b, 0);
      b[Uuids.BYTES] = (byte) (host ? 1 : 0);
      return b;
    }
    byte[] text = key.getBytes(StandardCharsets.UTF_8);
    if (text.length == PACKED && text[PACKED - 1] >= 0 && text[PACKED - 1] <= 1) {
      throw new IllegalArgumentException("not a load key: " + key);
    }
    return text;
  }

  public static String decode(byte[] b) {
    if (b == null) {
      return null;
    }
    if (b.length == PACKED && b[PACKED - 1] >= 0 && b[PACKED - 1] <= 1) {
      String id = Uuids.unpack(b, 0);
      return b[PACKED - 1] == 1 ? id + LoadKeys.HOST_SUFFIX : id;
    }
    return new String(b, StandardCharsets.UTF_8);
  }

  @Override
  public Serializer<String> serializer() {
    return (topic, key) -> encode(key);
  }

  @Override
  public Deserializer<String> deserializer() {
    return (topic, bytes) -> decode(bytes);
  }
}
