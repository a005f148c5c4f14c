package dev.opcheck4j.run.plan;

/** Where a run's kernels run ({@link RunRequest#isolation()}). */
public enum Isolation {
  /** In supervised worker JVMs: a crash or hang is a finding. The default. */
  WORKERS,
  /** In the calling JVM (loads libtorch here; a crashing kernel takes the caller down). For benchmarks. */
  IN_PROCESS
}
