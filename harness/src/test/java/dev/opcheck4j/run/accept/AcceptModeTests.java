package dev.opcheck4j.run.accept;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.run.plan.ExpectedFailures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AcceptModeTests {
  static final String HAND_WRITTEN = """
      # expected failures of the ops we ship

      # the Dict argument waits for upstream
      my::dict_arg:
        schema.types: "Dict is not a custom-op argument type"  # see the issue
      "spec:specs/other.json":
        # only the other suite has it
        my::other:
          kernel.error: raises on purpose
      my::fixed:
        # this one was fixed since
        mutation.undeclared: writes x
        alias: returns x
      # trailing note
      """;

  private static CheckResult failed(String op, String check, String device, String actual) {
    return new CheckResult(op, check, device, CheckResult.NONE, Outcome.FAILED,
        List.of(new Fact("expected", "something"), new Fact("but was", actual)), 0)
        .withFinding(Finding.of("something", actual + "\nsecond line", null, new Cause.ValueMismatch("output 0")), null);
  }

  private static CheckResult passed(String op, String check, String device) {
    return new CheckResult(op, check, device, CheckResult.NONE, Outcome.PASSED, List.of(), 0);
  }

  @Test
  void addsNewFailuresRemovesUnexpectedPassesAndKeepsCommentsAndOrder(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("xfail.yaml"), HAND_WRITTEN);
    ExpectedFailures read = ExpectedFailures.read(file);
    ExpectedFailures.Entry gone = read.entries().stream().filter(e -> e.key().equals("mutation.undeclared")).findFirst()
        .orElseThrow();
    List<CheckResult> results = List.of(
        failed("my::dict_arg", "schema.types", "-", "Dict(str, Tensor)")
            .expected(read.entries().get(0).expectation(read.file())),
        new CheckResult("my::fixed", "mutation.undeclared", "-", "-", Outcome.UNEXPECTED_PASS, List.of(), 0, null, null,
            null, null, gone.expectation(read.file())),
        failed("my::new", "fake.metadata", "cpu", "sizes [2, 3] but the meta kernel said [3, 2]"),
        passed("my::new", "fake.metadata", "meta"),
        failed("my::new", "kernel.error", "cpu", "raised: bad"),
        failed("my::new", "kernel.error", "meta", "raised: bad"),
        failed("my::fixed", "alias.outputs", "cpu", "the same tensor twice"));
    AcceptMode accepted = AcceptMode.of(file, results);
    assertEquals(List.of("my::new fake.metadata@cpu", "my::new kernel.error", "my::fixed alias.outputs"), accepted.added());
    assertEquals(List.of("my::fixed mutation.undeclared"), accepted.removed());
    assertEquals("""
        # expected failures of the ops we ship

        # the Dict argument waits for upstream
        my::dict_arg:
          schema.types: Dict is not a custom-op argument type  # see the issue
        spec:specs/other.json:
          # only the other suite has it
          my::other:
            kernel.error: raises on purpose
        my::fixed:
          alias: returns x
          # alias.outputs on cpu: the same tensor twice
          alias.outputs: "TODO: explain"
        my::new:
          # fake.metadata on cpu: sizes [2, 3] but the meta kernel said [3, 2]
          fake.metadata@cpu: "TODO: explain"
          # kernel.error on cpu, meta: raised: bad
          kernel.error: "TODO: explain"
        # trailing note
        """, accepted.after());
    accepted.write();
    assertEquals(accepted.after(), Files.readString(file));
    try (var left = Files.list(dir)) {
      assertEquals(List.of(file), left.toList(), "the temporary file is gone");
    }
    assertEquals(6, ExpectedFailures.read(file).entries().size(), "it reads back");
    List<String> diff = accepted.diff();
    assertEquals("--- " + file, diff.get(0));
    assertTrue(diff.contains("-  mutation.undeclared: writes x"), String.join("\n", diff));
    assertTrue(diff.contains("+  kernel.error: \"TODO: explain\""), String.join("\n", diff));
  }

  @Test
  void aRunThatPassesAsListedLeavesTheFileByteForByte(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("xfail.yaml"), HAND_WRITTEN);
    ExpectedFailures read = ExpectedFailures.read(file);
    AcceptMode accepted = AcceptMode.of(file, List.of(
        failed("my::dict_arg", "schema.types", "-", "Dict").expected(read.entries().get(0).expectation(read.file())),
        passed("my::dict_arg", "kernel.error", "cpu")));
    assertFalse(accepted.changed());
    assertEquals(List.of(), accepted.diff());
    assertEquals("accept: " + file + ": 0 entries added, 0 removed (unchanged)", accepted.summary());
  }

  @Test
  void aNewJsonFileIsWrittenAsJson(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("xfail.json");
    AcceptMode accepted = AcceptMode.of(file, List.of(failed("my::op", "schema.types", "-", "Dict")));
    accepted.write();
    assertEquals("""
        {
          "my::op": {
            // schema.types: Dict
            "schema.types": "TODO: explain"
          }
        }
        """, Files.readString(file));
    assertEquals("TODO: explain", ExpectedFailures.read(file).entries().get(0).reason());
    assertEquals(List.of("--- " + file, "+++ " + file, "@@ -1,0 +1,6 @@", "+{", "+  \"my::op\": {",
        "+    // schema.types: Dict", "+    \"schema.types\": \"TODO: explain\"", "+  }", "+}"), accepted.diff());
  }

  @Test
  void aFailureAboutAWholeLibraryCannotBeListedAndSaysSo(@TempDir Path dir) throws Exception {
    AcceptMode accepted = AcceptMode.of(dir.resolve("x.yaml"), List.of(failed("my|other::*", "schema.compatible", "-", "x")));
    assertFalse(accepted.changed());
    assertEquals(List.of("schema.compatible about my|other::*: not about one op, no entry can name it"), accepted.unlisted());
  }
}
