package dev.opcheck4j.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.EngineDiscoveryRequest;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.engine.discovery.ClasspathResourceSelector;
import org.junit.platform.engine.discovery.ClasspathRootSelector;
import org.junit.platform.engine.discovery.DirectorySelector;
import org.junit.platform.engine.discovery.FileSelector;
import org.junit.platform.engine.discovery.UniqueIdSelector;
import org.junit.platform.engine.support.descriptor.ClasspathResourceSource;
import org.junit.platform.engine.support.descriptor.FileSource;

/**
 * Finds spec files, reading nothing but file names: resources under {@code opcheck/} on the test
 * classpath, the files and folders a launcher selects, the specs of {@link OpCheckSpec} classes,
 * and the paths of the {@code opcheck4j.specs} parameter.
 */
final class SpecDiscovery {
  static final String FOLDER = "opcheck";

  /**
   * A spec file and how it was found.
   *
   * @param key stable name for unique ids: the classpath resource name, or the absolute path
   * @param path the file
   * @param source where an IDE should navigate to
   */
  record Location(String key, Path path, TestSource source) {}

  private final Map<Path, Location> found = new LinkedHashMap<>();
  private final ClassLoader loader;
  private boolean viaClasses;

  SpecDiscovery(ClassLoader loader) {
    this.loader = loader;
  }

  /**
   * The file a user edits for {@code spec}: Maven runs the tests on the copy under
   * {@code target/test-classes/}, a file the next build overwrites. Where {@code src/test/resources/}
   * beside it has the same file (byte for byte, so lines and columns agree: a spec needs no resource
   * filtering), that one; otherwise {@code spec} itself, absolute.
   */
  static Path source(Path spec) {
    Path copy = spec.toAbsolutePath().normalize();
    String marker = java.io.File.separator + "target" + java.io.File.separator + "test-classes" + java.io.File.separator;
    String shown = copy.toString();
    int at = shown.lastIndexOf(marker);
    if (at < 0) {
      return copy;
    }
    Path source = Path.of(shown.substring(0, at), "src", "test", "resources", shown.substring(at + marker.length()));
    try {
      return java.nio.file.Files.isRegularFile(source) && java.nio.file.Files.mismatch(source, copy) == -1 ? source : copy;
    } catch (java.io.IOException e) {
      return copy;
    }
  }

  /**
   * {@code text} about {@code spec} naming the file a user edits ({@link #source}): a spec error at
   * {@code .../target/test-classes/opcheck/x.yaml:3:5} sent people to the copy. Otherwise unchanged.
   */
  static String atSource(String text, Path spec) {
    if (text == null || spec == null) {
      return text;
    }
    Path copy = spec.toAbsolutePath().normalize();
    Path source = source(spec);
    if (source.equals(copy)) {
      return text;
    }
    String replaced = text.replace(copy.toString(), source.toString());
    return spec.toString().equals(copy.toString()) ? replaced : replaced.replace(spec.toString(), source.toString());
  }

  static boolean isSpec(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return n.endsWith(".json") || n.endsWith(".yaml") || n.endsWith(".yml");
  }

  List<Location> discover(EngineDiscoveryRequest request, EngineSettings settings) {
    boolean explicit = false;
    boolean classes = false;
    for (DiscoverySelector s : request.getSelectorsByType(DiscoverySelector.class)) {
      if (s instanceof ClasspathResourceSelector r) {
        explicit = true;
        if (isSpec(r.getClasspathResourceName())) {
          resource(r.getClasspathResourceName());
        }
      } else if (s instanceof ClasspathRootSelector r) {
        explicit = true;
        if ("file".equals(r.getClasspathRoot().getScheme())) {
          Path root = Path.of(r.getClasspathRoot());
          walk(root.resolve(FOLDER), root);
        }
      } else if (s instanceof FileSelector f) {
        explicit = true;
        if (isSpec(f.getRawPath())) {
          file(f.getPath());
        }
      } else if (s instanceof DirectorySelector d) {
        explicit = true;
        walk(d.getPath(), null);
      } else if (s instanceof ClassSelector c) {
        classes = true;
        viaClasses = true;
        OpCheckSpec anchor = annotation(c);
        if (anchor != null) {
          explicit = true;
          for (String v : anchor.value()) {
            if (loader.getResource(v) != null) {
              resource(v);
            } else {
              file(Path.of(v));
            }
          }
        }
      } else if (s instanceof UniqueIdSelector) {
        // resolved against the whole convention tree, then pruned by the engine
        explicit = false;
      }
    }
    // A build tool that only knows classes (Surefire selects the classes it scanned, Gradle too)
    // gets the convention folder and the opcheck4j.specs files; Surefire's -Dtest narrowing the
    // run to some classes does not drag specs in.
    boolean narrowedToClasses = classes && System.getProperty("test") != null;
    if (narrowedToClasses && !explicit) {
      return new ArrayList<>(found.values());
    }
    if (!explicit) {
      convention();
    }
    for (Path p : settings.specs()) {
      file(p);
    }
    return new ArrayList<>(found.values());
  }

  /**
   * Whether the launcher selected classes (a build tool's class scan): the build tool then reports
   * per class, so spec nodes name {@link ClasspathSpecTests} as their source.
   */
  boolean viaClasses() {
    return viaClasses;
  }

  private OpCheckSpec annotation(ClassSelector c) {
    try {
      return c.getJavaClass().getAnnotation(OpCheckSpec.class);
    } catch (RuntimeException | LinkageError e) {
      return null;
    }
  }

  private void convention() {
    try {
      for (URL url : Collections.list(loader.getResources(FOLDER))) {
        if ("file".equals(url.getProtocol())) {
          Path dir = Path.of(url.toURI());
          walk(dir, dir.getParent());
        }
      }
    } catch (IOException | URISyntaxException e) {
      throw new IllegalStateException("cannot list the classpath folder " + FOLDER + "/: " + e.getMessage(), e);
    }
  }

  private void resource(String name) {
    URL url = loader.getResource(name);
    if (url == null || !"file".equals(url.getProtocol())) {
      return;
    }
    try {
      add(new Location(name, Path.of(url.toURI()), ClasspathResourceSource.from(name)));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private void file(Path p) {
    Path abs = p.toAbsolutePath().normalize();
    add(new Location(abs.toString(), abs, FileSource.from(abs.toFile())));
  }

  /** Spec files under {@code dir}; named as classpath resources relative to {@code root} when given. */
  private void walk(Path dir, Path root) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(Files::isRegularFile).filter(f -> isSpec(f.getFileName().toString())).sorted().toList()) {
        if (root != null) {
          String name = root.relativize(f).toString().replace('\\', '/');
          add(new Location(name, f.toAbsolutePath().normalize(), ClasspathResourceSource.from(name)));
        } else {
          file(f);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void add(Location l) {
    found.putIfAbsent(l.path(), l);
  }
}
