package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.plan.Versions;
import dev.opcheck4j.run.plan.Isolation;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.worker.LocalKernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One job thread's kernels: a worker, started on first use and replaced after it dies. Also the
 * in-process kernels when measuring.
 *
 * <p>A worker's start (a JVM, libtorch, the libraries) takes a second or more: the replacement of a
 * dead worker starts at once, while the parent looks at the death. A spare kept started beside the
 * worker in use was measured too and dropped: on two busy cores its start took the CPU it would have
 * saved, and the deaths of a crash's shrinking follow each other faster than a start (docs/performance.md).
 */
public final class WorkerSlot implements Kernels {
  private final RunRequest request;
  private final Path dir;
  private final Protocol.Init init;
  private final AtomicInteger numbers;
  private final Interruption stop;
  private final CrashMeaning meaning;
  private Kernels current;
  /** The number {@link #start} gives its worker, taken before another slot's was; 0 for the next one. */
  private int reserved;
  /** This slot's worker being started ahead of its first job ({@link #startEarly}), or null. */
  private java.util.concurrent.FutureTask<WorkerProcess.Started> early;

  WorkerSlot(RunRequest request, Path dir, Protocol.Init init, AtomicInteger numbers, Interruption stop,
      CrashMeaning meaning) {
    this.request = request;
    this.meaning = meaning;
    this.dir = dir;
    this.init = init;
    this.numbers = numbers;
    this.stop = stop;
  }

  /** Gives the worker {@link #start} starts {@code number}, taken before a later slot's worker took its own. */
  void reserve(int number) {
    reserved = number;
  }

  /** The deadline of one unit of work in this run. */
  public Duration timeout() {
    return request.timeout();
  }

  /** A worker started after the run was interrupted is killed at once: none outlives the run. */
  private WorkerProcess.Started started(WorkerProcess.Started s) {
    if (stop.requested()) {
      s.worker().kill();
      throw new Interruption.Stopped();
    }
    return s;
  }

  /** Starts the first worker and returns what it loaded. */
  public WorkerInfo start() throws LibraryLoadException, SpecException {
    if (request.isolation() == Isolation.IN_PROCESS) {
      LocalKernels local = LocalKernels.load(init);
      current = local;
      return local.info();
    }
    String[] loading = {null};
    if (stop.requested()) {
      throw new Interruption.Stopped();
    }
    int number = reserved > 0 ? reserved : numbers.incrementAndGet();
    reserved = 0;
    try {
      WorkerProcess.Started s = WorkerProcess.start(dir, number, init, startDeadline(), lib -> loading[0] = lib, meaning);
      if (s.died() != null) {
        throw loadDeath(s.died(), loading[0], number);
      }
      current = started(s).worker();
      return s.info();
    } catch (IllegalStateException e) {
      if (stop.requested()) {
        throw new Interruption.Stopped(); // the stop killed the worker JVM before it connected
      }
      throw e;
    } catch (WorkerProcess.LoadError e) {
      throw new LibraryLoadException(Path.of(loading[0] == null ? "-" : loading[0]), e.getMessage());
    }
  }

  /** The worker died loading {@code loading} (null: libtorch): one line naming it, or the run was stopped. */
  private LibraryLoadException loadDeath(Death d, String loading, int number) {
    if (stop.requested()) {
      // killed from outside (a signal to the run), not by the library
      throw new Interruption.Stopped();
    }
    if (loading == null) {
      throw new IllegalStateException("the worker JVM died while loading libtorch: " + d.message());
    }
    return loadCrash(Path.of(loading), d, dir.resolve("worker-" + number + ".log"));
  }

  /**
   * A library that killed the worker loading it, one line. The dynamic loader ends the process with
   * status 127 when a static initializer calls a symbol no loaded library defines ("symbol lookup
   * error"): then the line names the symbol, not the exit. The worker's log is kept and named.
   */
  private static LibraryLoadException loadCrash(Path lib, Death d, Path log) {
    String said;
    try {
      said = Files.readString(log, java.nio.charset.StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      said = "";
    }
    java.util.regex.Matcher m = SYMBOL_LOOKUP_ERROR.matcher(said);
    if (m.find()) {
      String symbol = m.group(1);
      return new LibraryLoadException(lib, lib + ": undefined symbol " + symbol
          + " (the dynamic loader ended the worker, status 127, when the library's static initializer called it)"
          + (dev.opcheck4j.torch.LibtorchLinkage.isLibtorchSymbol(symbol)
              ? ": " + dev.opcheck4j.torch.LibtorchLinkage.mismatch(Versions.current().torch()) : "")
          + "; worker log: " + log, log);
    }
    return new LibraryLoadException(lib, lib + " crashed the process while loading (in a static initializer): "
        + d.message() + "; worker log: " + log, log);
  }

  /** glibc's lazy-binding failure: "java: symbol lookup error: /x/libop.so: undefined symbol: _ZN..." */
  private static final java.util.regex.Pattern SYMBOL_LOOKUP_ERROR =
      java.util.regex.Pattern.compile("symbol lookup error: .*?undefined symbol: (\\S+)");

  /**
   * Starts this slot's worker on a thread of its own; its first {@link #run} takes it, and a start
   * that failed fails there as a start at that moment would have.
   */
  void startEarly() {
    int number = numbers.incrementAndGet();
    early = new java.util.concurrent.FutureTask<>(() -> WorkerProcess.start(dir, number, init, startDeadline(), lib -> {}, meaning));
    Thread t = new Thread(early, "opcheck4j-worker-start-" + number);
    t.setDaemon(true);
    t.start();
  }

  /** The worker started early, waited for. */
  private WorkerProcess.Started earlyWorker() throws WorkerProcess.LoadError {
    java.util.concurrent.FutureTask<WorkerProcess.Started> task = early;
    early = null;
    try {
      return task.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Interruption.Stopped();
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof WorkerProcess.LoadError l) {
        throw l;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Loading libtorch and the libraries is one unit of work: it gets --timeout like any other. */
  private Duration startDeadline() {
    return request.timeout();
  }

  @Override
  public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
    if (stop.requested()) {
      throw new Interruption.Stopped();
    }
    if (current == null) {
      WorkerProcess.Started s;
      try {
        s = early != null ? earlyWorker() : WorkerProcess.start(dir, numbers.incrementAndGet(), init, startDeadline(),
            lib -> {}, meaning);
      } catch (WorkerProcess.LoadError e) {
        throw new IllegalStateException("a replacement worker could not load the libraries: " + e.getMessage(), e);
      }
      if (s.died() != null) {
        if (stop.requested()) {
          throw new Interruption.Stopped();
        }
        // no unit of this exchange ran: the death belongs to its first
        return new Exchange(0, java.util.Map.of(), java.util.Optional.of(s.died().in(0)));
      }
      current = started(s).worker();
    }
    Exchange done = current.run(opens, units, guarded, deadline);
    // a sanitizer that goes on after its report (UBSan, TSan) leaves its worker alive: it is kept
    if (done.death().isPresent() && !(current instanceof WorkerProcess w && ProcessHandle.of(w.pid())
        .map(ProcessHandle::isAlive).orElse(false))) {
      current = null;
      if (stop.requested()) {
        // the signal killed the worker: what the unit would have given is unknown, not a crash
        throw new Interruption.Stopped();
      }
      if (request.isolation() != Isolation.IN_PROCESS && early == null) {
        startEarly(); // the replacement, for the next exchange
      }
    }
    return done;
  }

  @Override
  public void renew() {
    if (current instanceof WorkerProcess w && w.ran()) {
      w.close();
      current = null; // the next exchange starts a worker
    }
  }

  @Override
  public void close() {
    if (early != null) {
      try {
        current = earlyWorker().worker(); // a run that ended before this slot's first job: it stops below
      } catch (WorkerProcess.LoadError | RuntimeException e) {
        // it never became a worker; the first one's start said why, if it matters
      }
    }
    if (current != null) {
      current.close();
      current = null;
    }
  }
}
