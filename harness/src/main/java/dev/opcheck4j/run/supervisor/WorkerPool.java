package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A run's workers, one {@link WorkerSlot} per job thread, numbered {@code worker-1}, {@code worker-2},
 * ... in the order they start (a replacement takes the next number). The first slot exists from the
 * start: it loads the libraries and compiles the references before the run is planned.
 */
public final class WorkerPool implements AutoCloseable {
  private final RunRequest request;
  private final Path dir;
  private final Protocol.Init init;
  private final Interruption stop;
  private final CrashMeaning meaning;
  private final AtomicInteger numbers = new AtomicInteger();
  private final List<WorkerSlot> slots = new ArrayList<>();

  public WorkerPool(RunRequest request, Path dir, Protocol.Init init, Interruption stop, CrashMeaning meaning) {
    this.request = request;
    this.meaning = meaning;
    this.dir = dir;
    this.init = init;
    this.stop = stop;
    slots.add(slot());
  }

  private WorkerSlot slot() {
    return new WorkerSlot(request, dir, init, numbers, stop, meaning);
  }

  /** The slot whose worker loads the libraries: the preflight's, and the first job thread's. */
  public WorkerSlot first() {
    return slots.get(0);
  }

  /**
   * Starts the first worker and returns what it loaded; with two workers or more, the second one's JVM
   * and libraries start now too, beside the first's, rather than once the first is ready and the run
   * planned: on two cores its start-up (a second of CPU) overlaps the first's instead of following it.
   */
  public WorkerInfo start() throws LibraryLoadException, SpecException {
    if (init.workers() >= 2) {
      first().reserve(numbers.incrementAndGet()); // worker-1 is still the first one's
      WorkerSlot second = slot();
      slots.add(second);
      second.startEarly();
    }
    return first().start();
  }

  /**
   * One slot per job thread for a plan of {@code jobs} jobs: as many as the run has workers, but no
   * more than it has jobs (a worker started early for a smaller plan is stopped), and at least one.
   */
  public List<WorkerSlot> fit(int jobs) {
    for (int i = slots.size(); i < Math.min(init.workers(), jobs); i++) {
      slots.add(slot());
    }
    while (slots.size() > Math.max(1, Math.min(init.workers(), jobs))) {
      slots.remove(slots.size() - 1).close();
    }
    return List.copyOf(slots);
  }

  /** How many workers were given a number so far: {@code worker-1} to {@code worker-N} have files in the dir. */
  public int numbered() {
    return numbers.get();
  }

  @Override
  public void close() {
    slots.forEach(WorkerSlot::close);
  }
}
