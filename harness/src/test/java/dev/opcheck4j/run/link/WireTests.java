package dev.opcheck4j.run.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.TensorSummary;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireTests {
  record Holder(Cause cause, List<Cause> causes) {}

  @Test
  void aSealedKindTravelsAsItsOwnRecord() {
    Holder h = new Holder(new Cause.Crash("SIGSEGV"),
        List.of(new Cause.Timeout(60), new Cause.MetadataMismatch("output 0", "sizes"), new Cause.Rejection("boom 3")));
    String line = Wire.write(h);
    assertEquals("{\"cause\":[\"Crash\",{\"signal\":\"SIGSEGV\"}],\"causes\":[[\"Timeout\",{\"seconds\":60}],"
        + "[\"MetadataMismatch\",{\"where\":\"output 0\",\"property\":\"sizes\"}],[\"Rejection\",{\"firstLine\":\"boom 3\"}]]}",
        line);
    assertEquals(h, Wire.read(line, Holder.class));
  }

  @Test
  void aFindingRoundTrips() {
    Finding f = new Finding("x unchanged", "3 of 12 changed", "declare (a!)", new Cause.Contract("undeclared mutation", "argument 'x'"),
        List.of(Fact.of("max |diff|", 0.41)),
        List.of(new TensorSummary("actual", "float32", List.of(4L, 3L), List.of(1L, 4L), "cpu", List.of(1.0, Double.NaN))));
    assertEquals(f, Wire.read(Wire.write(f), Finding.class));
  }

  @Test
  void anUnknownKindIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> Wire.read("{\"cause\":[\"Nope\",{}]}", Holder.class));
  }
}
