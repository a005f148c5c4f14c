package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.RunListener;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Releases each job's events to the listener in plan order, whatever order the jobs run in: the
 * events of the first unfinished job pass at once, those of later jobs wait until it finishes. A job
 * is named by its position in the plan; a shard's jobs leave gaps between positions.
 */
final class OrderedRelease {
  private final int[] positions;
  private final List<List<Consumer<RunListener>>> buffers = new ArrayList<>();
  private final boolean[] done;
  private final RunListener listener;
  private final List<CheckResult> released = new ArrayList<>();
  private int next;

  /** Releases to {@code listener} the events of the jobs at {@code positions}, in ascending order. */
  OrderedRelease(List<Integer> positions, RunListener listener) {
    this.positions = positions.stream().mapToInt(Integer::intValue).toArray();
    for (int i = 1; i < this.positions.length; i++) {
      if (this.positions[i] <= this.positions[i - 1]) {
        throw new IllegalArgumentException("positions not ascending: " + positions);
      }
    }
    for (int i = 0; i < this.positions.length; i++) {
      buffers.add(new ArrayList<>());
    }
    this.done = new boolean[this.positions.length];
    this.listener = listener;
  }

  private int index(int position) {
    int i = Arrays.binarySearch(positions, position);
    if (i < 0) {
      throw new IllegalArgumentException("no job at position " + position);
    }
    return i;
  }

  /** The listener of the events of the job at {@code position}. */
  RunListener job(int position) {
    int job = index(position);
    return new RunListener() {
      @Override
      public void opStarted(OpEvent op) {
        event(job, l -> l.opStarted(op));
      }

      @Override
      public void unitStarted(UnitEvent unit) {
        event(job, l -> l.unitStarted(unit));
      }

      @Override
      public void result(CheckResult result) {
        event(job, l -> {
          released.add(result);
          l.result(result);
        });
      }

      @Override
      public void opFinished(OpEvent op) {
        event(job, l -> l.opFinished(op));
      }
    };
  }

  private synchronized void event(int job, Consumer<RunListener> event) {
    if (job == next) {
      event.accept(listener);
    } else {
      buffers.get(job).add(event);
    }
  }

  /** The job at {@code position} has no more events: its successors' pass, up to the next unfinished one. */
  synchronized void finish(int position) {
    done[index(position)] = true;
    while (next < done.length && done[next]) {
      next++;
      if (next < done.length) {
        release(next);
      }
    }
  }

  /** Releases the events of every job, finished or not, in plan order (the run was interrupted). */
  synchronized void releaseAll() {
    for (; next < done.length; next++) {
      release(next);
    }
  }

  private void release(int job) {
    buffers.get(job).forEach(e -> e.accept(listener));
    buffers.get(job).clear();
  }

  /** The results released so far, in the order the listener got them. */
  synchronized List<CheckResult> results() {
    return List.copyOf(released);
  }
}
