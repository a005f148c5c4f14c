package dev.opcheck4j.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectFile;

import dev.opcheck4j.testing.NativeOps;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestTag;
import org.junit.platform.testkit.engine.EngineDiscoveryResults;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

class OpCheckEngineTests {
  @TempDir Path dir;

  EngineTestKit.Builder kit(String spec, String... params) {
    EngineTestKit.Builder b = EngineTestKit.engine(OpCheckEngine.ID).selectors(selectFile(NativeOps.spec(spec).toFile()))
        .configurationParameter("opcheck4j.reportDir", dir.toString());
    for (int i = 0; i < params.length; i += 2) {
      b.configurationParameter(params[i], params[i + 1]);
    }
    return b;
  }

  static List<String> names(EngineExecutionResults r, java.util.function.Predicate<Event> which) {
    return r.allEvents().stream().filter(which).map(e -> e.getTestDescriptor().getDisplayName()).toList();
  }

  /** The ops of the discovered specs that are tests in a shard: by opcheck4j.shard, the CI engine's variables, the timings. */
  private static List<String> shardOps(java.util.Map<String, String> env, String... params) {
    EngineTestKit.Builder b = EngineTestKit.engine(new OpCheckEngine(env::get, () -> System.out))
        .selectors(selectFile(NativeOps.spec("good_ops.json").toFile())).configurationParameter("opcheck4j.checks", "schema.types");
    for (int i = 0; i < params.length; i += 2) {
      b.configurationParameter(params[i], params[i + 1]);
    }
    TestDescriptor spec = b.discover().getEngineDescriptor().getChildren().iterator().next();
    return spec.getChildren().stream().map(TestDescriptor::getDisplayName).filter(n -> n.contains("::")).toList();
  }

  /** The engine's trace.specialization test on cpu for trace_ops::copy_sizes_meta: its result and its reporting entries' keys. */
  private static List<String> specialisation(EngineExecutionResults r) {
    Event finished = r.testEvents().finished().stream()
        .filter(e -> e.getTestDescriptor().getDisplayName().startsWith("trace.specialization on cpu")).findFirst().orElseThrow();
    List<String> entries = r.allEvents().reportingEntryPublished().stream()
        .filter(e -> e.getTestDescriptor().getDisplayName().startsWith("trace.specialization on cpu"))
        .flatMap(e -> e.getRequiredPayload(org.junit.platform.engine.reporting.ReportEntry.class).getKeyValuePairs().keySet()
            .stream()).toList();
    List<String> seen = new java.util.ArrayList<>(List.of(
        finished.getRequiredPayload(TestExecutionResult.class).getStatus().name()));
    seen.addAll(entries);
    return seen;
  }

  /**
   * A note check's finding passes its test with a "note" reporting entry; opcheck4j.strict makes it a warning
   * (a "warning" entry, still passing); with opcheck4j.warningsAsErrors too, the test fails.
   */
  @Test
  void aNoteIsAPassedTestWithANoteEntryAndStrictMakesItAWarningWhichWarningsAsErrorsFails() {
    String[] one = {"opcheck4j.ops", "trace_ops::copy_sizes_meta", "opcheck4j.checks", "trace.specialization",
        "opcheck4j.tries", "0", "opcheck4j.devices", "cpu"};
    assertEquals(List.of("SUCCESSFUL", "note"), specialisation(kit("trace/trace_ops.json", one).execute()));
    List<String> strict = new java.util.ArrayList<>(List.of(one));
    strict.addAll(List.of("opcheck4j.strict", "true"));
    assertEquals(List.of("SUCCESSFUL", "warning"), specialisation(kit("trace/trace_ops.json", strict.toArray(String[]::new)).execute()));
    strict.addAll(List.of("opcheck4j.warningsAsErrors", "true"));
    assertEquals(List.of("FAILED"), specialisation(kit("trace/trace_ops.json", strict.toArray(String[]::new)).execute()));
  }

  @Test
  void aSpecNoneOfWhoseOpsIsInTheShardRunsNothing() {
    // good_ops' 6 ops and my_ops' 4, discovered in this order: by index shard 2/10 has good_ops::sin_into only
    EngineExecutionResults r = EngineTestKit.engine(OpCheckEngine.ID)
        .selectors(selectFile(NativeOps.spec("good_ops.json").toFile()), selectFile(NativeOps.spec("my_ops.json").toFile()))
        .configurationParameter("opcheck4j.reportDir", dir.resolve("reports").toString())
        .configurationParameter("opcheck4j.checks", "schema.types,registration").configurationParameter("opcheck4j.shard", "2/10")
        .execute();
    List<String> ran = r.testEvents().succeeded().stream().map(e -> e.getTestDescriptor().getUniqueId().toString())
        .filter(id -> id.contains("/[op:")).toList();
    assertTrue(!ran.isEmpty() && ran.stream().allMatch(id -> id.contains("[op:good_ops%3A%3Asin_into]")), ran.toString());
    // each spec the engine runs has a report dir of its own: my_ops never ran (no ops would have been all of them)
    assertTrue(Files.isDirectory(dir.resolve("reports/runs/good_ops.json")));
    assertTrue(!Files.exists(dir.resolve("reports/runs/my_ops.json")), "my_ops ran, with none of its ops in the shard");
  }

  @Test
  void aShardOfTheEngineIsItsPartOfTheOpsByTheKeyTheCiEnginesVariablesOrTheTimings() throws Exception {
    assertEquals(List.of("good_ops::sin_into", "good_ops::scaled_square"), shardOps(java.util.Map.of(), "opcheck4j.shard", "2/3"),
        "by index: ops 1 and 4 of 6");
    assertEquals(List.of("good_ops::add_scalar", "good_ops::sum_list"),
        shardOps(java.util.Map.of("BUILDKITE_PARALLEL_JOB", "0", "BUILDKITE_PARALLEL_JOB_COUNT", "3")), "Buildkite's job 0 is shard 1/3");
    assertEquals(List.of("good_ops::sin_into", "good_ops::scaled_square"),
        shardOps(java.util.Map.of("BUILDKITE_PARALLEL_JOB", "0", "BUILDKITE_PARALLEL_JOB_COUNT", "3"), "opcheck4j.shard", "2/3"),
        "the key comes before the variables");
    Path timings = new dev.opcheck4j.run.shard.OpTimings(java.util.Map.of("good_ops::add_scalar", 1L, "good_ops::sin_into", 1L,
        "good_ops::min_max", 9L, "good_ops::sum_list", 1L, "good_ops::scaled_square", 1L, "good_ops::rowwise_dot", 1L),
        java.util.Map.of(), "t").write(dir);
    // min_max (9) alone in shard 1; the five light ones fill shards 2 and 3, the lowest index on a tie
    assertEquals(List.of("good_ops::min_max"), shardOps(java.util.Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", "0"),
        "opcheck4j.timings", timings.toString()));
    assertEquals(List.of("good_ops::add_scalar", "good_ops::sum_list", "good_ops::rowwise_dot"),
        shardOps(java.util.Map.of("TEST_TOTAL_SHARDS", "3", "TEST_SHARD_INDEX", "1"), "opcheck4j.timings", timings.toString()));
  }

  @Test
  void onAMachineThatCannotHaveCudaAnOpsChecksOnCudaAreOneTestWithNoChildren() {
    java.util.function.BooleanSupplier detect = EngineTree.cudaPossible;
    EngineTree.cudaPossible = () -> false;
    try {
      TestDescriptor spec = kit("my_ops.json", "opcheck4j.checks", "fake,schema.types").discover().getEngineDescriptor()
          .getChildren().iterator().next();
      TestDescriptor op = spec.getChildren().stream().filter(c -> c.getDisplayName().equals("my_ops::mul_add")).findFirst().orElseThrow();
      TestDescriptor cuda = op.getChildren().stream().filter(c -> c.getDisplayName().equals("checks on cuda")).findFirst().orElseThrow();
      assertTrue(cuda.isTest(), "one test: Allure lists a skipped container's tests one by one");
      assertTrue(cuda.getChildren().isEmpty(), cuda.getChildren().toString());
      assertEquals(Set.of("cuda"), cuda.getTags().stream().map(TestTag::getName).collect(Collectors.toSet()));
    } finally {
      EngineTree.cudaPossible = detect;
    }
  }

  @Test
  void discoveryGivesSpecOpCheckDeviceWithReadableNamesStableIdsAndTags() {
    java.util.function.BooleanSupplier detect = EngineTree.cudaPossible;
    EngineTree.cudaPossible = () -> true;
    EngineDiscoveryResults d;
    try {
      d = kit("my_ops.json", "opcheck4j.checks", "fake,schema.types").discover();
    } finally {
      EngineTree.cudaPossible = detect;
    }
    TestDescriptor root = d.getEngineDescriptor();
    TestDescriptor spec = root.getChildren().iterator().next();
    assertEquals("my_ops.json", spec.getDisplayName());
    TestDescriptor op = spec.getChildren().stream().filter(c -> c.getDisplayName().equals("my_ops::mul_add")).findFirst().orElseThrow();
    Set<String> tests = op.getChildren().stream().map(TestDescriptor::getDisplayName).collect(Collectors.toSet());
    assertTrue(tests.containsAll(Set.of("schema.types", "fake.missing", "fake.metadata on cpu", "checks on cuda")), tests.toString());
    // an op's checks on cuda are one container, so a machine without a GPU skips one node per op
    TestDescriptor cuda = op.getChildren().stream().filter(c -> c.getDisplayName().equals("checks on cuda")).findFirst().orElseThrow();
    assertTrue(cuda.getChildren().stream().anyMatch(c -> c.getDisplayName().equals("fake.metadata on cuda")), cuda.getChildren().toString());
    assertEquals(List.of("op:my_ops::mul_add", "device:cuda", "check:fake.metadata"), cuda.getChildren().stream()
        .filter(c -> c.getDisplayName().equals("fake.metadata on cuda")).findFirst().orElseThrow().getUniqueId().getSegments()
        .stream().skip(2).map(s -> s.getType() + ":" + s.getValue()).toList());
    TestDescriptor fake = op.getChildren().stream().filter(c -> c.getDisplayName().equals("fake.metadata on cpu")).findFirst().orElseThrow();
    assertEquals(List.of("engine:opcheck4j", "spec:" + NativeOps.spec("my_ops.json"), "op:my_ops::mul_add",
        "check:fake.metadata", "device:cpu"), fake.getUniqueId().getSegments().stream().map(s -> s.getType() + ":" + s.getValue()).toList());
    assertEquals(Set.of("fake", "fake.metadata", "cpu", "error"), fake.getTags().stream().map(TestTag::getName).collect(Collectors.toSet()));
    List<String> examples = fake.getChildren().stream().map(TestDescriptor::getDisplayName).toList();
    assertEquals(List.of("example #1 (float32[4,3], float32[4,3], 0.5)", "example #2 (float64[2,3], float64[2,3], -2.0)"), examples);
  }

  @Test
  void aTagsOwnCheckIsATestOfTheOpsWithTheTagOnly() {
    TestDescriptor spec = kit("tags/tags_ops.json", "opcheck4j.checks", "tags").discover().getEngineDescriptor()
        .getChildren().iterator().next();
    java.util.function.Function<String, Set<String>> testsOf = name -> spec.getChildren().stream()
        .filter(c -> c.getDisplayName().equals(name)).flatMap(c -> c.getChildren().stream())
        .map(TestDescriptor::getDisplayName).collect(Collectors.toSet());
    // discovery reads the spec alone, which declares no tag: the tags tags_ops registers are known once a
    // worker loads it, so no op has a test of a tag's own check yet (here no test at all: the nodes are pruned)
    assertEquals(Set.of(), testsOf.apply("tags_ops::fresh_t_"));
    assertEquals(Set.of(), testsOf.apply("tags_ops::dropout"));
    // the results of the check on the ops that register the tag become tests as they come, and only theirs
    // (kernel.error gives the spec tests at discovery, without which the engine would not run it at all)
    EngineExecutionResults view = kit("tags/tags_ops.json", "opcheck4j.checks", "kernel.error,tags.inplace-view",
        "opcheck4j.tries", "0", "opcheck4j.devices", "cpu").execute();
    assertEquals(Set.of("tags_ops::fresh_t_|tags.inplace-view|cpu", "tags_ops::t_|tags.inplace-view|cpu"),
        view.allEvents().dynamicallyRegistered().stream()
            .flatMap(e -> e.getTestDescriptor().getUniqueId().getSegments().stream())
            .filter(seg -> seg.getType().equals("result")).map(seg -> seg.getValue().replaceFirst("\\|\\d+$", ""))
            .collect(Collectors.toSet()));
    // a results check's verdict is a test as it comes, a failed one for a tag that is not earned
    EngineExecutionResults r = kit("tags/tags_ops.json", "opcheck4j.checks", "fake,tags", "opcheck4j.tries", "0",
        "opcheck4j.ops", "tags_ops::scale_wrong_meta").execute();
    assertEquals(Set.of("fake.metadata", "tags.pt2-compliant"), r.testEvents().failed().stream()
        .map(e -> e.getTestDescriptor().getUniqueId().getSegments().stream().filter(seg -> seg.getType().equals("check"))
            .map(seg -> seg.getValue()).findFirst().orElse(e.getTestDescriptor().getDisplayName()))
        .collect(Collectors.toSet()));
  }

  /** The engine once ran only the checks with nodes, and so never the checks of an op's finished results. */
  @Test
  void aRequiredFamilyThatNeverRanFailsInTheEngineToo() {
    EngineExecutionResults r = kit("tags/tags_ops.json", "opcheck4j.checks", "fake.missing,coverage.required",
        "opcheck4j.tries", "0", "opcheck4j.ops", "tags_ops::scale", "opcheck4j.require", "gradcheck").execute();
    assertEquals(List.of("coverage.required"), r.testEvents().failed().stream()
        .map(e -> e.getTestDescriptor().getDisplayName().replaceFirst(" .*", "")).toList());
  }

  @Test
  void discoveryReadsSpecsAndLoadsNoNativeCode() throws Exception {
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), DiscoveryProbe.class.getName(), NativeOps.spec("my_ops.json").toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    assertTrue(out.matches("(?s).*tests=[1-9][0-9]+ libtorch=false.*"), out);
  }

  @OpCheckSpec("opinputs/mul_add.yaml")
  static class Anchor {}

  @Test
  void anAnnotatedClassAnchorsItsSpecs() {
    TestDescriptor root = EngineTestKit.engine(OpCheckEngine.ID)
        .selectors(org.junit.platform.engine.discovery.DiscoverySelectors.selectClass(Anchor.class)).discover().getEngineDescriptor();
    assertEquals(List.of("mul_add.yaml"), root.getChildren().stream().map(TestDescriptor::getDisplayName).toList());
    assertEquals("spec:opinputs/mul_add.yaml", root.getChildren().iterator().next().getUniqueId().getLastSegment().getType()
        + ":" + root.getChildren().iterator().next().getUniqueId().getLastSegment().getValue());
  }

  @Test
  void goodOpsPassEveryTestWithTheGeneratedInputsAsTheirOwnTest() {
    EngineExecutionResults r = kit("good_ops.json", "opcheck4j.checks", "schema,fake", "opcheck4j.tries", "5",
        "opcheck4j.devices", "cpu,meta").execute();
    assertEquals(0, r.testEvents().failed().count(), () -> r.testEvents().failed().stream().map(Object::toString).toList().toString());
    assertTrue(r.testEvents().succeeded().count() > 10);
    assertTrue(names(r, e -> true).contains("5 generated inputs"), names(r, e -> true).toString());
    everyTestStartsBeforeItFinishesAndNoneTakesTheRunsTime(r);
  }

  /** The times come from the run's events, not from durations held open after the fact. */
  static void everyTestStartsBeforeItFinishesAndNoneTakesTheRunsTime(EngineExecutionResults r) {
    java.util.Map<TestDescriptor, java.time.Instant> started = new java.util.HashMap<>();
    for (Event e : r.allEvents().list()) {
      switch (e.getType()) {
        case STARTED -> assertEquals(null, started.put(e.getTestDescriptor(), e.getTimestamp()), e.toString());
        case FINISHED -> {
          java.time.Instant start = started.get(e.getTestDescriptor());
          assertTrue(start != null && !e.getTimestamp().isBefore(start), "started before finished: " + e);
        }
        default -> { }
      }
    }
  }

  @Test
  void aFailureCarriesTheRenderedFactsAndNoStackTrace() {
    EngineExecutionResults r = kit("bad/bad_ops.json", "opcheck4j.checks", "schema.types", "opcheck4j.ops", "bad_ops::dict_arg").execute();
    Event failed = r.testEvents().failed().stream().findFirst().orElseThrow();
    Throwable t = failed.getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
    assertTrue(t instanceof CheckFailedError, t.toString());
    assertTrue(t.getMessage().startsWith("FAILED [schema.types] bad_ops::dict_arg\n  expected : custom-op types only"), t.getMessage());
    assertEquals(0, t.getStackTrace().length);
  }

  /** Both shapes of the cuda node: a container (where a GPU may exist) and one test (where none can). */
  @org.junit.jupiter.params.ParameterizedTest(name = "cuda node a container: {0}")
  @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
  void withoutAGpuEachOpsChecksOnCudaAreOneSkippedNodeWithTheReason(boolean container) {
    if (dev.opcheck4j.torch.TorchRuntime.get().cudaAvailable()) {
      return;
    }
    java.util.function.BooleanSupplier detect = EngineTree.cudaPossible;
    EngineTree.cudaPossible = () -> container;
    EngineExecutionResults r;
    try {
      r = kit("good_ops.json", "opcheck4j.checks", "registration,fake,schema", "opcheck4j.devices", "cpu,cuda").execute();
    } finally {
      EngineTree.cudaPossible = detect;
    }
    List<Event> skipped = r.allEvents().skipped().list();
    long ops = r.containerEvents().started().stream()
        .filter(e -> e.getTestDescriptor().getUniqueId().getLastSegment().getType().equals("op")).count();
    assertTrue(ops > 1, "good_ops.json has several ops");
    assertEquals(ops, skipped.size(), "one skip per op: " + skipped);
    for (Event e : skipped) {
      assertEquals("checks on cuda", e.getTestDescriptor().getDisplayName());
      assertEquals("no CUDA device in this process (torch.cuda_is_available() is false)", e.getPayload(String.class).orElseThrow());
    }
    assertTrue(r.testEvents().succeeded().count() > 0, "the cpu checks still run");
  }

  @Test
  void anExpectedFailurePassesAndAStaleOneFails() throws Exception {
    Path xfail = Files.writeString(dir.resolve("xfail.json"), """
        {"bad_ops::dict_arg": {"schema.types": "kept for compatibility"},
         "bad_ops::scale_": {"schema.types": "pretend it used to fail"}}""");
    EngineExecutionResults r = kit("bad/bad_ops.json", "opcheck4j.checks", "schema.types",
        "opcheck4j.ops", "bad_ops::dict_arg,bad_ops::scale_", "opcheck4j.expectedFailures", xfail.toString()).execute();
    assertEquals(List.of("schema.types (expected failure)"), names(r, e -> e.getType() == org.junit.platform.testkit.engine.EventType.FINISHED
        && e.getPayload(TestExecutionResult.class).map(x -> x.getStatus() == TestExecutionResult.Status.FAILED).orElse(false)));
  }

  /** Issue 17: a spec error found when the examples are bound is the spec's failed test, and nothing passes. */
  @Test
  void aSpecErrorFailsTheSpecsInputTestWithItsLocationAndNoCheckPasses() throws Exception {
    Path spec = Files.writeString(dir.resolve("typo.json"), "{\"library\": \"" + NativeOps.lib("my_ops")
        + "\",\n \"ops\": [{\"op\": \"my_ops::mul_add\", \"examples\": [{\"args\": [\n"
        + "  {\"tensor\": [4, 3], \"dtype\": \"fp32\"}, {\"tensor\": [4, 3]}, 0.5]}]}]}\n");
    EngineExecutionResults r = EngineTestKit.engine(OpCheckEngine.ID).selectors(selectFile(spec.toFile()))
        .configurationParameter("opcheck4j.reportDir", dir.resolve("reports").toString())
        .configurationParameter("opcheck4j.checks", "schema,fake").execute();
    Event failed = r.testEvents().failed().stream().findFirst().orElseThrow();
    assertEquals(1, r.testEvents().failed().count(), r.testEvents().failed().stream().map(Object::toString).toList().toString());
    assertEquals(EngineTree.INPUT_NAME, failed.getTestDescriptor().getDisplayName());
    String message = failed.getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow().getMessage();
    assertTrue(message.matches("(?s).*" + java.util.regex.Pattern.quote(spec.toString())
        + ":3:\\d+: op 'my_ops::mul_add' example #1 argument 'a': unknown dtype.*"), message);
    assertTrue(message.contains("did you mean float32?"), message);
    assertEquals(0, r.testEvents().succeeded().count(), "no check passes on a spec that never ran");
    assertTrue(r.testEvents().skipped().stream().allMatch(e -> e.getPayload(String.class).orElse("").startsWith("not run: ")),
        "every check says it did not run because of the spec error");
  }

  /** Issue 41: the engine reads each spec once, at discovery, and hands it to the run and to the annotations. */
  @Test
  void theEngineReadsEachSpecOnceForDiscoveryTheRunAndTheAnnotations() {
    Path spec = NativeOps.spec("bad/bad_ops.json");
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
    long before = dev.opcheck4j.spec.SpecReader.parses();
    EngineTestKit.engine(new OpCheckEngine(java.util.Map.of("GITHUB_ACTIONS", "true")::get, () -> out))
        .selectors(selectFile(spec.toFile()))
        .configurationParameter("opcheck4j.reportDir", dir.resolve("reports-once").toString())
        .configurationParameter("opcheck4j.checks", "schema.types")
        .configurationParameter("opcheck4j.ops", "bad_ops::dict_arg").execute();
    assertEquals(1, dev.opcheck4j.spec.SpecReader.parses() - before, "spec files parsed by the engine on one spec");
    assertEquals(1, bytes.toString(java.nio.charset.StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("::error ")).count(),
        "the run and its annotation happened: " + bytes);
  }

  /** Issue 29: under GitHub Actions a failed test is an ::error annotation at its spec line, as `check` prints it. */
  @Test
  void underGitHubActionsAFailedTestIsAnErrorAnnotationAtItsSpecLineAndAnExpectedFailureIsNot() throws Exception {
    Path spec = NativeOps.spec("bad/bad_ops.json");
    java.util.function.Function<java.util.Map<String, String>, String> run = env -> {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      java.io.PrintStream out = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
      EngineTestKit.Builder b = EngineTestKit.engine(new OpCheckEngine(env::get, () -> out)).selectors(selectFile(spec.toFile()))
          .configurationParameter("opcheck4j.reportDir", dir.resolve("reports" + env.size()).toString())
          .configurationParameter("opcheck4j.checks", "schema.types")
          .configurationParameter("opcheck4j.ops", "bad_ops::dict_arg,bad_ops::scale_");
      if (env.containsKey("xfail")) {
        b.configurationParameter("opcheck4j.expectedFailures", env.get("xfail"));
      }
      b.execute();
      return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    };
    String github = run.apply(java.util.Map.of("GITHUB_ACTIONS", "true", "GITHUB_WORKSPACE", spec.getParent().getParent().toString()));
    List<String> annotations = github.lines().filter(l -> l.startsWith("::error")).toList();
    assertEquals(1, annotations.size(), github);
    assertTrue(annotations.get(0).startsWith("::error file=bad/bad_ops.json,line=19,title=schema.types::FAILED [schema.types]"
        + " bad_ops::dict_arg%0A  expected : custom-op types only"), annotations.get(0));

    assertEquals(List.of(), run.apply(java.util.Map.of()).lines().filter(l -> l.contains("::error")).toList(),
        "no annotations outside GitHub Actions");

    Path xfail = Files.writeString(dir.resolve("xfail.json"), "{\"bad_ops::dict_arg\": {\"schema.types\": \"kept for compatibility\"}}");
    assertEquals(List.of(), run.apply(java.util.Map.of("GITHUB_ACTIONS", "true", "xfail", xfail.toString())).lines()
        .filter(l -> l.contains("::error")).toList(), "an expected failure is a passed test");
  }

  @Test
  void anAnnotationNamesTheSpecTheRepositoryHoldsNotMavensCopy(@TempDir Path project) throws Exception {
    Path copy = project.resolve("target/test-classes/opcheck/ops.yaml");
    Files.createDirectories(copy.getParent());
    Files.writeString(copy, "library: x\n");
    assertEquals(Path.of("target/test-classes/opcheck/ops.yaml"), OpCheckEngine.repositoryFile(copy, project),
        "no source beside it: the file read");
    Files.createDirectories(project.resolve("src/test/resources/opcheck"));
    Files.writeString(project.resolve("src/test/resources/opcheck/ops.yaml"), "library: x\n");
    assertEquals(Path.of("src/test/resources/opcheck/ops.yaml"), OpCheckEngine.repositoryFile(copy, project));
    assertEquals(project.resolve("src/test/resources/opcheck/ops.yaml"), OpCheckEngine.repositoryFile(copy, project.resolve("elsewhere")),
        "outside the workspace: absolute");
  }

  /** Issue 18: the engine's per-spec run dir is locked like the CLI's report dir. */
  @Test
  void aSpecRunDirInUseByAnotherRunIsTheSpecsFailedInputTest() throws Exception {
    Path runDir = dir.resolve("runs").resolve("my_ops.json");
    try (dev.opcheck4j.reporting.ReportDirLock held = dev.opcheck4j.reporting.ReportDirLock.acquire(runDir, "another engine")) {
      EngineExecutionResults r = kit("my_ops.json", "opcheck4j.checks", "schema.types").execute();
      Event failed = r.testEvents().failed().stream().findFirst().orElseThrow();
      assertEquals(EngineTree.INPUT_NAME, failed.getTestDescriptor().getDisplayName());
      String message = failed.getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow().getMessage();
      assertEquals("report dir " + runDir + " is in use by pid " + ProcessHandle.current().pid() + " (another engine); "
          + "wait for that run to end or give another --report-dir", message);
      assertEquals(0, r.testEvents().succeeded().count());
    }
  }
}
