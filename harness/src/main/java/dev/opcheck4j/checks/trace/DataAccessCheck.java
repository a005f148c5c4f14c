package dev.opcheck4j.checks.trace;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.fake.FakeMissingCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The op's meta-serving kernel reads no tensor data while it is traced: a FakeTensor has no storage, so
 * data_ptr(), an accessor or a loop over values raises "Cannot access data pointer of Tensor (e.g.
 * FakeTensor, FunctionalTensor)" under torch.compile.
 */
public final class DataAccessCheck extends TracedCheck {
  public static final String ID = "trace.data";
  private static final Pattern ON = Pattern.compile("a data access on (.*?) while tracing");

  public DataAccessCheck() {
    super(Declaration.error(ID, "the meta-serving kernel reads no tensor data while traced")
        .requires(FakeMissingCheck.ID, KernelErrorCheck.ID));
  }

  @Override
  Verdict judge(Subject s, BoundExample meta) throws Exception {
    TracedCall t = traceAll(s, meta);
    Optional<String> access = t.dataAccess();
    if (access.isPresent()) {
      Matcher m = ON.matcher(access.get());
      List<String> tensors = meta.tensors().stream().map(i -> "argument '" + i.argument() + "'").toList();
      String subject = m.find() ? m.group(1) : tensors.size() == 1 ? tensors.get(0) : "a tensor argument";
      return Verdict.failed(new Finding(
          "the kernel computes its outputs' metadata without reading " + subject + "'s data",
          "it read the data of " + subject + " while traced: " + access.get(),
          "a Meta or composite kernel sees FakeTensors under torch.compile: size the output from sizes and dtypes"
              + " only, and make a size that depends on values an op tagged dynamic_output_shape with a fake"
              + " implementation (torch.library.register_fake, ctx.new_dynamic_size)",
          new Cause.Contract("data access while tracing", subject),
          List.of(TracedCall.kernelFact(s)), List.of()), OpCall.exampleFact(s, meta));
    }
    if (t.error().isPresent()) {
      return Verdict.skipped("the traced call stopped before any data access could be seen: " + t.stoppedAt());
    }
    return Verdict.passed(TracedCall.kernelFact(s), Fact.of("data read", "none"));
  }
}
