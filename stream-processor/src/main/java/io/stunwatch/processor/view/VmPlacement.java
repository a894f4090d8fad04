package io.stunwatch.processor.view;

/**
 * Where the inventory last saw a VM: its name and its host's name, either null when vCenter did not say.
 *
 * @param name the VM's display name
 * @param host the name of the ESXi host it runs on
 */
public record VmPlacement(String name, String host) {
}
