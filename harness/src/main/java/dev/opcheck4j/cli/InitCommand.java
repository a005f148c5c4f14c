package dev.opcheck4j.cli;

import dev.opcheck4j.run.link.FoundExample;
import dev.opcheck4j.run.worker.ExampleSearch;
import dev.opcheck4j.run.Launcher;
import dev.opcheck4j.run.plan.LibraryInfo;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.spec.SpecSkeleton;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code init}: a spec skeleton (YAML) for every op of a library, with an example synthesized from
 * each schema and accepted by the CPU kernel, or a comment saying why none was found.
 */
final class InitCommand implements Command {
  @Override
  public String name() {
    return "init";
  }

  @Override
  public String summary() {
    return "Writes a spec skeleton for every op of a library, with an example the cpu kernel accepts.";
  }

  @Override
  public String synopsis() {
    return "init --library LIB [--out FILE [--force]] [--seed N]";
  }

  @Override
  public List<RunOption<?>> options() {
    return List.of(RunOptions.LIBRARIES, RunOptions.OUT, RunOptions.FORCE, RunOptions.SEED);
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    if (args.all(RunOptions.LIBRARIES).size() != 1) {
      throw new UsageException("init takes exactly one --library LIB (and --out FILE to write the spec to a file)");
    }
    long seed = args.get(RunOptions.SEED);
    Path out = args.get(RunOptions.OUT);
    if (out != null && Files.exists(out) && !args.get(RunOptions.FORCE)) {
      throw new UsageException(out + " exists; init does not overwrite a spec you may have edited (give --force to)");
    }
    // the search calls the kernels: it runs in a worker, like every other call
    Launcher.Synthesized lib = Launcher.synthesize(args.all(RunOptions.LIBRARIES).get(0), seed);
    List<SpecSkeleton.Entry> entries = new ArrayList<>();
    int found = 0;
    for (int k = 0; k < lib.library().ops().size(); k++) {
      LibraryInfo.Op op = lib.library().ops().get(k);
      FoundExample f = lib.found().get(k);
      found += f.example().isPresent() ? 1 : 0;
      entries.add(new SpecSkeleton.Entry(op.name(), op.schema().toString(), f.example(), f.note()));
    }
    Path libPath = lib.library().path().toAbsolutePath().normalize();
    String library = libPath.toString();
    if (out != null) {
      Path folder = out.toAbsolutePath().normalize().getParent();
      library = folder.relativize(libPath).toString();
    }
    String text = SpecSkeleton.yaml("opcheck4j spec for " + libPath.getFileName() + ", written by ./opcheck init (seed "
        + seed + ").\nEach example was synthesized from the op's schema and accepted by the cpu kernel: edit them,"
        + " add more, and see docs/spec.md.", library, entries);
    if (out == null) {
      s.out().print(text);
    } else {
      Files.writeString(out, text);
      s.out().println("wrote " + out + ": " + entries.size() + " ops, " + found + " with an example");
    }
    return ExitCode.OK;
  }
}
