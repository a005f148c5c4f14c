package dev.opcheck4j.checks.builtin;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.api.CheckInfo;
import java.util.List;

/** The checks catalog reports carry: every built-in check's metadata, in registry order. */
public final class CheckCatalog {
  private CheckCatalog() {}

  public static List<CheckInfo> builtin() {
    return BuiltinChecks.all().stream().map(Check::info).toList();
  }
}
