package dev.opcheck4j.reports;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Debian's headless {@code chromium}, run as a process: the page's script runs, then the DOM is
 * dumped or a screenshot taken. A fresh profile each time; no sandbox (tests may run as root), no
 * GPU, no background traffic.
 */
public final class Chromium {
  private final Path binary;

  private Chromium(Path binary) {
    this.binary = binary;
  }

  /** The chromium on PATH, or empty when it is not installed. */
  /** Debian's chromium, or the calling test class is Skipped with the reason. */
  public static Chromium required() {
    Chromium c = find().orElse(null);
    org.junit.jupiter.api.Assumptions.assumeTrue(c != null,
        "Skipped: Debian's chromium is not installed (apt-get install chromium; .ci/run installs it)");
    return c;
  }

  public static Optional<Chromium> find() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      for (String name : List.of("chromium", "chromium-browser")) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return Optional.of(new Chromium(p));
        }
      }
    }
    return Optional.empty();
  }

  /** The DOM of {@code url} after its scripts ran, as HTML. */
  public String dumpDom(String url, Path work) throws IOException, InterruptedException {
    return run(work, List.of("--dump-dom", url), work.resolve("dom.html"));
  }

  /** Saves a PNG of {@code url} at {@code width}×{@code height} pixels. */
  public void screenshot(String url, Path png, int width, int height, Path work) throws IOException, InterruptedException {
    Files.createDirectories(png.toAbsolutePath().getParent());
    run(work, List.of("--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height,
        "--hide-scrollbars", url), work.resolve("screenshot.log"));
    if (!Files.isRegularFile(png) || Files.size(png) == 0) {
      throw new IOException("chromium wrote no screenshot to " + png);
    }
  }

  private String run(Path work, List<String> args, Path stdout) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory(work, "chromium-profile");
    List<String> command = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--virtual-time-budget=5000"));
    command.addAll(args);
    Path stderr = work.resolve("chromium-stderr.log");
    Process p = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
    // --virtual-time-budget ends the page's clock, not a wall clock: chromium exits once it has drawn
    if (p.waitFor() != 0) {
      throw new IOException("chromium exited " + p.exitValue() + ": " + Files.readString(stderr));
    }
    return Files.readString(stdout, StandardCharsets.UTF_8);
  }

  /** {@code page}'s address with {@code key=value} view settings in its fragment. */
  public static String url(Path page, String... settings) {
    StringBuilder sb = new StringBuilder(page.toUri() + "#");
    for (String s : settings) {
      int eq = s.indexOf('=');
      sb.append(sb.charAt(sb.length() - 1) == '#' ? "" : "&").append(s, 0, eq + 1)
          .append(java.net.URLEncoder.encode(s.substring(eq + 1), StandardCharsets.UTF_8).replace("+", "%20"));
    }
    return sb.toString();
  }

  /** How many times {@code regex} matches in a dumped DOM. */
  public static int count(String html, String regex) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(regex).matcher(html);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
