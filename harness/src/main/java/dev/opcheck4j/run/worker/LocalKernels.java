package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import java.time.Duration;
import java.util.List;

/**
 * Units run in the calling JVM, with no supervision: a crash takes the caller down and a hang is
 * not interrupted. Only for measuring what the worker processes cost ({@code ./opcheck bench isolation}).
 */
public final class LocalKernels implements Kernels {
  private final UnitRunner runner;
  private long nextId;

  private LocalKernels(UnitRunner runner) {
    this.runner = runner;
  }

  /** Loads libtorch and the libraries into this JVM. */
  public static LocalKernels load(Protocol.Init init) throws LibraryLoadException, SpecException {
    return new LocalKernels(UnitRunner.load(init, lib -> {}));
  }

  public WorkerInfo info() {
    return runner.info();
  }

  @Override
  public Exchange run(List<Protocol.OpenOp> opens, List<Protocol.Unit<?>> units, boolean guarded, Duration deadline) {
    runner.open(opens);
    long first = nextId;
    nextId += units.size();
    return Kernels.inTurn(first, units, guarded, u -> Ran.gave(runner.run(u)));
  }

  @Override
  public void close() {}
}
