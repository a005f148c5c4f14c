package dev.opcheck4j.checks;

import dev.opcheck4j.torch.Companion;
import dev.opcheck4j.torch.NativeStrings;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The message a stable-ABI kernel's error really had. When a call into libtorch's stable-ABI shim fails
 * (an aten op raised inside {@code torch_call_dispatcher}, an allocation failed), the shim catches the
 * exception and keeps its message in a thread-local; what the kernel then throws depends on the stable ABI
 * it was built for:
 * <ul>
 *   <li>2.13 or later ({@code STABLE_TORCH_ERROR_CODE_CHECK}): the real message, {@code <aten text>
 *       (originally from <call> API call failed at <file>, line N)}; it also logs "Exception across libtorch
 *       C API boundary: ..." to stderr;
 *   <li>2.10 to 2.12 ({@code TORCH_ERROR_CODE_CHECK}): only {@code <call> API call failed at <file>, line N}.
 *       libtorch 2.10's shim logged the original as "Exception in aoti_torch: ..." to stderr; 2.13's logs
 *       nothing, so the message is read from the shim's thread-local through the companion library
 *       ({@link Companion#takeShimError}).
 * </ul>
 * Either way the error a report shows is the aten text. The shim's message is taken (cleared) after every
 * failed call whose text names a failed API call, so that it is never given to a later failure it did not
 * cause; a failure of a shim call made on another thread (one the kernel started) keeps the text it has.
 */
final class StableAbiErrors {
  /** What a 2.13-target kernel throws: the message, then where the shim call failed. */
  private static final Pattern ORIGINALLY = Pattern.compile(
      "(?s)(.*) \\(originally from .* API call failed at [^\\n]*, line \\d+\\)\\s*");
  /** What a kernel built for 2.10-2.12 throws. */
  private static final Pattern FAILED_CALL = Pattern.compile("^\\S.* API call failed at .*, line \\d+$");
  /** The prefix of a failed {@code TORCH_ENFORCE} (an allocation): {@code [enforce fail at alloc_cpu.cpp:117] err == 0. }. */
  private static final Pattern ENFORCE = Pattern.compile("^\\[enforce fail at [^\\]]*\\] (?:err == 0\\. )?");

  private StableAbiErrors() {}

  /** The first line of what the kernel's error really said. */
  static String message(RuntimeException e) {
    String full = String.valueOf(e.getMessage());
    Matcher originally = ORIGINALLY.matcher(full);
    if (full.contains(" (originally from ") && originally.matches()) {
      Optional<String> shim = Companion.takeShimError();
      // the shim may have kept no text without a backtrace (seen under a Python dispatch mode): its own then
      return !originally.group(1).isBlank() ? clean(originally.group(1))
          : shim.map(StableAbiErrors::clean).filter(m -> !m.isEmpty()).orElse(NativeStrings.firstLine(full));
    }
    String first = NativeStrings.firstLine(full);
    if (FAILED_CALL.matcher(first).matches()) {
      return Companion.takeShimError().map(StableAbiErrors::clean).filter(m -> !m.isEmpty()).orElse(first);
    }
    return first;
  }

  private static String clean(String message) {
    return ENFORCE.matcher(NativeStrings.firstLine(message).strip()).replaceFirst("");
  }
}
