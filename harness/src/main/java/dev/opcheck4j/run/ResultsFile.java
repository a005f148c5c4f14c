package dev.opcheck4j.run;

import dev.opcheck4j.run.plan.Versions;
import dev.opcheck4j.run.link.Wire;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.builtin.CheckCatalog;
import dev.opcheck4j.checks.Check;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code DIR/opcheck-results.jsonl}: one line per result, written as each arrives with one write per
 * line, so a run killed at any point leaves whole lines and every op it finished; synced to the disk
 * as an op finishes at most once a second, and at the end. Lines carry the result's place in the unsharded plan ({@code job}, {@code seq}),
 * so the files of several shards merge into the report the unsharded run writes, in the same order. A
 * run that checked all it was to ends the file with an {@link Line.End} line; a file without one is
 * the file of a run that did not finish, and {@link #merge} says which of its ops are missing.
 */
public final class ResultsFile implements RunListener, AutoCloseable {
  public static final String NAME = "opcheck-results.jsonl";

  /** One line of the file, of one kind each. */
  public sealed interface Line {
    /**
     * The first line.
     *
     * @param checks the ids of the checks run
     * @param ops the ops (a library's name for its library-wide checks) this run is to check, in plan order
     * @param tries generated inputs per op and device (coverage counts them), or null in files that did not say
     */
    record Header(String torch, String presets, String startedAt, List<String> checks, List<String> ops, Integer tries)
        implements Line {}

    /** A result, at {@code seq} in the job at {@code job} in the unsharded plan. */
    record Result(int job, int seq, CheckResult result) implements Line {}

    /** Every result of {@code op} (the job at {@code job}) is in the lines before. */
    record OpDone(int job, String op) implements Line {}

    /** A problem with the input found while running. */
    record InputError(String text) implements Line {}

    /**
     * The last line of a run that checked all it was to.
     *
     * @param outcomes the count of results per outcome label
     * @param exitStatus the exit status the run's results call for ({@link RunOutcome#exitStatus})
     */
    record End(long durationMs, int results, Map<String, Integer> outcomes, int inputErrors, int exitStatus)
        implements Line {}
  }

  /** The report dir's disk is full; the file holds the whole lines written before. */
  public static final class NoSpace extends RuntimeException {
    NoSpace(int results, Path file) {
      super("report dir: no space left on device after " + results + (results == 1 ? " result" : " results")
          + "; the results so far are in " + file + " (complete lines)");
    }
  }

  private final Path path;
  private final FileChannel out;
  private final Map<Outcome, Integer> counts = new java.util.EnumMap<>(Outcome.class);
  private int results;
  private NoSpace full;

  private ResultsFile(Path path, FileChannel out) {
    this.path = path;
    this.out = out;
  }

  /**
   * Creates (or truncates) the file in {@code dir} and writes its header.
   *
   * @param ops the ops (or library names) the run is to check, in plan order
   * @throws NoSpace when not even the header fits on the disk
   */
  public static ResultsFile create(Path dir, String torch, String presets, Instant startedAt, List<String> checks,
      List<String> ops, int tries) {
    try {
      Files.createDirectories(dir);
      Path path = dir.resolve(NAME);
      ResultsFile f = new ResultsFile(path, FileChannel.open(path, StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE));
      f.write(new Line.Header(torch, presets, startedAt.toString(), checks, ops, tries));
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The listener of the job at {@code position} in the unsharded plan: its results, numbered in arrival order. */
  public RunListener job(int position) {
    return new Rows(position);
  }

  /** One job's lines: a row per result as it arrives, numbered in arrival order, and the op's end. */
  private final class Rows implements RunListener {
    private final int position;
    private final AtomicInteger seq = new AtomicInteger();

    Rows(int position) {
      this.position = position;
    }

    @Override
    public void result(CheckResult r) {
      write(new Line.Result(position, seq.getAndIncrement(), r));
      synchronized (ResultsFile.this) {
        results++;
        counts.merge(r.outcome(), 1, Integer::sum);
      }
    }

    @Override
    public void opFinished(OpEvent op) {
      write(new Line.OpDone(position, op.op()));
      syncSoon();
    }
  }

  /** The input errors and, when the run checked all it was to, the end line. */
  @Override
  public synchronized void runFinished(RunInfo run, RunEnd end) {
    if (full != null) {
      return;
    }
    end.inputErrors().forEach(text -> write(new Line.InputError(text)));
    if (end.completed()) {
      Map<String, Integer> outcomes = new LinkedHashMap<>();
      counts.forEach((o, n) -> outcomes.put(o.label(), n));
      write(new Line.End(run.durationMs(), results, outcomes, end.inputErrors().size(),
          RunOutcome.exitStatus(counts.getOrDefault(Outcome.ERRORED, 0), end.inputErrors().size(),
              counts.getOrDefault(Outcome.FAILED, 0))));
    }
    sync();
  }

  /**
   * Appends one line with one write; on a full disk the file is cut back to its whole lines and every
   * later write throws {@link NoSpace} too.
   */
  private synchronized void write(Line line) {
    if (full != null) {
      throw full;
    }
    ByteBuffer bytes = ByteBuffer.wrap((Wire.write(line) + "\n").getBytes(StandardCharsets.UTF_8));
    long before = -1;
    try {
      before = out.position();
      while (bytes.hasRemaining()) {
        out.write(bytes);
      }
    } catch (IOException e) {
      if (!noSpace(e)) {
        throw new UncheckedIOException(e);
      }
      try {
        if (before >= 0) {
          out.truncate(before);
          out.position(before);
        }
      } catch (IOException ignored) {
        // truncating frees space, so it does not fail for want of it
      }
      full = new NoSpace(results, path);
      throw full;
    }
  }

  private static boolean noSpace(IOException e) {
    return e.getMessage() != null && e.getMessage().contains("No space left on device");
  }

  /**
   * Syncs when the last sync is {@link #SYNC_EVERY_NANOS} old. Each line is written at once, so a
   * killed run loses none (the system still has them); only a crash of the system itself can lose
   * the lines of the last second, and a run of many quick ops (a cached re-run) does not wait for
   * the disk once per op.
   */
  private synchronized void syncSoon() {
    if (System.nanoTime() - synced >= SYNC_EVERY_NANOS) {
      sync();
    }
  }

  private static final long SYNC_EVERY_NANOS = 1_000_000_000L;
  private long synced = System.nanoTime();

  private synchronized void sync() {
    synced = System.nanoTime();
    if (full != null) {
      return;
    }
    try {
      out.force(false);
    } catch (IOException e) {
      if (noSpace(e)) {
        full = new NoSpace(results, path);
        throw full;
      }
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      out.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The files of several runs (the shards of one) as one: results in the order of the unsharded
   * plan, input errors of all, the longest duration. A file without an end line makes the report
   * incomplete: its run block's {@link RunInfo.Completion} names the dir and the ops it did not finish.
   *
   * @throws IOException naming the file and line of a line that is not one of a results file
   */
  public static RunOutcome merge(List<Path> dirs) throws IOException {
    record Placed(int job, int seq, CheckResult result) {}
    List<Placed> placed = new ArrayList<>();
    List<String> inputErrors = new ArrayList<>();
    List<RunInfo.Incomplete> incomplete = new ArrayList<>();
    String torch = "unknown";
    String presets = "unknown";
    Instant started = null;
    long duration = 0;
    Set<String> checkIds = new LinkedHashSet<>();
    Integer tries = null;
    for (Path dir : dirs) {
      Path file = dir.resolve(NAME);
      if (!Files.isRegularFile(file)) {
        throw new IOException("no " + NAME + " in " + dir + " (not the --report-dir of a run)");
      }
      List<String> planned = List.of();
      Set<String> done = new LinkedHashSet<>();
      boolean ended = false;
      int number = 0;
      for (String text : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        number++;
        if (text.isBlank()) {
          continue;
        }
        Line line;
        try {
          line = Wire.read(text, Line.class);
        } catch (RuntimeException e) {
          throw new IOException(file + ":" + number + ": not a line of a results file of this version ("
              + clip(String.valueOf(e.getMessage())) + ")");
        }
        if (line instanceof Line.Header h) {
          torch = h.torch();
          presets = h.presets();
          checkIds.addAll(h.checks());
          planned = h.ops();
          tries = tries == null ? h.tries() : tries;
          Instant s = Instant.parse(h.startedAt());
          started = started == null || s.isBefore(started) ? s : started;
        } else if (line instanceof Line.Result r) {
          placed.add(new Placed(r.job(), r.seq(), r.result()));
        } else if (line instanceof Line.OpDone d) {
          done.add(d.op());
        } else if (line instanceof Line.InputError e) {
          inputErrors.add(e.text());
        } else if (line instanceof Line.End e) {
          ended = true;
          duration = Math.max(duration, e.durationMs());
        }
      }
      if (!ended) {
        incomplete.add(new RunInfo.Incomplete(dir.toString(), planned.stream().filter(op -> !done.contains(op)).toList()));
      }
    }
    placed.sort(Comparator.comparingInt(Placed::job).thenComparingInt(Placed::seq));
    List<CheckResult> results = placed.stream().map(Placed::result).toList();
    List<String> ops = results.stream().map(CheckResult::op).distinct().toList();
    // the shards' files keep versions, checks and times; the rest of the run block is the unsharded run's to say
    List<String> checksRun = BuiltinChecks.all().stream().map(Check::id).filter(checkIds::contains).toList();
    RunInfo run = new RunInfo(Versions.current().tool(), torch, presets, null, tries, 1, List.of(), checksRun, List.of(),
        started == null ? Instant.EPOCH : started, duration, null, null, new RunInfo.Completion(null, incomplete));
    return new RunOutcome(new RunReport(run, CheckCatalog.builtin(), results), inputErrors.stream().sorted().toList(),
        ops, List.of());
  }

  private static String clip(String s) {
    return s.length() > 120 ? s.substring(0, 120) + "…" : s;
  }
}
