package dev.opcheck4j.run.link;

import dev.opcheck4j.run.worker.ExampleSearch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The worker protocol without a worker: every message kind travels as its own record, and both
 * sides of the version handshake.
 */
class ProtocolTests {
  private static final Protocol.Init INIT =
      new Protocol.Init(List.of(Path.of("/x/libt.so")));
  private static final Example EXAMPLE = new Example("t.json#ops[0].examples[0]",
      List.of(new SpecValue(2L, "t.json:1:1"), new SpecValue(2.0, "t.json:1:4")), Map.of());
  private static final dev.opcheck4j.spec.OpSpec ENTRY = new dev.opcheck4j.spec.OpSpec("t::f", List.of(), Map.of(),
      Optional.empty(), List.of(EXAMPLE), "t.json#ops[0]", dev.opcheck4j.spec.OpSpec.Gradcheck.DEFAULT,
      dev.opcheck4j.spec.Vary.NONE);

  @Test
  void everyRequestTravelsAsItsOwnKind() {
    Protocol.On on = new Protocol.On(0, "t::f", Device.CPU, EXAMPLE, 7L, 1);
    List<Protocol.Request> requests = List.of(new Protocol.Start(Protocol.VERSION, INIT),
        new Protocol.Run(5, List.of(new Protocol.OpenOp(1, 0, ENTRY)), List.of(new Protocol.Accepts(on), new Protocol.Evaluate("kernel.error", on),
            new Protocol.CompileReference(1),
            new Protocol.OnRejected("rejection.message", on, "x must be float32"), new Protocol.Bind(on),
            new Protocol.Synthesize(0, "t::f", 7L), new Protocol.LoadModel(Path.of("/m.pt")),
            new Protocol.Forward(List.of("float32[2,2]"), 7L, Optional.of(Path.of("/tmp/expected.pt")))), true),
        new Protocol.Stop());
    for (Protocol.Request r : requests) {
      assertEquals(r, Wire.read(Wire.write(r), Protocol.Request.class));
    }
    assertTrue(Wire.write(requests.get(1)).startsWith("[\"Run\",{\"id\":5,\"opens\":[{\"ref\":1,\"target\":0,\"entry\":"),
        Wire.write(requests.get(1)));
  }

  /**
   * The worker reads no spec file: an entry travels whole in its {@link Protocol.OpenOp}, each of the
   * two entries of one op its own, with where each value was written (findings quote it).
   */
  @Test
  void anOpenOpCarriesItsEntryWholeWithWhereItsValuesWereWritten() throws Exception {
    Path spec = Path.of("../fixtures/specs/values/one_op_two_entries.json");
    List<dev.opcheck4j.spec.OpSpec> entries = dev.opcheck4j.spec.SpecReader.read(spec).ops();
    assertEquals(2, entries.size());
    for (int i = 0; i < entries.size(); i++) {
      Protocol.OpenOp open = new Protocol.OpenOp(i + 1, 0, entries.get(i));
      Protocol.Request run = new Protocol.Run(1, List.of(open), List.of(), false);
      Protocol.OpenOp back = ((Protocol.Run) Wire.read(Wire.write(run), Protocol.Request.class)).opens().get(0);
      assertEquals(open, back);
      assertEquals(entries.get(i).reference().orElseThrow().location(), back.entry().reference().orElseThrow().location());
      assertTrue(back.entry().reference().orElseThrow().location().matches(".*one_op_two_entries\\.json:\\d+:\\d+"),
          back.entry().reference().orElseThrow().location());
    }
  }

  @Test
  void theUnitsOfOneInputCarryItsExampleOnce() {
    Protocol.On on = new Protocol.On(0, "t::f", Device.CPU, EXAMPLE, 7L, 1);
    Protocol.On other = new Protocol.On(0, "t::f", Device.CPU, EXAMPLE, 8L, 1);
    Protocol.Run run = new Protocol.Run(1, List.of(), List.of(new Protocol.Accepts(on), new Protocol.Evaluate("kernel.error", on),
        new Protocol.Evaluate("determinism", on), new Protocol.Accepts(other), new Protocol.Evaluate("kernel.error", other)),
        true);
    String line = Wire.write(run);
    assertEquals(2, line.split("t\\.json#ops\\[0\\]", -1).length - 1, "each input's example once: " + line);
    assertEquals(1, line.split("\"t\\.json\"", -1).length - 1, "a location's file once per message: " + line);
    Protocol.Run back = (Protocol.Run) Wire.read(line, Protocol.Request.class);
    assertEquals(run, back);
    Protocol.On first = ((Protocol.OpUnit<?>) back.units().get(0)).on();
    assertTrue(first == ((Protocol.OpUnit<?>) back.units().get(2)).on(), "decoded once, shared as sent");
    assertFalse(first == ((Protocol.OpUnit<?>) back.units().get(3)).on());
    var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Wire.read(
        "[\"Run\",{\"id\":1,\"opens\":[],\"units\":[[\"Accepts\",{\"on\":{\"@\":0}}]],\"guarded\":true}]", Protocol.Request.class));
    assertEquals("no On numbered 0 before it", e.getMessage());
  }

  @Test
  void everyReplyTravelsAsItsOwnKind() {
    List<Answers.Answer> answers = List.of(new Answers.Checked(Verdict.failed(dev.opcheck4j.api.Finding.of("e", "b", "h", new dev.opcheck4j.api.Cause.Crash("SIGSEGV")))), new Answers.Accepted(),
        new Answers.Rejected("x must be float32"), new Answers.Bound("x=int 2"), new Answers.Unbindable("no args"),
        new Answers.Synthesized(new FoundExample(Optional.of(EXAMPLE), "candidate 0")),
        new Answers.Synthesized(new FoundExample(Optional.empty(), "none")),
        new Answers.ModelLoaded(new ModelInfo(null, List.of(new ModelInfo.Call("t::f", "M.forward", Optional.empty(),
            Optional.of("t::f(Tensor x) -> Tensor"))), List.of("x: Tensor"))),
        new Answers.Forwarded(new ModelInfo.Forward(null, null, List.of(new ModelInfo.Output("output", "float32[2]")), new ModelInfo.Expectation(null, 1, new ModelInfo.Difference("output: 1 of 2 elements differ", List.of(dev.opcheck4j.api.Fact.of("max abs error", 0.5)))))));
    for (Answers.Answer a : answers) {
      Replies.Reply r = new Replies.Answered(3, a, 12);
      assertEquals(r, Wire.read(Wire.write(r), Replies.Reply.class));
    }
    for (Replies.Reply r : List.of(new Replies.Mismatch(1), new Replies.Loading("/x/libt.so"),
        new Replies.LoadFailed("no such file"), new Replies.Begin(4), new Replies.Bye())) {
      assertEquals(r, Wire.read(Wire.write(r), Replies.Reply.class));
    }
  }

  @Test
  void aWorkerAcceptsOnlyAStartOfItsOwnVersion() {
    assertEquals(Optional.of(new Protocol.Start(Protocol.VERSION, INIT)),
        Protocol.start(Wire.write(new Protocol.Start(Protocol.VERSION, INIT))));
    assertEquals(Optional.empty(), Protocol.start(Wire.write(new Protocol.Start(Protocol.VERSION + 1, INIT))));
    assertEquals(Optional.empty(), Protocol.start(Wire.write(new Protocol.Stop())));
    // version 1's first message, and lines no version wrote
    assertEquals(Optional.empty(), Protocol.start("{\"id\":0,\"init\":{\"targets\":[],\"ops\":[]},\"guarded\":false}"));
    assertEquals(Optional.empty(), Protocol.start("[\"Start\",{\"protocol\":\"two\"}]"));
    assertEquals(Optional.empty(), Protocol.start("not json"));
  }

  @Test
  void theParentSaysWhichVersionsDifferInOneLine() {
    String line = new Replies.Mismatch(2).describe(3);
    assertTrue(line.contains("protocol 2") && line.contains("this harness 3"), line);
    assertFalse(line.contains("\n"), line);
  }

  /** The units {@code each} runs of an exchange whose guards give {@code guards} in turn, by id, and the ids it announced next. */
  private static List<String> ran(Protocol.Run run, List<Answers.Acceptance> guards) {
    java.util.Iterator<Answers.Acceptance> g = guards.iterator();
    List<String> out = new java.util.ArrayList<>();
    run.each(new Protocol.Run.Step() {
      @Override
      public Replies.Answered run(long id, Protocol.Unit<?> unit) {
        return new Replies.Answered(id, unit instanceof Protocol.Accepts ? g.next()
            : new Answers.Checked(Verdict.errored("x")), 1);
      }

      @Override
      public void answered(Replies.Answered done, long next) {
        out.add(done.id() + ">" + next);
      }
    });
    return out;
  }

  @Test
  void aRejectingGuardSkipsTheUnitsItGuardsUpToTheNextGuard() {
    Protocol.On x = new Protocol.On(0, "ns::op", null, null, 1, 1);
    Protocol.On y = new Protocol.On(0, "ns::op", null, null, 2, 1);
    // two generated inputs in one exchange, each with two checks; ids from 10
    List<Protocol.Unit<?>> units = List.of(new Protocol.Accepts(x), new Protocol.Evaluate("a.b", x),
        new Protocol.Evaluate("c.d", x), new Protocol.Accepts(y), new Protocol.Evaluate("a.b", y),
        new Protocol.Evaluate("c.d", y));
    Answers.Accepted yes = new Answers.Accepted();
    Answers.Rejected no = new Answers.Rejected("boom");
    assertEquals(List.of("10>11", "11>12", "12>13", "13>14", "14>15", "15>-1"),
        ran(new Protocol.Run(10, List.of(), units, true), List.of(yes, yes)));
    assertEquals(List.of("10>13", "13>-1"), ran(new Protocol.Run(10, List.of(), units, true), List.of(no, no)));
    assertEquals(List.of("10>11", "11>12", "12>13", "13>-1"),
        ran(new Protocol.Run(10, List.of(), units, true), List.of(yes, no)),
        "a check's verdict guards nothing, whatever it is");
    assertEquals(List.of("10>11", "11>12", "12>13", "13>14", "14>15", "15>-1"),
        ran(new Protocol.Run(10, List.of(), units, false), List.of(no, no)), "unguarded: every unit runs");
  }

  @Test
  void anExchangeThatDiesEndsAtTheUnitInFlight() {
    Protocol.On x = new Protocol.On(0, "ns::op", null, null, 1, 1);
    List<Protocol.Unit<?>> units = List.of(new Protocol.Accepts(x), new Protocol.Evaluate("a.b", x),
        new Protocol.Evaluate("c.d", x));
    Death crash = new Death(new dev.opcheck4j.api.Cause.Crash("SIGSEGV"), "killed by SIGSEGV", List.of(),
        Optional.of("a.b"));
    Kernels.Exchange done = Kernels.inTurn(20, units, true, u -> u instanceof Protocol.Evaluate e && e.check().equals("a.b")
        ? Kernels.Ran.died(crash) : Kernels.Ran.gave(new Answers.Accepted()));
    assertEquals(java.util.Set.of(20L), done.answers().keySet(), "the unit before the death, by its id");
    assertEquals(Optional.of(crash.in(21)), done.death(), "the death names the unit in flight, 21");
    assertEquals(Optional.empty(), done.done(1));
    assertEquals(Optional.empty(), done.done(2), "not reached");
  }
}
