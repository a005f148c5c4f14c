package dev.opcheck4j.run.link;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lines a worker of a sanitized library writes to its stderr before each unit, so that the parent
 * knows which unit printed what follows: a sanitizer writes its report to the same stderr, in the thread
 * that found the defect, before that unit ends. Each mark is one line of its own.
 */
public final class UnitMarks {
  /** The system property that asks a worker for its marks. */
  public static final String PROPERTY = "opcheck4j.unitMarks";
  private static final String PREFIX = "==opcheck4j== unit ";
  private static final Pattern MARK = Pattern.compile("(?m)^" + Pattern.quote(PREFIX) + "(\\d+)$");

  private UnitMarks() {}

  /** The mark before unit {@code id}. */
  public static String line(long id) {
    return PREFIX + id;
  }

  /**
   * What {@code log} (a worker's output) holds after each mark, by unit id, in the order written: from the
   * end of its mark to the next mark or the end. What comes before the first mark is under -1.
   */
  public static Map<Long, String> split(String log) {
    Map<Long, String> parts = new LinkedHashMap<>();
    Matcher m = MARK.matcher(log);
    long id = -1;
    int from = 0;
    while (m.find()) {
      parts.merge(id, log.substring(from, m.start()), String::concat);
      id = Long.parseLong(m.group(1));
      from = Math.min(log.length(), m.end() + 1);
    }
    parts.merge(id, log.substring(from), String::concat);
    return parts;
  }
}
