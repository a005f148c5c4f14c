package dev.opcheck4j.api;

import java.time.Instant;
import java.util.Objects;

/**
 * What happens in a run, told as it happens (as JUnit's {@code EngineExecutionListener}): the run
 * starts, each op starts, each unit (a check on one device and input) starts and gives its result,
 * each op finishes, the run finishes. The console, the progress line, the JUnit engine, the results
 * file and the report formats all listen to the same events; a listener never reconstructs state
 * from results or sleeps to fake a duration. Every method does nothing by default.
 */
public interface RunListener {
  /** A listener that hears nothing, for callers that want only the returned report. */
  RunListener NONE = new RunListener() {};

  /** A listener that tells {@code first}, then {@code second}, every event. */
  static RunListener both(RunListener first, RunListener second) {
    return new RunListener() {
      @Override
      public void runStarted(RunInfo run) {
        first.runStarted(run);
        second.runStarted(run);
      }

      @Override
      public void planned(int ops) {
        first.planned(ops);
        second.planned(ops);
      }

      @Override
      public void opStarted(OpEvent op) {
        first.opStarted(op);
        second.opStarted(op);
      }

      @Override
      public void unitStarted(UnitEvent unit) {
        first.unitStarted(unit);
        second.unitStarted(unit);
      }

      @Override
      public void result(CheckResult result) {
        first.result(result);
        second.result(result);
      }

      @Override
      public void opFinished(OpEvent op) {
        first.opFinished(op);
        second.opFinished(op);
      }

      @Override
      public void runFinished(RunInfo run, RunEnd end) {
        first.runFinished(run, end);
        second.runFinished(run, end);
      }
    };
  }

  /** Once, before anything else: the run block (devices, inputs, checks); its duration is still 0. */
  default void runStarted(RunInfo run) {}

  /**
   * Once, after {@link #runStarted} and before the first op: how many ops the run will check (of this
   * shard; library-wide checks not counted), known only once the libraries are loaded.
   */
  default void planned(int ops) {}

  /** An op's checks start. */
  default void opStarted(OpEvent op) {}

  /** A check starts on one (op, device, input). Its result follows, as {@link #result}. */
  default void unitStarted(UnitEvent unit) {}

  /** A result, as soon as it exists. */
  default void result(CheckResult result) {}

  /** Every result of an op has been given. */
  default void opFinished(OpEvent op) {}

  /** Once, last: the run block with its duration, and why the run ended. */
  default void runFinished(RunInfo run, RunEnd end) {}

  /**
   * An op of the run.
   *
   * @param op the op, {@code ns::name}, or for library-wide checks the library's file name (as
   *     {@link CheckResult#library()} has it); never null
   * @param library the library file; never null
   * @param spec the spec file that names it, or null when the library was checked without one
   * @param at when it started or finished
   */
  record OpEvent(String op, String library, String spec, Instant at) {
    public OpEvent {
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(library, "library");
      Objects.requireNonNull(at, "at");
    }

    /** Whether this is the library-wide checks of {@link #library} rather than an op (an op is named {@code ns::name}). */
    public boolean libraryWide() {
      return !op.contains("::");
    }
  }

  /**
   * One check starting on one (op, device, input).
   *
   * @param op the op; never null
   * @param check the check id; never null
   * @param device the device, or {@link CheckResult#NONE}
   * @param example the example reference, {@code generated (N tries)}, or {@link CheckResult#NONE}
   * @param at when it started
   * @param runtime the libtorch version it runs on ({@code 2.10.0}), in a run on several runtimes; null in a run on
   *     one, as {@link CheckResult#runtime}
   */
  record UnitEvent(String op, String check, String device, String example, Instant at, String runtime) {
    public UnitEvent {
      Objects.requireNonNull(op, "op");
      Objects.requireNonNull(check, "check");
      Objects.requireNonNull(device, "device");
      Objects.requireNonNull(example, "example");
      Objects.requireNonNull(at, "at");
    }

    /** A unit of a run on one runtime. */
    public UnitEvent(String op, String check, String device, String example, Instant at) {
      this(op, check, device, example, at, null);
    }

    /** The same unit, running on libtorch {@code version}. */
    public UnitEvent onRuntime(String version) {
      return new UnitEvent(op, check, device, example, at, version);
    }
  }

  /**
   * Why a run ended.
   *
   * @param completed whether every planned op ran
   * @param inputErrors problems with the input found while running, one line each; never null
   */
  record RunEnd(boolean completed, java.util.List<String> inputErrors) {
    public RunEnd {
      inputErrors = java.util.List.copyOf(inputErrors);
    }
  }
}
