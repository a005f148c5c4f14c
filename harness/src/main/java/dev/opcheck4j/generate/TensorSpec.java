package dev.opcheck4j.generate;

import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.pytorch.AbstractTensor;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * A tensor as a spec describes it: shape, dtype, how values are drawn, and the memory layout.
 *
 * @param shape sizes
 * @param dtype element type
 * @param init randn, rand, zeros, ones, arange or randint (ignored when values are given)
 * @param low lower bound for rand and randint
 * @param high upper bound for rand and randint
 * @param values explicit row-major values, or null
 * @param requiresGrad whether the input requires grad
 * @param layout contiguous, transposed, strided, offset or channels_last
 */
public record TensorSpec(
    long[] shape,
    torch.ScalarType dtype,
    String init,
    double low,
    double high,
    double[] values,
    boolean requiresGrad,
    String layout) {

  static final Map<String, torch.ScalarType> DTYPES = new LinkedHashMap<>();

  static {
    DTYPES.put("float32", torch.ScalarType.Float);
    DTYPES.put("float64", torch.ScalarType.Double);
    DTYPES.put("float16", torch.ScalarType.Half);
    DTYPES.put("bfloat16", torch.ScalarType.BFloat16);
    DTYPES.put("int64", torch.ScalarType.Long);
    DTYPES.put("int32", torch.ScalarType.Int);
    DTYPES.put("int16", torch.ScalarType.Short);
    DTYPES.put("int8", torch.ScalarType.Char);
    DTYPES.put("uint8", torch.ScalarType.Byte);
    DTYPES.put("bool", torch.ScalarType.Bool);
    DTYPES.put("complex64", torch.ScalarType.ComplexFloat);
  }

  static final List<String> INITS = ExampleBinder.INITS;
  static final List<String> LAYOUTS = ExampleBinder.LAYOUTS;

  public TensorSpec {
    shape = shape.clone();
    values = values == null ? null : values.clone();
  }

  /** The dtype a spec names {@code name} ({@code float32}, {@code int64}, ...), if it is one. */
  public static java.util.Optional<torch.ScalarType> dtypeOf(String name) {
    return java.util.Optional.ofNullable(DTYPES.get(name));
  }

  /**
   * Refuses, before anything is allocated, a tensor whose values (drawn in float64, then converted)
   * would not fit in half of this machine's memory: an input error naming the argument and the bytes.
   */
  static void checkFits(long[] shape, torch.ScalarType dtype, String where) throws ExampleException {
    TensorFootprint.checkFits(shape, dtypeName(dtype), where);
  }

  static int elementSize(torch.ScalarType dtype) {
    return TensorFootprint.elementSize(dtypeName(dtype));
  }

  public static String dtypeName(torch.ScalarType st) {
    for (Map.Entry<String, torch.ScalarType> e : DTYPES.entrySet()) {
      if (e.getValue() == st.intern()) {
        return e.getKey();
      }
    }
    return st.intern().name();
  }

  static torch.ScalarType dtype(SpecValue v, String where) throws ExampleException {
    if (!v.isString() || !DTYPES.containsKey(v.value())) {
      throw new ExampleException(where + "has unknown dtype " + v.describe() + "; allowed: " + String.join(", ", DTYPES.keySet()));
    }
    return DTYPES.get(v.value());
  }

  /** Reads {@code {"tensor": SHAPE, ...}}; {@code where} prefixes every error. */
  public static TensorSpec parse(SpecValue v, String where) throws ExampleException {
    if (!v.isObject() || !v.object().containsKey("tensor")) {
      throw new ExampleException(where + "needs a tensor {\"tensor\": [sizes...]}, got " + v.describe());
    }
    Map<String, SpecValue> m = v.object();
    for (Map.Entry<String, SpecValue> e : m.entrySet()) {
      if (!TENSOR_KEYS.contains(e.getKey())) {
        throw new ExampleException(e.getValue().location() + ": unknown tensor key \"" + e.getKey() + "\"; allowed: "
            + String.join(", ", TENSOR_KEYS));
      }
    }
    SpecValue sv = m.get("tensor");
    if (!sv.isList()) {
      throw new ExampleException(sv.location() + ": \"tensor\" must be an array of sizes, got " + sv.describe());
    }
    long[] shape = new long[sv.list().size()];
    for (int i = 0; i < shape.length; i++) {
      SpecValue s = sv.list().get(i);
      if (!s.isInteger() || (Long) s.value() < 0) {
        throw new ExampleException(s.location() + ": sizes must be whole numbers >= 0, got " + s.describe());
      }
      shape[i] = (Long) s.value();
    }
    torch.ScalarType dtype = m.containsKey("dtype") ? dtype(m.get("dtype"), m.get("dtype").location() + ": ") : torch.ScalarType.Float;
    checkFits(shape, dtype, where);
    String init = string(m, "init", "randn", INITS);
    String layout = string(m, "layout", "contiguous", LAYOUTS);
    double low = number(m, "low", init.equals("randint") ? 0 : 0);
    double high = number(m, "high", init.equals("randint") ? 10 : 1);
    double[] values = null;
    if (m.containsKey("values")) {
      SpecValue vv = m.get("values");
      if (!vv.isList()) {
        throw new ExampleException(vv.location() + ": \"values\" must be a flat array of numbers, got " + vv.describe());
      }
      values = new double[vv.list().size()];
      for (int i = 0; i < values.length; i++) {
        SpecValue x = vv.list().get(i);
        if (!x.isNumber()) {
          throw new ExampleException(x.location() + ": \"values\" must be numbers, got " + x.describe());
        }
        values[i] = x.number();
      }
      long numel = Arrays.stream(shape).reduce(1, (a, b) -> a * b);
      if (values.length != numel) {
        throw new ExampleException(vv.location() + ": \"values\" has " + values.length + " numbers, shape "
            + Arrays.toString(shape) + " needs " + numel);
      }
    }
    boolean requiresGrad = false;
    if (m.containsKey("requires_grad")) {
      SpecValue rg = m.get("requires_grad");
      if (!rg.isBoolean()) {
        throw new ExampleException(rg.location() + ": \"requires_grad\" must be true or false, got " + rg.describe());
      }
      requiresGrad = (Boolean) rg.value();
    }
    if (layout.equals("transposed") && shape.length < 2) {
      throw new ExampleException(m.get("layout").location() + ": layout \"transposed\" needs at least 2 dims");
    }
    if (layout.equals("channels_last") && shape.length != 4) {
      throw new ExampleException(m.get("layout").location() + ": layout \"channels_last\" needs 4 dims");
    }
    return new TensorSpec(shape, dtype, init, low, high, values, requiresGrad, layout);
  }

  private static String string(Map<String, SpecValue> m, String key, String dflt, List<String> allowed)
      throws ExampleException {
    SpecValue v = m.get(key);
    if (v == null) {
      return dflt;
    }
    if (!v.isString() || !allowed.contains(v.value())) {
      throw new ExampleException(v.location() + ": \"" + key + "\" must be one of " + String.join(", ", allowed) + ", got " + v.describe());
    }
    return (String) v.value();
  }

  private static double number(Map<String, SpecValue> m, String key, double dflt) throws ExampleException {
    SpecValue v = m.get(key);
    if (v == null) {
      return dflt;
    }
    if (!v.isNumber()) {
      throw new ExampleException(v.location() + ": \"" + key + "\" must be a number, got " + v.describe());
    }
    return v.number();
  }

  private static final Set<String> TENSOR_KEYS = Materializer.TENSOR_KEYS;

  /** Contiguous CPU values, drawn from {@code gen} (the run's, never torch's global one). */
  Tensor draw(GeneratorOptional gen) {
    TensorOptions f64 = Materializer.options(torch.ScalarType.Double, Device.CPU);
    Tensor t;
    if (values != null) {
      t = AbstractTensor.create(values).reshape(shape);
    } else {
      t = switch (init) {
        case "rand" -> torch.rand(shape, gen, f64).mul(new Scalar(high - low)).add(new Scalar(low));
        case "zeros" -> torch.zeros(shape, f64);
        case "ones" -> torch.ones(shape, f64);
        case "arange" -> torch.arange(new Scalar(numel()), f64).reshape(shape);
        case "randint" -> torch.randint((long) low, (long) high, shape, gen, f64);
        default -> torch.randn(shape, gen, f64);
      };
    }
    return t.to(dtype);
  }

  long numel() {
    return Arrays.stream(shape).reduce(1, (a, b) -> a * b);
  }

  /** Materializes on the CPU in this spec's layout (same values whatever the layout). */
  Tensor onCpu(GeneratorOptional gen) {
    Tensor dense = draw(gen);
    return switch (layout) {
      case "contiguous" -> dense;
      case "channels_last" -> dense.contiguous(torch.MemoryFormat.ChannelsLast);
      default -> TensorCopies.relayout(dense, layout);
    };
  }

  /** Materializes on {@code device}, with the CPU tensor's sizes, strides and storage offset. */
  public Tensor materialize(Device device, GeneratorOptional gen) {
    Tensor cpu = onCpu(gen);
    Tensor t = device == Device.CPU ? cpu : TensorCopies.sameLayout(cpu, device);
    if (requiresGrad) {
      t.set_requires_grad(true);
    }
    return t;
  }

  static long[] contiguousStrides(long[] shape) {
    long[] strides = new long[shape.length];
    long s = 1;
    for (int i = shape.length - 1; i >= 0; i--) {
      strides[i] = s;
      s *= Math.max(1, shape[i]);
    }
    return strides;
  }
}
