package dev.opcheck4j.run.accept;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.Expectation;
import dev.opcheck4j.api.Outcome;
import dev.opcheck4j.spec.SpecException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Accept mode ({@code check --accept FILE}, the engine's {@code opcheck4j.accept}): the expected-failures
 * file that makes a finished run pass. Each new failure gets an entry with the reason
 * {@value #TODO} and the finding's first line as its comment; each entry that gave an unexpected pass
 * is removed. The rest of the file (other suites' groups, comments, order) stays as written.
 *
 * @param file the file
 * @param before its text before, empty when it did not exist
 * @param after its text so that the run would pass
 * @param added the entries added, {@code op check}
 * @param removed the entries removed, {@code op check}
 * @param unlisted failures no entry can name (about a whole library), one line each
 */
public record AcceptMode(Path file, String before, String after, List<String> added, List<String> removed,
    List<String> unlisted) {
  /** The reason of an added entry, until a person writes the real one. */
  public static final String TODO = "TODO: explain";

  /** What {@code file} should say so that a run with {@code results} passes. */
  public static AcceptMode of(Path file, List<CheckResult> results) throws SpecException, IOException {
    String before = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    FailuresDocument doc = FailuresDocument.read(file);
    List<String> removed = new ArrayList<>();
    for (CheckResult r : results) {
      if (r.outcome() == Outcome.UNEXPECTED_PASS && remove(doc, r.expectation())) {
        removed.add(r.expectation().op() + " " + r.expectation().key());
      }
    }
    List<String> added = new ArrayList<>();
    List<String> unlisted = new ArrayList<>();
    for (Map.Entry<String, List<CheckResult>> e : newFailures(results).entrySet()) {
      CheckResult first = e.getValue().get(0);
      if (!first.op().contains("::") || first.op().endsWith("::*")) {
        unlisted.add(first.check() + " about " + first.op() + ": not about one op, no entry can name it");
        continue;
      }
      for (String key : keys(first, e.getValue(), results)) {
        FailuresDocument.Node op = doc.top.computeIfAbsent(first.op(), FailuresDocument.Node::new);
        if (op.reason != null || op.children.containsKey(key)) {
          continue;
        }
        FailuresDocument.Node entry = new FailuresDocument.Node(key);
        entry.reason = TODO;
        entry.comments.add(firstLine(e.getValue()));
        op.children.put(key, entry);
        added.add(first.op() + " " + key);
      }
    }
    String after = added.isEmpty() && removed.isEmpty() ? before : doc.text();
    return new AcceptMode(file, before, after, added, removed, unlisted);
  }

  /** Whether the file changes. */
  public boolean changed() {
    return !before.equals(after);
  }

  /** Writes the file when it changed: a temporary file beside it, then moved over it in one step. */
  public void write() throws IOException {
    if (!changed()) {
      return;
    }
    Path target = file.toAbsolutePath();
    Files.createDirectories(target.getParent());
    Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
    try {
      Files.writeString(tmp, after, StandardCharsets.UTF_8);
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** The change as a unified diff ({@code --- FILE}, {@code +++ FILE}, hunks); empty when nothing changed. */
  public List<String> diff() {
    return changed() ? LineDiff.unified(file.toString(), before, after) : List.of();
  }

  /** One line: what was added and removed. */
  public String summary() {
    return "accept: " + file + ": " + added.size() + (added.size() == 1 ? " entry" : " entries") + " added, "
        + removed.size() + " removed" + (changed() ? "" : " (unchanged)");
  }

  private static boolean remove(FailuresDocument doc, Expectation e) {
    Map<String, FailuresDocument.Node> ops = e.scope() == null ? doc.top
        : doc.top.containsKey(e.scope()) ? doc.top.get(e.scope()).children : null;
    if (ops == null || !ops.containsKey(e.op()) || ops.get(e.op()).children.remove(e.key()) == null) {
      return false;
    }
    if (ops.get(e.op()).children.isEmpty()) {
      ops.remove(e.op());
      if (e.scope() != null && ops.isEmpty()) {
        doc.top.remove(e.scope());
      }
    }
    return true;
  }

  /** The failures no entry expected, per op and check, in the order they came. */
  private static Map<String, List<CheckResult>> newFailures(List<CheckResult> results) {
    Map<String, List<CheckResult>> out = new LinkedHashMap<>();
    for (CheckResult r : results) {
      if (r.outcome() == Outcome.FAILED) {
        out.computeIfAbsent(r.op() + "\u0000" + r.check(), k -> new ArrayList<>()).add(r);
      }
    }
    return out;
  }

  /**
   * The keys that list these failures: the check id alone when it failed on every device it ran on,
   * else one {@code check@device} per device it failed on (so a machine without that device does not
   * see an unexpected pass).
   */
  private static List<String> keys(CheckResult first, List<CheckResult> failures, List<CheckResult> results) {
    Set<String> failedOn = new LinkedHashSet<>();
    failures.forEach(r -> failedOn.add(r.device()));
    boolean passedElsewhere = results.stream().anyMatch(r -> r.op().equals(first.op()) && r.check().equals(first.check())
        && r.outcome().passes() && !failedOn.contains(r.device()));
    if (!passedElsewhere || failedOn.contains(CheckResult.NONE)) {
      return List.of(first.check());
    }
    return failedOn.stream().map(d -> first.check() + "@" + d).toList();
  }

  /** The comment of an added entry: where it failed and the finding's first line. */
  private static String firstLine(List<CheckResult> failures) {
    CheckResult r = failures.get(0);
    // a failure carries its typed finding; a result without one shows its first fact
    String seen = r.finding() != null ? r.finding().actual() : r.facts().isEmpty() ? "" : r.facts().get(0).value();
    seen = seen.lines().findFirst().orElse("").strip();
    Set<String> devices = new LinkedHashSet<>();
    failures.stream().map(CheckResult::deviceOrNull).filter(java.util.Objects::nonNull).forEach(devices::add);
    String line = r.check() + (devices.isEmpty() ? "" : " on " + String.join(", ", devices)) + ": " + seen;
    line = line.replaceAll("\\p{Cntrl}", "?");
    return line.length() > 160 ? line.substring(0, 159) + "…" : line;
  }
}
