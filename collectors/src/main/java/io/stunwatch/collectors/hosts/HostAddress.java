package io.stunwatch.collectors.hosts;

import java.util.Objects;

/**
 * One GPU host to read.
 *
 * @param name    the host's name as the inventory has it: the {@code hostname} of its samples
 * @param address where SSH reaches it (the name itself unless a host list says otherwise)
 * @param port    its SSH port
 */
public record HostAddress(String name, String address, int port) {

  public HostAddress {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(address, "address");
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is not in 1..65535");
    }
  }

  @Override
  public String toString() {
    return name + (name.equals(address) && port == 22 ? "" : " (" + address + ":" + port + ")");
  }
}
