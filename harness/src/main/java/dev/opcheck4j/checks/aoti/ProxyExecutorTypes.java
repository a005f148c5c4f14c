package dev.opcheck4j.checks.aoti;

import dev.opcheck4j.torch.OpSchema;
import java.util.List;

/**
 * Which serialized argument types libtorch's proxy executor takes for each schema type, in plain Java: the
 * rules its {@code OSSProxyExecutor} applies when a package loads ({@code prefill_stack_with_static_arguments},
 * {@code get_output_info_from_serialized}, torch/csrc/inductor/aoti_torch/oss_proxy_executor.cpp of 2.13), where
 * a serialized type the schema's type does not take refuses the package.
 */
final class ProxyExecutorTypes {
  private ProxyExecutorTypes() {}

  /** The serialized types an argument of type {@code t} takes (an empty list: one the executor cannot fill). */
  static List<String> argument(OpSchema.Type t) {
    return switch (t.kind()) {
      case "TensorType" -> List.of("as_tensor");
      case "IntType" -> List.of("as_int");
      case "SymIntType" -> List.of("as_int", "as_sym_int");
      case "FloatType" -> List.of("as_float");
      case "BoolType" -> List.of("as_bool");
      case "NumberType" -> List.of("as_int", "as_sym_int", "as_float", "as_bool");
      case "StringType" -> List.of("as_string");
      case "ScalarTypeType" -> List.of("as_scalar_type");
      case "MemoryFormatType" -> List.of("as_memory_format");
      case "LayoutType" -> List.of("as_layout");
      case "DeviceObjType" -> List.of("as_device");
      case "ClassType" -> List.of("as_custom_obj");
      case "AnyType" -> List.of("as_string", "as_int", "as_float", "as_bool", "as_tensor", "as_none");
      case "OptionalType" -> {
        List<String> inner = argument(t.contained().get(0));
        yield inner.isEmpty() ? List.of("as_none") : concat("as_none", inner);
      }
      case "ListType" -> list(t.contained().get(0));
      default -> List.of();
    };
  }

  private static List<String> list(OpSchema.Type element) {
    return switch (element.kind()) {
      case "TensorType" -> List.of("as_tensors");
      case "IntType" -> List.of("as_ints");
      case "SymIntType" -> List.of("as_ints", "as_sym_ints");
      case "FloatType" -> List.of("as_floats");
      case "BoolType" -> List.of("as_bools");
      case "NumberType" -> List.of("as_ints", "as_floats", "as_bools");
      case "StringType" -> List.of("as_strings");
      case "OptionalType" -> element.contained().get(0).kind().equals("TensorType")
          ? List.of("as_optional_tensors", "as_tensors") : List.of();
      default -> List.of();
    };
  }

  /** The serialized type a return of type {@code t} is recorded as (empty: a return type the executor refuses). */
  static List<String> output(OpSchema.Type t) {
    return switch (t.kind()) {
      case "TensorType" -> List.of("as_tensor");
      case "NoneType" -> List.of("as_none");
      case "IntType" -> List.of("as_int");
      case "ListType" -> t.contained().get(0).kind().equals("TensorType") ? List.of("as_tensors") : List.of();
      case "OptionalType" -> t.contained().get(0).kind().equals("TensorType") ? List.of("as_optional_tensor") : List.of();
      default -> List.of();
    };
  }

  private static List<String> concat(String first, List<String> rest) {
    List<String> all = new java.util.ArrayList<>();
    all.add(first);
    all.addAll(rest);
    return List.copyOf(all);
  }

  /** What the executor does to a call that leaves an argument of type {@code t}, without a default, unfilled. */
  static String unfilled(OpSchema.Type t) {
    OpSchema.Type real = t.unwrapOptional();
    boolean dynamic = t.holdsTensor() || real.kind().equals("IntType") || real.kind().equals("SymIntType")
        || real.isList() && List.of("IntType", "SymIntType").contains(real.contained().get(0).kind());
    if (t.isOptional()) {
      return "the op gets None for it";
    }
    return dynamic
        ? "the call's tensors and ints no longer line up with the op's arguments, and every run of the package stops"
            + " (\"Mismatch between tensors consumed\" or \"ints consumed\")"
        : "the op gets an empty value for it, and every run of the package stops inside libtorch (an internal"
            + " assert of its IValue)";
  }
}
