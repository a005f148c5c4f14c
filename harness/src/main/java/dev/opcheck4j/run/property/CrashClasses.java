package dev.opcheck4j.run.property;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The classes of generated inputs that killed the op's worker on one device, so that generation routes
 * around them: a kernel that crashes on one class of input (an empty feature map, a dtype) would otherwise
 * use up the op's deaths ({@code OpSession.MAX_DEATHS}) on it and starve every other check of its tries.
 *
 * <p>What about an input matters is learned from what the tries showed, without another kernel call: the
 * features of the input that died (shrunk, where it was) are, in order, a tensor argument with no elements,
 * one with size 0 in a given dimension, a tensor argument's dtype, an int argument's value, a tensor
 * argument's sizes (the narrowest: a kernel that dies on a single element, 1x1); the class is
 * the first of them that no input which ran without killing the worker had (the op's examples included).
 * When every feature was seen alive, no class is learned, and generation goes on as before. Pure: it is
 * told what the tries gave.
 */
final class CrashClasses {
  /** One learned class: its feature, how it is said, the input it was learned from, and the tries avoided. */
  private static final class Learned {
    final String feature;
    final String said;
    final String from;
    int steered;
    /** Candidates of other findings' shrinks in this class, not run. */
    int unshrunk;

    Learned(String feature, String said, String from) {
      this.feature = feature;
      this.said = said;
      this.from = from;
    }
  }

  private final List<String> names;
  private final Set<String> alive = new HashSet<>();
  private final Map<String, Learned> learned = new LinkedHashMap<>();

  /** {@code names}: the schema's argument names, in order (for the coverage lines). */
  CrashClasses(List<String> names) {
    this.names = List.copyOf(names);
  }

  /** {@code e} ran without killing the worker (the kernel accepted or rejected it). */
  void survived(Example e) {
    alive.addAll(features(e).keySet());
  }

  /**
   * {@code e} killed the worker ({@code death} says how, for the coverage line): learns its class, if a
   * feature of it was never seen alive; true when a new class was learned.
   */
  boolean crashed(Example e, String death, String described) {
    for (Map.Entry<String, String> f : features(e).entrySet()) {
      if (!alive.contains(f.getKey())) {
        if (learned.containsKey(f.getKey())) {
          return false;
        }
        learned.put(f.getKey(), new Learned(f.getKey(), f.getValue(), death + " on " + described));
        return true;
      }
    }
    return false;
  }

  /**
   * {@code e} killed the worker ({@code described}: how it is shown, asked only when a class is learned): when
   * it shows a class of input not learned before, the tries from {@code next} on route around that class, so
   * that the op's other checks reach their tries (an op that dies outside it too still stops at its deaths). A
   * null {@code e} (a crash that did not reproduce alone) teaches nothing.
   */
  void routeAround(Tries tries, int next, Example e, String death, java.util.function.Supplier<String> described) {
    if (e != null && firstUnseen(e) != null && crashed(e, death, described.get())) {
      tries.avoid(this, next);
    }
  }

  /** The first feature of {@code e} that no input which ran had, or null. */
  private String firstUnseen(Example e) {
    return features(e).keySet().stream().filter(f -> !alive.contains(f)).findFirst().orElse(null);
  }

  /** Whether {@code e} is in a class learned so far; counted as a try steered away when it is. */
  boolean steersAway(Example e) {
    Learned l = classOf(e);
    if (l != null) {
      l.steered++;
    }
    return l != null;
  }

  /**
   * Whether {@code e}, a candidate while another finding is shrunk, is in a class learned so far; counted
   * as a candidate not run when it is (it would kill the worker, which reproduces no other finding).
   */
  boolean skipsShrinkCandidate(Example e) {
    Learned l = classOf(e);
    if (l != null) {
      l.unshrunk++;
    }
    return l != null;
  }

  /** The first class learned so far that {@code e} is in, or null. */
  private Learned classOf(Example e) {
    Set<String> has = features(e).keySet();
    return learned.values().stream().filter(l -> has.contains(l.feature)).findFirst().orElse(null);
  }

  /** Whether any class was learned. */
  boolean any() {
    return !learned.isEmpty();
  }

  /**
   * The coverage lines: per class learned, how many tries were steered away from it, and why; and how many
   * shrink candidates in it were not run.
   */
  List<String> lines() {
    List<String> out = new ArrayList<>();
    for (Learned l : learned.values()) {
      out.add("steered " + l.steered + (l.steered == 1 ? " try" : " tries") + " away from inputs where " + l.said
          + " (what the " + l.from + " has and no input that ran had); others were drawn in their place"
          + (l.unshrunk == 0 ? "" : "; " + l.unshrunk + (l.unshrunk == 1 ? " candidate" : " candidates")
              + " of other findings' shrinks in it not run"));
    }
    return out;
  }

  /**
   * The features of {@code e}, keyed, each with how it is said, in the order a class is chosen among them:
   * empties first, then sizes of 0 by dimension, dtypes, int values, and last a tensor's sizes.
   */
  private Map<String, String> features(Example e) {
    Map<String, String> empties = new LinkedHashMap<>();
    Map<String, String> zeros = new LinkedHashMap<>();
    Map<String, String> dtypes = new LinkedHashMap<>();
    Map<String, String> ints = new LinkedHashMap<>();
    Map<String, String> shapes = new LinkedHashMap<>();
    for (int i = 0; i < e.args().size(); i++) {
      String name = i < names.size() ? names.get(i) : "argument " + i;
      add(name, e.args().get(i), empties, zeros, dtypes, ints, shapes);
    }
    for (Map.Entry<String, SpecValue> kw : e.kwargs().entrySet()) {
      add(kw.getKey(), kw.getValue(), empties, zeros, dtypes, ints, shapes);
    }
    Map<String, String> all = new LinkedHashMap<>(empties);
    all.putAll(zeros);
    all.putAll(dtypes);
    all.putAll(ints);
    all.putAll(shapes);
    return all;
  }

  private static void add(String name, SpecValue v, Map<String, String> empties, Map<String, String> zeros,
      Map<String, String> dtypes, Map<String, String> ints, Map<String, String> shapes) {
    if (v.isObject() && v.object().containsKey("tensor") && v.object().get("tensor").isList()) {
      List<SpecValue> sizes = v.object().get("tensor").list();
      if (sizes.stream().allMatch(SpecValue::isInteger)) {
        String shown = sizes.stream().map(d -> String.valueOf(d.value())).collect(Collectors.joining(", ", "[", "]"));
        shapes.put("sizes " + name + " " + shown, name + " has sizes " + shown);
      }
      boolean empty = false;
      for (int d = 0; d < sizes.size(); d++) {
        if (sizes.get(d).isInteger() && sizes.get(d).number() == 0) {
          empty = true;
          zeros.put("zero " + name + " " + d + "/" + sizes.size(), name + " has size 0 in dimension " + d
              + " of " + sizes.size());
        }
      }
      if (empty) {
        empties.put("empty " + name, name + " has no elements");
      }
      SpecValue dtype = v.object().get("dtype");
      String dt = dtype != null && dtype.isString() ? (String) dtype.value() : "float32";
      dtypes.put("dtype " + name + " " + dt, name + " is " + dt);
    } else if (v.isInteger()) {
      ints.put("int " + name + " " + v.value(), name + " is " + v.value());
    } else if (v.isList()) {
      for (int j = 0; j < v.list().size(); j++) {
        add(name + "[" + j + "]", v.list().get(j), empties, zeros, dtypes, ints, shapes);
      }
    }
  }
}
