package dev.opcheck4j.checks.sanitizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.torch.Instrumentation.Sanitizer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Sanitizer reports as workers of native-ops' sanitizer_ops printed them (test resources sanitizer-reports/,
 * copied from worker logs): the kind, the first frame in the op library, the access and the summary, read
 * without the shadow-byte legend or the reports of another sanitizer around them.
 */
class SanitizerReportTests {
  private static final List<String> ASAN_LIBRARY = List.of("libsanitizer_ops_asan.so");

  private static String log(String name) throws IOException {
    try (InputStream in = SanitizerReportTests.class.getResourceAsStream("/sanitizer-reports/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String fact(SupervisorCheck.Claim c, String key) {
    return c.facts().stream().filter(f -> f.key().equals(key)).map(Fact::value).findFirst().orElse(null);
  }

  @Test
  void anAsanReportNamesItsKindAccessAndTheFirstFrameInTheLibraryAfterTheUbsanReportBeforeIt() throws IOException {
    List<SanitizerReport> reports = SanitizerReport.in(log("asan-stack-buffer-overflow.log"));
    assertEquals(List.of(Sanitizer.UNDEFINED, Sanitizer.ADDRESS), reports.stream().map(SanitizerReport::sanitizer).toList());
    SanitizerReport asan = reports.get(1);
    assertEquals("stack-buffer-overflow", asan.kind());
    assertEquals("READ of size 16 (thread T1)", asan.access().orElseThrow());
    SanitizerReport.Frame at = asan.inLibrary(ASAN_LIBRARY).orElseThrow();
    assertEquals("window_of_pairs", at.function());
    assertTrue(at.where().endsWith("sanitizer_ops.cpp:80"), at.where());
    assertTrue(asan.summary().startsWith("AddressSanitizer: stack-buffer-overflow "), asan.summary());
    assertFalse(String.join("\n", asan.lines()).contains("Shadow byte"), "the report ends at its summary");
  }

  @Test
  void theRegistryClaimsAnAsanReportAsAsansEvenAfterAUbsanReportOfTheSameUnit() throws IOException {
    String text = log("asan-stack-buffer-overflow.log");
    SupervisorCheck.Claim claim = BuiltinChecks.all().stream().filter(c -> c instanceof SupervisorCheck)
        .map(c -> (SupervisorCheck) c).flatMap(c -> c.claim(text, ASAN_LIBRARY).stream())
        .findFirst().orElseThrow();
    Cause.Contract cause = (Cause.Contract) claim.cause();
    assertEquals("AddressSanitizer: stack-buffer-overflow", cause.rule());
    assertTrue(cause.subject().endsWith("sanitizer_ops.cpp:80"), cause.subject());
    assertEquals(AddressSanitizerCheck.ID, BuiltinChecks.supervising(cause).id());
    String root = fact(claim, "root cause");
    assertTrue(root.startsWith("AddressSanitizer: stack-buffer-overflow") && root.endsWith("in window_of_pairs"), root);
    assertTrue(fact(claim, "at").endsWith("sanitizer_ops.cpp:80 in window_of_pairs"), fact(claim, "at"));
  }

  @Test
  void aUbsanReportIsItsMessagesKindAtItsOwnLocation() throws IOException {
    List<SanitizerReport> reports = SanitizerReport.in(log("ubsan-signed-overflow.log"));
    assertEquals(2, reports.size(), "two reports, each ending with its stack");
    for (SanitizerReport r : reports) {
      assertEquals(Sanitizer.UNDEFINED, r.sanitizer());
      assertEquals("signed integer overflow", r.kind());
      SanitizerReport.Frame at = r.inLibrary(List.of("libsanitizer_ops_asan.so")).orElseThrow();
      assertEquals("bit_hash_signed", at.function());
      assertTrue(at.where().endsWith("sanitizer_ops.cpp:198"), at.where());
    }
    SupervisorCheck.Claim claim = new UndefinedBehaviorCheck().claim(log("ubsan-signed-overflow.log"), List.of())
        .orElseThrow();
    // shrinking compares causes: the kind and the line, not the values in the message
    assertEquals(new Cause.Contract("UndefinedBehaviorSanitizer: signed integer overflow",
        reports.get(0).inLibrary(List.of()).orElseThrow().where()), claim.cause());
    assertTrue(new AddressSanitizerCheck().claim(log("ubsan-signed-overflow.log"), List.of()).isEmpty());
  }

  @Test
  void aTsanReportNamesBothAccessesAndTheLineInTheLibrary() throws IOException {
    SanitizerReport r = SanitizerReport.in(log("tsan-data-race.log")).get(0);
    assertEquals(Sanitizer.THREAD, r.sanitizer());
    assertEquals("data race", r.kind());
    assertEquals("read of size 8 by thread T18; previous write of size 8 by thread T17", r.access().orElseThrow());
    SanitizerReport.Frame at = r.inLibrary(List.of("libsanitizer_ops_tsan.so")).orElseThrow();
    assertEquals("operator()", at.function());
    assertTrue(at.where().endsWith("sanitizer_ops.cpp:239"), at.where());
    assertTrue(r.summary().startsWith("ThreadSanitizer: data race "), r.summary());
  }

  @Test
  void framesAreReadInEachFormat() {
    SanitizerReport.Frame asan = SanitizerReport.frame("0x7f in f(int) /src/a.cpp:12 </lib/libx.so>");
    assertEquals(new SanitizerReport.Frame("f(int)", "/src/a.cpp", 12, "/lib/libx.so"), asan);
    SanitizerReport.Frame noSource = SanitizerReport.frame("0x7f  (/lib/libjnitorch.so+0x1440899) </lib/libjnitorch.so>");
    assertEquals(null, noSource.file());
    assertEquals("/lib/libjnitorch.so", noSource.module());
    SanitizerReport.Frame tsan = SanitizerReport.frame("operator() /src/a.cpp:239 (libx.so+0x49ca)");
    assertEquals(new SanitizerReport.Frame("operator()", "/src/a.cpp", 239, "libx.so"), tsan);
    SanitizerReport.Frame plain = SanitizerReport.frame("0x7f in vec_over /tmp/lib.cpp:5");
    assertEquals(new SanitizerReport.Frame("vec_over", "/tmp/lib.cpp", 5, null), plain);
  }
}
