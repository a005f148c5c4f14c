package dev.opcheck4j.run.property;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.RunListener;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.generate.ExampleGenerator;
import dev.opcheck4j.generate.example.SizeRelation;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.testing.OneOpSessions;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Which relations between an example's sizes and ints the probes learn (issue 52), on kernels in plain Java over
 * prefix_sums(Tensor x, int n) with x of 4 and n = 5 in the example: only a relation whose breaking the kernel
 * rejects on two independent draws, never one a single draw happened to show, and never from a probe that
 * killed the worker.
 */
class SizeProbingTests {
  private static final Death CRASH = new Death(new Cause.Crash("SIGSEGV"), "killed by SIGSEGV",
      List.of(Fact.of("exit status", "139 (signal 11, SIGSEGV)")), Optional.empty());
  private static final Example EXAMPLE = new Example("t.json#ops[0].examples[0]", List.of(
      new SpecValue(Map.of("tensor", new SpecValue(List.of(new SpecValue(4L, "-")), "-")), "-"), new SpecValue(5L, "-")),
      Map.of());

  /** What a kernel makes of an input: accepted, rejected with a message, or the worker killed. */
  private record Call(boolean dies, String rejected) {
    static final Call ACCEPTED = new Call(false, null);
    static final Call DIES = new Call(true, null);

    static Call rejected(String why) {
      return new Call(false, why);
    }
  }

  private static long length(Example e) {
    return (Long) e.args().get(0).object().get("tensor").list().get(0).value();
  }

  private static long n(Example e) {
    return (Long) e.args().get(1).value();
  }

  private static Call needsNOneMore(Example e) {
    return n(e) == length(e) + 1 ? Call.ACCEPTED : Call.rejected("n must be x.size(0) + 1 = " + (length(e) + 1) + ", got " + n(e));
  }

  /** The session of {@code kernel}: each exchange answers its units in order, up to the one that kills the worker. */
  private static OpSession session(Function<Example, Call> kernel) {
    Kernels kernels = new Kernels() {
      @Override
      public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
        Map<Long, Done> answers = new HashMap<>();
        for (int i = 0; i < units.size(); i++) {
          Protocol.Unit<?> u = units.get(i);
          if (u instanceof Protocol.Accepts a) {
            Call c = kernel.apply(a.on().example());
            if (c.dies()) {
              return new Exchange(0, answers, Optional.of(CRASH.in(i)));
            }
            answers.put((long) i, new Done(c.rejected() == null ? new Answers.Accepted() : new Answers.Rejected(c.rejected()), 5));
          } else if (u instanceof Protocol.Bind) {
            answers.put((long) i, new Done(new Answers.Bound("x=float32[...]"), 5));
          } else {
            answers.put((long) i, new Done(new Answers.Checked(Verdict.passed()), 5));
          }
        }
        return new Exchange(0, answers, Optional.empty());
      }

      @Override
      public void close() {}
    };
    return OneOpSessions.of(kernels, EXAMPLE);
  }

  /** What the probes of {@code kernel} learn on prefix_sums' example, and the op's deaths after them. */
  private record Probed(SizeProbing.Learned learned, int deaths) {
    List<String> relations() {
      return learned.relations().values().stream().flatMap(List::stream).map(SizeRelation::text).toList();
    }
  }

  private static Probed probe(Function<Example, Call> kernel) throws Exception {
    OpSession s = session(kernel);
    OpCalls calls = new OpCalls(s, "t::f", new TimeLedger());
    Deaths deaths = new Deaths(Device.CPU, new ArrayList<>(), new ArrayList<>(), s, "t::f", calls,
        new FailureShrinker(s, calls), RunListener.NONE);
    var schema = OpLibrary.load(NativeOps.lib("tied_ops")).op("tied_ops::prefix_sums").schema();
    ExampleGenerator gen = new ExampleGenerator(schema, EXAMPLE, Vary.NONE);
    return new Probed(new SizeProbing(calls).learn(List.of(gen), Device.CPU, deaths), s.deaths());
  }

  @Test
  void aRelationTheKernelRejectsBrokenOnTwoIndependentDrawsIsLearned() throws Exception {
    Probed p = probe(SizeProbingTests::needsNOneMore);
    assertEquals(List.of("n = x.size(0) + 1"), p.relations());
    assertEquals(List.of("sizes related in t.json#ops[0].examples[0]: n = x.size(0) + 1 (learned: the kernel rejected the"
        + " example's sizes drawn anew, \"n must be x.size(0) + 1 = 10, got 5\", accepts them with this kept, and rejected it"
        + " broken on a second, independent draw too, \"n must be x.size(0) + 1 = 7, got 6\"; every try keeps it)"),
        p.learned().lines());
  }

  /** An int equal to a size that the kernel takes as it is: nothing to learn, and the int stays as the example has it. */
  @Test
  void anIntTheKernelTakesWhateverTheSizesIsNotTied() throws Exception {
    Probed p = probe(e -> n(e) == 5 ? Call.ACCEPTED : Call.rejected("n must be 5"));
    assertEquals(List.of(), p.relations());
    assertEquals(List.of("sizes in t.json#ops[0].examples[0]: none related: the kernel accepted the example's sizes drawn"
        + " anew with none of n = x.size(0) + 1 kept (n as the example has it, in every try)"), p.learned().lines());
  }

  /**
   * A kernel with a size limit (x at most 8) that also needs n = x.size(0) + 1 only above it: the first draw (x of
   * 9) shows the relation, the second (x of 6) does not, so it is chance, and not learned.
   */
  @Test
  void aRejectionOnlyOneDrawShowsIsNotLearned() throws Exception {
    Probed p = probe(e -> length(e) > 8 ? needsNOneMore(e) : Call.ACCEPTED);
    assertEquals(List.of(), p.relations());
    assertEquals(List.of("sizes in t.json#ops[0].examples[0]: none learned: breaking n = x.size(0) + 1 was rejected on the"
        + " sizes drawn anew, and not on a second draw"), p.learned().lines());
  }

  /** A probe that kills the worker says nothing about the relation: no rejection, nothing learned, one death. */
  @Test
  void aProbeThatKillsTheWorkerIsNoRejection() throws Exception {
    // n one more than needed crashes the kernel (it writes past its output), where a clean rejection would teach
    Probed broken = probe(e -> n(e) == length(e) + 2 ? Call.DIES : needsNOneMore(e));
    assertEquals(List.of(), broken.relations());
    assertEquals(1, broken.deaths());
    assertTrue(broken.learned().lines().get(0).endsWith(", but breaking none of them alone was rejected (breaking"
        + " n = x.size(0) + 1 got no answer (the probe killed the worker, see " + BuiltinChecks.supervisors() + "))"),
        broken.learned().lines().toString());
    // the sizes drawn anew kill it: nothing is known
    Probed fresh = probe(e -> length(e) > 8 ? Call.DIES : needsNOneMore(e));
    assertEquals(List.of(), fresh.relations());
    assertEquals(List.of("sizes in t.json#ops[0].examples[0]: none learned: the example's sizes drawn anew got no answer"
        + " (the probe killed the worker, see " + BuiltinChecks.supervisors() + ")"), fresh.learned().lines());
  }
}
