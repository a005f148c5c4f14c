package dev.opcheck4j.checks.generate;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.GenerationCheck;
import dev.opcheck4j.checks.GenerationStats;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import java.util.ArrayList;
import java.util.List;

/**
 * How many generated inputs the real kernel accepted, the largest sizes they reached, and what the op's domain
 * turned out to be (the relations between sizes learned among it).
 * When it rejected more than half, the generated inputs mostly tested nothing: a warning saying
 * which argument made it reject them and how to narrow generation.
 */
public final class DomainCheck extends ValueCheck implements GenerationCheck {
  public static final String ID = "generate.domain";
  /** The keys of its counts: generated inputs the kernel accepted, and those it raised on. */
  public static final String ACCEPTED = "accepted";
  /** The key of the tries made (fewer than the run's when generation stopped early: see the fact that says why). */
  public static final String TRIES = "tries";
  public static final String DISCARDED = "discarded";
  /** The key of each relation between sizes, and each finding about the op's domain, of the probes and tries. */
  public static final String DOMAIN = "domain";
  /**
   * The key of the largest size of each dimension of each tensor, drawn, accepted and in the examples: whether
   * generation reached sizes above the example's, and the kernel took them.
   */
  public static final String LARGEST_SIZES = "largest sizes";

  public DomainCheck() {
    super(Declaration.warning(ID, "most generated inputs are inside the op's domain (the kernel accepts them)")
        .requires(KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Verdict judge(Subject s, GenerationStats st) {
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of(TRIES, st.tries()));
    facts.add(Fact.of(ACCEPTED, st.accepted()));
    facts.add(Fact.of(DISCARDED, st.discarded() + " (the " + s.device().label() + " kernel raised on them)"));
    if (!st.largestSizes().isEmpty()) {
      facts.add(Fact.of(LARGEST_SIZES, st.largestSizes()));
    }
    for (String d : st.domain()) {
      facts.add(Fact.of(DOMAIN, d));
    }
    if (!st.topRejection().isEmpty()) {
      facts.add(Fact.of("most rejected by", st.topRejection()));
    }
    if (!st.blamed().isEmpty()) {
      facts.add(Fact.of("rejected because of", st.blamed()));
    }
    if (st.discarded() * 2 <= st.tries()) {
      return Verdict.passed(facts);
    }
    return Verdict.failed(new Finding("the " + s.device().label() + " kernel accepts most generated inputs",
        "it raised on " + st.discarded() + " of " + st.tries()
            + ": more than half of the generated inputs were outside the op's domain",
        "narrow generation with \"vary\" in the spec: ranges for non-tensor"
        + " arguments ({\"box\": {\"int\": [0, 64]}}) or the dtypes it accepts ({\"dtype\": [\"float32\"]}),"
        + " or declare its \"domain\"",
        new Cause.Contract("most generated inputs outside the domain", s.device().label()), facts, List.of()));
  }
}
