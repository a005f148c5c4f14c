package dev.opcheck4j.run.plan;

import dev.opcheck4j.run.shard.CiShard;
import dev.opcheck4j.run.shard.OpTimings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.Optional;

/**
 * The part of the ops a run checks, as every front end settles it: the shard given ({@code --shard},
 * {@code opcheck4j.shard}), else the one the CI engine's variables name ({@link CiShard}), else all;
 * packed by the timings given ({@code --timings}, {@code opcheck4j.timings}), else by index.
 *
 * @param shard the part, with its timings
 * @param notes what the user is told about it, one line each: where the shard came from, and that
 *     it is split by index when no timings were given
 * @param ci the CI engine's shard when it came from there, else null
 */
public record ShardChoice(Shard shard, List<String> notes, CiShard ci) {
  public ShardChoice {
    notes = List.copyOf(notes);
  }

  /**
   * @param given the shard the user gave, if any
   * @param timings the timings file the user gave, if any
   * @param env the process's environment (a test passes its own)
   * @throws IllegalArgumentException with one line when the CI variables or the timings cannot be read
   */
  public static ShardChoice of(Optional<Shard> given, Optional<Path> timings, UnaryOperator<String> env) {
    List<String> notes = new ArrayList<>();
    CiShard ci = null;
    Shard shard;
    if (given.isPresent()) {
      shard = given.get();
    } else {
      ci = CiShard.of(env).orElse(null);
      shard = ci == null ? Shard.ALL : new Shard(ci.index(), ci.count());
      if (ci != null) {
        notes.add("shard " + ci.spec() + " from " + ci.source());
      }
    }
    if (timings.isPresent()) {
      if (shard.count() == 1) {
        notes.add("--timings has no effect on a run of all ops (no --shard, and no CI variable names one)");
      } else {
        shard = shard.by(OpTimings.read(timings.get()));
      }
    } else if (shard.count() > 1) {
      notes.add(shard.pack(List.of(), List.of()).describe());
    }
    return new ShardChoice(shard, notes, ci);
  }

  /** Tells Bazel this run shards, when the shard came from its variables ({@link CiShard#acknowledge}). */
  public void acknowledge() {
    if (ci != null) {
      ci.acknowledge();
    }
  }
}
