package dev.opcheck4j.api;

import java.util.List;
import java.util.Locale;

/**
 * The one message shape of a result (STYLE.md §5), for every front end that writes it as text (the
 * console, JUnit failure messages, the Markdown and Allure reports): a summary line
 * {@code OUTCOME [check] subject on devices (example)}, then one fact a line, keys aligned. A front
 * end chooses only how values are written ({@link Values}); the shape is the same everywhere.
 */
public final class ResultText {
  private ResultText() {}

  /** How a front end writes a fact's value after its aligned key. */
  @FunctionalInterface
  public interface Values {
    /** The values as they are. */
    Values AS_IS = (fact, indent) -> fact.value();

    /**
     * Values and names with their control characters visible ({@link TerminalText}), for text that a
     * terminal, a log or an XML file will carry; a value keeps its line breaks.
     */
    Values VISIBLE = new Values() {
      @Override
      public String show(Fact fact, String indent) {
        return TerminalText.visible(fact.value(), true);
      }

      @Override
      public String name(String text) {
        return TerminalText.visible(text);
      }
    };

    /**
     * The text of {@code fact}'s value.
     *
     * @param indent what a continuation line starts with to stay under the value
     */
    String show(Fact fact, String indent);

    /**
     * The text of a name in the summary line: the subject, a device, the example (an op name, a
     * library or spec file, a spec's own words); as it is unless a front end escapes it.
     */
    default String name(String text) {
      return text;
    }
  }

  /** {@code FAILED [check] op on device (example)}: the op and device of the result. */
  public static String summaryLine(CheckResult r) {
    return summaryLine(r, r.op(), r.deviceOrNull() == null ? List.of() : List.of(r.device()));
  }

  /**
   * {@code FAILED [check] subject on devices (example)}.
   *
   * @param subject what the result is about: its op, or the library for a library-scope result
   * @param devices the devices it happened on; none for a check that runs on no device
   */
  public static String summaryLine(CheckResult r, String subject, List<String> devices) {
    return summaryLine(r, subject, devices, Values.AS_IS);
  }

  private static String summaryLine(CheckResult r, String subject, List<String> devices, Values values) {
    return r.outcome().label().toUpperCase(Locale.ROOT) + " " + title(r, subject, devices, values);
  }

  /** {@code [check] subject on devices (example)}: the summary line without the outcome, a test's title. */
  public static String title(CheckResult r, String subject, List<String> devices) {
    return title(r, subject, devices, Values.AS_IS);
  }

  private static String title(CheckResult r, String subject, List<String> devices, Values values) {
    StringBuilder sb = new StringBuilder();
    sb.append('[').append(r.check()).append("] ").append(values.name(subject));
    if (!devices.isEmpty()) {
      sb.append(" on ").append(String.join(", ", devices.stream().map(values::name).toList()));
    }
    if (r.runtime() != null) {
      sb.append(devices.isEmpty() ? " on libtorch " : " with libtorch ").append(values.name(r.runtime()));
    }
    if (!r.example().equals(CheckResult.NONE)) {
      sb.append(" (").append(values.name(r.example())).append(')');
    }
    return sb.toString();
  }

  /**
   * The summary line and the facts, control characters visible: the text of a test failure or a
   * console line, which a terminal, a log or the JUnit XML carries.
   */
  public static String render(CheckResult r) {
    return render(r, r.op(), r.deviceOrNull() == null ? List.of() : List.of(r.device()), Values.VISIBLE);
  }

  /**
   * The summary line for {@code subject} on {@code devices}, its names written by {@code values}, and
   * the facts with their values written by {@code values}.
   */
  public static String render(CheckResult r, String subject, List<String> devices, Values values) {
    List<Fact> facts = r.facts();
    if (r.outcome() == Outcome.EXPECTED_FAILURE) {
      // why it passes the run, under what it found
      facts = new java.util.ArrayList<>(facts);
      facts.add(new Fact("expected failure", r.expectation().reason() + " (" + r.expectation().location() + ")"));
    }
    return summaryLine(r, subject, devices, values) + facts(facts, "\n  ", values);
  }

  /**
   * The facts, each as {@code key : value} with the keys padded to one width, each preceded by
   * {@code before} (for example a line break and a margin).
   */
  public static String facts(List<Fact> facts, String before, Values values) {
    int width = facts.stream().mapToInt(f -> f.key().length()).max().orElse(0);
    String indent = " ".repeat(before.replace("\n", "").length() + width + 3);
    StringBuilder sb = new StringBuilder();
    for (Fact f : facts) {
      sb.append(before).append(f.key()).append(" ".repeat(width - f.key().length())).append(" : ")
          .append(values.show(f, indent));
    }
    return sb.toString();
  }
}
