package dev.opcheck4j.run.session;

import dev.opcheck4j.run.worker.ExampleFiles;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.spec.OpSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One failure as a runnable PyTorch script ({@code check --repro}, docs/repro.md): it loads the checked
 * library (or its first argument), rebuilds the minimal example from the tensors saved beside it, and runs
 * what PyTorch has for the finding, or makes opcheck4j's observation by hand where PyTorch has no test.
 * Exit 1: reproduced; 0: not reproduced; {@link #CANNOT}: the script cannot reproduce this check.
 */
public final class ReproScript {
  /** The exit code of a script that cannot reproduce its check: neither "reproduced" (1) nor "not" (0). */
  public static final int CANNOT = 3;

  /** The Python each script starts with, and the body of each kind of check, by the section names below. */
  private static final String PRELUDE = resource("repro-prelude.py");
  private static final Map<String, String> BODIES = sections(resource("repro-checks.py"));
  /** Which body reproduces which check; a check not named here gets a script that says it cannot. */
  private static final Map<String, String> BODY_OF = Map.ofEntries(
      Map.entry("mutation.undeclared", "test_schema"), Map.entry("mutation.unused", "test_schema"),
      Map.entry("alias.undeclared", "test_schema"), Map.entry("alias.returns-input", "test_schema"),
      Map.entry("alias.outputs", "test_schema"),
      Map.entry("fake.metadata", "test_faketensor"), Map.entry("fake.missing", "test_faketensor"),
      Map.entry("fake.permissive", "test_faketensor"),
      Map.entry("trace.symbolic-sizes", "test_aot_dispatch_dynamic"), Map.entry("trace.data", "test_aot_dispatch_dynamic"),
      Map.entry("trace.data-dependent", "test_aot_dispatch_dynamic"),
      Map.entry("autograd.registration", "test_autograd_registration"),
      Map.entry("autograd.meta", "autograd.meta"),
      Map.entry("gradcheck.jacobian", "gradcheck"), Map.entry("gradcheck.grad-output", "gradcheck"),
      Map.entry("determinism", "determinism"), Map.entry("noncontiguous", "noncontiguous"),
      Map.entry("kernel.error", "kernel.error"), Map.entry("kernel.crash", "kernel.crash"),
      Map.entry("kernel.timeout", "kernel.timeout"), Map.entry("reference.values", "reference.values"),
      Map.entry("registration.any-kernel", "registration"), Map.entry("registration.device-kernel", "registration"),
      Map.entry("schema.alias-target", "schema"), Map.entry("schema.functionalizable", "schema"),
      Map.entry("schema.inplace-name", "schema"), Map.entry("schema.mutable-args", "schema"),
      Map.entry("schema.out-variant", "schema"), Map.entry("schema.types", "schema"),
      Map.entry("registration.dangling", "registration.dangling"),
      Map.entry("registration.exists", "registration.exists"),
      Map.entry("torchscript.call", "torchscript"), Map.entry("torchscript.roundtrip", "torchscript"),
      Map.entry("generate.examples", "generate.examples"), Map.entry("reference.grad", "reference.grad"),
      Map.entry("memory.bounds", "memory.bounds"), Map.entry("memory.uninitialized", "memory.uninitialized"),
      Map.entry("memory.bool-bytes", "memory.bool-bytes"),
      Map.entry("out.reads-out", "out"), Map.entry("out.strides", "out"), Map.entry("out.shape", "out"),
      Map.entry("out.dtype", "out"), Map.entry("variant.agree", "variant.agree"),
      Map.entry("dtype.declared", "dtype"), Map.entry("dtype.unlisted", "dtype"),
      Map.entry("gradcheck.gradgrad", "gradcheck.gradgrad"),
      Map.entry("gradcheck.undefined-grad", "gradcheck.undefined-grad"),
      Map.entry("memory.readonly-input", "memory.bounds"), Map.entry("memory.cow-input", "memory.cow-input"), Map.entry("tags.pt2-compliant", "tags.pt2-compliant"),
      Map.entry("tags.inplace-view", "tags.inplace-view"),
      Map.entry("sanitizer.address", "sanitizer"), Map.entry("sanitizer.undefined", "sanitizer"),
      Map.entry("sanitizer.thread", "sanitizer"));
  /** Why a script cannot reproduce a check it has no body for, where there is more to say than that. */
  private static final Map<String, String> WHY_NOT = Map.of(
      "baseline.values", "its finding compares the outputs with those an earlier release recorded in a baseline file,"
          + " on inputs drawn from the baseline's seed; the script has neither (rerun: ./opcheck check --baseline FILE)",
      "trace.specialization", "a guard on a symbolic size is no error in PyTorch: torch.compile specialises the graph"
          + " and recompiles for another shape, and opcheck's test_aot_dispatch_dynamic passes such an op",
      "schema.compatible", "its finding compares the schema and kernels with an earlier release's, recorded in a"
          + " baseline file the script does not have (rerun: ./opcheck check --baseline FILE)",
      "aoti.calls", "its finding compares an AOTInductor package's calls with the op registered now, on the package's"
          + " data (rerun: ./opcheck model PACKAGE.pt2 --library LIB)",
      "aoti.annotations", "its finding is about what an AOTInductor package does not record (rerun: ./opcheck model"
          + " PACKAGE.pt2 --library LIB)",
      "aoti.run", "its finding is an AOTInductor package's run, which the package itself reproduces (rerun: ./opcheck"
          + " model PACKAGE.pt2 --library LIB --input ... --expect OUT.pt)");
  /** Checks whose scripts need no example: they read the schema or the dispatcher, or make their own inputs. */
  private static final Set<String> NO_CALL = Set.of("registration.any-kernel", "registration.device-kernel",
      "schema.alias-target", "schema.functionalizable", "schema.inplace-name", "schema.mutable-args",
      "schema.out-variant", "schema.types", "registration.dangling", "registration.exists", "generate.examples");
  /** Checks about a name no library defined: their scripts resolve no op. */
  private static final Set<String> NO_OP = Set.of("registration.dangling", "registration.exists");
  /** Checks whose scripts run the call on no example of their own device: they rebuild it on cpu. */
  private static final Set<String> ON_CPU = Set.of("fake.metadata", "fake.missing", "fake.permissive",
      "trace.symbolic-sizes", "trace.data", "trace.data-dependent");

  private ReproScript() {}

  /**
   * What a script is made of.
   *
   * @param op the op, {@code ns::name} or {@code ns::name.overload}; null for a result about a library
   * @param check the failed check's id
   * @param device the device's label, or null
   * @param library the library the run loaded
   * @param summary the finding as shown ({@code expected}, {@code but was}), for the script's header
   * @param saved the example as the worker saved it; null when the result has none
   * @param specExample whether the result named no example and {@code saved} is the spec entry's first
   * @param unsaved why the example could not be saved, or null
   * @param spec the op's spec entry (gradcheck settings, reference, tolerance)
   * @param deadline the op's deadline
   * @param seed the run's seed: a call of an op tagged nondeterministic_seeded starts torch's generator from it
   */
  public record Input(String op, String check, String device, String library, List<String> summary,
      Answers.ExampleSaved saved, boolean specExample, String unsaved, OpSpec spec, Duration deadline, long seed) {}

  /** The finding's lines a script's header shows ({@code expected}, {@code but was}); none without a finding. */
  static List<String> summary(dev.opcheck4j.api.Finding f) {
    return f == null ? List.of() : List.of("expected : " + f.expected(), "but was  : " + f.actual());
  }

  /** Writes the script of {@code in} to {@code file}, making its directory; returns {@code file}. */
  static java.nio.file.Path write(java.nio.file.Path file, Input in) {
    try {
      java.nio.file.Files.createDirectories(file.getParent());
      java.nio.file.Files.writeString(file, text(in));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the repro script " + file, e);
    }
  }

  /** The script's text. */
  public static String text(Input in) {
    StringBuilder sb = new StringBuilder("#!/usr/bin/env python3\n");
    sb.append("# A PyTorch repro of an opcheck4j finding, written by check --repro (docs/repro.md):\n");
    sb.append("#   [").append(comment(in.check())).append("] ").append(comment(in.op() == null ? "(library)" : in.op()))
        .append(in.device() == null ? "" : " on " + in.device()).append('\n');
    in.summary().forEach(line -> sb.append("#   ").append(comment(line)).append('\n'));
    sb.append("# Run: python3 THIS.py [LIBRARY]  (LIBRARY: the op library to load instead of the one checked)\n");
    // a library built with sanitizers runs under them in PyTorch too, as in opcheck4j's workers
    Map<String, String> sanitizer = sanitizerEnv(in.library());
    if (!sanitizer.isEmpty()) {
      sb.append("# Under its sanitizers by hand, as opcheck4j's workers ran it:\n#   ").append(comment(String.join(" ",
          sanitizer.entrySet().stream().map(e -> e.getKey() + "=" + shell(e.getValue())).toList()))).append(
          " OPCHECK4J_SANITIZED=1 OPCHECK4J_REPRO_CHILD=1 python3 THIS.py\n")
          .append("#   (this script starts itself so when run as python3 THIS.py)\n");
    }
    sb.append("# Exit 1: the finding reproduces; 0: it does not; ").append(CANNOT)
        .append(": this script cannot reproduce this check.\n");
    String body = BODY_OF.containsKey(in.check()) ? BODIES.get(BODY_OF.get(in.check())) : null;
    String cannot = body == null
        ? "cannot reproduce: " + (WHY_NOT.containsKey(in.check()) ? in.check() + ": " + WHY_NOT.get(in.check())
            : "this script knows no PyTorch test or observation by hand for check '" + in.check() + "'")
        : in.op() == null ? "cannot reproduce: the finding is about the library, not about a call of an op"
        : in.saved() == null && !NO_CALL.contains(in.check()) ? "cannot reproduce: the finding has no example to call"
            + " the op on, nor has its spec entry"
        : in.unsaved() != null && !NO_CALL.contains(in.check()) ? "cannot reproduce: the example could not be saved: " + in.unsaved()
        : null;
    if (cannot != null) {
      return sb.append("import sys\n\nprint(").append(py(cannot)).append(")\nsys.exit(").append(CANNOT).append(")\n")
          .toString();
    }
    String device = in.device() == null || ON_CPU.contains(in.check()) ? "cpu" : in.device();
    if (!sanitizer.isEmpty()) {
      // the library's sanitizer runtime must be loaded first, before python loads torch: the script starts
      // itself again under it
      sb.append("import os\nimport sys\n\nif os.environ.get('OPCHECK4J_SANITIZED') != '1':\n")
          .append("    os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, OPCHECK4J_SANITIZED='1', **{")
          .append(String.join(", ", sanitizer.entrySet().stream().map(e -> py(e.getKey()) + ": " + py(e.getValue()))
              .toList())).append("}))\n\n");
    }
    sb.append(PRELUDE.replace("%LIBRARY%", py(in.library())).replace("%DEVICE%", py(device))
        .replace("%NO_OP%", NO_OP.contains(in.check()) ? "True" : "False").replace("%OP_NAME%", py(in.op())));
    sb.append("\n\nCHECK = ").append(py(in.check())).append('\n');
    OpSpec.Gradcheck g = in.spec().gradcheck();
    sb.append("GRADCHECK = dict(eps=").append(g.eps()).append(", atol=").append(g.atol()).append(", rtol=")
        .append(g.rtol()).append(", fast_mode=").append(g.fast() ? "True" : "False").append(")\n");
    sb.append("TOLERANCE = ").append(in.spec().tolerance()
        .map(t -> "dict(atol=" + t.atol() + ", rtol=" + t.rtol() + ")").orElse("{}")).append('\n');
    sb.append("REFERENCE = ").append(in.spec().reference().map(r -> py(r.source())).orElse("None")).append('\n');
    sb.append("DOUBLE_BACKWARD = ").append(g.doubleBackward() ? "True" : "False").append('\n');
    sb.append("DTYPES = ").append(in.spec().domain().dtypes().stream().map(ReproScript::py).toList()).append('\n');
    sb.append("DEADLINE = ").append(in.deadline().toMillis() / 1000.0).append('\n');
    // the tags the spec entry declares (the script reads the registered ones from OP.tags itself)
    sb.append("TAGS = ").append(in.spec().tags().stream().map(ReproScript::py).toList()).append('\n');
    sb.append("SEED = ").append(Long.toUnsignedString(in.seed())).append('\n');
    sb.append("SANITIZER_ENV = {").append(String.join(", ", sanitizer.entrySet().stream()
        .map(e -> py(e.getKey()) + ": " + py(e.getValue())).toList())).append("}\n");
    sb.append("VARIANT_OF = ").append(in.spec().variantOf().filter(v -> !v.functional().isEmpty())
        .map(v -> "(" + py(v.functional()) + ", " + (v.inPlace() ? "True" : "False") + ")").orElse("None"))
        .append("\n\n\n");
    if (in.saved() != null && in.unsaved() == null) {
      if (in.specExample()) {
        sb.append("# The finding names no example: the script calls the op on its spec entry's first example.\n");
      }
      sb.append(example(in.saved()));
    } else {
      sb.append("example = None  # the finding needs no example, and the spec entry gives none\n");
    }
    return sb.append("\n\n").append(body).toString();
  }

  /**
   * The environment a process loading {@code library} runs its sanitizers with (the preload and the options of
   * opcheck4j's workers, without the JVM's suppressions); empty for a library built with none.
   */
  private static Map<String, String> sanitizerEnv(String library) {
    dev.opcheck4j.run.supervisor.SanitizedWorkers s = dev.opcheck4j.run.supervisor.SanitizedWorkers.of(
        List.of(java.nio.file.Path.of(library)));
    if (!s.any()) {
      return Map.of();
    }
    return new LinkedHashMap<>(s.options(null, Map.of()));
  }

  /** {@code s} quoted for a POSIX shell. */
  private static String shell(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** The function that rebuilds the minimal example, fresh for each call, from the saved tensors. */
  private static String example(Answers.ExampleSaved saved) {
    List<String> args = new ArrayList<>();
    List<String> kwargs = new ArrayList<>();
    for (Answers.SavedArgument a : saved.args()) {
      String value = a.file() == null ? a.literal() : "load(device, " + py(a.file())
          + a.tensors().stream().map(t -> ", (" + py(t.dtype()) + ", " + t.sizes() + ", " + t.strides() + ", "
              + t.storageOffset() + ", " + (t.requiresGrad() ? "True" : "False") + ")").reduce("", String::concat)
          + ")";
      if (a.kwargOnly()) {
        kwargs.add(py(a.name()) + ": " + value);
      } else {
        args.add(value);
      }
    }
    return "def example(device=DEVICE):\n"
        + "    \"\"\"The minimal example, fresh for each call: its positional and keyword arguments.\"\"\"\n"
        + "    args = [" + String.join(",\n            ", args) + "]\n"
        + "    kwargs = {" + String.join(",\n              ", kwargs) + "}\n"
        + "    return args, kwargs\n";
  }

  /** A Python string literal of {@code s}. */
  static String py(String s) {
    return ExampleFiles.pythonString(s);
  }

  /** Text inside a comment: one line, control characters made visible. */
  private static String comment(String s) {
    StringBuilder sb = new StringBuilder();
    s.chars().forEach(c -> sb.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", c) : String.valueOf((char) c)));
    return sb.toString();
  }

  private static Map<String, String> sections(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    String name = null;
    StringBuilder body = new StringBuilder();
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("# ---- ")) {
        if (name != null) {
          out.put(name, body.toString());
        }
        name = line.substring("# ---- ".length()).strip();
        body.setLength(0);
      } else {
        body.append(line).append('\n');
      }
    }
    if (name != null) {
      out.put(name, body.toString());
    }
    return out;
  }

  private static String resource(String name) {
    try (InputStream in = ReproScript.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
