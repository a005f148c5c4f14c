package dev.opcheck4j.run.session;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Crashes that were not the unit in flight's. A crash on a native thread (one native code started, not the
 * thread the unit runs on) may come from a thread an earlier call left running, of this op or another: charged
 * to the unit in flight, it would fail an op that did nothing wrong. So such an exchange is sent again on a new
 * worker, outside the op's death budget: when it dies again the death is the unit's, as before; when every unit
 * of it answers, those answers stand and the death is a stray, which the run reports about the library.
 */
public final class StrayDeaths {
  /**
   * A death that sending its exchange again did not repeat.
   *
   * @param op the op whose unit was in flight
   * @param doing what was running, as the worker told it
   */
  public record Stray(Death death, String op, String doing) {}

  private final List<Stray> found = new ArrayList<>();

  /**
   * {@code x}, or, when it died of a crash on a native thread and {@code again} (the same exchange on a new
   * worker) does not die, {@code again}'s answers as {@code x}'s units' with no death: the death is then kept
   * as a stray.
   */
  Kernels.Exchange confirm(Kernels.Exchange x, String op, Supplier<Kernels.Exchange> again) {
    Death d = x.death().orElse(null);
    if (d == null || !d.offThread() || !(d.cause() instanceof Cause.Crash)) {
      return x;
    }
    Kernels.Exchange y = again.get();
    if (y.death().isPresent()) {
      return x;
    }
    Map<Long, Kernels.Done> answers = new HashMap<>();
    y.answers().forEach((id, done) -> answers.put(x.first() + (id - y.first()), done));
    found.add(new Stray(d, op, d.step().orElse("a unit of " + op)));
    return new Kernels.Exchange(x.first(), answers, Optional.empty());
  }

  /** The strays found so far, in order; each is handed out once. */
  public List<Stray> take() {
    List<Stray> out = List.copyOf(found);
    found.clear();
    return out;
  }
}
