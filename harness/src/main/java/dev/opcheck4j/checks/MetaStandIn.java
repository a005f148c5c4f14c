package dev.opcheck4j.checks;

import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.torch.Device;
import java.util.Optional;

/**
 * Where the meta tensors that stand in for PyTorch's FakeTensor cannot do what a fake tensor does: a
 * fake tensor keeps the device it fakes ({@code is_cpu()} is true on a fake cpu tensor), a meta tensor
 * says it is on meta. PyTorch's fake check ({@code CrossRefFakeMode}, opcheck's {@code test_faketensor})
 * runs a CompositeImplicitAutograd kernel on the real tensors and checks on fake ones only the aten calls
 * it makes, so a composite that checks the device of its inputs passes there. opcheck4j calls the
 * composite itself on meta inputs; when it rejects them where the real device accepts them, the rejection
 * may be such a device query, which is no defect: the result says Skipped, with this reason.
 */
public final class MetaStandIn {
  private MetaStandIn() {}

  /** Whether the op is served on meta by its CompositeImplicitAutograd kernel (it has no Meta kernel of its own). */
  public static boolean composite(Subject s) {
    return s.op().table().kernelServing(Device.META.dispatchKey()).filter("CompositeImplicitAutograd"::equals).isPresent();
  }

  /**
   * Why the meta run of a composite's example cannot be judged, given that the kernel raised {@code
   * metaError} on meta inputs and accepted the same input on {@code real}.
   */
  public static String cannotJudge(Device real, String metaError) {
    return "the CompositeImplicitAutograd kernel raised on meta inputs it accepts on " + real.label() + " ("
        + metaError + "): a meta tensor says it is on meta, where PyTorch's FakeTensor keeps the device it fakes,"
        + " and PyTorch's fake check runs a composite on real tensors and checks only the aten calls it makes on"
        + " fake ones, so a device check in the composite passes there; opcheck4j's meta stand-in cannot tell a"
        + " device check from another, so this composite was not checked on meta";
  }

  /**
   * The reason a rejection of meta inputs is no finding, or empty when it stands: the op is a composite
   * on meta ({@link #composite}) and its kernel accepts the same input on the cpu.
   *
   * @throws ExampleException when the example cannot be made on the cpu
   */
  public static Optional<String> excused(Subject s, String metaError) throws ExampleException {
    if (!composite(s)) {
      return Optional.empty();
    }
    try {
      OpCall.call(s, OpCall.bind(s, Device.CPU));
    } catch (OpCall.KernelError e) {
      return Optional.empty();
    }
    return Optional.of(cannotJudge(Device.CPU, metaError));
  }
}
