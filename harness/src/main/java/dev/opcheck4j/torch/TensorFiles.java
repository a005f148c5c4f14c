package dev.opcheck4j.torch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.pytorch.ByteVector;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;
import org.bytedeco.pytorch.global.torch;

/**
 * Files written by PyTorch's {@code torch.save} (the zip archive it writes by default), read with
 * libtorch's {@code torch::pickle_load}: a tensor, or a tuple or list of tensors.
 */
public final class TensorFiles {
  private TensorFiles() {}

  /** Why a file cannot be used as tensors, one line for the user. */
  public static final class Unusable extends Exception {
    public Unusable(String message) {
      super(message);
    }
  }

  /** A tensor of a file, labelled as forward's outputs are: {@code output}, {@code output 0}, {@code output[1]}. */
  public record Labelled(String label, Tensor tensor) {}

  /** The value {@code file} holds. */
  public static IValue load(Path file) throws Unusable {
    TorchRuntime.get();
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new Unusable("cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
    }
    try {
      return torch.pickle_load(new ByteVector(bytes));
    } catch (RuntimeException e) {
      throw new Unusable(file + " is not a file torch.save wrote (" + NativeStrings.firstLine(e.getMessage()) + ")");
    }
  }

  /**
   * The {@code count} values {@code file} holds for an op's outputs: the value itself when the op has
   * one, else a tuple of {@code count}; each a tensor or a list of tensors.
   */
  public static List<IValue> outputs(Path file, int count) throws Unusable {
    IValue v = load(file);
    List<IValue> values = new ArrayList<>();
    if (count == 1) {
      values.add(v);
    } else if (v.isTuple() && v.toTuple().elements().size() == count) {
      var elements = v.toTuple().elements();
      for (long i = 0; i < elements.size(); i++) {
        values.add(new IValue(elements.get(i)));
      }
    } else {
      throw new Unusable(file + " holds " + ScriptModels.kind(v) + " where the op gives " + count
          + " values: save a tuple of " + count);
    }
    for (IValue x : values) {
      if (!x.isTensor() && !x.isTensorList()) {
        throw new Unusable(file + " holds " + ScriptModels.kind(x) + ", not a tensor");
      }
    }
    return values;
  }

  /** The one tensor {@code file} holds. */
  public static Tensor tensor(Path file) throws Unusable {
    IValue v = load(file);
    if (!v.isTensor()) {
      throw new Unusable(file + " holds " + ScriptModels.kind(v) + ", not a tensor");
    }
    return v.toTensor();
  }

  /**
   * The tensors of {@code value} labelled from {@code label}: a tensor is itself, a tuple's elements are
   * {@code label i}, a list's {@code label[i]}; null when the value holds anything but tensors.
   */
  public static List<Labelled> tensors(String label, IValue value) {
    List<Labelled> out = new ArrayList<>();
    return collect(label, value, out) ? out : null;
  }

  private static boolean collect(String label, IValue v, List<Labelled> out) {
    if (v.isTensor()) {
      out.add(new Labelled(label, v.toTensor()));
      return true;
    }
    if (v.isTuple()) {
      var elements = v.toTuple().elements();
      for (long i = 0; i < elements.size(); i++) {
        if (!collect(label + " " + i, new IValue(elements.get(i)), out)) {
          return false;
        }
      }
      return true;
    }
    if (v.isTensorList()) {
      var list = v.toTensorVector();
      for (long i = 0; i < list.size(); i++) {
        out.add(new Labelled(label + "[" + i + "]", new Tensor(list.get(i))));
      }
      return true;
    }
    if (v.isList()) {
      var list = v.toList();
      for (long i = 0; i < list.size(); i++) {
        if (!collect(label + "[" + i + "]", new IValue(list.get(i)), out)) {
          return false;
        }
      }
      return true;
    }
    return false;
  }
}
