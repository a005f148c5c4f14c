package dev.opcheck4j.run.session;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.run.supervisor.CrashMeaning;
import java.util.List;
import java.util.Optional;

/** The built-in supervisor checks, asked in registry order what a crash means. */
public final class SupervisorChecks implements CrashMeaning {
  public static final SupervisorChecks BUILTIN = new SupervisorChecks(BuiltinChecks.all());

  private final List<SupervisorCheck> checks;

  SupervisorChecks(List<Check> checks) {
    this.checks = checks.stream().filter(c -> c instanceof SupervisorCheck).map(c -> (SupervisorCheck) c).toList();
  }

  @Override
  public Optional<Cause> fault(long address, String step) {
    return checks.stream().flatMap(c -> c.fault(address, step).stream()).findFirst();
  }

  @Override
  public Optional<Said> said(String output, List<String> libraries) {
    return checks.stream().flatMap(c -> c.claim(output, libraries).stream()).findFirst()
        .map(c -> new Said(c.cause(), c.message(), c.facts()));
  }

  @Override
  public String shown(String step) {
    String shown = step;
    for (SupervisorCheck c : checks) {
      shown = c.shown(shown);
    }
    return shown;
  }
}
