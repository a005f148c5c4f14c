package dev.opcheck4j.checks.dtype;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.GradientInputs;
import dev.opcheck4j.spec.Domain;
import dev.opcheck4j.spec.OpSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every dtype the spec's {@code "domain": {"dtypes"}} declares runs: the example's data tensors
 * converted to it (values and all), the kernel must not raise, and where the op carries gradients on the
 * device, backward through it must not raise either. OpInfo's {@code test_dtypes} fails a dtype an op
 * claims and rejects ("listed but fails"); so does this check, naming the dtype and the kernel's error.
 */
public final class DeclaredDtypeCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "dtype.declared";

  public DeclaredDtypeCheck() {
    super(Declaration.error(ID, "every dtype the spec declares runs forward, and backward where gradients run")
        .requires(KernelErrorCheck.ID));
  }

  @Override
  public Optional<String> missingFrom(OpSpec spec) {
    return spec.domain().dtypes().isEmpty()
        ? Optional.of("the spec declares no dtypes (\"domain\": {\"dtypes\": [...]}): no claim to check")
        : Optional.empty();
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    Subject marked = s.op().table().hasAutograd(s.device())
        ? new Subject(s.library(), s.op(), s.spec(), s.device(), GradientInputs.requiringGrad(s.op().schema(), s.example()), s.seed())
        : s;
    List<Integer> data = DtypeTrial.dataTensors(OpCall.bind(marked, s.device()));
    if (data.isEmpty()) {
      return Verdict.skipped("the example has no top-level tensor argument the declared dtypes are about");
    }
    List<String> forward = new ArrayList<>();
    List<String> backward = new ArrayList<>();
    List<String> notTried = new ArrayList<>();
    List<String> rejected = new ArrayList<>();
    String first = null;
    for (String dtype : s.spec().domain().dtypes()) {
      if (!DtypeTrial.ALL.contains(dtype)) {
        notTried.add(dtype);
        continue;
      }
      BoundExample ex = DtypeTrial.converted(OpCall.bind(marked, s.device()), data, dtype);
      OpCall.Outputs out;
      try {
        out = OpCall.call(marked, ex);
      } catch (OpCall.KernelError e) {
        rejected.add(dtype + ": \"" + e.getMessage() + "\"");
        first = first == null ? e.getMessage() : first;
        continue;
      }
      forward.add(dtype);
      if (!Domain.floating(dtype) || ex.tensors().stream().noneMatch(t -> t.tensor().requires_grad())) {
        continue;
      }
      String why = DtypeTrial.backwardRejection(ex, out);
      if (why == null) {
        backward.add(dtype);
      } else {
        rejected.add(dtype + " backward: \"" + why + "\"");
        first = first == null ? why : first;
      }
    }
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("declared", String.join(", ", s.spec().domain().dtypes())));
    facts.add(Fact.of("forward ran", forward.isEmpty() ? "(none)" : String.join(", ", forward)));
    if (!backward.isEmpty()) {
      facts.add(Fact.of("backward ran", String.join(", ", backward)));
    }
    if (!notTried.isEmpty()) {
      facts.add(Fact.of("not tried", String.join(", ", notTried) + " (the value checks do not compare it)"));
    }
    facts.add(OpCall.exampleFact(s, OpCall.bind(s, s.device())));
    if (rejected.isEmpty()) {
      return Verdict.passed(facts);
    }
    return Verdict.failed(Finding.of("the kernel runs on every dtype the spec declares ("
            + String.join(", ", s.spec().domain().dtypes()) + ")",
        "it raised on declared " + String.join("; ", rejected),
        "support the dtype in the kernel (and its backward), or remove it from the spec's \"domain\": {\"dtypes\"}",
        new Cause.Rejection(first)).with(facts.toArray(Fact[]::new)));
  }
}
