package dev.opcheck4j.junit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.spec.SpecException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExpectedFailuresTests {
  @Test
  void anEntryNamingAnUnknownCheckIsAnErrorWithItsLocation(@TempDir Path dir) throws Exception {
    Path badCheck = Files.writeString(dir.resolve("c.json"), "{\n  \"bad_ops::raises\": {\"kernel.eror\": \"typo\"}\n}\n");
    SpecException e = assertThrows(SpecException.class, () -> ExpectedFailures.read(badCheck));
    assertTrue(e.getMessage().startsWith(badCheck + ":2:38: \"kernel.eror\" under \"bad_ops::raises\" is not a check id"), e.getMessage());
  }
}
