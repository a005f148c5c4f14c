package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.session.SupervisorChecks;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Replies;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.supervisor.WorkerProcess;
import dev.opcheck4j.run.plan.RunRequest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Several units in one exchange with a real worker: the answers come back in order, a guard that
 * does not pass stops the rest, a death is attributed to the unit in flight with the answers of
 * the units before it, each kind of unit has its own kind of answer, a parent of another protocol
 * version gets one clear error, and a stopped worker is gone.
 */
class WorkerProtocolTests {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private Path dir;
  private WorkerProcess worker;

  @BeforeEach
  void start() throws Exception {
    dir = Files.createTempDirectory("opcheck4j-protocol-");
    Protocol.Init init = new Protocol.Init(List.of(NativeOps.lib("crash_ops")));
    worker = WorkerProcess.start(dir, 1, init, DEADLINE, lib -> {}, SupervisorChecks.BUILTIN).worker();
  }

  @AfterEach
  void stop() {
    worker.close();
  }

  private static Example tensor(long... sizes) {
    List<SpecValue> shape = new ArrayList<>();
    for (long s : sizes) {
      shape.add(new SpecValue(s, "t.json:1:1"));
    }
    return new Example("t.json#ops[0].examples[0]",
        List.of(new SpecValue(Map.of("tensor", new SpecValue(shape, "t.json:1:1")), "t.json:1:1")), Map.of());
  }

  private static Protocol.On on(String op, Example e) {
    return new Protocol.On(0, op, Device.CPU, e, 1L, Protocol.On.NO_REF);
  }

  private static Protocol.Unit<?> accepts(String op, Example e) {
    return new Protocol.Accepts(on(op, e));
  }

  private static Protocol.Unit<?> evaluate(String op, String check, Example e) {
    return new Protocol.Evaluate(check, on(op, e));
  }

  @Test
  void unitsOfOneExchangeAnswerByTheirIds() {
    Kernels.Exchange x = worker.run(List.of(), List.of(accepts("crash_ops::chatty", tensor(3)),
        evaluate("crash_ops::chatty", "kernel.error", tensor(3)), evaluate("crash_ops::chatty", "kernel.error", tensor(2))),
        true, DEADLINE);
    assertEquals(Optional.empty(), x.death());
    assertEquals(java.util.Set.of(x.first(), x.first() + 1, x.first() + 2), x.answers().keySet());
    assertEquals(new Answers.Accepted(), x.single(Answers.Acceptance.class));
    for (int i = 1; i < 3; i++) {
      assertEquals(Outcome.PASSED, ((Answers.Checked) x.done(i).orElseThrow().answer()).verdict().outcome(), x.toString());
    }
    x.answers().values().forEach(d -> assertTrue(d.micros() > 0, d.toString()));
    Kernels.Exchange next = worker.run(List.of(), List.of(accepts("crash_ops::chatty", tensor(3))), false, DEADLINE);
    assertEquals(x.first() + 3, next.first(), "ids go on from one exchange to the next");
    assertEquals(java.util.Set.of(next.first()), next.answers().keySet());
  }

  @Test
  void aGuardThatDoesNotPassStopsTheRest() {
    // huge_alloc raises (an allocation error) instead of running: the checks after it are not run, and the
    // parent learns it from their ids' absence
    Kernels.Exchange x = worker.run(List.of(), List.of(accepts("crash_ops::huge_alloc", tensor(3)),
        evaluate("crash_ops::huge_alloc", "kernel.error", tensor(3))), true, DEADLINE);
    assertEquals(Optional.empty(), x.death());
    assertEquals(java.util.Set.of(x.first()), x.answers().keySet(), x.toString());
    assertTrue(x.single(Answers.Acceptance.class) instanceof Answers.Rejected r && !r.firstLine().isEmpty(),
        x.toString());
  }

  @Test
  void aDeathIsAValueNamingTheUnitInFlightAndKeepsTheAnswersBeforeIt() {
    Kernels.Exchange x = worker.run(List.of(), List.of(accepts("crash_ops::chatty", tensor(3)),
        accepts("crash_ops::chatty", tensor(4)), accepts("crash_ops::null_deref", tensor(3)),
        accepts("crash_ops::chatty", tensor(5))), false, DEADLINE);
    Death d = x.death().orElseThrow(() -> new AssertionError("the worker did not die: " + x));
    assertEquals(new dev.opcheck4j.api.Cause.Crash("SIGSEGV"), d.cause());
    assertEquals(x.first() + 2, d.unit(), "the third unit was in flight");
    assertEquals(java.util.Set.of(x.first(), x.first() + 1), x.answers().keySet());
    x.answers().values().forEach(a -> assertEquals(new Answers.Accepted(), a.answer()));
    assertTrue(d.message().contains("SIGSEGV"), d.message());
  }

  @Test
  void eachKindOfUnitGetsItsOwnKindOfAnswer() {
    Answers.Bound bound = worker.run(null, new Protocol.Bind(on("crash_ops::chatty", tensor(3))), DEADLINE)
        .single(Answers.Bound.class);
    assertTrue(bound.description().contains("[3]"), bound.toString());
    Example wrong = new Example("t.json#ops[0].examples[1]", List.of(), Map.of());
    assertTrue(worker.run(null, new Protocol.Bind(on("crash_ops::chatty", wrong)), DEADLINE)
        .single(Answers.Binding.class) instanceof Answers.Unbindable);
    Answers.Synthesized s = worker.run(null, new Protocol.Synthesize(0, "crash_ops::chatty", 1L), DEADLINE)
        .single(Answers.Synthesized.class);
    assertTrue(s.found().example().isPresent(), s.toString());
  }

  @Test
  void aWorkerOfAnotherProtocolVersionIsOneLoadErrorNotAHang() throws Exception {
    Protocol.Init init = new Protocol.Init(List.of(NativeOps.lib("crash_ops")));
    List<String> loading = new java.util.ArrayList<>();
    // a hang would end in a Death at the deadline, not in this LoadError
    WorkerProcess.LoadError e = assertThrows(WorkerProcess.LoadError.class,
        () -> WorkerProcess.start(dir, 2, init, DEADLINE, loading::add, SupervisorChecks.BUILTIN, Protocol.VERSION + 1));
    assertEquals(new Replies.Mismatch(Protocol.VERSION).describe(Protocol.VERSION + 1), e.getMessage());
    assertFalse(e.getMessage().contains("\n"));
    assertEquals(List.of(), loading, "answered before loading anything");
  }

  /** Workers that share the cores wait passively between libtorch's parallel regions; a lone one keeps libtorch's way. */
  @Test
  void workersThatShareTheCoresDoNotSpin() throws Exception {
    Assumptions.assumeTrue(System.getenv("OMP_WAIT_POLICY") == null, "the caller set OMP_WAIT_POLICY; it stands");
    Protocol.Init two = new Protocol.Init(List.of(NativeOps.lib("crash_ops")), null, 2);
    WorkerProcess shared = WorkerProcess.start(dir, 3, two, DEADLINE, lib -> {}, SupervisorChecks.BUILTIN).worker();
    try {
      assertTrue(environment(shared.pid()).contains("OMP_WAIT_POLICY=PASSIVE"));
    } finally {
      shared.close();
    }
    assertFalse(environment(worker.pid()).stream().anyMatch(e -> e.startsWith("OMP_WAIT_POLICY=")), "one worker of one");
  }

  private static List<String> environment(long pid) throws java.io.IOException {
    return List.of(new String(java.nio.file.Files.readAllBytes(Path.of("/proc/" + pid + "/environ")),
        java.nio.charset.StandardCharsets.UTF_8).split("\0"));
  }

  @Test
  void aStoppedWorkerIsGone() {
    long pid = worker.pid();
    worker.close();
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "worker " + pid + " still runs");
  }

  /** Issue 18: a stop reaches a worker JVM that is still starting, instead of waiting for it to load libtorch. */
  @Test
  void terminateAllReachesAWorkerThatIsStillStarting() throws Exception {
    Protocol.Init init = new Protocol.Init(List.of(NativeOps.lib("crash_ops")));
    java.util.concurrent.CountDownLatch launched = new java.util.concurrent.CountDownLatch(1);
    WorkerProcess.launched = n -> {
      if (n == 7) {
        launched.countDown();
      }
    };
    var result = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return WorkerProcess.start(dir, 7, init, DEADLINE, lib -> {}, SupervisorChecks.BUILTIN);
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
    result.whenComplete((started, failed) -> launched.countDown()); // a start that failed before launching
    // the worker JVM runs long before it connects and loads anything: told so, the test stops it
    try {
      launched.await();
    } finally {
      WorkerProcess.launched = n -> {};
    }
    WorkerProcess.terminateAll();
    try {
      var e = assertThrows(java.util.concurrent.CompletionException.class, result::join);
      assertTrue(e.getCause() instanceof IllegalStateException && e.getCause().getMessage().startsWith("the worker JVM did not start"),
          e.getCause().toString());
    } finally {
      if (!result.isCompletedExceptionally()) {
        result.join().worker().close(); // a failed assertion leaves no worker behind for the next test
      }
    }
  }
}
