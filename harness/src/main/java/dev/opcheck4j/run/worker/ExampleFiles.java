package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.ExampleException;
import dev.opcheck4j.generate.Materializer;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.torch.NativeStrings;
import dev.opcheck4j.torch.OpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * The worker's side of {@code check --repro}: an example materialized as the checks saw it, each
 * argument that holds tensors saved with libtorch's pickle writer (which {@code torch.load} reads,
 * strides, storage offset and values included), the others as Python literals.
 */
public final class ExampleFiles {
  private ExampleFiles() {}

  static Answers.ExampleSaved save(Subject s, Path dir, String stem) {
    BoundExample bound;
    try {
      bound = Materializer.bind(s.op(), s.example(), s.device(), s.seed());
    } catch (ExampleException e) {
      return new Answers.ExampleSaved(List.of(), "cannot be materialized: " + e.getMessage());
    }
    List<OpSchema.Argument> schema = s.op().schema().arguments();
    List<Answers.SavedArgument> saved = new ArrayList<>();
    try {
      Files.createDirectories(dir);
      for (int i = 0; i < bound.values().size(); i++) {
        IValue v = bound.values().get(i);
        OpSchema.Argument a = schema.get(i);
        String literal = literal(v);
        List<Answers.TensorMeta> metas = new ArrayList<>();
        for (BoundExample.TensorInput t : bound.tensors()) {
          if (t.argIndex() == i) {
            metas.add(meta(t.tensor()));
          }
        }
        String file = null;
        if (literal == null) {
          file = stem + "." + a.name() + ".pt";
          Files.write(dir.resolve(file), torch.pickle_save(v).get());
        }
        saved.add(new Answers.SavedArgument(a.name(), a.kwargOnly(), file, literal, metas));
      }
    } catch (IOException | RuntimeException e) {
      return new Answers.ExampleSaved(List.of(), "cannot be saved: " + NativeStrings.firstLine(String.valueOf(e.getMessage())));
    }
    return new Answers.ExampleSaved(saved, null);
  }

  private static Answers.TensorMeta meta(Tensor t) {
    List<Long> sizes = new ArrayList<>();
    List<Long> strides = new ArrayList<>();
    for (long d = 0; d < t.dim(); d++) {
      sizes.add(t.size(d));
      strides.add(t.stride(d));
    }
    return new Answers.TensorMeta(TensorSpec.dtypeName(t.scalar_type()), sizes, strides, t.storage_offset(),
        t.requires_grad());
  }

  /** {@code v} as a Python literal, or null when it holds tensors (or is of a kind with no plain literal). */
  static String literal(IValue v) {
    if (v.isNone()) {
      return "None";
    } else if (v.isBool()) {
      return v.toBool() ? "True" : "False";
    } else if (v.isInt()) {
      return String.valueOf(v.toInt());
    } else if (v.isDouble()) {
      return number(v.toDouble());
    } else if (v.isString()) {
      return pythonString(v.toStringRef().getString());
    } else if (v.isGenerator()) {
      // a new CPU generator per call of the script's example(), as each binding makes one
      return "torch.Generator().manual_seed(" + Long.toUnsignedString(v.toGenerator().current_seed()) + ")";
    } else if (v.isIntList()) {
      List<String> items = new ArrayList<>();
      for (long x : v.toIntVector().get()) {
        items.add(String.valueOf(x));
      }
      return "[" + String.join(", ", items) + "]";
    } else if (v.isDoubleList()) {
      List<String> items = new ArrayList<>();
      for (double x : v.toDoubleVector().get()) {
        items.add(number(x));
      }
      return "[" + String.join(", ", items) + "]";
    } else if (v.isBoolList()) {
      List<String> items = new ArrayList<>();
      var list = v.toBoolList();
      for (long i = 0; i < list.size(); i++) {
        items.add(list.get(i) ? "True" : "False");
      }
      return "[" + String.join(", ", items) + "]";
    }
    return null;
  }

  private static String number(double x) {
    if (Double.isNaN(x)) {
      return "float('nan')";
    } else if (Double.isInfinite(x)) {
      return x > 0 ? "float('inf')" : "float('-inf')";
    }
    return Double.toString(x);
  }

  /** A Python string literal: every character outside printable ASCII escaped. */
  public static String pythonString(String s) {
    StringBuilder sb = new StringBuilder("'");
    for (char c : s.toCharArray()) {
      if (c == '\'' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.append('\'').toString();
  }
}
