package dev.opcheck4j.torch;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an op library was built with that a worker must be started for: the sanitizers whose runtime it
 * needs ({@code DT_NEEDED} libasan, libubsan, libtsan: {@code -fsanitize=address}, {@code undefined},
 * {@code thread}) and whether it records gcov's line coverage ({@code --coverage}: its exported
 * {@code __gcov_*} data) or calls {@code -fsanitize-coverage}'s callbacks ({@code __sanitizer_cov_*}), read
 * from its ELF file in plain Java, without loading it.
 *
 * @param library the library's file
 * @param sanitizers each sanitizer it was built with, with the soname of the runtime it needs
 *     ({@code libasan.so.8})
 * @param gcov whether it records gcov's coverage
 * @param sanitizerCoverage whether it calls {@code -fsanitize-coverage}'s callbacks (which the harness does not read)
 */
public record Instrumentation(Path library, Map<Sanitizer, String> sanitizers, boolean gcov,
    boolean sanitizerCoverage) {
  public Instrumentation {
    sanitizers = sanitizers.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(sanitizers));
  }

  /** A sanitizer a library can be built with, and what its runtime is called. */
  public enum Sanitizer {
    /** {@code -fsanitize=address}: stops at its first report. */
    ADDRESS("AddressSanitizer", "libasan.so"),
    /** {@code -fsanitize=undefined}: goes on after a report. */
    UNDEFINED("UndefinedBehaviorSanitizer", "libubsan.so"),
    /** {@code -fsanitize=thread}: goes on after a report. */
    THREAD("ThreadSanitizer", "libtsan.so");

    private final String tool;
    private final String runtime;

    Sanitizer(String tool, String runtime) {
      this.tool = tool;
      this.runtime = runtime;
    }

    /** Its name, as its reports spell it: {@code AddressSanitizer}. */
    public String tool() {
      return tool;
    }

    /** Whether its runtime ends the process after a report (the others report and go on). */
    public boolean halts() {
      return this == ADDRESS;
    }

    /** The sanitizer whose reports are spelled {@code tool}, if any. */
    public static Optional<Sanitizer> byTool(String tool) {
      for (Sanitizer s : values()) {
        if (s.tool.equals(tool)) {
          return Optional.of(s);
        }
      }
      return Optional.empty();
    }
  }

  /** What {@code library} was built with; nothing when it is no ELF shared library this can read. */
  public static Instrumentation of(Path library) {
    Map<Sanitizer, String> found = new EnumMap<>(Sanitizer.class);
    boolean gcov = false;
    boolean sancov = false;
    try {
      Optional<SharedObject> so = SharedObject.read(library);
      if (so.isPresent()) {
        for (String needed : so.get().needed()) {
          for (Sanitizer s : Sanitizer.values()) {
            if (needed.startsWith(s.runtime)) {
              found.put(s, needed);
            }
          }
        }
        gcov = so.get().mentions("__gcov_");
        sancov = so.get().mentions("__sanitizer_cov_");
      }
    } catch (IOException e) {
      // unreadable here: loading it says why, as for any library
    }
    return new Instrumentation(library, found, gcov, sancov);
  }

  /** What each of {@code libraries} was built with. */
  public static List<Instrumentation> of(List<Path> libraries) {
    List<Instrumentation> out = new ArrayList<>();
    for (Path p : libraries) {
      out.add(of(p));
    }
    return out;
  }

  /** Whether it was built with any sanitizer or coverage. */
  public boolean any() {
    return gcov || sanitizerCoverage || !sanitizers.isEmpty();
  }

  /**
   * Where gcov's own functions and data lie in the library's full symbol table (relative to its load
   * address), for a worker that writes the counts of a library whose process it cannot end normally:
   * {@code __gcov_dump_one} and {@code __gcov_root}, which every library built with {@code --coverage}
   * holds as local symbols; empty when the library was stripped of them.
   */
  public Optional<GcovEntry> gcovEntry() {
    if (!gcov) {
      return Optional.empty();
    }
    try {
      Map<String, Long> at = SharedObject.symtab(library, java.util.Set.of(GcovEntry.DUMP_ONE, GcovEntry.ROOT));
      return at.size() == 2 ? Optional.of(new GcovEntry(at.get(GcovEntry.DUMP_ONE), at.get(GcovEntry.ROOT)))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /**
   * gcov's arc counters ({@code __gcov0.FUNCTION}, one 64-bit count per arc of the function), relative to the
   * library's load address, in the order of their names: where a try's reach can be read in memory (issue 54);
   * empty when the library records no gcov coverage or was stripped of its local symbols.
   */
  public List<GcovCounters> gcovCounters() {
    if (!gcov) {
      return List.of();
    }
    try {
      return SharedObject.symbols(library, n -> n.startsWith("__gcov0."), Integer.MAX_VALUE).values().stream()
          .filter(at -> at[1] >= 8).map(at -> new GcovCounters(at[0], at[1] / 8)).toList();
    } catch (java.io.IOException e) {
      return List.of();
    }
  }

  /** One function's arc counters: where they are (relative to the load address) and how many. */
  public record GcovCounters(long at, long count) {}

  /**
   * gcov's dump function and its per-library state, relative to the library's load address.
   *
   * @param dumpOne {@code void __gcov_dump_one(struct gcov_root *)}: writes the counts of the objects on the
   *     root's list, once per root ({@code root->dumped})
   * @param root {@code struct gcov_root __gcov_root}: its first field is the list of the library's objects
   */
  public record GcovEntry(long dumpOne, long root) {
    static final String DUMP_ONE = "__gcov_dump_one";
    static final String ROOT = "__gcov_root";
  }
}
