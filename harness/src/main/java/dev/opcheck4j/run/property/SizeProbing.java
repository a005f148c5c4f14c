package dev.opcheck4j.run.property;

import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.example.SizeRelation;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which relations between an example's sizes beyond equal ones the kernel needs (a tensor as long as two
 * others together, one row longer than another, a length that is a size plus a padding argument), learned
 * by probing before the tries, so that the tries keep them instead of being rejected. Each example with
 * such relations ({@link ExampleGenerator#relationCandidates}) is probed with its sizes drawn anew
 * ({@link ExampleGenerator#freshSizes}), which breaks every one of them: accepted, nothing is learned and
 * generation is as before. Rejected, the same sizes with every relation kept are probed, then with every
 * relation kept but one, broken by one: a relation whose breaking the kernel rejects is needed. The needed
 * ones alone are probed last (when the kernel rejects them, every relation is kept). The probes' rejections
 * are the op's domain and are not judged; a probe that kills the worker is a death like any probe's.
 */
final class SizeProbing {
  private final OpCalls calls;

  SizeProbing(OpCalls calls) {
    this.calls = calls;
  }

  /** What the probes found: per example the relations every try keeps, and the coverage lines. */
  record Learned(Map<Example, List<SizeRelation>> relations, List<String> lines) {}

  Learned learn(List<ExampleGenerator> gens, Device device, Deaths deaths) {
    Map<Example, List<SizeRelation>> relations = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    for (ExampleGenerator gen : gens) {
      List<SizeRelation> all = gen.relationCandidates();
      if (all.isEmpty() || calls.stopped()) {
        continue;
      }
      String ref = gen.origin().ref();
      // the sizes drawn anew alone first: most kernels accept them, and then nothing else runs
      List<String> seen = probe(List.of(drawn(gen, null)), device, deaths, "sizes drawn anew");
      if (seen == null || seen.get(0) == null) {
        continue;
      }
      String why = seen.get(0);
      List<Example> kept = new ArrayList<>(List.of(drawn(gen, all)));
      for (SizeRelation r : all) {
        kept.add(drawn(gen, all.stream().map(x -> x == r ? x.broken() : x).toList()));
      }
      List<String> answers = probe(kept, device, deaths, "sizes with the relations the example shows kept");
      if (answers == null) {
        continue;
      }
      if (answers.get(0) != null) {
        lines.add("sizes in " + ref + ": the kernel rejected the example's sizes drawn anew (\"" + why + "\") and also"
            + " with every relation the example shows kept (" + texts(all) + "): none learned");
        continue;
      }
      List<String> dropped = answers.subList(1, answers.size());
      List<SizeRelation> needed = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        if (dropped.get(i) != null) {
          needed.add(all.get(i));
        }
      }
      if (needed.isEmpty() || needed.size() < all.size() && !accepted(drawn(gen, needed), device, deaths)) {
        needed = all;
      }
      relations.put(gen.origin(), List.copyOf(needed));
      lines.add("sizes related in " + ref + ": " + texts(needed) + " (learned: the kernel rejected the example's sizes"
          + " drawn anew, \"" + why + "\", and accepts them with " + (needed.size() == 1 ? "this" : "these")
          + " kept; every try keeps " + (needed.size() == 1 ? "it" : "them") + ")");
    }
    return new Learned(relations, lines);
  }

  private static Example drawn(ExampleGenerator gen, List<SizeRelation> kept) {
    ExampleGenerator g = kept == null ? gen : gen.withRelations(kept);
    return g.generate(Choices.replay(gen.freshSizes()));
  }

  private boolean accepted(Example e, Device device, Deaths deaths) {
    List<String> seen = probe(List.of(e), device, deaths, "sizes with the needed relations kept");
    return seen != null && seen.get(0) == null;
  }

  /** Each probe's rejection (null: accepted), or null when one killed the worker (a death like any probe's). */
  private List<String> probe(List<Example> probes, Device device, Deaths deaths, String what) {
    List<String> rejections = new ArrayList<>();
    for (OpCalls.Call<Example> call : calls.probe(probes, e -> e, device)) {
      if (call.fate() instanceof Fate.Died<?> d) {
        deaths.died(d, null, call.input(), List.of(), "a probe of the op's sizes: " + what, 0);
        return null;
      } else if (call.fate() instanceof Fate.NotRun) {
        return null;
      }
      rejections.add(call.rejected());
    }
    return rejections;
  }

  private static String texts(List<SizeRelation> relations) {
    return String.join(", ", relations.stream().map(SizeRelation::text).toList());
  }
}
