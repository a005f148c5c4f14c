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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Every call an AOTInductor package makes through the proxy executor fits the op the run's libraries register
 * now, as libtorch matches it when the package loads and runs (the rules of {@link ProxyExecutorTypes}): the
 * op exists; each argument the package passes has a name the schema has, and a serialized type the schema's
 * type takes; every argument it does not pass has a default; the returns are as many, of the types recorded.
 * With the schema baseline of the release the package was compiled with, the alias annotations of the
 * arguments it passes and of the returns are those it was compiled for. One result per op the package calls
 * (one per mismatch when it does not fit), in the package's call order.
 */
public final class PackageCallsCheck extends CheckBase implements PackageCheck {
  public static final String ID = "aoti.calls";
  /** The key of the package a result is about (its file name). */
  public static final String PACKAGE = "package";
  /** The key of the argument a mismatch is about ({@code returns} for the returns). */
  public static final String ARGUMENT = "argument";
  /** The key of what the package passes (or records), the package's side of a mismatch. */
  public static final String PACKAGE_SIDE = "package passes";
  /** The key of what the library registers now, the library's side of a mismatch. */
  public static final String LIBRARY_SIDE = "library has";
  /** The key of the call as the package records it. */
  public static final String CALL = "call";
  /** The word of {@link #ARGUMENT} for a mismatch of the returns. */
  public static final String RETURNS = "returns";

  public PackageCallsCheck() {
    super(Declaration.error(ID, "every op an AOTInductor package calls is registered, with the argument names,"
        + " serialized types, returns (and, with the baseline it was built with, alias annotations) the package"
        + " recorded"));
  }

  /**
   * One way a call does not fit the registered op.
   *
   * @param argument the argument's name, or {@link #RETURNS}
   * @param expected what the package needs of the op
   * @param butWas what the library has, and what libtorch then does
   * @param packageSide what the package passes or records
   * @param librarySide what the library registers
   * @param rule the broken rule (the finding's cause)
   */
  record Mismatch(String argument, String expected, String butWas, String packageSide, String librarySide, String rule) {}

  @Override
  public List<PackageVerdict> evaluatePackage(PackageSubject s) {
    List<PackageVerdict> out = new ArrayList<>();
    Fact pkg = Fact.of(PACKAGE, s.entry().label());
    for (String op : s.pkg().ops()) {
      AotiPackage.ExternCall first = s.pkg().callsOf(op).get(0);
      if (AotiPackage.libtorchOwn(op)) {
        out.add(new PackageVerdict(op, Verdict.skipped("libtorch's own op, which no op library serves: not compared")));
        continue;
      }
      PackageSubject.Registered reg = s.registered().get(op);
      if (reg == null) {
        out.add(new PackageVerdict(op, Verdict.failed(Finding.of(
            op + " registered by a library the run loads, as the package calls it",
            "no library registers it (" + String.join(", ", s.libraries()) + "): libtorch's loader refuses the whole"
                + " package (\"Could not find schema for " + op + ".\")",
            first.customOp()
                ? "it was made by torch.library.custom_op in Python, which a C++ program cannot run: define it in C++"
                    + " (TORCH_LIBRARY or STABLE_TORCH_LIBRARY) and compile the package again"
                : "keep the op in the library (deprecate it first), or compile the package again against this release",
            new Cause.Contract("op the package calls is gone", op)).with(pkg, Fact.of(CALL, first.describe())))));
        continue;
      }
      List<Mismatch> found = new ArrayList<>();
      Map<String, AotiPackage.ExternCall> distinct = new LinkedHashMap<>();
      s.pkg().callsOf(op).forEach(c -> distinct.putIfAbsent(c.describe(), c));
      for (AotiPackage.ExternCall call : distinct.values()) {
        for (Mismatch m : mismatches(call, reg.schema(), s.builtWith(op))) {
          if (!found.contains(m)) {
            found.add(m);
          }
        }
      }
      for (Mismatch m : found) {
        out.add(new PackageVerdict(op, Verdict.failed(Finding.of(m.expected(), m.butWas(),
            "keep the op's contract with the packages already shipped (a new argument comes last, with a default;"
                + " nothing is renamed, retyped, removed or re-annotated), or compile the package again against"
                + " this release", new Cause.Contract(m.rule(), op + " " + m.argument()))
            .with(pkg, Fact.of(ARGUMENT, m.argument()), Fact.of(PACKAGE_SIDE, m.packageSide()),
                Fact.of(LIBRARY_SIDE, m.librarySide() + " (" + reg.library() + ")"), Fact.of(CALL, first.describe())))));
      }
      if (found.isEmpty()) {
        List<Fact> facts = new ArrayList<>(List.of(pkg, Fact.of(CALL, first.describe()),
            Fact.of("schema", reg.schema() + " (" + reg.library() + ")")));
        if (s.builtWith() == null) {
          facts.add(Fact.of(dev.opcheck4j.api.Fact.NOT_CHECKED, "alias annotations: the package records none, and the"
              + " run has no baseline of the release it was compiled with"));
        } else if (s.builtWith(op).isEmpty()) {
          facts.add(Fact.of(dev.opcheck4j.api.Fact.NOT_CHECKED, "alias annotations: the baseline "
              + s.builtWith().library() + " has no " + op));
        }
        out.add(new PackageVerdict(op, Verdict.passed(facts)));
      }
    }
    return out;
  }

  /** How {@code call} does not fit {@code now}; {@code then}: the op as the baseline recorded it, if any. */
  static List<Mismatch> mismatches(AotiPackage.ExternCall call, OpSchema now, Optional<OpSchema> then) {
    List<Mismatch> out = new ArrayList<>();
    String op = call.target();
    List<AotiPackage.CallArgument> unknown = new ArrayList<>();
    for (AotiPackage.CallArgument a : call.inputs()) {
      Optional<OpSchema.Argument> arg = now.argument(a.name());
      if (arg.isEmpty()) {
        unknown.add(a);
        continue;
      }
      List<String> takes = ProxyExecutorTypes.argument(arg.get().type());
      if (!takes.contains(a.kind())) {
        out.add(new Mismatch(a.name(), "argument '" + a.name() + "' of " + op + " takes what the package passes: "
            + passes(a),
            "the library's schema has " + arg.get() + ", which takes " + (takes.isEmpty() ? "nothing the proxy executor"
                + " can fill" : String.join(" or ", takes)) + ": libtorch's loader refuses the whole package (\"Expected"
                + " extern kernel " + op + " to have serialized argument type " + (takes.isEmpty() ? "?" : takes.get(0))
                + " for argument " + now.arguments().indexOf(arg.get()) + " but got " + a.kind() + "\")",
            passes(a), arg.get().toString(), "argument retyped"));
      }
      then.flatMap(t -> t.argument(a.name())).ifPresent(old -> {
        if (!Objects.equals(old.alias(), arg.get().alias())) {
          out.add(annotation(a.name(), op, old.toString(), arg.get().toString()));
        }
      });
    }
    List<OpSchema.Argument> unfilled = now.arguments().stream()
        .filter(x -> call.input(x.name()).isEmpty() && x.defaultValue().isEmpty()).toList();
    for (int i = 0; i < unknown.size(); i++) {
      AotiPackage.CallArgument a = unknown.get(i);
      // the package records every argument in its schema's order, defaults filled in: a name it passes that the
      // schema lacks, where the schema has an argument the package does not fill, is that argument renamed
      Optional<OpSchema.Argument> renamed = unknown.size() == unfilled.size() ? Optional.of(unfilled.get(i))
          : Optional.empty();
      String consequence = renamed.map(r -> ": the proxy executor matches arguments by name, so it drops '" + a.name()
          + "' and " + ProxyExecutorTypes.unfilled(r.type())).orElse(": the proxy executor drops the value and calls the op without it");
      out.add(new Mismatch(a.name(), "argument '" + a.name() + "' of " + op + ", which the package passes: " + passes(a),
          "the library's schema has no argument '" + a.name() + "'" + renamed.map(r -> " (renamed '" + r.name() + "'?)")
              .orElse("") + consequence,
          passes(a), renamed.map(OpSchema.Argument::toString).orElse(now.toString()), "argument renamed or removed"));
    }
    if (unknown.size() != unfilled.size()) {
      for (OpSchema.Argument x : unfilled) {
        out.add(new Mismatch(x.name(), "every argument of " + op + " the package does not pass has a default",
            "the library's schema has " + x + ", with no default, which the package does not pass: "
                + ProxyExecutorTypes.unfilled(x.type()),
            "(nothing for '" + x.name() + "')", x.toString(), "argument without a default"));
      }
    }
    out.addAll(returns(call, now, then));
    return out;
  }

  private static List<Mismatch> returns(AotiPackage.ExternCall call, OpSchema now, Optional<OpSchema> then) {
    String recorded = "(" + String.join(", ", call.outputs()) + ")";
    String registered = now.returns().toString();
    if (call.outputs().size() != now.returns().size()) {
      return List.of(new Mismatch(RETURNS, call.target() + " returns " + call.outputs().size() + " value(s), as the"
          + " package records: " + recorded, "the library's schema returns " + now.returns().size() + " " + registered
          + ": libtorch's loader refuses the whole package (\"Serialized node doesn't match operator's schema outputs\")",
          recorded, registered, "returns changed"));
    }
    List<Mismatch> out = new ArrayList<>();
    for (int i = 0; i < now.returns().size(); i++) {
      OpSchema.Return r = now.returns().get(i);
      List<String> as = ProxyExecutorTypes.output(r.type());
      if (!as.contains(call.outputs().get(i))) {
        out.add(new Mismatch(RETURNS, "return " + i + " of " + call.target() + " is " + call.outputs().get(i)
            + ", as the package records", "the library's schema returns " + r + " there, recorded as "
            + (as.isEmpty() ? "nothing the proxy executor supports" : String.join(" or ", as))
            + ": libtorch's loader refuses the whole package", recorded, registered, "returns changed"));
      }
      int at = i;
      then.filter(t -> t.returns().size() > at).map(t -> t.returns().get(at)).ifPresent(old -> {
        if (!Objects.equals(old.alias(), r.alias())) {
          out.add(annotation(RETURNS, call.target(), old.toString(), r.toString()));
        }
      });
    }
    return out;
  }

  private static Mismatch annotation(String argument, String op, String old, String now) {
    String what = argument.equals(RETURNS) ? "the returns" : "argument '" + argument + "'";
    return new Mismatch(argument, what + " of " + op + " annotated as when the package was compiled: " + old,
        "the library annotates it " + now + ": the package's code was compiled for the old contract (what the op"
            + " writes, what its outputs alias), and libtorch runs it with no error: the package may hand the op a"
            + " buffer it reads again afterwards, or its own input",
        old + " (the baseline)", now, "alias annotation changed");
  }

  /** What the package passes for {@code a}: {@code scale: as_float 0.25}, {@code x: as_tensor arg0_1}. */
  static String passes(AotiPackage.CallArgument a) {
    return a.name() + ": " + a.kind() + (a.value().isEmpty() ? "" : " " + a.value()) + (a.keyword() ? " (by keyword)" : "");
  }
}
