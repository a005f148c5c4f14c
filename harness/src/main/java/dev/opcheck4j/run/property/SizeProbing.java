package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.example.SizeRelation;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which relations between an example's sizes and ints beyond equal sizes the kernel needs (a tensor as long as
 * two others together, one row longer than another, a length that is a size plus a padding argument, an int
 * that must be a size plus one), learned by probing before the tries, so that the tries keep them instead of
 * being rejected. An example shows many such relations by chance (norm = 2 beside a batch of 2, K = 4 beside a
 * row of 3), so none is kept on the example's say-so: only on rejections that two independent draws agree on.
 *
 * <p>Each example with relations ({@link ExampleGenerator#relationCandidates}) is probed with its sizes drawn
 * anew ({@link ExampleGenerator#freshSizes}, every size s as 2s + 1), which breaks every one of them, its ints
 * as the example has them. Accepted, none is needed, and generation leaves every int as it is. Rejected, the
 * same sizes are probed with every relation kept, then with every one kept but one, broken by one more: a
 * relation whose breaking the kernel rejects may be needed. Those are probed again on a second draw ({@link
 * ExampleGenerator#freshSizesAgain}, every size s as s + 2), kept, and each broken by one less: only a relation
 * the kernel rejects broken both times, and accepts kept both times, is learned. A probe that kills the worker
 * is no rejection: it teaches nothing (it is a death like any probe's, reported as such), and the probes after
 * it are sent again. The probes' rejections are the op's domain and are not judged.
 */
final class SizeProbing {
  private final OpCalls calls;

  SizeProbing(OpCalls calls) {
    this.calls = calls;
  }

  /**
   * What the probes found: per example the relations every try keeps, the examples whose tries keep their own
   * sizes (the kernel rejected them drawn anew, with every relation they show kept too), and the coverage lines.
   */
  record Learned(Map<Example, List<SizeRelation>> relations, Set<Example> sizesKept, List<String> lines) {
    static final Learned NOTHING = new Learned(Map.of(), Set.of(), List.of());
  }

  /**
   * What the kernel made of one probe: accepted, rejected with an error, or not known (it killed the worker, or
   * the op's deaths stopped it first).
   *
   * @param rejected what the kernel raised, or null
   * @param known whether the kernel answered
   */
  private record Seen(String rejected, boolean known) {
    boolean accepted() {
      return known && rejected == null;
    }

    boolean isRejection() {
      return known && rejected != null;
    }

    /** As a line says it: the error in quotes, or that the worker died. */
    String quoted() {
      return known ? "\"" + rejected + "\"" : "no answer (the probe killed the worker, see " + BuiltinChecks.supervisors()
          + ")";
    }
  }

  Learned learn(List<ExampleGenerator> gens, Device device, Deaths deaths) {
    Map<Example, List<SizeRelation>> relations = new LinkedHashMap<>();
    Set<Example> sizesKept = new LinkedHashSet<>();
    List<String> lines = new ArrayList<>();
    for (ExampleGenerator gen : gens) {
      if (!gen.relationCandidates().isEmpty() && !calls.stopped()) {
        List<SizeRelation> learned = learn(gen, device, deaths, lines, sizesKept);
        if (!learned.isEmpty()) {
          relations.put(gen.origin(), learned);
        }
      }
    }
    return new Learned(relations, sizesKept, lines);
  }

  /**
   * The relations of {@code gen}'s example the kernel needs (none: an empty list); what the probes showed goes to
   * {@code lines}, and the example to {@code sizesKept} when no sizes drawn anew are accepted at all.
   */
  private List<SizeRelation> learn(ExampleGenerator gen, Device device, Deaths deaths, List<String> lines,
      Set<Example> sizesKept) {
    List<SizeRelation> all = gen.relationCandidates();
    String at = "sizes in " + gen.origin().ref() + ": ";
    // the sizes drawn anew alone first: most kernels accept them, and then nothing else runs
    Seen fresh = probe(List.of(drawn(gen, List.of(), gen.freshSizes())), device, deaths, "sizes drawn anew").get(0);
    if (!fresh.isRejection()) {
      List<String> ints = all.stream().map(SizeRelation::intTarget).filter(n -> n != null).distinct().toList();
      lines.add(at + (!fresh.known() ? "none learned: the example's sizes drawn anew got " + fresh.quoted()
          : "none related: the kernel accepted the example's sizes drawn anew with none of " + texts(all) + " kept"
          + (ints.isEmpty() ? "" : " (" + String.join(", ", ints) + " as the example has " + (ints.size() == 1 ? "it"
          : "them") + ", in every try)")));
      return List.of();
    }
    List<Example> first = new ArrayList<>(List.of(drawn(gen, all, gen.freshSizes())));
    all.forEach(r -> first.add(drawn(gen, replaced(all, r, r.brokenBy(1)), gen.freshSizes())));
    List<Seen> once = probe(first, device, deaths, "sizes drawn anew with the relations the example shows kept");
    if (!once.get(0).accepted()) {
      // sizes drawn would only be rejected (a relation no sum or offset says, a product), if the example's own sizes
      // with every other choice as drawn are accepted (else the ints or dtypes drawn were rejected): tries vary the rest
      boolean keep = once.get(0).isRejection() && probe(List.of(gen.withSizesKept().generate(Choices.replay(
          gen.freshSizes()))), device, deaths, "the example's own sizes, the rest as drawn").get(0).accepted();
      if (keep) {
        sizesKept.add(gen.origin());
      }
      lines.add(at + "none learned: the kernel rejected the example's sizes drawn anew (\"" + fresh.rejected()
          + "\") and, with every relation the example shows kept (" + texts(all) + "), got " + once.get(0).quoted()
          + (keep ? "; it accepted the example's own sizes with the rest as drawn: every try keeps them and varies the"
          + " rest" : ""));
      return List.of();
    }
    List<SizeRelation> needed = new ArrayList<>();
    List<SizeRelation> unknown = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      if (once.get(i + 1).isRejection()) {
        needed.add(all.get(i));
      } else if (!once.get(i + 1).known()) {
        unknown.add(all.get(i));
      }
    }
    if (needed.isEmpty()) {
      lines.add(at + "none learned: the kernel rejected the example's sizes drawn anew (\"" + fresh.rejected()
          + "\") and accepts them with every relation the example shows kept (" + texts(all)
          + "), but breaking none of them alone was rejected" + (unknown.isEmpty() ? "" : " (breaking " + texts(unknown)
          + " got " + new Seen(null, false).quoted() + ")"));
      return List.of();
    }
    // the second, independent draw: other sizes, each relation broken the other way
    List<Example> second = new ArrayList<>(List.of(drawn(gen, needed, gen.freshSizesAgain())));
    needed.forEach(r -> second.add(drawn(gen, replaced(needed, r, r.brokenBy(-1)), gen.freshSizesAgain())));
    List<Seen> twice = probe(second, device, deaths, "sizes drawn anew a second time with the relations kept");
    if (!twice.get(0).accepted()) {
      lines.add(at + "none learned: " + texts(needed) + " seemed needed (the kernel rejected the example's sizes drawn"
          + " anew, \"" + fresh.rejected() + "\"), but with them kept, the sizes drawn anew a second time got "
          + twice.get(0).quoted());
      return List.of();
    }
    List<SizeRelation> learned = new ArrayList<>();
    List<SizeRelation> chance = new ArrayList<>();
    Seen confirming = null;
    for (int i = 0; i < needed.size(); i++) {
      if (twice.get(i + 1).isRejection()) {
        learned.add(needed.get(i));
        confirming = confirming != null ? confirming : twice.get(i + 1);
      } else {
        chance.add(needed.get(i));
      }
    }
    String notLearned = chance.isEmpty() ? "" : "; not learned: " + texts(chance) + " (broken, the second draw was not"
        + " rejected)";
    if (learned.isEmpty()) {
      lines.add(at + "none learned: breaking " + texts(needed) + " was rejected on the sizes drawn anew, and not on a"
          + " second draw");
      return List.of();
    }
    lines.add("sizes related in " + gen.origin().ref() + ": " + texts(learned) + " (learned: the kernel rejected the"
        + " example's sizes drawn anew, \"" + fresh.rejected() + "\", accepts them with " + (learned.size() == 1 ? "this"
        : "these") + " kept, and rejected " + (learned.size() == 1 ? "it" : "each") + " broken on a second, independent"
        + " draw too, " + confirming.quoted() + "; every try keeps " + (learned.size() == 1 ? "it" : "them") + ")"
        + notLearned);
    return List.copyOf(learned);
  }

  private static List<SizeRelation> replaced(List<SizeRelation> all, SizeRelation r, SizeRelation with) {
    return all.stream().map(x -> x == r ? with : x).toList();
  }

  private static Example drawn(ExampleGenerator gen, List<SizeRelation> kept, List<Long> sizes) {
    return gen.withRelations(kept).generate(Choices.replay(sizes));
  }

  /**
   * What the kernel made of each probe. After one that killed the worker (reported as a death of a probe), those
   * not run are sent again in a new exchange, unless the op's deaths stopped it.
   */
  private List<Seen> probe(List<Example> probes, Device device, Deaths deaths, String what) {
    List<Seen> seen = new ArrayList<>();
    List<Example> left = probes;
    while (!left.isEmpty()) {
      if (calls.stopped()) {
        left.forEach(e -> seen.add(new Seen(null, false)));
        break;
      }
      List<Example> notRun = new ArrayList<>();
      for (OpCalls.Call<Example> call : calls.probe(left, e -> e, device)) {
        if (!notRun.isEmpty() || call.fate() instanceof Fate.NotRun) {
          notRun.add(call.input());
        } else if (call.fate() instanceof Fate.Died<?> d) {
          deaths.died(d, null, call.input(), List.of(), "a probe of the op's sizes: " + what, 0);
          seen.add(new Seen(null, false));
        } else {
          seen.add(new Seen(call.rejected(), true));
        }
      }
      left = notRun;
    }
    return seen;
  }

  private static String texts(List<SizeRelation> relations) {
    return String.join(", ", relations.stream().map(SizeRelation::text).toList());
  }
}
