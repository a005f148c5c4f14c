package dev.opcheck4j.checks.aoti;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.PackageCheck;
import dev.opcheck4j.checks.PackageSubject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.AotiRun;
import java.util.ArrayList;
import java.util.List;

/**
 * An AOTInductor package loads with libtorch's {@code AOTIModelPackageLoader} after the run's libraries, runs on
 * the inputs its entry names, and gives the outputs saved beside them within torch.testing's tolerance (as
 * {@code ./opcheck model --expect} compares). It runs only when every call fits ({@link PackageCallsCheck}):
 * a call that does not is that check's finding, not a crash to run into. One result per package.
 */
public final class PackageRunCheck extends CheckBase implements PackageCheck {
  public static final String ID = "aoti.run";
  /** The key of how many outputs were compared with the expected ones. */
  public static final String COMPARED = "outputs compared";
  /** The key of the inputs the run wrote into. */
  public static final String CHANGED_INPUTS = "inputs changed";

  public PackageRunCheck() {
    super(Declaration.error(ID, "an AOTInductor package loads after the libraries, runs on its saved inputs and"
        + " gives its saved outputs within tolerance").requires(PackageCallsCheck.ID));
  }

  @Override
  public boolean runsPackage() {
    return true;
  }

  @Override
  public List<PackageVerdict> evaluatePackage(PackageSubject s) {
    return List.of(new PackageVerdict(null, verdict(s)));
  }

  private static Verdict verdict(PackageSubject s) {
    Fact pkg = Fact.of(PackageCallsCheck.PACKAGE, s.entry().label());
    if (!s.entry().runnable()) {
      return Verdict.skipped("the package is checked, not run: its entry names no inputs and expected outputs"
          + " (\"inputs\" and \"expect\" in the spec's \"packages\")");
    }
    String device = s.pkg().device().orElse("cpu");
    if (!s.devices().contains(device)) {
      return Verdict.skipped("compiled for " + device + ", which this machine does not have");
    }
    if (s.run().isEmpty()) {
      return Verdict.skipped("not run");
    }
    AotiRun run = s.run().get();
    if (run.failure() != null) {
      String stage = switch (run.failure().stage()) {
        case LOAD -> "loading it failed: ";
        case RUN -> "running it failed: ";
        case INPUTS -> "its inputs could not be used: ";
        case EXPECTED -> "its expected outputs could not be used: ";
        case UNSUPPORTED -> "not run: ";
      };
      if (run.failure().stage() == AotiRun.Stage.UNSUPPORTED) {
        return Verdict.skipped(stage + run.failure().message());
      }
      if (run.failure().stage() == AotiRun.Stage.INPUTS || run.failure().stage() == AotiRun.Stage.EXPECTED) {
        // the entry's files, not the package or the library: the run reports them as input errors too
        return Verdict.skipped(stage + run.failure().message());
      }
      return Verdict.failed(Finding.of("the package loads, runs on " + inputs(s) + " and gives " + s.entry().expect()
              .getFileName(), stage + LoaderMessage.explain(run.failure().message(), s),
          "run it with ./opcheck model to see each call beside the op the library registers",
          new Cause.Contract("package does not run", s.entry().label())).with(pkg));
    }
    List<Fact> facts = new ArrayList<>(List.of(pkg, Fact.of("inputs", inputs(s))));
    if (!run.changedInputs().isEmpty()) {
      facts.add(Fact.of(CHANGED_INPUTS, String.join(", ", run.changedInputs().stream().map(i -> "input " + i).toList())
          + " (the package wrote into them)"));
    }
    AotiRun.Comparison c = run.comparison();
    if (c.butWas() != null) {
      Finding f = Finding.of("the outputs of " + s.entry().expect().getFileName() + " (torch.save), within"
              + " torch.testing's tolerance", c.butWas(),
          "find what changed between the library the package was compiled with and this one",
          new Cause.ValueMismatch("the package's outputs")).with(c.details().toArray(Fact[]::new))
          .with(facts.toArray(Fact[]::new)).withHeatmaps(c.heatmaps());
      return Verdict.failed(f);
    }
    facts.add(Fact.of(COMPARED, c.compared()));
    facts.add(Fact.of("device", device));
    return Verdict.passed(facts);
  }

  private static String inputs(PackageSubject s) {
    return String.join(", ", s.entry().inputs().stream().map(p -> p.getFileName().toString()).toList());
  }
}
