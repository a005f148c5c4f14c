package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Severity;
import java.util.List;

/**
 * What a check declares about itself in its constructor: everything of its {@link CheckInfo} but
 * the scope, which its type says ({@link Check#scope()}).
 */
public record Declaration(
    String id, String summary, Severity severity, List<String> requires, boolean generated, boolean costly,
    int triesCap) {
  public Declaration {
    requires = List.copyOf(requires);
  }

  /** A check whose findings are failures, with no prerequisites, on the examples only. */
  public static Declaration error(String id, String summary) {
    return new Declaration(id, summary, Severity.ERROR, List.of(), false, false, 0);
  }

  /** A check whose findings are warnings, with no prerequisites, on the examples only. */
  public static Declaration warning(String id, String summary) {
    return new Declaration(id, summary, Severity.WARNING, List.of(), false, false, 0);
  }

  /**
   * A check whose findings are notes (stricter than PyTorch and harmless in today's PyTorch; a strict run
   * makes them warnings), with no prerequisites, on the examples only.
   */
  public static Declaration note(String id, String summary) {
    return new Declaration(id, summary, Severity.NOTE, List.of(), false, false, 0);
  }

  /** The same, with these prerequisites. */
  public Declaration requires(String... ids) {
    return new Declaration(id, summary, severity, List.of(ids), generated, costly, triesCap);
  }

  /** The same, also run on generated inputs. */
  public Declaration onGeneratedInputs() {
    return new Declaration(id, summary, severity, requires, true, costly, triesCap);
  }

  /**
   * The same, also run on generated inputs, on at most {@code cap} of them per op and device (the first ones):
   * its calls cost much beside what it finds on generated inputs (docs/performance.md, "What each check costs and
   * finds on generated inputs", the table the caps come from).
   */
  public Declaration onGeneratedInputs(int cap) {
    return new Declaration(id, summary, severity, requires, true, costly, cap);
  }

  /** The same, also run on generated inputs, but only on a tenth of them (at least 3): each call is costly. */
  public Declaration onAFewGeneratedInputs() {
    return new Declaration(id, summary, severity, requires, true, true, triesCap);
  }

  CheckInfo info(CheckInfo.Scope scope) {
    return new CheckInfo(id, summary, scope, severity, requires, generated, costly, triesCap);
  }
}
