package dev.opcheck4j.junit;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.RunBlock;
import dev.opcheck4j.spec.SpecFile;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.junit.platform.engine.EngineExecutionListener;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.reporting.ReportEntry;
import org.opentest4j.TestAbortedException;

/**
 * Turns the run's events into JUnit Platform events on the engine's thread: a test starts when its
 * unit starts (or at its result when no unit event names it) and finishes at its result, so the
 * times every report shows are the run's own. Failures carry the rendered finding, skips their
 * reason, warnings and notes a reporting entry (a warning is printed in full too, notes are counted). Nodes the run gave no result for are never passed: they are
 * skipped with the reason (aborted with it when their unit had started).
 */
final class ResultStream {
  private final EngineExecutionListener listener;
  private final RunDescriptor root;
  private final EngineSettings settings;
  private final Rerun rerun;
  private final PrintStream out;
  private final Map<NodeKey, EngineNode> nodes = new HashMap<>();
  private final Set<TestDescriptor> started = new HashSet<>();
  private final Set<TestDescriptor> finished = new HashSet<>();
  private final Map<Integer, List<String>> inputErrors = new HashMap<>();
  /** Per spec and runtime, why that runtime refused the spec's library, in a run on several runtimes. */
  private final Map<NodeKey, String> refusals = new HashMap<>();
  /** Per op, its only result when that is a failure about the op as a whole (an unknown op has nothing else). */
  private final Map<NodeKey, CheckResult> onlyFailure = new HashMap<>();
  private final Set<NodeKey> judged = new HashSet<>();
  private final Map<UniqueId, Integer> extras = new HashMap<>();
  private final List<CheckResult> results = new ArrayList<>();
  private final Map<String, Integer> outcomes = new LinkedHashMap<>();
  /** Per spec, or per spec and runtime in a run on several: the coverage of its results. */
  private final Map<NodeKey, Coverage.Fold> coverage = new HashMap<>();

  /**
   * @param rerun how the rerun line of a result that carries a repro is written where the tests run
   * @param out where the warnings and the expected failures are printed in full
   */
  ResultStream(EngineExecutionListener listener, RunDescriptor root, Rerun rerun, PrintStream out) {
    this.listener = listener;
    this.out = out;
    this.root = root;
    this.settings = root.settings;
    this.rerun = rerun;
    index(root);
  }

  private void index(TestDescriptor d) {
    if (d instanceof EngineNode n && NodeKey.of(n) != null) {
      nodes.put(NodeKey.of(n), n);
    }
    d.getChildren().forEach(this::index);
  }

  private EngineNode node(NodeKey key) {
    return nodes.get(key);
  }

  /** The check node of {@code check} on {@code device} for {@code op}, or for no op (a library-wide check). */
  private EngineNode checkNode(int spec, String runtime, String op, String check, String device) {
    EngineNode n = node(NodeKey.check(spec, runtime, op, check, device));
    return n != null ? n : node(NodeKey.check(spec, runtime, CheckResult.NONE, check, device));
  }

  /**
   * The runtime whose nodes an event of {@code spec} on {@code given} goes to: {@code given}, or where the event
   * names none (a run on one runtime) the spec's one runtime container left after filtering, if any.
   */
  private String runtime(int spec, String given) {
    if (given != null) {
      return given;
    }
    EngineNode specNode = node(NodeKey.spec(spec));
    List<EngineNode> runtimes = specNode == null ? List.of() : runtimes(specNode);
    return runtimes.size() == 1 ? runtimes.get(0).runtime() : null;
  }

  /** The runtime containers under {@code spec}, in tree order; none in a run on one runtime. */
  private static List<EngineNode> runtimes(EngineNode spec) {
    return spec.getChildren().stream().map(EngineNode.class::cast).filter(n -> n.kind == EngineNode.Kind.RUNTIME).toList();
  }

  /** Where a result with no op node of its own goes: its runtime's container, else the spec. */
  private EngineNode base(int spec, String runtime) {
    EngineNode n = runtime == null ? null : node(NodeKey.runtime(spec, runtime));
    return n != null ? n : node(NodeKey.spec(spec));
  }

  /** The key results of {@code spec} on {@code runtime} are folded into coverage under. */
  private static NodeKey coverageKey(int spec, String runtime) {
    return runtime == null ? NodeKey.spec(spec) : NodeKey.runtime(spec, runtime);
  }

  /** Results as the reports should have them (with the rerun line that works where the user is). */
  List<CheckResult> results() {
    return results;
  }

  /** Starts the test of a unit when the tree has one for it (a check on a device, or one of its examples). */
  void onUnitStarted(int spec, RunListener.UnitEvent unit) {
    EngineNode check = checkNode(spec, runtime(spec, unit.runtime()), unit.op(), unit.check(), unit.device());
    if (check == null || finished.contains(check)) {
      return;
    }
    EngineNode test = check;
    if (check.getType() == TestDescriptor.Type.CONTAINER) {
      // a generated child exists only once its result names it: until then the check is what started
      EngineNode child = node(NodeKey.example(NodeKey.of(check), unit.example()));
      test = child == null || finished.contains(child) ? check : child;
    }
    start(test);
  }

  void onResult(int spec, CheckResult raw) {
    CheckResult r = raw.repro() == null ? raw : raw.withRerun(rerun);
    results.add(r);
    String runtime = runtime(spec, r.runtime());
    coverage.computeIfAbsent(coverageKey(spec, runtime), k -> new Coverage.Fold(settings.run().tries())).result(r);
    if (r.outcome() == Outcome.UNEXPECTED_PASS) {
      // an entry of the expected-failures file that no longer fails: a failed test of its own, under its op
      EngineNode op = node(NodeKey.op(spec, runtime, r.op()));
      EngineNode parent = op != null ? op : base(spec, runtime);
      String name = r.expectation().key() + " (expected failure)";
      EngineNode stale = new EngineNode(parent.getUniqueId().append("expected-failure", r.expectation().key()), name,
          parent.sources.test(name), EngineNode.Kind.STALE_XFAIL, TestDescriptor.Type.TEST, spec, r.op(), r.check(),
          r.device(), null).tag(r.family());
      register(parent, stale);
      report(stale, r);
      return;
    }
    if (absentDevice(spec, runtime, r)) {
      return;
    }
    NodeKey opKey = NodeKey.op(spec, runtime, r.op());
    // an expected failure gates the op's other checks as the failure it is
    if (judged.add(opKey) && (r.outcome() == Outcome.FAILED || r.outcome() == Outcome.EXPECTED_FAILURE)
        && r.device().equals(CheckResult.NONE)
        && r.example().equals(CheckResult.NONE)) {
      onlyFailure.put(opKey, r);
    } else {
      onlyFailure.remove(opKey);
    }
    EngineNode check = checkNode(spec, runtime, r.op(), r.check(), r.device());
    if (check == null) {
      if (root.discovered.contains(NodeKey.check(spec, runtime, r.op(), r.check(), r.device()))) {
        return; // filtered out of this run by tags or ids: not wanted, not lost (the reports have it)
      }
      EngineNode op = node(NodeKey.op(spec, runtime, r.op()));
      report(extra(op != null ? op : base(spec, runtime), r), r);
      return;
    }
    if (check.getType() == TestDescriptor.Type.CONTAINER) {
      EngineNode child = node(NodeKey.example(NodeKey.of(check), r.example()));
      if (child == null || finished.contains(child)) {
        int nth = extras.merge(check.getUniqueId(), 1, Integer::sum) - 1;
        child = r.example().startsWith("generated")
            ? EngineTree.generated(check, r.example(), settings.run().tries(), nth)
            : EngineTree.extra(check, r, nth);
        register(check, child);
      }
      report(child, r);
    } else if (finished.contains(check)) {
      report(extra(check.parentNode().orElseThrow(), r), r);
    } else {
      report(check, r);
    }
  }

  /**
   * True when {@code r} is about an op's checks on cuda in a process without one: the op's cuda
   * container is skipped once with the reason and its checks' results go to the reports only.
   */
  private boolean absentDevice(int spec, String runtime, CheckResult r) {
    EngineNode cuda = node(NodeKey.device(spec, runtime, r.op(), r.device()));
    if (cuda == null) {
      return false;
    }
    if (finished.contains(cuda)) {
      return true;
    }
    if (cuda.isTest()) {
      // a machine that cannot have a CUDA device: the op's one cuda test takes every cuda result
      boolean noCuda = r.outcome() == Outcome.SKIPPED && RunBlock.NO_CUDA.equals(r.reason());
      if (!noCuda && runtime != null) {
        // on a runtime that refused the library (known only once the run ends), the group says why when the spec is done
        return true;
      }
      cuda.getParent().ifPresent(this::start);
      String why = noCuda ? r.reason() : EngineTree.NO_CUDA_HERE;
      skipGroup(cuda, why);
      return true;
    }
    if (r.outcome() != Outcome.SKIPPED || !RunBlock.NO_CUDA.equals(r.reason()) || started.contains(cuda)) {
      return false;
    }
    descendants(cuda).forEach(finished::add);
    cuda.getParent().ifPresent(this::start);
    listener.executionSkipped(cuda, r.reason());
    finished.add(cuda);
    count("skipped");
    return true;
  }

  private static List<TestDescriptor> descendants(TestDescriptor d) {
    List<TestDescriptor> all = new ArrayList<>();
    for (TestDescriptor c : d.getChildren()) {
      all.add(c);
      all.addAll(descendants(c));
    }
    return all;
  }

  void onInputError(int spec, String message) {
    SpecFile file = spec < root.specs.size() ? root.specs.get(spec) : null;
    inputErrors.computeIfAbsent(spec, k -> new ArrayList<>()).add(file == null ? message
        : SpecDiscovery.atSource(message, file.file()));
  }

  /**
   * Libtorch {@code runtime} refused the library of {@code spec}: its results there came as Skipped with
   * {@code reason}, and its nodes that got none say the same when the spec is done.
   */
  void onRefused(int spec, String runtime, String reason) {
    refusals.put(NodeKey.runtime(spec, runtime), reason);
  }

  /** Everything of {@code spec} has arrived: close its nodes, none left silently unreported. */
  void onSpecDone(int spec) {
    EngineNode specNode = node(NodeKey.spec(spec));
    if (specNode == null) {
      return;
    }
    neverRan(spec, specNode);
    close(specNode);
  }

  /** The run stopped early: whatever has no result is an error, not a pass. */
  void onRunFailure(Throwable t) {
    for (TestDescriptor spec : root.getChildren()) {
      failRemaining(spec, "the run stopped before this check: " + t);
    }
  }

  Map<String, Integer> outcomes() {
    return outcomes;
  }

  private void failRemaining(TestDescriptor d, String why) {
    for (TestDescriptor c : d.getChildren()) {
      failRemaining(c, why);
    }
    if (finished.contains(d)) {
      return;
    }
    start(d);
    finish(d, d.isTest() ? TestExecutionResult.failed(new HarnessError(why)) : TestExecutionResult.successful());
  }

  private void close(TestDescriptor d) {
    for (TestDescriptor c : List.copyOf(d.getChildren())) {
      close(c);
    }
    if (finished.contains(d)) {
      return;
    }
    EngineNode n = (EngineNode) d;
    if (n.kind == EngineNode.Kind.INPUT) {
      List<String> errors = inputErrors.getOrDefault(n.spec, List.of());
      start(n);
      finish(n, errors.isEmpty() ? TestExecutionResult.successful()
          : TestExecutionResult.failed(new CheckFailedError(String.join("\n", errors))));
      count(errors.isEmpty() ? "passed" : "failed");
    } else if (n.kind == EngineNode.Kind.DEVICE && d.isTest()) {
      // the op's one cuda test on a machine that cannot have CUDA: the run was not asked for cuda
      // (unless the spec never ran at all: then that is the reason, as for every other test)
      String why = noResultReason(n);
      n.getParent().ifPresent(this::start);
      skipGroup(n, why.startsWith("not run: ") || refused(n) != null ? why : EngineTree.NO_CUDA_HERE);
    } else if (d.isTest()) {
      skip(n, noResultReason(n));
    } else {
      start(n);
      finish(n, TestExecutionResult.successful());
    }
  }

  /** Why the runtime {@code n} is under refused its spec's library; null when it did not (or the run has one runtime). */
  private String refused(EngineNode n) {
    return n.runtime() == null ? null : refusals.get(NodeKey.runtime(n.spec, n.runtime()));
  }

  private String noResultReason(EngineNode n) {
    if (refused(n) != null) {
      return refused(n);
    }
    CheckResult gate = onlyFailure.get(NodeKey.op(n.spec, n.runtime(), n.op));
    if (gate != null) {
      return "requires " + gate.check() + ", which failed" + (gate.outcome() == Outcome.EXPECTED_FAILURE
          ? " (an expected failure)" : "");
    }
    CheckResult death = results.stream().filter(r -> r.op().equals(n.op) && r.device().equals(n.device)
        && Objects.equals(runtime(n.spec, r.runtime()), n.runtime())
        && r.finding() != null && (r.finding().cause() instanceof Cause.Crash || r.finding().cause() instanceof Cause.Timeout))
        .findFirst().orElse(null);
    if (death != null) {
      return "not judged: the worker died running this op (see " + death.check() + " on " + death.device() + ")";
    }
    List<String> errors = inputErrors.getOrDefault(n.spec, List.of());
    if (!errors.isEmpty() && results.stream().noneMatch(r -> r.op().equals(n.op))) {
      // an op left out for an error of its own (a reference that does not compile) says that one
      return "not run: " + errors.stream().filter(e -> e.contains("op '" + n.op + "'")).findFirst().orElse(errors.get(0));
    }
    return "no result: the run produced none for this check (its prerequisites did not run)";
  }

  /**
   * A family that never ran on an op and device is one skipped test of the op, with the reason; in a run on
   * several runtimes, per runtime, from that runtime's results alone.
   */
  private void neverRan(int spec, EngineNode specNode) {
    List<EngineNode> runtimes = runtimes(specNode);
    if (runtimes.isEmpty()) {
      neverRan(spec, specNode, null);
    }
    runtimes.forEach(r -> neverRan(spec, r, r.runtime()));
  }

  private void neverRan(int spec, EngineNode base, String runtime) {
    if (runtime != null && refusals.containsKey(NodeKey.runtime(spec, runtime))) {
      return; // nothing ran there: each of its tests says why already
    }
    Coverage covered = coverage.getOrDefault(coverageKey(spec, runtime), new Coverage.Fold(settings.run().tries())).coverage();
    for (TestDescriptor c : List.copyOf(base.getChildren())) {
      EngineNode op = (EngineNode) c;
      if (op.kind != EngineNode.Kind.OP) {
        continue;
      }
      for (Coverage.Entry e : covered.of(op.op)) {
        if (e.ran() || e.bySpec() || skippedDevice(spec, runtime, op.op, e.deviceLabel())) {
          continue;
        }
        String name = e.family() + " never ran" + (e.device() == null ? "" : " on " + e.device());
        EngineNode never = new EngineNode(op.getUniqueId().append("never-ran", e.family() + "@" + e.deviceLabel()),
            name, op.sources.test(name), EngineNode.Kind.NEVER_RAN, TestDescriptor.Type.TEST, spec, op.op,
            e.family(), e.deviceLabel(), null).tag(e.family());
        register(op, never);
        skip(never, e.family() + " never ran on " + op.op + (e.device() == null ? "" : " on " + e.device()) + ": "
            + e.reason());
      }
    }
  }

  /** The op's container of checks on {@code device} was skipped whole: its never-ran families are said there. */
  private boolean skippedDevice(int spec, String runtime, String op, String device) {
    EngineNode d = node(NodeKey.device(spec, runtime, op, device));
    return d != null && finished.contains(d) && !started.contains(d);
  }

  private EngineNode extra(EngineNode parent, CheckResult r) {
    int nth = extras.merge(parent.getUniqueId(), 1, Integer::sum) - 1;
    EngineNode n = EngineTree.extra(parent, r, nth);
    register(parent, n);
    return n;
  }

  private void register(EngineNode parent, EngineNode child) {
    parent.addChild(child);
    start(parent);
    listener.dynamicTestRegistered(child);
  }

  private void report(EngineNode n, CheckResult r) {
    start(n);
    // a skipped result too is started and then aborted, so Allure's listener has it open for its labels
    AllureResults.describe(r, checkInfo(r.check()), settings.docsBase());
    if (r.outcome() == Outcome.SKIPPED) {
      skip(n, r.reason() == null ? "skipped (no reason given)" : r.reason());
      return;
    }
    boolean warning = r.outcome() == Outcome.WARNING;
    boolean note = r.outcome() == Outcome.NOTE;
    if (warning || note) {
      String text = r.finding() != null ? r.finding().actual() : ResultText.summaryLine(r);
      listener.reportingEntryPublished(n, ReportEntry.from(r.outcome().label(), text));
    }
    if (warning) {
      out.println(ResultText.render(r)); // a note is counted at the end (NoteCounts), not printed in full
    }
    TestExecutionResult result;
    String outcome;
    if (r.outcome() == Outcome.ERRORED) {
      result = TestExecutionResult.failed(new HarnessError("harness error\n" + ResultText.render(r)));
      outcome = "errored";
    } else if (r.outcome() == Outcome.EXPECTED_FAILURE) {
      listener.reportingEntryPublished(n, ReportEntry.from("expected failure", r.expectation().reason()));
      out.println(ResultText.render(r));
      result = TestExecutionResult.successful();
      outcome = "expected failures";
    } else if (r.outcome() == Outcome.UNEXPECTED_PASS) {
      result = TestExecutionResult.failed(new CheckFailedError(ResultText.render(r)));
      outcome = "unexpected passes";
    } else if (r.outcome() == Outcome.FAILED || warning && settings.run().warningsAsErrors()) {
      result = TestExecutionResult.failed(new CheckFailedError(ResultText.render(r)));
      outcome = "failed";
    } else {
      result = TestExecutionResult.successful();
      outcome = warning ? "warnings" : note ? "notes" : "passed";
    }
    finish(n, result);
    count(outcome);
  }

  private void skip(EngineNode n, String reason) {
    if (started.contains(n)) {
      // its unit started, so the platform has it running: skipped from inside, as an assumption is
      finish(n, TestExecutionResult.aborted(new TestAbortedException(reason)));
    } else {
      n.getParent().ifPresent(this::start);
      listener.executionSkipped(n, reason);
      finished.add(n);
    }
    count("skipped");
  }

  /**
   * Skips an op's one test for its checks on cuda (never started), its Allure result labelled as the
   * op's results on cuda.
   */
  private void skipGroup(EngineNode cuda, String why) {
    CheckResult group = new CheckResult(cuda.op, EngineTree.CUDA_NAME, cuda.device, CheckResult.NONE, Outcome.SKIPPED,
        List.of(), 0);
    AllureResults.skippingGroup(group, EngineTree.CUDA_NAME, () -> listener.executionSkipped(cuda, why));
    finished.add(cuda);
    count("skipped");
  }

  private CheckInfo checkInfo(String id) {
    return settings.selectedChecks().stream().filter(c -> c.id().equals(id)).map(c -> c.info()).findFirst().orElse(null);
  }

  private void count(String outcome) {
    outcomes.merge(outcome, 1, Integer::sum);
  }

  private void start(TestDescriptor d) {
    if (started.contains(d) || d == root) {
      return;
    }
    d.getParent().ifPresent(this::start);
    started.add(d);
    listener.executionStarted(d);
  }

  private void finish(TestDescriptor d, TestExecutionResult result) {
    finished.add(d);
    listener.executionFinished(d, result);
  }
}
