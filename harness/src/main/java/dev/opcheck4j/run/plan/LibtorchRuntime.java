package dev.opcheck4j.run.plan;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A libtorch the workers of a run can start on: the JavaCPP presets of one libtorch release, resolved by
 * Maven (a module {@code harness/runtimes/<version>}, or the harness's own dependencies).
 *
 * @param torch libtorch's version, {@code 2.10.0}
 * @param presets the JavaCPP presets' version, {@code 1.5.13}
 * @param classPath the presets' jars (javacpp, pytorch, openblas and their natives); empty for the runtime
 *     of this JVM's own class path
 */
public record LibtorchRuntime(String torch, String presets, List<Path> classPath) implements Comparable<LibtorchRuntime> {
  /** A jar of the JavaCPP presets a runtime brings: on a worker's class path, only its runtime's may be. */
  private static final Pattern PRESETS_JAR = Pattern.compile("(javacpp|pytorch|openblas)-\\d[^/]*\\.jar");

  public LibtorchRuntime {
    Objects.requireNonNull(torch, "torch");
    Objects.requireNonNull(presets, "presets");
    classPath = List.copyOf(classPath);
  }

  /** Whether this is the runtime of this JVM's own class path (a worker on it needs no other jars). */
  public boolean own() {
    return classPath.isEmpty();
  }

  /**
   * A worker's class path on this runtime, from the parent's {@code parent} (entries separated by the
   * platform's separator): the parent's own presets jars replaced by this runtime's, the rest (the harness,
   * its other dependencies) kept in order.
   */
  public String workerClassPath(String parent) {
    return replacing(parent, classPath);
  }

  /** {@code parent}'s class path with its presets jars replaced by {@code jars}; itself when there are none. */
  public static String replacing(String parent, List<Path> jars) {
    if (jars.isEmpty()) {
      return parent;
    }
    List<String> entries = new ArrayList<>();
    jars.forEach(p -> entries.add(p.toAbsolutePath().toString()));
    for (String e : parent.split(File.pathSeparator)) {
      if (!e.isEmpty() && !PRESETS_JAR.matcher(Path.of(e).getFileName().toString()).matches()) {
        entries.add(e);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** {@code major.minor} of libtorch, {@code 2.10}. */
  public String majorMinor() {
    String[] parts = torch.split("\\.");
    return parts.length >= 2 ? parts[0] + "." + parts[1] : torch;
  }

  /** By libtorch version, oldest first. */
  @Override
  public int compareTo(LibtorchRuntime other) {
    return Runtimes.VERSION_ORDER.compare(torch, other.torch);
  }
}
