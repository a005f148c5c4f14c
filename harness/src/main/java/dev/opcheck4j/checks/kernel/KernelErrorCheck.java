package dev.opcheck4j.checks.kernel;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.MetaStandIn;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.registration.DeviceKernelCheck;
import dev.opcheck4j.generate.BoundExample;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The kernel accepts every valid example: an exception from it is a failure naming the C++ message. */
public final class KernelErrorCheck extends CheckBase implements ExampleCheck {
  public static final String ID = "kernel.error";
  private static final Pattern ALLOCATION = Pattern.compile("allocate (\\d+) bytes");

  public KernelErrorCheck() {
    super(Declaration.error(ID, "the kernel runs on every valid example without raising")
        .requires(DeviceKernelCheck.ID));
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    try {
      OpCall.Outputs out = OpCall.call(s, ex);
      return Verdict.passed(Fact.of("inputs", ex.description()), Fact.of("outputs", out.tensors().size()));
    } catch (OpCall.KernelError e) {
      if (s.device() == Device.META) {
        var excused = MetaStandIn.excused(s, e.getMessage());
        if (excused.isPresent()) {
          return Verdict.skipped(excused.get());
        }
      }
      if (e.unsupportedType().isPresent()) {
        return runtimeLimit(s, e.unsupportedType().get(), e.getMessage(), OpCall.exampleFact(s, ex));
      }
      Matcher bytes = ALLOCATION.matcher(e.getMessage());
      if (bytes.find()) {
        return Verdict.failed(Finding.of(
            s.op().name() + " runs on the example on " + s.device().label(),
            "raised: " + e.getMessage(),
            "the kernel asked for more memory than the machine has: check the sizes it computes from its inputs",
            new Cause.Rejection(e.getMessage())).with(Fact.of("requested bytes", bytes.group(1))), OpCall.exampleFact(s, ex));
      }
      return Verdict.failed(Finding.of(
          s.op().name() + " runs on the example on " + s.device().label(),
          "raised: " + e.getMessage(),
          "fix the kernel, or if the input is outside the op's domain, fix the example in the spec",
          new Cause.Rejection(e.getMessage())), OpCall.exampleFact(s, ex));
    }
  }

  /**
   * The runtime could not pass an argument of this type to a stable-ABI kernel: the kernel never
   * ran. It blames the runtime and gives the workaround, not "fix the kernel".
   */
  static Verdict runtimeLimit(Subject s, String type, String message, dev.opcheck4j.api.Fact example) {
    String args = String.join(", ", s.op().schema().arguments().stream()
        .filter(a -> a.type().text().replace("?", "").equals(type)).map(a -> "'" + a.name() + "'").toList());
    return Verdict.failed(Finding.of(
        s.op().name() + " can be called through the stable ABI of libtorch " + dev.opcheck4j.torch.TorchRuntime.get().torchVersion(),
        "the runtime cannot pass a " + type + " argument" + (args.isEmpty() ? "" : " (" + args + ")")
            + " to a stable-ABI kernel, so the kernel never ran: " + message,
        "a limit of this libtorch's stable ABI, not a bug in the kernel: declare " + (args.isEmpty() ? "the argument" : args)
            + " as float (or a 0-dim Tensor) until the runtime supports " + type,
        new Cause.Contract("runtime cannot pass the type", type)), example);
  }
}
