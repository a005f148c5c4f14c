package dev.opcheck4j.run;

import dev.opcheck4j.run.worker.Wire;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunReport;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.BuiltinChecks;
import dev.opcheck4j.checks.CheckCatalog;
import dev.opcheck4j.checks.Check;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code DIR/opcheck-results.jsonl}: one line per result, appended and flushed as each arrives, so a
 * run killed at any point leaves every result gathered so far. Lines carry the result's place in the
 * unsharded plan ({@code job}, {@code seq}), so the files of several shards merge into the report
 * the unsharded run writes, in the same order. It listens to each job ({@link #job}) as its events
 * arrive, not in the plan's order, and writes the end of the run at {@link #runFinished}.
 */
public final class ResultsFile implements RunListener, AutoCloseable {
  public static final String NAME = "opcheck-results.jsonl";

  /**
   * One line: a header (torch, presets, startedAt, the ids of the checks run), a result (job, seq,
   * result), an input error, or the end of the run (durationMs).
   */
  public record Line(String torch, String presets, String startedAt, List<String> checks, Integer job, Integer seq,
      CheckResult result, String inputError, Long durationMs) {}

  private final BufferedWriter out;

  private ResultsFile(BufferedWriter out) {
    this.out = out;
  }

  /** Creates (or truncates) the file in {@code dir} and writes its header. */
  public static ResultsFile create(Path dir, String torch, String presets, Instant startedAt, List<String> checks) {
    try {
      Files.createDirectories(dir);
      ResultsFile f = new ResultsFile(Files.newBufferedWriter(dir.resolve(NAME), StandardCharsets.UTF_8));
      f.write(new Line(torch, presets, startedAt.toString(), checks, null, null, null, null, null));
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The listener of the job at {@code position} in the unsharded plan: its results, numbered in arrival order. */
  public RunListener job(int position) {
    AtomicInteger seq = new AtomicInteger();
    return new RunListener() {
      @Override
      public void result(CheckResult r) {
        write(new Line(null, null, null, null, position, seq.getAndIncrement(), r, null, null));
      }
    };
  }

  /** The input errors and the run's duration. */
  @Override
  public void runFinished(RunInfo run, RunEnd end) {
    end.inputErrors().forEach(text -> write(new Line(null, null, null, null, null, null, null, text, null)));
    write(new Line(null, null, null, null, null, null, null, null, run.durationMs()));
  }

  private synchronized void write(Line line) {
    try {
      out.write(Wire.write(line));
      out.write('\n');
      out.flush();
    } catch (IOException e) {
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
   * plan, input errors of all, the longest duration.
   */
  public static RunOutcome merge(List<Path> dirs) throws IOException {
    record Placed(int job, int seq, CheckResult result) {}
    List<Placed> placed = new ArrayList<>();
    List<String> inputErrors = new ArrayList<>();
    String torch = "unknown";
    String presets = "unknown";
    Instant started = null;
    long duration = 0;
    java.util.Set<String> checkIds = new java.util.LinkedHashSet<>();
    for (Path dir : dirs) {
      Path file = dir.resolve(NAME);
      if (!Files.isRegularFile(file)) {
        throw new IOException("no " + NAME + " in " + dir + " (not the --report-dir of a run)");
      }
      for (String text : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (text.isBlank()) {
          continue;
        }
        Line l;
        try {
          l = Wire.read(text, Line.class);
        } catch (RuntimeException e) {
          continue; // the last line of a killed run may be cut short
        }
        if (l.torch() != null) {
          torch = l.torch();
          presets = l.presets();
          if (l.checks() != null) {
            checkIds.addAll(l.checks());
          }
          Instant s = Instant.parse(l.startedAt());
          started = started == null || s.isBefore(started) ? s : started;
        } else if (l.result() != null) {
          placed.add(new Placed(l.job(), l.seq(), l.result()));
        } else if (l.inputError() != null) {
          inputErrors.add(l.inputError());
        } else if (l.durationMs() != null) {
          duration = Math.max(duration, l.durationMs());
        }
      }
    }
    placed.sort(Comparator.comparingInt(Placed::job).thenComparingInt(Placed::seq));
    List<CheckResult> results = placed.stream().map(Placed::result).toList();
    List<String> ops = results.stream().map(CheckResult::op).distinct().toList();
    // the shards' files keep versions, checks and times; the rest of the run block is the unsharded run's to say
    List<String> checksRun = BuiltinChecks.all().stream().map(Check::id).filter(checkIds::contains).toList();
    RunInfo run = new RunInfo(Versions.current().tool(), torch, presets, null, null, 1, List.of(), checksRun, List.of(),
        started == null ? Instant.EPOCH : started, duration, null, null);
    return new RunOutcome(new RunReport(run, CheckCatalog.builtin(), results), inputErrors.stream().sorted().toList(),
        ops, List.of());
  }
}
