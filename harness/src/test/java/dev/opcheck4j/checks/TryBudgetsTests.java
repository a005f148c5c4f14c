package dev.opcheck4j.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import org.junit.jupiter.api.Test;

/**
 * The share of a run's generated tries each check gets (issue 55): all of them, a costly check's tenth (at least
 * 3), and never more than a check's cap, which only determinism and noncontiguous have (docs/performance.md).
 */
class TryBudgetsTests {
  private static CheckInfo info(String id) {
    return BuiltinChecks.byId(id).orElseThrow().info();
  }

  @Test
  void determinismAndNoncontiguousAreCappedTheCostlyGetATenthTheRestEveryTry() {
    assertEquals(25, info("determinism").triesOf(100));
    assertEquals(20, info("noncontiguous").triesOf(100));
    assertEquals(12, info("determinism").triesOf(12), "a cap is a ceiling, never more than the run's tries");
    assertEquals(10, info("gradcheck.jacobian").triesOf(100));
    assertEquals(3, info("gradcheck.jacobian").triesOf(20), "at least 3");
    assertEquals(100, info("fake.metadata").triesOf(100));
    assertEquals(300, info("mutation.undeclared").triesOf(300));
    assertTrue(info("determinism").budgeted() && info("memory.bounds").budgeted());
    assertFalse(info("alias.undeclared").budgeted());
    long capped = BuiltinChecks.all().stream().filter(c -> c.info().triesCap() > 0).count();
    assertEquals(2, capped, "the caps the table in docs/performance.md gives, and no other");
  }
}
