package dev.opcheck4j.api;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where the reports' links to check pages point: an absolute location, so that a link works from
 * wherever the report is opened ({@code target/opcheck/}, {@code reports/out/}, a CI artifact, a
 * SARIF viewer). opcheck4j's build declares no project URL, so there is no published address to
 * default to; in order:
 * <ol>
 *   <li>{@code opcheck4j.docsUrl}, when it is an absolute URL ({@code https://host/docs/checks/});
 *       a path is taken as a folder of pages and made a {@code file:} URL;
 *   <li>the {@code docs/checks/} folder of the opcheck4j clone the run came from
 *       ({@code opcheck4j.home}, which {@code ./opcheck} sets), as a {@code file:} URL;
 *   <li>none: the reports carry no link, only each check's summary and each finding's hint, which
 *       they embed either way.
 * </ol>
 */
public final class DocsLocation {
  /** The system property (and JUnit engine key) of the pages' location. */
  public static final String PROPERTY = "opcheck4j.docsUrl";
  private static final Pattern ABSOLUTE = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]+:");

  private DocsLocation() {}

  /**
   * The base of the pages' addresses, ending in {@code /}, or empty for none.
   *
   * @param docsUrl {@code opcheck4j.docsUrl} as given, or null or blank when not given
   * @param home the opcheck4j clone the run came from, or null when not known
   */
  public static Optional<String> of(String docsUrl, String home) {
    if (docsUrl != null && !docsUrl.isBlank()) {
      if (ABSOLUTE.matcher(docsUrl).lookingAt()) {
        return Optional.of(docsUrl.endsWith("/") ? docsUrl : docsUrl + "/");
      }
      return Optional.of(Path.of(docsUrl).toAbsolutePath().normalize().toUri().toString())
          .map(u -> u.endsWith("/") ? u : u + "/");
    }
    if (home != null && !home.isBlank()) {
      Path pages = Path.of(home, "docs", "checks").toAbsolutePath().normalize();
      if (Files.isDirectory(pages)) {
        return Optional.of(pages.toUri().toString());
      }
    }
    return Optional.empty();
  }

  /** The location this JVM's system properties give ({@code opcheck4j.docsUrl}, {@code opcheck4j.home}). */
  public static Optional<String> fromSystem() {
    return of(System.getProperty(PROPERTY), System.getProperty("opcheck4j.home"));
  }

  /** The address of check {@code id}'s page under {@code base} (as {@link #of} gives it). */
  public static String page(String base, String id) {
    return base + id + ".md";
  }
}
