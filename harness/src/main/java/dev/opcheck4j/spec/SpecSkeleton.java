package dev.opcheck4j.spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a spec file (YAML) for an author to edit: the library, and per op its schema as a comment
 * and the example found for it, or a comment saying why there is none. {@link SpecReader} reads it
 * back as is.
 */
public final class SpecSkeleton {
  /**
   * One op of the skeleton.
   *
   * @param op qualified name
   * @param schema the schema, shown as a comment
   * @param example the example to write, if one was found
   * @param note where the example came from, or why there is none
   */
  public record Entry(String op, String schema, Optional<Example> example, String note) {}

  private SpecSkeleton() {}

  /** The YAML text; {@code library} is written as given (relative to the file's folder, or absolute). */
  public static String yaml(String header, String library, List<Entry> entries) {
    StringBuilder sb = new StringBuilder();
    for (String line : header.split("\n")) {
      sb.append("# ").append(line).append('\n');
    }
    sb.append("library: ").append(quote(library)).append('\n');
    sb.append("ops:\n");
    for (Entry e : entries) {
      sb.append("  - op: ").append(quote(e.op())).append('\n');
      sb.append("    # ").append(e.schema()).append('\n');
      sb.append("    # ").append(e.note()).append('\n');
      if (e.example().isEmpty()) {
        sb.append("    examples: []   # give one here\n");
        continue;
      }
      Example x = e.example().get();
      sb.append("    examples:\n");
      sb.append("      - args: ").append(flow(x.args())).append('\n');
      if (!x.kwargs().isEmpty()) {
        List<String> kv = new ArrayList<>();
        for (Map.Entry<String, SpecValue> k : x.kwargs().entrySet()) {
          kv.add(k.getKey() + ": " + flow(k.getValue()));
        }
        sb.append("        kwargs: {").append(String.join(", ", kv)).append("}\n");
      }
    }
    return sb.toString();
  }

  private static String flow(List<SpecValue> values) {
    List<String> parts = new ArrayList<>();
    for (SpecValue v : values) {
      parts.add(flow(v));
    }
    return "[" + String.join(", ", parts) + "]";
  }

  static String flow(SpecValue v) {
    if (v.isNull()) {
      return "null";
    }
    if (v.isList()) {
      return flow(v.list());
    }
    if (v.isObject()) {
      List<String> parts = new ArrayList<>();
      for (Map.Entry<String, SpecValue> e : v.object().entrySet()) {
        parts.add(e.getKey() + ": " + flow(e.getValue()));
      }
      return "{" + String.join(", ", parts) + "}";
    }
    if (v.isString()) {
      return quote((String) v.value());
    }
    return String.valueOf(v.value());
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
