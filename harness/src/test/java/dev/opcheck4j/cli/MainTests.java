package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTests {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private ExitCode run(String... args) {
    Main main = new Main(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), NativeOps.repoRoot());
    return main.run(args);
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void listShowsEachOpWithSchemaAndKernels() {
    assertEquals(ExitCode.OK, run("list", "--library", NativeOps.lib("my_ops").toString()));
    assertTrue(out().lines().anyMatch(l -> l.equals(
        "my_ops::warp_perspective\tmy_ops::warp_perspective(Tensor image, Tensor warp, int height, int width) -> Tensor\t[CPU, Meta]")),
        out());
  }

  @Test
  void listShowsTheTagsAStableAbiLibraryRegisters() {
    assertEquals(ExitCode.OK, run("list", "--library", NativeOps.lib("tags_ops").toString()));
    assertTrue(out().lines().anyMatch(l -> l.startsWith("tags_ops::scale\t") && l.endsWith("\ttags: pt2_compliant_tag")), out());
    assertTrue(out().lines().anyMatch(l -> l.startsWith("tags_ops::t_\t") && l.endsWith("\ttags: inplace_view")), out());
    assertTrue(out().lines().anyMatch(l -> l.startsWith("tags_ops::positive_untagged\t") && !l.contains("tags:")), out());
  }

  @Test
  void listOfANonLibraryIsOneClearLine() {
    assertEquals(ExitCode.INPUT_ERROR, run("list", "--library", "/etc/hostname"));
    assertEquals("opcheck: not a shared library (no ELF header): /etc/hostname\n", err());
  }

  @Test
  void listOfAMissingFileIsOneClearLine() {
    assertEquals(ExitCode.INPUT_ERROR, run("list", "--library", "/nonexistent.so"));
    assertEquals("opcheck: library not found: /nonexistent.so\n", err());
  }

  @Test
  void checkingBadOpsExitsOneAndGoodOpsZero() {
    assertEquals(ExitCode.CHECK_FAILED, run("check", "--library", NativeOps.lib("bad_ops").toString(), "--check", "schema"));
    assertTrue(out().contains("FAILED [schema.types] bad_ops::dict_arg"), out());
    assertEquals(ExitCode.OK, run("check", "--library", NativeOps.lib("good_ops").toString()));
  }

  /**
   * Issue 41: `check` reads each spec once, for its run and its GitHub annotations alike (it read it twice,
   * and once more per runtime of a run on several).
   */
  @Test
  void checkReadsEachSpecOnceForTheRunAndItsAnnotations() {
    Path spec = NativeOps.spec("bad/bad_ops.json");
    Main main = new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
        NativeOps.repoRoot(), java.util.Map.of("GITHUB_ACTIONS", "true")::get);
    long before = dev.opcheck4j.spec.SpecReader.parses();
    assertEquals(ExitCode.CHECK_FAILED, main.run("check", "--spec", spec.toString(), "--check", "schema.types",
        "--op", "bad_ops::dict_arg", "--tries", "0"));
    assertEquals(1, dev.opcheck4j.spec.SpecReader.parses() - before, "spec files parsed by one check of one spec");
    assertTrue(out().lines().anyMatch(l -> l.startsWith("::error file=" + spec + ",line=19,title=schema.types::")),
        "the annotation is at the op's line of the spec, named as the command line gave it: " + out());
  }

  @Test
  void anUnknownCheckIsAUsageError() {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("good_ops").toString(), "--check", "nope"));
    assertTrue(err().startsWith("opcheck: unknown check or family 'nope'; known: registration.exists"), err());
  }

  @Test
  void anUnknownOpIsOneLineWithSuggestionsBeforeAnythingRuns() {
    // issue 20: a typo in --op stops the run before it starts, rather than a failed registration.exists after it
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("my_ops").toString(),
        "--op", "my_ops::mul_ad", "--op", "my_ops::mul_add", "--check", "registration"));
    assertEquals("opcheck: --op my_ops::mul_ad: no spec entry or library names it; nearest: my_ops::mul_add, my_ops::crop,"
        + " my_ops::paste\n", err());
    assertEquals("", out());
  }

  @Test
  void aSpecErrorStopsTheRunBeforeAnyKernelAndWritesNoReport(@TempDir Path dir) throws IOException {
    Path spec = refused(dir, "my_ops", "{\"op\": \"my_ops::mul_add\",\n\"examples\": [{\"args\": [{\"tensor\": [2],"
        + " \"dtype\": \"fp32\"}, {\"tensor\": [2]}, 1.0, 7]}]}");
    assertTrue(err().startsWith("opcheck: " + spec + ":3:"), err());
    assertTrue(err().contains("op 'my_ops::mul_add' example #1 argument 'a': unknown dtype \"fp32\"; did you mean float32?"), err());
    assertTrue(err().contains("example #1: takes 3 positional arguments"), err());
    assertTrue(err().contains("2 spec errors; no check ran and no report was written"), err());
    assertTrue(!out().contains("summary: "), out());
  }

  @Test
  void aFamilyMemberNamingAnUnknownOpIsOneLineNamingFileAndOpBeforeAnyKernel(@TempDir Path dir) throws IOException {
    Path spec = refused(dir, "variant_ops", "{\"op\": \"variant_ops::sixfold_inplace\",\n\"variant_of\":"
        + " {\"op\": \"variant_ops::sixfld\", \"kind\": \"in-place\"}}");
    assertTrue(err().startsWith("opcheck: " + spec + ":3:15: op 'variant_ops::sixfold_inplace' \"variant_of\": names"
        + " 'variant_ops::sixfld', which the library does not register; nearest: variant_ops::sixfold"), err());
    assertEquals(1, err().lines().count(), err());
  }

  /**
   * Runs a spec of native-ops' {@code library} with the one op entry {@code entry} (its second line begins
   * with it), which the run must refuse as input, exit 2, before writing a report; the spec's path.
   */
  private Path refused(Path dir, String library, String entry) throws IOException {
    Path spec = Files.writeString(dir.resolve("spec.json"), "{\"library\": \"" + NativeOps.lib(library) + "\",\n"
        + "\"ops\": [" + entry + "]}\n");
    Path reports = dir.resolve("reports");
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", spec.toString(), "--report-dir", reports.toString()));
    assertTrue(Files.notExists(reports), "no report dir for a run that never started");
    return spec;
  }

  @Test
  void aMalformedSpecGivesFileLineAndColumn(@TempDir Path dir) throws IOException {
    Path spec = Files.writeString(dir.resolve("bad.json"), "{\n  \"library\": \"x.so\",\n  \"ops\": [ {\"op\": } ]\n}\n");
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", spec.toString()));
    assertTrue(err().startsWith("opcheck: " + spec + ":3:"), err());
    assertEquals(1, err().lines().count(), err());
  }

  @Test
  void checksListsEveryCheckWithItsSeverity() {
    assertEquals(ExitCode.OK, run("checks"));
    for (dev.opcheck4j.checks.Check c : dev.opcheck4j.checks.builtin.BuiltinChecks.all()) {
      assertTrue(out().lines().anyMatch(l -> l.startsWith(c.id() + " ") && l.contains(" " + c.severity().label() + " ")
          && l.contains(c.summary())), c.id() + " missing from:\n" + out());
    }
    assertTrue(out().lines().anyMatch(l -> l.matches("generate\\.domain +warning .*")), out());
    assertTrue(out().lines().anyMatch(l -> l.matches("fake\\.metadata +error .*")), out());
  }

  @Test
  void warningsNeverChangeTheExitCodeUnlessMadeErrors(@TempDir Path dir) throws IOException {
    Path spec = Files.writeString(dir.resolve("crop.json"), """
        { "library": "%s",
          "ops": [ { "op": "my_ops::crop", "vary": {"box": {"int": [0, 64]}},
                     "examples": [ { "args": [ {"tensor": [3, 8, 8]}, [0, 0, 4, 4] ] } ] } ] }
        """.formatted(NativeOps.lib("my_ops")));
    assertEquals(ExitCode.OK, run("check", "--spec", spec.toString(), "--check", "generate.domain", "--device", "cpu", "--tries", "30"));
    assertTrue(out().contains("WARNING [generate.domain] my_ops::crop on cpu"), out());
    assertEquals(ExitCode.CHECK_FAILED, run("check", "--spec", spec.toString(), "--check", "generate.domain",
        "--device", "cpu", "--tries", "30", "--warnings-as-errors"));
    assertTrue(out().contains("FAILED [generate.domain] my_ops::crop on cpu"), out());
    Path strict = Files.writeString(dir.resolve("strict.json"), Files.readString(spec).replaceFirst("\\{", "{ \"warnings-as-errors\": true,"));
    assertEquals(ExitCode.CHECK_FAILED, run("check", "--spec", strict.toString(), "--check", "generate.domain", "--device", "cpu", "--tries", "30"));
  }

  @Test
  void aLibraryWithBugsAndNoSpecExitsOneNeverZero() {
    assertEquals(ExitCode.CHECK_FAILED, run("check", "--library", NativeOps.lib("bad_ops").toString(), "--tries", "0",
        "--device", "cpu"));
    // examples were synthesized, so value checks ran and found the bugs
    assertTrue(out().contains("FAILED [mutation.undeclared] bad_ops::mutates_input on cpu"), out());
    assertTrue(out().contains("FAILED [noncontiguous] bad_ops::ignores_strides on cpu"), out());
    // an op no example runs on is a failure of its own check, not a silent pass
    assertTrue(out().contains("FAILED [generate.examples] bad_ops::raises"), out());
    assertTrue(out().contains("none of 128 candidates synthesized from the schema ran on cpu"), out());
  }

  @Test
  void initWritesASpecSkeletonThatChecksWithNoInputErrors(@TempDir Path dir) throws IOException {
    Path spec = dir.resolve("my.yaml");
    assertEquals(ExitCode.OK, run("init", "--library", NativeOps.lib("my_ops").toString(), "--out", spec.toString()));
    assertTrue(out().contains("wrote " + spec + ": 4 ops, 4 with an example"), out());
    String yaml = Files.readString(spec);
    assertTrue(yaml.contains("  - op: \"my_ops::crop\"\n    # my_ops::crop(Tensor pic, int[] box) -> Tensor\n"), yaml);
    assertTrue(yaml.contains("      - args: [{tensor: [3, 4], dtype: \"float32\"}, {tensor: [3, 4], dtype: \"float32\"}, 0.5]"), yaml);
    ExitCode code = run("check", "--spec", spec.toString(), "--tries", "10");
    // no input errors and no failure: crop and paste are composites, so init marked their inputs
    // requires_grad and gradcheck ran on them; the backend-only ops get opcheck's verdict plus a warning
    assertEquals("", err());
    assertEquals(ExitCode.OK, code, out());
    assertTrue(yaml.contains("      - args: [{tensor: [2, 3, 4], dtype: \"float32\", requires_grad: true}, [0, 0, 1, 1]]"), yaml);
    assertEquals(java.util.List.of("WARNING [autograd.differentiable] my_ops::mul_add on cpu, meta",
        "WARNING [autograd.differentiable] my_ops::warp_perspective on cpu, meta"),
        out().lines().filter(l -> l.startsWith("WARNING [autograd")).toList(), out());
    assertTrue(out().contains("gradcheck never ran on 2 of 4 ops: the op has no Autograd or CompositeImplicitAutograd"), out());
  }

  @Test
  void initPrintsTheSkeletonWithoutOut() {
    assertEquals(ExitCode.OK, run("init", "--library", NativeOps.lib("good_ops").toString()));
    assertTrue(out().startsWith("# opcheck4j spec for libgood_ops.so"), out());
    assertTrue(out().contains("library: \"" + NativeOps.lib("good_ops").toAbsolutePath().normalize() + "\""), out());
  }

  @Test
  void initAsksForGradientsOnlyOfOpsThatCanCarryThem() {
    assertEquals(ExitCode.OK, run("init", "--library", NativeOps.lib("good_ops").toString()));
    String yaml = out();
    // scaled_square is CompositeImplicitAutograd; add_scalar has backend kernels only
    String scaled = yaml.substring(yaml.indexOf("op: \"good_ops::scaled_square\""));
    scaled = scaled.substring(0, scaled.indexOf("  - op:") < 0 ? scaled.length() : scaled.indexOf("  - op:"));
    assertTrue(scaled.contains("- args: [{tensor: [3, 4], dtype: \"float32\", requires_grad: true}"), scaled);
    String add = yaml.substring(yaml.indexOf("op: \"good_ops::add_scalar\""));
    add = add.substring(0, add.indexOf("  - op:"));
    assertTrue(add.contains("- args: [") && !add.contains("requires_grad"), add);
  }

  @Test
  void aVaryKeyThatIsNoArgumentIsAnInputErrorWithItsLocation(@TempDir Path dir) throws IOException {
    Path spec = Files.writeString(dir.resolve("v.json"), """
        { "library": "%s",
          "ops": [ { "op": "my_ops::crop", "vary": {"bx": {"int": [0, 4]}},
                     "examples": [ { "args": [ {"tensor": [3, 8, 8]}, [0, 0, 4, 4] ] } ] } ] }
        """.formatted(NativeOps.lib("my_ops")));
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", spec.toString(), "--tries", "0", "--check", "schema"));
    assertEquals("opcheck: " + spec + ":2:51: op 'my_ops::crop' \"vary\" argument 'bx': is not an argument of the op;"
        + " did you mean box?", err().strip());
    assertTrue(!out().contains("summary: "), "the run never started: " + out());
  }

  @Test
  void anUnknownCommandIsAUsageError() {
    assertEquals(ExitCode.INPUT_ERROR, run("frobnicate"));
    // the list of Commands, so that adding a command does not change this test
    java.util.List<String> names = Commands.names();
    assertEquals("opcheck: unknown command 'frobnicate'; expected " + String.join(", ", names.subList(0, names.size() - 1))
        + " or " + names.get(names.size() - 1) + "\n", err());
    assertTrue(err().startsWith("opcheck: unknown command 'frobnicate'; expected list, checks, check, init, model, baseline,"
        + " demo, merge, report"), err());
  }

  @Test
  void versionPrintsToolAndLibtorchVersionsWithoutLoadingLibtorch() {
    assertEquals(ExitCode.OK, run("--version"));
    assertTrue(out().matches("opcheck4j \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\nlibtorch 2\\.13\\.0 \\(JavaCPP presets 1\\.5\\.14\\)\n"), out());
  }

  @Test
  void checkHelpAndDashHPrintTheCheckOptions() {
    assertEquals(ExitCode.OK, run("check", "--help"));
    assertTrue(out().startsWith("usage: opcheck check (--spec FILE | --library LIB)... [options]"), out());
    assertTrue(out().contains("--tries N"), out());
    out.reset();
    assertEquals(ExitCode.OK, run("check", "-h"));
    assertTrue(out().contains("--report-dir DIR"), out());
  }

  @Test
  void aMistypedCommandOrOptionGetsADidYouMean() {
    assertEquals(ExitCode.INPUT_ERROR, run("chekc"));
    assertEquals("opcheck: unknown command 'chekc'; did you mean check?\n", err());
    err.reset();
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--sede", "3"));
    assertEquals("opcheck: unknown option '--sede'; did you mean --seed? (see --help)\n", err());
  }

  @Test
  void anUnknownOptionIsCalledUnknownEvenAsTheLastArgument() {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", "x.json", "--frobnicate"));
    assertEquals("opcheck: unknown option '--frobnicate' (see --help)\n", err());
    err.reset();
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec"));
    assertEquals("opcheck: --spec needs a value\n", err());
  }

  @Test
  void reportWithoutAKnownGeneratorSaysWhichExist() {
    assertEquals(ExitCode.INPUT_ERROR, run("report", "alure", "x"));
    assertTrue(err().startsWith("opcheck: report takes NAME DIR with NAME one of "), err());
  }

  @Test
  void initRefusesToOverwriteAnExistingSpecWithoutForce(@TempDir Path dir) throws IOException {
    Path spec = Files.writeString(dir.resolve("ops.yaml"), "# edited by hand\n");
    assertEquals(ExitCode.INPUT_ERROR, run("init", "--library", NativeOps.lib("good_ops").toString(), "--out", spec.toString()));
    assertEquals("opcheck: " + spec + " exists; init does not overwrite a spec you may have edited (give --force to)\n", err());
    assertEquals("# edited by hand\n", Files.readString(spec));
    assertEquals(ExitCode.OK, run("init", "--library", NativeOps.lib("good_ops").toString(), "--out", spec.toString(), "--force"),
        err());
    assertTrue(Files.readString(spec).contains("good_ops::"), Files.readString(spec));
  }

  @Test
  void modelHelpShowsTheModelUsage() {
    assertEquals(ExitCode.OK, run("model", "--help"));
    assertTrue(out().contains("model MODEL.pt|PACKAGE.pt2 [--library LIB]..."), out());
    assertTrue(out().contains("--input VALUE"), out());
  }

  @Test
  void aMisspelledCheckSuggestsTheNearestOne() {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("good_ops").toString(), "--check", "gradchek"));
    assertEquals("opcheck: unknown check or family 'gradchek'; did you mean gradcheck? (./opcheck checks lists them)\n", err());
    assertEquals("", out());
  }

  @Test
  void anOpNamespaceSelectsEveryOpOfItAndAnUnknownOneIsOneLine() {
    // ns::* is the rerun line of a finding about a whole library (a crash no single op's call repeats)
    assertEquals(ExitCode.OK, run("check", "--library", NativeOps.lib("good_ops").toString(), "--op", "good_ops::*",
        "--check", "registration.exists", "--tries", "0"));
    assertTrue(out().contains("summary: 6 passed, 0 warning, 0 failed"), out());
    out.reset();
    err.reset();
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("good_ops").toString(), "--op", "nope::*"));
    assertTrue(err().startsWith("opcheck: --op nope::*: no spec entry or library names it"), err());
    assertEquals(1, err().lines().count(), err());
  }

  @Test
  void anUnknownOpIsOneLineWithTheNearestNamesAndNoBanner() {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("good_ops").toString(), "--op", "good_ops::add_scalr"));
    assertTrue(err().startsWith("opcheck: --op good_ops::add_scalr: no spec entry or library names it; nearest: good_ops::add_scalar"),
        err());
    assertEquals(1, err().lines().count(), err());
    assertEquals("", out());
  }

  @Test
  void aMissingSpecOrLibraryIsOneLineWithNoBanner(@TempDir Path dir) throws IOException {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", dir.resolve("nope.json").toString()));
    assertEquals("opcheck: " + dir.resolve("nope.json") + ": spec file not found\n", err());
    assertEquals("", out());
    err.reset();
    Path spec = Files.writeString(dir.resolve("s.json"), "{\"library\": \"missing.so\", \"ops\": [{\"op\": \"a::b\"}]}");
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--spec", spec.toString()));
    assertEquals(1, err().lines().count(), err());
    assertTrue(err().startsWith("opcheck: library not found: " + dir.resolve("missing.so")), err());
    assertEquals("", out());
  }

  @Test
  void aMalformedModelInputIsRejectedBeforeTheModelLoads(@TempDir Path dir) throws IOException {
    // not a model at all: had it been loaded, the error would be about the file
    Path model = Files.writeString(dir.resolve("m.pt"), "not a model");
    assertEquals(ExitCode.INPUT_ERROR, run("model", model.toString(), "--input", "float32[16,x]"));
    assertEquals("opcheck: --input 'float32[16,x]' is not a value: expected DTYPE[d0,d1,...] (e.g. float32[16,16]), int:N,"
        + " float:X, bool:B or a .pt file saved by torch.save\n", err());
    for (String ok : new String[] {"float32[16,16]", "[2]", "int:8", "float:0.5", "bool:true", "int64[]"}) {
      assertTrue(ModelCommand.isValue(ok), ok);
    }
    for (String bad : new String[] {"int:x", "bool:yes", "float32[4,3] transposed", "flaot32[2]", "16,16"}) {
      assertFalse(ModelCommand.isValue(bad), bad);
    }
  }
}
