package dev.opcheck4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.builtin.Evaluator;
import dev.opcheck4j.checks.LibraryCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs one check in this process on one op of a native-ops library, with the first example its spec
 * gives (or none), as a worker would, and asserts what it concluded: the outcome and, for a finding,
 * the kind of its cause. The corpus tests stay the end-to-end gate; this tests a check on its own.
 */
public final class CheckTestHelper {
  private static final Map<String, OpLibrary> LOADED = new HashMap<>();

  private CheckTestHelper() {}

  /**
   * The verdict of {@code check} on {@code op} of {@code library} on the cpu.
   *
   * @param library the library's short name, e.g. {@code bad_ops}
   * @param spec the spec under fixtures/specs that gives the op's examples, e.g. {@code bad/bad_ops.json}
   * @param op the op, or null for a library check
   */
  public static Verdict evaluate(String check, String library, String spec, String op) throws Exception {
    Check c = BuiltinChecks.byId(check).orElseThrow();
    OpLibrary lib = load(library);
    if (c instanceof LibraryCheck) {
      return Evaluator.evaluate(c, new Subject(lib, null, OpSpec.bare(library + "::*"), null, null, 7L));
    }
    OpSpec entry = SpecReader.read(NativeOps.spec(spec)).ops().stream().filter(o -> o.op().equals(op)).findFirst()
        .orElse(OpSpec.bare(op));
    return evaluate(check, library, entry);
  }

  /** The verdict of {@code check} on the op of {@code entry} (a spec entry made by the test) of {@code library}. */
  public static Verdict evaluate(String check, String library, OpSpec entry) throws Exception {
    Check c = BuiltinChecks.byId(check).orElseThrow();
    OpLibrary lib = load(library);
    String op = entry.op();
    Device device = switch (c.scope()) {
      case OP -> null;
      default -> c.appliesTo(Device.CPU) ? Device.CPU : Device.META;
    };
    var example = entry.examples().isEmpty() ? null : entry.examples().get(0);
    return Evaluator.evaluate(c, new Subject(lib, lib.op(op), entry, device, example, 7L));
  }

  /** Asserts that {@code check} passes on {@code op}. */
  public static void assertPasses(String check, String library, String spec, String op) throws Exception {
    Verdict v = evaluate(check, library, spec, op);
    assertEquals(Outcome.PASSED, v.outcome(), check + " on " + op + ": " + v.facts());
  }

  /** Asserts that {@code check} finds something on {@code op}, for a cause of kind {@code cause}; returns the finding. */
  public static Finding assertFinds(String check, String library, String spec, String op,
      Class<? extends Cause> cause) throws Exception {
    Verdict v = evaluate(check, library, spec, op);
    assertEquals(Outcome.FAILED, v.outcome(), check + " on " + op + ": " + v.facts());
    assertNotNull(v.finding());
    assertInstanceOf(cause, v.finding().cause(), v.finding().toString());
    return v.finding();
  }

  private static synchronized OpLibrary load(String name) throws Exception {
    OpLibrary lib = LOADED.get(name);
    if (lib == null) {
      lib = OpLibrary.load(NativeOps.lib(name));
      LOADED.put(name, lib);
    }
    return lib;
  }
}
