package dev.opcheck4j.checks.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.BaselineCheck;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.DispatchTable;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.SchemaText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** schema.compatible on data alone (as a parent that loads no libtorch would run it). */
class CompatibleCheckTests {
  @Test
  void theBreakingV2AsDataFailsOncePerBreak() throws Exception {
    SchemaBaseline v1 = SchemaBaseline.read(NativeOps.repoRoot().resolve("fixtures/baselines/compat_v1.json"));
    Map<String, OpSchema> schemas = new LinkedHashMap<>();
    Map<String, DispatchTable> tables = new LinkedHashMap<>();
    for (String s : List.of(
        "compat::defaulted(Tensor x, int n) -> Tensor",
        "compat::extended(Tensor x) -> Tensor",
        "compat::meta_dropped(Tensor x) -> Tensor",
        "compat::mutated(Tensor x, Tensor(a!) y) -> Tensor",
        "compat::renamed(Tensor x, float factor) -> Tensor",
        "compat::retyped(Tensor x, float n) -> Tensor")) {
      OpSchema schema = SchemaText.parse(s);
      schemas.put(schema.name(), schema);
      tables.put(schema.name(), new DispatchTable(schema.name().endsWith("meta_dropped")
          ? Map.of("CPU", "compat_ops.cpp") : Map.of("CPU", "compat_ops.cpp", "Meta", "compat_ops.cpp")));
    }
    List<BaselineCheck.OpVerdict> verdicts = CompatibleCheck.compare(v1, "libcompat_v2.so", schemas, tables);
    Map<String, String> failed = new LinkedHashMap<>();
    for (BaselineCheck.OpVerdict v : verdicts) {
      if (v.verdict().outcome() == Outcome.FAILED) {
        failed.put(v.op(), v.verdict().facts().get(1).value());
      }
    }
    assertEquals(Map.of(
        "compat::defaulted", "argument 'n' lost its default (=2)",
        "compat::meta_dropped", "the Meta kernel is gone",
        "compat::mutated", "argument 'y' changed its alias annotation from none to (a!)",
        "compat::removed", "removed: libcompat_v2.so does not register it",
        "compat::renamed", "argument 'scale' renamed to 'factor'",
        "compat::retyped", "argument 'n' changed type from int to float"), failed);
    assertEquals(7, verdicts.size());
  }

  @Test
  void theJUnitApiTakesABaselineAndReportsEveryOpItKnew(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    SchemaBaseline v1 = SchemaBaseline.read(NativeOps.repoRoot().resolve("fixtures/baselines/compat_v1.json"));
    var entries = new java.util.ArrayList<>(v1.ops());
    entries.add(new SchemaBaseline.Entry("compat::gone", "compat::gone(Tensor x) -> Tensor", List.of("CPU"), List.of()));
    java.nio.file.Path file = dir.resolve("b.json");
    new SchemaBaseline(v1.format(), v1.library(), v1.libtorch(), entries).write(file);
    var results = dev.opcheck4j.junit.OpCheck.library(NativeOps.lib("compat_v1")).checks("schema.compatible")
        .baseline(file).tries(0).run().report().results();
    assertEquals(8, results.size(), results.toString());
    for (var r : results) {
      assertEquals(r.op().equals("compat::gone") ? Outcome.FAILED : Outcome.PASSED, r.outcome(), r.toString());
    }
  }
}
