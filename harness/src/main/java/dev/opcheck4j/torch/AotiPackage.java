package dev.opcheck4j.torch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipFile;

/**
 * An AOTInductor package ({@code .pt2}, written by {@code torch._inductor.aoti_compile_and_package}) read as
 * data, in plain Java: a zip holding, per model, a shared object and beside it the JSON files libtorch's loader
 * reads. {@code *.wrapper.json} lists the package's extern nodes: each call into an op that the generated code
 * does not compile itself (every custom op), with the op's name and each argument's name and serialized type,
 * as the proxy executor matches them against the schema registered when the package loads.
 * {@code *_metadata.json} says what it was compiled for (device, CPU ISA, platform). Nothing here loads libtorch.
 *
 * @param file the package
 * @param model the model's name in the package ({@code model}, the loader's default, when there is one)
 * @param metadata the wrapper's metadata: {@code AOTI_DEVICE_KEY}, {@code AOTI_CPU_ISA}, ... in file order
 * @param calls the extern nodes, in the order the generated code calls them
 */
public record AotiPackage(Path file, String model, Map<String, String> metadata, List<ExternCall> calls) {
  /** The model a loader takes when none is named. */
  public static final String DEFAULT_MODEL = "model";
  /** The metadata key naming the device the package was compiled for. */
  public static final String DEVICE_KEY = "AOTI_DEVICE_KEY";
  /** The largest JSON entry read, in bytes: a package's are kilobytes. */
  static final long MAX_JSON_BYTES = 16L << 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  public AotiPackage {
    metadata = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    calls = List.copyOf(calls);
  }

  /** Why a file is no package opcheck4j can read, in one line that names it. */
  public static final class Unreadable extends Exception {
    public Unreadable(String message) {
      super(message);
    }
  }

  /**
   * One argument of an extern node as the package records it.
   *
   * @param name the argument's name in the schema the package was compiled against
   * @param kind its serialized type: {@code as_tensor}, {@code as_tensors}, {@code as_int}, {@code as_float},
   *     {@code as_bool}, {@code as_none}, {@code as_ints}, {@code as_optional_tensors}, ...
   * @param value what it holds: a literal ({@code 3}, {@code 0.5}, {@code true}), or the buffers passed
   *     ({@code arg0_1} is the package's first input, {@code bufN} a buffer of its own)
   * @param keyword whether it is passed by keyword ({@code kind} 2 in the file): a keyword-only argument, or one
   *     whose default Inductor filled in
   */
  public record CallArgument(String name, String kind, String value, boolean keyword) {
    /** Whether it passes a tensor (or tensors): its buffers go to the op as they are. */
    public boolean passesTensors() {
      return kind.equals("as_tensor") || kind.equals("as_tensors") || kind.equals("as_optional_tensors")
          || kind.equals("as_optional_tensor");
    }
  }

  /**
   * One extern node: a call the package makes through the proxy executor.
   *
   * @param node the node's name in the generated code ({@code buf3})
   * @param target the op, {@code ns::name} or {@code ns::name.overload}
   * @param inputs its arguments, in the order of the schema it was compiled against; arguments the call left to
   *     their defaults are filled in by Inductor, so every argument is here
   * @param outputs the serialized type of each return ({@code as_tensor}, {@code as_none}, ...); empty for an op
   *     that returns nothing
   * @param customOp whether the node says the op was made by {@code torch.library.custom_op} (Python), which no
   *     C++ program can load
   */
  public record ExternCall(String node, String target, List<CallArgument> inputs, List<String> outputs,
      boolean customOp) {
    public ExternCall {
      inputs = List.copyOf(inputs);
      outputs = List.copyOf(outputs);
    }

    /** The argument named {@code name}, if the call passes one. */
    public Optional<CallArgument> input(String name) {
      return inputs.stream().filter(a -> a.name().equals(name)).findFirst();
    }

    /** The call as the package records it: {@code ns::op(x: as_tensor, n: as_int 3) -> (as_tensor)}. */
    public String describe() {
      List<String> args = new ArrayList<>();
      for (CallArgument a : inputs) {
        args.add(a.name() + ": " + a.kind() + (a.passesTensors() || a.value().isEmpty() ? "" : " " + a.value())
            + (a.keyword() ? " (by keyword)" : ""));
      }
      return target + "(" + String.join(", ", args) + ") -> (" + String.join(", ", outputs) + ")";
    }
  }

  /** The device it was compiled for ({@code cpu}, {@code cuda}, ...), or empty when the metadata does not say. */
  public Optional<String> device() {
    return Optional.ofNullable(metadata.get(DEVICE_KEY)).filter(s -> !s.isBlank());
  }

  /**
   * Whether {@code op} belongs to libtorch itself ({@code aten::}, {@code prim::}, ...): an aten op without a C
   * shim is called through the proxy executor too, and no op library serves it.
   */
  public static boolean libtorchOwn(String op) {
    int sep = op.indexOf("::");
    return sep > 0 && ScriptModels.BUILTIN_NAMESPACES.contains(op.substring(0, sep));
  }

  /** The ops it calls, each once, in first-call order. */
  public List<String> ops() {
    return calls.stream().map(ExternCall::target).distinct().toList();
  }

  /** The calls of {@code op}, in call order. */
  public List<ExternCall> callsOf(String op) {
    return calls.stream().filter(c -> c.target().equals(op)).toList();
  }

  /**
   * Whether {@code file} is a zip holding an AOTInductor model ({@code data/aotinductor/} in it): what tells a
   * package from a TorchScript archive, which is a zip too. False for a file that is no zip at all.
   */
  public static boolean isPackage(Path file) {
    try (ZipFile zip = new ZipFile(file.toFile())) {
      return zip.stream().anyMatch(e -> modelDir(e.getName()) != null);
    } catch (IOException e) {
      return false;
    }
  }

  /** Reads the package's model {@link #DEFAULT_MODEL} (or its one model of another name). */
  public static AotiPackage read(Path file) throws Unreadable {
    try (ZipFile zip = new ZipFile(file.toFile())) {
      Map<String, List<ZipEntry>> models = new LinkedHashMap<>();
      for (ZipEntry e : java.util.Collections.list(zip.entries())) {
        String dir = modelDir(e.getName());
        if (dir != null) {
          models.computeIfAbsent(dir, d -> new ArrayList<>()).add(e);
        }
      }
      if (models.isEmpty()) {
        throw new Unreadable(file + " is no AOTInductor package: it holds no data/aotinductor/ folder"
            + " (torch._inductor.aoti_compile_and_package writes one)");
      }
      String dir = models.keySet().stream().filter(d -> d.endsWith("/" + DEFAULT_MODEL + "/")).findFirst()
          .orElse(models.keySet().iterator().next());
      String model = dir.substring(dir.lastIndexOf('/', dir.length() - 2) + 1, dir.length() - 1);
      Map<String, String> metadata = new LinkedHashMap<>();
      List<ExternCall> calls = new ArrayList<>();
      boolean sharedObject = false;
      for (ZipEntry e : models.get(dir)) {
        String name = e.getName();
        sharedObject |= name.endsWith(".so");
        if (name.endsWith(".wrapper_metadata.json")) {
          JsonNode m = json(zip, e, file);
          m.fields().forEachRemaining(f -> metadata.put(f.getKey(), f.getValue().asText()));
        } else if (name.endsWith(".wrapper.json")) {
          calls.addAll(externCalls(json(zip, e, file), file, name));
        }
      }
      if (!sharedObject && models.get(dir).stream().noneMatch(e -> e.getName().endsWith(".cpp"))) {
        throw new Unreadable(file + ": model '" + model + "' has neither a shared object nor C++ sources to load");
      }
      return new AotiPackage(file, model, metadata, calls);
    } catch (ZipException e) {
      throw new Unreadable(file + " is not a zip archive (" + e.getMessage() + "): an AOTInductor package is one");
    } catch (IOException e) {
      throw new Unreadable(file + ": " + e.getMessage());
    }
  }

  /** {@code x/data/aotinductor/NAME/} for an entry in a model's folder, or null. */
  static String modelDir(String entry) {
    int at = entry.indexOf("data/aotinductor/");
    if (at < 0 || at > 0 && entry.charAt(at - 1) != '/') {
      return null;
    }
    int start = at + "data/aotinductor/".length();
    int end = entry.indexOf('/', start);
    return end < 0 ? null : entry.substring(0, end + 1);
  }

  private static JsonNode json(ZipFile zip, ZipEntry e, Path file) throws IOException, Unreadable {
    if (e.getSize() > MAX_JSON_BYTES) {
      throw new Unreadable(file + ": " + e.getName() + " is " + e.getSize() + " bytes, more than a package's JSON holds");
    }
    try (InputStream in = zip.getInputStream(e)) {
      return JSON.readTree(in);
    } catch (com.fasterxml.jackson.core.JsonProcessingException x) {
      throw new Unreadable(file + ": " + e.getName() + " is not JSON: " + x.getOriginalMessage());
    }
  }

  private static List<ExternCall> externCalls(JsonNode root, Path file, String entry) throws Unreadable {
    List<ExternCall> calls = new ArrayList<>();
    JsonNode nodes = root.path("nodes");
    if (!nodes.isArray()) {
      throw new Unreadable(file + ": " + entry + " has no \"nodes\" list of extern nodes");
    }
    for (JsonNode n : nodes) {
      JsonNode node = n.path("node");
      String target = node.path("target").asText("");
      if (target.isEmpty()) {
        throw new Unreadable(file + ": " + entry + ": an extern node without a \"target\" op");
      }
      List<CallArgument> inputs = new ArrayList<>();
      for (JsonNode in : node.path("inputs")) {
        Map.Entry<String, JsonNode> arg = only(in.path("arg"));
        if (arg == null) {
          throw new Unreadable(file + ": " + entry + ": a call of " + target + " has an argument without one serialized value");
        }
        inputs.add(new CallArgument(in.path("name").asText(""), arg.getKey(),
            arg.getKey().equals("as_none") ? "" : value(arg.getValue()),
            in.path("kind").asInt(1) == 2));
      }
      List<String> outputs = new ArrayList<>();
      for (JsonNode out : node.path("outputs")) {
        Map.Entry<String, JsonNode> o = only(out);
        outputs.add(o == null ? "?" : o.getKey());
      }
      calls.add(new ExternCall(n.path("name").asText(""), target, inputs, outputs,
          "1".equals(node.path("metadata").path("torch_library_custom_op").asText(""))));
    }
    return calls;
  }

  private static Map.Entry<String, JsonNode> only(JsonNode object) {
    Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
    if (!fields.hasNext()) {
      return null;
    }
    Map.Entry<String, JsonNode> first = fields.next();
    return fields.hasNext() ? null : first;
  }

  /** A serialized value as text: a literal, or the names of the buffers it passes. */
  private static String value(JsonNode v) {
    if (v.isValueNode()) {
      return v.asText();
    }
    if (v.isObject() && v.has("name") && v.get("name").isTextual()) {
      return v.get("name").asText();
    }
    if (v.isArray()) {
      List<String> parts = new ArrayList<>();
      v.forEach(e -> parts.add(value(e.isObject() && only(e) != null && !e.has("name") ? only(e).getValue() : e)));
      return "[" + String.join(", ", parts) + "]";
    }
    Map.Entry<String, JsonNode> inner = only(v);
    return inner == null ? v.toString() : value(inner.getValue());
  }
}
