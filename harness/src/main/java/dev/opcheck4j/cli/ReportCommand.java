package dev.opcheck4j.cli;

import dev.opcheck4j.api.ReportGenerator;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;

/** {@code report NAME DIR}: a report a {@link ReportGenerator} makes from a report dir (Allure's HTML). */
final class ReportCommand implements Command {
  @Override
  public String name() {
    return "report";
  }

  @Override
  public String summary() {
    return "Allure HTML from DIR/allure-results into DIR/allure-report.";
  }

  @Override
  public String synopsis() {
    return "report allure DIR";
  }

  @Override
  public int operands() {
    return Integer.MAX_VALUE;
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    List<String> words = args.operands();
    List<String> names = ServiceLoader.load(ReportGenerator.class).stream().map(p -> p.get().name()).toList();
    if (words.size() != 2 || !names.contains(words.get(0))) {
      String typed = words.isEmpty() ? "" : words.get(0);
      throw new UsageException("report takes NAME DIR with NAME one of " + String.join(", ", names)
          + (typed.isEmpty() || names.contains(typed) ? "" : Suggestions.didYouMean(typed, names))
          + " (e.g. ./opcheck report allure reports/out)");
    }
    for (ReportGenerator g : ServiceLoader.load(ReportGenerator.class)) {
      if (g.name().equals(words.get(0))) {
        try {
          s.out().println("report (" + g.name() + "): " + g.generate(Path.of(words.get(1)), s.home()));
        } catch (IllegalArgumentException e) {
          throw new UsageException(e.getMessage());
        }
      }
    }
    return ExitCode.OK;
  }
}
