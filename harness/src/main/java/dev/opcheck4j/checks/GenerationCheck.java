package dev.opcheck4j.checks;

/**
 * A check of scope {@code GENERATED}: it judges what the generated inputs of one (op, device)
 * showed as a whole, once they have all been tried, rather than one call.
 */
public interface GenerationCheck extends Check {
  Verdict judge(Subject subject, GenerationStats stats);

  /** Never called by the runner: a generation check has nothing to say about one example. */
  @Override
  default Verdict evaluate(Subject subject) {
    return Verdict.skipped("judged from the generated inputs, not from one example");
  }
}
