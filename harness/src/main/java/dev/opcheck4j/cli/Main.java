package dev.opcheck4j.cli;

import dev.opcheck4j.run.plan.Interruption;
import dev.opcheck4j.run.plan.Versions;
import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.torch.LibraryLoadException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import sun.misc.Signal;

/**
 * The {@code ./opcheck} command line: finds the command in {@link Commands}, reads its options from
 * the rows of {@link dev.opcheck4j.run.plan.RunOptions}, runs it and maps what went wrong to an exit code.
 */
public final class Main {
  private final PrintStream out;
  private final PrintStream err;
  private final Path home;
  private final UnaryOperator<String> env;
  private final Interruption stop = new Interruption();

  /** A CLI writing to {@code out}/{@code err}, with {@code home} the repository root (for demo). */
  public Main(PrintStream out, PrintStream err, Path home) {
    this(out, err, home, System::getenv);
  }

  /** A CLI that reads environment variables through {@code env} (tests give a map's {@code get}). */
  public Main(PrintStream out, PrintStream err, Path home, UnaryOperator<String> env) {
    this.out = out;
    this.err = err;
    this.home = home;
    this.env = env;
  }

  public static void main(String[] args) {
    Path home = Path.of(System.getProperty("opcheck4j.home", ".")).toAbsolutePath().normalize();
    Main cli = new Main(System.out, System.err, home);
    cli.onSignals();
    int code = cli.run(args).code();
    System.out.flush();
    System.exit(code);
  }

  /** Runs one command line and returns its exit code; never throws. */
  public ExitCode run(String... args) {
    try {
      if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
        out.println(Usage.overview());
        return args.length == 0 ? ExitCode.INPUT_ERROR : ExitCode.OK;
      }
      if (args[0].equals("--version") || args[0].equals("-V")) {
        return version();
      }
      Command command = command(args[0]);
      List<String> rest = List.of(args).subList(1, args.length);
      if (rest.contains("--help") || rest.contains("-h")) {
        out.println(Usage.of(command));
        return ExitCode.OK;
      }
      return command.run(Arguments.parse(command, rest, commandLine(args)), new Session(out, err, home, stop, env));
    } catch (UsageException | LibraryLoadException | SpecException e) {
      err.println("opcheck: " + e.getMessage());
      return ExitCode.INPUT_ERROR;
    } catch (Exception | LinkageError e) {
      err.println("opcheck: harness error: " + e);
      if (System.getenv("OPCHECK4J_DEBUG") != null) {
        e.printStackTrace(err);
      }
      return ExitCode.HARNESS_ERROR;
    }
  }

  /**
   * SIGINT and SIGTERM: the first stops a run that is under way, which then writes its reports from
   * what it has and exits 130 or 143; a second, or one when no run is under way, exits at once (the
   * workers are killed on the way out).
   */
  private void onSignals() {
    for (String name : List.of("INT", "TERM")) {
      Signal.handle(new Signal(name), signal -> {
        int code = 128 + signal.getNumber();
        if (!stop.watched() || !stop.request("SIG" + signal.getName())) {
          System.exit(code);
        }
      });
    }
  }

  /** The command named {@code word}, or a usage error with the closest name. */
  private static Command command(String word) throws UsageException {
    var found = Commands.named(word);
    if (found.isPresent()) {
      return found.get();
    }
    if (word.startsWith("-")) {
      throw new UsageException("unknown option '" + word + "'"
          + Suggestions.didYouMean(word, List.of("--version", "--help")) + " (see --help)");
    }
    List<String> names = Commands.names();
    List<String> known = new ArrayList<>(names);
    known.add("help");
    String hint = Suggestions.didYouMean(word, known);
    throw new UsageException("unknown command '" + word + "'" + (hint.isEmpty()
        ? "; expected " + String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1)
        : hint));
  }

  private ExitCode version() {
    Versions v = Versions.current();
    out.println("opcheck4j " + v.tool());
    out.println("libtorch " + v.torch() + " (JavaCPP presets " + v.presets() + ")");
    return ExitCode.OK;
  }

  /** The command line as typed, for the reports' run block (arguments with spaces quoted). */
  static String commandLine(String[] args) {
    StringBuilder sb = new StringBuilder("./opcheck");
    for (String a : args) {
      sb.append(' ').append(a.isEmpty() || a.matches(".*[\\s'\"$`\\\\].*") ? "'" + a.replace("'", "'\\''") + "'" : a);
    }
    return sb.toString();
  }
}
