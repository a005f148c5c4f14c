package dev.opcheck4j.checks.builtin;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.DeviceCheck;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.LibraryCheck;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.OpCheck;
import dev.opcheck4j.checks.RejectionCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.torch.NativeStrings;

/**
 * Runs a check on one subject where the library is loaded (a worker, or this process in tests):
 * calls the method its type has, and turns what escapes into a finding or a harness error.
 */
public final class Evaluator {
  private Evaluator() {}

  /**
   * Evaluates a library, op, device or example check; a kernel that raised inside it is a finding,
   * any other exception a harness error.
   *
   * @throws IllegalArgumentException for a check that is not evaluated on one subject
   */
  public static Verdict evaluate(Check check, Subject subject) {
    try {
      if (check instanceof LibraryCheck c) {
        return c.evaluateLibrary(subject);
      } else if (check instanceof OpCheck c) {
        return c.evaluateOp(subject);
      } else if (check instanceof DeviceCheck c) {
        return c.evaluateDevice(subject);
      } else if (check instanceof ExampleCheck c) {
        return c.evaluateExample(subject);
      }
    } catch (OpCall.KernelError e) {
      // a kernel that raised inside a check that needed it to run is a finding, not a harness bug
      return Verdict.failed(Finding.of(
          "the kernel runs on the example, as it did for " + KernelErrorCheck.ID,
          "raised: " + e.getMessage(),
          "a kernel that raises only sometimes depends on hidden state; see determinism",
          new Cause.Rejection(e.getMessage())));
    } catch (Exception | LinkageError | AssertionError e) {
      return harnessError(subject, e);
    }
    throw new IllegalArgumentException(check.id() + " is not evaluated on one subject (" + check.scope() + ")");
  }

  /** A rejection check's verdict on an input the real kernel raised {@code realError} on; what escapes is a harness error. */
  public static Verdict onRejected(Check check, Subject subject, String realError) {
    if (!(check instanceof RejectionCheck r)) {
      throw new IllegalArgumentException(check.id() + " does not judge rejected inputs");
    }
    try {
      return r.onRejected(subject, realError);
    } catch (Exception | LinkageError | AssertionError e) {
      return harnessError(subject, e);
    }
  }

  /**
   * What a check that threw becomes: Skipped, with the reason, when the example has a tensor past the
   * runtime's dimension limit (libtorch itself refuses it: {@link Subject#pastDimensionLimit}); else a harness
   * error.
   */
  private static Verdict harnessError(Subject subject, Throwable e) {
    String raised = e.getClass().getSimpleName() + ": " + NativeStrings.firstLine(e.getMessage());
    return subject.pastDimensionLimit().map(why -> Verdict.skipped(why + " (" + raised + ")"))
        .orElseGet(() -> Verdict.errored(raised));
  }
}
