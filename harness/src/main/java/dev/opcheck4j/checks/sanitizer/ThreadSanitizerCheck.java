package dev.opcheck4j.checks.sanitizer;

import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.torch.Instrumentation.Sanitizer;

/**
 * A library built with {@code -fsanitize=thread} has no data race between the threads its kernels start:
 * a report of ThreadSanitizer is this check's finding about the unit that printed it. The worker goes on
 * after it; the parent reads each unit's output. The JVM's own libraries are suppressed
 * ({@code tsan-jvm.supp}, shipped with the harness).
 */
public final class ThreadSanitizerCheck extends SanitizerCheck {
  public static final String ID = "sanitizer.thread";

  public ThreadSanitizerCheck() {
    super(Declaration.error(ID, "a library built with ThreadSanitizer makes no report (no data race between its threads)"),
        Sanitizer.THREAD, "the kernel's threads never access the same memory unsynchronized while one of them writes"
            + " (ThreadSanitizer reports nothing)",
        "two threads touch the memory at the line named without synchronization, and one writes: give each thread"
            + " its own slot and combine them after the join, or use std::atomic or a mutex");
  }
}
