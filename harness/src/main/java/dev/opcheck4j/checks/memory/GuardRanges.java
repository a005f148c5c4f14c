package dev.opcheck4j.checks.memory;

import dev.opcheck4j.api.Cause;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The guard pages of one call of {@code memory.bounds}, as the worker tells them in its step before
 * the call (the step outlives a worker the fault kills): which argument's storage each page bounds,
 * and on which side. The parent reads them back from the dead worker's last step and maps the
 * faulting address of its JVM error file to the argument and direction.
 *
 * @param ranges one per guarded tensor argument
 */
public record GuardRanges(List<Range> ranges) {
  private static final String OPEN = " [guard pages: ";
  // an argument may be a list element, xs[1]: its brackets are inside the quotes
  private static final Pattern TOLD = Pattern.compile(
      Pattern.quote(OPEN) + "((?:(?:'[^']*'|<[^>]*>) (?:END|START|READ_ONLY|FREED) [0-9a-f]+-[0-9a-f]+(?:; )?)*)\\]");
  // an argument in quotes, memory the kernel allocated in angle brackets
  private static final Pattern ONE = Pattern.compile("(?:'(.*)'|<(.*)>) (END|START|READ_ONLY|FREED) ([0-9a-f]+)-([0-9a-f]+)");

  /** What {@link Cause.Contract#rule()} a memory.bounds finding has. */
  public static final String RULE = "access outside a tensor argument's storage";
  /** What {@link Cause.Contract#rule()} a memory.readonly-input finding has. */
  public static final String READ_ONLY_RULE = "write to an input the schema does not declare mutable";

  /**
   * One guard page, or the read-only storage itself.
   *
   * @param argument the schema argument whose storage it bounds, or, when {@code allocated}, what the
   *     kernel allocated ({@code output 0}, {@code a temporary the kernel allocated})
   * @param side where it lies: right after the storage, right before it, or the storage
   * @param from its first byte
   * @param to the byte after its last
   * @param allocated whether it bounds memory the kernel allocated during the call ({@link GuardedAllocator})
   */
  record Range(String argument, GuardedMemory.Side side, long from, long to, boolean allocated) {
    /** The guard page of a tensor argument. */
    Range(String argument, GuardedMemory.Side side, long from, long to) {
      this(argument, side, from, to, false);
    }

    Cause.Contract cause() {
      return allocated ? allocatedCause(argument, side) : GuardRanges.cause(argument, side);
    }
  }

  /** The cause of a fault inside a guard page of {@code argument} on {@code side} (in its read-only storage). */
  static Cause.Contract cause(String argument, GuardedMemory.Side side) {
    return new Cause.Contract(side == GuardedMemory.Side.READ_ONLY ? READ_ONLY_RULE : RULE,
        "argument '" + argument + "', " + side.direction);
  }

  /** The cause of an access on {@code side} of what the kernel allocated ({@code output 0}, a temporary). */
  static Cause.Contract allocatedCause(String what, GuardedMemory.Side side) {
    return new Cause.Contract(RULE, what + ", " + side.direction);
  }

  /** These ranges, then {@code more}'s (a fault is named by the first range it lies in). */
  GuardRanges and(List<Range> more) {
    List<Range> all = new ArrayList<>(ranges);
    all.addAll(more);
    return new GuardRanges(List.copyOf(all));
  }

  /** The ranges as the step names them, appended to the step's text. */
  String told() {
    List<String> parts = new ArrayList<>();
    for (Range r : ranges) {
      parts.add((r.allocated() ? "<" + r.argument() + ">" : "'" + r.argument() + "'") + " " + r.side() + " " + Long.toHexString(r.from()) + "-" + Long.toHexString(r.to()));
    }
    return OPEN + String.join("; ", parts) + "]";
  }

  /** The guard pages a step names (none for any other step). */
  public static GuardRanges in(String step) {
    List<Range> ranges = new ArrayList<>();
    Matcher m = TOLD.matcher(step);
    if (m.find()) {
      for (String part : m.group(1).split("; ")) {
        Matcher r = ONE.matcher(part);
        if (r.matches()) {
          boolean allocated = r.group(1) == null;
          ranges.add(new Range(allocated ? r.group(2) : r.group(1), GuardedMemory.Side.valueOf(r.group(3)),
              Long.parseUnsignedLong(r.group(4), 16), Long.parseUnsignedLong(r.group(5), 16), allocated));
        }
      }
    }
    return new GuardRanges(List.copyOf(ranges));
  }

  /** The step as a reader sees it: without the guard pages' addresses. */
  public static String shown(String step) {
    return TOLD.matcher(step).replaceAll("");
  }

  /** A fault at {@code address} as a memory.bounds cause, when the address is in one of these guard pages. */
  public Optional<Cause> hit(long address) {
    return ranges.stream().filter(r -> Long.compareUnsigned(address, r.from()) >= 0 && Long.compareUnsigned(address, r.to()) < 0)
        .findFirst().map(Range::cause);
  }
}
