package dev.opcheck4j.checks.sanitizer;

import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.torch.Instrumentation.Sanitizer;

/**
 * A library built with {@code -fsanitize=address} reads and writes only memory it owns: a report of
 * AddressSanitizer (a heap, stack or global buffer overflow, a use after free or after return, a double
 * free) ends the worker, and the report is this check's finding about the unit that was running.
 */
public final class AddressSanitizerCheck extends SanitizerCheck {
  public static final String ID = "sanitizer.address";

  public AddressSanitizerCheck() {
    super(Declaration.error(ID, "a library built with AddressSanitizer makes no report (every access is to memory it owns)"),
        Sanitizer.ADDRESS, "the kernel reads and writes only memory it owns (AddressSanitizer reports nothing)",
        "the line named reads or writes memory the kernel does not own: a bound one element too far, or a pointer"
            + " into a buffer or temporary that was already freed; the full report (in the worker log) says where that"
            + " memory was allocated and freed");
  }
}
