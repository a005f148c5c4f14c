package dev.opcheck4j.torch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CompanionTests {

  @Test
  void theCompanionBuiltWithTheRuntimesHeadersLoadsAndAnswersItsAbi() {
    Companion.State state = Companion.state();
    Companion.Loaded loaded = assertInstanceOf(Companion.Loaded.class, state, () -> "unavailable: " + state);
    assertEquals(Companion.FILE_NAME, loaded.file().getFileName().toString());
    assertTrue(OpLibrary.allOpNames().contains("opcheck4j::companion_abi"), "its handshake op is registered");
  }

  @Test
  void theCompanionIsNotOneOfTheUsersLibrariesOps() throws Exception {
    Companion.state();
    OpLibrary lib = OpLibrary.load(dev.opcheck4j.testing.NativeOps.lib("good_ops"));
    assertTrue(lib.namespaces().stream().noneMatch("opcheck4j"::equals), lib.namespaces().toString());
  }
}
