package dev.opcheck4j.torch;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.TagArrayRef;

/**
 * One registered operator: its dispatcher handle, its schema, its dispatch table and its tags.
 *
 * @param name qualified name, {@code ns::op} or {@code ns::op.overload}
 * @param tags the op's tags ({@code pt2_compliant_tag}, ...), sorted: read once, since every kernel call
 *     of a check asks whether the op is {@code nondeterministic_seeded}
 */
public record Operator(String name, OperatorHandle handle, OpSchema schema, DispatchTable table, List<String> tags) {
  public Operator {
    tags = List.copyOf(tags);
  }

  /** The operator with the tags its registration carries. */
  public Operator(String name, OperatorHandle handle, OpSchema schema, DispatchTable table) {
    this(name, handle, schema, table, tagsOf(handle));
  }

  /** The namespace, e.g. {@code my_ops}. */
  public String namespace() {
    return name.substring(0, name.indexOf("::"));
  }

  private static List<String> tagsOf(OperatorHandle handle) {
    TagArrayRef tags = handle.getTags();
    TreeSet<String> out = new TreeSet<>();
    for (long i = 0; tags != null && i < tags.size(); i++) {
      out.add(tags.at(i).intern().name());
    }
    return new ArrayList<>(out);
  }

  /**
   * Whether FakeTensorMode runs this op without a Meta kernel, as PyTorch's
   * {@code can_generate_trivial_fake_impl} decides: a custom op (not aten, prim or prims) that writes
   * an argument and returns nothing. Custom ops may not change their inputs' metadata, so doing
   * nothing is its exact fake implementation.
   */
  public boolean hasTrivialFakeImpl() {
    return !BUILTIN_NAMESPACES.contains(namespace()) && !schema.mutableArguments().isEmpty()
        && schema.returns().isEmpty();
  }

  private static final java.util.Set<String> BUILTIN_NAMESPACES = java.util.Set.of("aten", "prim", "prims");

  /**
   * Whether FakeTensorMode, finding no Meta kernel, runs this op's own kernel on zero-filled real
   * tensors instead of refusing it: PyTorch does this (its "unsafe fallback") for ops of the
   * namespaces it maintains, torchaudio's among them, and for no user namespace.
   */
  public boolean hasFakeFallback() {
    return FALLBACK_NAMESPACES.contains(namespace());
  }

  private static final java.util.Set<String> FALLBACK_NAMESPACES = java.util.Set.of(
      "debugprims", "prims", "aten", "xla", "vision", "torchtext", "torchaudio", "quantized");
}
