package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.run.link.Death;
import dev.opcheck4j.run.link.Kernels;
import dev.opcheck4j.run.link.UnitMarks;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the units of one exchange printed, read from a sanitized worker's log unit by unit ({@link UnitMarks})
 * and asked of the supervisor checks ({@link CrashMeaning#said}): a sanitizer report is a death of the unit
 * that printed it. After a sanitizer that goes on (UBSan, TSan) the worker lives: the exchange ends at that
 * unit, and the answers of the units after it are dropped, as a death would have left them.
 */
final class UnitReports {
  /** At most this much of an exchange's output is read (a kernel that floods its output writes more). */
  private static final int MAX_BYTES = 4 << 20;

  private UnitReports() {}

  /**
   * {@code x}, which ended normally, ended instead at the first of its units whose output a check claims;
   * {@code x} itself when none printed a report.
   */
  static Kernels.Exchange afterEnd(Kernels.Exchange x, Path log, long mark, SanitizedWorkers sanitized,
      CrashMeaning meaning) {
    Map<Long, String> printed = UnitMarks.split(text(log, mark));
    for (Map.Entry<Long, String> unit : printed.entrySet()) {
      if (unit.getKey() < x.first()) {
        continue;
      }
      Optional<CrashMeaning.Said> said = meaning.said(unit.getValue(), sanitized.libraries());
      if (said.isPresent()) {
        long id = unit.getKey();
        Map<Long, Kernels.Done> before = new HashMap<>(x.answers());
        before.keySet().removeIf(k -> k >= id);
        List<Fact> facts = new ArrayList<>(said.get().facts());
        facts.add(Fact.of("worker output", "the full report is in " + log.toAbsolutePath()
            + "; the worker went on after it (the sanitizer does not stop)"));
        return new Kernels.Exchange(x.first(), before, Optional.of(new Death(said.get().cause(), said.get().message(),
            facts, Optional.empty(), id)));
      }
    }
    return x;
  }

  /**
   * What the unit in flight when a sanitized worker died printed, where a check claims it (an ASan report,
   * which ends the process): the last unit marked in the exchange's output.
   */
  static Optional<CrashMeaning.Said> inDeath(Path log, long mark, SanitizedWorkers sanitized, CrashMeaning meaning) {
    Map<Long, String> printed = UnitMarks.split(text(log, mark));
    String last = "";
    for (String s : printed.values()) {
      last = s;
    }
    return meaning.said(last, sanitized.libraries());
  }

  /**
   * What a worker's death was: a sanitizer's report is the claiming check's finding; a fault in a guard page the
   * step the worker {@code told} names, the check's that placed it (memory.bounds'); else the crash's own cause.
   */
  static Death death(CrashReport report, Path log, long unitMark, SanitizedWorkers sanitized, CrashMeaning meaning,
      String told, Optional<String> lastStep) {
    Optional<CrashMeaning.Said> said = sanitized.any() ? inDeath(log, unitMark, sanitized, meaning) : Optional.empty();
    if (said.isPresent()) {
      return new Death(said.get().cause(), said.get().message(), facts(said.get(), report.facts(), log), lastStep,
          Death.UNKNOWN, false);
    }
    return new Death(report.faultAddress().flatMap(a -> meaning.fault(a, told)).orElse(report.cause()), report.message(),
        report.facts(), lastStep, Death.UNKNOWN, report.offUnitThread());
  }

  /** The facts of a death a check claimed: its own, then the crash's, without the crash's root cause (the log's tail). */
  static List<Fact> facts(CrashMeaning.Said said, List<Fact> crash, Path log) {
    List<Fact> facts = new ArrayList<>(said.facts());
    for (Fact f : crash) {
      if (f.key().equals("worker output")) {
        facts.add(Fact.of("worker output", "the full report is in " + log.toAbsolutePath()));
      } else if (!f.key().equals("root cause")) {
        facts.add(f);
      }
    }
    return facts;
  }

  /** The log from {@code mark} to its end (its last {@link #MAX_BYTES} when longer). */
  private static String text(Path log, long mark) {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long from = Math.max(mark, f.length() - MAX_BYTES);
      byte[] buf = new byte[(int) Math.max(0, f.length() - from)];
      f.seek(from);
      f.readFully(buf);
      return new String(buf, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }
}
