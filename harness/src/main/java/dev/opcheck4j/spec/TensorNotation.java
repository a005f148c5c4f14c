package dev.opcheck4j.spec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The compact tensor text the console prints, {@code float32[4,3]} or {@code float64[2,3] transposed}
 * ({@code [4,3]} is float32): in a spec, a shorthand for {@code {"tensor": [4,3], "dtype": "float32",
 * "layout": "transposed"}}; on {@code model --input}, a tensor of that dtype and shape.
 *
 * @param dtype the dtype as written (checked where it is bound)
 * @param shape the sizes
 * @param layout the layout as written, or null for none
 */
public record TensorNotation(String dtype, List<Long> shape, String layout) {
  public TensorNotation {
    shape = List.copyOf(shape);
  }

  private static final Pattern TEXT =
      Pattern.compile("\\s*([A-Za-z][A-Za-z0-9_]*)?\\[\\s*(\\d+(?:\\s*,\\s*\\d+)*)?\\s*]\\s*(?:\\s([A-Za-z_]+)\\s*)?");

  /** The notation in {@code text}, or empty when it is not one (then it is an ordinary string). */
  public static Optional<TensorNotation> parse(String text) {
    Matcher m = TEXT.matcher(text);
    if (!m.matches()) {
      return Optional.empty();
    }
    List<Long> shape;
    try {
      shape = m.group(2) == null ? List.of()
          : Arrays.stream(m.group(2).split(",")).map(String::strip).map(Long::parseLong).toList();
    } catch (NumberFormatException e) {
      return Optional.empty(); // a size past a long is no size
    }
    String dtype = m.group(1) == null ? "float32" : m.group(1).toLowerCase(Locale.ROOT);
    return Optional.of(new TensorNotation(dtype, shape, m.group(3)));
  }

  /**
   * {@code v} with every string in the notation (also inside arrays, for {@code Tensor[]} arguments)
   * written out as the tensor object it stands for, each part at the string's own location.
   */
  static SpecValue expand(SpecValue v) {
    if (v.isString()) {
      return parse((String) v.value()).map(t -> t.asObject(v.location())).orElse(v);
    }
    if (v.isList()) {
      List<SpecValue> items = new ArrayList<>();
      v.list().forEach(x -> items.add(expand(x)));
      return new SpecValue(items, v.location());
    }
    return v;
  }

  private SpecValue asObject(String location) {
    Map<String, SpecValue> m = new LinkedHashMap<>();
    List<SpecValue> sizes = new ArrayList<>();
    for (long s : shape) {
      sizes.add(new SpecValue(s, location));
    }
    m.put("tensor", new SpecValue(sizes, location));
    m.put("dtype", new SpecValue(dtype, location));
    if (layout != null) {
      m.put("layout", new SpecValue(layout, location));
    }
    return new SpecValue(m, location);
  }
}
