package dev.opcheck4j.checks.gradcheck;

import dev.opcheck4j.torch.Companion;
import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.OperatorHandleOptional;
import org.bytedeco.pytorch.OperatorName;
import org.bytedeco.pytorch.Tensor;

/**
 * Autograd's UndefinedGrad node, which gradcheck's check_undefined_grad puts after every output at once
 * ({@code torch._C._functions.UndefinedGrad()(o)}): the JavaCPP presets do not expose it, so the companion
 * library registers it as {@code opcheck4j::undefined_grad} (native-ops/src/main/companion/undefined_grad.cpp).
 * Either the operator or why it cannot be had.
 */
sealed interface UndefinedGradNode {
  /** The companion's operator: {@link #apply} gives a tensor of x's values whose grad_fn hands x an undefined gradient. */
  record Available(OperatorHandle op) implements UndefinedGradNode {
    Tensor apply(Tensor x) {
      IValueVector stack = new IValueVector();
      stack.push_back(new IValue(x));
      op.callBoxed(stack);
      return new Tensor(stack.get(0).toTensor());
    }
  }

  /** Not available; {@code reason} says why. */
  record Missing(String reason) implements UndefinedGradNode {}

  static UndefinedGradNode find() {
    Companion.State state = Companion.state();
    if (state instanceof Companion.Unavailable u) {
      return new Missing("the companion library is unavailable: " + u.reason());
    }
    OperatorHandleOptional found = Dispatcher.singleton().findSchema(new OperatorName("opcheck4j::undefined_grad", ""));
    if (found == null || !found.has_value()) {
      return new Missing("the companion library registers no opcheck4j::undefined_grad (rebuild native-ops)");
    }
    return new Available(new OperatorHandle(found.get()));
  }
}
