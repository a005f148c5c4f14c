package dev.opcheck4j.run.link;

/**
 * What became of one unit of an exchange, looked up by the ticket its batch gave ({@link
 * Kernels.Exchange#fate}): its answer; the death of the worker while it ran; or nothing, as it did not
 * run. Callers match on the three cases; none of them is null.
 *
 * @param <A> the answer the unit names
 */
public sealed interface Fate<A extends Answers.Answer> permits Fate.Answered, Fate.Died, Fate.NotRun {
  /**
   * The unit ran and answered.
   *
   * @param micros the unit's own time in microseconds, without the exchange with the parent
   */
  record Answered<A extends Answers.Answer>(A answer, long micros) implements Fate<A> {}

  /**
   * The worker died (or was killed at the deadline) while {@code unit} ran, so no answer came: {@code unit}
   * is the unit in flight, the one asked about or (for an answer that needed another unit first, a
   * check's verdict on a kernel call's input) that one. The units after it in the exchange did not run.
   */
  record Died<A extends Answers.Answer>(Death death, Protocol.Unit<?> unit) implements Fate<A> {
    /** The check whose unit it was; null for a unit of no check (a kernel call of a try or a probe). */
    public String check() {
      return unit instanceof Protocol.CheckUnit c ? c.check() : null;
    }
  }

  /**
   * The unit did not run: in a guarded exchange, its guard's kernel did not accept the example; or a
   * death earlier in the exchange ended it first.
   */
  record NotRun<A extends Answers.Answer>() implements Fate<A> {}
}
