package dev.opcheck4j.run.worker;

import dev.opcheck4j.run.link.Answers;
import dev.opcheck4j.torch.Instrumentation;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import jdk.incubator.foreign.CLinker;
import jdk.incubator.foreign.FunctionDescriptor;
import jdk.incubator.foreign.MemoryAccess;
import jdk.incubator.foreign.MemoryAddress;
import jdk.incubator.foreign.MemorySegment;
import jdk.incubator.foreign.ResourceScope;

/**
 * Writes the gcov counts of the worker's libraries built with {@code --coverage}, which their own exit handler
 * would write at a normal exit, but a worker ends by SIGKILL. gcov's public {@code __gcov_dump} is not in such a
 * library (each holds a hidden copy of the parts of libgcov it calls), but its {@code __gcov_dump_one(struct
 * gcov_root *)} and {@code __gcov_root} are, in its full symbol table: the worker calls the former, found by its
 * address, on a copy of the latter's list whose "dumped" bit is clear, so the counts can be written again and
 * again, each time from the worker's start (the parent subtracts one dump from the next). libgcov reads
 * {@code GCOV_PREFIX} as it writes: each dump goes where the parent asks.
 */
final class GcovDumps {
  /** gcov's per-library state: its list of objects, the dumped and run-counted bits, the next and previous roots. */
  private static final long ROOT_BYTES = 32;

  private final List<Long> dumpOne;
  private final List<Long> roots;
  private final String problem;

  private GcovDumps(List<Long> dumpOne, List<Long> roots, String problem) {
    this.dumpOne = dumpOne;
    this.roots = roots;
    this.problem = problem;
  }

  /** The dumps of {@code libraries} that were built with coverage, as this process loaded them. */
  static GcovDumps of(List<Path> libraries) {
    List<Long> dumpOne = new ArrayList<>();
    List<Long> roots = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (Path library : libraries) {
      Instrumentation i = Instrumentation.of(library);
      if (!i.gcov()) {
        continue;
      }
      Optional<Instrumentation.GcovEntry> entry = i.gcovEntry();
      Optional<Long> base = loadedAt(library);
      if (entry.isEmpty() || base.isEmpty()) {
        problems.add(library.getFileName() + (entry.isEmpty() ? ": its symbol table has no __gcov_dump_one or"
            + " __gcov_root (stripped?)" : ": not found among this process's mappings"));
        continue;
      }
      dumpOne.add(base.get() + entry.get().dumpOne());
      roots.add(base.get() + entry.get().root());
    }
    return new GcovDumps(dumpOne, roots, problems.isEmpty() ? null : String.join("; ", problems));
  }

  /**
   * Where the dynamic loader put {@code library}'s first segment (file offset 0, its ELF header) in this process:
   * a private mapping, as the loader makes them (the file mapped to be read, as {@link Instrumentation} reads
   * it, is a shared one at another address).
   */
  static Optional<Long> loadedAt(Path library) {
    try {
      Path real = library.toRealPath();
      for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
        String[] f = line.trim().split("\\s+", 6);
        if (f.length == 6 && f[1].endsWith("p") && Long.parseLong(f[2], 16) == 0 && Path.of(f[5]).equals(real)) {
          return Optional.of(Long.parseUnsignedLong(f[0].substring(0, f[0].indexOf('-')), 16));
        }
      }
    } catch (IOException | RuntimeException e) {
      // not found: the dump says so
    }
    return Optional.empty();
  }

  /** Writes each library's counts under {@code dir}. */
  Answers.CoverageDumped dump(Path dir) {
    long pid = ProcessHandle.current().pid();
    if (dumpOne.isEmpty()) {
      return new Answers.CoverageDumped(pid, problem != null ? problem : "no library of this worker was built with coverage");
    }
    try (ResourceScope scope = ResourceScope.newConfinedScope()) {
      Files.createDirectories(dir);
      CLinker c = CLinker.getInstance();
      MethodHandle setenv = c.downcallHandle(CLinker.systemLookup().lookup("setenv").orElseThrow(),
          MethodType.methodType(int.class, MemoryAddress.class, MemoryAddress.class, int.class),
          FunctionDescriptor.of(CLinker.C_INT, CLinker.C_POINTER, CLinker.C_POINTER, CLinker.C_INT));
      int set = (int) setenv.invokeExact(CLinker.toCString("GCOV_PREFIX", scope).address(),
          CLinker.toCString(dir.toAbsolutePath().toString(), scope).address(), 1);
      int strip = (int) setenv.invokeExact(CLinker.toCString("GCOV_PREFIX_STRIP", scope).address(),
          CLinker.toCString("0", scope).address(), 1);
      if (set != 0 || strip != 0) {
        return new Answers.CoverageDumped(pid, "setenv(GCOV_PREFIX) failed");
      }
      for (int i = 0; i < dumpOne.size(); i++) {
        MemorySegment root = MemoryAddress.ofLong(roots.get(i)).asSegment(8, ResourceScope.globalScope());
        MemorySegment copy = MemorySegment.allocateNative(ROOT_BYTES, 8, scope);
        copy.fill((byte) 0);
        MemoryAccess.setLongAtOffset(copy, 0, MemoryAccess.getLongAtOffset(root, 0));
        MethodHandle call = c.downcallHandle(MemoryAddress.ofLong(dumpOne.get(i)),
            MethodType.methodType(void.class, MemoryAddress.class), FunctionDescriptor.ofVoid(CLinker.C_POINTER));
        call.invokeExact(copy.address());
      }
      return new Answers.CoverageDumped(pid, problem);
    } catch (Throwable e) {
      return new Answers.CoverageDumped(pid, "the counts could not be written: " + e);
    }
  }
}
