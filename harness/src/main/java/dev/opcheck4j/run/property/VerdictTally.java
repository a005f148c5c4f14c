package dev.opcheck4j.run.property;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.ExampleRef;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.GenerationStats;
import dev.opcheck4j.checks.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The count of what the generated inputs of one op on one device gave: per check, the inputs it
 * checked and the ones it said Skipped on; the inputs the kernel rejected and why; and from that, each
 * check's verdict over all of them. Pure: it is told verdicts and makes verdicts, and calls nothing.
 */
final class VerdictTally {
  /** Rejected tries whose cause is looked for by putting back one argument at a time. */
  static final int BLAME_BUDGET = 10;
  /** Why a budgeted check (costly, or capped) ran on fewer tries than the run's, which is by design. */
  static final String SHARE = "its share of the tries (every size edge case, and a costly check's tenth or its cap: CheckInfo.triesOf), then no more";

  private final String device;
  private final int tries;
  private final long seed;
  private final Map<String, Integer> checked = new LinkedHashMap<>();
  // a check that said Skipped on a try did not check it: its first reason, and how many
  private final Map<String, Integer> skipped = new LinkedHashMap<>();
  private final Map<String, String> skipReason = new LinkedHashMap<>();
  private final Map<String, Integer> rejectionsJudged = new LinkedHashMap<>();
  private final Map<String, Integer> messages = new TreeMap<>();
  private final Map<String, String> firstMessage = new LinkedHashMap<>();
  private final Map<String, Integer> blamed = new TreeMap<>();
  private int accepted;
  private int discarded;

  /**
   * @param device the device's label
   * @param tries the run's tries
   * @param seed the run's seed
   */
  VerdictTally(String device, int tries, long seed) {
    this.device = device;
    this.tries = tries;
    this.seed = seed;
  }

  /** The kernel accepted an input. */
  void countAccepted() {
    accepted++;
  }

  int accepted() {
    return accepted;
  }

  /**
   * The checks of {@code open} the next try gets: every one on a size edge case ({@code edge}: where kernels read
   * and write out of bounds, and an op of many examples has more of them than a costly check's tenth of the tries),
   * elsewhere a budgeted one only while its share ({@link dev.opcheck4j.api.CheckInfo#triesOf}) is not done.
   */
  List<dev.opcheck4j.checks.Check> candidates(List<dev.opcheck4j.checks.Check> open, boolean edge) {
    return open.stream().filter(c -> edge || accepted < c.info().triesOf(tries)).toList();
  }

  /** Whether a check of {@code open} has had its share of the tries (a budgeted one). */
  boolean shareDone(List<dev.opcheck4j.checks.Check> open) {
    return open.stream().anyMatch(c -> accepted >= c.info().triesOf(tries));
  }

  /** The most tries a batch may hold so that each budgeted check of {@code candidates} stays within its share. */
  int withinShares(List<dev.opcheck4j.checks.Check> candidates, int most) {
    return candidates.stream().filter(c -> c.info().budgeted()).mapToInt(c -> c.info().triesOf(tries) - accepted)
        .filter(n -> n > 0).min().orElse(most);
  }

  /** How many inputs the kernel rejected so far. */
  int discarded() {
    return discarded;
  }

  /** The kernel rejected an input, raising {@code message}. */
  void countRejected(String message) {
    discarded++;
    String cause = new Cause.Rejection(message).shape();
    messages.merge(cause, 1, Integer::sum);
    firstMessage.putIfAbsent(cause, message);
  }

  /** Whether the cause of the last rejection is still to be looked for ({@link #BLAME_BUDGET}). */
  boolean blaming() {
    return discarded <= BLAME_BUDGET;
  }

  /** With the example's value of {@code argument} put back, the kernel accepted a rejected input. */
  void blame(String argument) {
    blamed.merge(argument, 1, Integer::sum);
  }

  /**
   * Counts a check's verdict on an accepted input: whether it is a finding (failed or errored), which
   * ends the check's tries.
   */
  boolean count(String check, Verdict v) {
    if (v.outcome() == Outcome.SKIPPED) {
      skipped.merge(check, 1, Integer::sum);
      skipReason.putIfAbsent(check, v.reason() != null ? v.reason() : "(no reason given)");
      return false;
    }
    checked.merge(check, 1, Integer::sum);
    return isFinding(v);
  }

  /** Counts a rejection check's verdict on a rejected input: whether it is a finding. */
  boolean countRejection(String check, Verdict v) {
    rejectionsJudged.merge(check, 1, Integer::sum);
    return isFinding(v);
  }

  private static boolean isFinding(Verdict v) {
    return v.outcome() == Outcome.FAILED || v.outcome() == Outcome.ERRORED;
  }

  /**
   * A value check's verdict over every generated input it was not failed on.
   *
   * @param cut when generation stopped for it, or null when it did not
   * @param ownDeath whether its own call killed the worker (the stop is its): its finding is the
   *     supervisor's, never a pass
   */
  Verdict valueVerdict(String check, Cut cut, boolean ownDeath) {
    int n = checked.getOrDefault(check, 0);
    int k = skipped.getOrDefault(check, 0);
    if (ownDeath) {
      return Verdict.skipped(ownDeath(cut, n + " inputs checked"));
    }
    if (n == 0) {
      return cut != null && (cut.lost() || k == 0) ? Verdict.skipped(before(cut))
          : k > 0 ? Verdict.skipped("on every generated input (" + k + "): " + skipReason.get(check))
          : Verdict.skipped("no generated input reached this check: the " + device + " kernel rejected"
              + " all " + discarded + " tries (see generate.domain)");
    }
    return k == 0
        ? Verdict.passed(withCut(cut, Fact.of(Fact.INPUTS_CHECKED, n), Fact.of("seed", seed)))
        : Verdict.passed(withCut(cut, Fact.of(Fact.INPUTS_CHECKED, n), Fact.of("skipped on", k + " more (first reason: "
            + skipReason.get(check) + ")"), Fact.of("seed", seed)));
  }

  /** A rejection check's verdict over every rejected input it was not failed on ({@link #valueVerdict}). */
  Verdict rejectionVerdict(String check, Cut cut, boolean ownDeath) {
    int n = rejectionsJudged.getOrDefault(check, 0);
    return ownDeath ? Verdict.skipped(ownDeath(cut, n + " rejected inputs judged"))
        : n == 0 && cut != null && cut.lost() ? Verdict.skipped(before(cut))
        : n == 0 ? Verdict.skipped("the " + device + " kernel rejected none of the generated inputs: nothing to judge")
        : Verdict.passed(withCut(cut, Fact.of("rejected inputs judged", n), Fact.of("seed", seed)));
  }

  /** What generation saw, for the checks that judge it: {@code tried} tries, and what the probes found. */
  GenerationStats stats(int tried, List<String> domain) {
    String top = messages.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(m -> "\"" + firstMessage.get(m.getKey()) + "\" (" + m.getValue() + " of " + tried + " tries)").orElse("");
    int blameTotal = Math.min(BLAME_BUDGET, discarded);
    String blame = blamed.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(b -> "'" + b.getKey() + "': with the example's value back, the kernel accepted " + b.getValue() + " of "
            + blameTotal + " rejected tries looked at").orElse(discarded > 0 ? "no single argument (each put back alone was still rejected)" : "");
    return new GenerationStats(tried, accepted, discarded, domain, top, blame);
  }

  /** The reason of a check that generation stopped for before any input reached it. */
  String before(Cut cut) {
    return "generation on " + device + " stopped after " + cut.tries() + " of " + tries
        + " tries, before an input reached this check: " + cut.why();
  }

  /** The reason of a check whose own call killed the worker. */
  private String ownDeath(Cut cut, String before) {
    return "generation on " + device + " stopped for this check after " + cut.tries() + " of " + tries
        + " tries (" + before + "): " + cut.why();
  }

  /**
   * {@code facts}, and where generation stopped early and why: what the stop cost the check when the op's deaths
   * stopped it, or that the tries were a ceiling when they stopped finding new ground.
   */
  List<Fact> withCut(Cut cut, Fact... facts) {
    List<Fact> all = new ArrayList<>(List.of(facts));
    if (cut != null) {
      all.add(all.size() - (all.isEmpty() ? 0 : 1), Fact.of(Fact.GENERATION_STOPPED, cut.lost()
          ? "after " + cut.tries() + " of " + tries + " tries, " + (tries - cut.tries()) + " not run: " + cut.why()
          : "after " + cut.tries() + " tries (at most " + tries + "): " + cut.why()));
    }
    return all;
  }

  /**
   * All generated inputs of the op and device, from its {@code examples}, of which the check ran on {@code ran}:
   * the tries made, when the op's deaths ({@code cut}) stopped them early; the tries it ran on, and why by design,
   * when it ran on fewer than the run's (generation found no new ground, or its share was done).
   */
  ExampleRef summary(Cut cut, int examples, int ran) {
    String from = " tries from " + examples + (examples == 1 ? " example" : " examples");
    if (cut != null && cut.lost()) {
      return new ExampleRef(null, true, null, seed, cut.tries() + " of " + tries + from, cut.tries());
    }
    return ran >= tries ? new ExampleRef(null, true, null, seed, tries + from)
        : new ExampleRef(null, true, null, seed, ran + " of at most " + tries + from, ran,
            cut != null && ran >= cut.tries() ? cut.why() : SHARE);
  }
}
