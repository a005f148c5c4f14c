package dev.opcheck4j.api;

import java.util.List;
import java.util.Objects;

/**
 * The line and branch coverage of one op's kernel, from a library built with gcov's coverage ({@code --coverage}):
 * the functions of the library that the op's calls ran, each with its source lines, and how many of those lines
 * and branches the examples ran, and the examples with the generated inputs.
 *
 * @param op the op; never null
 * @param library the library's file name; never null
 * @param examples what the examples alone ran (the spec's, or the one synthesized)
 * @param generated what the examples and the generated inputs ran together
 * @param functions each function the op ran, in source order; never null
 * @param note what the counts leave out (a worker that died in the middle of a phase), or null
 */
public record KernelLines(String op, String library, Tally examples, Tally generated, List<Function> functions,
    String note) {
  public KernelLines {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(library, "library");
    Objects.requireNonNull(examples, "examples");
    Objects.requireNonNull(generated, "generated");
    functions = List.copyOf(functions);
  }

  /**
   * Counts over the lines (and branches) of the functions the op ran.
   *
   * @param lines the lines holding code
   * @param linesRun those that ran at least once
   * @param branches the branch outcomes gcov counts
   * @param branchesTaken those taken at least once
   */
  public record Tally(int lines, int linesRun, int branches, int branchesTaken) {
    /** The percentage of lines run, to one decimal; 100 when there is no line. */
    public double linePercent() {
      return percent(linesRun, lines);
    }

    /** The percentage of branches taken, to one decimal; 100 when there is no branch. */
    public double branchPercent() {
      return percent(branchesTaken, branches);
    }

    private static double percent(int part, int whole) {
      return whole == 0 ? 100.0 : Math.round(1000.0 * part / whole) / 10.0;
    }
  }

  /**
   * A function the op ran.
   *
   * @param name its name, demangled
   * @param file its source file, as the library's debug information names it
   * @param lines its lines, from its first to its last
   */
  public record Function(String name, String file, List<Line> lines) {
    public Function {
      lines = List.copyOf(lines);
    }
  }

  /**
   * One source line.
   *
   * @param number its number in the file
   * @param text its text, or empty when the file could not be read
   * @param run whether and by what it ran
   */
  public record Line(int number, String text, Run run) {}

  /** Whether a line ran, and on which inputs first. */
  public enum Run {
    /** No code: a comment, a blank line, a declaration. */
    NO_CODE,
    /** Code no input ran. */
    NEVER,
    /** Code the examples ran. */
    EXAMPLES,
    /** Code only generated inputs ran. */
    GENERATED
  }
}
