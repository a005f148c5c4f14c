package dev.opcheck4j.cli;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.NumberText;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.reporting.ReportDirLock;
import dev.opcheck4j.run.worker.ModelUnits;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.link.ModelInfo;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.TensorNotation;
import dev.opcheck4j.torch.LibraryLoadException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code ./opcheck model MODEL.pt [--library LIB]... [--spec SPEC] [--input VALUE]...}: a worker loads
 * the libraries and the TorchScript model as the tutorial's C++ program does, lists the custom ops its
 * code calls with the schema each call site is bound to, and runs {@code forward} once when inputs are
 * given; this process prints what it found.
 */
final class ModelCommand implements Command {
  @Override
  public String name() {
    return "model";
  }

  @Override
  public String summary() {
    return "Lists the custom ops a TorchScript model (or an AOTInductor package, .pt2) calls and the schema each call"
        + " expects; runs it once when inputs are given, and compares its output with --expect's tensor.";
  }

  @Override
  public String synopsis() {
    return "model MODEL.pt|PACKAGE.pt2 [--library LIB]... [--spec FILE] [--input VALUE]... [--expect OUT.pt"
        + " [--report-dir DIR]] [--baseline FILE] [--seed N]";
  }

  @Override
  public List<RunOption<?>> options() {
    return List.of(RunOptions.LIBRARIES, RunOptions.SPECS, RunOptions.INPUTS, RunOptions.EXPECT, RunOptions.SEED,
        RunOptions.REPORT_DIR, RunOptions.BASELINE);
  }

  @Override
  public int operands() {
    return 1;
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws UsageException, LibraryLoadException, SpecException {
    if (args.operands().isEmpty()) {
      throw new UsageException("model needs a model file: opcheck model MODEL.pt [--library LIB]");
    }
    List<Path> libraries = new ArrayList<>(args.all(RunOptions.LIBRARIES));
    for (Path spec : args.all(RunOptions.SPECS)) {
      libraries.add(SpecReader.read(spec).library());
    }
    Path reportDir = args.get(RunOptions.REPORT_DIR);
    if (reportDir != null && !args.has(RunOptions.EXPECT)) {
      throw new UsageException("model --report-dir reports the comparison with --expect: give --expect OUT.pt");
    }
    try (ReportDirLock lock = CheckCommand.lock(reportDir, args.commandLine(), s)) {
      return run(Path.of(args.operands().get(0)), libraries, args.all(RunOptions.INPUTS),
          Optional.ofNullable(args.get(RunOptions.EXPECT)), args.get(RunOptions.SEED), s, reportDir, args.commandLine(),
          args.get(RunOptions.BASELINE));
    } catch (IOException e) {
      throw new UsageException("--report-dir " + reportDir + ": " + e.getMessage());
    }
  }

  private ExitCode run(Path model, List<Path> libraries, List<String> inputs, Optional<Path> expect, long seed,
      Session session, Path reportDir, String commandLine, Path baseline)
      throws UsageException, LibraryLoadException, SpecException, IOException {
    PrintStream out = session.out();
    PrintStream err = session.err();
    if (!Files.isRegularFile(model)) {
      throw new UsageException("model not found: " + model);
    }
    if (expect.isPresent() && !Files.isRegularFile(expect.get())) {
      throw new UsageException("--expect " + expect.get() + ": no such file");
    }
    if (expect.isPresent() && inputs.isEmpty()) {
      throw new UsageException("--expect needs forward's inputs: give one --input per argument");
    }
    for (String in : inputs) {
      if (ModelUnits.isFile(in) && !Files.isRegularFile(Path.of(in.strip()))) {
        throw new UsageException("--input " + in + ": no such file");
      }
      if (!ModelUnits.isFile(in) && !isValue(in)) {
        // before the model loads: a worker and libtorch take seconds to start for a typo
        throw new UsageException("--input '" + in + "' is not a value: expected DTYPE[d0,d1,...]"
            + " (e.g. float32[16,16]), int:N, float:X, bool:B or a .pt file saved by torch.save");
      }
    }
    if (baseline != null && !Files.isRegularFile(baseline)) {
      throw new UsageException("--baseline " + baseline + ": no such file");
    }
    List<String> absolute = inputs.stream()
        .map(in -> ModelUnits.isFile(in) ? Path.of(in.strip()).toAbsolutePath().toString() : in).toList();
    if (PackageModel.isPackage(model)) {
      return PackageModel.run(model, libraries, inputs, absolute, expect, seed, baseline, session, reportDir,
          commandLine);
    }
    if (baseline != null) {
      throw new UsageException("--baseline compares an AOTInductor package's calls with the release it was compiled"
          + " with; " + model + " is a TorchScript model");
    }
    Launcher.ModelRun run = Launcher.model(libraries, model,
        inputs.stream().map(in -> ModelUnits.isFile(in) ? Path.of(in.strip()).toAbsolutePath().toString() : in).toList(),
        seed, expect);
    if (run.model() == null) {
      err.println("opcheck: cannot load " + model + ": it crashed the worker: " + run.died());
      return ExitCode.INPUT_ERROR;
    }
    List<LibraryInfo> libs = run.info().libraries();
    if (run.model().failure() != null) {
      return failed(model, libs, run.model().failure(), err);
    }
    out.println("model " + model + ": loaded with torch::jit::load (libtorch " + run.info().torchVersion() + ")");
    List<ModelInfo.Call> calls = run.model().calls();
    out.println(calls.isEmpty() ? "custom ops called: none" : "custom ops called:");
    for (ModelInfo.Call c : calls) {
      out.println("  " + c.op() + "  " + resolution(c.bound(), libs) + "  (in " + c.where() + ")");
      out.println("    call site expects : " + c.expects().orElse("(unbound)"));
      c.registered().ifPresent(registered -> out.println("    registered schema : " + registered
          + (c.expects().map(registered::equals).orElse(false) ? "  [compatible]" : "  [differs]")));
    }
    String signature = "forward(" + String.join(", ", run.model().parameters()) + ")";
    if (inputs.isEmpty()) {
      out.println(signature + ": not run (give one --input per argument, e.g. --input float32[16,16] --input int:8)");
      return ExitCode.OK;
    }
    if (run.forward() == null) {
      err.println("opcheck: " + signature + " crashed the worker: " + run.died());
      return ExitCode.CHECK_FAILED;
    }
    if (run.forward().usage() != null) {
      throw new UsageException(run.forward().usage());
    }
    if (run.forward().raised() != null) {
      err.println("opcheck: " + signature + " raised: " + run.forward().raised());
      return ExitCode.CHECK_FAILED;
    }
    out.println(signature + " on " + String.join(", ", inputs) + ":");
    for (ModelInfo.Output o : run.forward().outputs()) {
      out.println("  " + o.label() + ": " + o.value());
    }
    ModelInfo.Expectation e = run.forward().expected();
    if (e == null) {
      return ExitCode.OK;
    }
    if (e.unusable() != null) {
      err.println("opcheck: --expect " + e.unusable());
      return ExitCode.INPUT_ERROR;
    }
    if (e.mismatch() != null) {
      out.println("FAILED forward's output differs from " + expect.get());
      List<Fact> facts = new ArrayList<>();
      facts.add(Fact.of("expected", "the tensors of " + expect.get() + " (torch.save), within torch.testing's tolerance"));
      facts.add(Fact.of("but was", e.mismatch().butWas()));
      facts.addAll(e.mismatch().details());
      facts.add(Fact.of("inputs", String.join(", ", inputs) + (inputs.stream().allMatch(ModelUnits::isFile) ? ""
          : " (generated values: --seed " + seed + ")")));
      // aligned as every result is, numbers rounded and control characters shown
      out.println(ResultText.facts(facts, "\n  ",
          (f, indent) -> NumberText.roundAll(HumanText.fact(f.value(), reportDir != null))).substring(1));
    } else {
      out.println("matches " + expect.get() + " (" + e.compared() + " tensor" + (e.compared() == 1 ? "" : "s")
          + " within torch.testing's tolerance)");
    }
    if (reportDir != null) {
      ModelReport.write(reportDir, model, run.info(), inputs, seed, expect.get(), e, commandLine, out);
    }
    return e.mismatch() != null ? ExitCode.CHECK_FAILED : ExitCode.OK;
  }

  /** Whether {@code text} is an input {@code forward} can be given (the worker reads the same forms). */
  static boolean isValue(String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    try {
      if (t.startsWith("int:")) {
        Long.parseLong(t.substring(4));
        return true;
      }
      if (t.startsWith("float:")) {
        Double.parseDouble(t.substring(6));
        return true;
      }
    } catch (NumberFormatException e) {
      return false;
    }
    if (t.startsWith("bool:")) {
      return t.equals("bool:true") || t.equals("bool:false");
    }
    return TensorNotation.parse(t).filter(n -> n.layout() == null && SpecReader.DTYPES.contains(n.dtype())).isPresent();
  }

  private static String resolution(String op, List<LibraryInfo> libs) {
    // the library registering exactly the bound overload first: another may register other overloads of the name
    for (LibraryInfo lib : libs) {
      if (lib.opNames().contains(op)) {
        return "resolved by " + lib.path().getFileName();
      }
    }
    for (LibraryInfo lib : libs) {
      if (lib.opNames().stream().anyMatch(o -> o.startsWith(op + "."))) {
        return "resolved by " + lib.path().getFileName();
      }
    }
    return "resolved (registered outside the given libraries)";
  }

  private static ExitCode failed(Path model, List<LibraryInfo> libs, ModelInfo.Failure f, PrintStream err) {
    String where = f.callSite() == null ? "" : " (call site: " + f.callSite() + ")";
    switch (f.kind()) {
      case UNKNOWN_OP -> {
        String ns = f.op().substring(0, f.op().indexOf("::"));
        String loaded = libs.isEmpty()
            ? "no op library is loaded"
            : String.join(", ", libs.stream().map(l -> l.path().getFileName().toString()).toList())
                + " does not register it";
        err.println("opcheck: " + model + " calls " + f.op() + " (Unknown builtin op: " + loaded
            + "); load the library that defines the '" + ns + "' ops with --library LIB" + where);
        return ExitCode.INPUT_ERROR;
      }
      case SCHEMA_MISMATCH -> {
        err.println("opcheck: " + model + ": the call of " + (f.op() == null ? "a custom op" : f.op())
            + " does not fit the schema registered now: " + f.message() + where);
        return ExitCode.CHECK_FAILED;
      }
      default -> {
        err.println("opcheck: cannot load " + model + ": " + f.message());
        return ExitCode.INPUT_ERROR;
      }
    }
  }
}
