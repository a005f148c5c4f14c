package dev.opcheck4j.junit;

import dev.opcheck4j.generate.Choices;
import dev.opcheck4j.generate.Shrinker;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.opentest4j.AssertionFailedError;

/**
 * When a test fails on a generated {@link OpInput}, replays it on simpler inputs from the same
 * generator (integrated shrinking over the recorded choices) and fails with the minimal one. A
 * failure's stack trace ends at the test method, as a person reads it.
 */
public final class OpInputsShrinking implements InvocationInterceptor {
  static final int BUDGET = 200;

  @Override
  public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
      ExtensionContext context) throws Throwable {
    try {
      invocation.proceed();
    } catch (Throwable failure) {
      int at = -1;
      List<Object> args = call.getArguments();
      for (int i = 0; i < args.size(); i++) {
        if (args.get(i) instanceof OpInput in && in.choices != null) {
          at = i;
        }
      }
      if (isAbort(failure)) {
        throw failure;
      }
      failure.setStackTrace(upToTheTest(failure.getStackTrace(), call.getExecutable()));
      if (at < 0) {
        throw failure;
      }
      OpInput original = (OpInput) args.get(at);
      int index = at;
      OpInput[] smallest = {original};
      Shrinker.Result r = new Shrinker(c -> {
        OpInput candidate = replay(original, c);
        if (candidate == null) {
          return false;
        }
        List<Object> replaced = new ArrayList<>(args);
        replaced.set(index, candidate);
        if (fails(call, replaced)) {
          smallest[0] = candidate;
          return true;
        }
        return false;
      }, BUDGET).shrink(original.choices);
      OpInput minimal = replay(original, Choices.replay(r.sequence()));
      if (minimal == null) {
        minimal = smallest[0];
      }
      String message = failure.getMessage() + "\n  input           : " + original
          + "\n  minimal example : " + minimal.description() + "  " + Shrinker.Result.shrunkIn(r.steps());
      // the failure's own type and expected/actual (an IDE's diff), at the test's own frames
      AssertionError shrunk = failure instanceof AssertionFailedError f && f.isExpectedDefined() && f.isActualDefined()
          ? new AssertionFailedError(message, f.getExpected().getValue(), f.getActual().getValue())
          : new AssertionError(message);
      shrunk.setStackTrace(failure.getStackTrace());
      throw shrunk;
    }
  }

  /**
   * The frames from where the failure was thrown up to the test method: what lies below it is
   * reflection, this interceptor and the stream pipeline that iterates the inputs, none of it the
   * user's. The whole trace when the test method is not on it (a failure thrown on another thread).
   */
  static StackTraceElement[] upToTheTest(StackTraceElement[] frames, Method test) {
    for (int i = 0; i < frames.length; i++) {
      if (frames[i].getClassName().equals(test.getDeclaringClass().getName())
          && frames[i].getMethodName().equals(test.getName())) {
        return Arrays.copyOf(frames, i + 1);
      }
    }
    return frames;
  }

  private static boolean isAbort(Throwable t) {
    return t.getClass().getName().equals("org.opentest4j.TestAbortedException");
  }

  private static OpInput replay(OpInput original, Choices choices) {
    var s = original.subject();
    return OpInputsProvider.generated(s.library(), s.op(), s.spec(), s.device(), s.seed(), original.generator, choices,
        original.label() + " (shrunk)");
  }

  private static boolean fails(ReflectiveInvocationContext<Method> call, List<Object> args) {
    Method m = call.getExecutable();
    try {
      m.setAccessible(true);
      m.invoke(call.getTarget().orElse(null), args.toArray());
      return false;
    } catch (InvocationTargetException e) {
      return !isAbort(e.getCause());
    } catch (IllegalAccessException e) {
      return false;
    }
  }
}
