package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.NumberText;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.PackageCheck;
import dev.opcheck4j.checks.PackageSubject;
import dev.opcheck4j.checks.aoti.LoaderMessage;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.link.ModelInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.worker.ModelUnits;
import dev.opcheck4j.spec.PackageEntry;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.AotiPackage;
import dev.opcheck4j.torch.AotiRun;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.SchemaBaseline;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ./opcheck model X.pt2}: an AOTInductor package, checked before it runs. This process reads the package
 * (a zip: its extern nodes and metadata), a worker loads the libraries, and the package checks that need no run
 * ({@code aoti.calls}, {@code aoti.annotations}) compare each call with the op registered now. When every call
 * fits, the worker loads the package with libtorch's {@code AOTIModelPackageLoader} and, given inputs, runs it
 * and compares its outputs with {@code --expect}. libtorch's own words about a failure are said in ours
 * ({@link LoaderMessage}).
 */
final class PackageModel {
  private PackageModel() {}

  /**
   * Runs the command on {@code file}.
   *
   * @param given the inputs as typed (shown); {@code inputs}: the same, files made absolute (sent to the worker)
   */
  static ExitCode run(Path file, List<Path> libraries, List<String> given, List<String> inputs, Optional<Path> expect,
      long seed, Path baseline, Session session, Path reportDir, String commandLine)
      throws UsageException, LibraryLoadException, SpecException, IOException {
    PrintStream out = session.out();
    PrintStream err = session.err();
    AotiPackage pkg;
    try {
      pkg = AotiPackage.read(file);
    } catch (AotiPackage.Unreadable e) {
      throw new UsageException(e.getMessage());
    }
    SchemaBaseline builtWith = null;
    if (baseline != null) {
      try {
        builtWith = SchemaBaseline.read(baseline);
      } catch (IOException e) {
        throw new UsageException("--baseline " + baseline + ": " + e.getMessage());
      }
    }
    for (String in : inputs) {
      if (!ModelUnits.isFile(in) && !in.strip().contains("[")) {
        throw new UsageException("--input '" + in + "': a package's inputs are tensors: DTYPE[d0,d1,...] (e.g."
            + " float32[4,3]) or a .pt file saved by torch.save");
      }
    }
    RunPlan.Package p = new RunPlan.Package(new PackageEntry(file, List.of(), expect.orElse(null), baseline, "model"),
        pkg, builtWith);
    AtomicReference<PackageSubject> subject = new AtomicReference<>();
    List<CheckResult> results = new ArrayList<>();
    Launcher.PackageRun run = Launcher.packageRun(libraries, file, pkg.model(), inputs, seed, expect, info -> {
      subject.set(Launcher.packageSubject(p, info.libraries(), info.cudaAvailable()));
      for (Check c : BuiltinChecks.all()) {
        if (c instanceof PackageCheck pc && !pc.runsPackage()) {
          for (PackageCheck.PackageVerdict v : pc.evaluatePackage(subject.get())) {
            results.add(v.verdict().result(v.op() == null ? pkg.file().getFileName().toString() : v.op(), c,
                CheckResult.NONE, p.entry().label(), 0, SeverityPolicy.DEFAULT, null));
          }
        }
      }
      return results.stream().noneMatch(r -> r.outcome() == Outcome.FAILED)
          && subject.get().devices().contains(pkg.device().orElse("cpu"));
    });
    PackageSubject s = subject.get();
    out.println("package " + file + ": AOTInductor, model '" + pkg.model() + "', compiled for " + compiledFor(pkg)
        + " (libtorch " + run.info().torchVersion() + ")");
    calls(s, results, out);
    for (CheckResult r : results) {
      if (r.outcome() == Outcome.FAILED || r.outcome() == Outcome.WARNING) {
        out.println(ResultText.render(r, r.op(), List.of(), (f, indent) -> NumberText.roundAll(HumanText.fact(f.value(),
            false))));
      }
    }
    if (results.stream().anyMatch(r -> r.outcome() == Outcome.FAILED)) {
      out.println("not run: a call does not fit the op registered now (above), where libtorch would refuse the"
          + " package or stop inside it");
      return ExitCode.CHECK_FAILED;
    }
    String device = pkg.device().orElse("cpu");
    if (!s.devices().contains(device)) {
      out.println("not run: compiled for " + device + ", which this machine does not have (skipped)");
      return ExitCode.OK;
    }
    if (run.run() == null) {
      err.println("opcheck: " + file + ": loading it crashed the worker: " + run.died());
      return ExitCode.CHECK_FAILED;
    }
    AotiRun ran = run.run();
    if (ran.failure() != null) {
      String why = LoaderMessage.explain(ran.failure().message(), s);
      switch (ran.failure().stage()) {
        case INPUTS -> throw new UsageException(file + ": " + why);
        case EXPECTED -> {
          err.println("opcheck: --expect " + ran.failure().message());
          return ExitCode.INPUT_ERROR;
        }
        case LOAD -> err.println("opcheck: " + file + ": libtorch's loader refused it: " + why);
        case RUN -> err.println("opcheck: " + file + ": running it failed: " + why);
        case UNSUPPORTED -> {
          out.println("not run: " + why + " (skipped)");
          return ExitCode.OK;
        }
        default -> throw new IllegalStateException(ran.failure().stage().name());
      }
      return ExitCode.CHECK_FAILED;
    }
    String takes = "the " + count(ran.inputs(), "tensor") + " its call spec takes";
    if (inputs.isEmpty()) {
      out.println("loaded with AOTIModelPackageLoader; not run (give " + takes + ", one --input each: float32[4,3], or a"
          + " .pt file)");
      return ExitCode.OK;
    }
    out.println("ran on " + String.join(", ", given) + " (" + takes + "):");
    for (int i = 0; i < ran.outputs().size(); i++) {
      out.println("  output " + i + ": " + ran.outputs().get(i));
    }
    if (!ran.changedInputs().isEmpty()) {
      out.println("  the run wrote into its " + String.join(", ", ran.changedInputs().stream().map(i -> "input " + i
          + " (the tensor of " + given.get(i) + ")").toList()));
    }
    if (expect.isEmpty()) {
      return ExitCode.OK;
    }
    AotiRun.Comparison c = ran.comparison();
    ModelInfo.Expectation e = new ModelInfo.Expectation(null, c.compared(), c.butWas() == null ? null
        : new ModelInfo.Difference(c.butWas(), c.details(), c.heatmaps()));
    if (c.butWas() != null) {
      out.println("FAILED the package's outputs differ from " + expect.get());
      List<Fact> facts = new ArrayList<>();
      facts.add(Fact.of("expected", "the tensors of " + expect.get() + " (torch.save), within torch.testing's tolerance"));
      facts.add(Fact.of("but was", c.butWas()));
      facts.addAll(c.details());
      facts.add(Fact.of("inputs", String.join(", ", given)));
      out.println(ResultText.facts(facts, "\n  ",
          (f, indent) -> NumberText.roundAll(HumanText.fact(f.value(), reportDir != null))).substring(1));
    } else {
      out.println("matches " + expect.get() + " (" + c.compared() + " tensor" + (c.compared() == 1 ? "" : "s")
          + " within torch.testing's tolerance)");
    }
    if (reportDir != null) {
      ModelReport.write(reportDir, file, run.info(), given, seed, expect.get(), e, commandLine, out);
    }
    return c.butWas() != null ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  /** {@code cpu (linux x86_64, CPU ISA AVX512 AVX512_VNNI)}: the package's metadata. */
  private static String compiledFor(AotiPackage pkg) {
    List<String> more = new ArrayList<>();
    String platform = (pkg.metadata().getOrDefault("AOTI_PLATFORM", "") + " " + pkg.metadata().getOrDefault("AOTI_MACHINE",
        "")).strip();
    if (!platform.isEmpty()) {
      more.add(platform);
    }
    String isa = pkg.metadata().getOrDefault("AOTI_CPU_ISA", "");
    if (!isa.isBlank()) {
      more.add("CPU ISA " + isa);
    }
    String cc = pkg.metadata().getOrDefault("AOTI_COMPUTE_CAPABILITY", "");
    if (!cc.isBlank()) {
      more.add("compute capability " + cc);
    }
    return pkg.device().orElse("(no device in its metadata)") + (more.isEmpty() ? "" : " (" + String.join(", ", more) + ")");
  }

  /** Each op the package calls, the call as the package records it, and the op the libraries register. */
  private static void calls(PackageSubject s, List<CheckResult> results, PrintStream out) {
    List<String> ops = s.pkg().ops();
    out.println(ops.isEmpty() ? "ops called through the proxy executor: none (Inductor compiled every op into the"
        + " package's code)" : "ops called through the proxy executor (" + count(s.pkg().calls().size(), "call") + " of "
        + count(ops.size(), "op") + "), each beside the op registered now:");
    for (String op : ops) {
      PackageSubject.Registered reg = s.registered().get(op);
      boolean fits = results.stream().noneMatch(r -> r.op().equals(op) && r.outcome() == Outcome.FAILED);
      out.println("  " + op + "  " + (AotiPackage.libtorchOwn(op) ? "libtorch's own"
          : reg == null ? "registered by no loaded library" : "served by " + reg.library()));
      out.println("    package calls : " + s.pkg().callsOf(op).get(0).describe());
      if (reg != null) {
        out.println("    registered    : " + reg.schema() + (fits ? "  [fits]" : "  [does not fit]"));
      }
    }
  }

  private static String count(int n, String what) {
    return n + " " + what + (n == 1 ? "" : "s");
  }

  /** Whether {@code file} is an AOTInductor package rather than a TorchScript archive. */
  static boolean isPackage(Path file) {
    return Files.isRegularFile(file) && AotiPackage.isPackage(file);
  }
}
