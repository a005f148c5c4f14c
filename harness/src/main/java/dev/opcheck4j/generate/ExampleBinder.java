package dev.opcheck4j.generate;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.NearestName;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.torch.OpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Binds a spec entry's examples and {@code vary} ranges to its op's schema, in plain Java, before
 * any kernel runs: argument count, keyword arguments, types, dtype, layout and init names, shapes,
 * values, and the ranged argument names. Each problem is one line,
 * {@code file:line:column: op 'ns::name' example #k argument 'x': what}, with "did you mean" where a
 * known name is close. The same rules hold when {@link Materializer} binds on a device.
 */
public final class ExampleBinder {
  static final List<String> INITS = List.of("randn", "rand", "zeros", "ones", "arange", "randint");
  static final List<String> LAYOUTS = List.of("contiguous", "transposed", "strided", "offset", "channels_last");
  private static final Set<String> GRAD_DTYPES = Set.of("float32", "float64", "float16", "bfloat16", "complex64");

  private final OpSchema schema;
  private final String op;
  private final List<String> errors = new ArrayList<>();

  private ExampleBinder(OpSchema schema, String op) {
    this.schema = schema;
    this.op = op;
  }

  /** Every problem of {@code spec}'s examples and vary ranges against {@code schema}, in file order. */
  public static List<String> errors(OpSpec spec, OpSchema schema) {
    ExampleBinder b = new ExampleBinder(schema, spec.op());
    for (int k = 0; k < spec.examples().size(); k++) {
      b.example(spec.examples().get(k), k + 1);
    }
    b.vary(spec.vary());
    return List.copyOf(b.errors);
  }

  private void error(String location, String subject, String what) {
    errors.add((location.isEmpty() ? op : location) + ": op '" + op + "'" + subject + ": " + what);
  }

  private void example(Example ex, int k) {
    String at = ex.location().isEmpty() ? ex.ref() : ex.location();
    String subject = " example #" + k;
    List<OpSchema.Argument> params = schema.arguments();
    List<String> names = params.stream().map(OpSchema.Argument::name).toList();
    Map<String, SpecValue> given = new LinkedHashMap<>();
    for (int i = 0; i < ex.args().size(); i++) {
      SpecValue v = ex.args().get(i);
      if (i >= params.size()) {
        error(v.location(), subject, "takes " + params.size() + " positional argument" + (params.size() == 1 ? "" : "s")
            + " (" + schema + "), the example gives " + ex.args().size());
        break;
      }
      OpSchema.Argument p = params.get(i);
      if (p.kwargOnly()) {
        error(v.location(), subject + " argument '" + p.name() + "'", "is keyword-only; give it under \"kwargs\"");
        continue;
      }
      given.put(p.name(), v);
    }
    for (Map.Entry<String, SpecValue> kw : ex.kwargs().entrySet()) {
      String name = kw.getKey();
      if (schema.argument(name).isEmpty()) {
        String hint = NearestName.didYouMean(name, names);
        error(kw.getValue().location(), subject, "has no argument " + SpecValue.quote(name)
            + (hint.isEmpty() ? "; its arguments: " + String.join(", ", names) : hint));
      } else if (given.put(name, kw.getValue()) != null) {
        error(kw.getValue().location(), subject + " argument '" + name + "'", "is given twice (by position and in \"kwargs\")");
      }
    }
    for (OpSchema.Argument p : params) {
      SpecValue v = given.get(p.name());
      if (v == null) {
        if (p.defaultValue().isEmpty()) {
          error(at, subject + " argument '" + p.name() + "'", "is missing (" + p.type().text() + ", no default)");
        }
      } else {
        value(v, p.type(), subject + " argument '" + p.name() + "'");
      }
    }
  }

  private void value(SpecValue v, OpSchema.Type type, String subject) {
    if (v.isNull()) {
      if (!type.isOptional()) {
        error(v.location(), subject, "cannot be null (" + type.text() + " is not optional)");
      }
      return;
    }
    OpSchema.Type base = type.unwrapOptional();
    switch (base.kind()) {
      case "TensorType" -> tensor(v, subject);
      case "IntType", "SymIntType" -> expect(v, v.isInteger(), subject, type, "a whole number");
      case "FloatType", "NumberType" -> expect(v, v.isNumber(), subject, type, "a number");
      case "BoolType" -> expect(v, v.isBoolean(), subject, type, "true or false");
      case "StringType" -> expect(v, v.isString(), subject, type, "a string");
      case "ScalarTypeType" -> {
        if (!v.isObject() || !v.object().containsKey("dtype")) {
          error(v.location(), subject, "needs {\"dtype\": \"float64\"} (" + type.text() + "), got " + v.describe());
        } else {
          dtype(v.object().get("dtype"), subject);
        }
      }
      case "GeneratorType" -> {
        if (!v.isObject() || v.object().size() != 1 || !v.object().containsKey("generator")
            || !v.object().get("generator").isInteger()) {
          error(v.location(), subject, "needs {\"generator\": SEED}, a generator seeded with SEED (" + type.text()
              + "), got " + v.describe());
        }
      }
      case "ListType" -> {
        if (!v.isList()) {
          error(v.location(), subject, "needs an array (" + type.text() + "), got " + v.describe());
          return;
        }
        OpSchema.Type element = base.contained().get(0);
        String kind = element.unwrapOptional().kind();
        if (!List.of("TensorType", "IntType", "SymIntType", "FloatType", "BoolType").contains(kind)) {
          error(v.location(), subject, "has element type " + element.text() + ", which examples cannot give");
          return;
        }
        for (int j = 0; j < v.list().size(); j++) {
          value(v.list().get(j), element, subject.substring(0, subject.length() - 1) + "[" + j + "]'");
        }
      }
      default -> error(v.location(), subject, "cannot be given in a spec (type " + type.text() + ")");
    }
  }

  private void expect(SpecValue v, boolean ok, String subject, OpSchema.Type type, String what) {
    if (!ok) {
      error(v.location(), subject, "needs " + what + " (" + type.text() + "), got " + v.describe());
    }
  }

  private void tensor(SpecValue v, String subject) {
    if (!v.isObject() || !v.object().containsKey("tensor")) {
      error(v.location(), subject, "needs a tensor {\"tensor\": [sizes...]} or \"float32[4,3]\", got " + v.describe());
      return;
    }
    Map<String, SpecValue> m = v.object();
    List<String> keys = Materializer.TENSOR_KEYS.stream().sorted().toList();
    for (Map.Entry<String, SpecValue> e : m.entrySet()) {
      if (!Materializer.TENSOR_KEYS.contains(e.getKey())) {
        String hint = NearestName.didYouMean(e.getKey(), keys);
        error(e.getValue().location(), subject, "unknown tensor key " + SpecValue.quote(e.getKey())
            + (hint.isEmpty() ? "; allowed: " + String.join(", ", keys) : hint));
      }
    }
    SpecValue sv = m.get("tensor");
    long[] shape = null;
    if (!sv.isList()) {
      error(sv.location(), subject, "\"tensor\" must be an array of sizes, got " + sv.describe());
    } else {
      shape = new long[sv.list().size()];
      for (int i = 0; i < shape.length; i++) {
        SpecValue s = sv.list().get(i);
        if (!s.isInteger() || (Long) s.value() < 0) {
          error(s.location(), subject, "sizes must be whole numbers >= 0, got " + s.describe());
          shape = null;
          break;
        }
        shape[i] = (Long) s.value();
      }
    }
    String dtype = m.containsKey("dtype") ? dtype(m.get("dtype"), subject) : "float32";
    String init = name(m, "init", "randn", INITS, subject);
    String layout = name(m, "layout", "contiguous", LAYOUTS, subject);
    Double low = number(m, "low", subject);
    Double high = number(m, "high", subject);
    if (init != null && (init.equals("rand") || init.equals("randint"))) {
      double lo = low != null ? low : 0;
      double hi = high != null ? high : init.equals("randint") ? 10 : 1;
      boolean randint = init.equals("randint");
      if (randint ? !(lo < hi) : !(lo <= hi)) {
        SpecValue at = m.containsKey("low") ? m.get("low") : m.containsKey("high") ? m.get("high") : v;
        error(at.location(), subject, "init \"" + init + "\" needs low " + (randint ? "<" : "<=") + " high"
            + (randint ? " (high is exclusive)" : "") + ", got low " + lo + " and high " + hi);
      } else if (randint && (Math.abs(lo) > 1e18 || Math.abs(hi) > 1e18)) {
        error(v.location(), subject, "init \"randint\" needs low and high within ±1e18, got low " + lo + " and high " + hi);
      }
    }
    if (shape != null) {
      try {
        TensorFootprint.checkFits(shape, dtype == null ? "float32" : dtype, "");
      } catch (ExampleException e) {
        error(sv.location(), subject, e.getMessage());
      }
    }
    if (m.containsKey("values")) {
      SpecValue vv = m.get("values");
      if (!vv.isList()) {
        error(vv.location(), subject, "\"values\" must be a flat array of numbers, got " + vv.describe());
      } else {
        SpecValue bad = vv.list().stream().filter(x -> !x.isNumber()).findFirst().orElse(null);
        if (bad != null) {
          error(bad.location(), subject, "\"values\" must be numbers, got " + bad.describe());
        } else if (shape != null && vv.list().size() != TensorFootprint.numel(shape)) {
          error(vv.location(), subject, "\"values\" has " + vv.list().size() + " numbers, shape "
              + TensorFootprint.shapeText(shape) + " needs " + TensorFootprint.numel(shape));
        }
      }
    }
    if (m.containsKey("requires_grad")) {
      SpecValue rg = m.get("requires_grad");
      if (!rg.isBoolean()) {
        error(rg.location(), subject, "\"requires_grad\" must be true or false, got " + rg.describe());
      } else if ((Boolean) rg.value() && dtype != null && !GRAD_DTYPES.contains(dtype)) {
        error(rg.location(), subject, "\"requires_grad\" needs a floating-point or complex dtype; " + dtype
            + " tensors cannot require gradients");
      }
    }
    if (layout != null && shape != null) {
      if (layout.equals("transposed") && shape.length < 2) {
        error(m.get("layout").location(), subject, "layout \"transposed\" needs at least 2 dims, the tensor has " + shape.length);
      } else if (layout.equals("channels_last") && shape.length != 4) {
        error(m.get("layout").location(), subject, "layout \"channels_last\" needs 4 dims, the tensor has " + shape.length);
      }
    }
  }

  /** The dtype name, or null (and an error) when it is none. */
  private String dtype(SpecValue v, String subject) {
    if (v.isString() && SpecReader.DTYPES.contains(v.value())) {
      return (String) v.value();
    }
    String hint = v.isString() ? NearestName.didYouMeanDtype((String) v.value(), SpecReader.DTYPES) : "";
    error(v.location(), subject, "unknown dtype " + (v.isString() ? SpecValue.quote((String) v.value()) : v.describe())
        + (hint.isEmpty() ? "; allowed: " + String.join(", ", SpecReader.DTYPES) : hint));
    return null;
  }

  /** The named choice, its default when absent, or null (and an error) when it is none of {@code allowed}. */
  private String name(Map<String, SpecValue> m, String key, String dflt, List<String> allowed, String subject) {
    SpecValue v = m.get(key);
    if (v == null) {
      return dflt;
    }
    if (v.isString() && allowed.contains(v.value())) {
      return (String) v.value();
    }
    String hint = v.isString() ? NearestName.didYouMean((String) v.value(), allowed) : "";
    error(v.location(), subject, "unknown " + key + " " + (v.isString() ? SpecValue.quote((String) v.value()) : v.describe())
        + (hint.isEmpty() ? "; allowed: " + String.join(", ", allowed) : hint));
    return null;
  }

  private Double number(Map<String, SpecValue> m, String key, String subject) {
    SpecValue v = m.get(key);
    if (v == null) {
      return null;
    }
    if (!v.isNumber() || !Double.isFinite(v.number())) {
      error(v.location(), subject, "\"" + key + "\" must be a finite number, got " + v.describe());
      return null;
    }
    return v.number();
  }

  private void vary(Vary vary) {
    List<String> names = schema.arguments().stream().map(OpSchema.Argument::name).toList();
    for (Map.Entry<String, Vary.Range> r : new java.util.TreeMap<>(vary.ranges()).entrySet()) {
      String subject = " \"vary\" argument " + SpecValue.quote(r.getKey()).replace('"', '\'');
      var arg = schema.argument(r.getKey());
      if (arg.isEmpty()) {
        String hint = NearestName.didYouMean(r.getKey(), names);
        error(r.getValue().location(), subject, "is not an argument of the op"
            + (hint.isEmpty() ? "; its arguments: " + String.join(", ", names) : hint));
        continue;
      }
      OpSchema.Type t = arg.get().type().unwrapOptional();
      if (t.isList()) {
        t = t.contained().get(0).unwrapOptional();
      }
      boolean integral = t.kind().equals("IntType") || t.kind().equals("SymIntType");
      boolean floating = t.kind().equals("FloatType") || t.kind().equals("NumberType");
      if (!integral && !floating) {
        error(r.getValue().location(), subject, "a range needs an int or float argument, and '" + r.getKey() + "' is "
            + arg.get().type().text());
      } else if (integral && !r.getValue().integer()) {
        error(r.getValue().location(), subject, "'" + r.getKey() + "' is " + arg.get().type().text()
            + ": give its range as {\"int\": [lo, hi]}");
      }
    }
  }
}
