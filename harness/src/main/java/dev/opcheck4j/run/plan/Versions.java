package dev.opcheck4j.run.plan;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Versions of opcheck4j, libtorch and the JavaCPP presets, read from build metadata on the class
 * path (never by loading native code, so a process that runs no kernel can print them).
 *
 * @param tool opcheck4j's version
 * @param torch libtorch's version, e.g. {@code 2.10.0}
 * @param presets the JavaCPP presets version, e.g. {@code 1.5.13}
 */
public record Versions(String tool, String torch, String presets) {

  /** Reads the versions of this class path; a missing one is {@code unknown}. */
  public static Versions current() {
    String tool = property("/dev/opcheck4j/opcheck4j.properties", "version");
    String pytorch = property("/META-INF/maven/org.bytedeco/pytorch/pom.properties", "version");
    int dash = pytorch.indexOf('-');
    String torch = dash > 0 ? pytorch.substring(0, dash) : pytorch;
    String presets = dash > 0 ? pytorch.substring(dash + 1) : "unknown";
    return new Versions(tool, torch, presets);
  }

  private static String property(String resource, String key) {
    try (InputStream in = Versions.class.getResourceAsStream(resource)) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty(key, "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
