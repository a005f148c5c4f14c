package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.FoundExample;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.ExampleSynthesizer;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Finds an example for an op that has none: candidates synthesized from its schema (pure Java), in
 * a fixed order from the seed, until the CPU kernel accepts one; an op that can carry gradients gets
 * floating-point inputs that require grad. No silent pass: when none is found,
 * the note says why, and {@code generate.examples} fails with it.
 */
public final class ExampleSearch {
  /** Candidates tried per op. */
  public static final int CANDIDATES = 128;

  private ExampleSearch() {}

  public static FoundExample search(OpLibrary library, Operator op, long seed) {
    boolean gradients = op.table().carriesGradients();
    ExampleSynthesizer synth = new ExampleSynthesizer(op.schema(), op.name() + " synthesized", gradients);
    Optional<String> unsupported = synth.unsupported();
    if (unsupported.isPresent()) {
      return new FoundExample(Optional.empty(), "no example can be synthesized: " + unsupported.get());
    }
    Map<String, Integer> messages = new TreeMap<>();
    String runtimeLimit = null;
    for (int k = 0; k < CANDIDATES; k++) {
      Example candidate = synth.candidate(k, seed);
      Subject s = new Subject(library, op, OpSpec.bare(op.name()), Device.CPU, candidate, seed);
      try {
        var bound = Materializer.bind(op, candidate, Device.CPU, seed);
        OpCall.call(s, bound);
        return new FoundExample(Optional.of(candidate), "synthesized from the schema: candidate " + k + " of " + CANDIDATES
            + " the cpu kernel accepted (" + bound.description() + ")" + (gradients
            ? "; floating-point inputs require grad: the op has an autograd kernel" : ""));
      } catch (ExampleException e) {
        messages.merge("cannot be made: " + e.getMessage(), 1, Integer::sum);
      } catch (OpCall.KernelError e) {
        messages.merge(e.getMessage(), 1, Integer::sum);
        if (e.unsupportedType().isPresent()) {
          runtimeLimit = e.unsupportedType().get();
        }
      }
    }
    if (runtimeLimit != null) {
      return new FoundExample(Optional.empty(), "no candidate could be passed to the kernel: this libtorch's stable ABI cannot"
          + " pass a " + runtimeLimit + " argument (a limit of the runtime, not the kernel; declare it float, or a 0-dim Tensor)");
    }
    var top = messages.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow();
    return new FoundExample(Optional.empty(), "none of " + CANDIDATES + " candidates synthesized from the schema ran on cpu;"
        + " most raised \"" + top.getKey() + "\" (" + top.getValue() + " times)");
  }
}
