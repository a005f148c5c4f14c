package dev.opcheck4j.checks;

import dev.opcheck4j.api.CheckInfo;
import java.util.List;

/** The checks catalog reports carry: each check's metadata as {@link CheckInfo}. */
public final class CheckCatalog {
  private CheckCatalog() {}

  public static CheckInfo info(Check c) {
    return new CheckInfo(c.id(), c.family(), c.summary(), c.severity(), CheckInfo.docPage(c.id()));
  }

  /** Every built-in check, in registry order. */
  public static List<CheckInfo> builtin() {
    return BuiltinChecks.all().stream().map(CheckCatalog::info).toList();
  }
}
