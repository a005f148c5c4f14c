package dev.opcheck4j.api;

import java.util.Objects;

/**
 * Why a check found something, as a kind and a value that stay the same across inputs of other sizes
 * and values: shrinking keeps an input only while it fails with an equal cause ({@link #sameAs}), and
 * "crashed" or "timed out" is known by kind, never by a check id or a text.
 */
public sealed interface Cause
    permits Cause.ValueMismatch,
        Cause.MetadataMismatch,
        Cause.Rejection,
        Cause.Crash,
        Cause.Timeout,
        Cause.Contract {

  /** A short lower-case name of the kind, for reports: {@code value-mismatch}, {@code crash}, ... */
  String kind();

  /** Whether {@code other} is the same cause: the same kind and the same value. */
  default boolean sameAs(Cause other) {
    return equals(other);
  }

  /**
   * Values differ from what they should be.
   *
   * @param where what was compared, e.g. {@code output 0} or {@code argument 'x'}; never null
   */
  record ValueMismatch(String where) implements Cause {
    public ValueMismatch {
      Objects.requireNonNull(where, "where");
    }

    @Override
    public String kind() {
      return "value-mismatch";
    }
  }

  /**
   * A property other than the values differs (sizes, strides, dtype, device, storage offset, count).
   *
   * @param where what was compared, e.g. {@code output 0}; never null
   * @param property which property differs, e.g. {@code sizes}; never null
   */
  record MetadataMismatch(String where, String property) implements Cause {
    public MetadataMismatch {
      Objects.requireNonNull(where, "where");
      Objects.requireNonNull(property, "property");
    }

    @Override
    public String kind() {
      return "metadata-mismatch";
    }
  }

  /**
   * A kernel raised. The value compared is the first line with its numbers and bracketed lists
   * blanked out, so "expected 3 but got 5" and "expected 1 but got 2" are one cause.
   *
   * @param firstLine the first line of the error as raised; never null
   */
  record Rejection(String firstLine) implements Cause {
    public Rejection {
      Objects.requireNonNull(firstLine, "firstLine");
    }

    @Override
    public String kind() {
      return "rejection";
    }

    /** The first line with numbers and bracketed lists blanked out. */
    public String shape() {
      return firstLine.replaceAll("\\[[^\\]]*\\]", "[…]").replaceAll("(?<![A-Za-z_])-?\\d+(\\.\\d+)?(e-?\\d+)?", "#");
    }

    @Override
    public boolean sameAs(Cause other) {
      return other instanceof Rejection r && r.shape().equals(shape());
    }
  }

  /**
   * The process running the kernel died.
   *
   * @param signal how it died: a signal name ({@code SIGSEGV}), {@code exit N}, or what is known; never null
   */
  record Crash(String signal) implements Cause {
    public Crash {
      Objects.requireNonNull(signal, "signal");
    }

    @Override
    public String kind() {
      return "crash";
    }

    /** Any crash is the same cause: a shrunk input that kills the process with another signal still crashes it. */
    @Override
    public boolean sameAs(Cause other) {
      return other instanceof Crash;
    }
  }

  /**
   * A unit of work did not finish within its deadline.
   *
   * @param seconds the deadline
   */
  record Timeout(long seconds) implements Cause {
    @Override
    public String kind() {
      return "timeout";
    }

    @Override
    public boolean sameAs(Cause other) {
      return other instanceof Timeout;
    }
  }

  /**
   * What an op declares (its schema, its registrations, its spec) does not hold.
   *
   * @param rule the rule broken, stable across inputs, e.g. {@code undeclared mutation}; never null
   * @param subject what it is about, e.g. {@code argument 'x'}, or empty; never null
   */
  record Contract(String rule, String subject) implements Cause {
    public Contract {
      Objects.requireNonNull(rule, "rule");
      Objects.requireNonNull(subject, "subject");
    }

    @Override
    public String kind() {
      return "contract";
    }
  }
}
