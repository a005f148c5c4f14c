package dev.opcheck4j.torch;

import org.bytedeco.pytorch.OperatorHandle;

/**
 * One registered operator: its dispatcher handle, its schema and its dispatch table.
 *
 * @param name qualified name, {@code ns::op} or {@code ns::op.overload}
 */
public record Operator(String name, OperatorHandle handle, OpSchema schema, DispatchTable table) {

  /** The namespace, e.g. {@code my_ops}. */
  public String namespace() {
    return name.substring(0, name.indexOf("::"));
  }
}
