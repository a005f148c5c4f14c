package dev.opcheck4j.run;

import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.generate.ExampleBinder;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.VariantOf;
import dev.opcheck4j.torch.UnknownOpException;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a run checks before any kernel runs: every example of every spec entry bound to its op's
 * schema (as the worker reported it), in plain Java. A run with any problem never starts.
 */
final class Preflight {
  private Preflight() {}

  /** Every check id and family, the names a spec's {@code "skip"} may use. */
  static Set<String> checkNames() {
    Set<String> names = new TreeSet<>();
    for (Check c : BuiltinChecks.all()) {
      names.add(c.id());
      names.add(c.family());
    }
    return names;
  }

  /**
   * Every problem of the targets' references ({@code "reference"}, and examples' {@code "expect"}
   * files), one located line each, by entry: each is compiled by TorchScript against its op's schema (each
   * file read by libtorch) in the worker {@code kernels} runs on, which runs no kernel to do so. A
   * problem is its own entry's: the caller leaves that entry out and runs the others.
   *
   * @return the problems of each entry that has some, keyed by {@link Entry}, in plan order; or how
   *     compiling killed the worker (no op can be blamed)
   */
  static References referenceErrors(List<RunPlan.Target> targets, Kernels kernels, Duration deadline) {
    List<Protocol.OpenOp> opens = new ArrayList<>();
    Batch batch = new Batch();
    Map<Entry, Batch.Ticket<Answers.ReferenceCompiled>> compiled = new LinkedHashMap<>();
    for (RunPlan.Target t : targets) {
      for (int i = 0; i < t.ops().size(); i++) {
        OpSpec op = t.ops().get(i);
        boolean expects = op.examples().stream().anyMatch(e -> e.expect().isPresent());
        if ((op.reference().isPresent() || expects) && t.library().op(op.op()).isPresent()) {
          Protocol.OpenOp open = OpSession.open(t.index(), op);
          opens.add(open);
          compiled.put(new Entry(t.index(), i), batch.add(new Protocol.CompileReference(open.ref())));
        }
      }
    }
    Map<Entry, List<String>> errors = new LinkedHashMap<>();
    if (batch.isEmpty()) {
      return new References(errors, null);
    }
    Kernels.Exchange done = kernels.run(opens, batch.units(), false, deadline);
    if (done.death().isPresent()) {
      return new References(errors, done.death().get());
    }
    compiled.forEach((entry, ticket) -> {
      List<String> problems = done.answer(ticket).problems();
      if (!problems.isEmpty()) {
        errors.put(entry, problems);
      }
    });
    return new References(errors, null);
  }

  /**
   * What compiling the references found.
   *
   * @param errors the problems of each entry that has some, keyed by {@link Entry}, in plan order
   * @param died how compiling killed the worker, or null
   */
  record References(Map<Entry, List<String>> errors, Death died) {}

  /**
   * An entry of a target, as {@link #referenceErrors} keys its problems.
   *
   * @param target the target's index in the run
   * @param entry the entry's index among the target's entries
   */
  record Entry(int target, int entry) {}

  /** Every problem of the targets' spec entries with their ops' schemas, one located line each. */
  static List<String> errors(List<RunPlan.Target> targets) {
    List<String> errors = new ArrayList<>();
    for (RunPlan.Target t : targets) {
      for (OpSpec op : t.ops()) {
        LibraryInfo.Op known = t.library().op(op.op()).orElse(null);
        if (known != null) {
          errors.addAll(ExampleBinder.errors(op, known.schema()));
        }
        variantError(op, t.library()).ifPresent(errors::add);
      }
    }
    return errors;
  }

  /** The problem of an entry's {@code "variant_of"} that names an op the library does not register, if it does. */
  static Optional<String> variantError(OpSpec op, LibraryInfo library) {
    String functional = op.variantOf().map(VariantOf::functional).orElse("");
    if (functional.isEmpty() || library.op(functional).isPresent()) {
      return Optional.empty();
    }
    List<String> near = UnknownOpException.nearest(functional, library.opNames(), 3);
    return Optional.of(op.variantOf().get().location() + ": op '" + op.op() + "' \"variant_of\": names '"
        + functional + "', which the library does not register" + (near.isEmpty() ? "" : "; nearest: " + String.join(", ", near)));
  }
}
