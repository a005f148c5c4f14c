package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.ExpectedFailures;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExpectationsTests {
  private static final Path FILE = Path.of("/suite/xfail.json");
  private static final String SPEC = "/suite/specs/a.json";

  private static ExpectedFailures.Entry entry(String scope, String op, String key, int line) {
    int at = key.indexOf('@');
    return new ExpectedFailures.Entry(scope, op, key, at < 0 ? key : key.substring(0, at), at < 0 ? null : key.substring(at + 1),
        "why " + line, FILE + ":" + line + ":9");
  }

  private static CheckResult result(String op, String check, String device, Outcome outcome) {
    return new CheckResult(op, check, device, CheckResult.NONE, outcome,
        outcome == Outcome.SKIPPED ? List.of(new Fact("reason", "no input requires grad")) : List.of(), 0);
  }

  @Test
  void listedFailuresAreExpectedAndEntriesThatFailNowhereAreUnexpectedPassesOnceTheirOpIsDone() {
    ExpectedFailures file = new ExpectedFailures(FILE, List.of(
        entry(null, "a::f", "mutation", 2),
        entry(null, "a::g", "fake.metadata@meta", 3),
        entry(null, "a::h", "registration.dangling", 4),
        entry(null, "a::k", "gradcheck", 5),
        entry("spec:other/b.json", "a::f", "alias", 6)));
    List<String> seen = new ArrayList<>();
    RunListener record = new RunListener() {
      @Override
      public void result(CheckResult r) {
        seen.add(r.op() + " " + r.check() + " " + r.device() + " " + r.outcome().label()
            + (r.expectation() == null ? "" : " <- " + r.expectation().location()));
      }

      @Override
      public void opFinished(OpEvent op) {
        seen.add("done " + op.op());
      }
    };
    Expectations judge = new Expectations(file, Set.of("a::f", "a::g", "a::k"), record);
    op(judge, "liba.so", new CheckResult("a::*", "registration.dangling", "-", "-", Outcome.PASSED, List.of(), 0)
        .aboutLibrary("liba.so"));
    op(judge, "a::f", result("a::f", "mutation.undeclared", "cpu", Outcome.FAILED),
        result("a::f", "mutation.undeclared", "meta", Outcome.PASSED), result("a::f", "alias.outputs", "cpu", Outcome.PASSED));
    op(judge, "a::g", result("a::g", "fake.metadata", "meta", Outcome.PASSED),
        result("a::g", "fake.metadata", "cpu", Outcome.FAILED));
    op(judge, "a::k", result("a::k", "gradcheck.jacobian", "cpu", Outcome.SKIPPED));
    assertEquals(List.of(
        "a::* registration.dangling - passed",
        "a::h registration.dangling - unexpected pass <- /suite/xfail.json:4:9",
        "done liba.so",
        "a::f mutation.undeclared cpu expected failure <- /suite/xfail.json:2:9",
        "a::f mutation.undeclared meta passed",
        "a::f alias.outputs cpu passed", // the alias entry holds for another spec only
        "done a::f",
        "a::g fake.metadata meta passed",
        "a::g fake.metadata cpu failed", // listed for meta only
        "a::g fake.metadata meta unexpected pass <- /suite/xfail.json:3:9",
        "done a::g",
        "a::k gradcheck.jacobian cpu skipped", // skipped is no verdict: the entry stays
        "done a::k"), seen);
    assertEquals(seen.stream().filter(s -> !s.startsWith("done ")).count(), judge.results().size());
  }

  private static void op(Expectations judge, String name, CheckResult... results) {
    RunListener.OpEvent op = new RunListener.OpEvent(name, "/suite/liba.so", SPEC, Instant.EPOCH);
    judge.opStarted(op);
    for (CheckResult r : results) {
      judge.result(r);
    }
    judge.opFinished(op);
  }
}
