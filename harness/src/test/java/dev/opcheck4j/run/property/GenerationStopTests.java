package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.generate.DomainCheck;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.RunOutcome;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.testing.CorpusRun;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 55: the tries are a ceiling. An op whose inputs fall in few classes (tied_ops::prefix_norms: one float
 * tensor pair, no int that varies) stops once a window of accepted tries found no new input class, and its
 * results and coverage say how many tries each check ran on and why; {@code --all-tries} makes every try.
 */
class GenerationStopTests {
  private static final String OP = "tied_ops::prefix_norms";
  private static final String WHY = "no new input class in the last " + InputClasses.WINDOW + " accepted tries (";

  private static RunOutcome run(boolean allTries) throws Exception {
    return Launcher.execute(RunRequest.builder().seed(7L).tries(100).allTries(allTries).jobs(1)
        .spec(NativeOps.spec("generation/tied_ops.json")).ops(List.of(OP))
        .checks(List.of("fake.metadata", DomainCheck.ID)).devices(List.of(Device.CPU)).build(),
        RunListener.NONE);
  }

  private static CheckResult generated(RunOutcome outcome, String check) {
    return new CorpusRun(outcome.report()).of(OP).filter(r -> r.check().equals(check) && r.exampleInfo() != null
        && r.exampleInfo().generated()).findFirst().orElseThrow();
  }

  @Test
  void anOpOfFewInputClassesStopsEarlyAndEveryResultSaysTheTriesItRanAndWhy() throws Exception {
    RunOutcome outcome = run(false);
    CheckResult domain = generated(outcome, DomainCheck.ID);
    assertEquals(Outcome.PASSED, domain.outcome(), domain.toString());
    int tries = Integer.parseInt(domain.fact(DomainCheck.TRIES).orElseThrow());
    assertTrue(tries >= InputClasses.FLOOR && tries < 100, domain.toString());
    assertTrue(domain.fact(Fact.GENERATION_STOPPED).orElseThrow().startsWith("after " + tries + " tries (at most 100): " + WHY),
        domain.toString());
    CheckResult meta = generated(outcome, "fake.metadata");
    assertEquals(Outcome.PASSED, meta.outcome(), meta.toString());
    assertEquals(tries, meta.exampleInfo().tries(), meta.toString());
    assertTrue(meta.exampleInfo().stop().startsWith(WHY), meta.toString());
    assertTrue(meta.fact(Fact.GENERATION_STOPPED).isPresent(), meta.toString());
    Coverage.Entry fake = outcome.report().coverage().of(OP).stream()
        .filter(e -> e.family().equals("fake") && "cpu".equals(e.device())).findFirst().orElseThrow();
    assertEquals(Integer.valueOf(tries), fake.generated(), fake.toString());
    assertEquals(0, fake.lost(), "stopped by design, nothing lost: " + fake);
    assertTrue(fake.describe().endsWith(" + " + tries + " generated (" + meta.exampleInfo().stop() + ")"), fake.describe());
  }

  @Test
  void allTriesMakesEveryTry() throws Exception {
    RunOutcome outcome = run(true);
    CheckResult domain = generated(outcome, DomainCheck.ID);
    assertEquals("100", domain.fact(DomainCheck.TRIES).orElseThrow(), domain.toString());
    assertTrue(domain.fact(Fact.GENERATION_STOPPED).isEmpty(), domain.toString());
    CheckResult meta = generated(outcome, "fake.metadata");
    assertEquals(null, meta.exampleInfo().tries(), meta.toString());
    assertEquals(null, meta.exampleInfo().stop(), meta.toString());
  }

  /** The Java front end ({@link dev.opcheck4j.junit.OpCheck}) sets the same switch as the command line and the engine. */
  @Test
  void javasOpCheckTakesAllTriesToo() throws Exception {
    java.util.function.Function<Boolean, CheckResult> domain = all -> {
      try {
        RunReport report = dev.opcheck4j.junit.OpCheck.fromSpec(NativeOps.spec("generation/tied_ops.json")).ops(OP)
            .checks("fake.metadata", DomainCheck.ID).devices("cpu").seed(7L).tries(100).allTries(all).run().report();
        return new CorpusRun(report).of(OP).filter(r -> r.check().equals(DomainCheck.ID)).findFirst().orElseThrow();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };
    assertEquals("100", domain.apply(true).fact(DomainCheck.TRIES).orElseThrow());
    CheckResult stopped = domain.apply(false);
    assertTrue(Integer.parseInt(stopped.fact(DomainCheck.TRIES).orElseThrow()) < 100, stopped.toString());
  }
}
