package dev.opcheck4j.reporting;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The notes' one console line: each check with the ops it noted, most first, and how to see or promote them. */
class NoteCountsTests {
  private static CheckResult result(String op, String check, String device, Outcome outcome) {
    return new CheckResult(op, check, device, "#0", outcome, List.of(), 0);
  }

  @Test
  void eachCheckIsCountedByOpsMostFirstInOneLine() {
    NoteCounts notes = NoteCounts.of(List.of(
        result("ns::a", "memory.cow-input", "cpu", Outcome.NOTE),
        result("ns::a", "trace.specialization", "cpu", Outcome.NOTE),
        result("ns::a", "trace.specialization", "cuda", Outcome.NOTE), // one op, two devices: counted once
        result("ns::b", "trace.specialization", "cpu", Outcome.NOTE),
        result("ns::c", "trace.specialization", "cpu", Outcome.WARNING), // a warning is not a note
        result("ns::d", "schema.types", "cpu", Outcome.PASSED)));
    assertEquals(Optional.of("note: trace.specialization on 2 of 4 ops, memory.cow-input on 1 (--strict makes notes"
        + " warnings; the reports list them)"), notes.line("--strict", "the reports list them"));
  }

  @Test
  void aRunWithoutNotesHasNoLine() {
    assertEquals(Optional.empty(), NoteCounts.of(List.of(result("ns::a", "schema.types", "cpu", Outcome.WARNING)))
        .line("--strict", "the reports list them"));
  }
}
