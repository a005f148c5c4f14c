package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.PackageCheck;
import dev.opcheck4j.checks.PackageSubject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Batch;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.RunPackage;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.torch.AotiRun;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The package checks of a target's AOTInductor packages, run with its library-wide checks: each check on each
 * package, in registry order, concluding on the package's data in this process, and the checks that run the
 * package on what one unit of the target's worker saw ({@link RunPackage}), once each check they require
 * passed on the package. Every verdict goes through the library's session, the one road to a result.
 */
final class PackageRuns {
  private final RunPlan plan;
  private final boolean cudaAvailable;

  PackageRuns(RunPlan plan, boolean cudaAvailable) {
    this.plan = plan;
    this.cudaAvailable = cudaAvailable;
  }

  /**
   * What a package check looks at: {@code p} against every op {@code libraries} register (the proxy executor finds an
   * op in whichever library registered it), on a machine with a GPU when {@code cuda}.
   */
  static PackageSubject subject(RunPlan.Package p, List<LibraryInfo> libraries, boolean cuda) {
    Map<String, PackageSubject.Registered> registered = new LinkedHashMap<>();
    for (LibraryInfo lib : libraries) {
      for (LibraryInfo.Op op : lib.ops()) {
        registered.putIfAbsent(op.name(), new PackageSubject.Registered(op.schema(), lib.path().getFileName().toString()));
      }
    }
    List<String> names = libraries.stream().map(l -> l.path().getFileName().toString()).toList();
    return new PackageSubject(p.read(), p.entry(), registered, names, p.builtWith(),
        cuda ? Set.of("cpu", "cuda") : Set.of("cpu"), Optional.empty());
  }

  /**
   * Runs the package checks of {@code target}'s packages; {@code inputErrors} gets one line per package entry whose
   * inputs or expected outputs could not be used.
   */
  void run(RunPlan.Target target, OpSession session, String libraryOp, RunListener sink, List<String> inputErrors) {
    List<LibraryInfo> libraries = plan.targets().stream().map(RunPlan.Target::library).toList();
    String file = target.library().path().getFileName().toString();
    for (RunPlan.Package p : target.packages()) {
      PackageSubject subject = subject(p, libraries, cudaAvailable);
      Map<String, String> failed = new LinkedHashMap<>();
      for (Check check : plan.checks()) {
        if (!(check instanceof PackageCheck pc)) {
          continue;
        }
        Runner.started(sink, libraryOp, check, null, null);
        long t = System.nanoTime();
        List<PackageCheck.PackageVerdict> verdicts;
        Optional<String> gate = check.requires().stream().filter(failed::containsKey).findFirst();
        if (gate.isPresent()) {
          verdicts = List.of(new PackageCheck.PackageVerdict(null, Verdict.skipped("requires " + gate.get()
              + ", which failed on " + p.entry().label() + " (" + failed.get(gate.get()) + ")")));
        } else if (pc.runsPackage() && p.entry().runnable() && subject.devices().contains(p.read().device().orElse("cpu"))) {
          Optional<AotiRun> ran = run(p, session, sink, libraryOp, check, t);
          if (ran.isEmpty()) {
            continue; // the worker died: its result is the supervisor check's, given
          }
          if (ran.get().failure() != null && (ran.get().failure().stage() == AotiRun.Stage.INPUTS
              || ran.get().failure().stage() == AotiRun.Stage.EXPECTED)) {
            inputErrors.add(p.entry().where() + ": " + ran.get().failure().message());
          }
          verdicts = evaluate(pc, subject.ran(ran.get()), libraryOp);
        } else {
          verdicts = evaluate(pc, subject, libraryOp);
        }
        long us = Runner.micros(t);
        for (PackageCheck.PackageVerdict v : verdicts) {
          String about = v.op() == null ? libraryOp : v.op();
          if (v.verdict().outcome() == Outcome.FAILED) {
            failed.putIfAbsent(check.id(), about);
          }
          CheckResult r = session.result(about, check, null, p.entry().label(), v.verdict(), us,
              session.repro(about, check.id(), null, null, null, false));
          sink.result(v.op() == null ? r.aboutLibrary(file) : r);
        }
      }
    }
  }

  private static List<PackageCheck.PackageVerdict> evaluate(PackageCheck check, PackageSubject subject, String libraryOp) {
    try {
      return check.evaluatePackage(subject);
    } catch (RuntimeException e) {
      return List.of(new PackageCheck.PackageVerdict(null,
          Verdict.errored(e.getClass().getSimpleName() + ": " + e.getMessage())));
    }
  }

  /** The package run in the target's worker; empty when the worker died (its result given here). */
  private Optional<AotiRun> run(RunPlan.Package p, OpSession session, RunListener sink, String libraryOp, Check check,
      long t) {
    Batch batch = new Batch();
    batch.add(new RunPackage(p.entry().file().toAbsolutePath(),
        p.read().model(), p.entry().inputs().stream().map(Path::toAbsolutePath).map(Path::toString).toList(),
        plan.seed(), Optional.ofNullable(p.entry().expect()).map(Path::toAbsolutePath)));
    Kernels.Exchange x = session.run(batch);
    if (x.death().isPresent()) {
      sink.result(session.result(x.death().get(), libraryOp, check, check.id() + " (running " + p.entry().label() + ")",
          null, null, List.of(), Runner.micros(t)));
      return Optional.empty();
    }
    return Optional.of(x.single(Answers.PackageRan.class).run());
  }
}
