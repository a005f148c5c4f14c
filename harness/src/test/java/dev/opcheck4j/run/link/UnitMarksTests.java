package dev.opcheck4j.run.link;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A worker's output, split by the marks it wrote before each unit. */
class UnitMarksTests {
  @Test
  void whatFollowsAMarkBelongsToItsUnitUpToTheNextMark() {
    String log = "loading\n" + UnitMarks.line(4) + "\nfirst\n" + UnitMarks.line(5) + "\n" + UnitMarks.line(6)
        + "\nreport a\nreport b\n";
    assertEquals(Map.of(-1L, "loading\n", 4L, "first\n", 5L, "", 6L, "report a\nreport b\n"), UnitMarks.split(log));
  }

  @Test
  void aMarkInsideALineIsNoMark() {
    assertEquals(Map.of(-1L, "text " + UnitMarks.line(3) + "\n"), UnitMarks.split("text " + UnitMarks.line(3) + "\n"));
  }
}
