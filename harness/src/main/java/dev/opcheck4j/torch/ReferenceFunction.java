package dev.opcheck4j.torch;

import dev.opcheck4j.spec.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.pytorch.Argument;
import org.bytedeco.pytorch.CompilationUnit;
import org.bytedeco.pytorch.Function;
import org.bytedeco.pytorch.FunctionSchema;
import org.bytedeco.pytorch.FunctionVector;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.Type;
import org.bytedeco.pytorch.global.torch;

/**
 * A spec's {@code "reference"} compiled by libtorch's TorchScript compiler ({@code torch::jit::compile}),
 * whose resolver knows {@code torch} (every aten op) and nothing else. The expression form becomes the
 * body of {@code def reference(<the op's arguments, typed as its schema types them>)}; the {@code def}
 * form is compiled as given. Its values are the op's outputs or, for an op that returns nothing, the
 * new values of its {@code (a!)} arguments in schema order.
 */
public final class ReferenceFunction {
  private static final Pattern UNDEFINED = Pattern.compile("undefined value (\\w+)");

  private final Function function;
  private final List<Integer> parameters;
  private final List<String> parameterTypes;
  private final boolean tuple;
  // the function lives as long as its compilation unit
  private final CompilationUnit unit;

  /** Why a reference cannot be used with its op: it does not compile, or does not fit the op. */
  public static final class Invalid extends Exception {
    public Invalid(String message) {
      super(message);
    }
  }

  private ReferenceFunction(CompilationUnit unit, Function function, List<Integer> parameters, List<String> types,
      boolean tuple) {
    this.unit = unit;
    this.tuple = tuple;
    this.function = function;
    this.parameters = List.copyOf(parameters);
    this.parameterTypes = List.copyOf(types);
  }

  /** How many values the reference of an op with {@code schema} gives: its returns, or its (a!) arguments. */
  public static int expectedValues(OpSchema schema) {
    return schema.returns().isEmpty() ? schema.mutableArguments().size() : schema.returns().size();
  }

  /**
   * Compiles {@code reference} for the op with {@code schema}.
   *
   * @throws Invalid when it does not compile, names something that is no argument of the op, takes an
   *     argument whose type TorchScript cannot annotate, or gives another number of values than the op
   */
  public static ReferenceFunction compile(OpSchema schema, Reference reference) throws Invalid {
    TorchRuntime.get();
    List<String> names = schema.arguments().stream().map(OpSchema.Argument::name).toList();
    // the parser wants a newline after the last statement
    String given = functional(reference.source());
    String source = reference.isFunction() ? given.strip() + "\n" : expressionSource(schema, given);
    CompilationUnit unit;
    try {
      unit = torch.compile(source);
    } catch (RuntimeException e) {
      String message = String.valueOf(e.getMessage());
      Matcher m = UNDEFINED.matcher(message);
      if (m.find() && !names.contains(m.group(1))) {
        throw new Invalid("names '" + m.group(1) + "', which is no argument of " + schema.qualifiedName()
            + " (its arguments: " + String.join(", ", names) + ")");
      }
      String first = message.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse(message);
      throw new Invalid("does not compile as TorchScript: " + (first.endsWith(":") ? first.substring(0, first.length() - 1) : first));
    }
    Function function = find(unit);
    FunctionSchema fs = function.getSchema();
    List<Integer> params = new ArrayList<>();
    List<String> types = new ArrayList<>();
    Argument args = fs.arguments();
    for (long i = 0; args != null && i < args.limit(); i++) {
      Argument a = args.getPointer(i);
      String name = NativeStrings.of(a.name());
      int index = names.indexOf(name);
      if (index < 0) {
        throw new Invalid("takes parameter '" + name + "', which is no argument of " + schema.qualifiedName()
            + " (its arguments: " + String.join(", ", names) + ")");
      }
      params.add(index);
      types.add(NativeStrings.of(a.type().get().str()));
    }
    int gives = values(fs);
    int expected = expectedValues(schema);
    if (gives != expected) {
      throw new Invalid("gives " + gives + " value" + (gives == 1 ? "" : "s") + " where " + schema.qualifiedName()
          + (schema.returns().isEmpty() ? " writes " + expected + " (a!) argument" + (expected == 1 ? "" : "s")
              : " returns " + expected) + " (" + schema + ")");
    }
    boolean tuple = fs.returns() != null && fs.returns().limit() == 1
        && fs.returns().getPointer(0).type().get().kind().intern() == torch.TypeKind.TupleType;
    return new ReferenceFunction(unit, function, params, types, tuple);
  }

  /**
   * Calls the reference on {@code arguments} (one per schema argument, in schema order) and returns
   * its values: one per op return, or per (a!) argument of an op that returns nothing.
   */
  public List<IValue> call(List<IValue> arguments) {
    IValueVector stack = new IValueVector();
    for (int i = 0; i < parameters.size(); i++) {
      IValue v = arguments.get(parameters.get(i));
      // a Python float parameter takes no int, though a schema's float argument may hold one
      stack.push_back(parameterTypes.get(i).equals("float") && v.isInt() ? new IValue((double) v.toInt()) : new IValue(v));
    }
    IValue out = new IValue(function.apply(stack));
    List<IValue> values = new ArrayList<>();
    if (out.isNone()) {
      return values;
    }
    if (tuple && out.isTuple()) {
      var elements = out.toTupleRef().elements();
      for (long i = 0; i < elements.size(); i++) {
        values.add(new IValue(elements.get(i)));
      }
      return values;
    }
    values.add(out);
    return values;
  }

  /** The function named {@code reference}, or the only one the source defines. */
  private static Function find(CompilationUnit unit) throws Invalid {
    FunctionVector all = unit.get_functions();
    List<String> names = new ArrayList<>();
    for (long i = 0; i < all.size(); i++) {
      Function f = all.get(i);
      String name = NativeStrings.of(f.name());
      if (name.equals(Reference.FUNCTION)) {
        return f;
      }
      names.add(name);
    }
    if (names.size() == 1) {
      return all.get(0);
    }
    throw new Invalid("defines " + (names.isEmpty() ? "no function" : String.join(", ", names))
        + " but no function named '" + Reference.FUNCTION + "'");
  }

  /** How many values a compiled function gives: the elements of a returned tuple, none for None. */
  private static int values(FunctionSchema fs) {
    Argument r = fs.returns();
    if (r == null || r.limit() == 0) {
      return 0;
    }
    Type t = r.getPointer(0).type().get();
    return switch (t.kind().intern()) {
      case NoneType -> 0;
      case TupleType -> (int) t.containedTypeSize();
      default -> 1;
    };
  }

  private static final Pattern FUNCTIONAL = Pattern.compile("\\btorch\\.nn\\.functional\\.(\\w+)");

  /**
   * {@code torch.nn.functional.gelu} as {@code torch.gelu}: {@code torch.nn.functional} is a Python
   * module, which the C++ compiler does not have ("attribute lookup is not defined on builtin"), but
   * most of its functions are aten ops of the same name and arguments ({@code gelu}, {@code relu},
   * {@code silu}, {@code softplus}, {@code softmax}, {@code log_softmax}, {@code leaky_relu},
   * {@code elu}, {@code hardtanh}, {@code linear}, {@code layer_norm}, {@code pad}, ...), which it has.
   *
   * @throws Invalid for a name that is no aten op (a function written in Python, such as
   *     {@code normalize}), saying what a reference may use instead
   */
  static String functional(String source) throws Invalid {
    Matcher m = FUNCTIONAL.matcher(source);
    if (!m.find()) {
      return source;
    }
    java.util.Set<String> aten = new java.util.HashSet<>();
    for (String op : OpLibrary.allOpNames()) {
      if (op.startsWith("aten::")) {
        int dot = op.indexOf('.');
        aten.add(op.substring("aten::".length(), dot < 0 ? op.length() : dot));
      }
    }
    StringBuilder out = new StringBuilder();
    m.reset();
    while (m.find()) {
      if (!aten.contains(m.group(1))) {
        throw new Invalid("uses torch.nn.functional." + m.group(1) + ", which is Python, not an aten op: the JVM's"
            + " TorchScript compiler knows aten ops only (torch.*, and torch.nn.functional.* where an aten op has"
            + " the name, such as gelu, relu, silu, softplus, softmax); write it with torch.* ops");
      }
      m.appendReplacement(out, "torch." + m.group(1));
    }
    return m.appendTail(out).toString();
  }

  /** {@code def reference(x: Tensor, alpha: float):} then the expression as its return value. */
  private static String expressionSource(OpSchema schema, String expression) throws Invalid {
    StringBuilder b = new StringBuilder("def ").append(Reference.FUNCTION).append('(');
    for (int i = 0; i < schema.arguments().size(); i++) {
      OpSchema.Argument a = schema.arguments().get(i);
      b.append(i == 0 ? "" : ", ").append(a.name()).append(": ").append(annotation(a.type(), a.name()));
    }
    // parentheses let the expression span lines and keep "a, b" a tuple
    return b.append("):\n    return (").append(expression.strip()).append(")\n").toString();
  }

  /** The TorchScript annotation of a schema type. */
  static String annotation(OpSchema.Type type, String argument) throws Invalid {
    return switch (type.kind()) {
      case "TensorType" -> "Tensor";
      case "IntType", "SymIntType", "ScalarTypeType", "LayoutType", "MemoryFormatType" -> "int";
      case "FloatType", "NumberType" -> "float";
      case "BoolType" -> "bool";
      case "StringType" -> "str";
      case "DeviceObjType" -> "Device";
      case "OptionalType" -> "Optional[" + annotation(type.contained().get(0), argument) + "]";
      case "ListType" -> "List[" + annotation(type.contained().get(0), argument) + "]";
      default -> throw new Invalid("cannot take argument '" + argument + "' of type " + type.text()
          + " (a reference takes tensors, numbers, bools, strings and lists or optionals of them)");
    };
  }
}
