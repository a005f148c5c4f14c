package dev.opcheck4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.run.session.CheckOn;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The one plan of an op's own check runs, without a worker: a result cache's keys and the steps a run
 * sends come from it, so they cannot disagree, whatever examples the op ends up with.
 */
class OpPlanTests {
  private static final List<Device> DEVICES = List.of(Device.CPU, Device.META, Device.CUDA);
  private static final Example EXAMPLE = new Example("t.json#ops[0].examples[0]",
      List.of(new SpecValue(2L, "t.json:1:1")), Map.of(), 0, "t.json:1:1");
  private static final Example OTHER = new Example("t.json#ops[0].examples[1]",
      List.of(new SpecValue(3L, "t.json:2:1")), Map.of(), 0, "t.json:2:1");

  /**
   * For every entry of every bundled spec: the keys the cache asks an entry for (the spec's entry before an
   * example is synthesized) are the distinct (check, device) pairs of the steps a run sends, with the
   * examples the entry has, none, one synthesized, or examples that do not fit.
   */
  @Test
  void theCacheKeysOfEveryBundledOpAreTheChecksOnDevicesOfItsSteps() throws Exception {
    List<Path> specs;
    try (Stream<Path> files = Files.walk(Path.of("../fixtures/specs"))) {
      specs = files.filter(p -> p.getFileName().toString().endsWith("_ops.json")).sorted().toList();
    }
    assertTrue(specs.size() >= 10, "the bundled specs are found: " + specs);
    int entries = 0;
    for (Path file : specs) {
      for (OpSpec spec : SpecReader.read(file).ops()) {
        OpTags tags = OpTags.of(List.of(), spec);
        List<CheckOn> keys = plan(tags, spec.examples(), Map.of()).keys();
        List<List<Example>> examples = List.of(spec.examples(), List.of(), List.of(EXAMPLE), List.of(EXAMPLE, OTHER));
        for (List<Example> given : examples) {
          for (Map<Example, String> invalid : List.of(Map.<Example, String>of(), Map.of(EXAMPLE, "x: no such dtype"))) {
            OpPlan steps = plan(tags, given, invalid);
            assertEquals(keys, distinctPairs(steps), spec.ref() + " with " + given.size() + " examples");
          }
        }
        entries++;
      }
    }
    assertTrue(entries > 100, "every entry was planned: " + entries);
  }

  @Test
  void anExampleCheckOnAnOpWithNoExamplesIsOneSkipPerDevice() {
    OpPlan plan = plan(OpTags.NONE, List.of(), Map.of());
    List<OpPlan.Step> examples = plan.steps().stream()
        .filter(s -> s.check().scope() == CheckInfo.Scope.EXAMPLE).toList();
    assertFalse(examples.isEmpty());
    for (OpPlan.Step s : examples) {
      assertNull(s.example());
      assertEquals("no examples for this op (give some in a spec file)", s.preset().reason(), s.toString());
    }
    for (Check c : BuiltinChecks.all()) {
      if (c.scope() == CheckInfo.Scope.EXAMPLE && c.appliesTo(OpTags.NONE) && c.appliesWith(null)) {
        assertEquals(DEVICES.stream().filter(c::appliesTo).toList(),
            examples.stream().filter(s -> s.check() == c).map(OpPlan.Step::device).toList(), c.id());
      }
    }
    assertTrue(plan.steps().stream().filter(s -> s.check().scope() != CheckInfo.Scope.EXAMPLE)
        .allMatch(s -> s.preset() == null && s.example() == null), "a check on the op or a device is decided when it runs");
  }

  @Test
  void anInvalidExampleIsSkippedWithItsReasonAndTheOthersRun() {
    OpPlan plan = plan(OpTags.NONE, List.of(EXAMPLE, OTHER), Map.of(EXAMPLE, "x: expected a tensor"));
    List<OpPlan.Step> first = plan.steps().stream().filter(s -> s.example() == EXAMPLE).toList();
    List<OpPlan.Step> second = plan.steps().stream().filter(s -> s.example() == OTHER).toList();
    assertFalse(first.isEmpty());
    assertEquals(first.size(), second.size(), "each example check on each device, once per example");
    first.forEach(s -> assertEquals("invalid example: x: expected a tensor", s.preset().reason(), s.toString()));
    second.forEach(s -> assertNull(s.preset(), s.toString()));
    assertEquals(0, plan.steps().stream().filter(s -> s.check().scope() == CheckInfo.Scope.EXAMPLE && s.example() == null)
        .count(), "an op with examples has no no-examples skip");
  }

  @Test
  void onlyTheOpsOwnChecksHaveSteps() {
    OpPlan plan = plan(OpTags.NONE, List.of(EXAMPLE), Map.of());
    List<CheckInfo.Scope> own = List.of(CheckInfo.Scope.OP, CheckInfo.Scope.DEVICE, CheckInfo.Scope.EXAMPLE);
    assertTrue(plan.steps().stream().allMatch(s -> own.contains(s.check().scope())));
    assertTrue(plan.steps().stream().filter(s -> s.check().scope() == CheckInfo.Scope.OP).allMatch(s -> s.device() == null));
    List<String> inOrder = new ArrayList<>(new LinkedHashSet<>(plan.steps().stream().map(s -> s.check().id()).toList()));
    assertEquals(BuiltinChecks.all().stream().map(Check::id).filter(inOrder::contains).toList(), inOrder,
        "the steps follow the run's checks in order");
  }

  private static OpPlan plan(OpTags tags, List<Example> examples, Map<Example, String> invalid) {
    return OpPlan.of(BuiltinChecks.all(), null, tags, DEVICES, examples, invalid);
  }

  private static List<CheckOn> distinctPairs(OpPlan plan) {
    return List.copyOf(new LinkedHashSet<>(plan.steps().stream().map(s -> new CheckOn(s.check().id(), s.device())).toList()));
  }
}
