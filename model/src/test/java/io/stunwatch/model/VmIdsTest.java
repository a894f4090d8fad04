package io.stunwatch.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VmIdsTest {

  @Test
  void everyCommonLayoutOfTheSameUuidHasOneCanonicalForm() {
    String canonical = "421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506";
    assertThat(VmIds.canonical("421C9F3A-5B6C-7D8E-9FA0-B1C2D3E4F506")).isEqualTo(canonical);
    assertThat(VmIds.canonical("{421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506}")).isEqualTo(canonical);
    // uuid.bios as written in a .vmx file
    assertThat(VmIds.canonical("42 1c 9f 3a 5b 6c 7d 8e-9f a0 b1 c2 d3 e4 f5 06")).isEqualTo(canonical);
    assertThat(VmIds.canonical("421c9f3a5b6c7d8e9fa0b1c2d3e4f506\n")).isEqualTo(canonical);
  }

  @Test
  void byteSwapReversesOnlyTheFirstThreeGroups() {
    // SMBIOS < 2.6 stores time_low, time_mid and time_hi little-endian; the last two groups are bytes in order.
    assertThat(VmIds.byteSwapped("421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506"))
        .isEqualTo("3a9f1c42-6c5b-8e7d-9fa0-b1c2d3e4f506");
  }

  @Test
  void byteSwapIsItsOwnInverse() {
    String id = "4c4c4544-0042-3510-8052-b4c04f4e3232";
    assertThat(VmIds.byteSwapped(VmIds.byteSwapped(id))).isEqualTo(id);
    assertThat(VmIds.byteSwapped(id)).isNotEqualTo(id);
  }

  @Test
  void somethingElseIsRejectedWithTheInputQuoted() {
    assertThatThrownBy(() -> VmIds.canonical("vm-42")).hasMessage("not a VM UUID (need 32 hex digits): 'vm-42'");
    assertThat(VmIds.isUuid("421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f5")).isFalse();
  }
}
