package dev.opcheck4j.torch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.pytorch.Block;
import org.bytedeco.pytorch.FunctionSchema;
import org.bytedeco.pytorch.FunctionVector;
import org.bytedeco.pytorch.Graph;
import org.bytedeco.pytorch.JitModule;
import org.bytedeco.pytorch.JitNode;
import org.bytedeco.pytorch.module_iterator;
import org.bytedeco.pytorch.module_list;

/**
 * Serialized TorchScript models (files saved by {@code torch.jit.save} or {@code Module::save}):
 * loading them as a C++ program does, and finding the custom ops their code calls.
 */
public final class ScriptModels {
  /** Namespaces that belong to libtorch itself, not to an op library. */
  static final Set<String> BUILTIN_NAMESPACES = Set.of("aten", "prim", "prims", "onnx", "attr", "scope", "user",
      "cuda", "_caffe2", "quantized", "profiler", "dimname", "namespaces");

  private static final Pattern OPS_CALL = Pattern.compile("\\bops\\.(\\w+)\\.(\\w+)\\(");
  private static final Pattern UNKNOWN_OP = Pattern.compile("Unknown builtin op: (\\w+::\\w+)");
  // libtorch's schema-matching errors: "Arguments for call are not valid" with one candidate per
  // overload, or a single schema line "ns::op(...) -> ...:" followed by what did not fit
  private static final Pattern CALL_NOT_VALID = Pattern.compile(
      "Arguments for call are not valid|^\\w+::\\w+(\\.\\w+)?\\(.*\\) -> .*:$", Pattern.MULTILINE);

  private ScriptModels() {}

  /**
   * One custom op a model's code calls.
   *
   * @param op qualified name, {@code ns::name}
   * @param schema the schema the call site is bound to (empty when the model did not load)
   * @param where the method whose graph calls it first ({@code Warp.forward}: class and method), or the
 *     code line when read from text
   */
  public record CalledOp(String op, Optional<String> schema, String where) {}

  /** Why a model did not load, in one line, with the op it was about when there was one. */
  public static final class LoadFailure extends Exception {
    /** What kind of failure: an op no library registers, a call that does not fit the op's schema, or other. */
    public enum Kind {
      UNKNOWN_OP,
      SCHEMA_MISMATCH,
      OTHER
    }

    private final Kind kind;
    private final String op;

    LoadFailure(Kind kind, String op, String message) {
      super(message);
      this.kind = kind;
      this.op = op;
    }

    public Kind kind() {
      return kind;
    }

    /** The op the failure is about, or null. */
    public String op() {
      return op;
    }
  }

  /** Loads a model with {@code torch::jit::load}. */
  public static JitModule load(Path model) throws LoadFailure {
    TorchRuntime.get();
    try {
      return ScriptModules.load(model);
    } catch (RuntimeException e) {
      throw classify(e.getMessage());
    }
  }

  static LoadFailure classify(String message) {
    String m = message == null ? "" : message;
    Matcher unknown = UNKNOWN_OP.matcher(m);
    if (unknown.find()) {
      return new LoadFailure(LoadFailure.Kind.UNKNOWN_OP, unknown.group(1), "Unknown builtin op: " + unknown.group(1));
    }
    String first = firstMeaningfulLine(m);
    if (CALL_NOT_VALID.matcher(m).find()) {
      Matcher call = OPS_CALL.matcher(m);
      String op = call.find() ? call.group(1) + "::" + call.group(2) : null;
      String why = m.lines().map(String::strip)
          .filter(l -> l.startsWith("Expected") || l.contains("argument") && !l.startsWith("Arguments for call"))
          .findFirst().orElse(first);
      return new LoadFailure(LoadFailure.Kind.SCHEMA_MISMATCH, op, why);
    }
    return new LoadFailure(LoadFailure.Kind.OTHER, null, first);
  }

  private static String firstMeaningfulLine(String m) {
    return m.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.equals(":")).findFirst().orElse("");
  }

  /** Custom ops named in the archive's code text ({@code ops.<ns>.<name>(}), with the line that calls each. */
  public static List<CalledOp> calledInCode(Path model) throws IOException {
    Map<String, CalledOp> found = new LinkedHashMap<>();
    for (String line : ScriptModules.code(model).split("\n")) {
      Matcher m = OPS_CALL.matcher(line);
      while (m.find()) {
        String op = m.group(1) + "::" + m.group(2);
        found.putIfAbsent(op, new CalledOp(op, Optional.empty(), line.strip()));
      }
    }
    return new ArrayList<>(found.values());
  }

  /**
   * Custom ops called in the graphs of every method of the module and its submodules (blocks of
   * if/loop included), each with the schema its call is bound to, first call site first.
   */
  public static List<CalledOp> calledInGraphs(JitModule module) {
    Map<String, CalledOp> found = new LinkedHashMap<>();
    module_list modules = module.modules();
    for (module_iterator it = modules.begin(); it.notEquals(modules.end()); it = it.increment()) {
      JitModule m = it.access();
      FunctionVector methods = m.type().methods();
      for (long i = 0; i < methods.size(); i++) {
        var qualname = methods.get(i).qualname();
        String name = NativeStrings.of(qualname.name());
        Graph g = m.get_method(name).graph();
        walk(g.block(), NativeStrings.of(qualname.qualifiedName()).replaceFirst("^__torch__\\.", ""), found);
      }
    }
    return new ArrayList<>(found.values());
  }

  private static void walk(Block block, String where, Map<String, CalledOp> found) {
    for (JitNode n = block.nodes().begin().access(); !isReturn(n); n = n.next()) {
      String kind = NativeStrings.of(n.kind().toQualString());
      String ns = kind.substring(0, Math.max(0, kind.indexOf("::")));
      if (!BUILTIN_NAMESPACES.contains(ns) && !found.containsKey(kind)) {
        FunctionSchema s = n.maybeSchema();
        Optional<String> schema = s == null || s.isNull() ? Optional.empty() : Optional.of(SchemaReader.read(s).toString());
        found.put(kind, new CalledOp(kind, schema, where));
      }
      var blocks = n.blocks();
      for (long b = 0; blocks != null && b < blocks.size(); b++) {
        walk(blocks.at(b), where, found);
      }
    }
  }

  /** The arguments of the module's {@code forward} after self, as {@code name: Type}. */
  public static List<String> forwardParameters(JitModule module) {
    FunctionSchema schema = module.get_method("forward").function().getSchema();
    org.bytedeco.pytorch.Argument args = schema.arguments();
    List<String> params = new ArrayList<>();
    for (long i = 1; args != null && i < args.limit(); i++) {
      org.bytedeco.pytorch.Argument a = args.getPointer(i);
      params.add(NativeStrings.of(a.name()) + ": " + NativeStrings.of(a.type().get().str()));
    }
    return params;
  }

  /** The kind of a value that is not a tensor, e.g. {@code Int}, {@code None}. */
  public static String kind(org.bytedeco.pytorch.IValue v) {
    return NativeStrings.of(v.tagKind());
  }

  private static boolean isReturn(JitNode n) {
    return NativeStrings.of(n.kind().toQualString()).equals("prim::Return");
  }
}
