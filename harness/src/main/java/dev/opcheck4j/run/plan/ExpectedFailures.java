package dev.opcheck4j.run.plan;

import dev.opcheck4j.api.Expectation;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.spec.NearestName;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Known failures of real ops, versioned with the code, read by {@code check --expected-failures FILE}
 * and the engine's {@code opcheck4j.expectedFailures} alike (JSON or YAML, comments allowed):
 * <pre>
 * {"ns::op": {"check.id": "why", "family": "why", "check.id@cuda": "why"},
 *  "spec:bad/bad_ops.json": {"ns::op": {...}},
 *  "tag:nightly": {"ns::op": {...}}}
 * </pre>
 * A listed failure passes the run as an expected failure; a listed entry whose check ran on the op and
 * failed nowhere fails it as an unexpected pass, as opcheck's failures dict does. A {@code spec:PATH}
 * group holds only in a run of a spec file whose path ends with PATH, a {@code tag:NAME} group only in
 * a run given that tag, so one file serves several suites.
 *
 * @param file the file, absolute; null for {@link #NONE}
 * @param entries every entry, in the file's order
 */
public record ExpectedFailures(Path file, List<Entry> entries) {
  /** No file: nothing is expected to fail. */
  public static final ExpectedFailures NONE = new ExpectedFailures(null, List.of());

  /** The prefix of a group limited to spec files. */
  public static final String SPEC = "spec:";
  /** The prefix of a group limited to runs given a tag. */
  public static final String TAG = "tag:";

  public ExpectedFailures {
    entries = List.copyOf(entries);
  }

  /**
   * One entry.
   *
   * @param scope {@code spec:PATH} or {@code tag:NAME}, or null for every run
   * @param op the op, {@code ns::name}
   * @param key the key as written: a check id or family, with an optional {@code @device}
   * @param checks the check id or family the key names
   * @param device the device the key is limited to, or null for every device
   * @param reason why the failure is expected
   * @param location where the key is written, {@code file:line:column}
   */
  public record Entry(String scope, String op, String key, String checks, String device, String reason,
      String location) {
    /** Whether a result of {@code check} on {@code device} ({@code "-"} for none) is one this entry names. */
    public boolean covers(String check, String device) {
      return (check.equals(checks) || check.startsWith(checks + ".")) && (this.device == null || this.device.equals(device));
    }

    /** The entry as a result carries it. */
    public Expectation expectation(Path file) {
      return new Expectation(scope, op, key, reason, file.toString(), location);
    }
  }

  /**
   * Reads {@code file}.
   *
   * @throws SpecException at the first key or value that is not of the format, naming it ({@code file:line:column})
   */
  public static ExpectedFailures read(Path file) throws SpecException {
    Path path = file.toAbsolutePath().normalize();
    if (!java.nio.file.Files.isRegularFile(path)) {
      throw new SpecException(path.toString(), "expected-failures file not found");
    }
    SpecValue root = SpecReader.parseTree(path);
    if (!root.isObject()) {
      throw new SpecException(root.location(), "expected failures are an object {\"ns::op\": {\"check.id\": \"reason\"}}, got "
          + root.describe());
    }
    List<Entry> out = new ArrayList<>();
    for (Map.Entry<String, SpecValue> top : root.object().entrySet()) {
      String key = top.getKey();
      if (key.startsWith(SPEC) || key.startsWith(TAG)) {
        if (key.substring(key.indexOf(':') + 1).isBlank() || !top.getValue().isObject()) {
          throw new SpecException(top.getValue().location(), quote(key) + " limits a group of ops to "
              + (key.startsWith(SPEC) ? "a spec file" : "a tag") + ": give its name after the colon and the ops as an object");
        }
        for (Map.Entry<String, SpecValue> op : top.getValue().object().entrySet()) {
          ops(key, op.getKey(), op.getValue(), out);
        }
      } else {
        ops(null, key, top.getValue(), out);
      }
    }
    return new ExpectedFailures(path, out);
  }

  private static void ops(String scope, String op, SpecValue checks, List<Entry> out) throws SpecException {
    if (!op.contains("::")) {
      throw new SpecException(checks.location(), quote(op) + " is not an op (ns::name), nor a group (spec:PATH or tag:NAME)");
    }
    if (!checks.isObject()) {
      throw new SpecException(checks.location(), quote(op) + " maps check ids to reasons, got " + checks.describe());
    }
    for (Map.Entry<String, SpecValue> c : checks.object().entrySet()) {
      SpecValue reason = c.getValue();
      if (!reason.isString() || ((String) reason.value()).isBlank()) {
        throw new SpecException(reason.location(), "each expected failure needs a reason string (" + quote(c.getKey())
            + " under " + quote(op) + ")");
      }
      String key = c.getKey();
      int at = key.indexOf('@');
      String id = at < 0 ? key : key.substring(0, at);
      String device = at < 0 ? null : key.substring(at + 1);
      if (BuiltinChecks.select(id).isEmpty()) {
        List<String> names = Stream.concat(BuiltinChecks.all().stream().map(Check::family).distinct(),
            BuiltinChecks.all().stream().map(Check::id)).toList();
        String hint = NearestName.didYouMean(id, names);
        throw new SpecException(reason.location(), quote(id) + " under " + quote(op) + " is not a check id or family"
            + (hint.isEmpty() ? " (./opcheck checks lists them)" : hint));
      }
      if (device != null && Device.parse(device).isEmpty()) {
        throw new SpecException(reason.location(), quote(key) + " under " + quote(op) + " names no device after @"
            + " (cpu, meta or cuda)");
      }
      out.add(new Entry(scope, op, key, id, device, (String) reason.value(), reason.location()));
    }
  }

  /**
   * The entries that hold in a run of {@code specs} given {@code tags}: those of no group, of a
   * {@code spec:} group whose path ends one of the specs, of a {@code tag:} group among the tags.
   */
  public ExpectedFailures activeIn(Collection<Path> specs, Collection<String> tags) {
    return new ExpectedFailures(file, entries.stream().filter(e -> e.scope() == null
        || e.scope().startsWith(TAG) && tags.contains(e.scope().substring(TAG.length()))
        || e.scope().startsWith(SPEC) && specs.stream().anyMatch(s -> limitedTo(e.scope(), s))).toList());
  }

  /** Whether an entry of {@code scope} holds for ops of the spec file {@code spec} (null: a library without one). */
  public static boolean holdsFor(String scope, String spec) {
    return scope == null || scope.startsWith(TAG) || spec != null && limitedTo(scope, Path.of(spec));
  }

  private static boolean limitedTo(String scope, Path spec) {
    Path limit = Path.of(scope.substring(SPEC.length()).strip()).normalize();
    return spec.toAbsolutePath().normalize().endsWith(limit);
  }

  /**
   * Checks that every entry names an op of the run.
   *
   * @param known the ops the run knows: those its spec files name and its libraries register or implement
   * @throws SpecException with one located line per entry naming another op
   */
  public void requireKnownOps(Set<String> known) throws SpecException {
    List<String> errors = new ArrayList<>();
    Set<String> reported = new LinkedHashSet<>();
    for (Entry e : entries) {
      if (!known.contains(e.op()) && reported.add(e.op())) {
        String hint = NearestName.didYouMean(e.op(), List.copyOf(known));
        errors.add(e.location() + ": " + quote(e.op()) + " is not an op of this run" + (hint.isEmpty()
            ? " (limit its entries to the suite that has it: \"spec:FILE\" or \"tag:NAME\")" : hint));
      }
    }
    if (!errors.isEmpty()) {
      throw new SpecException(errors);
    }
  }

  /**
   * The entries about ops of {@code namespaces}: those a run of one spec of a larger suite can judge
   * (the engine runs each spec on its own).
   */
  public ExpectedFailures within(Set<String> namespaces) {
    return new ExpectedFailures(file, entries.stream().filter(e -> namespaces.contains(namespace(e.op()))).toList());
  }

  /**
   * Checks that every entry is about an op of the suite's namespaces (the engine's check before
   * anything runs; each spec's run then checks its ops one by one).
   *
   * @throws SpecException with one located line per entry of another namespace
   */
  public void requireNamespaces(Set<String> namespaces) throws SpecException {
    List<String> errors = new ArrayList<>();
    for (Entry e : entries) {
      if (!namespaces.contains(namespace(e.op()))) {
        errors.add(e.location() + ": " + quote(e.op()) + " is not an op of this suite (its namespaces: "
            + String.join(", ", namespaces) + "); limit its entries to the suite that has it: \"spec:FILE\" or \"tag:NAME\"");
      }
    }
    if (!errors.isEmpty()) {
      throw new SpecException(errors);
    }
  }

  /** The namespace of {@code op} ({@code ns} of {@code ns::name}). */
  public static String namespace(String op) {
    int i = op.indexOf("::");
    return i < 0 ? op : op.substring(0, i);
  }

  /** Whether no entry holds. */
  public boolean isEmpty() {
    return entries.isEmpty();
  }

  private static String quote(String s) {
    return SpecValue.quote(s);
  }
}
