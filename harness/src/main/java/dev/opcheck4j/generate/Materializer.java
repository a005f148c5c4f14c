package dev.opcheck4j.generate;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.Operator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bytedeco.pytorch.Argument;
import org.bytedeco.pytorch.DeviceOptional;
import org.bytedeco.pytorch.GenericList;
import org.bytedeco.pytorch.GeneratorOptional;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.ScalarTypeOptional;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.TensorOptions;
import org.bytedeco.pytorch.global.torch;

/**
 * Turns spec examples into operator inputs on a device, deterministically from a seed: the same
 * (example, seed) always gives the same values, on every device, with the same sizes, strides and
 * storage offset.
 */
public final class Materializer {
  static final Set<String> TENSOR_KEYS =
      Set.of("tensor", "dtype", "init", "low", "high", "values", "requires_grad", "layout");

  private Materializer() {}

  /**
   * The seed of an example's values: the run's seed, the op and the example's position (the part of
   * its reference after {@code #}, e.g. {@code ops[2].examples[1]}), and a generated variant's salt;
   * not the spec file's name, so a renamed or moved spec draws the same values.
   */
  static long valueSeed(String op, Example example, long seed) {
    String ref = example.ref();
    String position = ref.substring(ref.indexOf('#') + 1);
    return seed ^ (op.hashCode() * 0x9E3779B97F4A7C15L) ^ position.hashCode() ^ (example.salt() * 0xC2B2AE3D27D4EB4FL);
  }

  /**
   * Binds and materializes {@code example} for {@code op} on {@code device}: a copy of this thread's
   * last materialization of it when there is one ({@link KeptExamples}), else drawn.
   */
  public static BoundExample bind(Operator op, Example example, Device device, long seed)
      throws ExampleException {
    return KeptExamples.bind(op, example, device, seed);
  }

  /** Binds {@code example} and draws its values, seeding the generator afresh. */
  static BoundExample draw(Operator op, Example example, Device device, long seed)
      throws ExampleException {
    return drawn(op, example, device, seed).bound();
  }

  /**
   * A drawn example and the text of each argument it gives, the description's parts
   * ({@code texts.get(textOf[i])} for argument {@code i}; -1 for one left to its default).
   */
  record Drawn(BoundExample bound, List<String> texts, int[] textOf) {}

  /** {@link #draw}, with the parts of the description. */
  static Drawn drawn(Operator op, Example example, Device device, long seed)
      throws ExampleException {
    OpSchema schema = op.schema();
    List<OpSchema.Argument> params = schema.arguments();
    if (example.args().size() > params.size()) {
      throw new ExampleException(example.args().get(params.size()).location() + ": " + op.name()
          + " takes " + params.size() + " arguments, the example gives " + example.args().size());
    }
    Map<String, SpecValue> given = new HashMap<>();
    for (int i = 0; i < example.args().size(); i++) {
      OpSchema.Argument p = params.get(i);
      if (p.kwargOnly()) {
        throw new ExampleException(example.args().get(i).location() + ": " + op.name() + " argument '"
            + p.name() + "' is keyword-only; give it under \"kwargs\"");
      }
      given.put(p.name(), example.args().get(i));
    }
    for (Map.Entry<String, SpecValue> kw : example.kwargs().entrySet()) {
      if (schema.argument(kw.getKey()).isEmpty()) {
        throw new ExampleException(kw.getValue().location() + ": " + op.name() + " has no argument '"
            + kw.getKey() + "'; its arguments: " + String.join(", ", params.stream().map(OpSchema.Argument::name).toList()));
      }
      if (given.put(kw.getKey(), kw.getValue()) != null) {
        throw new ExampleException(kw.getValue().location() + ": argument '" + kw.getKey() + "' given twice");
      }
    }
    GeneratorOptional gen = seeded(valueSeed(op.name(), example, seed));
    List<IValue> values = new ArrayList<>();
    List<BoundExample.TensorInput> tensors = new ArrayList<>();
    List<String> text = new ArrayList<>();
    int[] textOf = new int[params.size()];
    java.util.Arrays.fill(textOf, -1);
    Argument nativeArgs = op.handle().schema().arguments();
    for (int i = 0; i < params.size(); i++) {
      OpSchema.Argument p = params.get(i);
      SpecValue v = given.get(p.name());
      Argument nativeArg = nativeArgs.getPointer(i);
      if (v == null) {
        if (nativeArg.default_value().has_value()) {
          values.add(new IValue(nativeArg.default_value().get()));
          continue;
        }
        throw new ExampleException(example.ref() + ": " + op.name() + " argument '" + p.name()
            + "' (" + p.type().text() + ") is missing and has no default");
      }
      textOf[i] = text.size();
      values.add(value(op, p, i, nativeArg, v, device, gen, tensors, text));
    }
    return new Drawn(new BoundExample(values, tensors, String.join(", ", text)), List.copyOf(text), textOf);
  }

  private static IValue value(Operator op, OpSchema.Argument p, int index, Argument nativeArg, SpecValue v,
      Device device, GeneratorOptional gen, List<BoundExample.TensorInput> tensors, List<String> text)
      throws ExampleException {
    OpSchema.Type type = p.type();
    String where = v.location() + ": " + op.name() + " argument '" + p.name() + "' (" + type.text() + ") ";
    if (v.isNull()) {
      if (!type.isOptional()) {
        throw new ExampleException(where + "cannot be null");
      }
      text.add(p.name() + "=None");
      return new IValue();
    }
    OpSchema.Type base = type.unwrapOptional();
    switch (base.kind()) {
      case "TensorType" -> {
        Tensor t = TensorSpec.parse(v, where).materialize(device, gen);
        tensors.add(new BoundExample.TensorInput(p.name(), index, t));
        text.add(p.name() + "=" + TensorText.describe(t));
        return new IValue(t);
      }
      case "IntType", "SymIntType" -> {
        if (!v.isInteger()) {
          throw new ExampleException(where + "needs a whole number, got " + v.describe());
        }
        text.add(p.name() + "=" + v.value());
        return new IValue((long) (Long) v.value());
      }
      case "FloatType", "NumberType" -> {
        if (!v.isNumber()) {
          throw new ExampleException(where + "needs a number, got " + v.describe());
        }
        text.add(p.name() + "=" + v.value());
        return v.isInteger() && base.kind().equals("NumberType")
            ? new IValue((long) (Long) v.value()) : new IValue(v.number());
      }
      case "BoolType" -> {
        if (!v.isBoolean()) {
          throw new ExampleException(where + "needs true or false, got " + v.describe());
        }
        text.add(p.name() + "=" + v.value());
        return new IValue((boolean) (Boolean) v.value());
      }
      case "StringType" -> {
        if (!v.isString()) {
          throw new ExampleException(where + "needs a string, got " + v.describe());
        }
        text.add(p.name() + "=\"" + v.value() + "\"");
        return new IValue((String) v.value());
      }
      case "ScalarTypeType" -> {
        if (!v.isObject() || !v.object().containsKey("dtype")) {
          throw new ExampleException(where + "needs {\"dtype\": \"float64\"}, got " + v.describe());
        }
        torch.ScalarType st = TensorSpec.dtype(v.object().get("dtype"), where);
        text.add(p.name() + "=" + TensorSpec.dtypeName(st));
        return new IValue(st);
      }
      case "GeneratorType" -> {
        if (!v.isObject() || !v.object().containsKey("generator") || !v.object().get("generator").isInteger()) {
          throw new ExampleException(where + "needs {\"generator\": SEED}, got " + v.describe());
        }
        if (device != Device.CPU && device != Device.META) {
          throw new ExampleException(where + "is a CPU generator; one on " + device.label() + " cannot be made yet");
        }
        // a new generator per binding, so that every call given this example draws the same numbers
        long genSeed = (Long) v.object().get("generator").value();
        text.add(p.name() + "=Generator(seed=" + genSeed + ")");
        return new IValue(torch.make_generator_cpu(genSeed));
      }
      case "ListType" -> {
        if (!v.isList()) {
          throw new ExampleException(where + "needs an array, got " + v.describe());
        }
        boolean optionalElements = base.contained().get(0).isOptional();
        OpSchema.Type element = base.contained().get(0).unwrapOptional();
        GenericList list = new GenericList(nativeArg.type().get().containedType(0));
        List<String> parts = new ArrayList<>();
        for (int j = 0; j < v.list().size(); j++) {
          SpecValue e = v.list().get(j);
          String ew = e.location() + ": " + op.name() + " argument '" + p.name() + "[" + j + "]' ";
          if (e.isNull()) {
            if (!optionalElements) {
              throw new ExampleException(ew + "cannot be null (the elements of " + type.text() + " are not optional)");
            }
            parts.add("None");
            list.push_back(new IValue());
            continue;
          }
          switch (element.kind()) {
            case "TensorType" -> {
              Tensor t = TensorSpec.parse(e, ew).materialize(device, gen);
              tensors.add(new BoundExample.TensorInput(p.name() + "[" + j + "]", index, t));
              parts.add(TensorText.describe(t));
              list.push_back(new IValue(t));
            }
            case "IntType", "SymIntType" -> {
              if (!e.isInteger()) {
                throw new ExampleException(ew + "needs a whole number, got " + e.describe());
              }
              parts.add(e.value().toString());
              list.push_back(new IValue((long) (Long) e.value()));
            }
            case "FloatType" -> {
              if (!e.isNumber()) {
                throw new ExampleException(ew + "needs a number, got " + e.describe());
              }
              parts.add(e.value().toString());
              list.push_back(new IValue(e.number()));
            }
            case "BoolType" -> {
              if (!e.isBoolean()) {
                throw new ExampleException(ew + "needs true or false, got " + e.describe());
              }
              parts.add(e.value().toString());
              list.push_back(new IValue((boolean) (Boolean) e.value()));
            }
            default -> throw new ExampleException(ew + "has element type " + element.text() + ", which examples cannot give");
          }
        }
        text.add(p.name() + "=[" + String.join(", ", parts) + "]");
        return new IValue(list);
      }
      default -> throw new ExampleException(where + "cannot be given in a spec (type " + type.text() + ")");
    }
  }

  /**
   * A zero-filled buffer of {@code dtype} on {@code device}. Zeros, not uninitialized memory: the
   * gaps of strided and offset layouts must be the same on every run, or a kernel that reads them
   * would make results irreproducible.
   */
  public static Tensor empty(long[] shape, torch.ScalarType dtype, Device device) {
    return torch.zeros(shape, options(dtype, device));
  }

  /**
   * This thread's CPU generator, seeded with {@code seed}: the same draws as a new generator of that
   * seed (seeding resets its state and its cached normal sample), without making one per example.
   */
  private static GeneratorOptional seeded(long seed) {
    Seeded s = GENERATORS.get();
    s.generator().set_current_seed(seed);
    return s.optional();
  }

  /** A generator and the optional the ops take it in; both kept from any PointerScope's close. */
  private record Seeded(org.bytedeco.pytorch.Generator generator, GeneratorOptional optional) {}

  private static final ThreadLocal<Seeded> GENERATORS = ThreadLocal.withInitial(() -> {
    org.bytedeco.pytorch.Generator g = torch.make_generator_cpu(0);
    g.retainReference();
    GeneratorOptional o = new GeneratorOptional(g);
    o.retainReference();
    return new Seeded(g, o);
  });

  /** Tensor options for dtype on device. */
  static TensorOptions options(torch.ScalarType dtype, Device device) {
    // made once per dtype and device (four native objects each) and kept from any PointerScope's close
    return OPTIONS.computeIfAbsent(dtype.value * 8 + device.ordinal(), k -> {
      TensorOptions o = new TensorOptions().dtype(new ScalarTypeOptional(dtype))
          .device(new DeviceOptional(new org.bytedeco.pytorch.Device(device.label())));
      o.retainReference();
      return o;
    });
  }

  private static final java.util.concurrent.ConcurrentHashMap<Integer, TensorOptions> OPTIONS =
      new java.util.concurrent.ConcurrentHashMap<>();
}
