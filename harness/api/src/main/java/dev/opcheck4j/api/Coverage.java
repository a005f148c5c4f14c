package dev.opcheck4j.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a run covered: for every op, check family and device (and runtime, in a run on several), on how
 * many inputs the family ran, or that it never ran and why. It is a fold of the run's results ({@link Fold}),
 * so every front end reads the same data; a family with no result on an (op, device) does not apply there
 * and has no entry.
 *
 * @param entries one per (op, family, device, runtime), in the order their first result came; never null
 */
public record Coverage(List<Entry> entries) {

  /** How the runner words the reason of a check the spec skipped; such a skip is by design, not a gap. */
  public static final String SPEC_SKIP = "skipped by the spec: ";

  /**
   * How a check begins the reason of a skip on an op it has nothing to say about (an op that is no
   * member of a variant family, one with no out= argument): by design, as a spec's skip is, not a gap.
   */
  public static final String NOT_APPLICABLE = "does not apply: ";

  /**
   * How the runner begins the reason of a check skipped on a device this process does not have; a
   * family that never ran is explained by another device's reason first, where it was expected to run.
   */
  public static final String NO_CUDA = "no CUDA device in this process";

  /** Coverage of no results. */
  public static final Coverage EMPTY = new Coverage(List.of());

  public Coverage {
    entries = List.copyOf(entries);
  }

  /** The coverage of {@code results}, generated inputs counted as {@code tries} each (null: not known). */
  public static Coverage of(List<CheckResult> results, Integer tries) {
    Fold fold = new Fold(tries);
    results.forEach(fold::result);
    return fold.coverage();
  }

  /** The entries about {@code op}. */
  public List<Entry> of(String op) {
    return entries.stream().filter(e -> e.op().equals(op)).toList();
  }

  /** The entries whose family never ran, by design or not. */
  public List<Entry> neverRan() {
    return entries.stream().filter(e -> !e.ran()).toList();
  }

  /**
   * Per family, the ops on which it never ran on any device (and not only because the spec skipped
   * it), in the order families first appear; families that ran wherever they applied are absent. In a run
   * on several runtimes an op counts as never run only when the family ran on it on none of them, and its
   * reason names the runtime where they differ ({@code on 2.10.0: ...; on 2.13.0: ...}); after each family's
   * gap, one gap per runtime for the ops it ran on elsewhere but never on that runtime ({@link Gap#runtime}).
   */
  public List<Gap> gaps() {
    Map<String, Map<String, List<Entry>>> byFamily = new LinkedHashMap<>();
    List<String> runtimes = entries.stream().map(Entry::runtime).filter(Objects::nonNull).distinct().toList();
    for (Entry e : entries) {
      byFamily.computeIfAbsent(e.family(), f -> new LinkedHashMap<>())
          .computeIfAbsent(e.op(), o -> new ArrayList<>()).add(e);
    }
    List<Gap> gaps = new ArrayList<>();
    for (Map.Entry<String, Map<String, List<Entry>>> f : byFamily.entrySet()) {
      Map<String, String> never = new LinkedHashMap<>();
      for (Map.Entry<String, List<Entry>> op : f.getValue().entrySet()) {
        boolean ran = op.getValue().stream().anyMatch(Entry::ran);
        // what the spec declares (a "skip", "differentiable": false) is about the op, on every device
        // that ran: a device that never ran (cuda without a GPU) gives another reason, which is no gap;
        // nor is a runtime that refused the library, where the spec's reason holds on the runtime that loaded it
        boolean byDesign = op.getValue().stream().anyMatch(Entry::bySpec);
        if (!ran && !byDesign) {
          never.put(op.getKey(), reason(op.getValue(), runtimes));
        }
      }
      if (!never.isEmpty()) {
        gaps.add(new Gap(f.getKey(), never, f.getValue().size(), null));
      }
      for (String runtime : runtimes) {
        Map<String, String> here = new LinkedHashMap<>();
        int of = 0;
        for (Map.Entry<String, List<Entry>> op : f.getValue().entrySet()) {
          List<Entry> on = op.getValue().stream().filter(e -> runtime.equals(e.runtime())).toList();
          if (on.isEmpty()) {
            continue;
          }
          of++;
          boolean ranElsewhere = op.getValue().stream().anyMatch(e -> e.ran() && !runtime.equals(e.runtime()));
          if (ranElsewhere && on.stream().noneMatch(Entry::ran) && on.stream().noneMatch(Entry::bySpec)) {
            here.put(op.getKey(), reason(on, List.of(runtime)));
          }
        }
        if (!here.isEmpty()) {
          gaps.add(new Gap(f.getKey(), here, of, runtime));
        }
      }
    }
    return gaps;
  }

  /**
   * Why a family never ran on an op, from its entries: where it could have run (a device this process lacks
   * explains only what is left), on each runtime; the runtimes are named unless one reason holds on every
   * runtime of {@code runtimes} (empty: a run on one).
   */
  private static String reason(List<Entry> op, List<String> runtimes) {
    Map<String, List<String>> runtimesOf = new LinkedHashMap<>();
    // the run's runtimes in their order (oldest first: its results come first), else the op's one
    List<String> order = runtimes.isEmpty() ? op.stream().map(Entry::runtime).distinct().toList() : runtimes;
    order.forEach(runtime -> op.stream()
        .filter(e -> Objects.equals(e.runtime(), runtime) && !e.bySpec())
        .min(java.util.Comparator.comparing(e -> e.reason().startsWith(NO_CUDA)))
        .ifPresent(e -> runtimesOf.computeIfAbsent(e.reason(), r -> new ArrayList<>()).add(runtime)));
    if (runtimesOf.size() == 1 && (runtimes.size() < 2 || runtimesOf.values().iterator().next().size() == runtimes.size())) {
      return runtimesOf.keySet().iterator().next();
    }
    List<String> parts = new ArrayList<>();
    runtimesOf.forEach((reason, on) -> parts.add("on " + String.join(", ", on.stream().map(String::valueOf).toList())
        + ": " + reason));
    return String.join("; ", parts);
  }

  /**
   * One op, check family and device.
   *
   * @param op the op, {@code ns::name}; never null
   * @param family the check family ({@link CheckInfo#family()}); never null
   * @param device the device, or null for checks that run on no device
   * @param examples how many spec examples a check of the family ran on (a result other than skipped)
   * @param generated how many generated inputs it ran on: the run's tries when a check of the family
   *     ran on generated inputs, 0 when none did, or null when it did but the run's tries are not known
   * @param reason when it never ran, why (the commonest reason its checks were skipped); null when it ran
   * @param bySpec whether it never ran only because the spec skipped it (by design, not a gap)
   * @param lost how many of the run's tries it did not get because generation stopped early (the op
   *     used up its worker deaths); {@code generated} counts the tries made before
   * @param runtime the libtorch version of the results it folds ({@link CheckResult#runtime}), in a run on
   *     several runtimes; null in a run on one
   * @param stop why its checks ran on fewer generated inputs than the run's tries by design, which is no loss
   *     (generation found no new ground: the tries are a ceiling; a costly check's share); null when they ran
   *     on every try or lost tries to the op's deaths
   */
  public record Entry(String op, String family, String device, int examples, Integer generated, String reason,
      boolean bySpec, int lost, String runtime, String stop) {
    public Entry {
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(family, "family");
    }

    /** An entry whose checks ran on every try they were given, or lost some to deaths. */
    public Entry(String op, String family, String device, int examples, Integer generated, String reason,
        boolean bySpec, int lost, String runtime) {
      this(op, family, device, examples, generated, reason, bySpec, lost, runtime, null);
    }

    /** An entry of a run on one runtime. */
    public Entry(String op, String family, String device, int examples, Integer generated, String reason,
        boolean bySpec, int lost) {
      this(op, family, device, examples, generated, reason, bySpec, lost, null);
    }

    /** An entry that lost no tries. */
    public Entry(String op, String family, String device, int examples, Integer generated, String reason,
        boolean bySpec) {
      this(op, family, device, examples, generated, reason, bySpec, 0);
    }

    /** Whether a check of the family ran on at least one input. */
    public boolean ran() {
      return reason == null;
    }

    /** The device as shown: its name, or {@code -}. */
    public String deviceLabel() {
      return device == null ? CheckResult.NONE : device;
    }

    /** What it ran on, or why it never ran, as one line: {@code 2 examples + 100 generated}. */
    public String describe() {
      if (!ran()) {
        return (bySpec ? "skipped by design: " : "never ran: ") + reason;
      }
      if (examples == 0 && Integer.valueOf(0).equals(generated)) {
        return "ran (needs no input)";
      }
      String ex = examples + (examples == 1 ? " example" : " examples");
      if (generated == null) {
        return ex + " + generated inputs";
      }
      String cut = lost > 0 ? " (generation stopped: " + lost + " of " + (generated + lost) + " tries not run)"
          : stop != null ? " (" + stop + ")" : "";
      return (generated == 0 ? ex : ex + " + " + generated + " generated") + cut;
    }
  }

  /**
   * A family that never ran on some ops.
   *
   * @param family the family
   * @param ops the ops it never ran on, on any device (and on {@code runtime}, or on any runtime)
   * @param of how many ops it applied to (on {@code runtime})
   * @param reason the commonest reason, over those ops
   * @param runtime the one runtime of a run on several where it never ran on {@code ops}, which it ran on on
   *     another; null when it ran on them nowhere (or the run has one runtime)
   * @param reasons each op's reason, in the order of {@code ops}
   */
  public record Gap(String family, List<String> ops, int of, String reason, String runtime, Map<String, String> reasons) {
    public Gap {
      ops = List.copyOf(ops);
      reasons = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(reasons));
    }

    /** A gap of {@code ops}, each op never run for {@code reason}, in a run on one runtime. */
    public Gap(String family, List<String> ops, int of, String reason) {
      this(family, ops, of, reason, null, sameReason(ops, reason));
    }

    /** The gap of the ops {@code reasons} names, each with its reason; {@code reason} is the commonest. */
    Gap(String family, Map<String, String> reasons, int of, String runtime) {
      this(family, List.copyOf(reasons.keySet()), of, commonest(reasons), runtime, reasons);
    }

    private static Map<String, String> sameReason(List<String> ops, String reason) {
      Map<String, String> m = new LinkedHashMap<>();
      ops.forEach(op -> m.put(op, reason));
      return m;
    }

    private static String commonest(Map<String, String> reasons) {
      Map<String, Integer> counts = new LinkedHashMap<>();
      reasons.values().forEach(r -> counts.merge(r, 1, Integer::sum));
      return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
    }
  }

  /** Folds results into coverage as they come; a {@link RunListener}, so a run can tell it its results. */
  public static final class Fold implements RunListener {
    private final Integer tries;
    private final Map<List<String>, Cell> cells = new LinkedHashMap<>();

    /** @param tries generated inputs per op and device, or null when not known */
    public Fold(Integer tries) {
      this.tries = tries;
    }

    @Override
    public synchronized void result(CheckResult r) {
      if (r.opOrNull() == null) {
        return;
      }
      Cell c = cells.computeIfAbsent(java.util.Arrays.asList(r.op(), r.family(), r.deviceOrNull(), r.runtime()),
          k -> new Cell());
      if (r.outcome() == Outcome.SKIPPED) {
        c.reasons.merge(r.reason() == null ? "skipped" : r.reason(), 1, Integer::sum);
      } else if (r.exampleInfo() != null && r.exampleInfo().generated()) {
        c.generated = true;
        Integer made = r.exampleInfo().tries();
        if (made == null || c.made == null) {
          c.made = null;
        } else if (made > c.made) {
          c.made = made;
          c.stop = r.exampleInfo().stop();
        }
      } else {
        c.examples.add(r.example());
      }
      String running = r.repro() == null ? null : r.repro().check();
      if (r.finding() != null && (r.finding().cause() instanceof Cause.Crash || r.finding().cause() instanceof Cause.Timeout)
          && running != null && !running.equals(r.check())) {
        // a unit that died has no result of its own: its family says where it died, so a family that
        // never ran there is not explained by another device's reason
        String family = running.contains(".") ? running.substring(0, running.indexOf('.')) : running;
        cells.computeIfAbsent(java.util.Arrays.asList(r.op(), family, r.deviceOrNull(), r.runtime()), k -> new Cell()).reasons
            .merge(running + (r.deviceOrNull() == null ? "" : " on " + r.device()) + " ended in " + r.check(), 1,
                Integer::sum);
      }
    }

    /** The coverage of every result so far. */
    public synchronized Coverage coverage() {
      List<Entry> entries = new ArrayList<>();
      for (Map.Entry<List<String>, Cell> e : cells.entrySet()) {
        Cell c = e.getValue();
        List<String> k = e.getKey();
        boolean ran = c.generated || !c.examples.isEmpty();
        String reason = ran ? null : c.reasons.entrySet().stream().max(Map.Entry.comparingByValue())
            .map(Map.Entry::getKey).orElse("skipped");
        boolean bySpec = !ran && c.reasons.keySet().stream()
            .allMatch(x -> x.startsWith(SPEC_SKIP) || x.startsWith(NOT_APPLICABLE));
        int examples = (int) c.examples.stream().filter(x -> !x.equals(CheckResult.NONE)).count();
        Integer generated = !c.generated ? Integer.valueOf(0) : c.made != null && tries != null ? c.made : tries;
        boolean fewer = c.generated && c.made != null && tries != null;
        int lost = fewer && c.stop == null ? tries - c.made : 0;
        entries.add(new Entry(k.get(0), k.get(1), k.get(2), examples, generated, reason, bySpec, lost, k.get(3),
            fewer ? c.stop : null));
      }
      return new Coverage(entries);
    }

    private static final class Cell {
      final Set<String> examples = new LinkedHashSet<>();
      final Map<String, Integer> reasons = new LinkedHashMap<>();
      boolean generated;
      /** The most tries a check of the family had where generation stopped early; null when one had them all. */
      Integer made = Integer.valueOf(-1);
      /** Why the check of {@code made} ran on fewer tries by design; null when it lost them to deaths. */
      String stop;
    }
  }
}
