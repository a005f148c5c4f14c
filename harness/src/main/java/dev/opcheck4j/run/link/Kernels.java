package dev.opcheck4j.run.link;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Where the parent's units run: a supervised worker process, or (for measurement) this process. */
public interface Kernels extends AutoCloseable {
  /**
   * A unit's answer and the time the unit itself took where it ran.
   *
   * @param micros the unit's own time in microseconds, without the exchange with the parent
   */
  public record Done(Answers.Answer answer, long micros) {}

  /**
   * What one exchange gave: the answers by unit id, and the death that ended it, if one did (in the
   * unit it names, the one in flight). Unit {@code i} of the exchange has id {@code first + i}; a unit
   * without an answer was skipped by its guard, or not reached because the worker died. The parent reads
   * a unit's {@link Fate} by the ticket its batch gave ({@link #fate}).
   *
   * @param first the id of the exchange's first unit
   */
  public record Exchange(long first, Map<Long, Done> answers, Optional<Death> death) {
    public Exchange {
      answers = Map.copyOf(answers);
    }

    /** An exchange of nothing. */
    public static Exchange none() {
      return new Exchange(0, Map.of(), Optional.empty());
    }

    /**
     * What became of the unit {@code ticket} stands for, looked up by its id: its answer; the death, when
     * the unit was in flight ({@link Death#unit()}); or that it did not run.
     */
    @SuppressWarnings("unchecked") // the unit a ticket stands for answers with A
    public <A extends Answers.Answer> Fate<A> fate(Batch.Ticket<A> ticket) {
      long id = first + ticket.position();
      Done d = answers.get(id);
      if (d != null) {
        return new Fate.Answered<>((A) d.answer(), d.micros());
      }
      return death.filter(x -> x.unit() == id).<Fate<A>>map(x -> new Fate.Died<>(x, ticket.unit()))
          .orElseGet(Fate.NotRun::new);
    }

    /** The answer of the unit {@code ticket} stands for, which must have one (an unguarded exchange that did not die). */
    public <A extends Answers.Answer> A answer(Batch.Ticket<A> ticket) {
      if (fate(ticket) instanceof Fate.Answered<A> a) {
        return a.answer();
      }
      throw new IllegalStateException("unit " + (first + ticket.position()) + " has no answer");
    }

    /** The answer of an exchange of one unit, which must have one (it did not die). */
    public <A extends Answers.Answer> A single(Class<A> kind) {
      return answer(0, kind);
    }

    /**
     * The answer of unit {@code index} of the exchange, looked up by its id; empty when it has none. For
     * units sent as a list, not added to a {@link Batch}: the parent reads its answers through their tickets.
     */
    public Optional<Done> done(int index) {
      return Optional.ofNullable(answers.get(first + index));
    }

    /** The answer of unit {@code index}, which must have one (an unguarded exchange that did not die). */
    private <A extends Answers.Answer> A answer(int index, Class<A> kind) {
      return kind.cast(done(index).orElseThrow(() -> new IllegalStateException("unit " + (first + index)
          + " has no answer")).answer());
    }
  }

  /**
   * Runs {@code units} in order in one exchange (generated inputs' kernel calls and the checks on
   * them: one round trip instead of one per unit), each unit within {@code deadline}. With {@code
   * guarded}, each {@link Protocol.Accepts} unit guards the units after it up to the next one: when
   * the kernel does not accept its example they are not run ({@link Protocol.Run#each}).
   *
   * @param opens the spec entries the units name: each is sent to a worker once, with the first exchange that needs it
   * @return the answers of the units run, by id, and the death that ended the exchange early, if any
   */
  public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline);

  /** Runs one unit that names the spec entry {@code open} (null: none). */
  default Exchange run(Protocol.OpenOp open, Protocol.Unit<?> unit, Duration deadline) {
    return run(open == null ? List.of() : List.of(open), List.of(unit), false, deadline);
  }

  /**
   * Makes the next exchange run on a worker that has run no unit yet: what a crash is confirmed on, so that
   * nothing an earlier call left behind (memory it damaged, a thread it left running) takes part. A worker
   * that just died is replaced anyway, so this costs a start only after an exchange that did not die. Kernels
   * in this process cannot start afresh, and do nothing.
   */
  default void renew() {}

  @Override
  void close();

  /** One unit run in this process: its answer, or the death it caused. */
  public interface Local {
    Ran run(Protocol.Unit<?> unit);
  }

  /** What a unit run in this process gave: an answer, or (scripted kernels) a death. */
  public sealed interface Ran permits Ran.Gave, Ran.Killed {
    record Gave(Answers.Answer answer) implements Ran {}

    record Killed(Death death) implements Ran {}

    static Ran gave(Answers.Answer answer) {
      return new Gave(answer);
    }

    static Ran died(Death death) {
      return new Killed(death);
    }
  }

  /**
   * The unit of {@code run} in flight when its worker died with {@code answers} (by id) given: the one
   * {@link Protocol.Run#each} runs next; {@link Death#UNKNOWN} when none is left.
   */
  static long inFlight(Protocol.Run run, Map<Long, Done> answers) {
    int i = 0;
    for (Done d; i < run.units().size() && (d = answers.get(run.id() + i)) != null; ) {
      i = run.next(i, d.answer());
    }
    return i < run.units().size() ? run.id() + i : Death.UNKNOWN;
  }

  /** {@link #run(List, List, boolean, Duration)} for kernels in this process: each unit in turn, timed here. */
  public static Exchange inTurn(long first, List<Protocol.Unit<?>> units, boolean guarded, Local local) {
    Map<Long, Done> answers = new HashMap<>();
    Death[] death = {null};
    new Protocol.Run(first, List.of(), units, guarded).each(new Protocol.Run.Step() {
      @Override
      public Replies.Answered run(long id, Protocol.Unit<?> unit) {
        long t0 = System.nanoTime();
        Ran ran = local.run(unit);
        if (ran instanceof Ran.Gave g) {
          return new Replies.Answered(id, g.answer(), (System.nanoTime() - t0) / 1_000);
        }
        death[0] = ((Ran.Killed) ran).death().in(id); // the other case of the two
        return null;
      }

      @Override
      public void answered(Replies.Answered done, long next) {
        answers.put(done.id(), new Done(done.answer(), done.micros()));
      }
    });
    return new Exchange(first, answers, Optional.ofNullable(death[0]));
  }
}
