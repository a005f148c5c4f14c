package dev.opcheck4j.torch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Whether an op library was built for the libtorch this process runs, judged from its ELF file
 * before it is loaded. A library built against other headers (a classic {@code TORCH_LIBRARY} one
 * compiled with another release's headers, or a stable-ABI one for a newer stable ABI) asks for
 * symbols this libtorch does not export; loaded, the first call of one from its static initializer
 * makes the dynamic loader end the process with status 127. Checked here, it is one line naming the
 * symbol instead.
 *
 * <p>Only libtorch's own symbols are judged (C++ names in {@code c10}, {@code at}, {@code torch},
 * {@code caffe2}; the stable ABI's C functions {@code aoti_torch_*} and {@code torch_*}): the
 * library's other dependencies may not be loaded yet, and the loader names what they lack itself.
 */
public final class LibtorchLinkage {
  /** libtorch's libraries, under any soname: libtorch.so, libtorch_cpu.so.2.14, libc10_cuda.so, ... */
  private static final Pattern LIBTORCH_FILE = Pattern.compile("lib(torch|c10)(_[a-z0-9_]+)?\\.so(\\.[0-9.]+)?");
  private static final Set<String> TORCH_NAMESPACES = Set.of("c10", "at", "torch", "caffe2");

  private final String version;
  private final List<SharedObject> runtime;
  private final Set<String> sonames;

  private LibtorchLinkage(String version, List<SharedObject> runtime) {
    this.version = version;
    this.runtime = runtime;
    Set<String> names = new TreeSet<>();
    for (SharedObject so : runtime) {
      names.add(so.soname() != null ? so.soname() : so.path().getFileName().toString());
    }
    this.sonames = names;
  }

  /** libtorch {@code version}, whose libraries are the files of {@code dir} named like libtorch's. */
  static LibtorchLinkage of(String version, Path dir) throws IOException {
    List<SharedObject> runtime = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.sorted().toList()) {
        if (LIBTORCH_FILE.matcher(f.getFileName().toString()).matches() && Files.isRegularFile(f)) {
          SharedObject.read(f).ifPresent(runtime::add);
        }
      }
    }
    return new LibtorchLinkage(version, runtime);
  }

  /**
   * What makes {@code library} unfit for this libtorch, one line starting with its path, or empty.
   *
   * @param demangle turns a C++ symbol name into the declaration it names
   */
  Optional<String> problem(Path library, UnaryOperator<String> demangle) throws IOException {
    Optional<SharedObject> read = SharedObject.read(library);
    if (read.isEmpty() || runtime.isEmpty()) {
      return Optional.empty(); // not an ELF file the loader would take: System.load says why
    }
    SharedObject so = read.get();
    for (String needed : so.needed()) {
      if (LIBTORCH_FILE.matcher(needed).matches() && !sonames.contains(needed)) {
        return Optional.of(library + " needs " + needed + ", which is not this harness's libtorch (" + String.join(", ", sonames)
            + "): " + mismatch());
      }
    }
    List<String> missing = new ArrayList<>();
    for (SharedObject.Undefined u : so.undefined()) {
      if (!isLibtorchSymbol(u.name())) {
        continue;
      }
      if (u.version() != null && u.versionFile() != null && LIBTORCH_FILE.matcher(u.versionFile()).matches()) {
        // the runtime's libtorch tags no symbol with a version: a tag names another build of it
        return Optional.of(library + ": undefined symbol " + demangle.apply(u.name()) + "@" + u.version() + " of "
            + u.versionFile() + ": " + mismatch());
      }
      if (runtime.stream().noneMatch(r -> r.defines(u.name()))) {
        missing.add(u.name());
      }
    }
    if (missing.isEmpty()) {
      return Optional.empty();
    }
    String first = missing.get(0);
    String more = missing.size() > 1 ? " (and " + (missing.size() - 1) + " more of libtorch's)" : "";
    if (!first.startsWith("_Z")) {
      Optional<String> needs = StableShims.needs(missing);
      if (needs.isPresent()) {
        return Optional.of(library + " " + needs.get() + ", which libtorch " + version + "'s stable ABI does not have"
            + " (built with TORCH_TARGET_VERSION above " + majorMinor() + "); to run on " + version + ", rebuild with"
            + " -DTORCH_TARGET_VERSION=" + targetVersion() + " without those calls (see docs/runtimes.md)");
      }
      return Optional.of(library + " calls " + first + more + ", which libtorch " + version
          + "'s stable ABI does not have: built for a newer stable ABI (TORCH_TARGET_VERSION above " + majorMinor()
          + ", or none with newer headers); rebuild with -DTORCH_TARGET_VERSION=" + targetVersion()
          + " (see docs/op-library.md)");
    }
    List<String> shown = new ArrayList<>();
    for (String m : missing.subList(0, Math.min(3, missing.size()))) {
      shown.add(demangle.apply(m));
    }
    String names = missing.size() == 1 ? "undefined symbol " + shown.get(0)
        : "undefined symbols " + String.join("; ", shown) + (missing.size() > 3 ? " (and " + (missing.size() - 3) + " more of libtorch's)" : "");
    return Optional.of(library + ": " + names + ": " + mismatch() + likelyHeaders(shown));
  }

  /**
   * Symbols that name the release whose headers a library was built with, as measured on these machines:
   * a classic {@code torch::autograd::Function} built with libtorch 2.14's headers (Debian's libtorch-dev)
   * asks 2.13 for these two, and every other classic construct of the tutorials loads.
   */
  private static final List<String[]> NEWER_HEADERS = List.of(
      new String[] {"torch::autograd::fire_node_creation_hooks(", "2.14"},
      new String[] {"torch::autograd::_wrap_outputs(", "2.14"});

  private String likelyHeaders(List<String> demangled) {
    for (String[] known : NEWER_HEADERS) {
      if (demangled.stream().anyMatch(d -> d.startsWith(known[0])) && !version.startsWith(known[1] + ".")) {
        return " (probably built with libtorch " + known[1] + "'s headers: a torch::autograd::Function built with them asks for "
            + known[0].substring(0, known[0].length() - 1) + ", which " + version + " does not export)";
      }
    }
    return "";
  }

  /** What a library built against other headers means, and what to do. */
  String mismatch() {
    return mismatch(version);
  }

  /** What a library built against other headers than libtorch {@code version}'s means, and what to do. */
  public static String mismatch(String version) {
    return "built against another libtorch than the " + version + " this harness runs; rebuild against " + version
        + "'s headers (see docs/op-library.md), or port to the stable ABI";
  }

  private String majorMinor() {
    String[] parts = version.split("\\.");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : version;
  }

  /** {@code TORCH_TARGET_VERSION} for this libtorch's major and minor version, e.g. {@code 0x020a000000000000}. */
  private String targetVersion() {
    String[] parts = version.split("\\.");
    try {
      return String.format("0x%02x%02x000000000000", Integer.parseInt(parts[0]), Integer.parseInt(parts[1]));
    } catch (RuntimeException e) {
      return "<major.minor of " + version + ">";
    }
  }

  /**
   * Whether {@code symbol} is libtorch's: a C function of the stable ABI, or a C++ name (function,
   * variable, vtable, typeinfo) whose outermost namespace is one of libtorch's.
   */
  public static boolean isLibtorchSymbol(String symbol) {
    if (symbol.startsWith("aoti_torch_") || symbol.startsWith("torch_")) {
      return true;
    }
    if (!symbol.startsWith("_Z")) {
      return false;
    }
    int i = 2;
    if (symbol.startsWith("T", i) && i + 1 < symbol.length() && "VIST".indexOf(symbol.charAt(i + 1)) >= 0) {
      i += 2; // vtable, typeinfo, typeinfo name, VTT
    } else if (symbol.startsWith("GV", i)) {
      i += 2; // guard variable
    }
    if (i < symbol.length() && symbol.charAt(i) == 'N') {
      i++;
      while (i < symbol.length() && "rVKRO".indexOf(symbol.charAt(i)) >= 0) {
        i++; // cv- and ref-qualifiers of a member function
      }
    }
    int digits = i;
    while (i < symbol.length() && Character.isDigit(symbol.charAt(i))) {
      i++;
    }
    if (i == digits) {
      return false;
    }
    int length = Integer.parseInt(symbol.substring(digits, Math.min(i, digits + 6)));
    return i + length <= symbol.length() && TORCH_NAMESPACES.contains(symbol.substring(i, i + length));
  }
}
