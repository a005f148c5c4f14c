package dev.opcheck4j.cli;

import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.torch.SchemaBaseline;
import dev.opcheck4j.run.link.Wire;
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
    return "Records the schemas a library registers (with --spec, also its outputs on the spec's examples),"
        + " to check a later version against with --baseline.";
  }

  @Override
  public String synopsis() {
    return "baseline (--library LIB | --spec SPEC [--library LIB] [--seed N]) --out FILE";
  }

  @Override
  public List<RunOption<?>> options() {
    return List.of(RunOptions.SPECS, RunOptions.LIBRARIES, RunOptions.SEED, RunOptions.OUT);
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    Path out = args.get(RunOptions.OUT);
    List<Path> specs = args.all(RunOptions.SPECS);
    List<Path> libraries = args.all(RunOptions.LIBRARIES);
    if (out == null || specs.size() > 1 || libraries.size() > 1 || specs.isEmpty() && libraries.isEmpty()) {
      throw new UsageException("baseline takes --out FILE and one --library LIB, or one --spec SPEC (and its --library)");
    }
    if (!specs.isEmpty()) {
      // the outputs go to a side file next to the baseline, named by it (docs/baseline.md)
      Launcher.Recording r = Launcher.record(specs.get(0), libraries.isEmpty() ? null : libraries.get(0),
          args.get(RunOptions.SEED));
      String name = out.getFileName().toString();
      String side = (name.endsWith(".json") ? name.substring(0, name.length() - 5) : name) + ".values.json";
      Path sideFile = out.toAbsolutePath().resolveSibling(side);
      SchemaBaseline baseline = r.schemas().withValues(side);
      baseline.write(out);
      java.nio.file.Files.writeString(sideFile, Wire.write(r.values()) + "\n");
      s.out().println("baseline of " + baseline.library() + ": " + baseline.ops().size() + " ops written to " + out
          + "; outputs of " + r.values().examples().size() + " examples to " + sideFile.getFileName());
      return ExitCode.OK;
    }
    // loading the library runs its code: the worker records the baseline, this process writes it
    SchemaBaseline baseline = Launcher.baseline(args.all(RunOptions.LIBRARIES).get(0));
    baseline.write(out);
    s.out().println("baseline of " + baseline.library() + ": " + baseline.ops().size() + " ops written to " + out);
    return ExitCode.OK;
  }
}
