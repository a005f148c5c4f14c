package dev.opcheck4j.run.session;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whose crash it is. The unit in flight when a worker crashed is where the crash showed, not always where it
 * came from: an exchange runs several inputs in turn (a batch of generated tries, a rejected try's follow-ups,
 * an op's example checks), and an earlier call may leave damaged memory that only a later one trips over. So
 * before a crash is reported, the input in flight runs alone on a fresh worker (its units of the exchange,
 * up to the one that died, and nothing before them); when it does not crash there, each other input of the
 * exchange does, the latest first, until one crashes alone. The result names the input that crashed alone,
 * and says what was found ({@link #ALONE}); when none did, it says the crash did not reproduce alone.
 */
public final class CrashWitness {
  /** The key of the fact that says whether the crash reproduced when its input ran alone on a fresh worker. */
  public static final String ALONE = "alone";
  /** Other inputs of an exchange run alone at most: each costs a worker's start. */
  static final int OTHERS_AT_MOST = 20;

  /** What running alone showed. */
  public sealed interface Alone {
    /** How a result says it, or empty when nothing was asked. */
    Optional<String> shown();

    /**
     * An input crashed alone: {@code on} (what its units run on), and its unit that died there.
     *
     * @param inFlight whether it is the input that was in flight when the worker died
     */
    record Crashed(Protocol.On on, Protocol.Unit<?> unit, boolean inFlight, String said) implements Alone {
      @Override
      public Optional<String> shown() {
        return Optional.of(said);
      }

      /** The check whose unit died alone, or null for the kernel call before any check. */
      public String check() {
        return unit instanceof Protocol.CheckUnit c ? c.check() : null;
      }
    }

    /** No input of the exchange crashed alone. */
    record Nowhere(String said) implements Alone {
      @Override
      public Optional<String> shown() {
        return Optional.of(said);
      }
    }

    /** Not asked: not a crash (a hang, a fault in a guard page), or no exchange of this session ended in it. */
    record Unasked() implements Alone {
      @Override
      public Optional<String> shown() {
        return Optional.empty();
      }
    }
  }

  /**
   * An exchange that ended in a crash: its units, the id of its first, whether it was guarded, and the spec
   * entry they name (a session whose entry changed since sends its new one).
   */
  private record Ended(long first, List<Protocol.Unit<?>> units, boolean guarded, Protocol.OpenOp open) {}

  /** Sends units of an ended exchange, naming its entry, on a fresh worker: the exchange they gave. */
  interface Sender {
    Kernels.Exchange alone(Protocol.OpenOp open, List<Protocol.Unit<?>> units, boolean guarded);
  }

  private final Map<Death, Ended> ended = new IdentityHashMap<>();
  private final Map<Death, Alone> asked = new IdentityHashMap<>();

  /** The exchange of {@code units} (the first with id {@code first}, naming {@code open}) ended in {@code d}. */
  void ended(Death d, long first, List<Protocol.Unit<?>> units, boolean guarded, Protocol.OpenOp open) {
    if (d.cause() instanceof Cause.Crash) {
      ended.put(d, new Ended(first, List.copyOf(units), guarded, open));
    }
  }

  /** Where {@code d} reproduces alone, asked once per death; {@code alone} sends units on a fresh worker. */
  Alone of(Death d, Sender alone) {
    Alone known = asked.get(d);
    if (known == null) {
      Ended e = ended.get(d);
      known = e == null ? new Alone.Unasked() : ask(d, e, alone);
      asked.put(d, known);
    }
    return known;
  }

  private static Alone ask(Death d, Ended e, Sender alone) {
    int at = (int) (d.unit() - e.first());
    if (at < 0 || at >= e.units().size()) {
      return new Alone.Unasked();
    }
    Protocol.Unit<?> inFlight = e.units().get(at);
    Protocol.On on = inFlight instanceof Protocol.OpUnit<?> u ? u.on() : null;
    List<Protocol.Unit<?>> own = new ArrayList<>();
    for (int i = 0; i < at; i++) {
      if (on != null && on.equals(onOf(e.units().get(i)))) {
        own.add(e.units().get(i));
      }
    }
    own.add(inFlight);
    Optional<Protocol.Unit<?>> died = crashed(alone.alone(e.open(), own, e.guarded()), own);
    if (died.isPresent()) {
      return new Alone.Crashed(on, died.get(), true, "crashed again when its input ran alone, on a fresh worker");
    }
    // the other inputs that ran before it in the exchange, the latest first
    List<Protocol.On> others = new ArrayList<>();
    for (int i = at - 1; i >= 0; i--) {
      Protocol.On o = onOf(e.units().get(i));
      if (o != null && !o.equals(on) && !others.contains(o)) {
        others.add(o);
      }
    }
    int tried = Math.min(others.size(), OTHERS_AT_MOST);
    for (Protocol.On o : others.subList(0, tried)) {
      List<Protocol.Unit<?>> units = e.units().subList(0, at).stream().filter(u -> o.equals(onOf(u))).toList();
      Optional<Protocol.Unit<?>> other = crashed(alone.alone(e.open(), units, e.guarded()), units);
      if (other.isPresent()) {
        return new Alone.Crashed(o, other.get(), false, "the input in flight did not crash when it ran alone on a"
            + " fresh worker; this one, which ran before it in the same exchange, did");
      }
    }
    return new Alone.Nowhere("did not reproduce alone: neither the input in flight nor the " + tried + " other "
        + (tried == 1 ? "input" : "inputs") + " of its exchange crashed when run alone on a fresh worker"
        + (others.size() > tried ? " (" + (others.size() - tried) + " more not tried)" : "")
        + "; the crash needs what ran before it (memory an earlier call damaged, a thread it left running)");
  }

  /** The unit of {@code sent} that crashed in {@code x}, if one did. */
  private static Optional<Protocol.Unit<?>> crashed(Kernels.Exchange x, List<Protocol.Unit<?>> sent) {
    return x.death().filter(d -> d.cause() instanceof Cause.Crash)
        .map(d -> sent.get((int) Math.max(0, Math.min(sent.size() - 1, d.unit() - x.first()))));
  }

  private static Protocol.On onOf(Protocol.Unit<?> u) {
    return u instanceof Protocol.OpUnit<?> o ? o.on() : null;
  }
}
