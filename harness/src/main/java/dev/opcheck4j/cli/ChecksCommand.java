package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import java.util.List;
import java.util.Locale;

/** {@code checks}: every built-in check, in registry order, with its severity and summary (from its metadata). */
final class ChecksCommand implements Command {
  @Override
  public String name() {
    return "checks";
  }

  @Override
  public String summary() {
    return "lists every built-in check with its severity, scope and summary";
  }

  @Override
  public String synopsis() {
    return "checks";
  }

  @Override
  public ExitCode run(Arguments args, Session s) {
    int width = BuiltinChecks.all().stream().mapToInt(c -> c.id().length()).max().orElse(2);
    s.out().printf("%-" + width + "s  %-8s %-10s %s%n", "check", "severity", "scope", "summary");
    for (Check c : BuiltinChecks.all()) {
      CheckInfo i = c.info();
      boolean alsoGenerated = i.generated() && i.scope() != CheckInfo.Scope.GENERATED;
      s.out().printf("%-" + width + "s  %-8s %-10s %s%s%n", i.id(), i.severity().label(),
          i.scope().name().toLowerCase(Locale.ROOT), i.summary(), alsoGenerated ? " (also on generated inputs)" : "");
    }
    return ExitCode.OK;
  }
}
