package dev.opcheck4j.checks.sanitizer;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.torch.Instrumentation.Sanitizer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The reports of one sanitizer a library was built with, as findings about the unit that printed them: the
 * supervisor reads what each unit printed (a worker of a sanitized library marks its units in its output)
 * and asks the supervisor checks whether it holds a report; this check claims its sanitizer's. Its cause is
 * the kind and where in the op library ({@code heap-buffer-overflow} at {@code ops.cpp:116}), so that
 * shrinking keeps an input only while it makes the same report at the same line; its root cause is the
 * report's own summary, never the shadow-byte legend an ASan report ends with.
 */
abstract class SanitizerCheck extends CheckBase implements SupervisorCheck {
  private static final int FRAMES = 6;
  private static final int NAME = 60;
  private final Sanitizer sanitizer;
  private final String expected;
  private final String hint;

  SanitizerCheck(Declaration declared, Sanitizer sanitizer, String expected, String hint) {
    super(declared);
    this.sanitizer = sanitizer;
    this.expected = expected;
    this.hint = hint;
  }

  @Override
  public boolean covers(Cause death) {
    return death instanceof Cause.Contract c && c.rule().startsWith(sanitizer.tool() + ": ");
  }

  @Override
  public Optional<Claim> claim(String output, List<String> libraries) {
    return SanitizerReport.in(output).stream().filter(r -> r.sanitizer() == sanitizer).findFirst()
        .map(r -> claim(r, libraries));
  }

  /** The cause, line and facts {@code r} is. */
  Claim claim(SanitizerReport r, List<String> libraries) {
    Optional<SanitizerReport.Frame> at = r.inLibrary(libraries);
    String where = at.map(SanitizerReport.Frame::where).orElse("no frame in the op library");
    List<Fact> facts = new ArrayList<>();
    facts.add(Fact.of("root cause", r.summary()));
    facts.add(Fact.of("kind", r.kind()));
    facts.add(Fact.of("at", where + at.filter(f -> !f.function().isEmpty()).map(f -> " in " + f.function()).orElse("")));
    r.access().ifPresent(a -> facts.add(Fact.of("access", a)));
    if (!r.frames().isEmpty()) {
      facts.add(Fact.of("stack", String.join(" | ", r.frames().stream().limit(FRAMES)
          .map(f -> (f.function().isEmpty() ? "" : shortened(f.function()) + " ") + f.where()).toList())));
    }
    String message = sanitizer.tool() + ": " + r.kind() + " at " + where + r.access().map(a -> " (" + a + ")").orElse("");
    return new Claim(new Cause.Contract(sanitizer.tool() + ": " + r.kind(), where), message, facts);
  }

  /** A C++ function's name, its template arguments and parameters left out past {@value #NAME} characters. */
  private static String shortened(String function) {
    return function.length() <= NAME ? function : function.substring(0, NAME) + "…";
  }

  @Override
  public Finding finding(Cause death, String happened, Duration deadline, List<Fact> details) {
    return new Finding(expected, happened, hint, death, details, List.of());
  }
}
