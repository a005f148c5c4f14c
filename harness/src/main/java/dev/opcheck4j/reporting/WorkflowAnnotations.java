package dev.opcheck4j.reporting;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.NumberText;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * GitHub Actions annotations of a run's failures ({@code GITHUB_ACTIONS=true}): one
 * {@code ::error file=<spec>,line=<line>,title=<check>::<message>} workflow command per failing
 * (op, check), at the line of the example when the result is about one, else of the op's entry. GitHub
 * shows at most {@link #LIMIT} error annotations of a step, so no more are printed, and one line says
 * how many were left out and where they all are. The command line's {@code check} and the JUnit engine
 * both print these.
 */
public final class WorkflowAnnotations {
  public static final int LIMIT = 10;
  /** A message longer than this is cut: an annotation is a pointer into the reports, not the report. */
  static final int MESSAGE_LIMIT = 1000;

  private final Map<String, Location> examples = new LinkedHashMap<>();
  private final Map<String, Location> ops = new LinkedHashMap<>();
  private final Map<String, Location> libraries = new LinkedHashMap<>();

  /** Where a result points: a file and a 1-based line. */
  record Location(Path file, int line) {}

  private WorkflowAnnotations() {}

  /** Whether this process runs as a GitHub Actions step. */
  public static boolean wanted(UnaryOperator<String> env) {
    return "true".equalsIgnoreCase(env.apply("GITHUB_ACTIONS"));
  }

  /**
   * The lines of examples and op entries in {@code specs}, as their run read them (each value knows where
   * it was written), each spec named in the annotations by {@code shown} applied to the file it was read
   * from (the path the command line gave, or the file in the repository that the spec read at run time
   * was copied from).
   */
  public static WorkflowAnnotations of(List<SpecReader.Parsed> specs, UnaryOperator<Path> shown) {
    WorkflowAnnotations a = new WorkflowAnnotations();
    for (SpecReader.Parsed read : specs) {
      Path spec = shown.apply(read.file().file());
      Map<String, SpecValue> top = read.tree().object();
      int library = line(top.get("library").location());
      a.libraries.putIfAbsent(read.file().library().getFileName().toString(), new Location(spec, Math.max(library, 1)));
      List<SpecValue> entries = top.get("ops").list();
      for (int i = 0; i < entries.size(); i++) {
        OpSpec op = read.file().ops().get(i);
        int at = line(entries.get(i).object().get("op").location());
        if (at > 0) {
          a.ops.putIfAbsent(op.op(), new Location(spec, at));
        }
        for (Example e : op.examples()) {
          int example = line(e.location());
          if (example > 0) {
            a.examples.put(e.ref(), new Location(spec, example));
          }
        }
      }
    }
    return a;
  }

  /** The annotation lines for {@code results}: at most {@link #LIMIT}, and a last line on the rest. */
  public List<String> lines(List<CheckResult> results) {
    Map<String, CheckResult> first = new LinkedHashMap<>();
    for (CheckResult r : results) {
      if (r.outcome().failsRun() || r.outcome() == Outcome.ERRORED) {
        first.putIfAbsent(r.op() + "\u0000" + r.check() + "\u0000" + r.outcome(), r);
      }
    }
    List<String> lines = new ArrayList<>();
    for (CheckResult r : first.values()) {
      if (lines.size() == LIMIT) {
        break;
      }
      Location at = r.library() != null ? libraries.get(Path.of(r.library()).getFileName().toString())
          : examples.getOrDefault(r.example(), ops.get(r.op()));
      StringBuilder sb = new StringBuilder("::error ");
      if (at != null) {
        sb.append("file=").append(property(at.file().toString())).append(",line=").append(at.line()).append(',');
      }
      sb.append("title=").append(property(r.check())).append("::").append(data(message(r)));
      lines.add(sb.toString());
    }
    if (first.size() > LIMIT) {
      lines.add("opcheck: " + (first.size() - LIMIT) + " more failing (op, check) pairs were not annotated"
          + " (GitHub shows " + LIMIT + " error annotations per step); every failure is in the console above and the reports");
    }
    return lines;
  }

  private static String message(CheckResult r) {
    String subject = r.library() != null ? Path.of(r.library()).getFileName().toString() : r.op();
    String text = NumberText.roundAll(ResultText.render(r, subject, r.deviceOrNull() == null ? List.of() : List.of(r.device()),
        ResultText.Values.VISIBLE));
    return text.length() <= MESSAGE_LIMIT ? text : text.substring(0, MESSAGE_LIMIT) + "… (cut; the whole finding is in the reports)";
  }

  /** The line of {@code file:line:column}, or 0 when the location has none. */
  private static int line(String location) {
    String[] parts = location.split(":");
    if (parts.length < 3) {
      return 0;
    }
    try {
      return Integer.parseInt(parts[parts.length - 2]);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** A workflow command's message: GitHub decodes these three, and a line break would end the command. */
  private static String data(String s) {
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
  }

  /** A workflow command's property value: also its separators. */
  private static String property(String s) {
    return data(s).replace(":", "%3A").replace(",", "%2C");
  }
}
