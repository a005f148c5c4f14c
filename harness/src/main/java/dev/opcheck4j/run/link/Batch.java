package dev.opcheck4j.run.link;

import java.util.ArrayList;
import java.util.List;

/**
 * The units of one exchange, in the order they run. Adding a unit returns the {@link Ticket} its
 * {@link Fate} is looked up by ({@link Kernels.Exchange#fate}), so no caller counts positions in the
 * batch.
 */
public final class Batch {
  private final List<Protocol.Unit<?>> units = new ArrayList<>();
  private final boolean guarded;

  /** A batch whose units all run, up to a death. */
  public Batch() {
    this(false);
  }

  private Batch(boolean guarded) {
    this.guarded = guarded;
  }

  /**
   * A batch in which each {@link Protocol.Accepts} unit guards the units after it, up to the next one:
   * they do not run when the kernel does not accept its example ({@link Protocol.Run#guarded}).
   */
  public static Batch guarded() {
    return new Batch(true);
  }

  /** Adds {@code unit} after the ones added so far. */
  public <A extends Answers.Answer> Ticket<A> add(Protocol.Unit<A> unit) {
    units.add(unit);
    return new Ticket<>(units.size() - 1, unit);
  }

  public List<Protocol.Unit<?>> units() {
    return List.copyOf(units);
  }

  public boolean isEmpty() {
    return units.isEmpty();
  }

  public boolean isGuarded() {
    return guarded;
  }

  /**
   * A unit of a batch, whose {@link Fate} holds the answer it names ({@code A}). Only the exchange knows
   * which id its position got.
   */
  public static final class Ticket<A extends Answers.Answer> {
    private final int position;
    private final Protocol.Unit<A> unit;

    private Ticket(int position, Protocol.Unit<A> unit) {
      this.position = position;
      this.unit = unit;
    }

    int position() {
      return position;
    }

    /** The unit the ticket was given for. */
    public Protocol.Unit<A> unit() {
      return unit;
    }
  }
}
