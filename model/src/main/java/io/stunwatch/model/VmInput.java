package io.stunwatch.model;

/**
 * A record that the processor takes in the task of the VM it is about, keyed there by the VM's id, whatever key it
 * was published under: the VM's readings, its vCenter events and what its hosts' logs say of its vMotions. The
 * processor's state machines take this one type and tell its kinds apart with an exhaustive {@code switch}.
 */
public sealed interface VmInput
    permits GpuSample, RdmaCounterSample, ThroughputSample, VcenterEvent, StunObservation, VmotionObservation,
    VmotionBandwidth {
}
