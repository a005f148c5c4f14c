package dev.opcheck4j.run.plan;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The libtorch runtimes a run may ask for ({@code check --runtime 2.10.0,2.13.0}): the one of this JVM's
 * class path (the newest, the default), and each runtime module's built class path,
 * {@code harness/runtimes/<version>/target/runtime-classpath.txt} in the clone (found from
 * {@code opcheck4j.home}, {@code opcheck4j.repoRoot}, or where the harness's classes are). Reading them
 * loads no native code.
 */
public final class Runtimes {
  /** Where a runtime module writes its class path, under its folder. */
  static final String CLASS_PATH_FILE = "target/runtime-classpath.txt";
  private static final Pattern PYTORCH_JAR = Pattern.compile("pytorch-(\\d+\\.\\d+\\.\\d+)-(\\d+(?:\\.\\d+)*)\\.jar");

  /** Versions such as {@code 2.10.0} by their numbers, not their text ({@code 2.9} before {@code 2.10}). */
  static final Comparator<String> VERSION_ORDER = (a, b) -> {
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < Math.max(x.length, y.length); i++) {
      int c = Long.compare(number(x, i), number(y, i));
      if (c != 0) {
        return c;
      }
    }
    return a.compareTo(b);
  };

  private static volatile List<LibtorchRuntime> known;

  private Runtimes() {}

  private static long number(String[] parts, int i) {
    try {
      return i < parts.length ? Long.parseLong(parts[i]) : 0;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The runtime of this JVM's class path (the presets it was built with). */
  public static LibtorchRuntime own() {
    String version = "unknown";
    try (InputStream in = Runtimes.class.getResourceAsStream("/META-INF/maven/org.bytedeco/pytorch/pom.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        version = p.getProperty("version", version);
      }
    } catch (IOException e) {
      // unknown
    }
    int dash = version.indexOf('-');
    return new LibtorchRuntime(dash > 0 ? version.substring(0, dash) : version,
        dash > 0 ? version.substring(dash + 1) : "unknown", List.of());
  }

  /** Every runtime there is, oldest first: this JVM's and each runtime module's that was built. */
  public static List<LibtorchRuntime> known() {
    List<LibtorchRuntime> k = known;
    if (k == null) {
      LibtorchRuntime own = own();
      TreeMap<String, LibtorchRuntime> byVersion = new TreeMap<>(VERSION_ORDER);
      byVersion.put(own.torch(), own);
      for (Path root : roots()) {
        for (LibtorchRuntime r : modulesUnder(root)) {
          byVersion.putIfAbsent(r.torch(), r);
        }
      }
      k = known = List.copyOf(byVersion.values());
    }
    return k;
  }

  /** The default: one runtime, this JVM's (the newest the build has). */
  public static List<String> defaults() {
    return List.of(own().torch());
  }

  /** Whether {@code asked} is the default run: this JVM's runtime alone (or nothing asked). */
  public static boolean isDefault(List<String> asked) {
    return asked.isEmpty() || asked.equals(defaults());
  }

  /**
   * The runtimes {@code text} names, comma-separated ({@code 2.10.0,2.13.0}), oldest first, each once.
   *
   * @throws IllegalArgumentException naming the one that is not a known runtime
   */
  public static List<String> parse(String text) {
    Set<String> asked = new LinkedHashSet<>();
    for (String part : text.split(",")) {
      String v = part.strip();
      if (!v.isEmpty()) {
        asked.add(find(v).torch());
      }
    }
    if (asked.isEmpty()) {
      throw new IllegalArgumentException("no runtime named");
    }
    return asked.stream().sorted(VERSION_ORDER).toList();
  }

  /**
   * The known runtime {@code version} names.
   *
   * @throws IllegalArgumentException when none is
   */
  public static LibtorchRuntime find(String version) {
    return known().stream().filter(r -> r.torch().equals(version)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no runtime " + version));
  }

  /** How the known runtimes are listed in help and in the error of an unknown one. */
  public static String listed() {
    return String.join(", ", known().stream().map(LibtorchRuntime::torch).toList());
  }

  private static List<Path> roots() {
    Set<Path> roots = new LinkedHashSet<>();
    for (String property : List.of("opcheck4j.home", "opcheck4j.repoRoot")) {
      String v = System.getProperty(property);
      if (v != null && !v.isBlank()) {
        roots.add(Path.of(v).toAbsolutePath().normalize());
      }
    }
    codeRoot().ifPresent(roots::add);
    return List.copyOf(roots);
  }

  /** The clone the harness's classes come from: {@code <clone>/harness/target/classes} or its jar there. */
  private static Optional<Path> codeRoot() {
    try {
      CodeSource src = Runtimes.class.getProtectionDomain().getCodeSource();
      if (src == null) {
        return Optional.empty();
      }
      Path p = Path.of(src.getLocation().toURI()).toAbsolutePath().normalize();
      for (Path dir = p; dir != null; dir = dir.getParent()) {
        if (Files.isDirectory(dir.resolve("harness/runtimes"))) {
          return Optional.of(dir);
        }
      }
    } catch (URISyntaxException | RuntimeException e) {
      // no clone
    }
    return Optional.empty();
  }

  /** The runtimes whose modules under {@code root} wrote their class path. */
  static List<LibtorchRuntime> modulesUnder(Path root) {
    Path dir = root.resolve("harness/runtimes");
    List<LibtorchRuntime> found = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return found;
    }
    try (Stream<Path> modules = Files.list(dir)) {
      for (Path module : modules.sorted().toList()) {
        Path file = module.resolve(CLASS_PATH_FILE);
        if (Files.isRegularFile(file)) {
          of(Files.readString(file).strip()).ifPresent(found::add);
        }
      }
    } catch (IOException e) {
      // an unreadable module is a runtime not built
    }
    return found;
  }

  /** The runtime whose class path is {@code classPath}: its versions from its pytorch jar's name; empty without one. */
  static Optional<LibtorchRuntime> of(String classPath) {
    List<Path> entries = new ArrayList<>();
    String torch = null;
    String presets = null;
    for (String e : classPath.split(File.pathSeparator)) {
      if (e.isBlank()) {
        continue;
      }
      Path p = Path.of(e.strip());
      entries.add(p);
      Matcher m = PYTORCH_JAR.matcher(p.getFileName().toString());
      if (m.matches()) {
        torch = m.group(1);
        presets = m.group(2);
      }
    }
    return torch == null ? Optional.empty() : Optional.of(new LibtorchRuntime(torch, presets, entries));
  }
}
