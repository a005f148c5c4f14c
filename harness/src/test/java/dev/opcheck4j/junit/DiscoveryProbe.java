package dev.opcheck4j.junit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectFile;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** Run in a fresh JVM by OpCheckEngineTests: discovers a spec and says whether libtorch got loaded. */
public final class DiscoveryProbe {
  private DiscoveryProbe() {}

  public static void main(String[] args) throws Exception {
    TestPlan plan = LauncherFactory.create().discover(LauncherDiscoveryRequestBuilder.request()
        .selectors(selectFile(args[0])).build());
    long tests = plan.countTestIdentifiers(t -> t.isTest());
    boolean torch = Files.readString(Path.of("/proc/self/maps")).contains("libtorch");
    System.out.println("tests=" + tests + " libtorch=" + torch);
  }
}
