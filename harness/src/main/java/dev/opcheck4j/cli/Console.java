package dev.opcheck4j.cli;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.api.Rerun;
import dev.opcheck4j.api.RunInfo;
import dev.opcheck4j.api.RunListener;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a run shows while it runs. On a terminal: one progress line (ops done / total, current op,
 * elapsed, failures so far) redrawn in place, and each finding's first word in colour (red for a
 * failure or harness error, yellow for a warning, cyan for a note shown by {@code --verbose}) unless {@code NO_COLOR} is set or {@code TERM} is
 * {@code dumb} or unset; in CI (no terminal, or {@code CI=true}): one plain line
 * per op finished. Either way, when an op finishes its findings print once per (op, check) with the
 * devices listed, numbers rounded for people, and the rerun line of the command line. Notes print only
 * with {@code --verbose}: the run's end counts them in one line.
 */
final class Console implements RunListener {
  private final PrintStream out;
  private final boolean progress;
  private final boolean verbose;
  private final boolean reportDir;
  private final boolean colour;
  private int total;
  private List<String> header = List.of();
  private final long started = System.nanoTime();
  private RunListener.OpEvent current;
  private final List<CheckResult> currentResults = new ArrayList<>();
  private int done;
  private int failures;
  private boolean lineDrawn;
  private long lastDraw;

  /**
   * @param progress redraw a progress line (a terminal) rather than print a line per op
   * @param reportDir whether the run writes its reports, where a value cut on the console is whole
   * @param total ops the run will check, or 0 when not known in advance
   */
  Console(PrintStream out, boolean progress, boolean verbose, boolean reportDir, int total) {
    this(out, progress, false, verbose, reportDir, total);
  }

  /** @param colour colour each finding's first word (ANSI SGR) */
  Console(PrintStream out, boolean progress, boolean colour, boolean verbose, boolean reportDir, int total) {
    this.out = out;
    this.progress = progress;
    this.colour = colour;
    this.verbose = verbose;
    this.reportDir = reportDir;
    this.total = total;
  }

  /** Whether this process writes to a terminal and is not in CI. */
  static boolean interactive() {
    return System.console() != null && !"true".equalsIgnoreCase(System.getenv("CI"));
  }

  /**
   * Whether a terminal with this environment shows colour: any {@code TERM} but {@code dumb}
   * ({@code xterm-256color}, {@code tmux-256color}, {@code screen}, {@code linux}, ...), and no
   * {@code NO_COLOR} (no-color.org).
   */
  static boolean colourTerminal(Map<String, String> env) {
    String term = env.get("TERM");
    return env.get("NO_COLOR") == null && term != null && !term.isBlank() && !term.equals("dumb");
  }

  /**
   * Lines to print when the run starts (versions, seed): a run stopped before it starts by a missing
   * file or a typo prints its one error line and nothing else.
   */
  void header(List<String> lines) {
    header = List.copyOf(lines);
  }

  /** The header, the devices that will run, and once, why the others will not. */
  @Override
  public synchronized void runStarted(RunInfo run) {
    header.forEach(out::println);
    // the libraries' instrumentation: which sanitizers run in the workers (never here)
    List<java.nio.file.Path> loaded = new ArrayList<>(run.inputs().stream().map(i -> java.nio.file.Path.of(i.library()))
        .distinct().toList());
    dev.opcheck4j.torch.Companion.configured().ifPresent(loaded::add);
    dev.opcheck4j.run.supervisor.SanitizedWorkers.of(loaded).header().forEach(l -> out.println(HumanText.name(l)));
    List<String> skipped = new ArrayList<>();
    for (RunInfo.DeviceInfo d : run.devices()) {
      if (!d.runs()) {
        skipped.add(HumanText.name(d.name()) + " skipped: " + HumanText.name(d.skipReason()));
      }
    }
    out.println("devices: " + HumanText.name(String.join(", ", run.devicesRun()))
        + (skipped.isEmpty() ? "" : " (" + String.join("; ", skipped) + ")"));
  }

  /** The run's own count of its ops: exact also where the spec could not be read ahead (a library without one, a shard). */
  @Override
  public synchronized void planned(int ops) {
    total = ops;
  }

  @Override
  public synchronized void opStarted(OpEvent op) {
    current = op;
    if (progress) {
      drawProgress();
    }
  }

  @Override
  public synchronized void result(CheckResult r) {
    currentResults.add(r.withRerun(Rerun.CLI));
    if (r.outcome().failsRun() || r.outcome() == Outcome.ERRORED) {
      failures++;
    }
    // at most ten redraws a second: a fast run must not flood a slow terminal
    if (progress && System.nanoTime() - lastDraw > 100_000_000L) {
      drawProgress();
    }
  }

  /** The op's findings, and in CI its line. */
  @Override
  public synchronized void opFinished(OpEvent op) {
    if (currentResults.isEmpty()) {
      current = null;
      return; // nothing was checked (an op the library lacks is an input error, reported at the end)
    }
    Map<String, List<CheckResult>> groups = new LinkedHashMap<>();
    Map<Outcome, Integer> counts = new LinkedHashMap<>();
    for (CheckResult r : currentResults) {
      counts.merge(r.outcome(), 1, Integer::sum);
      if (shown(r)) {
        // per op too: a library-wide job gives results about many ops (schema.compatible, one per op)
        groups.computeIfAbsent(r.op() + "\u0000" + r.check() + "\u0000" + r.outcome(), k -> new ArrayList<>()).add(r);
      }
    }
    clearLine();
    for (List<CheckResult> g : groups.values()) {
      Set<String> devices = new LinkedHashSet<>();
      for (CheckResult r : g) {
        if (r.deviceOrNull() != null) {
          devices.add(r.device());
        }
      }
      out.println(coloured(HumanText.render(g.get(0), List.copyOf(devices), reportDir), g.get(0).outcome()));
      if (g.size() > devices.size() && g.size() > 1) {
        out.println("  (" + g.size() + " results like this one; all are in the reports)");
      }
    }
    if (!op.libraryWide()) {
      done++;
      if (!progress) {
        List<String> parts = new ArrayList<>();
        for (Outcome o : Outcome.values()) {
          if (counts.containsKey(o)) {
            parts.add(counts.get(o) + " " + o.label());
          }
        }
        out.println("[" + done + (total > 0 ? "/" + total : "") + "] " + HumanText.name(op.op()) + ": " + String.join(", ", parts));
      }
    }
    current = null;
    currentResults.clear();
  }

  @Override
  public synchronized void runFinished(RunInfo run, RunEnd end) {
    finish();
  }

  /** Ends the run's output, also when it stopped early: a cleared progress line. */
  synchronized void finish() {
    clearLine();
  }

  /** The text with its first word (the outcome, {@code FAILED}) in the outcome's colour, when colour is on. */
  private String coloured(String text, Outcome outcome) {
    String sgr = switch (outcome) {
      case FAILED, ERRORED, UNEXPECTED_PASS -> "\033[1;31m";
      case WARNING -> "\033[33m";
      case NOTE -> "\033[36m";
      default -> null;
    };
    int space = text.indexOf(' ');
    if (!colour || sgr == null || space < 0) {
      return text;
    }
    return sgr + text.substring(0, space) + "\033[0m" + text.substring(space);
  }

  private boolean shown(CheckResult r) {
    return verbose || r.outcome().failsRun() || r.outcome() == Outcome.ERRORED
        || r.outcome() == Outcome.WARNING;
  }

  private void drawProgress() {
    long ms = (System.nanoTime() - started) / 1_000_000;
    String line = "ops " + done + (total > 0 ? "/" + total : "") + " | " + (current == null ? "" : HumanText.name(current.op(), 60)) + " | "
        + HumanText.duration(ms) + " | " + (failures > 0 && colour ? "\033[1;31m" : "") + failures
        + (failures == 1 ? " failure" : " failures") + (failures > 0 && colour ? "\033[0m" : "");
    out.print("\r\033[2K" + line);
    out.flush();
    lineDrawn = true;
    lastDraw = System.nanoTime();
  }

  private void clearLine() {
    if (lineDrawn) {
      out.print("\r\033[2K");
      out.flush();
      lineDrawn = false;
    }
  }
}
