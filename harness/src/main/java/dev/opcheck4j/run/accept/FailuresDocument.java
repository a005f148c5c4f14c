package dev.opcheck4j.run.accept;

import dev.opcheck4j.spec.SpecException;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An expected-failures file as text to edit: its keys in their order, each with the comments written
 * above it and after it on its line, so that accept mode adds and removes entries and keeps what a
 * person wrote. The values are read by {@link SpecReader} (the file's one parser); only the comments
 * come from the text, matched to the keys in order. Written back as YAML or JSON by the file's name.
 */
final class FailuresDocument {
  /** A key with its comments: a group or op (with children) or a check entry (with a reason). */
  static final class Node {
    final String key;
    final List<String> comments = new ArrayList<>();
    String trailing;
    String reason;
    final Map<String, Node> children = new LinkedHashMap<>();

    Node(String key) {
      this.key = key;
    }
  }

  private final boolean yaml;
  /** The comment lines before the first key, apart from it by a blank line, and those after the last key. */
  private final List<String> header = new ArrayList<>();
  private final List<String> footer = new ArrayList<>();
  final Map<String, Node> top = new LinkedHashMap<>();

  private FailuresDocument(boolean yaml) {
    this.yaml = yaml;
  }

  static boolean isYaml(Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(".yaml") || name.endsWith(".yml");
  }

  /** The document of {@code file}; an empty one when it does not exist. */
  static FailuresDocument read(Path file) throws SpecException {
    FailuresDocument d = new FailuresDocument(isYaml(file));
    if (!Files.exists(file)) {
      return d;
    }
    SpecValue root = SpecReader.parseTree(file.toAbsolutePath().normalize());
    List<Node> order = new ArrayList<>();
    if (root.isObject()) {
      d.build(root, d.top, order);
    }
    try {
      d.attachComments(Files.readAllLines(file), order);
    } catch (java.io.IOException e) {
      throw new SpecException(file.toString(), "cannot read: " + e.getMessage());
    }
    return d;
  }

  private void build(SpecValue object, Map<String, Node> into, List<Node> order) {
    for (Map.Entry<String, SpecValue> e : object.object().entrySet()) {
      Node n = new Node(e.getKey());
      order.add(n);
      into.put(e.getKey(), n);
      if (e.getValue().isObject()) {
        build(e.getValue(), n.children, order);
      } else {
        n.reason = e.getValue().isString() ? (String) e.getValue().value() : String.valueOf(e.getValue().value());
      }
    }
  }

  /**
   * Gives each key the full-line comments above it and the comment after it on its line: the keys are
   * met in the text in the order the parser gave them.
   */
  private void attachComments(List<String> lines, List<Node> order) {
    List<String> pending = new ArrayList<>();
    int next = 0;
    boolean blankSincePending = false;
    for (String line : lines) {
      String t = line.strip();
      if (t.isEmpty()) {
        blankSincePending = !pending.isEmpty();
        continue;
      }
      if (t.startsWith("#") || t.startsWith("//")) {
        if (blankSincePending && next == 0) {
          header.addAll(pending); // a block apart from the first key by a blank line is the file's own
          pending.clear();
        }
        blankSincePending = false;
        pending.add(t.substring(t.startsWith("#") ? 1 : 2).strip());
        continue;
      }
      String code = codeOf(line);
      int from = 0;
      Node last = null;
      while (next < order.size()) {
        int at = keyAt(code, order.get(next).key, from);
        if (at < 0) {
          break;
        }
        last = order.get(next++);
        last.comments.addAll(pending);
        pending.clear();
        from = at;
      }
      if (last != null && code.length() < line.length()) {
        last.trailing = line.substring(code.length()).strip().replaceFirst("^(#|//)\\s*", "");
      }
      blankSincePending = false;
    }
    if (next == 0) {
      header.addAll(pending);
    } else {
      footer.addAll(pending);
    }
  }

  /** Where {@code key} is written as a key in {@code code} at or after {@code from} (the index after it), or -1. */
  private static int keyAt(String code, String key, int from) {
    for (String form : List.of("\"" + key + "\"", "'" + key + "'", key)) {
      int i = code.indexOf(form, from);
      while (i >= 0) {
        int end = i + form.length();
        String rest = code.substring(end).stripLeading();
        if (rest.startsWith(":") && (i == 0 || !Character.isLetterOrDigit(code.charAt(i - 1)))) {
          return end;
        }
        i = code.indexOf(form, i + 1);
      }
    }
    return -1;
  }

  /** The line without its trailing comment ({@code #} in YAML, {@code //} in JSON, outside quotes). */
  private String codeOf(String line) {
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == '\\' && quote == '"') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'' && yaml) {
        quote = c;
      } else if (yaml && c == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
        return line.substring(0, i).stripTrailing();
      } else if (!yaml && c == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/') {
        return line.substring(0, i).stripTrailing();
      }
    }
    return line;
  }

  /** The document as text, in the file's format. */
  String text() {
    StringBuilder sb = new StringBuilder();
    String mark = yaml ? "# " : "// ";
    header.forEach(c -> sb.append(mark).append(c).append('\n'));
    if (!header.isEmpty()) {
      sb.append('\n');
    }
    if (yaml) {
      yaml(sb, top, "");
    } else {
      sb.append("{\n");
      json(sb, top, "  ");
      sb.append("}\n");
    }
    footer.forEach(c -> sb.append(mark).append(c).append('\n'));
    return sb.toString();
  }

  private static void yaml(StringBuilder sb, Map<String, Node> nodes, String indent) {
    if (nodes.isEmpty() && indent.isEmpty()) {
      sb.append("{}\n");
    }
    for (Node n : nodes.values()) {
      n.comments.forEach(c -> sb.append(indent).append("# ").append(c).append('\n'));
      sb.append(indent).append(yamlScalar(n.key)).append(':');
      if (n.reason != null) {
        sb.append(' ').append(yamlScalar(n.reason));
      }
      sb.append(n.trailing == null ? "" : "  # " + n.trailing).append('\n');
      if (n.reason == null) {
        yaml(sb, n.children, indent + "  ");
      }
    }
  }

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z_][A-Za-z0-9_.:/@ ,()=-]*");

  private static String yamlScalar(String s) {
    boolean plain = PLAIN.matcher(s).matches() && !s.contains(": ") && !s.endsWith(":") && !s.endsWith(" ")
        && !List.of("true", "false", "null", "yes", "no", "on", "off", "y", "n").contains(s.toLowerCase(Locale.ROOT));
    return plain ? s : jsonString(s);
  }

  private static void json(StringBuilder sb, Map<String, Node> nodes, String indent) {
    int i = 0;
    for (Node n : nodes.values()) {
      boolean last = ++i == nodes.size();
      n.comments.forEach(c -> sb.append(indent).append("// ").append(c).append('\n'));
      sb.append(indent).append(jsonString(n.key)).append(": ");
      if (n.reason != null) {
        sb.append(jsonString(n.reason)).append(last ? "" : ",");
        sb.append(n.trailing == null ? "" : " // " + n.trailing).append('\n');
      } else {
        sb.append('{').append(n.trailing == null ? "" : " // " + n.trailing).append('\n');
        json(sb, n.children, indent + "  ");
        sb.append(indent).append('}').append(last ? "" : ",").append('\n');
      }
    }
  }

  private static String jsonString(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        default -> b.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
      }
    }
    return b.append('"').toString();
  }
}
