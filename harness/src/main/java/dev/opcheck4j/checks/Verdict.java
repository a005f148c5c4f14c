package dev.opcheck4j.checks;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import java.util.ArrayList;
import java.util.List;

/**
 * What a check concluded, before the runner adds op, device, example and timing.
 *
 * @param outcome the verdict; FAILED means "found something" and becomes what the check's severity says
 * @param facts ordered facts
 * @param kind what kind of finding this is, when the check says so (null: derived, see {@link #cause()})
 */
public record Verdict(Outcome outcome, List<Fact> facts, String kind) {
  public Verdict {
    facts = List.copyOf(facts);
  }

  public Verdict(Outcome outcome, List<Fact> facts) {
    this(outcome, facts, null);
  }

  /** The same verdict, saying what kind of finding it is (shrinking keeps a failure of the same kind). */
  public Verdict withKind(String value) {
    return new Verdict(outcome, facts, value);
  }

  /**
   * The cause of a finding, stable across inputs of different sizes and values: the declared kind,
   * or else the first part of "but was" with its numbers and bracketed lists blanked out. A shrunk
   * example must fail with the same cause as the original.
   */
  public String cause() {
    if (kind != null) {
      return kind;
    }
    String butWas = facts.stream().filter(f -> f.key().equals("but was")).map(Fact::value).findFirst().orElse("");
    return normalize(butWas.split("; ")[0]);
  }

  /** Blanks out numbers and bracketed lists, so "sizes [2, 3]" and "sizes [0, 1]" read the same. */
  public static String normalize(String text) {
    return text.replaceAll("\\[[^\\]]*\\]", "[…]").replaceAll("(?<![A-Za-z_])-?\\d+(\\.\\d+)?(e-?\\d+)?", "#");
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
