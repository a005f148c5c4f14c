package dev.opcheck4j.checks.sanitizer;

import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.torch.Instrumentation.Sanitizer;

/**
 * A library built with {@code -fsanitize=undefined} does nothing C++ leaves undefined: a report of
 * UndefinedBehaviorSanitizer (signed overflow, a shift too far, a division by zero, an out-of-range
 * conversion, a misaligned or null access) is this check's finding about the unit that printed it. The
 * worker goes on after it; the parent reads each unit's output.
 */
public final class UndefinedBehaviorCheck extends SanitizerCheck {
  public static final String ID = "sanitizer.undefined";

  public UndefinedBehaviorCheck() {
    super(Declaration.error(ID, "a library built with UndefinedBehaviorSanitizer makes no report (no undefined behaviour)"),
        Sanitizer.UNDEFINED, "the kernel's arithmetic, shifts, conversions and accesses are defined"
            + " (UndefinedBehaviorSanitizer reports nothing)",
        "the line named does something C++ leaves undefined, which an optimizing compiler may turn into any result:"
            + " compute in a wider or an unsigned type (hashes), or check the operands before");
  }
}
