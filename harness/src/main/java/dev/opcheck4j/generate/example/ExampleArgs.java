package dev.opcheck4j.generate.example;

import dev.opcheck4j.spec.Domain;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An example's arguments by the names the op's schema gives them: read, rewritten tensor by tensor, one put
 * back, and compared. Its tensors are labelled as generation names them: the argument's name, and
 * {@code xs[1]} for an element of a tensor list. Pure: it reads and writes spec values.
 */
public final class ExampleArgs {
  private final Example origin;
  private final List<String> names;

  /**
   * @param origin the example
   * @param schemaNames the names of the op's arguments, in schema order (a positional argument past them is
   *     named "")
   */
  public ExampleArgs(Example origin, List<String> schemaNames) {
    this.origin = origin;
    List<String> out = new ArrayList<>();
    for (int i = 0; i < origin.args().size(); i++) {
      out.add(i < schemaNames.size() ? schemaNames.get(i) : "");
    }
    out.addAll(origin.kwargs().keySet());
    this.names = List.copyOf(out);
  }

  /** The example. */
  public Example origin() {
    return origin;
  }

  /** The names of its positional arguments, then of its keyword arguments. */
  public List<String> names() {
    return names;
  }

  /** Its positional arguments' values, then its keyword arguments', in the order of {@link #names}. */
  public List<SpecValue> values() {
    List<SpecValue> out = new ArrayList<>(origin.args());
    out.addAll(origin.kwargs().values());
    return out;
  }

  /** A change to one tensor of an example, given its label ('x', 'xs[1]'). */
  public interface TensorEdit {
    SpecValue apply(SpecValue tensor, String label);
  }

  /** The example with {@code edit} applied to each of its tensors. */
  public Example rewrite(TensorEdit edit) {
    List<SpecValue> args = new ArrayList<>();
    for (int i = 0; i < origin.args().size(); i++) {
      args.add(rewrite(origin.args().get(i), names.get(i), edit));
    }
    Map<String, SpecValue> kwargs = new LinkedHashMap<>();
    for (Map.Entry<String, SpecValue> e : origin.kwargs().entrySet()) {
      kwargs.put(e.getKey(), rewrite(e.getValue(), e.getKey(), edit));
    }
    return new Example(origin.ref(), args, kwargs, origin.salt());
  }

  /** {@code v}, the value of argument {@code label}, with {@code edit} applied to its tensor or tensors. */
  public static SpecValue rewrite(SpecValue v, String label, TensorEdit edit) {
    if (isTensor(v)) {
      return edit.apply(v, label);
    }
    if (v.isList() && v.list().stream().anyMatch(ExampleArgs::isTensor)) {
      List<SpecValue> out = new ArrayList<>();
      for (int j = 0; j < v.list().size(); j++) {
        SpecValue e = v.list().get(j);
        out.add(isTensor(e) ? edit.apply(e, label + "[" + j + "]") : e);
      }
      return new SpecValue(out, v.location());
    }
    return v;
  }

  /** {@code generated} with argument {@code name} put back as the example has it. */
  public Example revert(Example generated, String name) {
    List<SpecValue> args = new ArrayList<>(generated.args());
    int at = names.indexOf(name);
    Map<String, SpecValue> kwargs = new LinkedHashMap<>(generated.kwargs());
    if (at >= 0 && at < args.size()) {
      args.set(at, origin.args().get(at));
    } else if (origin.kwargs().containsKey(name)) {
      kwargs.put(name, origin.kwargs().get(name));
    }
    return new Example(generated.ref(), args, kwargs, generated.salt());
  }

  /** Names of the arguments {@code generated} gives differently from the example. */
  public List<String> changedArguments(Example generated) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < origin.args().size() && i < generated.args().size(); i++) {
      if (!Objects.equals(plain(origin.args().get(i)), plain(generated.args().get(i)))) {
        out.add(names.get(i));
      }
    }
    for (Map.Entry<String, SpecValue> e : origin.kwargs().entrySet()) {
      if (!Objects.equals(plain(e.getValue()), plain(generated.kwargs().get(e.getKey())))) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  /** A value without locations, salts or drawn values: what a tensor is, not what it holds; null for None. */
  private static Object plain(SpecValue v) {
    if (v == null) {
      return null;
    }
    if (v.isList()) {
      return v.list().stream().map(ExampleArgs::plain).toList();
    }
    if (v.isObject()) {
      Map<String, Object> m = new java.util.TreeMap<>();
      v.object().forEach((k, x) -> {
        if (!k.equals("values") || !v.object().containsKey("tensor")) {
          m.put(k, plain(x));
        }
      });
      return m;
    }
    return v.value();
  }

  /** The value of argument {@code name} among a variant's {@code args} and {@code kwargs}, or null. */
  public SpecValue get(List<SpecValue> args, Map<String, SpecValue> kwargs, String name) {
    int at = names.indexOf(name);
    return at >= 0 && at < args.size() ? args.get(at) : kwargs.get(name);
  }

  /** Sets argument {@code name} among a variant's {@code args} and {@code kwargs} to {@code v}. */
  public void put(List<SpecValue> args, Map<String, SpecValue> kwargs, String name, SpecValue v) {
    int at = names.indexOf(name);
    if (at >= 0 && at < args.size()) {
      args.set(at, v);
    } else {
      kwargs.put(name, v);
    }
  }

  /** The shape of each tensor of the example, by label ('x', 'xs[1]'), in argument order. */
  public Map<String, long[]> shapes() {
    Map<String, long[]> out = new LinkedHashMap<>();
    List<SpecValue> values = values();
    for (int i = 0; i < values.size(); i++) {
      rewrite(values.get(i), names.get(i), (v, label) -> {
        out.put(label, v.object().get("tensor").list().stream().mapToLong(d -> d.isInteger() ? (Long) d.value() : 0).toArray());
        return v;
      });
    }
    return out;
  }

  /** Whether {@code v} is a tensor ({@code {"tensor": [sizes...], ...}}). */
  public static boolean isTensor(SpecValue v) {
    return v.isObject() && v.object().containsKey("tensor") && v.object().get("tensor").isList();
  }

  /** A tensor's dtype name; float32 when it gives none. */
  public static String dtypeOf(Map<String, SpecValue> tensor) {
    return tensor.containsKey("dtype") && tensor.get("dtype").isString() ? (String) tensor.get("dtype").value() : "float32";
  }

  /** {@code tensor} with {@code key} set to {@code value}. */
  public static SpecValue withKey(SpecValue tensor, String key, String value) {
    Map<String, SpecValue> m = new LinkedHashMap<>(tensor.object());
    m.put(key, new SpecValue(value, tensor.location()));
    return new SpecValue(m, tensor.location());
  }

  /**
   * {@code v} made dtype {@code to}; made an integer or bool dtype, it no longer requires grad (PyTorch allows
   * gradients on floating-point tensors only).
   */
  public static SpecValue madeDtype(SpecValue v, String to) {
    SpecValue made = withKey(v, "dtype", to);
    if (Domain.floating(to) || !made.object().containsKey("requires_grad")) {
      return made;
    }
    Map<String, SpecValue> m = new LinkedHashMap<>(made.object());
    m.remove("requires_grad");
    return new SpecValue(m, v.location());
  }
}
