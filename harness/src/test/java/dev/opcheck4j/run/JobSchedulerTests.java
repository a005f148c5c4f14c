package dev.opcheck4j.run;

import dev.opcheck4j.run.plan.Shard;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.SeverityPolicy;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunPlan;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.shard.OpTimings;
import dev.opcheck4j.spec.OpSpec;
import java.nio.file.Path;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A plan's jobs: a library's checks, then its entries, each at its position in the unsharded plan. */
class JobSchedulerTests {
  private static final List<OpSpec> ENTRIES = List.of("ns::a", "ns::b", "ns::c", "ns::d", "ns::e").stream()
      .map(OpSpec::bare).toList();
  private static final RunPlan PLAN = new RunPlan(List.of(new RunPlan.Target(
      new LibraryInfo(Path.of("/x/libns.so"), List.of(), List.of("ns"), List.of()), ENTRIES, "--library libns.so", 0,
      SeverityPolicy.DEFAULT)), List.of(), List.of(), 7L, 0);

  private static List<String> jobs(Shard shard, Set<OpSpec> refused) {
    return JobScheduler.jobs(PLAN, shard, refused).stream().map(j -> j.position() + " " + j.name()).toList();
  }

  @Test
  void theLibrarysChecksComeFirstThenEachEntryAtItsPosition() {
    assertEquals(List.of("0 libns.so", "1 ns::a", "2 ns::b", "3 ns::c", "4 ns::d", "5 ns::e"),
        jobs(Shard.ALL, Set.of()));
  }

  @Test
  void aShardKeepsItsEntriesAtTheirUnshardedPositions() {
    assertEquals(List.of("0 libns.so", "1 ns::a", "3 ns::c", "5 ns::e"), jobs(new Shard(1, 2), Set.of()));
    assertEquals(List.of("2 ns::b", "4 ns::d"), jobs(new Shard(2, 2), Set.of()),
        "the library-wide checks are the first shard's");
  }

  @Test
  void byTimingsTheHeavyEntryHasAShardToItselfAndEveryEntryKeepsItsUnshardedPosition() {
    OpTimings t = new OpTimings(Map.of("ns::a", 1L, "ns::b", 1L, "ns::c", 1L, "ns::d", 1L, "ns::e", 10L), Map.of(), "t");
    assertEquals(List.of("0 libns.so", "5 ns::e"), jobs(new Shard(1, 2, t), Set.of()));
    assertEquals(List.of("1 ns::a", "2 ns::b", "3 ns::c", "4 ns::d"), jobs(new Shard(2, 2, t), Set.of()));
  }

  @Test
  void aRefusedEntryGetsNoJobButKeepsItsPlaceInThePlan() {
    Set<OpSpec> refused = Collections.newSetFromMap(new IdentityHashMap<>());
    refused.add(ENTRIES.get(1));
    assertEquals(List.of("0 libns.so", "1 ns::a", "3 ns::c", "4 ns::d", "5 ns::e"),
        jobs(Shard.ALL, refused));
  }
}
