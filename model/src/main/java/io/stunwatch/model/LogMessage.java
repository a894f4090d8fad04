package io.stunwatch.model;

/**
 * One entry of the message list ESXi writes into a VM's {@code vmware.log} when a migration fails, e.g.
 * {@code [msg.checkpoint.migration.maxSwitchoverTimeExceeded] The migration has exceeded ...}.
 *
 * @param id   the message id, e.g. {@code msg.checkpoint.migration.maxSwitchoverTimeExceeded}
 * @param text the message as ESXi wrote it
 */
public record LogMessage(String id, String text) {

  public LogMessage {
    Checks.requiredText(id, "message.id");
  }
}
