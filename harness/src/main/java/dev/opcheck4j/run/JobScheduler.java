package dev.opcheck4j.run;

import dev.opcheck4j.run.plan.Shard;
import dev.opcheck4j.run.cache.ResultCache;
import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.shard.ShardPacking;
import dev.opcheck4j.spec.OpSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a plan's jobs on a pool's workers, one thread per worker taking jobs from one queue in plan
 * order: each job's results go to the results file as they arrive and to the run's listener through
 * an {@link OrderedRelease}, in plan order. An op the result cache knows is replayed, not run.
 */
final class JobScheduler {
  /**
   * One op's units (or a library's library-wide checks, when {@code op} is null), at {@code position}
   * in the unsharded plan.
   */
  record Job(int position, RunPlan.Target target, OpSpec op) {
    /** What the results file and the listener call a job: its op, or its library's file name. */
    String name() {
      return op == null ? target.library().path().getFileName().toString() : op.op();
    }
  }

  private final Runner runner;
  private final List<Job> jobs;
  private final List<Path> specs;
  private final Interruption stop;
  private final ResultCache cache;
  private final List<String> cachedOps = Collections.synchronizedList(new ArrayList<>());

  /**
   * @param specs each target's spec file, or null for a library without one
   * @param cache the result cache, or null when the run has none
   */
  JobScheduler(Runner runner, List<Job> jobs, List<Path> specs, Interruption stop, ResultCache cache) {
    this.runner = runner;
    this.jobs = jobs;
    this.specs = specs;
    this.stop = stop;
    this.cache = cache;
  }

  /**
   * Every library's library-wide checks, then its ops; a shard keeps its part of the ops, and no entry
   * of {@code refused} (whose reference is an input error) gets a job.
   */
  static List<Job> jobs(RunPlan plan, Shard shard, Set<OpSpec> refused) {
    return jobs(plan, packing(plan, shard), refused);
  }

  /** Which shard checks which op of {@code plan}: by the shard's timings, or by index. */
  static ShardPacking packing(RunPlan plan, Shard shard) {
    return shard.pack(plan.targets().stream().map(t -> t.library().path().getFileName().toString()).toList(),
        plan.targets().stream().flatMap(t -> t.ops().stream()).map(OpSpec::op).toList());
  }

  /** The jobs of {@code shard}'s part of the plan. */
  static List<Job> jobs(RunPlan plan, ShardPacking shard, Set<OpSpec> refused) {
    List<Job> out = new ArrayList<>();
    int position = 0;
    int opIndex = 0;
    for (RunPlan.Target t : plan.targets()) {
      if (shard.index() == 1) {
        out.add(new Job(position, t, null));
      }
      position++;
      for (OpSpec op : t.ops()) {
        if (shard.owns(opIndex++) && !refused.contains(op)) {
          out.add(new Job(position, t, op));
        }
        position++;
      }
    }
    return out;
  }

  /**
   * Runs the jobs, one thread per kernels of {@code workers}, until they are done or the run is
   * stopped; the first failure of a job thread is thrown once all threads ended.
   */
  void run(List<? extends Kernels> workers, OrderedRelease ordered, ResultsFile file) {
    AtomicInteger next = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    List<RuntimeException> failures = new ArrayList<>();
    for (Kernels kernels : workers) {
      Thread t = new Thread(() -> {
        try {
          for (int i = next.getAndIncrement(); i < jobs.size() && !stop.requested(); i = next.getAndIncrement()) {
            Job job = jobs.get(i);
            // the results file as results arrive, the run's listener in plan order
            run(job, kernels, RunListener.both(file.job(job.position()), ordered.job(job.position())));
            ordered.finish(job.position());
          }
        } catch (Interruption.Stopped e) {
          // the run was interrupted: the job's results so far stay, the rest of it is not run
        } catch (RuntimeException e) {
          synchronized (failures) {
            failures.add(e);
          }
        }
      }, "opcheck4j-job-" + threads.size());
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
    }
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
  }

  private void run(Job job, Kernels kernels, RunListener sink) {
    Path spec = specs.get(job.target().index());
    RunListener.OpEvent op = new RunListener.OpEvent(job.name(), job.target().library().path().toString(),
        spec == null ? null : spec.toString(), Instant.now());
    sink.opStarted(op);
    String key = cache == null ? null : cache.key(job.target().index(), job.op());
    Optional<List<CheckResult>> replay = key == null ? Optional.empty()
        : cache.results(key, runner.units(job.target(), job.op()))
            // a --repro script needs its example saved by a worker, which a replay has not: an op with a failure
            // runs again when the run writes scripts (the key says its results will be the same), so that every
            // failure gets its script; the cache holds no tensors
            .filter(results -> !runner.writesScripts()
                || results.stream().noneMatch(r -> r.outcome() == Outcome.FAILED));
    if (replay.isPresent()) {
      replay.get().forEach(sink::result);
      cachedOps.add(job.name());
    } else {
      List<CheckResult> produced = new ArrayList<>();
      int inputErrors = runner.inputErrors().size();
      RunListener run = key == null ? sink : RunListener.both(sink, new RunListener() {
        @Override
        public void result(CheckResult result) {
          produced.add(result);
        }
      });
      if (job.op() == null) {
        runner.runLibraryChecks(job.target(), kernels, run);
      } else {
        runner.runOp(job.target(), job.op(), kernels, run);
      }
      // an op with input errors is not stored: a replay would lose them (and the exit code they give);
      // another job's error in the same moment only costs this op its entry
      if (key != null && !stop.requested() && runner.inputErrors().size() == inputErrors) {
        cache.store(key, produced);
      }
    }
    sink.opFinished(new RunListener.OpEvent(op.op(), op.library(), op.spec(), Instant.now()));
  }

  /** The ops (and library file names) replayed from the cache so far, in plan order. */
  List<String> cachedInPlanOrder() {
    Set<String> set;
    synchronized (cachedOps) {
      set = new HashSet<>(cachedOps);
    }
    return jobs.stream().map(Job::name).filter(set::contains).toList();
  }
}
