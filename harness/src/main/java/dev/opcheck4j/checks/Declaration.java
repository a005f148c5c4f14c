package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.Severity;
import java.util.List;

/**
 * What a check declares about itself in its constructor: everything of its {@link CheckInfo} but
 * the scope, which its type says ({@link Check#scope()}).
 */
public record Declaration(
    String id, String summary, Severity severity, List<String> requires, boolean generated, boolean costly) {
  public Declaration {
    requires = List.copyOf(requires);
  }

  /** A check whose findings are failures, with no prerequisites, on the examples only. */
  public static Declaration error(String id, String summary) {
    return new Declaration(id, summary, Severity.ERROR, List.of(), false, false);
  }

  /** A check whose findings are warnings, with no prerequisites, on the examples only. */
  public static Declaration warning(String id, String summary) {
    return new Declaration(id, summary, Severity.WARNING, List.of(), false, false);
  }

  /**
   * A check whose findings are notes (stricter than PyTorch and harmless in today's PyTorch; a strict run
   * makes them warnings), with no prerequisites, on the examples only.
   */
  public static Declaration note(String id, String summary) {
    return new Declaration(id, summary, Severity.NOTE, List.of(), false, false);
  }

  /** The same, with these prerequisites. */
  public Declaration requires(String... ids) {
    return new Declaration(id, summary, severity, List.of(ids), generated, costly);
  }

  /** The same, also run on generated inputs. */
  public Declaration onGeneratedInputs() {
    return new Declaration(id, summary, severity, requires, true, costly);
  }

  /** The same, also run on generated inputs, but only on a tenth of them (at least 3): each call is costly. */
  public Declaration onAFewGeneratedInputs() {
    return new Declaration(id, summary, severity, requires, true, true);
  }

  CheckInfo info(CheckInfo.Scope scope) {
    return new CheckInfo(id, summary, scope, severity, requires, generated, costly);
  }
}
