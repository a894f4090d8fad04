package io.stunwatch.processor.readmodel;

import io.stunwatch.model.EntityRef;

/**
 * Where the inventory last saw a VM: its name, its host and its vCenter, any of them null when vCenter did not say.
 *
 * @param name        the VM's display name
 * @param host        the name of the ESXi host it runs on
 * @param vcenterUuid the vCenter that reports it
 * @param hostRef     the host it runs on, by moref
 */
public record VmPlacement(String name, String host, String vcenterUuid, EntityRef hostRef) {
}
