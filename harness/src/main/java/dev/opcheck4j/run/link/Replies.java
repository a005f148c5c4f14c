package dev.opcheck4j.run.link;

import dev.opcheck4j.run.link.Answers.Answer;

/** What the worker sends the parent: one record per kind of message (JMH's frames). */
public final class Replies {
  private Replies() {}

  /** Worker to parent. */
  public sealed interface Reply permits Mismatch, Loading, Ready, LoadFailed, Begin, Answered, End, Bye {}

  /**
   * The worker speaks another version of the protocol than {@link Protocol.Start} asked for; it exits.
   *
   * @param protocol the worker's {@link Protocol#VERSION}
   */
  public record Mismatch(int protocol) implements Reply {
    /** The parent's one line about it, {@code parent} being the version it asked for. */
    public String describe(int parent) {
      return "the worker speaks opcheck4j worker protocol " + protocol + " and this harness " + parent
          + ": its classes come from another build of opcheck4j than this process's (rebuild, or check the class path)";
    }
  }

  /** The worker starts loading {@code library} (its path). */
  public record Loading(String library) implements Reply {}

  /** The worker has loaded libtorch and every library. */
  public record Ready(WorkerInfo info) implements Reply {}

  /** A library could not be loaded; {@code message} names it. */
  public record LoadFailed(String message) implements Reply {}

  /** Unit {@code id} starts. */
  public record Begin(long id) implements Reply {}

  /**
   * Unit {@code id} finished.
   *
   * @param micros the unit's own time in microseconds
   */
  public record Answered(long id, Answers.Answer answer, long micros) implements Reply {}

  /**
   * The exchange whose first unit is {@code id} ended: every unit of it that ran was answered, and the
   * ones without an answer were skipped by their guard.
   */
  public record End(long id) implements Reply {}

  /** Asked to exit, with its output flushed. */
  public record Bye() implements Reply {}
}
