package dev.opcheck4j.checks;

import dev.opcheck4j.checks.builtin.BuiltinChecks;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Severity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The registry is the one place checks are listed; their metadata must hold together. */
class BuiltinChecksTests {
  @Test
  void idsAreUniqueAndEveryPrerequisiteComesEarlierInTheRegistry() {
    Set<String> before = new HashSet<>();
    for (Check c : BuiltinChecks.all()) {
      for (String r : c.requires()) {
        assertTrue(before.contains(r), c.id() + " requires " + r + ", which must come earlier in the registry");
      }
      assertTrue(before.add(c.id()), "duplicate id " + c.id());
    }
  }

  @Test
  void everyCheckHasADocPageThatStatesItsSeverity() throws Exception {
    Path docs = dev.opcheck4j.testing.NativeOps.repoRoot().resolve("docs/checks");
    for (Check c : BuiltinChecks.all()) {
      Path page = docs.resolve(c.id() + ".md");
      assertTrue(Files.isRegularFile(page), "missing " + page);
      if (c.severity() == Severity.WARNING) {
        assertTrue(Files.readString(page).contains("**Severity:** warning"), page + " must say it is a warning");
      }
    }
  }

  @Test
  void warningChecksAreTheOnesStricterThanPyTorch() {
    List<String> warnings = BuiltinChecks.all().stream().filter(c -> c.severity() == Severity.WARNING).map(Check::id).toList();
    assertEquals(List.of("schema.out-variant", "mutation.unused", "autograd.differentiable", "trace.specialization", "dtype.unlisted",
        "memory.cow-input", "aoti.annotations", "noncontiguous.rejected", "fake.permissive", "generate.domain", "tags.inplace-view"),
        warnings);
  }

  /** A new user read autograd.registration's page call it stricter than opcheck while it failed as an error. */
  @Test
  void theReadmeAndTheAutogradPagesGiveEachCheckItsOwnSeverity() throws Exception {
    Path root = dev.opcheck4j.testing.NativeOps.repoRoot();
    String readme = Files.readString(root.resolve("README.md"));
    for (Check c : BuiltinChecks.all()) {
      String severity = c.severity() == Severity.WARNING ? "warning" : "error";
      if (c.family().equals("autograd")) {
        String page = Files.readString(root.resolve("docs/checks").resolve(c.id() + ".md"));
        assertTrue(page.contains("**Severity:** " + severity + "."), c.id() + ".md must say " + severity);
      }
      assertTrue(readme.contains("| `" + c.id() + "` | " + severity + " |"), "README's table must give " + c.id() + " as " + severity);
    }
  }
}
