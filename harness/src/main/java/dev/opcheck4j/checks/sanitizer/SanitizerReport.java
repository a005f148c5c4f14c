package dev.opcheck4j.checks.sanitizer;

import dev.opcheck4j.torch.Instrumentation.Sanitizer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One report of AddressSanitizer, UndefinedBehaviorSanitizer or ThreadSanitizer, read from what a worker
 * printed: the kind of defect, the report's own summary line (never the shadow-byte legend that follows
 * an ASan report), the access, and the frames of the stack that made it, each with its module where the
 * report names it (the harness asks for it: {@code <module>} after each ASan and UBSan frame; TSan
 * writes {@code (module+offset)}).
 *
 * @param sanitizer who reported
 * @param kind what it found: {@code heap-buffer-overflow}, {@code signed integer overflow}, {@code data race}
 * @param summary the report's {@code SUMMARY:} line, else its first line
 * @param access what was accessed, where the report says: {@code WRITE of size 8 (thread T0)}; empty for UBSan
 * @param location for UBSan, the source location its first line names ({@code file:line:column}); else empty
 * @param frames the frames of the first stack (where the defect happened), in order
 * @param lines the report's lines up to its summary
 */
public record SanitizerReport(Sanitizer sanitizer, String kind, String summary, Optional<String> access,
    Optional<Frame> location, List<Frame> frames, List<String> lines) {
  private static final Pattern ASAN = Pattern.compile("^==\\d+==ERROR: AddressSanitizer: (.+?)(?: on (?:unknown )?address.*| on 0x.*|:.*)?$");
  private static final Pattern UBSAN = Pattern.compile("^(\\S+?):(\\d+):(?:(\\d+):)? runtime error: (.*)$");
  private static final Pattern TSAN = Pattern.compile("^WARNING: ThreadSanitizer: (.+?)(?: \\(pid=\\d+\\))?$");
  private static final Pattern SUMMARY = Pattern.compile("^SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer): (\\S+)");
  private static final Pattern ASAN_ACCESS = Pattern.compile("^(READ|WRITE) of size (\\d+) at 0x[0-9a-fA-F]+ thread (\\S+)");
  private static final Pattern TSAN_ACCESS = Pattern.compile(
      "^\\s*(Previous )?((?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite)) of size (\\d+) at 0x[0-9a-fA-F]+ by ([^:]+?)(?: \\(mutexes:.*\\))?:$");
  private static final Pattern FRAME = Pattern.compile("^\\s*#(\\d+) (.*)$");

  public SanitizerReport {
    frames = List.copyOf(frames);
    lines = List.copyOf(lines);
  }

  /**
   * A frame of a report's stack.
   *
   * @param function the function, or empty
   * @param file the source file, or null when the report names none (a library without debug information)
   * @param line its line, 0 when unknown
   * @param module the library or program the frame's code is in, or null when the report does not say
   */
  public record Frame(String function, String file, int line, String module) {
    /** {@code file:line}, or the module when no source is known. */
    public String where() {
      return file != null ? file + ":" + line : module == null ? "?" : "(" + module + ")";
    }

    /** Whether its module is one of {@code libraries} (file names). */
    boolean inOneOf(List<String> libraries) {
      if (module == null) {
        return false;
      }
      String name = module.substring(module.lastIndexOf('/') + 1);
      return libraries.contains(name);
    }

    /** Whether its source is a file the sanitizer's runtime, the C library or the C++ library's headers hold. */
    boolean runtimes() {
      return file == null || file.contains("libsanitizer") || file.contains("compiler-rt") || file.startsWith("../sysdeps")
          || file.startsWith("../csu") || file.startsWith("/usr/include") || file.startsWith("/usr/lib/gcc");
    }
  }

  /** The reports in {@code output}, in the order they were written. */
  public static List<SanitizerReport> in(String output) {
    List<SanitizerReport> reports = new ArrayList<>();
    String[] lines = output.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String l = lines[i].strip();
      Matcher asan = ASAN.matcher(l);
      Matcher ubsan = UBSAN.matcher(l);
      Matcher tsan = TSAN.matcher(l);
      if (asan.matches()) {
        i = read(Sanitizer.ADDRESS, asan.group(1).strip(), null, lines, i, reports);
      } else if (ubsan.matches()) {
        Frame at = new Frame("", ubsan.group(1), Integer.parseInt(ubsan.group(2)), null);
        i = read(Sanitizer.UNDEFINED, ubsanKind(ubsan.group(4)), at, lines, i, reports);
      } else if (tsan.matches()) {
        i = read(Sanitizer.THREAD, tsan.group(1).strip(), null, lines, i, reports);
      }
    }
    return reports;
  }

  /** The report that starts at line {@code start}, added to {@code reports}: the index of its last line. */
  private static int read(Sanitizer who, String kind, Frame location, String[] lines, int start,
      List<SanitizerReport> reports) {
    List<String> text = new ArrayList<>();
    List<Frame> frames = new ArrayList<>();
    List<String> accesses = new ArrayList<>();
    String summary = null;
    boolean inFirstStack = false;
    boolean firstStackDone = false;
    int end = start;
    for (int i = start; i < lines.length; i++) {
      String l = lines[i];
      String t = l.strip();
      if (i > start && (ASAN.matcher(t).matches() || UBSAN.matcher(t).matches() || TSAN.matcher(t).matches())) {
        break; // the next report: this one had no summary
      }
      text.add(l);
      end = i;
      Matcher f = FRAME.matcher(l);
      if (f.matches()) {
        if (!firstStackDone) {
          inFirstStack = true;
          frames.add(frame(f.group(2)));
        }
      } else if (inFirstStack) {
        inFirstStack = false;
        firstStackDone = true;
      }
      Matcher a = ASAN_ACCESS.matcher(t);
      Matcher ta = TSAN_ACCESS.matcher(l);
      if (a.find()) {
        accesses.add(a.group(1) + " of size " + a.group(2) + " (thread " + a.group(3) + ")");
      } else if (ta.matches() && accesses.size() < 2) {
        accesses.add((ta.group(1) == null ? "" : "previous ") + ta.group(2).toLowerCase() + " of size " + ta.group(3)
            + " by " + ta.group(4));
      }
      Matcher s = SUMMARY.matcher(t);
      if (s.find()) {
        summary = t.substring("SUMMARY: ".length());
        if (who == Sanitizer.UNDEFINED && !s.group(2).equals("undefined-behavior")) {
          kind = s.group(2).replace('-', ' ');
        } else if (who == Sanitizer.ADDRESS) {
          kind = s.group(2);
        }
        break;
      }
      // gcc's UBSan writes no summary: its report ends with its stack, or (without one) before the next other line
      if (who == Sanitizer.UNDEFINED && (firstStackDone || i > start && !f.matches() && !t.isEmpty()
          && !t.startsWith("0x") && !t.startsWith("^") && !t.matches("[0-9a-f ]+") && !t.contains("note:"))) {
        text.remove(text.size() - 1);
        end = i - 1;
        break;
      }
    }
    reports.add(new SanitizerReport(who, kind, summary != null ? summary : text.get(0).strip(),
        accesses.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", accesses)), Optional.ofNullable(location),
        frames, text));
    return end;
  }

  /** UBSan's kind from its message: the words before the first colon, else the message with its values blanked. */
  static String ubsanKind(String message) {
    int colon = message.indexOf(':');
    String head = colon > 0 ? message.substring(0, colon) : message;
    if (colon > 0 && !head.matches(".*\\d.*")) {
      return head.strip();
    }
    return message.replaceAll("0x[0-9a-fA-F]+", "#").replaceAll("-?\\d+", "#").strip();
  }

  private static final Pattern MODULE_ANGLED = Pattern.compile("\\s<([^<>]+)>$");
  private static final Pattern MODULE_OFFSET = Pattern.compile("\\(([^()\\s]+?)\\+0x[0-9a-fA-F]+\\)$");
  private static final Pattern SOURCE = Pattern.compile("^(.*?)\\s*(\\S+?):(\\d+)(?::\\d+)?$");

  /** A frame from what follows its number: ASan's and UBSan's {@code 0x.. in f file:line <module>}, TSan's {@code f file:line (module+0x..)}. */
  static Frame frame(String text) {
    String t = text.strip();
    String module = null;
    Matcher angled = MODULE_ANGLED.matcher(t);
    if (angled.find()) {
      module = angled.group(1);
      t = t.substring(0, angled.start()).strip();
    }
    Matcher offset = MODULE_OFFSET.matcher(t);
    if (offset.find()) {
      module = module != null ? module : offset.group(1);
      t = t.substring(0, offset.start()).strip();
    }
    t = t.replaceFirst("^0x[0-9a-fA-F]+\\s*", "").replaceFirst("^in\\s+", "");
    Matcher src = SOURCE.matcher(t);
    if (src.matches() && !src.group(2).equals("<null>")) {
      return new Frame(src.group(1).replace("<null>", "").strip(), src.group(2), Integer.parseInt(src.group(3)), module);
    }
    return new Frame(t.replace("<null>", "").strip(), null, 0, module);
  }

  /**
   * Where in the op library the defect is: UBSan's own location; else the first frame whose module is one of
   * {@code libraries} (file names); else, where frames name no module, the first with a source that is not the
   * sanitizer's, the C library's or the C++ headers'.
   */
  public Optional<Frame> inLibrary(List<String> libraries) {
    if (location.isPresent()) {
      Frame at = location.get();
      return Optional.of(frames.stream().filter(f -> at.file().equals(f.file()) && f.line() == at.line()).findFirst()
          .orElse(at));
    }
    Optional<Frame> byModule = frames.stream().filter(f -> f.inOneOf(libraries)).findFirst();
    if (byModule.isPresent() || frames.stream().anyMatch(f -> f.module() != null)) {
      return byModule;
    }
    return frames.stream().filter(f -> !f.runtimes()).findFirst();
  }
}
