package dev.opcheck4j.torch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.pytorch.Dispatcher;
import org.bytedeco.pytorch.OperatorHandle;
import org.bytedeco.pytorch.OperatorName;

/**
 * A shared library of custom operators, loaded into this process after libtorch.
 *
 * <p>What it registered is found by comparing the dispatcher's operator names before and after the
 * load. A library loads once per process; loading the same file again returns the same object.
 */
public final class OpLibrary {
  private static final Map<Path, OpLibrary> LOADED = new ConcurrentHashMap<>();
  private static final Pattern UNDEFINED = Pattern.compile("undefined symbol: (\\S+)");
  /** glibc's "/lib/.../libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by ...)". */
  private static final Pattern VERSION_NOT_FOUND = Pattern.compile("(\\S+): version `([^']+)' not found");
  private static final Pattern MISSING_DEP =
      Pattern.compile("(\\S+): cannot open shared object file");

  private final Path path;
  private final List<String> ops;
  private final Set<String> namespaces;

  private OpLibrary(Path path, List<String> ops, Set<String> namespaces) {
    this.path = path;
    this.ops = List.copyOf(ops);
    this.namespaces = Set.copyOf(namespaces);
  }

  /**
   * Loads {@code file} and returns what it registered.
   *
   * @throws LibraryLoadException naming the file (and symbol or dependency) when the file is
   *     missing, is not a shared library, does not load, or registers no operator
   */
  public static OpLibrary load(Path file) throws LibraryLoadException {
    TorchRuntime runtime = TorchRuntime.get();
    Path path = file.toAbsolutePath().normalize();
    if (!Files.exists(path)) {
      throw new LibraryLoadException(path, "library not found: " + path);
    }
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw new LibraryLoadException(path, "not a readable file: " + path);
    }
    if (!hasElfHeader(path)) {
      throw new LibraryLoadException(path, "not a shared library (no ELF header): " + path);
    }
    try {
      path = path.toRealPath();
    } catch (IOException e) {
      throw new LibraryLoadException(path, "cannot resolve " + path + ": " + e.getMessage());
    }
    OpLibrary known = LOADED.get(path);
    if (known != null) {
      return known;
    }
    synchronized (OpLibrary.class) {
      known = LOADED.get(path);
      if (known != null) {
        return known;
      }
      checkLinkage(runtime, path);
      OpLibrary loaded = loadNew(path);
      LOADED.put(path, loaded);
      return loaded;
    }
  }

  /** The runtime's libtorch as op libraries link to it, read once per process. */
  private static LibtorchLinkage linkage;

  /**
   * Refuses, before it is loaded, a library built for another libtorch: loaded, it would end the
   * process from its static initializer (status 127) instead of failing with a message.
   */
  private static void checkLinkage(TorchRuntime runtime, Path path) throws LibraryLoadException {
    java.util.Optional<String> problem = linkageProblem(runtime, path);
    if (problem.isPresent()) {
      throw new LibraryLoadException(path, problem.get());
    }
  }

  /** What makes {@code path} unfit for this libtorch (one line), or empty; empty too when it cannot be read as ELF. */
  static synchronized java.util.Optional<String> linkageProblem(TorchRuntime runtime, Path path) {
    try {
      if (linkage == null) {
        linkage = LibtorchLinkage.of(runtime.torchVersion(), runtime.libtorchDir());
      }
      return linkage.problem(path, OpLibrary::demangle);
    } catch (IOException e) {
      return java.util.Optional.empty(); // unreadable as ELF here: System.load gives the loader's own reason
    }
  }

  /** The C++ declaration a mangled symbol names (libstdc++'s demangler, through c10), or the name as it is. */
  static String demangle(String symbol) {
    String d = org.bytedeco.pytorch.global.torch.demangle(symbol);
    return d == null || d.isEmpty() ? symbol : d;
  }

  private static OpLibrary loadNew(Path path) throws LibraryLoadException {
    Set<String> before = allOpNames();
    try {
      System.load(path.toString());
    } catch (UnsatisfiedLinkError e) {
      throw new LibraryLoadException(path, describeLinkError(path, e.getMessage()));
    } catch (RuntimeException e) {
      throw new LibraryLoadException(
          path, "registering the operators of " + path + " failed: " + NativeStrings.firstLine(e.getMessage()));
    }
    Set<String> added = new TreeSet<>(allOpNames());
    added.removeAll(before);
    if (added.isEmpty()) {
      throw new LibraryLoadException(
          path,
          "library registers no operators: "
              + path
              + " (expected TORCH_LIBRARY or STABLE_TORCH_LIBRARY registrations)");
    }
    Set<String> namespaces = new TreeSet<>();
    List<String> ops = new ArrayList<>();
    for (String name : added) {
      namespaces.add(name.substring(0, name.indexOf("::")));
      if (Operators.hasSchema(name)) {
        ops.add(name);
      }
    }
    return new OpLibrary(path, ops, namespaces);
  }

  static String describeLinkError(Path path, String message) {
    String msg = message == null ? "" : message;
    Matcher undefined = UNDEFINED.matcher(msg);
    if (undefined.find() && linkage != null && LibtorchLinkage.isLibtorchSymbol(undefined.group(1))) {
      return path + ": undefined symbol " + demangle(undefined.group(1)) + ": " + linkage.mismatch();
    }
    Matcher version = VERSION_NOT_FOUND.matcher(msg);
    if (version.find()) {
      return path + " needs version " + version.group(2) + " of " + version.group(1)
          + ", which this machine's copy does not have (built with a newer compiler or C library)";
    }
    if (undefined.find(0)) {
      return "unresolved symbol "
          + undefined.group(1)
          + " in "
          + path
          + " (built against another libtorch, or a dependency is not linked)";
    }
    Matcher missing = MISSING_DEP.matcher(msg);
    if (missing.find() && !missing.group(1).equals(path.toString())) {
      return path + " needs " + missing.group(1) + ", which the dynamic loader cannot find";
    }
    return "cannot load " + path + ": " + NativeStrings.firstLine(msg);
  }

  private static boolean hasElfHeader(Path path) {
    byte[] magic = new byte[4];
    try (InputStream in = Files.newInputStream(path)) {
      return in.readNBytes(magic, 0, 4) == 4
          && Arrays.equals(magic, new byte[] {0x7f, 'E', 'L', 'F'});
    } catch (IOException e) {
      return false;
    }
  }

  /** Every operator name known to the dispatcher, qualified, with overload after a dot. */
  public static Set<String> allOpNames() {
    OperatorName names = Dispatcher.singleton().getAllOpNames();
    Set<String> out = new LinkedHashSet<>();
    if (names == null) {
      return out;
    }
    for (long i = 0; i < names.limit(); i++) {
      out.add(Operators.qualified(names.getPointer(i)));
    }
    return out;
  }


  public Path path() {
    return path;
  }

  /** Qualified names of the operators this library defined (with a schema), sorted. */
  public List<String> ops() {
    return ops;
  }

  /** Namespaces this library registered anything in. */
  public Set<String> namespaces() {
    return namespaces;
  }

  /** Implementations registered in this library's namespaces for operators that were never defined. */
  public List<String> danglingImpls() {
    OperatorHandle dangling = Dispatcher.singleton().findDanglingImpls();
    List<String> out = new ArrayList<>();
    if (dangling == null) {
      return out;
    }
    long n = Math.max(dangling.limit(), dangling.capacity());
    for (long i = 0; i < n; i++) {
      OperatorHandle h = dangling.getPointer(i);
      String name = Operators.qualified(h.operator_name());
      if (namespaces.contains(name.substring(0, name.indexOf("::")))) {
        out.add(name);
      }
    }
    out.sort(Comparator.naturalOrder());
    return out;
  }

  /**
   * The operator {@code name} ({@code ns::op} or {@code ns::op.overload}) of this library.
   *
   * @throws UnknownOpException with the nearest names this library registers
   */
  public Operator op(String name) throws UnknownOpException {
    if (!ops.contains(name)) {
      throw new UnknownOpException(name, UnknownOpException.nearest(name, ops, 3), path.getFileName().toString());
    }
    return Operators.find(name);
  }

  @Override
  public String toString() {
    return path.toString();
  }
}
