package dev.opcheck4j.run;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Fact;

/** Renders a result in the one message shape of STYLE.md: a summary line, then aligned facts. */
public final class ResultText {
  private ResultText() {}

  public static String summaryLine(CheckResult r) {
    StringBuilder sb = new StringBuilder();
    sb.append(r.outcome().label().toUpperCase(java.util.Locale.ROOT)).append(' ');
    sb.append('[').append(r.check()).append("] ").append(r.op());
    if (!r.device().equals(CheckResult.NONE)) {
      sb.append(" on ").append(r.device());
    }
    if (!r.example().equals(CheckResult.NONE)) {
      sb.append(" (").append(r.example()).append(')');
    }
    return sb.toString();
  }

  public static String render(CheckResult r) {
    StringBuilder sb = new StringBuilder(summaryLine(r));
    int width = r.facts().stream().mapToInt(f -> f.key().length()).max().orElse(0);
    for (Fact f : r.facts()) {
      sb.append('\n').append("  ").append(f.key());
      sb.append(" ".repeat(width - f.key().length())).append(" : ").append(f.value());
    }
    return sb.toString();
  }
}
