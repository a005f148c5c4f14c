package dev.opcheck4j.run.plan;

import dev.opcheck4j.run.plan.RunOption.Type;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Every option of a run, in the order help and the engine's description show them. The command
 * line ({@code cli}), the JUnit engine ({@code junit/EngineSettings}), the {@code OpCheck} builder,
 * {@code @OpInputs} and {@link RunRequest}'s defaults read these rows; a row is the one place an
 * option's flag, keys, default and parser are written.
 */
public final class RunOptions {
  /** The prefix of the engine's configuration keys. */
  public static final String ENGINE_PREFIX = "opcheck4j.";

  public static final RunOption<Path> SPECS = RunOption.of("--spec", "FILE", Type.PATH,
      "a spec file: library, ops, examples (docs/spec.md)").engine("specs")
      .repeated("(none beyond those discovered)");
  public static final RunOption<Path> LIBRARIES = RunOption.of("--library", "LIB", Type.PATH,
      "a shared library of custom ops (check: every op it registers)").repeated("(none)");
  public static final RunOption<String> OPS = RunOption.of("--op", "NAME", Type.TEXT,
      "only this op (ns::name), or every op of a namespace (ns::*)")
      .engine("ops").repeated("(all)");
  public static final RunOption<String> CHECKS = RunOption.of("--check", "ID|FAMILY", Type.TEXT,
      "only these checks (./opcheck checks lists them)").engine("checks").repeated("(all)");
  public static final RunOption<String> REQUIRE = RunOption.of("--require", "FAMILY", Type.TEXT,
      "fail (coverage.required) on an op where this check family never ran").engine("require").spec("require")
      .repeated("(none)");
  public static final RunOption<Device> DEVICES = RunOption.of("--device", "DEVICE", Type.DEVICE,
      "cpu, meta or cuda (default: all, cuda skipped without a GPU)").engine("devices").repeated("(all)");
  public static final RunOption<List<String>> RUNTIMES = RunOption.of("--runtime", "VERSIONS",
      new Type<List<String>>("libtorch versions among " + Runtimes.listed() + ", comma-separated", Runtimes::parse,
          l -> String.join(",", l)),
      "the libtorch runtimes to check on, each with workers of its own (built: " + Runtimes.listed()
      + "; default {default}; docs/runtimes.md)").engine("runtimes").spec("runtimes").orElse(Runtimes::defaults);
  public static final RunOption<Long> SEED = RunOption.of("--seed", "N", Type.LONG,
      "seed of everything drawn at random (default {default})").engine("seed").orElse(20261122L);
  public static final RunOption<Integer> TRIES = RunOption.of("--tries", "N", Type.atLeast(0),
      "generated inputs per op and device (default {default}; 0: examples only)").engine("tries").orElse(100);
  public static final RunOption<Boolean> ALL_TRIES = RunOption.of("--all-tries", "", Type.SWITCH,
      "make every one of the --tries, a quota (default: they are a ceiling, and generation on an op and device stops once"
      + " a window of accepted tries found no new input class; docs/generation.md#when-generation-stops)")
      .engine("allTries").spec("all-tries").orElse(false);
  public static final RunOption<Integer> JOBS = RunOption.of("--jobs", "N", Type.atLeast(1),
      "worker processes at once (default: one per core)").engine("jobs")
      .orElse(() -> Runtime.getRuntime().availableProcessors());
  public static final RunOption<Duration> TIMEOUT = RunOption.of("--timeout", "SECONDS", Type.DURATION,
      "deadline of one unit of work, and of a worker loading its libraries (default {default})").engine("timeout")
      .spec("ops[].timeout").orElse(Duration.ofSeconds(60));
  public static final RunOption<Shard> SHARD = RunOption.of("--shard", "I/N", Type.SHARD,
      "check part I of N of the ops (default: the part the CI engine's variables name, else all; docs/ci.md)")
      .engine("shard").orElse(Shard.ALL);
  public static final RunOption<Path> TIMINGS = RunOption.of("--timings", "FILE", Type.PATH,
      "pack the shards' ops by the times in FILE: a previous opcheck-report.json, or the opcheck-timings.json"
      + " merge writes (default: split by index)").engine("timings");
  public static final RunOption<Boolean> WARNINGS_AS_ERRORS = RunOption.of("--warnings-as-errors", "", Type.SWITCH,
      "warnings fail the run (notes stay notes; with --strict they are warnings, and fail too)")
      .engine("warningsAsErrors").spec("warnings-as-errors").orElse(false);
  public static final RunOption<Boolean> STRICT = RunOption.of("--strict", "", Type.SWITCH,
      "findings of note checks are warnings (a note: stricter than PyTorch, harmless in today's PyTorch;"
      + " docs/report.md#notes)").engine("strict").spec("strict").orElse(false);
  public static final RunOption<Path> EXPECTED_FAILURES = RunOption.of("--expected-failures", "FILE", Type.PATH,
      "failures that pass the run as expected, entries that no longer fail fail it (docs/expected-failures.md)")
      .engine("expectedFailures");
  public static final RunOption<String> TAGS = RunOption.of("--tag", "NAME", Type.TEXT,
      "the run answers to the \"tag:NAME\" groups of the expected-failures file").engine("tags").repeated("(none)");
  public static final RunOption<Path> ACCEPT = RunOption.of("--accept", "FILE", Type.PATH,
      "write FILE as the expected failures that make this run pass, print its diff, exit 0 only when it did not change");
  public static final RunOption<Boolean> ACCEPT_ENGINE = RunOption.engineOnly("accept", Type.SWITCH,
      "rewrite the opcheck4j.expectedFailures file so that the run would pass, and print its diff").orElse(false);
  public static final RunOption<Path> REPORT_DIR = RunOption.of("--report-dir", "DIR", Type.PATH,
      "write opcheck-report.json, .html, .sarif and opcheck-summary.md there (allure-results too with --allure)")
      .engine("reportDir");
  public static final RunOption<Boolean> ALLURE = RunOption.of("--allure", "", Type.SWITCH,
      "also write allure-results/ (a file per result) into the report dir (docs/report.md#allure)").engine("allure")
      .orElse(false);
  public static final RunOption<Path> REPRO = RunOption.of("--repro", "DIR", Type.PATH,
      "write each failure as a PyTorch script, DIR/<op>/<check>-<device>.py, beside its example's tensors"
      + " (docs/repro.md)").engine("repro");
  public static final RunOption<Double> MIN_LINE_COVERAGE = RunOption.of("--min-line-coverage", "PERCENT", Type.PERCENT,
      "fail an op of a library built with gcov's coverage whose kernel's lines run by its examples and generated"
      + " inputs are fewer than PERCENT of the lines of the functions it ran (docs/sanitizers.md#line-coverage)")
      .engine("minLineCoverage").spec("min-line-coverage");
  public static final RunOption<String> DOCS_URL = RunOption.engineOnly("docsUrl", Type.TEXT,
      "where report links to check pages point (<docsUrl><check>.md); default: the docs/checks/ of the clone"
      + " ./opcheck runs from, else no link (see dev.opcheck4j.api.DocsLocation)")
      .unset("(default: the clone's docs/checks/, else no link)");
  public static final RunOption<Path> BASELINE = RunOption.of("--baseline", "FILE", Type.PATH,
      "a schema baseline (./opcheck baseline) to check the libraries against (docs/baseline.md)");
  public static final RunOption<Path> PACKAGES = RunOption.of("--package", "FILE", Type.PATH,
      "an AOTInductor package (.pt2) the libraries must keep serving: its calls are checked against them (aoti.*,"
      + " docs/aoti.md)").engine("packages").spec("packages").repeated("(none beyond the specs' own)");
  public static final RunOption<Path> JUNIT_XML = RunOption.of("--junit-xml", "DIR", Type.PATH,
      "run the specs as JUnit Platform tests and write JUnit XML there");
  public static final RunOption<Boolean> VERBOSE = RunOption.of("--verbose", "", Type.SWITCH,
      "print every result, not only findings").orElse(false);
  public static final RunOption<Boolean> ALLOW_INCOMPLETE = RunOption.of("--allow-incomplete", "", Type.SWITCH,
      "merge shards that did not finish too, their reports marked incomplete").orElse(false);
  public static final RunOption<Path> OUT = RunOption.of("--out", "FILE", Type.PATH, "the file to write");
  public static final RunOption<Boolean> FORCE = RunOption.of("--force", "", Type.SWITCH,
      "overwrite the file --out names").orElse(false);
  public static final RunOption<String> INPUTS = RunOption.of("--input", "VALUE", Type.TEXT,
      "an argument of forward, e.g. float32[16,16], int:8 or x.pt (a tensor saved by torch.save)").repeated("(none)");
  public static final RunOption<Path> EXPECT = RunOption.of("--expect", "FILE", Type.PATH,
      "compare forward's output with this tensor (or tuple of tensors) saved by torch.save");

  public static final RunOption<Path> CACHE = RunOption.of("--cache", "DIR", Type.PATH,
      "replay each op's results from DIR when nothing they depend on changed, and store them there"
      + " (docs/performance.md)").engine("cache");
  public static final RunOption<Boolean> NO_CACHE = RunOption.of("--no-cache", "", Type.SWITCH,
      "run every op even when --cache is given").orElse(false);
  public static final RunOption<Integer> BENCH_OPS = RunOption.of("--ops", "N", Type.atLeast(1),
      "ops in the generated library of bench library, shapes, crashes, shards and composites (default {default})").orElse(200);

  private static final List<RunOption<?>> ALL = List.of(SPECS, LIBRARIES, OPS, CHECKS, REQUIRE, DEVICES, RUNTIMES, SEED, TRIES, ALL_TRIES,
      JOBS, TIMEOUT, SHARD, TIMINGS, WARNINGS_AS_ERRORS, STRICT, EXPECTED_FAILURES, TAGS, ACCEPT, ACCEPT_ENGINE, REPORT_DIR, ALLURE, REPRO,
      MIN_LINE_COVERAGE, DOCS_URL, BASELINE, PACKAGES, JUNIT_XML, VERBOSE,
      ALLOW_INCOMPLETE, OUT, FORCE, INPUTS, EXPECT, CACHE, NO_CACHE, BENCH_OPS);

  private RunOptions() {}

  /** Every row, in order. */
  public static List<RunOption<?>> all() {
    return ALL;
  }
}
