package dev.opcheck4j.checks.aoti;

import dev.opcheck4j.checks.PackageSubject;
import dev.opcheck4j.torch.OpSchema;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What libtorch's package loader or proxy executor said, in one line of ours: the op and the argument it is
 * about, by name. An internal assert of libtorch (which asks to be reported to PyTorch, while it is the package
 * and the library that disagree) is never shown as libtorch wrote it.
 */
public final class LoaderMessage {
  private static final Pattern NO_SCHEMA = Pattern.compile("Could not find schema for ([\\w:.]+?)\\.?(\\s|$)");
  private static final Pattern ARGUMENT_TYPE = Pattern.compile(
      "Expected extern kernel ([\\w:.]+) to have serialized argument type (\\w+) for argument (\\d+) but got (\\w+)");
  private static final Pattern INTERNAL = Pattern.compile(
      "INTERNAL ASSERT FAILED at \"([^\"]*)\":(\\d+), please report a bug to PyTorch\\.?\\s*(.*)");
  private static final Pattern MISMATCH = Pattern.compile("Mismatch between (tensors|ints) consumed");
  private static final Pattern SHAPE = Pattern.compile(
      "input_handles\\[(\\d+)\\]: unmatched (\\w+) value at (\\d+), expected: (\\S+), but got: (\\S+)");

  private LoaderMessage() {}

  /** {@code raw}, libtorch's first line about {@code subject}'s package, as one line of ours. */
  public static String explain(String raw, PackageSubject subject) {
    // where the loader extracted the package (a temporary folder, gone by now) is no place to look
    String line = (raw == null ? "" : raw.strip()).replaceAll("\\S*/aotinductor_\\w{6}/", "<in the package>/");
    Matcher m = NO_SCHEMA.matcher(line);
    if (m.find()) {
      return "the package calls " + m.group(1) + ", which no loaded library registers (" + String.join(", ",
          subject.libraries()) + "): libtorch's loader refuses the package";
    }
    m = ARGUMENT_TYPE.matcher(line);
    if (m.find()) {
      String op = m.group(1);
      int index = Integer.parseInt(m.group(3));
      String arg = argument(subject, op, index);
      return "the package passes argument " + arg + " of " + op + " as " + m.group(4) + ", and the library's schema"
          + " takes " + m.group(2) + " there: libtorch's loader refuses the package";
    }
    m = INTERNAL.matcher(line);
    if (m.find()) {
      String file = m.group(1).substring(m.group(1).lastIndexOf('/') + 1);
      return "libtorch stopped inside its own code (an internal check of " + file + ":" + m.group(2)
          + (m.group(3).isBlank() ? "" : ", \"" + m.group(3).strip() + "\"") + "): a call the package makes gives an op"
          + " an argument of another type than its schema's, or none (aoti.calls says which)";
    }
    m = SHAPE.matcher(line);
    if (m.find()) {
      String what = m.group(2).equals("dim") ? "size" : m.group(2);
      return "input " + m.group(1) + " has " + what + " " + m.group(5) + " in dimension " + m.group(3) + ", where the"
          + " package was compiled for " + m.group(4) + ": a package takes the shapes it was exported with"
          + " (torch.export.Dim marks a size dynamic)";
    }
    m = MISMATCH.matcher(line);
    if (m.find()) {
      return "the package's call gives an op a different number of " + m.group(1) + " than its registered schema"
          + " takes (an argument renamed, removed or retyped: aoti.calls says which)";
    }
    return line.isEmpty() ? "libtorch gave no message" : line;
  }

  /** Argument {@code index} of {@code op} as the run's library registers it: {@code #1 'n' (float n)}. */
  private static String argument(PackageSubject subject, String op, int index) {
    PackageSubject.Registered reg = subject.registered().get(op);
    if (reg == null || index < 0 || index >= reg.schema().arguments().size()) {
      return "#" + index;
    }
    OpSchema.Argument a = reg.schema().arguments().get(index);
    return "'" + a.name() + "' (#" + index + ", " + a + ")";
  }
}
