package dev.opcheck4j.checks.variant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FamilyTests {
  @Test
  void familiesAreReadFromTheNamesPyTorchUses() {
    assertEquals(new Family("ns::foo", true), Family.of("ns::foo_").orElseThrow());
    assertEquals(new Family("ns::foo", false), Family.of("ns::foo.out").orElseThrow());
    assertEquals(new Family("ns::foo", false), Family.of("ns::foo_out").orElseThrow());
    for (String none : List.of("ns::foo", "ns::foo.Tensor", "ns::__init__", "ns::_private_", "ns::_out", "ns::foo__")) {
      assertTrue(Family.of(none).isEmpty(), none);
    }
  }
}
