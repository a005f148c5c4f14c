package dev.opcheck4j.run.lines;

import dev.opcheck4j.api.KernelLines;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.torch.Instrumentation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The kernels' line coverage of one run, per op of a library built with gcov's coverage: the op's worker writes
 * its counts (each dump from the worker's start) as the op starts, after its examples and after its generated
 * inputs, and each phase's lines are the difference between two dumps of the same worker ({@link GcovCounts}).
 * A worker writes its counts before it is stopped for the next op too: a dump is a unit like any other, so a
 * worker that is replaced after a death loses only the counts of the unit that killed it and those after its
 * last dump. Ops of one run are done on several job threads at once, each on its own worker.
 */
public final class KernelCoverage {
  private Path dir;
  private final AtomicLong dumps = new AtomicLong();
  /** Each worker's last dump, by process id. */
  private final Map<Long, GcovCounts> last = new ConcurrentHashMap<>();
  private final Map<Path, Boolean> gcov = new ConcurrentHashMap<>();
  private final List<KernelLines> done = java.util.Collections.synchronizedList(new ArrayList<>());

  /** Where the dumps go: a directory of their own, made for the first, each dump deleted once read. */
  private synchronized Path dir() {
    if (dir == null) {
      try {
        dir = Files.createTempDirectory("opcheck4j-gcov");
        dir.toFile().deleteOnExit();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return dir;
  }

  /** The line coverage of each op checked so far, by op. */
  public List<KernelLines> lines() {
    synchronized (done) {
      return done.stream().sorted(Comparator.comparing(KernelLines::op)).toList();
    }
  }

  /** The line coverage of {@code op} of {@code library}, run on {@code kernels}: an op not built with coverage has none. */
  public Op start(String op, Path library, Kernels kernels, Duration deadline) {
    if (!gcov.computeIfAbsent(library, l -> Instrumentation.of(l).gcov())) {
      return Op.NONE;
    }
    Op o = new Op(this, op, library.getFileName().toString(), kernels, deadline);
    // where the op starts: what ran before (loading, the library's checks, another op) is not its
    o.started = o.dump().note();
    return o;
  }

  /** One dump of the worker that {@code kernels} runs on: the counts since that worker's previous dump. */
  private Interval dump(Kernels kernels, Duration deadline) {
    Path into = dir().resolve("dump-" + dumps.incrementAndGet());
    Kernels.Exchange x = kernels.run(null, new dev.opcheck4j.run.link.DumpCoverage(into), deadline);
    try {
      if (x.death().isPresent()) {
        return new Interval(GcovCounts.NONE, "the worker died writing its counts");
      }
      Answers.CoverageDumped d = x.single(Answers.CoverageDumped.class);
      if (d.error() != null && d.worker() < 0) {
        return new Interval(GcovCounts.NONE, d.error());
      }
      GcovCounts now = GcovCounts.read(into);
      GcovCounts before = last.put(d.worker(), now);
      return new Interval(before == null ? now : now.since(before), d.error() != null ? d.error()
          : before == null ? NEW_WORKER : null);
    } catch (IOException e) {
      return new Interval(GcovCounts.NONE, e.getMessage());
    } finally {
      delete(into);
    }
  }

  private static void delete(Path p) {
    try (var walk = Files.walk(p)) {
      walk.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary dump left behind
    }
  }

  private static final String NEW_WORKER = "counted since a new worker started (the one before died)";

  /** The counts of one phase, and what they leave out (null: nothing). */
  record Interval(GcovCounts counts, String note) {}

  /** One op's coverage, phase by phase. */
  public static final class Op {
    static final Op NONE = new Op(null, null, null, null, null);
    private final KernelCoverage run;
    private final String op;
    private final String library;
    private final Kernels kernels;
    private final Duration deadline;
    private Interval examples;
    /** What the dump at the op's start could not read, or null. */
    private String started;

    private Op(KernelCoverage run, String op, String library, Kernels kernels, Duration deadline) {
      this.run = run;
      this.op = op;
      this.library = library;
      this.kernels = kernels;
      this.deadline = deadline;
    }

    private Interval dump() {
      return run.dump(kernels, deadline);
    }

    /** The op's examples have run. */
    public void examplesDone() {
      if (run != null) {
        examples = dump();
      }
    }

    /** Its generated inputs have run: its line coverage, kept for the run's report; null for an op without. */
    public KernelLines finish() {
      if (run == null) {
        return null;
      }
      Interval generated = dump();
      String note = started != null && !started.startsWith(NEW_WORKER) ? "start: " + started
          : examples.note() != null ? "examples: " + examples.note()
          : generated.note() != null ? "generated inputs: " + generated.note() : null;
      KernelLines k = OpLines.of(op, library, examples.counts(), generated.counts(), note);
      run.done.add(k);
      return k;
    }
  }
}
