package dev.opcheck4j.run;

import dev.opcheck4j.run.shard.ShardTimes;
import dev.opcheck4j.run.plan.LibraryInfo;

import dev.opcheck4j.api.RunReport;
import java.util.List;

/**
 * A finished run.
 *
 * @param report every result, in the stable order of the plan (the same for any number of jobs)
 * @param inputErrors problems with the input found while running (unknown ops, invalid examples), one line each
 * @param ops the ops that were checked, in plan order
 * @param libraries what each target's library registers, as the workers found it (empty for a merge)
 * @param shard a sharded run's predicted and actual time; null for a run of all ops
 * @param runtimes what each runtime of a run on several cost, in run order; empty for a run on one
 * @param refusals the libraries a runtime of a run on several refused, each with its one line; empty when none was
 */
public record RunOutcome(RunReport report, List<String> inputErrors, List<String> ops, List<LibraryInfo> libraries,
    ShardTimes shard, List<RuntimeCost> runtimes, List<RuntimeRefusal> refusals) {
  /** A run that no runtime refused a library of. */
  public RunOutcome(RunReport report, List<String> inputErrors, List<String> ops, List<LibraryInfo> libraries,
      ShardTimes shard, List<RuntimeCost> runtimes) {
    this(report, inputErrors, ops, libraries, shard, runtimes, List.of());
  }

  /** A run on the runtimes of {@code runtimes}, not sharded. */
  public RunOutcome(RunReport report, List<String> inputErrors, List<String> ops, List<LibraryInfo> libraries,
      List<RuntimeCost> runtimes) {
    this(report, inputErrors, ops, libraries, null, runtimes);
  }

  /** A sharded run on one runtime. */
  public RunOutcome(RunReport report, List<String> inputErrors, List<String> ops, List<LibraryInfo> libraries,
      ShardTimes shard) {
    this(report, inputErrors, ops, libraries, shard, List.of());
  }

  public RunOutcome {
    inputErrors = List.copyOf(inputErrors);
    ops = List.copyOf(ops);
    libraries = List.copyOf(libraries);
    runtimes = List.copyOf(runtimes);
    refusals = List.copyOf(refusals);
  }

  /** A run on one runtime. */
  public RunOutcome(RunReport report, List<String> inputErrors, List<String> ops, List<LibraryInfo> libraries) {
    this(report, inputErrors, ops, libraries, List.of());
  }

  /**
   * The exit status results call for: 3 when a check errored (a harness bug), 2 for input errors, 1
   * when a check failed, else 0 (an interrupted run exits with its signal's status instead).
   */
  public static int exitStatus(int errored, int inputErrors, int failed) {
    return errored > 0 ? 3 : inputErrors > 0 ? 2 : failed > 0 ? 1 : 0;
  }
}
