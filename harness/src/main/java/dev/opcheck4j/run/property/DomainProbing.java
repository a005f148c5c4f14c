package dev.opcheck4j.run.property;

import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.example.SizeRelation;
import dev.opcheck4j.run.link.Fate;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which layouts and dtypes the op's kernel accepts on a device: each tensor of every example in each
 * other layout generation could draw, and each other dtype. A layout or dtype rejected on every
 * example where it was probed, or that killed the worker, is left out of generation and reported once. Each
 * tensor that shares a dtype with an earlier one is also probed alone in each other dtype: those the kernel
 * accepts it in are drawn for it alone in some tries (mixed dtypes), and a kernel that rejects them all keeps
 * one dtype.
 */
final class DomainProbing {
  private final OpSpec spec;
  private final OpCalls calls;
  private final SizeProbing sizes;

  DomainProbing(OpSpec spec, OpCalls calls) {
    this.spec = spec;
    this.calls = calls;
    this.sizes = new SizeProbing(calls);
  }

  /**
   * What the probes found out of domain: per tensor label the layouts, and the dtypes, with why; and per
   * example the relations between sizes its tries keep ({@link SizeProbing}).
   */
  record Discovery(Map<String, Set<String>> layouts, Set<String> dtypes, Map<Example, List<SizeRelation>> relations,
      Set<Example> sizesKept, Map<String, List<String>> mixed, List<String> lines) {
    /**
     * {@code plain} without the layouts and dtypes found out of domain, keeping the relations found (or the
     * example's own sizes), and drawing the tensors the kernel takes in a dtype of their own in one.
     */
    ExampleGenerator applied(ExampleGenerator plain) {
      ExampleGenerator g = plain.excluding(layouts, dtypes).withRelations(relations.getOrDefault(plain.origin(),
          List.of())).withMixedDtypes(mixed);
      return sizesKept.contains(plain.origin()) ? g.withSizesKept() : g;
    }
  }

  /**
   * A probe the kernel rejected.
   *
   * @param probe the example with one change
   * @param why what the kernel raised
   * @param what the change, as shown
   */
  record RejectedProbe(Example probe, String why, String what) {}

  /** Where the probes of one exchange that the kernel rejected go: to the checks that judge rejected inputs. */
  interface Rejected {
    void judge(List<RejectedProbe> probes);
  }

  /**
   * A probe of the op's domain: the example with {@code argument} in another layout, its inputs in another
   * dtype, or ({@code alone}) the tensor {@code argument} alone in another dtype.
   */
  private record Probe(Example example, String argument, String layout, String dtype, boolean alone) {
    String what() {
      return layout != null ? "'" + argument + "' " + layout
          : alone ? "'" + argument + "' alone as " + dtype : argument + " inputs as " + dtype;
    }
  }

  /** What the probes of one device found; the rejected ones go to {@code rejected}, deaths to {@code deaths}. */
  Discovery discover(List<ExampleGenerator> gens, Device device, Deaths deaths, Rejected rejected) {
    Map<String, Map<String, String>> layoutRejects = new LinkedHashMap<>();
    Map<String, Set<String>> layoutAccepts = new LinkedHashMap<>();
    Map<String, String> dtypeRejects = new LinkedHashMap<>();
    Set<String> dtypeAccepts = new LinkedHashSet<>();
    // what killed the worker on some example: never generated
    Map<String, Set<String>> layoutKills = new LinkedHashMap<>();
    Set<String> dtypeKills = new LinkedHashSet<>();
    // tensors in a dtype of their own, the others keeping the example's: accepted, and the first rejection
    Map<String, Set<String>> aloneAccepts = new LinkedHashMap<>();
    Map<String, String> aloneRejects = new LinkedHashMap<>();
    for (ExampleGenerator gen : gens) {
      // every probe of this example in one exchange, the rejected ones judged after; after a probe that
      // killed the worker, the probes that did not run in a new one
      for (List<Probe> left = probes(gen); !left.isEmpty() && !calls.stopped(); ) {
        List<RejectedProbe> judged = new ArrayList<>();
        Fate.Died<?> died = null;
        Probe fatal = null;
        List<Probe> notRun = new ArrayList<>();
        for (OpCalls.Call<Probe> call : calls.probe(left, Probe::example, device)) {
          Probe p = call.input();
          if (call.fate() instanceof Fate.Died<?> d) {
            died = d;
            fatal = p;
            continue;
          } else if (call.fate() instanceof Fate.NotRun) {
            notRun.add(p);
            continue;
          }
          String why = call.rejected();
          if (p.alone()) {
            if (why == null) {
              aloneAccepts.computeIfAbsent(p.argument(), k -> new LinkedHashSet<>()).add(p.dtype());
            } else {
              aloneRejects.putIfAbsent(p.argument(), p.dtype() + ": \"" + why + "\"");
            }
          } else if (p.layout() != null && why == null) {
            layoutAccepts.computeIfAbsent(p.argument(), k -> new LinkedHashSet<>()).add(p.layout());
          } else if (p.layout() != null) {
            layoutRejects.computeIfAbsent(p.argument(), k -> new LinkedHashMap<>()).putIfAbsent(p.layout(), why);
            judged.add(new RejectedProbe(p.example(), why, p.what()));
          } else if (why == null) {
            dtypeAccepts.add(p.dtype());
          } else {
            dtypeRejects.putIfAbsent(p.dtype(), why);
            if (!gen.beyondFamily(p.dtype())) {
              // a kernel that refuses bool or integer inputs of a floating-point op is its domain, not a
              // rejection to weigh against its meta kernel: only the family's probes are judged
              judged.add(new RejectedProbe(p.example(), why, p.what()));
            }
          }
        }
        rejected.judge(judged);
        if (died == null) {
          break;
        }
        // the probe it died on is the minimal example: the spec's example with the one change that kills it
        deaths.died(died, null, fatal.example(), List.of(), "a probe of the op's domain: " + fatal.what(), 0);
        if (fatal.alone()) {
          aloneRejects.putIfAbsent(fatal.argument(), fatal.dtype() + ": killed the worker");
        } else if (fatal.layout() != null) {
          layoutKills.computeIfAbsent(fatal.argument(), k -> new LinkedHashSet<>()).add(fatal.layout());
        } else {
          dtypeKills.add(fatal.dtype());
        }
        left = notRun;
      }
    }
    Map<String, Set<String>> layouts = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    if (!spec.domain().describe().isEmpty()) {
      lines.add("declared in the spec: " + spec.domain().describe());
    }
    for (Map.Entry<String, Map<String, String>> r : layoutRejects.entrySet()) {
      Set<String> out = new LinkedHashSet<>(r.getValue().keySet());
      out.removeAll(layoutAccepts.getOrDefault(r.getKey(), Set.of()));
      if (out.isEmpty()) {
        continue;
      }
      layouts.put(r.getKey(), out);
      // a storage offset keeps a tensor contiguous, so a kernel that checks is_contiguous() accepts it
      boolean onlyContiguous = Set.of("offset").containsAll(layoutAccepts.getOrDefault(r.getKey(), Set.of()));
      String first = r.getValue().get(out.iterator().next());
      lines.add((onlyContiguous ? "accepts only contiguous '" + r.getKey() + "'" : "'" + r.getKey() + "' in some layouts only")
          + " (rejects it " + String.join(", ", out) + ": \"" + first + "\")");
    }
    Set<String> dtypes = new LinkedHashSet<>(dtypeRejects.keySet());
    dtypes.removeAll(dtypeAccepts);
    if (!dtypes.isEmpty()) {
      String first = dtypeRejects.get(dtypes.iterator().next());
      lines.add("rejects " + String.join(", ", dtypes) + " inputs (\"" + first + "\")");
    }
    for (Map.Entry<String, Set<String>> k : layoutKills.entrySet()) {
      layouts.computeIfAbsent(k.getKey(), x -> new LinkedHashSet<>()).addAll(k.getValue());
      lines.add("'" + k.getKey() + "' " + String.join(", ", k.getValue()) + " killed the worker (see "
          + BuiltinChecks.supervisors() + "): not generated");
    }
    if (!dtypeKills.isEmpty()) {
      dtypes.addAll(dtypeKills);
      lines.add(String.join(", ", dtypeKills) + " inputs killed the worker (see " + BuiltinChecks.supervisors()
          + "): not generated");
    }
    Map<String, List<String>> mixed = new LinkedHashMap<>();
    aloneAccepts.forEach((label, accepted) -> mixed.put(label, List.copyOf(accepted)));
    if (!mixed.isEmpty()) {
      lines.add("mixed dtypes: " + String.join(", ", mixed.entrySet().stream().map(e -> "'" + e.getKey() + "' also as "
          + String.join(", ", e.getValue())).toList()) + " while the other tensors keep theirs (the kernel accepted each"
          + " alone), one try in five");
    }
    aloneRejects.forEach((label, first) -> {
      if (!aloneAccepts.containsKey(label)) {
        lines.add("rejects mixed dtypes: '" + label + "' in a dtype of its own (" + first + "): not drawn");
      }
    });
    SizeProbing.Learned related = calls.stopped() ? SizeProbing.Learned.NOTHING : sizes.learn(gens, device, deaths);
    lines.addAll(related.lines());
    return new Discovery(layouts, dtypes, related.relations(), related.sizesKept(), mixed, lines);
  }

  /** The probes of one example: each tensor in each other layout, then each other dtype. */
  private static List<Probe> probes(ExampleGenerator gen) {
    List<Probe> probes = new ArrayList<>();
    for (Map.Entry<String, Integer> t : gen.tensorRanks().entrySet()) {
      for (String layout : gen.layoutsForRank(t.getValue())) {
        if (!layout.equals("contiguous")) {
          probes.add(new Probe(gen.withLayout(t.getKey(), layout), t.getKey(), layout, null, false));
        }
      }
    }
    for (Map.Entry<String, List<String>> d : gen.otherDtypes().entrySet()) {
      for (String to : d.getValue()) {
        probes.add(new Probe(gen.withDtype(d.getKey(), to), d.getKey(), null, to, false));
      }
    }
    gen.mixableDtypes().forEach((label, others) -> others.forEach(
        to -> probes.add(new Probe(gen.withDtypeOf(label, to), label, null, to, true))));
    return probes;
  }
}
