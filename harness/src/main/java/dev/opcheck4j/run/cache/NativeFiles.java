package dev.opcheck4j.run.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The native files a result cache key hashes: libtorch's build, and what each op library links ({@code ldd}). */
final class NativeFiles {
  private NativeFiles() {}

  /**
   * The files of the libtorch build a worker loads: what JavaCPP extracted from the presets' jar on
   * the class path (libtorch_cpu, c10, the JNI library and what they link), by their real paths; the
   * jar itself before its first extraction. Found without loading native code.
   */
  static List<Path> libtorchFiles() {
    return LIBTORCH.updateAndGet(known -> known != null ? known : findLibtorchFiles());
  }

  private static final java.util.concurrent.atomic.AtomicReference<List<Path>> LIBTORCH =
      new java.util.concurrent.atomic.AtomicReference<>();

  private static List<Path> findLibtorchFiles() {
    try {
      String platform = org.bytedeco.javacpp.Loader.getPlatform();
      String resource = "org/bytedeco/pytorch/" + platform + "/libtorch_cpu.so";
      java.net.URL url = ResultCache.class.getClassLoader().getResource(resource);
      if (url == null) {
        return List.of();
      }
      Path extracted;
      Path jar = null;
      if (url.getProtocol().equals("jar")) {
        String spec = url.getPath();
        jar = Path.of(java.net.URI.create(spec.substring(0, spec.indexOf("!/"))));
        extracted = org.bytedeco.javacpp.Loader.getCacheDir().toPath().resolve(jar.getFileName().toString())
            .resolve(resource).getParent();
      } else {
        extracted = Path.of(url.toURI()).getParent();
      }
      if (!Files.isDirectory(extracted)) {
        return jar == null ? List.of() : List.of(jar);
      }
      java.util.SortedSet<Path> files = new java.util.TreeSet<>();
      try (java.util.stream.Stream<Path> list = Files.list(extracted)) {
        for (Path f : list.toList()) {
          // a link to a CUDA library that is not installed is no file a cpu worker loads
          if (f.getFileName().toString().contains(".so") && Files.isRegularFile(f)) {
            files.add(f.toRealPath());
          }
        }
      }
      return List.copyOf(files);
    } catch (IOException | RuntimeException | java.net.URISyntaxException e) {
      return List.of();
    }
  }

  /**
   * The libraries {@code library} loads in {@code env} that are not the system's (not under /lib or
   * /usr/lib), and every library the environment preloads, from ldd.
   */
  static List<Path> dependencies(Path library, java.util.Map<String, String> env) {
    Path abs = library.toAbsolutePath().normalize();
    String stamp;
    try {
      java.util.Map<String, Object> a = Files.readAttributes(abs, "unix:size,lastModifiedTime,ctime,dev,ino");
      stamp = abs + "\n" + a + "\n" + env.get("LD_PRELOAD") + "\n" + env.get("LD_LIBRARY_PATH");
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return lddDependencies(abs, env);
    }
    return DEPENDENCIES.computeIfAbsent(stamp, k -> lddDependencies(abs, env));
  }

  /**
   * ldd's answer per library as it is (path, size, times, inode) and per loader path, asked once per
   * process: a run asks twice ({@link #remembers}, then {@link #open}).
   */
  private static final java.util.Map<String, List<Path>> DEPENDENCIES = new java.util.concurrent.ConcurrentHashMap<>();

  private static List<Path> lddDependencies(Path library, java.util.Map<String, String> env) {
    try {
      ProcessBuilder pb = new ProcessBuilder("ldd", library.toString()).redirectErrorStream(true);
      for (String loader : List.of("LD_PRELOAD", "LD_LIBRARY_PATH")) {
        if (env.get(loader) == null) {
          pb.environment().remove(loader);
        } else {
          pb.environment().put(loader, env.get(loader));
        }
      }
      Process p = pb.start();
      String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
      return lddLibraries(text);
    } catch (IOException e) {
      // without ldd the library's own hash is the key; its dependencies go unchecked
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }

  /**
   * The libraries of ldd's output {@code text} that enter the key: each resolved one ({@code name =>
   * /path (0x..)}) outside /lib and /usr/lib, and each preloaded one, which ldd prints as a bare
   * path ({@code /path (0x..)}) wherever it is; not the dynamic loader itself.
   */
  static List<Path> lddLibraries(String text) {
    java.util.SortedSet<Path> out = new java.util.TreeSet<>();
    for (String line : text.split("\n")) {
      String s = line.strip().replaceAll("\\s+\\(0x[0-9a-f]+\\)$", "");
      int arrow = s.indexOf("=> /");
      if (arrow >= 0) {
        String path = s.substring(arrow + 3).strip();
        if (!path.startsWith("/lib") && !path.startsWith("/usr/lib")) {
          out.add(Path.of(path));
        }
      } else if (s.startsWith("/") && !s.contains("=>") && !Path.of(s).getFileName().toString().startsWith("ld-linux")) {
        out.add(Path.of(s));
      }
    }
    return List.copyOf(out);
  }
}
