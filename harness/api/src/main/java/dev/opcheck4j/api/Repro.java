package dev.opcheck4j.api;

import java.util.Objects;

/**
 * What it takes to reproduce one result: each front end renders it into its own rerun line
 * ({@link Rerun}), so the run never writes command-line text.
 *
 * @param source how the command line names the inputs: {@code --spec FILE} or {@code --library LIB}; never null
 * @param op the op, {@code ns::name}; never null
 * @param check the check to rerun (for a crash, the one that was running), or null when the death
 *     came before any check
 * @param device the device, or null for checks that run on none
 * @param seed the run's seed
 * @param tries generated inputs per op and device
 * @param exampleRef the example, or null
 * @param exampleDescription the input as text, or null
 * @param oneWorker whether the rerun should run with one worker (a crash or hang is found again only
 *     when nothing else runs beside it)
 * @param script the PyTorch script that reproduces it ({@code check --repro}), as the run wrote its path, or
 *     null when none was written
 * @param runtime the libtorch version to rerun on ({@code --runtime}), in a run on several; null in a run on one
 */
public record Repro(
    String source,
    String op,
    String check,
    String device,
    long seed,
    int tries,
    String exampleRef,
    String exampleDescription,
    boolean oneWorker,
    String script,
    String runtime) {

  public Repro {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(op, "op");
  }

  /** What reproduces a result of a run on one runtime. */
  public Repro(String source, String op, String check, String device, long seed, int tries, String exampleRef,
      String exampleDescription, boolean oneWorker, String script) {
    this(source, op, check, device, seed, tries, exampleRef, exampleDescription, oneWorker, script, null);
  }

  /** What reproduces a result, with no script. */
  public Repro(String source, String op, String check, String device, long seed, int tries, String exampleRef,
      String exampleDescription, boolean oneWorker) {
    this(source, op, check, device, seed, tries, exampleRef, exampleDescription, oneWorker, null);
  }

  /** The same, with the script written for it. */
  public Repro withScript(String path) {
    return new Repro(source, op, check, device, seed, tries, exampleRef, exampleDescription, oneWorker, path, runtime);
  }

  /** The same, rerun on libtorch {@code version} (null: the run's one runtime). */
  public Repro onRuntime(String version) {
    return new Repro(source, op, check, device, seed, tries, exampleRef, exampleDescription, oneWorker, script, version);
  }
}
