package dev.opcheck4j.api;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one check said about one operator on one device for one example.
 *
 * @param op qualified operator name, {@code ns::name} or {@code ns::name.overload}; for a result about a
 *     whole library (see {@link #library}) a display name only
 * @param check stable check id, e.g. {@code schema.types}
 * @param device device under test ({@code cpu}, {@code meta}, {@code cuda}), or {@code "-"} for checks
 *     that do not run on a device
 * @param example example reference such as {@code spec.json#ops[2].examples[1]}, or {@code "-"} when
 *     the check needs no example
 * @param outcome the verdict
 * @param facts ordered facts; for a failure the first one says what was expected
 * @param durationMicros wall time spent by this result's own work (its check's calls, its shrinking), in microseconds
 * @param exampleInfo the example as data (ref, generated, try, seed, description), or null when the
 *     check needs no example or the producer did not say
 * @param library the library file a library-scope result is about (the check ran once per library, not
 *     per op), or null for results about one op
 * @param finding what the check found, typed, for a failure or warning; null for other outcomes and
 *     for results read back from a report that did not carry it
 * @param repro what reproduces the result, for a failure or warning; null when nothing does (or not known)
 * @param expectation the expected-failures entry that judged the result, for {@link Outcome#EXPECTED_FAILURE}
 *     and {@link Outcome#UNEXPECTED_PASS}; null for other outcomes
 * @param runtime the libtorch version the result was found on ({@code 2.10.0}), in a run on several runtimes;
 *     null in a run on one (its run block names it)
 */
public record CheckResult(
    String op,
    String check,
    String device,
    String example,
    Outcome outcome,
    List<Fact> facts,
    long durationMicros,
    ExampleRef exampleInfo,
    String library,
    Finding finding,
    Repro repro,
    Expectation expectation,
    String runtime) {

  /** Marker for "no device" and "no example". */
  public static final String NONE = "-";

  public CheckResult {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(check, "check");
    Objects.requireNonNull(device, "device");
    Objects.requireNonNull(example, "example");
    Objects.requireNonNull(outcome, "outcome");
    facts = List.copyOf(facts);
    if ((expectation == null) == (outcome == Outcome.EXPECTED_FAILURE || outcome == Outcome.UNEXPECTED_PASS)) {
      throw new IllegalArgumentException(outcome.label() + " result " + (expectation == null ? "without" : "with")
          + " an expectation: " + op + " " + check);
    }
  }

  /** A result of a run on one runtime. */
  public CheckResult(String op, String check, String device, String example, Outcome outcome, List<Fact> facts,
      long durationMicros, ExampleRef exampleInfo, String library, Finding finding, Repro repro, Expectation expectation) {
    this(op, check, device, example, outcome, facts, durationMicros, exampleInfo, library, finding, repro, expectation, null);
  }

  /** A result judged by no expected-failures entry. */
  public CheckResult(String op, String check, String device, String example, Outcome outcome, List<Fact> facts,
      long durationMicros, ExampleRef exampleInfo, String library, Finding finding, Repro repro) {
    this(op, check, device, example, outcome, facts, durationMicros, exampleInfo, library, finding, repro, null);
  }

  /** A result with no typed finding and nothing to reproduce it. */
  public CheckResult(String op, String check, String device, String example, Outcome outcome, List<Fact> facts,
      long durationMicros, ExampleRef exampleInfo, String library) {
    this(op, check, device, example, outcome, facts, durationMicros, exampleInfo, library, null, null);
  }

  /** A result about one op, with the example known by its reference only. */
  public CheckResult(
      String op, String check, String device, String example, Outcome outcome, List<Fact> facts, long durationMicros) {
    this(op, check, device, example, outcome, facts, durationMicros,
        example.equals(NONE) ? null : ExampleRef.spec(example), null);
  }

  /**
   * This failure as an expected one: outcome {@link Outcome#EXPECTED_FAILURE}, judged by {@code entry},
   * with its facts, finding and repro kept.
   */
  public CheckResult expected(Expectation entry) {
    if (outcome != Outcome.FAILED) {
      throw new IllegalStateException("only a failure can be expected, not " + outcome.label());
    }
    return new CheckResult(op, check, device, example, Outcome.EXPECTED_FAILURE, facts, durationMicros, exampleInfo,
        library, finding, repro, Objects.requireNonNull(entry, "entry"), runtime);
  }

  /**
   * The result {@code entry} gives when the failure it lists came nowhere: outcome {@link
   * Outcome#UNEXPECTED_PASS}, about {@code check} on the entry's op, on {@code device} ({@link #NONE}: on none),
   * with no example, judged by {@code entry}.
   *
   * @param facts its display form, the first one saying what was expected
   */
  public static CheckResult unexpectedPass(Expectation entry, String check, String device, List<Fact> facts) {
    return new CheckResult(entry.op(), check, device, NONE, Outcome.UNEXPECTED_PASS, facts, 0, null, null, null, null,
        entry);
  }

  /** The same result with its example described as data. */
  public CheckResult withExample(ExampleRef info) {
    return new CheckResult(op, check, device, example, outcome, facts, durationMicros, info, library, finding, repro, expectation, runtime);
  }

  /** The same result as one about the whole library {@code file}. */
  public CheckResult aboutLibrary(String file) {
    return new CheckResult(op, check, device, example, outcome, facts, durationMicros, exampleInfo, file, finding, repro, expectation, runtime);
  }

  /** The same result with its typed finding and what reproduces it. */
  public CheckResult withFinding(Finding typed, Repro how) {
    return new CheckResult(op, check, device, example, outcome, facts, durationMicros, exampleInfo, library, typed, how, expectation, runtime);
  }

  /**
   * The same result with its {@code rerun} fact rendered by {@code style} from its {@link #repro()}
   * (before the hint, as the message shape has it); the result itself when nothing reproduces it.
   */
  public CheckResult withRerun(Rerun style) {
    if (repro == null) {
      return this;
    }
    List<Fact> shown = new java.util.ArrayList<>();
    Fact line = new Fact("rerun", style.line(repro));
    for (Fact f : facts) {
      if (f.key().equals("hint") && !shown.contains(line)) {
        shown.add(line);
      }
      if (!f.key().equals("rerun")) {
        shown.add(f);
      }
    }
    if (!shown.contains(line)) {
      shown.add(line);
    }
    return new CheckResult(op, check, device, example, outcome, shown, durationMicros, exampleInfo, library, finding, repro, expectation, runtime);
  }

  /** The same result as found on libtorch {@code version} (null: the run's one runtime). */
  public CheckResult onRuntime(String version) {
    return new CheckResult(op, check, device, example, outcome, facts, durationMicros, exampleInfo, library, finding,
        repro == null ? null : repro.onRuntime(version), expectation, version);
  }

  /** The value of the first fact with this key, if any. */
  public Optional<String> fact(String key) {
    return facts.stream().filter(f -> f.key().equals(key)).map(Fact::value).findFirst();
  }

  /**
   * Why a skipped result was skipped, or what an errored one hit: its first fact's value (the only
   * fact such a result has); null for other outcomes.
   */
  public String reason() {
    return (outcome == Outcome.SKIPPED || outcome == Outcome.ERRORED) && !facts.isEmpty() ? facts.get(0).value() : null;
  }

  /** The op this result is about, or null for a library-scope result. */
  public String opOrNull() {
    return library == null ? op : null;
  }

  /** The device, or null for checks that do not run on a device. */
  public String deviceOrNull() {
    return device.equals(NONE) ? null : device;
  }

  /** The check family: the part of the id before the first dot. */
  public String family() {
    int dot = check.indexOf('.');
    return dot < 0 ? check : check.substring(0, dot);
  }
}
