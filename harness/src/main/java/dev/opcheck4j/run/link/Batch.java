package dev.opcheck4j.run.link;

import java.util.ArrayList;
import java.util.List;

/**
 * The units of one exchange, in the order they run. Adding a unit returns the {@link Ticket} its
 * answer is looked up by ({@link Kernels.Exchange#done(Ticket)}), so no caller counts positions in
 * the batch.
 */
public final class Batch {
  private final List<Protocol.Unit<?>> units = new ArrayList<>();

  /** Adds {@code unit} after the ones added so far. */
  public <A extends Answers.Answer> Ticket<A> add(Protocol.Unit<A> unit) {
    units.add(unit);
    return new Ticket<>(units.size() - 1);
  }

  public List<Protocol.Unit<?>> units() {
    return List.copyOf(units);
  }

  public boolean isEmpty() {
    return units.isEmpty();
  }

  /**
   * What a unit of a batch answers with: {@code A}, the answer its unit names. Only the exchange knows
   * which id a position got.
   */
  public static final class Ticket<A extends Answers.Answer> {
    private final int position;

    private Ticket(int position) {
      this.position = position;
    }

    int position() {
      return position;
    }
  }
}
