package dev.opcheck4j.cli;

import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.torch.SchemaBaseline;
import java.nio.file.Path;
import java.util.List;

/** {@code baseline}: records the schemas a library registers, for {@code check --baseline} (docs/baseline.md). */
final class BaselineCommand implements Command {
  @Override
  public String name() {
    return "baseline";
  }

  @Override
  public String summary() {
    return "Records the schemas a library registers, to check a later version against with --baseline.";
  }

  @Override
  public String synopsis() {
    return "baseline --library LIB --out FILE";
  }

  @Override
  public List<RunOption<?>> options() {
    return List.of(RunOptions.LIBRARIES, RunOptions.OUT);
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    Path out = args.get(RunOptions.OUT);
    if (args.all(RunOptions.LIBRARIES).size() != 1 || out == null) {
      throw new UsageException("baseline takes exactly one --library LIB and --out FILE");
    }
    // loading the library runs its code: the worker records the baseline, this process writes it
    SchemaBaseline baseline = Launcher.baseline(args.all(RunOptions.LIBRARIES).get(0));
    baseline.write(out);
    s.out().println("baseline of " + baseline.library() + ": " + baseline.ops().size() + " ops written to " + out);
    return ExitCode.OK;
  }
}
