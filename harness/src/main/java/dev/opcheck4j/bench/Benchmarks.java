package dev.opcheck4j.bench;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.plan.Isolation;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.plan.RunTarget;
import dev.opcheck4j.run.worker.UnitRunner;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.TorchRuntime;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.gradcheck.JacobianCheck;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Benchmarks run by {@code ./opcheck bench}: measured, printed, never asserted in tests. Each line
 * is {@code bench <name>: <numbers>}.
 */
public final class Benchmarks {
  private final PrintStream out;
  private final Path libraries;

  public Benchmarks(PrintStream out, Path libraries) {
    this.out = out;
    this.libraries = libraries;
  }

  /**
   * Reading the largest spec files of each shape (the tests bound the reader's work in bytes allocated,
   * not in time): the median time of 5 reads after one to warm up, and the bytes one read allocates.
   * The YAML scalar is quadratic in SnakeYAML, bounded by the 256 KiB limit of YAML specs.
   */
  public void specs() throws Exception {
    Map<String, String> shapes = new java.util.LinkedHashMap<>();
    shapes.put("20,001 JSON op entries.json", "{\"library\": \"a.so\", \"ops\": [" + "{\"op\": \"t::f\"},".repeat(20_000)
        + "{\"op\": \"t::f\"}]}");
    shapes.put("a 3 MB JSON string.json", "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\", \"why\": \""
        + "w".repeat(3_000_000) + "\"}]}");
    shapes.put("5,000 YAML op entries.yaml", "library: a.so\nops:\n" + "  - op: t::f\n".repeat(5_000));
    shapes.put("a 250 KB YAML scalar.yaml", "library: " + "v".repeat(250_000) + "\nops: [{op: t::f}]\n");
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    Path dir = java.nio.file.Files.createTempDirectory("opcheck4j-bench-specs-");
    try {
      for (Map.Entry<String, String> shape : shapes.entrySet()) {
        Path file = java.nio.file.Files.writeString(dir.resolve(shape.getKey().replaceAll("[ ,]", "_")), shape.getValue());
        SpecReader.read(file); // warm-up
        long[] ns = new long[5];
        long allocated = 0;
        for (int i = 0; i < ns.length; i++) {
          long a0 = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
          long t0 = System.nanoTime();
          SpecReader.read(file);
          ns[i] = System.nanoTime() - t0;
          allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - a0;
        }
        java.util.Arrays.sort(ns);
        String name = shape.getKey().substring(0, shape.getKey().lastIndexOf('.'));
        out.printf("bench specs %s (%d bytes): %.1f ms, %.1f MB allocated%n", name, java.nio.file.Files.size(file),
            ns[ns.length / 2] / 1e6, allocated / 1e6);
      }
    } finally {
      deleteTree(dir);
    }
  }

  /** gradcheck.jacobian in fast and slow mode on good_ops::scaled_square with a 64x64 float64 input. */
  public void gradcheck() throws Exception {
    Operator op = OpLibrary.load(libraries.resolve("libgood_ops.so")).op("good_ops::scaled_square");
    Example ex = example(tensor(List.of(64L, 64L), "float64", true), number(2.0));
    JacobianCheck check = new JacobianCheck();
    for (OpSpec.Gradcheck mode : List.of(OpSpec.Gradcheck.DEFAULT, OpSpec.Gradcheck.DEFAULT.slow())) {
      OpSpec spec = new OpSpec(op.name(), List.of(), Map.of(), Optional.empty(), List.of(ex), "bench", mode, dev.opcheck4j.spec.Vary.NONE);
      Subject s = new Subject(null, op, spec, Device.CPU, ex, 1L);
      check.evaluateExample(s); // warm-up
      long t0 = System.nanoTime();
      Verdict v = check.evaluateExample(s);
      double ms = (System.nanoTime() - t0) / 1e6;
      String calls = v.facts().stream().filter(f -> f.key().equals("calls")).map(Fact::value).findFirst().orElse("?");
      out.printf("bench gradcheck %s mode, %s 64x64 float64: %s, %.1f ms, %s%n",
          mode.fast() ? "fast" : "slow", op.name(), calls, ms, v.outcome().label());
    }
  }

  /**
   * Generation throughput on my_ops::mul_add (a small elementwise op): variants generated and
   * materialized per second, and whole tries (generate, call, every generated check) per second.
   */
  /** The worker protocol's encoding per generated input, {@code Wire} against a Jackson-databind prototype. */
  public void codec(Path specs, int inputs) throws Exception {
    new CodecBench(out).run(specs, inputs);
  }

  public void generation(Path specs) throws Exception {
    SpecFile file = SpecReader.read(specs.resolve("my_ops.json"));
    OpSpec spec = file.ops().stream().filter(o -> o.op().equals("my_ops::mul_add")).findFirst().orElseThrow();
    OpLibrary lib = OpLibrary.load(file.library());
    Operator op = lib.op(spec.op());
    ExampleGenerator gen = new ExampleGenerator(op.schema(), spec.examples().get(0), spec.vary());
    int n = 2000;
    for (int warm = 0; warm < 2; warm++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        Materializer.bind(op, gen.generate(Choices.random(i)), Device.CPU, 1L);
      }
      double s = (System.nanoTime() - t0) / 1e9;
      if (warm == 1) {
        out.printf("bench generation generate+materialize, %s: %d variants in %.2f s, %.0f variants/s%n", op.name(), n, s, n / s);
      }
    }
    int tries = 500;
    RunRequest.Builder base = RunRequest.builder().spec(file.file()).ops(List.of(spec.op())).devices(List.of(Device.CPU))
        .seed(1L).jobs(1).isolation(Isolation.IN_PROCESS);
    Launcher.execute(base.tries(tries).build(), dev.opcheck4j.api.RunListener.NONE); // warm-up
    long t1 = System.nanoTime();
    Launcher.execute(base.tries(0).build(), dev.opcheck4j.api.RunListener.NONE);
    long t2 = System.nanoTime();
    Launcher.execute(base.tries(tries).build(), dev.opcheck4j.api.RunListener.NONE);
    long t3 = System.nanoTime();
    double triesSeconds = ((t3 - t2) - (t2 - t1)) / 1e9;
    out.printf("bench generation tries, %s on cpu with every generated check: %d tries in %.2f s, %.0f tries/s%n",
        op.name(), tries, triesSeconds, tries / triesSeconds);
  }

  /**
   * What the worker processes cost, each configuration measured cold in a JVM of its own (the median
   * of several runs, interleaved so that a busy moment does not favour one): the demo specs checked
   * in-process (kernels in the run's JVM with JavaCPP's defaults, as before workers existed) and
   * through one worker; in-process again with the worker's JavaCPP setting, which tells what the
   * isolation itself costs; and a library of 20+ ops through one and two workers at {@code tries}
   * and {@code largeTries}. Then a worker's resident memory over 10,000 generated tries.
   */
  public void isolation(Path specs, int tries, int largeTries) throws Exception {
    List<Path> demo = List.of(specs.resolve("my_ops.json"), specs.resolve("good_ops.json"));
    List<Path> large = List.of(specs.resolve("my_ops.json"), specs.resolve("good_ops.json"), specs.resolve("bad/bad_ops.json"),
        specs.resolve("ordinary_ops.json"));
    int rounds = 5;
    List<Double> inProcess = new ArrayList<>();
    List<Double> oneWorker = new ArrayList<>();
    List<Double> inProcessTuned = new ArrayList<>();
    for (int r = 0; r < rounds; r++) {
      inProcess.add(cold(List.of(), "in-process", tries, 1, demo));
      oneWorker.add(cold(List.of(), "workers", tries, 1, demo));
      inProcessTuned.add(cold(List.of("-Dorg.bytedeco.javacpp.maxPhysicalBytes=0"), "in-process", tries, 1, demo));
    }
    double in = median(inProcess);
    double one = median(oneWorker);
    double tuned = median(inProcessTuned);
    out.printf("bench isolation demo (%d ops, %d tries; median of %d cold runs each): in-process %.2f s, one worker %.2f s,"
        + " ratio %.2f (goal <= 1.10)%n", opCount(demo), tries, rounds, in, one, one / in);
    out.printf("bench isolation demo, in-process with the worker's JavaCPP setting (maxPhysicalBytes=0) %.2f s: one worker"
        + " takes %.2fx that, what the isolation itself costs before the worker's own tuning pays it back%n", tuned, one / tuned);
    // two sizes of work: with few tries the JVMs' start-up (which no second worker can share)
    // dominates; with many, the checking itself does, which is what --jobs is for
    for (int n : new int[] {tries, largeTries}) {
      int times = n == tries ? 3 : 1;
      List<Double> ones = new ArrayList<>();
      List<Double> twos = new ArrayList<>();
      for (int r = 0; r < times; r++) {
        ones.add(cold(List.of(), "workers", n, 1, large));
        twos.add(cold(List.of(), "workers", n, 2, large));
      }
      out.printf("bench isolation %d ops (%d tries%s): one worker %.2f s, --jobs 2 %.2f s, speed-up %.2fx (goal >= 1.6 on"
          + " 2 cores; %d cores here)%n", opCount(large), n, times > 1 ? "; median of " + times : "", median(ones),
          median(twos), median(ones) / median(twos), Runtime.getRuntime().availableProcessors());
    }
    memory(specs.resolve("good_ops.json"), 10_000);
  }

  /** Seconds one run took in a new JVM with this one's options plus {@code options}. */
  private static double cold(List<String> options, String mode, int tries, int jobs, List<Path> specs) throws Exception {
    List<String> args = new ArrayList<>(List.of("run", mode, String.valueOf(tries), String.valueOf(jobs)));
    specs.forEach(p -> args.add(p.toAbsolutePath().toString()));
    String line = child(options, args).stream().filter(l -> l.startsWith("seconds ")).findFirst()
        .orElseThrow(() -> new IllegalStateException("the measured run printed no time"));
    return Double.parseDouble(line.substring("seconds ".length()));
  }

  /** Runs {@link BenchChild} with {@code args} in a new JVM; its output lines. */
  private static List<String> child(List<String> options, List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
    cmd.addAll(options);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(BenchChild.class.getName());
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    List<String> lines;
    try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
        java.nio.charset.StandardCharsets.UTF_8))) {
      lines = r.lines().toList();
    }
    if (p.waitFor() != 0) {
      throw new IllegalStateException("the measurement " + args + " exited with " + p.exitValue());
    }
    return lines;
  }

  private static double median(List<Double> xs) {
    List<Double> sorted = xs.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  private static int opCount(List<Path> specs) throws Exception {
    int n = 0;
    for (Path p : specs) {
      n += SpecReader.read(p).ops().size();
    }
    return n;
  }

  /** The worker's resident set size, sampled while it runs {@code tries} generated tries of one op. */
  private void memory(Path spec, int tries) throws Exception {
    List<long[]> samples = java.util.Collections.synchronizedList(new ArrayList<>());
    long t0 = System.nanoTime();
    Thread sampler = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        ProcessHandle.current().descendants()
            .filter(p -> p.info().commandLine().orElse("").contains("dev.opcheck4j.run.worker.Worker"))
            .forEach(p -> samples.add(new long[] {(System.nanoTime() - t0) / 1_000_000, rssKb(p.pid())}));
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    sampler.setDaemon(true);
    sampler.start();
    Launcher.execute(RunRequest.builder().spec(spec).ops(List.of("good_ops::add_scalar")).devices(List.of(Device.CPU))
        .tries(tries).jobs(1).seed(1L).build(), dev.opcheck4j.api.RunListener.NONE);
    sampler.interrupt();
    sampler.join();
    List<long[]> s = samples.stream().filter(x -> x[1] > 0).toList();
    if (s.size() < 4) {
      out.println("bench isolation memory: too few samples (" + s.size() + ")");
      return;
    }
    long[] early = s.get(s.size() / 10);
    long[] mid = s.get(s.size() / 2);
    long[] last = s.get(s.size() - 1);
    long max = s.stream().mapToLong(x -> x[1]).max().orElse(0);
    out.printf("bench isolation memory, good_ops::add_scalar %d tries in one worker: RSS %d MB at %.1f s, %d MB at %.1f s,"
        + " %d MB at %.1f s (max %d MB)%n", tries, early[1] / 1024, early[0] / 1e3, mid[1] / 1024, mid[0] / 1e3,
        last[1] / 1024, last[0] / 1e3, max / 1024);
  }

  private static long rssKb(long pid) {
    try {
      for (String l : java.nio.file.Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (l.startsWith("VmRSS:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", ""));
        }
      }
    } catch (java.io.IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /**
   * The per-example cost of the families torch.library.opcheck covers (its test_schema: mutation and
   * alias; test_faketensor: fake; test_autograd_registration) on the demo ops, evaluated as a worker
   * evaluates them: in a JVM with the worker's options, the median over {@code rounds} rounds, in
   * microseconds.
   */
  public void examples(Path specs, int rounds) throws Exception {
    child(dev.opcheck4j.run.worker.Worker.JVM_OPTIONS, List.of("examples", specs.toAbsolutePath().toString(),
        String.valueOf(rounds))).forEach(out::println);
  }

  /** {@link #examples}, in this JVM. */
  void examplesHere(Path specs, int rounds) throws Exception {
    List<RunTarget> targets = new ArrayList<>();
    List<SpecFile> files = new ArrayList<>();
    for (String name : List.of("my_ops.json", "good_ops.json")) {
      SpecFile f = SpecReader.read(specs.resolve(name));
      files.add(f);
      targets.add(new RunTarget(f.file().toAbsolutePath(), f.library().toAbsolutePath()));
    }
    UnitRunner runner = UnitRunner.load(new Protocol.Init(targets.stream().map(RunTarget::library).toList()),
        lib -> {});
    List<Check> checks = BuiltinChecks.opcheckCounterparts().stream()
        .filter(c -> c.scope() == CheckInfo.Scope.EXAMPLE || c.scope() == CheckInfo.Scope.OP).toList();
    List<Double> all = new ArrayList<>();
    for (int t = 0; t < files.size(); t++) {
      List<OpSpec> entries = files.get(t).ops();
      for (int entry = 0; entry < entries.size(); entry++) {
        OpSpec op = entries.get(entry);
        if (op.examples().isEmpty()) {
          continue;
        }
        Example ex = op.examples().get(0);
        Protocol.OpenOp open = dev.opcheck4j.run.session.OpSession.open(t, op);
        runner.open(List.of(open));
        List<Protocol.Unit<?>> units = new ArrayList<>();
        for (Check c : checks) {
          boolean perExample = c.scope() == CheckInfo.Scope.EXAMPLE;
          units.add(new Protocol.Evaluate(c.id(), new Protocol.On(t, op.op(), perExample ? Device.CPU : null,
              perExample ? ex : null, 1L, open.ref())));
        }
        double[] micros = new double[rounds];
        for (int r = -rounds / 5; r < rounds; r++) { // the first fifth warms up
          long t0 = System.nanoTime();
          for (Protocol.Unit<?> u : units) {
            runner.run(u);
          }
          if (r >= 0) {
            micros[r] = (System.nanoTime() - t0) / 1e3;
          }
        }
        java.util.Arrays.sort(micros);
        double median = micros[rounds / 2];
        all.add(median);
        out.printf("bench examples %s (%s): %.0f us per example for %d checks (%s)%n", op.op(),
            ex.ref().substring(ex.ref().indexOf('#') + 1), median, units.size(), String.join(", ", checks.stream().map(Check::id).toList()));
      }
    }
    all.sort(null);
    out.printf("bench examples: median over the demo ops %.0f us per example (goal <= 1000 us; torch.library.opcheck"
        + " takes 15-44 ms per example warm)%n", all.get(all.size() / 2));
  }

  /**
   * {@code bench library} and {@code bench shapes}: generates and builds a {@link SyntheticLibrary} of
   * {@code ops} ops of {@code flavor} under {@code dir}, checks it with {@code ./opcheck check} in a
   * process of its own (as a user runs it, reports included) and prints where the time goes: start-up
   * to the first result, the checks (the run block's duration), the reports (from the end of the run
   * to the last report file written), per checked input, per generated input the kernel rejected and
   * per one it accepted, and the process tree's peak RSS. Then the same run again with {@code --cache}
   * filled by the first: the cached re-run, into a report dir of its own that no run wrote before.
   */
  public void library(Path home, Path dir, int ops, int tries, int jobs, SyntheticLibrary.Flavor flavor)
      throws Exception {
    SyntheticLibrary lib = built(home, dir, ops, flavor);
    Path cache = dir.resolve("cache");
    deleteTree(cache);
    Measured first = check(lib, dir.resolve("report"), List.of("--cache", cache.toString()), tries, jobs, Map.of());
    out.println(first.line("first run (fills --cache)"));
    out.println(first.generatedLine());
    Measured again = check(lib, dir.resolve("report-cached"), List.of("--cache", cache.toString()), tries, jobs, Map.of());
    out.println(again.line("cached re-run"));
    if (again.cachedLine() != null) {
      out.println("bench library: cached re-run said: " + again.cachedLine());
    }
  }

  /**
   * {@code bench sanitizers}: the same synthetic library built three ways (as {@code opcheck4j.cmake} builds them:
   * plain, with ASan and UBSan, with gcov's coverage) and checked without a cache, side by side: the build, the
   * run's wall and CPU time, the time to its first result (a worker's start and the library checks) and per checked
   * input; with coverage also the time of the dumps and their reading, which are part of the run.
   */
  public void sanitizers(Path home, Path dir, int ops, int tries, int jobs) throws Exception {
    Map<String, List<String>> variants = new java.util.LinkedHashMap<>();
    variants.put("plain", List.of());
    variants.put("asan+ubsan", List.of("-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined"));
    variants.put("coverage", List.of("-g", "-O0", "--coverage"));
    Map<String, Measured> measured = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, List<String>> v : variants.entrySet()) {
      Path into = dir.resolve(v.getKey().replace('+', '-'));
      SyntheticLibrary lib = new SyntheticLibrary(into, ops, SyntheticLibrary.Flavor.PLAIN);
      lib.write();
      long b0 = System.nanoTime();
      boolean built = lib.build(home, v.getValue());
      out.printf("bench sanitizers %s: %d ops %s%n", v.getKey(), ops,
          built ? String.format("built in %.1f s", (System.nanoTime() - b0) / 1e9) : "up to date");
      Measured m = check(lib, into.resolve("report"), List.of("--no-cache"), tries, jobs, Map.of());
      measured.put(v.getKey(), m);
      out.println(m.line(v.getKey()).replace("bench library", "bench sanitizers"));
    }
    Measured plain = measured.get("plain");
    for (Map.Entry<String, Measured> m : measured.entrySet()) {
      out.printf("bench sanitizers side by side: %-10s wall %6.2f s (x%.2f), CPU %6.2f s (x%.2f), first result %5.2f s"
          + " (+%.2f s), %.3f ms per checked input (x%.2f)%n", m.getKey(), m.getValue().wall(),
          m.getValue().wall() / plain.wall(), m.getValue().cpu(), m.getValue().cpu() / plain.cpu(),
          m.getValue().firstResult(), m.getValue().firstResult() - plain.firstResult(), perInput(m.getValue()),
          perInput(m.getValue()) / perInput(plain));
    }
  }

  private static double perInput(Measured m) {
    return m.inputs() == 0 ? 0 : m.checks() * 1e3 / m.inputs();
  }

  /**
   * {@code bench crashes}: a {@link SyntheticLibrary.Flavor#CRASHES} library checked without a cache,
   * once with its kernels crashing on about one generated input in five and once with the same inputs
   * not crashing ({@code BENCH_OPS_NO_CRASH=1}); what a crash costs is the difference over the crashes.
   */
  public void crashes(Path home, Path dir, int ops, int tries, int jobs) throws Exception {
    SyntheticLibrary lib = built(home, dir, ops, SyntheticLibrary.Flavor.CRASHES);
    Measured crashing = check(lib, dir.resolve("report"), List.of(), tries, jobs, Map.of());
    out.println(crashing.line("crashing"));
    Measured calm = check(lib, dir.resolve("report-calm"), List.of(), tries, jobs, Map.of("BENCH_OPS_NO_CRASH", "1"));
    out.println(calm.line("the same inputs, no crash"));
    out.printf("bench crashes: %d worker deaths (kernel.crash results: %d), %.2f s of wall and %.2f s of CPU more than"
        + " without them: %.2f s of wall per death (goal <= 0.5 s)%n", crashing.deaths(), crashing.crashResults(),
        crashing.wall() - calm.wall(), crashing.cpu() - calm.cpu(),
        crashing.deaths() == 0 ? 0 : (crashing.wall() - calm.wall()) / crashing.deaths());
  }

  /**
   * {@code bench composites}: a {@link SyntheticLibrary.Flavor#COMPOSITES} library of correct ops, checked
   * once as a CI gate checks it ({@code --tries} as given: the default, or 0 for the examples only), without
   * a cache: its time, the share of its ops with a warning and with each other finding, per check
   * ({@link FindingShares}), and the lines the run's console printed about its notes.
   */
  public void composites(Path home, Path dir, int ops, int tries, int jobs) throws Exception {
    SyntheticLibrary lib = built(home, dir, ops, SyntheticLibrary.Flavor.COMPOSITES);
    Measured gate = check(lib, dir.resolve("report"), List.of(), tries, jobs, Map.of());
    out.println(gate.line("gate (--tries " + tries + ")"));
    if (tries > 0) {
      out.println(gate.generatedLine());
    }
    FindingShares shares = FindingShares.of(new dev.opcheck4j.reports.JsonReportReader()
        .read(dir.resolve("report").resolve("opcheck-report.json")).results());
    for (String line : shares.lines()) {
      out.println("bench composites: " + line);
    }
    for (String line : gate.noteLines()) {
      out.println("bench composites: the console said: " + line);
    }
  }

  private SyntheticLibrary built(Path home, Path dir, int ops, SyntheticLibrary.Flavor flavor) throws Exception {
    SyntheticLibrary lib = new SyntheticLibrary(dir, ops, flavor);
    lib.write();
    long b0 = System.nanoTime();
    boolean built = lib.build(home);
    out.printf("bench library: %d ops (%s) in %s, %s%n", ops, flavor.describe, lib.library(),
        built ? String.format("built in %.1f s", (System.nanoTime() - b0) / 1e9) : "up to date");
    return lib;
  }

  /**
   * What one {@code ./opcheck check} run took, from outside and from its report. Of the generated
   * inputs, what the kernel rejected and accepted ({@code generate.domain}'s counts) and the time of
   * the results about each: the rejected ones' is the rejection checks', the accepted ones' that of
   * the value checks on generated inputs; {@code generate.domain}'s (the kernel calls of every try and
   * probe, rejected or not, and the blame of rejections) is neither's alone.
   */
  private record Measured(double wall, double cpu, double firstResult, double checks, double reports, long inputs,
      long results, long peakRssKb, long workers, String cachedLine, int exit, long rejected, long accepted,
      double rejectedSeconds, double acceptedSeconds, double domainSeconds, long deaths, long crashResults,
      List<String> noteLines) {
    String line(String what) {
      return String.format("bench library %s: wall %.2f s, CPU %.2f s (the process tree's user+system), first result"
          + " at %.2f s, checks %.2f s, reports %.2f s, %d results on %d checked inputs (%.3f ms per input),"
          + " peak RSS of the process tree %d MB, %d worker JVMs started, exit %d", what, wall, cpu, firstResult,
          checks, reports, results, inputs, inputs == 0 ? 0 : checks * 1e3 / inputs, peakRssKb / 1024, workers, exit);
    }

    String generatedLine() {
      return String.format("bench library generated inputs: %d rejected by the kernel, the rejection checks %.2f s on"
          + " them, %.3f ms per rejected input; %d accepted, the value checks %.2f s on them, %.3f ms per accepted"
          + " input; generate.domain (every try's and probe's kernel call, the blame of rejections) %.2f s", rejected,
          rejectedSeconds, rejected == 0 ? 0 : rejectedSeconds * 1e3 / rejected, accepted, acceptedSeconds,
          accepted == 0 ? 0 : acceptedSeconds * 1e3 / accepted, domainSeconds);
    }
  }

  private Measured check(SyntheticLibrary lib, Path report, List<String> cacheArgs, int tries, int jobs,
      Map<String, String> env) throws Exception {
    deleteTree(report);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.opcheck4j.cli.Main", "check",
        "--spec", lib.spec().toString(), "--seed", "1", "--tries", String.valueOf(tries), "--jobs", String.valueOf(jobs),
        "--report-dir", report.toString()));
    cmd.addAll(cacheArgs);
    double cpu0 = childrenCpuSeconds();
    long t0 = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    long[] firstResult = {-1};
    long[] peak = {0};
    java.util.Set<Long> workers = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Path results = report.resolve("opcheck-results.jsonl");
    Thread sampler = new Thread(() -> {
      while (p.isAlive()) {
        long rss = rssKb(p.pid());
        for (ProcessHandle d : p.descendants().toList()) {
          rss += Math.max(0, rssKb(d.pid()));
          if (d.info().commandLine().orElse("").contains("dev.opcheck4j.run.worker.Worker")) {
            workers.add(d.pid());
          }
        }
        peak[0] = Math.max(peak[0], rss);
        if (firstResult[0] < 0 && hasResult(results)) {
          firstResult[0] = System.nanoTime();
        }
        try {
          // each sample walks the whole process table: sampled often, it would take a core's share from the run it measures
          Thread.sleep(firstResult[0] < 0 ? 20 : 200);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    sampler.setDaemon(true);
    sampler.start();
    String cached = null;
    List<String> notes = new ArrayList<>();
    boolean lastWasNote = false;
    try (var r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
        java.nio.charset.StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (line.startsWith("cached: ")) {
          cached = line;
        }
        // the notes' summary line, and its wrapped continuation lines right after it
        boolean continued = !notes.isEmpty() && line.startsWith("  ") && lastWasNote;
        lastWasNote = line.startsWith("note: ") || continued;
        if (lastWasNote) {
          notes.add(line);
        }
      }
    }
    int exit = p.waitFor();
    double wall = (System.nanoTime() - t0) / 1e9;
    double cpu = childrenCpuSeconds() - cpu0;
    sampler.join();
    dev.opcheck4j.api.RunReport rep = new dev.opcheck4j.reports.JsonReportReader().read(report.resolve("opcheck-report.json"));
    double checks = rep.run().durationMs() / 1e3;
    java.time.Instant runEnd = rep.run().startedAt().plusMillis(rep.run().durationMs());
    java.time.Instant lastWrite;
    try (var files = java.nio.file.Files.walk(report)) {
      lastWrite = files.filter(java.nio.file.Files::isRegularFile).map(f -> {
        try {
          return java.nio.file.Files.getLastModifiedTime(f).toInstant();
        } catch (java.io.IOException e) {
          return java.time.Instant.EPOCH;
        }
      }).max(java.util.Comparator.naturalOrder()).orElse(runEnd);
    }
    double reports = Math.max(0, java.time.Duration.between(runEnd, lastWrite).toNanos() / 1e9);
    long devices = rep.run().devices().stream().filter(dev.opcheck4j.api.RunInfo.DeviceInfo::runs).count();
    long inputs = (long) lib.ops() * devices * (1 + tries);
    double first = firstResult[0] < 0 ? Double.NaN : (firstResult[0] - t0) / 1e9;
    long rejected = 0;
    long accepted = 0;
    long rejectedMicros = 0;
    long acceptedMicros = 0;
    long domainMicros = 0;
    long crashResults = 0;
    java.util.Set<String> rejectionChecks = new java.util.HashSet<>();
    for (Check c : BuiltinChecks.all()) {
      if (c instanceof dev.opcheck4j.checks.RejectionCheck) {
        rejectionChecks.add(c.id());
      }
    }
    for (dev.opcheck4j.api.CheckResult r : rep.results()) {
      if (r.check().equals(dev.opcheck4j.checks.kernel.KernelCrashCheck.ID) && r.outcome() != dev.opcheck4j.api.Outcome.PASSED) {
        crashResults++;
      }
      if (r.exampleInfo() == null || !r.exampleInfo().generated()) {
        continue;
      }
      if (r.check().equals(dev.opcheck4j.checks.generate.DomainCheck.ID)) {
        rejected += r.fact(dev.opcheck4j.checks.generate.DomainCheck.DISCARDED).map(d -> Long.parseLong(d.split(" ")[0])).orElse(0L);
        accepted += r.fact("accepted").map(Long::parseLong).orElse(0L);
      }
      if (r.check().equals(dev.opcheck4j.checks.generate.DomainCheck.ID)) {
        domainMicros += r.durationMicros();
      } else if (rejectionChecks.contains(r.check())) {
        rejectedMicros += r.durationMicros();
      } else {
        acceptedMicros += r.durationMicros();
      }
    }
    long deaths = 0;
    try (var files = java.nio.file.Files.list(report)) {
      // a worker killed by a signal leaves its JVM error file (a worker that hung is killed without one)
      deaths = files.filter(f -> f.getFileName().toString().matches("hs_err_pid\\d+\\.log")).count();
    }
    return new Measured(wall, cpu, first, checks, reports, inputs, rep.results().size(), peak[0], workers.size(), cached,
        exit, rejected, accepted, rejectedMicros / 1e6, acceptedMicros / 1e6, domainMicros / 1e6, deaths, crashResults,
        notes);
  }

  /**
   * CPU seconds (user and system) of this process's children that have ended and been waited for,
   * with theirs in turn ({@code cutime} and {@code cstime} of /proc/self/stat): a measured run's
   * parent and its worker JVMs. Unlike wall time, it hardly depends on what else the machine runs.
   */
  static double childrenCpuSeconds() {
    try {
      String stat = java.nio.file.Files.readString(Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields 16 and 17 of the whole line; f[0] is field 3
      return (Long.parseLong(f[13]) + Long.parseLong(f[14])) / 100.0;
    } catch (java.io.IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** Whether the results file holds a result yet (its first line is the header). */
  private static boolean hasResult(Path results) {
    try (var r = java.nio.file.Files.newBufferedReader(results)) {
      return r.readLine() != null && r.readLine() != null;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    if (!java.nio.file.Files.exists(dir)) {
      return;
    }
    try (var files = java.nio.file.Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(f);
      }
    }
  }

  static Example example(SpecValue... args) {
    return new Example("bench#example", List.of(args), Map.of());
  }

  static SpecValue tensor(List<Long> shape, String dtype, boolean requiresGrad) {
    List<SpecValue> sizes = new ArrayList<>();
    for (long s : shape) {
      sizes.add(new SpecValue(s, "bench"));
    }
    return new SpecValue(Map.of(
        "tensor", new SpecValue(sizes, "bench"),
        "dtype", new SpecValue(dtype, "bench"),
        "requires_grad", new SpecValue(requiresGrad, "bench")), "bench");
  }

  static SpecValue number(double d) {
    return new SpecValue(d, "bench");
  }
}
