package dev.opcheck4j.junit;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.run.plan.Runtimes;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.platform.engine.TestDescriptor.Type;
import org.junit.platform.engine.UniqueId;

/**
 * Builds the test tree of one spec from the spec and the check registry alone (no libtorch):
 * spec → op → "check on device" → examples and generated inputs, with the tags
 * (family, check id, device, severity) Surefire's {@code groups} and IDEs filter on.
 */
final class EngineTree {
  static final String INPUT_NAME = "spec is valid and its library loads";
  /** The unique id segment of a runtime's container: {@code [runtime:2.10.0]}. */
  static final String RUNTIME_SEGMENT = "runtime";
  /** How a runtime's container is named before its version: {@code libtorch 2.10.0}. */
  static final String RUNTIME_NAME = "libtorch ";
  /**
   * An op's checks on cuda hang under one container: without a GPU it is the op's one skipped
   * node with the reason, instead of a skip per check and example. Discovery loads no libtorch, so
   * whether cuda runs is known only when the run says so.
   */
  static final String CUDA_NAME = "checks on cuda";

  /**
   * Whether this machine may have a CUDA device: false on Linux without NVIDIA's device files (no
   * /dev/nvidiactl, /dev/nvidia0 or /proc/driver/nvidia) and on macOS; true elsewhere, where only the
   * run can tell. Where it is false, an op's checks on cuda are one test with no children, so that a
   * reporter that lists a skipped container's tests (Allure's JUnit Platform listener does) sees one
   * skipped test per op, not one per check.
   */
  /** Why an op's one cuda test is skipped where {@link #cudaPossible} says no. */
  static final String NO_CUDA_HERE = "no CUDA device on this machine (no NVIDIA device files: /dev/nvidiactl, /dev/nvidia0)";

  /** Whether this machine may have a CUDA device; tests replace it to build either shape. */
  static java.util.function.BooleanSupplier cudaPossible = EngineTree::mayHaveCuda;

  private static boolean mayHaveCuda() {
    String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
    if (os.contains("mac")) {
      return false;
    }
    if (!os.contains("linux")) {
      return true;
    }
    return java.nio.file.Files.exists(java.nio.file.Path.of("/dev/nvidiactl"))
        || java.nio.file.Files.exists(java.nio.file.Path.of("/dev/nvidia0"))
        || java.nio.file.Files.exists(java.nio.file.Path.of("/proc/driver/nvidia"));
  }

  private EngineTree() {}

  static EngineNode spec(UniqueId parent, int index, SpecDiscovery.Location loc, boolean classNames) {
    String name = loc.path().getFileName().toString();
    return new EngineNode(parent.append("spec", loc.key()), name,
        NodeSources.of(loc.source(), classNames, NodeSources.className(name)),
        EngineNode.Kind.SPEC, Type.CONTAINER, index, null, null, null, null);
  }

  static EngineNode input(EngineNode spec) {
    return new EngineNode(spec.getUniqueId().append("input", "spec"), INPUT_NAME, spec.sources.test(INPUT_NAME),
        EngineNode.Kind.INPUT, Type.TEST, spec.spec, null, null, null, null).tag("opcheck4j.input");
  }

  /**
   * Adds the library, op, check and example nodes of {@code file} under {@code spec}; in a run on several
   * runtimes, under a container per runtime ({@link #runtime}), oldest first, each with the same nodes.
   */
  static void build(EngineNode spec, SpecFile file, EngineSettings settings) {
    List<String> runtimes = runtimes(file, settings);
    if (runtimes.isEmpty()) {
      build(spec, spec, file, settings);
      return;
    }
    for (String version : runtimes) {
      EngineNode runtime = runtime(spec, version);
      spec.addChild(runtime);
      build(spec, runtime, file, settings);
    }
  }

  /**
   * The runtimes {@code file} runs on when they are several ({@code opcheck4j.runtimes}, else the spec's
   * {@code "runtimes"}, as the run reads them), oldest first; empty for a run on one, whose tree has no runtime
   * level and stays as it was before runtimes. A runtime this build has not is the run's to report, as the
   * spec's input error.
   */
  static List<String> runtimes(SpecFile file, EngineSettings settings) {
    List<String> asked = settings.run().runtimes().isEmpty() ? file.runtimes() : settings.run().runtimes();
    if (asked.size() < 2) {
      return List.of();
    }
    try {
      List<String> versions = Runtimes.parse(String.join(",", asked));
      return versions.size() < 2 ? List.of() : versions;
    } catch (IllegalArgumentException e) {
      return List.of();
    }
  }

  /**
   * The container of a spec's tests on one runtime, {@code libtorch 2.10.0}. It sits under the spec, not under
   * each op: the run checks the whole spec on one runtime, then on the next, so each container's tests run
   * together; a library a runtime refuses is one container whose tests all say why; the library-wide checks
   * have a place per runtime; and an IDE that reruns a runtime's node runs that runtime alone. For build tools
   * that report by class, its class name and its ops' carry the runtime ({@code my_ops.mul_add on libtorch
   * 2.10.0}), so the two runtimes' tests are two tests in Surefire's XML, not one test run twice.
   */
  static EngineNode runtime(EngineNode spec, String version) {
    String name = RUNTIME_NAME + version;
    String reportClass = spec.sources.reportClass() == null ? null : spec.sources.reportClass() + " on " + name;
    return new EngineNode(spec.getUniqueId().append(RUNTIME_SEGMENT, version), name, spec.sources.container(reportClass),
        EngineNode.Kind.RUNTIME, Type.CONTAINER, spec.spec, null, null, null, null);
  }

  /**
   * The tag of every check's test on libtorch {@code version} in a run on several runtimes ({@code libtorch-2.10.0}),
   * so that {@code -Dgroups=libtorch-2.13.0} runs one; null (no tag) for {@code null}, a run on one.
   */
  static String tag(String version) {
    return version == null ? null : "libtorch-" + version;
  }

  /** Adds the nodes of {@code file} under {@code parent}: the spec, or one of its runtimes. */
  private static void build(EngineNode spec, EngineNode parent, SpecFile file, EngineSettings settings) {
    List<Check> checks = settings.selectedChecks();
    String classSuffix = parent.kind == EngineNode.Kind.RUNTIME ? " on " + parent.getDisplayName() : "";
    for (Check c : checks) {
      if (c.scope() == CheckInfo.Scope.LIBRARY) {
        parent.addChild(check(parent, null, c, null, CheckResult.NONE, c.id()));
      }
    }
    for (OpSpec op : ops(file, settings)) {
      EngineNode opNode = new EngineNode(parent.getUniqueId().append("op", op.op()), op.op(),
          parent.sources.container(NodeSources.className(op.op()) + classSuffix),
          EngineNode.Kind.OP, Type.CONTAINER, spec.spec, op.op(), null, null, null);
      parent.addChild(opNode);
      List<Device> devices = settings.selectedDevices().stream()
          .filter(d -> op.devices().isEmpty() || op.devices().contains(d.label())).toList();
      boolean cudaChildren = cudaPossible.getAsBoolean();
      EngineNode cuda = new EngineNode(opNode.getUniqueId().append("device", Device.CUDA.label()), CUDA_NAME,
          opNode.sources.test(CUDA_NAME), EngineNode.Kind.DEVICE, cudaChildren ? Type.CONTAINER : Type.TEST, spec.spec,
          op.op(), null, Device.CUDA.label(), null).tag(Device.CUDA.label()).tag(tag(opNode.runtime()));
      boolean onCuda = false;
      // the spec's declared tags only: registered ones are known once the library is loaded, and the
      // results of a tag's own check on them get nodes as they come
      dev.opcheck4j.checks.OpTags declared = dev.opcheck4j.checks.OpTags.of(List.of(), op);
      for (Check c : checks) {
        if (!c.appliesTo(declared)) {
          continue;
        }
        switch (c.scope()) {
          // library checks hang under the spec; crash, timeout and coverage results are registered when they happen
          case LIBRARY, SUPERVISOR, RESULTS -> {}
          case OP -> opNode.addChild(check(opNode, op, c, null, op.op(), c.id()));
          case DEVICE, EXAMPLE -> {
            for (Device d : devices) {
              if (c.appliesTo(d)) {
                onCuda |= d == Device.CUDA;
                if (d != Device.CUDA || cudaChildren) {
                  EngineNode on = d == Device.CUDA ? cuda : opNode;
                  on.addChild(check(on, op, c, d, op.op(), c.id() + " on " + d.label()));
                }
              }
            }
          }
          case GENERATED -> {
            for (Device d : devices) {
              if (d != Device.META && c.appliesTo(d) && settings.run().tries() > 0 && !op.examples().isEmpty()) {
                onCuda |= d == Device.CUDA;
                if (d != Device.CUDA || cudaChildren) {
                  EngineNode on = d == Device.CUDA ? cuda : opNode;
                  on.addChild(check(on, op, c, d, op.op(), c.id() + " on " + d.label()));
                }
              }
            }
          }
        }
      }
      if (onCuda) {
        opNode.addChild(cuda);
      }
    }
  }

  /** The spec's ops that {@code opcheck4j.ops} names (all when it names none). */
  static List<OpSpec> ops(SpecFile file, EngineSettings settings) {
    return file.ops().stream().filter(o -> settings.run().ops().isEmpty()
        || settings.run().ops().stream().anyMatch(n -> SpecFile.names(n, o.op()))).toList();
  }

  private static EngineNode check(EngineNode parent, OpSpec op, Check c, Device d, String opName, String name) {
    UniqueId id = parent.getUniqueId().append("check", c.id());
    if (d != null && parent.kind != EngineNode.Kind.DEVICE) {
      id = id.append("device", d.label());
    }
    List<Example> examples = op == null ? List.of() : op.examples();
    boolean generated = d != null && d != Device.META && c.info().generated() && !examples.isEmpty();
    boolean several = c.scope() == CheckInfo.Scope.EXAMPLE && (examples.size() > 1 || generated);
    EngineNode node = new EngineNode(id, name, parent.sources.test(name), EngineNode.Kind.CHECK,
        several ? Type.CONTAINER : Type.TEST, parent.spec, opName, c.id(), d == null ? CheckResult.NONE : d.label(),
        null);
    node.tag(c.family()).tag(c.id()).tag(d == null ? null : d.label()).tag(severity(c)).tag(tag(parent.runtime()));
    if (several) {
      for (int i = 0; i < examples.size(); i++) {
        Example e = examples.get(i);
        String example = "example #" + (i + 1) + " (" + describe(e) + ")";
        node.addChild(new EngineNode(id.append("example", Integer.toString(i)), example,
            parent.sources.test(name + ", " + example), EngineNode.Kind.EXAMPLE,
            Type.TEST, parent.spec, opName, c.id(), node.device, e.ref()).tags(node.getTags()));
      }
    }
    return node;
  }

  /** The dynamic child for a check's generated inputs. */
  static EngineNode generated(EngineNode check, String example, int tries, int nth) {
    String value = nth == 0 ? "inputs" : "inputs-" + nth;
    String name = example.startsWith("generated (") ? tries + " generated inputs" : tries + " generated inputs, " + example;
    return new EngineNode(check.getUniqueId().append("generated", value), name,
        check.sources.test(check.getDisplayName() + ", " + name),
        EngineNode.Kind.GENERATED, Type.TEST, check.spec, check.op, check.check, check.device, example)
        .tags(check.getTags());
  }

  /** A test for a result no static node was made for (a library-level finding, a new check). */
  static EngineNode extra(EngineNode parent, CheckResult r, int nth) {
    String example = r.example().startsWith("generated (") ? ", " + r.example().replaceAll("\\D+", " ").strip() + " generated inputs"
        : r.example().equals(CheckResult.NONE) ? "" : " (" + r.example() + ")";
    String name = r.check() + (r.device().equals(CheckResult.NONE) ? "" : " on " + r.device()) + example
        + ((parent.kind == EngineNode.Kind.SPEC || parent.kind == EngineNode.Kind.RUNTIME) && !r.op().endsWith("::*")
            ? " " + r.op() : "");
    EngineNode node = new EngineNode(parent.getUniqueId().append("result", r.op() + "|" + r.check() + "|" + r.device() + "|" + nth),
        name, parent.kind == EngineNode.Kind.CHECK ? parent.sources.test(parent.getDisplayName() + ", " + name)
            : parent.sources.test(name), EngineNode.Kind.GENERATED, Type.TEST, parent.spec, r.op(), r.check(),
        r.device(), r.example());
    node.tag(r.family()).tag(r.check()).tag(r.device().equals(CheckResult.NONE) ? null : r.device())
        .tag(tag(parent.runtime()));
    return node;
  }

  static String severity(Check c) {
    return c.severity().label();
  }

  /** A short text of an example's arguments from the spec, e.g. {@code float32[3,4] transposed, 0.5}. */
  static String describe(Example e) {
    List<String> parts = new ArrayList<>();
    for (SpecValue v : e.args()) {
      parts.add(describe(v));
    }
    for (Map.Entry<String, SpecValue> kw : e.kwargs().entrySet()) {
      parts.add(kw.getKey() + "=" + describe(kw.getValue()));
    }
    return String.join(", ", parts);
  }

  private static String describe(SpecValue v) {
    if (v.isObject() && v.object().containsKey("tensor") && v.object().get("tensor").isList()) {
      Map<String, SpecValue> m = v.object();
      StringBuilder sb = new StringBuilder();
      sb.append(m.containsKey("dtype") && m.get("dtype").isString() ? m.get("dtype").value() : "float32");
      sb.append('[').append(String.join(",", m.get("tensor").list().stream().map(SpecValue::value).map(String::valueOf).toList())).append(']');
      if (m.containsKey("layout") && m.get("layout").isString() && !Set.of("contiguous").contains(m.get("layout").value())) {
        sb.append(' ').append(m.get("layout").value());
      }
      return sb.toString();
    }
    if (v.isList()) {
      return "[" + String.join(", ", v.list().stream().map(EngineTree::describe).toList()) + "]";
    }
    if (v.isString()) {
      return "\"" + v.value() + "\"";
    }
    return String.valueOf(v.value());
  }
}
