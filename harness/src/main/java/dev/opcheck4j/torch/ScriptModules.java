package dev.opcheck4j.torch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.bytedeco.pytorch.Argument;
import org.bytedeco.pytorch.ClassType;
import org.bytedeco.pytorch.CompilationUnit;
import org.bytedeco.pytorch.FunctionSchema;
import org.bytedeco.pytorch.Graph;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.IValueVector;
import org.bytedeco.pytorch.JitModule;
import org.bytedeco.pytorch.JitNode;
import org.bytedeco.pytorch.QualifiedName;
import org.bytedeco.pytorch.Symbol;
import org.bytedeco.pytorch.Type;
import org.bytedeco.pytorch.Value;
import org.bytedeco.pytorch.ValueVector;
import org.bytedeco.pytorch.global.torch;

/**
 * TorchScript modules built from the JVM, saved and loaded with libtorch's own serializer and
 * importer (see docs/torchscript.md for what works and what does not).
 *
 * <p>The C++ script compiler ({@code torch::jit::compile}) cannot name a custom op (its resolver
 * knows only {@code torch}), so a module is built from its graph: one {@code ns::op} node whose
 * inputs are the forward's parameters (the arguments a call gives) and constants (the schema
 * defaults of the arguments it leaves out), as the TorchScript compiler lays out a call.
 */
public final class ScriptModules {
  /** The qualified class name of the modules built here. */
  public static final String CLASS_NAME = "__torch__.OpCall";

  private ScriptModules() {}

  /**
   * A module whose {@code forward} calls an op once.
   *
   * @param module the module
   * @param bound the schema TorchScript bound the call node to (its own overload resolution)
   * @param graph the forward graph as text
   */
  public record OpModule(JitModule module, String bound, String graph) {}

  /**
   * Builds a module whose {@code forward(self, ...)} takes the arguments at {@code given} (schema
   * indices, in order) and calls {@code op} with them, the other arguments taking their defaults.
   *
   * @throws IllegalArgumentException when an argument left out has no default
   */
  public static OpModule callingOp(Operator op, Set<Integer> given) {
    TorchRuntime.get();
    FunctionSchema schema = op.handle().schema();
    CompilationUnit cu = new CompilationUnit();
    JitModule module = new JitModule(new QualifiedName(CLASS_NAME), cu, false);
    ClassType type = module.type();
    Graph graph = new Graph();
    graph.addInput("self").setType(new Type.TypePtr(type));
    Argument args = schema.arguments();
    int n = args == null ? 0 : (int) args.limit();
    List<Value> inputs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Argument arg = args.getPointer(i);
      String name = NativeStrings.of(arg.name());
      if (given.contains(i)) {
        Value v = graph.addInput(name);
        v.setType(arg.type());
        inputs.add(v);
      } else if (arg.default_value().has_value()) {
        inputs.add(graph.insertConstant(new IValue(arg.default_value().get())));
      } else {
        throw new IllegalArgumentException("argument '" + name + "' of " + op.name() + " is not given and has no default");
      }
    }
    Argument rets = schema.returns();
    int nReturns = rets == null ? 0 : (int) rets.limit();
    JitNode node = graph.create(Symbol.fromQualString(op.schema().name()), new ValueVector(inputs.toArray(new Value[0])),
        nReturns);
    graph.insertNode(node);
    for (int i = 0; i < nReturns; i++) {
      node.output(i).setType(rets.getPointer(i).type());
    }
    if (nReturns == 1) {
      graph.registerOutput(node.output());
    } else if (nReturns == 0) {
      graph.registerOutput(graph.insertConstant(new IValue()));
    } else {
      graph.registerOutput(graph.insertNode(graph.createTuple(node.outputs())).output());
    }
    String bound = SchemaReader.read(node.schema()).toString();
    var forward = cu.create_function(new QualifiedName(CLASS_NAME + ".forward"), graph);
    type.addMethod(forward);
    return new OpModule(module, bound, graph.toString().strip().replaceAll("\\s*\n\\s*", "; "));
  }

  /** Runs {@code forward} with {@code inputs} (without self). */
  public static IValue forward(JitModule module, List<IValue> inputs) {
    IValueVector stack = new IValueVector();
    for (IValue v : inputs) {
      stack.push_back(v);
    }
    return new IValue(module.forward(stack));
  }

  /** Saves a module as a TorchScript archive ({@code torch::jit::Module::save}). */
  public static void save(JitModule module, Path file) {
    module.save(file.toString());
  }

  /** Loads a TorchScript archive with {@code torch::jit::load}, as a C++ program does. */
  public static JitModule load(Path file) {
    TorchRuntime.get();
    return torch.load(file.toString());
  }

  /** The TorchScript source files ({@code code/*.py}) of an archive, concatenated. */
  public static String code(Path archive) throws IOException {
    StringBuilder sb = new StringBuilder();
    try (ZipFile zip = new ZipFile(archive.toFile())) {
      Enumeration<? extends ZipEntry> entries = zip.entries();
      while (entries.hasMoreElements()) {
        ZipEntry e = entries.nextElement();
        if (e.getName().contains("/code/") && e.getName().endsWith(".py")) {
          try (InputStream in = zip.getInputStream(e)) {
            sb.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          }
        }
      }
    }
    return sb.toString();
  }
}
