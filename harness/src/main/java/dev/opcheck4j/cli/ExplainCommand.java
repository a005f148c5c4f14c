package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.checks.builtin.BuiltinChecks;
import dev.opcheck4j.checks.Check;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code explain CHECK}: what one check asserts, from its metadata, then its doc page (why it matters,
 * the known-bad op, the fix), so a failure's id leads to its explanation without leaving the terminal.
 */
final class ExplainCommand implements Command {
  @Override
  public String name() {
    return "explain";
  }

  @Override
  public String summary() {
    return "what one check asserts, its severity and prerequisites, and its doc page";
  }

  @Override
  public String synopsis() {
    return "explain CHECK";
  }

  @Override
  public int operands() {
    return 1;
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws UsageException, IOException {
    List<String> ids = BuiltinChecks.all().stream().map(Check::id).toList();
    if (args.operands().isEmpty()) {
      throw new UsageException("explain takes a check id (./opcheck checks lists them)");
    }
    String id = args.operands().get(0);
    Check check = BuiltinChecks.byId(id).orElseThrow(() -> new UsageException("unknown check '" + id + "'"
        + didYouMean(id, ids) + " (./opcheck checks lists them)"));
    CheckInfo i = check.info();
    s.out().println(i.id() + " (" + i.severity().label() + ", " + i.scope().name().toLowerCase(Locale.ROOT)
        + (i.generated() ? ", also on generated inputs" : "") + "): " + i.summary());
    if (!i.requires().isEmpty()) {
      s.out().println("runs when these passed first: " + String.join(", ", i.requires()));
    }
    Path doc = s.home().resolve(i.doc());
    if (Files.isRegularFile(doc)) {
      s.out().println();
      s.out().print(Files.readString(doc));
    } else {
      s.out().println("doc page: " + i.doc() + " (not found under " + s.home() + ")");
    }
    return ExitCode.OK;
  }

  /**
   * The nearest id by edit distance, else the ids that start with what was typed: a shortened id
   * ({@code fake.meta}) or a family ({@code fake}) is too far from any full id to be a typo of one.
   */
  static String didYouMean(String typed, List<String> ids) {
    String near = Suggestions.didYouMean(typed, ids);
    if (!near.isEmpty()) {
      return near;
    }
    List<String> longer = ids.stream().filter(i -> i.startsWith(typed)).toList();
    return longer.isEmpty() ? "" : "; did you mean " + (longer.size() == 1 ? longer.get(0)
        : "one of " + String.join(", ", longer)) + "?";
  }
}
