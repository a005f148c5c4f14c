package dev.opcheck4j.checks.memory;

import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.OperatorHandleOptional;
import org.bytedeco.pytorch.OperatorName;

/** Calls of operators the memory checks reach through the dispatcher: the companion's, and {@code aten::_lazy_clone}. */
final class CompanionOps {
  private CompanionOps() {}

  /** The stack after calling {@code op} (overload "") with {@code args}; raises what the operator raised. */
  static IValueVector call(String op, IValue... args) {
    OperatorHandleOptional found = Dispatcher.singleton().findSchema(new OperatorName(op, ""));
    if (found == null || !found.has_value()) {
      throw new IllegalStateException("no operator " + op + " is registered");
    }
    IValueVector stack = new IValueVector();
    for (IValue a : args) {
      stack.push_back(a);
    }
    new OperatorHandle(found.get()).callBoxed(stack);
    return stack;
  }
}
