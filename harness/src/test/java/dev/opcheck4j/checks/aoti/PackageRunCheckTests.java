package dev.opcheck4j.checks.aoti;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.PackageSubject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.PackageEntry;
import dev.opcheck4j.torch.AotiPackage;
import dev.opcheck4j.torch.AotiRun;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** aoti.run's verdict from a package's run, and when it has none to give. */
class PackageRunCheckTests {
  static final Path DIR = Path.of("/shipped");
  static final PackageEntry RUNNABLE = new PackageEntry(DIR.resolve("m.pt2"), List.of(DIR.resolve("x.pt")),
      DIR.resolve("out.pt"), null, "spec.json:3:5");

  static Verdict verdict(AotiPackage pkg, PackageEntry entry, Set<String> devices, AotiRun run) {
    return new PackageRunCheck().evaluatePackage(new PackageSubject(pkg, entry, Map.of(), List.of("libm.so"), null,
        devices, Optional.ofNullable(run))).get(0).verdict();
  }

  static AotiPackage compiledFor(String device) {
    return new AotiPackage(DIR.resolve("m.pt2"), "model", Map.of(AotiPackage.DEVICE_KEY, device), List.of());
  }

  @Test
  void aCudaPackageOnAMachineWithoutAGpuIsSkippedWithTheReason() {
    Verdict v = verdict(compiledFor("cuda"), RUNNABLE, Set.of("cpu"), null);
    assertEquals(Outcome.SKIPPED, v.outcome());
    assertEquals("compiled for cuda, which this machine does not have", v.reason());
  }

  @Test
  void aPackageNamedWithoutInputsIsCheckedNotRun() {
    Verdict v = verdict(compiledFor("cpu"), PackageEntry.of(DIR.resolve("m.pt2"), "--package m.pt2"), Set.of("cpu"), null);
    assertEquals(Outcome.SKIPPED, v.outcome());
    assertEquals(true, v.reason().startsWith("the package is checked, not run"));
  }

  @Test
  void aRunThatMatchesPassesAndOneThatDiffersFailsWithTheComparisonsFacts() {
    AotiRun same = new AotiRun(null, Map.of(), List.of(), 1, List.of("float32[4, 3]"),
        new AotiRun.Comparison(1, null, List.of(), List.of()), List.of());
    Verdict passed = verdict(compiledFor("cpu"), RUNNABLE, Set.of("cpu"), same);
    assertEquals(Outcome.PASSED, passed.outcome());
    assertEquals(Optional.of("1"), passed.facts().stream().filter(f -> f.key().equals(PackageRunCheck.COMPARED))
        .map(Fact::value).findFirst());
    AotiRun other = new AotiRun(null, Map.of(), List.of(), 1, List.of("float32[4, 3]"), new AotiRun.Comparison(0,
        "output: 12 of 12 elements differ", List.of(Fact.of("max abs error", "1.25")), List.of()), List.of(0));
    Verdict failed = verdict(compiledFor("cpu"), RUNNABLE, Set.of("cpu"), other);
    assertEquals(Outcome.FAILED, failed.outcome());
    assertEquals("output: 12 of 12 elements differ", failed.finding().actual());
    assertEquals(Optional.of("input 0 (the package wrote into them)"), failed.facts().stream()
        .filter(f -> f.key().equals(PackageRunCheck.CHANGED_INPUTS)).map(Fact::value).findFirst());
  }

  @Test
  void aLoadThatFailsIsAFindingInOurWordsAndUnusableInputsAreNoFinding() {
    Verdict load = verdict(compiledFor("cpu"), RUNNABLE, Set.of("cpu"), AotiRun.failed(AotiRun.Stage.LOAD,
        "Error in dlopen: /tmp/w/worker-1.tmp/aotinductor_AbC123/m/data/aotinductor/model/c.so: file too short"));
    assertEquals(Outcome.FAILED, load.outcome());
    assertEquals("loading it failed: Error in dlopen: <in the package>/m/data/aotinductor/model/c.so: file too short",
        load.finding().actual());
    Verdict inputs = verdict(compiledFor("cpu"), RUNNABLE, Set.of("cpu"), AotiRun.failed(AotiRun.Stage.INPUTS,
        "the package takes 2 tensors (its call spec), --input gave 1"));
    assertEquals(Outcome.SKIPPED, inputs.outcome(), "the entry's files are the spec's input error, not the package's");
  }
}
