package dev.opcheck4j.reports;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
import io.qameta.allure.FileSystemResultsWriter;
import io.qameta.allure.model.Stage;
import io.qameta.allure.model.Status;
import io.qameta.allure.model.TestResult;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * {@code allure-results/}: one Allure test result per opcheck result, written with Allure's own model
 * and {@link FileSystemResultsWriter}, plus {@code categories.json} (a category per check family,
 * crashes and timeouts apart, warnings, harness errors) and {@code environment.properties} (the run
 * block). {@code ./opcheck report allure DIR} turns them into Allure's HTML report.
 */
public final class AllureResultsFormat implements ReportFormat {
  public static final String DIR = "allure-results";

  @Override
  public String name() {
    return "allure";
  }

  /** Deletes the result files in {@code allure-results}; files the user keeps there (categories, history) stay. */
  @Override
  public void discard(Path dir) throws IOException {
    Path results = dir.resolve(DIR);
    if (!Files.isDirectory(results)) {
      return;
    }
    try (var old = Files.list(results)) {
      for (Path p : old.toList()) {
        if (p.getFileName().toString().endsWith("-result.json")) {
          Files.delete(p);
        }
      }
    }
  }

  @Override
  public Path write(RunReport report, Path dir) throws IOException {
    Path results = dir.resolve(DIR);
    Files.createDirectories(results);
    Stream heard = streaming;
    streaming = null;
    int done = heard == null ? -1 : heard.finish(report, results);
    if (done < 0) {
      discard(dir); // results of an earlier run in the same folder would be mixed into this one
      done = 0;
    }
    FileSystemResultsWriter writer = new FileSystemResultsWriter(results);
    List<CheckResult> all = report.results();
    long[] starts = starts(report.startedAt(), all);
    // one small file per result (Allure's model): serializing them is most of a large run's report
    // time, and the writer is safe to share, so the cores share it
    java.util.stream.IntStream.range(done, all.size()).parallel().forEach(i -> writer.write(
        testResult(report.startedAt(), report.checks(), all.get(i), i, starts[i], starts[i + 1])));
    writeCategories(report, results.resolve("categories.json"));
    writeEnvironment(report.run(), results.resolve("environment.properties"));
    return results;
  }

  /** Result {@code i}'s start is the run's start plus the durations of the results before it; its stop, the next one's start. */
  private static long[] starts(java.time.Instant startedAt, List<CheckResult> all) {
    long[] starts = new long[all.size() + 1];
    starts[0] = startedAt.toEpochMilli();
    for (int i = 0; i < all.size(); i++) {
      starts[i + 1] = starts[i] + Math.max(0, all.get(i).durationMicros() / 1000);
    }
    return starts;
  }

  private Stream streaming;

  /**
   * Writes each result's file as it arrives, on threads of its own (the run does not wait for the
   * disk). A run's 12,000 files took 1.5 s after its end; written while it runs, they cost its end
   * nothing. {@link #write} writes the rest, or all of them when the stream did not hear the report's run.
   */
  @Override
  public Streaming stream(Path dir, List<CheckInfo> checks, UnaryOperator<CheckResult> asReported) {
    streaming = new Stream(dir.resolve(DIR), checks, asReported);
    return streaming;
  }

  /** The files of one run's results, written as they arrive. */
  private static final class Stream implements Streaming {
    private final Path results;
    private final List<CheckInfo> checks;
    private final UnaryOperator<CheckResult> asReported;
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "opcheck4j-allure");
      t.setDaemon(true);
      return t;
    });
    private final List<CheckResult> heard = new ArrayList<>();
    private final java.util.Set<Path> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile Throwable failed;
    private FileSystemResultsWriter writer;
    private java.time.Instant startedAt;
    private long next;

    Stream(Path results, List<CheckInfo> checks, UnaryOperator<CheckResult> asReported) {
      this.results = results;
      this.checks = List.copyOf(checks);
      this.asReported = asReported;
    }

    @Override
    public synchronized void runStarted(RunInfo run) {
      startedAt = run.startedAt();
      next = startedAt.toEpochMilli();
      try {
        Files.createDirectories(results);
        // an earlier run's results would be mixed into this one: the files there now go, on these threads
        try (var old = Files.list(results)) {
          for (Path p : old.toList()) {
            if (p.getFileName().toString().endsWith("-result.json")) {
              submit(() -> Files.deleteIfExists(p));
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        failed = e;
      }
      writer = new FileSystemResultsWriter(results);
    }

    @Override
    public synchronized void result(CheckResult result) {
      if (startedAt == null || failed != null) {
        return;
      }
      CheckResult r = asReported.apply(result);
      int index = heard.size();
      heard.add(r);
      long start = next;
      next += Math.max(0, r.durationMicros() / 1000);
      long stop = next;
      java.time.Instant run = startedAt;
      submit(() -> {
        TestResult t = testResult(run, checks, r, index, start, stop);
        written.add(results.resolve(t.getUuid() + "-result.json"));
        writer.write(t);
        return null;
      });
    }

    private void submit(java.util.concurrent.Callable<?> task) {
      threads.submit(() -> {
        try {
          task.call();
        } catch (Throwable t) {
          failed = t;
        }
        return null;
      });
    }

    /** Waits for the files being written. */
    private void drain() {
      threads.shutdown();
      try {
        while (!threads.awaitTermination(1, java.util.concurrent.TimeUnit.SECONDS)) {
          // writing; a disk this slow is still finite
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        threads.shutdownNow();
      }
    }

    /**
     * Waits for the files being written and returns how many of {@code report}'s results have theirs:
     * the stream heard them, in this order, from the same run. -1 when it heard another run, or a
     * write failed (then every file is written again).
     */
    synchronized int finish(RunReport report, Path dir) {
      drain();
      List<CheckResult> all = report.results();
      boolean same = failed == null && dir.equals(results) && report.startedAt().equals(startedAt)
          && heard.size() <= all.size() && all.subList(0, heard.size()).equals(heard);
      return same ? heard.size() : -1;
    }

    @Override
    public synchronized void abandon() {
      drain();
      for (Path p : written) {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // a file that cannot be deleted stays as it was
        }
      }
    }
  }

  static TestResult testResult(java.time.Instant startedAt, List<CheckInfo> checks, CheckResult r, int index,
      long start, long stop) {
    String subject = Outcomes.subject(r);
    String identity = subject + "|" + r.check() + "|" + r.device() + "|" + r.example();
    TestResult t = new TestResult()
        .setUuid(UUID.nameUUIDFromBytes((startedAt + "#" + index).getBytes(StandardCharsets.UTF_8)).toString())
        .setHistoryId(UUID.nameUUIDFromBytes(identity.getBytes(StandardCharsets.UTF_8)).toString())
        .setTestCaseId(UUID.nameUUIDFromBytes((r.check() + "|" + subject).getBytes(StandardCharsets.UTF_8)).toString())
        .setStage(Stage.FINISHED)
        .setStart(start)
        .setStop(stop)
        .setStatus(status(r));
    AllureTestCase.describe(t, r, checks.stream().filter(c -> c.id().equals(r.check())).findFirst().orElse(null),
        null);
    t.setStatusDetails(AllureTestCase.details(r));
    return t;
  }

  private static Status status(CheckResult r) {
    return switch (r.outcome()) {
      case PASSED, WARNING -> Status.PASSED;
      case FAILED -> Status.FAILED;
      case SKIPPED -> Status.SKIPPED;
      case ERRORED -> Status.BROKEN;
    };
  }

  /** Allure categories: crashes and timeouts first, then one per check family, warnings, harness errors. */
  static void writeCategories(RunReport report, Path file) throws IOException {
    Set<String> families = new LinkedHashSet<>();
    for (CheckInfo c : report.checks()) {
      families.add(c.family());
    }
    for (CheckResult r : report.results()) {
      families.add(r.family());
    }
    try (OutputStream out = Files.newOutputStream(file);
        JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.useDefaultPrettyPrinter();
      g.writeStartArray();
      category(g, "Kernel crashes", "(?s)CRASHED \\(crash\\).*", "failed");
      category(g, "Kernel timeouts", "(?s)CRASHED \\(timeout\\).*", "failed");
      for (String f : families) {
        category(g, f + " findings", "(?s)FAILED \\[" + Pattern.quote(f) + "(\\.[^\\]]*)?\\].*", "failed");
      }
      category(g, "Warnings (stricter than PyTorch's contracts)", "(?s)WARNING \\[.*", "passed");
      category(g, "Harness errors (opcheck4j bugs, not findings)", "(?s).*", "broken");
      category(g, "Skipped, with a reason", "(?s).*", "skipped");
      g.writeEndArray();
    }
  }

  private static void category(JsonGenerator g, String name, String messageRegex, String status) throws IOException {
    g.writeStartObject();
    g.writeStringField("name", name);
    g.writeStringField("messageRegex", messageRegex);
    g.writeArrayFieldStart("matchedStatuses");
    g.writeString(status);
    g.writeEndArray();
    g.writeEndObject();
  }

  /** The run block as Allure's environment widget shows it: sorted keys, one value each. */
  static void writeEnvironment(RunInfo run, Path file) throws IOException {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"opcheck4j", String.valueOf(run.toolVersion())});
    rows.add(new String[] {"libtorch", String.valueOf(run.torchVersion())});
    rows.add(new String[] {"JavaCPP presets", String.valueOf(run.presetsVersion())});
    rows.add(new String[] {"seed", String.valueOf(run.seed())});
    rows.add(new String[] {"tries", String.valueOf(run.tries())});
    rows.add(new String[] {"jobs", String.valueOf(run.jobs())});
    List<String> devices = new ArrayList<>();
    for (RunInfo.DeviceInfo d : run.devices()) {
      devices.add(d.runs() ? d.name() : d.name() + " (skipped: " + d.skipReason() + ")");
    }
    rows.add(new String[] {"devices", String.join(", ", devices)});
    rows.add(new String[] {"checks run", String.valueOf(run.checksRun().size())});
    for (int i = 0; i < run.inputs().size(); i++) {
      RunInfo.Input in = run.inputs().get(i);
      String key = run.inputs().size() == 1 ? "" : " " + (i + 1);
      if (in.spec() != null) {
        rows.add(new String[] {"spec" + key, in.spec()});
      }
      rows.add(new String[] {"library" + key, in.library()});
      rows.add(new String[] {"library sha256" + key, String.valueOf(in.sha256())});
    }
    rows.add(new String[] {"started", run.startedAt().toString()});
    rows.add(new String[] {"duration ms", String.valueOf(run.durationMs())});
    if (run.commandLine() != null) {
      rows.add(new String[] {"command line", run.commandLine()});
    }
    if (run.completion().mark() != null) {
      rows.add(new String[] {"completion", run.completion().mark()});
    }
    if (run.configuration() != null) {
      new java.util.TreeMap<>(run.configuration()).forEach((k, v) -> rows.add(new String[] {"junit " + k, v}));
    }
    // java.util.Properties escapes, but writes a date comment and hash order; this keeps the file stable
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.ISO_8859_1)) {
      for (String[] row : rows) {
        w.write(escape(row[0], true) + "=" + escape(row[1], false) + "\n");
      }
    }
  }

  /** Properties-file escaping (ISO 8859-1 with backslash-u escapes), as {@link java.util.Properties#store} does. */
  private static String escape(String s, boolean key) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '=', ':', '#', '!' -> sb.append('\\').append(c);
        case ' ' -> sb.append(key || i == 0 ? "\\ " : " ");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.toString();
  }
}
