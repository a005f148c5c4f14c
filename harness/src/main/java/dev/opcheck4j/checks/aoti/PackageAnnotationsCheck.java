package dev.opcheck4j.checks.aoti;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.PackageCheck;
import dev.opcheck4j.checks.PackageSubject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.AotiPackage;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the library writes or aliases a tensor an AOTInductor package passes, the package shows it was compiled
 * for that. A package records no alias annotations (its extern nodes name each argument and its serialized type,
 * nothing more), so a release that starts writing an argument ({@code Tensor y} becoming {@code Tensor(a!) y})
 * loads and runs with no error while the package, compiled for an op that leaves {@code y} unchanged, may pass it
 * a buffer it reads again, or its own input. The one thing a call shows is returning nothing: Inductor keeps a
 * call of an op that returns nothing only for what it writes. Without the baseline of the release the package
 * was compiled with (with it, {@link PackageCallsCheck} compares the annotations and this check gives no result),
 * every other written or aliased argument, and every aliasing return, is a warning.
 */
public final class PackageAnnotationsCheck extends CheckBase implements PackageCheck {
  public static final String ID = "aoti.annotations";

  public PackageAnnotationsCheck() {
    super(Declaration.warning(ID, "without the baseline a package was built with: no argument the package passes"
        + " is written or aliased by the library unless the call shows it was compiled for that"));
  }

  @Override
  public List<PackageVerdict> evaluatePackage(PackageSubject s) {
    if (s.builtWith() != null) {
      return List.of();
    }
    List<PackageVerdict> out = new ArrayList<>();
    Fact pkg = Fact.of(PackageCallsCheck.PACKAGE, s.entry().label());
    for (String op : s.pkg().ops()) {
      PackageSubject.Registered reg = s.registered().get(op);
      if (reg == null || AotiPackage.libtorchOwn(op)) {
        continue; // aoti.calls reports an op no library registers; libtorch's own are not the library's
      }
      Set<String> unshown = new LinkedHashSet<>();
      AotiPackage.ExternCall first = s.pkg().callsOf(op).get(0);
      for (AotiPackage.ExternCall call : s.pkg().callsOf(op)) {
        for (AotiPackage.CallArgument a : call.inputs()) {
          boolean annotated = reg.schema().argument(a.name()).flatMap(OpSchema.Argument::alias).isPresent();
          // an op that returns nothing was kept only for what it writes: the call was compiled as writing
          boolean shown = call.outputs().isEmpty()
              && reg.schema().argument(a.name()).map(OpSchema.Argument::isWrite).orElse(false);
          if (a.passesTensors() && annotated && !shown) {
            unshown.add(a.name());
          }
        }
      }
      boolean aliasingReturn = reg.schema().returns().stream().anyMatch(r -> r.alias().isPresent());
      if (unshown.isEmpty() && !aliasingReturn) {
        out.add(new PackageVerdict(op, Verdict.passed(pkg, Fact.of("annotations", annotatedArguments(reg.schema())))));
        continue;
      }
      for (String name : unshown) {
        OpSchema.Argument arg = reg.schema().argument(name).orElseThrow();
        boolean writes = arg.isWrite();
        out.add(new PackageVerdict(op, Verdict.failed(finding(op, "argument '" + name + "'",
            "the library " + (writes ? "writes" : "aliases") + " '" + name + "' (" + arg + "), and nothing in the"
                + " package's call shows it was compiled for that: the package records no alias annotations, and the"
                + " op returns values of its own", name, PackageCallsCheck.passes(first.input(name).orElseThrow()),
            arg + " (" + reg.library() + ")").with(pkg, Fact.of(PackageCallsCheck.CALL, first.describe())))));
      }
      if (aliasingReturn) {
        out.add(new PackageVerdict(op, Verdict.failed(finding(op, "the returns",
            "the library's op returns an alias of an input (" + reg.schema().returns() + "), and the package records"
                + " its outputs as buffers of their own", PackageCallsCheck.RETURNS,
            "(" + String.join(", ", first.outputs()) + ")", reg.schema().returns() + " (" + reg.library() + ")")
            .with(pkg, Fact.of(PackageCallsCheck.CALL, first.describe())))));
      }
    }
    return out;
  }

  private static Finding finding(String op, String what, String butWas, String argument, String packageSide,
      String librarySide) {
    return Finding.of(what + " of " + op + " neither written nor aliased, or the package compiled for it", butWas,
        "give the schema baseline of the release the package was compiled with (./opcheck baseline; the package's"
            + " \"baseline\" in the spec, or --baseline) and aoti.calls compares the annotations; if it was compiled"
            + " for them, this warning goes; else compile the package again against this release",
        new Cause.Contract("alias annotation the package does not record", op + " " + argument))
        .with(Fact.of(PackageCallsCheck.ARGUMENT, argument), Fact.of(PackageCallsCheck.PACKAGE_SIDE, packageSide),
            Fact.of(PackageCallsCheck.LIBRARY_SIDE, librarySide));
  }

  private static String annotatedArguments(OpSchema schema) {
    List<String> annotated = schema.arguments().stream().filter(a -> a.alias().isPresent()).map(Object::toString).toList();
    return annotated.isEmpty() ? "none in " + schema : String.join(", ", annotated)
        + " (the call returns nothing: compiled as writing)";
  }
}
