package dev.opcheck4j.cli;

import dev.opcheck4j.run.plan.RunOption;
import java.util.List;

/**
 * One {@code ./opcheck} command. {@link Commands} lists them in order; dispatch, {@code --help},
 * {@code COMMAND --help} and "did you mean" read that list.
 */
interface Command {
  /** The word that selects it ({@code check}). */
  String name();

  /** What it does, one line, for {@code COMMAND --help}. */
  String summary();

  /** Its usage after {@code opcheck }, as {@code --help} shows it: {@code list --library LIB}. */
  String synopsis();

  /** The options it takes, rows of {@link dev.opcheck4j.run.plan.RunOptions}, in the order its help lists them; none by default. */
  default List<RunOption<?>> options() {
    return List.of();
  }

  /** How many words that are no option it takes (a model file, report dirs); more are usage errors. */
  default int operands() {
    return 0;
  }

  /**
   * Runs the command.
   *
   * @throws UsageException for a command line that cannot run (exit code 2, one line)
   */
  ExitCode run(Arguments args, Session session) throws Exception;
}
