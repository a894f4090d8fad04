package io.stunwatch.processor.readmodel;

/**
 * Keys of {@link StoreNames#MIGRATIONS_BY_VM_ORDER}: {@code <VM key>|<order>|<position>}, where a position is
 * {@code <sort value, fixed width>|<migration id>}. A VM's migrations in one of the list's sorts are one prefix of the
 * store, in key order ascending and in reverse descending, so a page of a VM's list is read from its cursor on, not
 * the VM's whole history. The sort values and their ties match the list's comparators (the API's {@code sort}): a
 * start to the nanosecond, a stun or a duration with an unknown one as -1, then the migration id.
 */
public final class VmOrderKeys {

  /** The orders a VM's list is kept in, each with the letter of its keys. */
  public enum Order {
    START('s'), STUN('t'), DURATION('d');

    private final char letter;

    Order(char letter) {
      this.letter = letter;
    }

    /** The order of the API's {@code sort} ({@code start}, {@code -stun}, ...), its direction aside. */
    public static Order ofSort(String sort) {
      return switch (sort.startsWith("-") ? sort.substring(1) : sort) {
        case "stun" -> STUN;
        case "duration" -> DURATION;
        default -> START;
      };
    }
  }

  private VmOrderKeys() {
  }

  /** The {@link StoreNames#MIGRATIONS_BY_VM} key of migration {@code id} of the VM keyed {@code vmKey}. */
  public static String rowKey(String vmKey, String id) {
    return vmKey + "|" + id;
  }

  /** {@code <VM key>|<letter>|}: every key of the VM in {@code order} starts with it. */
  public static String prefix(String vmKey, Order order) {
    return vmKey + "|" + order.letter + "|";
  }

  /** The key of {@code row}, a migration of the VM keyed {@code vmKey}, in {@code order}. */
  public static String of(String vmKey, Order order, MigrationRow row) {
    return prefix(vmKey, order) + position(order, row);
  }

  /** Where {@code row} is in {@code order}: its sort value, then its id. */
  public static String position(Order order, MigrationRow row) {
    return switch (order) {
      case START -> position(order, row.startEpochSecond(), row.startNano(), 0, row.id());
      case STUN -> position(order, 0, 0, orUnknown(row.stunSeconds()), row.id());
      case DURATION -> position(order, 0, 0, orUnknown(row.durationSeconds()), row.id());
    };
  }

  /**
   * A position from its parts: the start ({@code second}, {@code nano}) in {@link Order#START}, else {@code value}.
   * {@code id} may be empty or {@code "\uffff"} for the lowest or highest position of a sort value.
   */
  public static String position(Order order, long second, int nano, double value, String id) {
    String v = order == Order.START ? padded(Math.max(0, second), 12) + padded(nano, 9) : sortable(value);
    return v + "|" + id;
  }

  /** The position of a {@link #of key} (the VM key may itself hold {@code |}: its prefix is known). */
  public static String positionOf(String key, String prefix) {
    return key.substring(prefix.length());
  }

  /** The migration id of a {@link #of key} in {@code order}. */
  public static String idOf(String key, String prefix, Order order) {
    int width = order == Order.START ? 21 : 16;
    return key.substring(prefix.length() + width + 1);
  }

  private static double orUnknown(Double v) {
    return v == null ? -1.0 : v;
  }

  /** 16 hex digits that sort as {@link Double#compare} does. */
  private static String sortable(double v) {
    long bits = Double.doubleToLongBits(v);
    bits = bits < 0 ? ~bits : bits | Long.MIN_VALUE;
    String hex = Long.toHexString(bits);
    return hex.length() >= 16 ? hex : "0".repeat(16 - hex.length()) + hex;
  }

  private static String padded(long v, int digits) {
    String s = Long.toString(v);
    return s.length() >= digits ? s : "0".repeat(digits - s.length()) + s;
  }
}
