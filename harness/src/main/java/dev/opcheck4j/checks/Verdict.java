package dev.opcheck4j.checks;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import java.util.ArrayList;
import java.util.List;

/** What a check concluded, before the runner adds op, device, example and timing. */
public record Verdict(Outcome outcome, List<Fact> facts) {
  public Verdict {
    facts = List.copyOf(facts);
  }

  public static Verdict passed(Fact... facts) {
    return new Verdict(Outcome.PASSED, List.of(facts));
  }

  public static Verdict passed(List<Fact> facts) {
    return new Verdict(Outcome.PASSED, facts);
  }

  public static Verdict failed(List<Fact> facts) {
    return new Verdict(Outcome.FAILED, facts);
  }

  /** A failure in the message shape of STYLE.md: expected, but was, then further facts, then hint. */
  public static Verdict failed(String expected, String butWas, String hint, Fact... more) {
    List<Fact> facts = new ArrayList<>();
    facts.add(new Fact("expected", expected));
    facts.add(new Fact("but was", butWas));
    facts.addAll(List.of(more));
    facts.add(new Fact("hint", hint));
    return new Verdict(Outcome.FAILED, facts);
  }

  public static Verdict skipped(String reason) {
    return new Verdict(Outcome.SKIPPED, List.of(new Fact("reason", reason)));
  }

  public static Verdict errored(String message) {
    return new Verdict(Outcome.ERRORED, List.of(new Fact("harness error", message)));
  }
}
