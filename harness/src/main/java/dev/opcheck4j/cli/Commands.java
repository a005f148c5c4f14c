package dev.opcheck4j.cli;

import java.util.List;
import java.util.Optional;

/** Every command of {@code ./opcheck}, in the order the usage lists them. */
final class Commands {
  private static final List<Command> ALL = List.of(new ListCommand(), new ChecksCommand(), new CheckCommand(),
      new InitCommand(), new ModelCommand(), new BaselineCommand(), new DemoCommand(), new MergeCommand(),
      new ReportCommand(), new BenchCommand(), new ExplainCommand());

  private Commands() {}

  static List<Command> all() {
    return ALL;
  }

  static Optional<Command> named(String name) {
    return ALL.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  static List<String> names() {
    return ALL.stream().map(Command::name).toList();
  }
}
