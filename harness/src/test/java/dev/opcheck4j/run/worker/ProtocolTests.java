package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.plan.RunRequest;

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
      new Protocol.Init(List.of(new RunRequest.Target(null, Path.of("/x/libt.so"))), List.of("t::f"));
  private static final Example EXAMPLE = new Example("t.json#ops[0].examples[0]",
      List.of(new SpecValue(2L, "t.json:1:1"), new SpecValue(2.0, "t.json:1:4")), Map.of());

  @Test
  void everyRequestTravelsAsItsOwnKind() {
    Protocol.On on = new Protocol.On(0, "t::f", Device.CPU, EXAMPLE, 7L, null, 1);
    List<Protocol.Request> requests = List.of(new Protocol.Start(Protocol.VERSION, INIT),
        new Protocol.Run(5, List.of(new Protocol.Accepts(on), new Protocol.Evaluate("kernel.error", on),
            new Protocol.CompileReference(0, 1),
            new Protocol.OnRejected("rejection.message", on, "x must be float32"), new Protocol.Bind(on),
            new Protocol.Synthesize(0, "t::f", 7L), new Protocol.LoadModel(Path.of("/m.pt")),
            new Protocol.Forward(List.of("float32[2,2]"), 7L, Optional.of(Path.of("/tmp/expected.pt")))), true),
        new Protocol.Stop());
    for (Protocol.Request r : requests) {
      assertEquals(r, Wire.read(Wire.write(r), Protocol.Request.class));
    }
    assertTrue(Wire.write(requests.get(1)).startsWith("[\"Run\",{\"id\":5,\"units\":[[\"Accepts\",{\"on\":"),
        Wire.write(requests.get(1)));
  }

  @Test
  void theUnitsOfOneInputCarryItsExampleOnce() {
    Protocol.On on = new Protocol.On(0, "t::f", Device.CPU, EXAMPLE, 7L, null);
    Protocol.On other = new Protocol.On(0, "t::f", Device.CPU, EXAMPLE, 8L, null);
    Protocol.Run run = new Protocol.Run(1, List.of(new Protocol.Accepts(on), new Protocol.Evaluate("kernel.error", on),
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
        "[\"Run\",{\"id\":1,\"units\":[[\"Accepts\",{\"on\":{\"@\":0}}]],\"guarded\":true}]", Protocol.Request.class));
    assertEquals("no On numbered 0 before it", e.getMessage());
  }

  @Test
  void everyReplyTravelsAsItsOwnKind() {
    List<Protocol.Answer> answers = List.of(new Protocol.Checked(Verdict.failed(dev.opcheck4j.api.Finding.of("e", "b", "h", new dev.opcheck4j.api.Cause.Crash("SIGSEGV")))), new Protocol.Accepted(),
        new Protocol.Rejected("x must be float32"), new Protocol.Bound("x=int 2"), new Protocol.Unbindable("no args"),
        new Protocol.Synthesized(new ExampleSearch.Found(Optional.of(EXAMPLE), "candidate 0")),
        new Protocol.Synthesized(new ExampleSearch.Found(Optional.empty(), "none")),
        new Protocol.ModelLoaded(new ModelInfo(null, List.of(new ModelInfo.Call("t::f", "M.forward", Optional.empty(),
            Optional.of("t::f(Tensor x) -> Tensor"))), List.of("x: Tensor"))),
        new Protocol.Forwarded(new ModelInfo.Forward(null, null, List.of(new ModelInfo.Output("output", "float32[2]")), new ModelInfo.Expectation(null, 1, new ModelInfo.Difference("output: 1 of 2 elements differ", List.of(dev.opcheck4j.api.Fact.of("max abs error", 0.5)))))));
    for (Protocol.Answer a : answers) {
      Protocol.Reply r = new Protocol.Answered(3, a, 12);
      assertEquals(r, Wire.read(Wire.write(r), Protocol.Reply.class));
    }
    for (Protocol.Reply r : List.of(new Protocol.Mismatch(1), new Protocol.Loading("/x/libt.so"),
        new Protocol.LoadFailed("no such file"), new Protocol.Begin(4), new Protocol.Bye())) {
      assertEquals(r, Wire.read(Wire.write(r), Protocol.Reply.class));
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
    String line = new Protocol.Mismatch(2).describe(3);
    assertTrue(line.contains("protocol 2") && line.contains("this harness 3"), line);
    assertFalse(line.contains("\n"), line);
  }

  @Test
  void aRejectingGuardSkipsTheUnitsItGuardsUpToTheNextGuard() {
    Protocol.On x = new Protocol.On(0, "ns::op", null, null, 1, null);
    Protocol.On y = new Protocol.On(0, "ns::op", null, null, 2, null);
    // two generated inputs in one exchange, each with two checks
    List<Protocol.Unit<?>> units = List.of(new Protocol.Accepts(x), new Protocol.Evaluate("a.b", x),
        new Protocol.Evaluate("c.d", x), new Protocol.Accepts(y), new Protocol.Evaluate("a.b", y),
        new Protocol.Evaluate("c.d", y));
    assertEquals(1, Protocol.nextUnit(0, units, true, new Protocol.Accepted()));
    assertEquals(3, Protocol.nextUnit(0, units, true, new Protocol.Rejected("boom")));
    assertEquals(6, Protocol.nextUnit(3, units, true, new Protocol.Rejected("boom")));
    assertEquals(4, Protocol.nextUnit(3, units, true, new Protocol.Accepted()));
    assertEquals(1, Protocol.nextUnit(0, units, false, new Protocol.Rejected("boom")));
    assertEquals(6, Protocol.nextUnit(5, units, true, new Protocol.Checked(Verdict.passed())));
    // a check's verdict guards nothing, whatever it is
    assertEquals(3, Protocol.nextUnit(2, units, true, new Protocol.Checked(Verdict.errored("x"))));
  }
}
