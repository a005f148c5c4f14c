package dev.opcheck4j.cli;

import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import java.util.List;

/** {@code list --library LIB}: the ops a library registers, with schemas and the dispatch keys that have kernels. */
final class ListCommand implements Command {
  @Override
  public String name() {
    return "list";
  }

  @Override
  public String summary() {
    return "lists the ops a library registers, with their schemas and the dispatch keys that have kernels";
  }

  @Override
  public String synopsis() {
    return "list --library LIB";
  }

  @Override
  public List<RunOption<?>> options() {
    return List.of(RunOptions.LIBRARIES);
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    if (args.all(RunOptions.LIBRARIES).size() != 1) {
      throw new UsageException("list takes exactly one --library LIB");
    }
    LibraryInfo lib = Launcher.describe(args.all(RunOptions.LIBRARIES).get(0));
    for (LibraryInfo.Op op : lib.ops()) {
      s.out().println(HumanText.name(op.name()) + "\t" + HumanText.name(String.valueOf(op.schema()), HumanText.FACT_LIMIT) + "\t["
          + HumanText.name(String.join(", ", op.dispatchKeys())) + "]"
          + (op.tags().isEmpty() ? "" : "\ttags: " + HumanText.name(String.join(", ", op.tags()))));
    }
    for (String dangling : lib.dangling()) {
      s.out().println(HumanText.name(dangling) + "\t(no schema: implemented but never defined)");
    }
    return ExitCode.OK;
  }
}
