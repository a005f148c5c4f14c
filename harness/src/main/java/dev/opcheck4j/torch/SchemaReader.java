package dev.opcheck4j.torch;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.bytedeco.pytorch.AliasInfo;
import org.bytedeco.pytorch.Argument;
import org.bytedeco.pytorch.FunctionSchema;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.SymbolSet;
import org.bytedeco.pytorch.Type;
import org.bytedeco.pytorch.global.torch;

/** Builds the immutable {@link OpSchema} model from libtorch's {@code FunctionSchema}. */
public final class SchemaReader {
  private SchemaReader() {}

  /** Parses a schema string with libtorch's own parser and reads it into the model. */
  public static OpSchema parse(String schema) {
    TorchRuntime.get();
    return read(torch.parseSchema(schema));
  }

  public static OpSchema read(FunctionSchema s) {
    // JavaCPP hands an empty std::vector back as null
    List<OpSchema.Argument> args = new ArrayList<>();
    Argument a = s.arguments();
    for (long i = 0; a != null && i < a.limit(); i++) {
      Argument arg = a.getPointer(i);
      args.add(
          new OpSchema.Argument(
              NativeStrings.of(arg.name()),
              type(arg.real_type().get()),
              arg.N().has_value() ? Optional.of((int) arg.N().get()) : Optional.empty(),
              arg.default_value().has_value()
                  ? Optional.of(renderDefault(arg.default_value().get()))
                  : Optional.empty(),
              arg.kwarg_only(),
              alias(arg.alias_info())));
    }
    List<OpSchema.Return> rets = new ArrayList<>();
    Argument r = s.returns();
    for (long i = 0; r != null && i < r.limit(); i++) {
      Argument ret = r.getPointer(i);
      rets.add(
          new OpSchema.Return(NativeStrings.of(ret.name()), type(ret.real_type().get()), alias(ret.alias_info())));
    }
    return new OpSchema(NativeStrings.of(s.name()), NativeStrings.of(s.overload_name()), args, rets);
  }

  static OpSchema.Type type(Type t) {
    List<OpSchema.Type> contained = new ArrayList<>();
    for (long i = 0; i < t.containedTypeSize(); i++) {
      contained.add(type(t.containedType(i).get()));
    }
    return new OpSchema.Type(t.kind().intern().name(), NativeStrings.of(t.str()), contained);
  }

  static Optional<OpSchema.Alias> alias(AliasInfo info) {
    if (info == null || info.isNull()) {
      return Optional.empty();
    }
    AliasInfo element = info.containedTypes();
    if (info.beforeSets().size() == 0 && element != null && !element.isNull()) {
      // Tensor(a)[]: the annotation belongs to the list's elements
      return alias(element);
    }
    return Optional.of(new OpSchema.Alias(sets(info.beforeSets()), sets(info.afterSets()), info.isWrite()));
  }

  private static List<String> sets(SymbolSet set) {
    List<String> out = new ArrayList<>();
    SymbolSet.Iterator it = set.begin();
    for (long i = 0; i < set.size(); i++, it = it.increment()) {
      out.add(NativeStrings.of(it.get().toUnqualString()));
    }
    out.sort(null);
    return out;
  }

  /** Renders a default value the way a schema string spells it. */
  static String renderDefault(IValue v) {
    if (v.isNone()) {
      return "None";
    }
    if (v.isBool()) {
      return v.toBool() ? "True" : "False";
    }
    if (v.isInt()) {
      return Long.toString(v.toInt());
    }
    if (v.isDouble()) {
      return renderDouble(v.toDouble());
    }
    if (v.isString()) {
      return "\"" + NativeStrings.of(v.toStringRef()).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
    if (v.isIntList()) {
      long[] xs = v.toIntVector().get();
      List<String> parts = new ArrayList<>();
      for (long x : xs) {
        parts.add(Long.toString(x));
      }
      return "[" + String.join(", ", parts) + "]";
    }
    if (v.isDoubleList()) {
      double[] xs = v.toDoubleVector().get();
      List<String> parts = new ArrayList<>();
      for (double x : xs) {
        parts.add(renderDouble(x));
      }
      return "[" + String.join(", ", parts) + "]";
    }
    if (v.isBoolList()) {
      org.bytedeco.pytorch.BooleanList xs = v.toBoolList();
      List<String> parts = new ArrayList<>();
      for (long i = 0; i < xs.size(); i++) {
        parts.add(xs.get(i) ? "True" : "False");
      }
      return "[" + String.join(", ", parts) + "]";
    }
    return NativeStrings.of(v.tagKind());
  }

  static String renderDouble(double d) {
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (d == Math.rint(d) && Math.abs(d) < 1e15) {
      return String.format(Locale.ROOT, "%.1f", d);
    }
    // Python's repr, as schemas spell floats: 1e-05, 0.001, 1.5
    String java = Double.toString(d);
    int e = java.indexOf('E');
    if (e < 0) {
      return java;
    }
    String mantissa = java.substring(0, e).replaceAll("\\.0$", "");
    int exp = Integer.parseInt(java.substring(e + 1));
    return mantissa + "e" + (exp < 0 ? "-" : "+") + String.format(Locale.ROOT, "%02d", Math.abs(exp));
  }
}
