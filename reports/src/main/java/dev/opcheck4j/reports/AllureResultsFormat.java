package dev.opcheck4j.reports;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ReportFormat;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunReport;
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
 * and JSON (each file over a re-run's file of the same name), plus {@code categories.json} (a category
 * per check family, crashes and timeouts apart, warnings, harness errors) and {@code
 * environment.properties} (the run block). {@code ./opcheck report allure DIR} turns them into
 * Allure's HTML report.
 */
public final class AllureResultsFormat implements ReportFormat {
  public static final String DIR = "allure-results";

  @Override
  public String name() {
    return "allure";
  }

  /** Deletes the result files in {@code allure-results}; files the user keeps there (categories, history) stay. */
  /** A file per result, most of a large run's report bytes: written only when asked (docs/report.md#allure). */
  @Override
  public boolean byDefault() {
    return false;
  }

  @Override
  public void discard(Path dir) throws IOException {
    Path results = dir.resolve(DIR);
    deleteResultFiles(results);
    Files.deleteIfExists(results.resolve("categories.json"));
    Files.deleteIfExists(results.resolve("environment.properties"));
    if (Files.isDirectory(results)) {
      try (var left = Files.list(results)) {
        if (left.findAny().isEmpty()) {
          Files.delete(results);
        }
      }
    }
  }

  private static void deleteResultFiles(Path results) throws IOException {
    for (Path p : resultFiles(results)) {
      Files.deleteIfExists(p);
    }
  }

  @Override
  public Path write(RunReport report, Path dir) throws IOException {
    Path results = dir.resolve(DIR);
    Files.createDirectories(results);
    Stream heard = streaming;
    streaming = null;
    int done = heard == null ? -1 : heard.finish(report, results);
    // results of an earlier run in the same folder would be mixed into this one: those this run does
    // not write over go once it has written its own
    Set<Path> earlier = done < 0 ? resultFiles(results) : heard.earlier;
    Set<Path> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
    if (done < 0) {
      done = 0;
    } else {
      written.addAll(heard.written);
    }
    String run = runIdentity(report.run());
    List<CheckResult> all = report.results();
    long[] starts = starts(report.startedAt(), all);
    // one small file per result (Allure's model): serializing them is most of a large run's report
    // time, so the cores share it
    try {
      java.util.stream.IntStream.range(done, all.size()).parallel().forEach(i -> written.add(writeResult(results,
          testResult(run, report.checks(), all.get(i), i, starts[i], starts[i + 1]))));
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    for (Path p : earlier) {
      if (!written.contains(p)) {
        Files.deleteIfExists(p);
      }
    }
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

  /** The result files in {@code results}, if it exists. */
  private static Set<Path> resultFiles(Path results) throws IOException {
    Set<Path> files = new java.util.HashSet<>();
    if (Files.isDirectory(results)) {
      try (var all = Files.list(results)) {
        all.filter(p -> p.getFileName().toString().endsWith("-result.json")).forEach(files::add);
      }
    }
    return files;
  }

  /**
   * What makes a run's results what they are (versions, seed, tries, devices, checks, inputs and
   * their hashes), not when it ran: the name of each result's file is made from it and the result's
   * place, so that a re-run of the same inputs into the same folder writes over the same files.
   */
  static String runIdentity(RunInfo run) {
    StringBuilder b = new StringBuilder().append(run.toolVersion()).append('|').append(run.torchVersion())
        .append('|').append(run.seed()).append('|').append(run.tries()).append('|').append(run.checksRun());
    for (RunInfo.DeviceInfo d : run.devices()) {
      b.append('|').append(d.name()).append(d.runs());
    }
    for (RunInfo.Input in : run.inputs()) {
      b.append('|').append(in.spec()).append('|').append(in.library()).append('|').append(in.sha256());
    }
    return b.toString();
  }

  /**
   * Writes {@code t} into its file over what is there, truncated only past its end. Writing a file
   * anew (delete or truncate, then allocate) cost 1 to 3 s for a 12,000-result run on the disk
   * measured; writing over the blocks of a re-run's file of the same name, 0.1 s.
   */
  static Path writeResult(Path results, TestResult t) {
    Path file = results.resolve(t.getUuid() + "-result.json");
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
        java.nio.file.StandardOpenOption.WRITE, java.nio.file.StandardOpenOption.CREATE)) {
      java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(AllureJson.MAPPER.writeValueAsBytes(t));
      int length = bytes.remaining();
      while (bytes.hasRemaining()) {
        ch.write(bytes);
      }
      if (ch.size() > length) {
        ch.truncate(length);
      }
      return file;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
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
    final Set<Path> written = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Set<Path> earlier = Set.of();
    private volatile Throwable failed;
    private java.time.Instant startedAt;
    private String run;
    private long next;

    Stream(Path results, List<CheckInfo> checks, UnaryOperator<CheckResult> asReported) {
      this.results = results;
      this.checks = List.copyOf(checks);
      this.asReported = asReported;
    }

    @Override
    public synchronized void runStarted(RunInfo info) {
      startedAt = info.startedAt();
      run = runIdentity(info);
      next = startedAt.toEpochMilli();
      try {
        Files.createDirectories(results);
        earlier = resultFiles(results);
      } catch (IOException | RuntimeException e) {
        failed = e;
      }
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
      String identity = run;
      threads.submit(() -> {
        try {
          written.add(writeResult(results, testResult(identity, checks, r, index, start, stop)));
        } catch (Throwable t) {
          failed = t;
        }
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
          && runIdentity(report.run()).equals(run)
          && heard.size() <= all.size() && all.subList(0, heard.size()).equals(heard);
      return same ? heard.size() : -1;
    }

    /**
     * Waits for the files being written and deletes every result file: some of an earlier run's were
     * written over, so what is left of it would not be whole either.
     */
    @Override
    public synchronized void abandon() {
      drain();
      try {
        deleteResultFiles(results);
      } catch (IOException e) {
        // a file that cannot be deleted stays as it was
      }
    }
  }

  static TestResult testResult(String run, List<CheckInfo> checks, CheckResult r, int index, long start, long stop) {
    String subject = Outcomes.subject(r);
    String identity = subject + "|" + r.check() + "|" + r.device() + "|" + r.example();
    TestResult t = new TestResult()
        .setUuid(UUID.nameUUIDFromBytes((run + "#" + index).getBytes(StandardCharsets.UTF_8)).toString())
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
      case PASSED, WARNING, NOTE, EXPECTED_FAILURE -> Status.PASSED; // the run passes, as the engine's test does
      case FAILED, UNEXPECTED_PASS -> Status.FAILED;
      case SKIPPED -> Status.SKIPPED;
      case ERRORED -> Status.BROKEN;
    };
  }

  /** Allure categories: crashes and timeouts first, then one per check family, warnings, notes, harness errors. */
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
      category(g, "Unexpected passes (remove their expected-failures entries)", "(?s)UNEXPECTED PASS \\[.*", "failed");
      for (String f : families) {
        category(g, f + " findings", "(?s)FAILED \\[" + Pattern.quote(f) + "(\\.[^\\]]*)?\\].*", "failed");
      }
      category(g, "Warnings (stricter than PyTorch's contracts)", "(?s)WARNING \\[.*", "passed");
      category(g, "Notes (stricter than PyTorch, harmless in today's PyTorch; --strict makes them warnings)",
          "(?s)NOTE \\[.*", "passed");
      category(g, "Expected failures (listed, with their reasons)", "(?s)EXPECTED FAILURE \\[.*", "passed");
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
