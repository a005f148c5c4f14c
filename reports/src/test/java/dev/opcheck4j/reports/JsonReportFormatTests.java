package dev.opcheck4j.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.RunReport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Seals the machine-readable format: a change to opcheck-report.json must change this golden file. */
class JsonReportFormatTests {

  static RunReport sample() {
    return new RunReport("2.10.0", "1.5.13", Instant.parse("2026-11-22T10:00:00Z"), 1234,
        List.of(
            new CheckResult("my_ops::mul_add", "schema.types", "-", "-", Outcome.PASSED, List.of(), 1),
            new CheckResult("bad_ops::dict_arg", "schema.types", "-", "-", Outcome.FAILED,
                List.of(new Fact("expected", "custom-op types only"),
                    new Fact("but was", "argument 'd' has type Dict(str, Tensor)"),
                    new Fact("hint", "pass \"values\" as Tensor[]")), 2),
            new CheckResult("my_ops::mul_add", "registration.device-kernel", "cuda", "-", Outcome.SKIPPED,
                List.of(new Fact("reason", "no CUDA device in this process")), 0),
            new CheckResult("good_ops::sin_into", "mutation.unused", "cpu", "good_ops.json#ops[1].examples[0]",
                Outcome.WARNING, List.of(new Fact("expected", "every argument declared (a!) is written by the example"),
                    new Fact("but was", "'out' declared (a!) but not changed by this example")), 3)),
        List.of(
            CheckInfo.error("schema.types", CheckInfo.Scope.OP, "every argument and return type is a legal custom-op type"),
            CheckInfo.error("registration.device-kernel", CheckInfo.Scope.DEVICE, "the op has a kernel for the device under test"),
            CheckInfo.warning("mutation.unused", CheckInfo.Scope.EXAMPLE, "every argument declared Tensor(a!) is changed by the example")));
  }

  @Test
  void matchesTheGoldenFile() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new JsonReportFormat().write(sample(), out);
    String golden;
    try (InputStream in = getClass().getResourceAsStream("/golden/opcheck-report.json")) {
      golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertEquals(golden, out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void isFoundByTheServiceLoader() {
    assertEquals(List.of("json"),
        java.util.ServiceLoader.load(dev.opcheck4j.api.ReportFormat.class).stream()
            .map(p -> p.get().name()).toList());
  }
}
