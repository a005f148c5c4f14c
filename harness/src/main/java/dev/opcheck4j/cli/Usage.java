package dev.opcheck4j.cli;

import dev.opcheck4j.run.plan.RunOption;
import java.util.ArrayList;
import java.util.List;

/** The help texts, made from {@link Commands} and the rows of {@link dev.opcheck4j.run.plan.RunOptions}. */
final class Usage {
  static final String EXIT_CODES =
      "exit codes: 0 all passed, 1 a check failed, 2 usage/spec/library error, 3 harness error";

  private Usage() {}

  /** {@code opcheck --help}: every command's synopsis. */
  static String overview() {
    List<String> lines = new ArrayList<>();
    for (Command c : Commands.all()) {
      lines.add((lines.isEmpty() ? "usage: " : "       ") + "opcheck " + c.synopsis());
    }
    lines.add("       opcheck --version | COMMAND --help");
    lines.add(EXIT_CODES);
    return String.join("\n", lines);
  }

  /** {@code opcheck COMMAND --help}: its synopsis, what it does, and a line per option. */
  static String of(Command c) {
    List<String> lines = new ArrayList<>();
    lines.add("usage: opcheck " + c.synopsis());
    lines.add(c.summary());
    int width = c.options().stream().mapToInt(o -> label(o).length()).max().orElse(0);
    for (RunOption<?> o : c.options()) {
      lines.add("  " + String.format("%-" + width + "s", label(o)) + "  " + o.helpLine()
          + (o.repeatable() ? "; repeatable" : "") + (o.specKey() != null ? "; in a spec: \"" + o.specKey() + "\"" : ""));
    }
    lines.add(EXIT_CODES);
    return String.join("\n", lines);
  }

  private static String label(RunOption<?> o) {
    return o.isSwitch() ? o.flag() : o.flag() + " " + o.metavar();
  }
}
