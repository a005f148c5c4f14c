package dev.opcheck4j.checks.noncontiguous;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.DeviceCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.TensorCopies;
import dev.opcheck4j.spec.Example;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel accepts non-contiguous inputs (the layouts the spec's domain allows). PyTorch's own ops
 * do, but a custom kernel that raises a clear error on them is outside its domain, not defective: a
 * warning, once per op and device, one fact per argument, with what the kernel raised. Declare
 * {@code "domain": {"layouts": ["contiguous"]}} in the spec to say it is on purpose.
 */
public final class RejectedLayoutCheck extends ValueCheck implements DeviceCheck {
  public static final String ID = "noncontiguous.rejected";

  public RejectedLayoutCheck() {
    super(Declaration.warning(ID, "the kernel accepts non-contiguous inputs (warns once per argument it rejects them for)")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Verdict evaluateDevice(Subject s) throws Exception {
    if (s.spec().examples().isEmpty()) {
      return Verdict.skipped("no examples for this op");
    }
    Map<String, String> rejected = new LinkedHashMap<>();
    int tried = 0;
    for (Example example : s.spec().examples()) {
      Subject one = new Subject(s.library(), s.op(), s.spec(), s.device(), example, s.seed());
      BoundExample base;
      try {
        base = OpCall.bind(one, s.device());
      } catch (ExampleException e) {
        continue;
      }
      for (int k = 0; k < base.tensors().size(); k++) {
        BoundExample.TensorInput in = base.tensors().get(k);
        boolean topLevel = base.values().get(in.argIndex()).isTensor();
        if (!topLevel || !in.tensor().is_contiguous() || rejected.containsKey(in.argument())) {
          continue;
        }
        for (String layout : TensorCopies.noncontiguousLayouts(in.tensor())) {
          if (!s.spec().domain().allowsLayout(layout) || rejected.containsKey(in.argument())) {
            continue;
          }
          tried++;
          try {
            OpCall.call(one, NoncontiguousCheck.relaidOut(one, k, layout));
          } catch (OpCall.KernelError e) {
            rejected.put(in.argument(), "rejects '" + in.argument() + "' " + layout + ": " + e.getMessage()
                + "  (" + example.ref() + ")");
          }
        }
      }
    }
    if (tried == 0) {
      return Verdict.skipped("no contiguous tensor input to re-lay out" + (s.spec().domain().layouts().isEmpty() ? "" : " in the spec's domain"));
    }
    if (rejected.isEmpty()) {
      return Verdict.passed(Fact.of("variants tried", tried));
    }
    List<Fact> facts = new ArrayList<>();
    for (Map.Entry<String, String> r : rejected.entrySet()) {
      facts.add(Fact.of("argument '" + r.getKey() + "'", r.getValue()));
    }
    String arguments = String.join(", ", rejected.keySet().stream().map(a -> "'" + a + "'").toList());
    return Verdict.failed(new Finding("the kernel accepts non-contiguous inputs, as PyTorch's own ops do",
        "it raises on non-contiguous " + arguments,
        "a clear error outside the op's domain is not a defect; say so with \"domain\": {\"layouts\":"
            + " [\"contiguous\"]} in the spec, or accept any layout by calling contiguous() in the kernel",
        new Cause.Contract("rejects non-contiguous inputs", arguments), facts, List.of()));
  }
}
