package dev.opcheck4j.checks.schema;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Every argument and return type is one a custom operator may use (what {@code torch.library}
 * accepts, and what torch.compile and the stable ABI can carry).
 */
public final class TypesCheck extends CheckBase implements OpCheck {
  public static final String ID = "schema.types";

  public TypesCheck() {
    super(Declaration.error(ID, "every argument and return type is a legal custom-op type"));
  }

  /** Scalar kinds legal as arguments, bare, optional, or (where listed) in lists. */
  private static final Set<String> ARG_KINDS =
      Set.of(
          "TensorType", "IntType", "SymIntType", "FloatType", "BoolType", "StringType",
          "NumberType", "ScalarTypeType", "DeviceObjType", "LayoutType", "MemoryFormatType",
          "GeneratorType");

  private static final Set<String> LIST_ELEMENT_KINDS =
      Set.of("TensorType", "IntType", "SymIntType", "FloatType", "BoolType", "NumberType");

  private static final Set<String> RETURN_KINDS =
      Set.of("TensorType", "IntType", "SymIntType", "FloatType", "BoolType", "NumberType");

  private static final Set<String> LIST_RETURN_KINDS = Set.of("TensorType", "IntType", "SymIntType");

  static final String LEGAL =
      "Tensor, Tensor?, Tensor[], Tensor?[], int, SymInt, float, bool, str, Scalar, ScalarType,"
          + " Device, Layout, MemoryFormat, Generator, their optional (?) forms, and lists (T[]) of"
          + " Tensor, int, SymInt, float, bool, Scalar; returns: Tensor, Tensor[], int, SymInt,"
          + " int[], SymInt[], float, bool, Scalar, their optional (?) forms (not of lists), or a"
          + " tuple of them";

  @Override
  public Verdict evaluateOp(Subject s) {
    OpSchema schema = s.op().schema();
    List<String> bad = new ArrayList<>();
    for (OpSchema.Argument a : schema.arguments()) {
      if (!legalArgument(a.type())) {
        bad.add("argument '" + a.name() + "' has type " + a.type().text());
      }
    }
    for (int i = 0; i < schema.returns().size(); i++) {
      OpSchema.Type t = schema.returns().get(i).type();
      if (!legalReturn(t)) {
        bad.add("return " + i + " has type " + t.text());
      }
    }
    if (bad.isEmpty()) {
      return Verdict.passed();
    }
    return Verdict.failed(Finding.of(
        "custom-op types only: " + LEGAL,
        String.join("; ", bad),
        "pass containers as Tensor[] or int[] (e.g. a dict's values as Tensor[] and its keys as a"
            + " separate argument); Dict, Any, tuples and type variables cannot cross into"
            + " torch.compile or the stable ABI",
        new Cause.Contract("illegal custom-op type", String.join("; ", bad))));
  }

  static boolean legalArgument(OpSchema.Type t) {
    OpSchema.Type base = t.unwrapOptional();
    if (base.isList()) {
      OpSchema.Type element = base.contained().get(0);
      OpSchema.Type inner = element.unwrapOptional();
      boolean optionalTensor = element.isOptional() && inner.kind().equals("TensorType");
      return !element.isOptional() ? LIST_ELEMENT_KINDS.contains(inner.kind()) : optionalTensor;
    }
    return ARG_KINDS.contains(base.kind());
  }

  static boolean legalReturn(OpSchema.Type t) {
    if (t.isList()) {
      // int[] as well: torch.library's Python inference does not offer it, but a schema may declare it and
      // opcheck passes such an op (torch.compile traces it)
      return LIST_RETURN_KINDS.contains(t.contained().get(0).kind());
    }
    // and their optional forms: _torchaudio::cuda_version returns int?, and real opcheck 2.14.1 passes
    // it (test_schema, test_faketensor and test_aot_dispatch_dynamic), as it passes int[]
    return RETURN_KINDS.contains(t.unwrapOptional().kind()) && !t.unwrapOptional().isList();
  }
}
