package dev.opcheck4j.torch;

import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.OperatorHandleOptional;
import org.bytedeco.pytorch.OperatorName;

/** Looks operators up in the dispatcher by qualified name. */
public final class Operators {
  private Operators() {}

  static String qualified(OperatorName name) {
    String overload = NativeStrings.of(name.overload_name());
    return NativeStrings.of(name.name()) + (overload.isEmpty() ? "" : "." + overload);
  }

  /** Splits {@code ns::op.overload} into name and overload (empty when absent). */
  static String[] split(String qualified) {
    int ns = qualified.indexOf("::");
    int dot = qualified.indexOf('.', ns < 0 ? 0 : ns + 2);
    return dot < 0
        ? new String[] {qualified, ""}
        : new String[] {qualified.substring(0, dot), qualified.substring(dot + 1)};
  }

  static boolean hasSchema(String qualified) {
    String[] parts = split(qualified);
    OperatorHandleOptional h = Dispatcher.singleton().findSchema(new OperatorName(parts[0], parts[1]));
    return h != null && h.has_value();
  }

  /**
   * The registered operator {@code qualified}, from any library (aten ops included).
   *
   * @throws UnknownOpException with the nearest registered names
   */
  public static Operator find(String qualified) throws UnknownOpException {
    String[] parts = split(qualified);
    OperatorHandleOptional h = Dispatcher.singleton().findSchema(new OperatorName(parts[0], parts[1]));
    if (h == null || !h.has_value()) {
      throw new UnknownOpException(qualified, UnknownOpException.nearest(qualified, OpLibrary.allOpNames(), 3), "");
    }
    OperatorHandle handle = new OperatorHandle(h.get());
    return new Operator(qualified, handle, SchemaReader.read(handle.schema()), DispatchTable.of(handle));
  }
}
