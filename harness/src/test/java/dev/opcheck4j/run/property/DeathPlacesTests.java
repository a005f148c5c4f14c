package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.torch.Device;
import org.junit.jupiter.api.Test;

/** A stop of generation says where each of the op's deaths was (issue 52: "stopped after 27 of 100 tries", but why?). */
class DeathPlacesTests {

  @Test
  void aStopSaysHowManyDeathsWereBeforeGenerationInTheProbesAndOnWhichTries() {
    DeathPlaces places = new DeathPlaces(Device.CPU, 1);
    places.probed(1);
    places.killedOn("try 3");
    places.killedOn("try 17 (edge case: sizes 0)");
    assertEquals("the op killed its worker 3 times: 1 before generation on cpu (in its example checks, or on an earlier"
        + " device); 2 on generated inputs (try 3, try 17 (edge case: sizes 0)) (see " + BuiltinChecks.supervisors() + ")",
        places.why(3));
    DeathPlaces probes = new DeathPlaces(Device.CPU, 0);
    probes.probed(3);
    assertEquals("the op killed its worker 3 times: 3 in probes of its domain and sizes (see " + BuiltinChecks.supervisors()
        + ")", probes.why(3));
  }
}
