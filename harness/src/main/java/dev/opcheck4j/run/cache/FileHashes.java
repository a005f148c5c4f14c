package dev.opcheck4j.run.cache;

import dev.opcheck4j.run.plan.RunBlock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The SHA-256 of the files a result cache's key reads. One smaller than {@link #LARGE} is read every
 * time (a few milliseconds); a larger one (libtorch) is read once and its hash remembered under its
 * path, size, modification time, change time, device and inode: the change time is set by the kernel
 * on every write and every {@code touch}, and cannot be set back by a user, so content put in place
 * keeping the size, mtime and inode (a {@code tar -x} of an archive made with {@code --mtime}, {@code
 * cp --preserve=timestamps}, an in-place write) is read again.
 *
 * <p>A hash is remembered in two places: the cache directory ({@code DIR/files}), which a CI job may
 * carry to a runner of the same image, and the user's cache on this machine ({@code
 * $XDG_CACHE_HOME/opcheck4j/files}, by default {@code ~/.cache/opcheck4j/files}), so that a fresh
 * {@code --cache} directory on a machine that hashed this libtorch before does not read its 330 MB
 * again. A place that cannot be written is skipped: the hash is then read as often as before.
 */
final class FileHashes {
  /** Files this large are hashed by coreutils' sha256sum when there is one, and their hash remembered. */
  static final long LARGE = 16L << 20;

  /** Where hashes are remembered, in the order they are looked up. */
  private final List<Path> memos;

  private FileHashes(List<Path> memos) {
    this.memos = memos;
  }

  /**
   * The hashes of the cache in {@code cacheDir}, for a run in the environment {@code env} (which
   * names the user's cache: {@code XDG_CACHE_HOME}, else {@code HOME}; with neither, only the cache
   * directory remembers).
   */
  static FileHashes of(Path cacheDir, Map<String, String> env) {
    List<Path> memos = new ArrayList<>();
    memos.add(cacheDir.resolve("files"));
    Path user = userCache(env);
    if (user != null) {
      memos.add(user.resolve("opcheck4j").resolve("files"));
    }
    return new FileHashes(List.copyOf(memos));
  }

  /** The user's cache directory by the XDG rule (an absolute {@code XDG_CACHE_HOME}, else {@code HOME/.cache}), or null. */
  static Path userCache(Map<String, String> env) {
    String xdg = env.get("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return Path.of(xdg);
    }
    String home = env.get("HOME");
    return home != null && !home.isBlank() && Path.of(home).isAbsolute() ? Path.of(home, ".cache") : null;
  }

  /** SHA-256 of {@code file}: of its content now when small, else remembered or read once; a marker when unreadable. */
  String of(Path file) {
    Path abs = file.toAbsolutePath().normalize();
    try {
      if (Files.size(abs) < LARGE) {
        return content(abs);
      }
      String name = memoName(abs);
      String h = name == null ? null : remembered(name);
      if (h == null) {
        h = sha256sum(abs);
        h = h != null ? h : RunBlock.sha256(abs);
        if (h == null) {
          return unreadable(abs);
        }
      }
      if (name != null) {
        remember(name, h);
      }
      return h;
    } catch (IOException e) {
      return unreadable(abs);
    }
  }

  /** Whether {@code file} is small (read every time anyway) or its hash as it is now is remembered somewhere. */
  boolean known(Path file) throws IOException {
    Path abs = file.toAbsolutePath().normalize();
    if (Files.size(abs) < LARGE) {
      return true;
    }
    String name = memoName(abs);
    return name != null && remembered(name) != null;
  }

  /** SHA-256 of a file read now, whatever is remembered; a marker when it cannot be read. */
  static String content(Path file) {
    String h = RunBlock.sha256(file);
    return h == null ? unreadable(file.toAbsolutePath().normalize()) : h;
  }

  private static String unreadable(Path abs) {
    return "unreadable " + abs;
  }

  /** The first remembered hash under {@code name}, or null. */
  private String remembered(String name) {
    for (Path dir : memos) {
      try {
        String h = Files.readString(dir.resolve(name)).strip();
        if (h.matches("[0-9a-f]{64}")) {
          return h;
        }
      } catch (IOException e) {
        // not remembered there (or not readable): the next place, else the file is read
      }
    }
    return null;
  }

  /** Remembers {@code hash} in each place that does not yet (one move each, so no reader sees half of it). */
  private void remember(String name, String hash) {
    for (Path dir : memos) {
      Path memo = dir.resolve(name);
      if (Files.exists(memo)) {
        continue;
      }
      try {
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, name, ".tmp");
        Files.writeString(tmp, hash);
        Files.move(tmp, memo, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException | UnsupportedOperationException e) {
        // a place that cannot be written remembers nothing; the others still do
      }
    }
  }

  /**
   * The name the hash of {@code abs} as it is now (its path, size, modification and change times,
   * device and inode) is remembered under; null on a file system without change times (then it is
   * read every time).
   */
  private static String memoName(Path abs) throws IOException {
    Map<String, Object> a;
    try {
      a = Files.readAttributes(abs, "unix:size,lastModifiedTime,ctime,dev,ino");
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      return null;
    }
    String stamp = abs + "\n" + a.get("size") + "\n" + instant(a.get("lastModifiedTime")) + "\n"
        + instant(a.get("ctime")) + "\n" + a.get("dev") + " " + a.get("ino");
    return ResultCache.sha256(stamp) + ".sha256";
  }

  /** A file time to the nanosecond (FileTime's text drops trailing zeros, which is still exact). */
  private static String instant(Object time) {
    return time instanceof FileTime t ? t.toInstant().toString() : String.valueOf(time);
  }

  /**
   * The SHA-256 of {@code file} from {@code sha256sum}, or null without one. This JVM runs on the
   * client compiler, whose SHA-256 has no CPU instructions of its own: libtorch (330 MB) took 2.6 s
   * there and takes 1.2 s in sha256sum.
   */
  private static String sha256sum(Path file) {
    try {
      Process p = new ProcessBuilder("sha256sum", "-b", "--", file.toString())
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 && out.length() >= 64 && out.substring(0, 64).matches("[0-9a-f]{64}")
          ? out.substring(0, 64) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
