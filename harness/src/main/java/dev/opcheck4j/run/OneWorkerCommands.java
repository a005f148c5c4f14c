package dev.opcheck4j.run;

import dev.opcheck4j.run.session.SupervisorChecks;
import dev.opcheck4j.run.link.FoundExample;
import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.session.OpSession;
import dev.opcheck4j.run.supervisor.WorkerPool;
import dev.opcheck4j.run.supervisor.WorkerSlot;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunRequest;
import dev.opcheck4j.run.link.ModelInfo;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.run.link.Protocol;
import dev.opcheck4j.run.link.RunPackage;
import dev.opcheck4j.run.link.WorkerInfo;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.LibraryLoadException;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.torch.ValueBaseline;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The commands other than {@code check}, each done by one worker that loads the libraries (no spec
 * files) and is stopped after: {@code list}, {@code init}, {@code baseline} and {@code model}. Their
 * entry points are {@link Launcher}'s.
 */
final class OneWorkerCommands {
  private OneWorkerCommands() {}

  static LibraryInfo describe(Path library) throws LibraryLoadException, SpecException {
    return inOneWorker(List.of(library), (info, slot) -> info.libraries().get(0));
  }

  static Launcher.Synthesized synthesize(Path library, long seed) throws LibraryLoadException, SpecException {
    return inOneWorker(List.of(library), (info, slot) -> {
      LibraryInfo lib = info.libraries().get(0);
      List<FoundExample> found = new ArrayList<>();
      for (LibraryInfo.Op op : lib.ops()) {
        Kernels.Exchange x = slot.run(null, new Protocol.Synthesize(0, op.name(), seed), slot.timeout());
        found.add(x.death().map(d -> new FoundExample(Optional.empty(),
            "synthesizing an example killed the worker: " + d.message()))
            .orElseGet(() -> x.single(Answers.Synthesized.class).found()));
      }
      return new Launcher.Synthesized(lib, found);
    });
  }

  static SchemaBaseline baseline(Path library) throws LibraryLoadException, SpecException {
    return inOneWorker(List.of(library), (info, slot) -> schemas(info));
  }

  /** The schema baseline of the first library {@code info} holds. */
  private static SchemaBaseline schemas(WorkerInfo info) {
    LibraryInfo lib = info.libraries().get(0);
    List<SchemaBaseline.Entry> entries = lib.ops().stream().map(op -> new SchemaBaseline.Entry(op.name(),
        op.schema().toString(), op.dispatchKeys().stream().sorted().distinct().toList(), op.tags())).toList();
    return new SchemaBaseline(SchemaBaseline.FORMAT, lib.path().getFileName().toString(), info.torchVersion(), entries);
  }

  static Launcher.Recording record(Path spec, Path library, long seed) throws LibraryLoadException, SpecException {
    return record(SpecReader.read(spec, Preflight.checkNames()), library, seed, List.of());
  }

  /** {@code file}'s outputs recorded in a worker on the runtime whose presets jars are {@code runtime} (empty: this JVM's). */
  static Launcher.Recording record(SpecFile file, Path library, long seed, List<Path> runtime)
      throws LibraryLoadException, SpecException {
    Path lib = library != null ? library : file.library();
    return inOneWorker(List.of(lib), runtime, (info, slot) -> {
      LibraryInfo li = info.libraries().get(0);
      List<ValueBaseline.Recorded> recorded = new ArrayList<>();
      for (OpSpec op : file.ops()) {
        if (li.op(op.op()).isEmpty()) {
          continue;
        }
        Protocol.OpenOp open = OpSession.open(0, op);
        for (Example ex : op.examples()) {
          Protocol.On on = new Protocol.On(0, op.op(), Device.CPU, ex, seed, open.ref());
          Kernels.Exchange x = slot.run(open, new Protocol.RecordOutputs(on), slot.timeout());
          recorded.add(x.death().map(d -> new ValueBaseline.Recorded(op.op(), ex.ref(), seed, List.of(),
              "the worker died: " + d.message())).orElseGet(() -> x.single(Answers.OutputsRecorded.class).recorded()));
        }
      }
      return new Launcher.Recording(schemas(info), new ValueBaseline(ValueBaseline.FORMAT, seed, recorded));
    });
  }

  static Launcher.ModelRun model(List<Path> libraries, Path model, List<String> inputs, long seed, Optional<Path> expect)
      throws LibraryLoadException, SpecException {
    return inOneWorker(libraries, (info, slot) -> {
      Kernels.Exchange load = slot.run(null, new Protocol.LoadModel(model.toAbsolutePath()), slot.timeout());
      if (load.death().isPresent()) {
        return new Launcher.ModelRun(info, null, null, load.death().get().message());
      }
      ModelInfo loaded = load.single(Answers.ModelLoaded.class).info();
      if (loaded.failure() != null || inputs.isEmpty()) {
        return new Launcher.ModelRun(info, loaded, null, null);
      }
      Kernels.Exchange x = slot.run(null, new Protocol.Forward(inputs, seed, expect.map(Path::toAbsolutePath)),
          slot.timeout());
      return x.death().map(d -> new Launcher.ModelRun(info, loaded, null, d.message()))
          .orElseGet(() -> new Launcher.ModelRun(info, loaded, x.single(Answers.Forwarded.class).forward(), null));
    });
  }

  static Launcher.PackageRun packageRun(List<Path> libraries, Path file, String model, List<String> inputs, long seed,
      Optional<Path> expect, java.util.function.Predicate<WorkerInfo> load) throws LibraryLoadException, SpecException {
    return inOneWorker(libraries, (info, slot) -> {
      if (!load.test(info)) {
        return new Launcher.PackageRun(info, null, null);
      }
      Kernels.Exchange x = slot.run(null, new RunPackage(file.toAbsolutePath(), model, inputs, seed,
          expect.map(Path::toAbsolutePath)), slot.timeout());
      return x.death().map(d -> new Launcher.PackageRun(info, null, d.message()))
          .orElseGet(() -> new Launcher.PackageRun(info, x.single(Answers.PackageRan.class).run(), null));
    });
  }

  /** What a command does with one worker that has loaded its libraries. */
  private interface WorkerTask<T> {
    T run(WorkerInfo info, WorkerSlot slot);
  }

  /**
   * Starts one worker loading {@code libraries} (no spec files), runs {@code task} with it, and stops it.
   *
   * @throws LibraryLoadException when a library cannot be loaded, or crashes while loading
   */
  private static <T> T inOneWorker(List<Path> libraries, WorkerTask<T> task) throws LibraryLoadException, SpecException {
    return inOneWorker(libraries, List.of(), task);
  }

  private static <T> T inOneWorker(List<Path> libraries, List<Path> runtime, WorkerTask<T> task)
      throws LibraryLoadException, SpecException {
    RunDirectory dir = RunDirectory.of(null);
    RunRequest.Builder request = RunRequest.builder().jobs(1);
    libraries.forEach(request::library);
    Protocol.Init init = new Protocol.Init(libraries.stream().map(Path::toAbsolutePath).toList(), null, 0, runtime);
    try (WorkerPool pool = new WorkerPool(request.build(), dir.path(), init, new Interruption(), SupervisorChecks.BUILTIN)) {
      return task.run(pool.first().start(), pool.first());
    } catch (LibraryLoadException e) {
      throw dir.keeping(e);
    } finally {
      dir.close(false, 0); // a temporary dir: its workers' files go with it
    }
  }
}
