package dev.opcheck4j.run.cache;

import dev.opcheck4j.run.plan.RunBlock;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.spec.SpecValue;
import java.nio.file.Path;
import java.util.List;

/** A spec as the cache key sees it: its global settings, and the key text of each op's entries. */
record SpecKey(String settings, java.util.Map<String, String> entries) {
  /**
   * Made when a key is first made, not when this class loads: Jackson's databind takes about 0.17 s to
   * start, which a run with {@code --cache} paid on its main thread before its first worker started.
   */
  private static final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();
  }

  /** The key of a spec as the run read it: its settings, and each op's entries with the content of the files they name. */
  static SpecKey of(SpecReader.Parsed spec) {
    SpecValue tree = spec.tree();
    SpecFile file = spec.file();
    if (!(tree.value() instanceof java.util.Map<?, ?>) || !tree.object().containsKey("ops")
        || tree.object().get("ops").list().size() != file.ops().size()) {
      return null;
    }
    ObjectNode settings = Json.MAPPER.createObjectNode();
    tree.object().forEach((k, v) -> {
      if (!k.equals("ops") && !k.equals("library")) {
        settings.set(k, json(v));
      }
    });
    java.util.Map<String, String> entries = new java.util.HashMap<>();
    List<SpecValue> ops = tree.object().get("ops").list();
    for (int i = 0; i < ops.size(); i++) {
      OpSpec op = file.ops().get(i);
      StringBuilder entry = new StringBuilder(json(ops.get(i)).toString());
      boolean keyed = true;
      for (dev.opcheck4j.spec.Example ex : op.examples()) {
        if (ex.expect().isPresent()) {
          Path read = ex.expect().get().file();
          String h = RunBlock.sha256(read);
          keyed &= h != null;
          entry.append("\nreads ").append(read).append(' ').append(h);
        }
      }
      // two entries of one op: both enter its key; one that cannot be keyed leaves the op unkeyed (null)
      String before = entries.get(op.op());
      boolean first = !entries.containsKey(op.op());
      entries.put(op.op(), !keyed || !first && before == null ? null : first ? entry.toString() : before + "\n" + entry);
    }
    return new SpecKey(settings.toString(), entries);
  }

  /** A spec value as JSON, without where it was written (a comment or a line added above it changes no key). */
  private static JsonNode json(SpecValue v) {
    if (v.isObject()) {
      ObjectNode o = Json.MAPPER.createObjectNode();
      v.object().forEach((k, x) -> o.set(k, json(x)));
      return o;
    }
    if (v.isList()) {
      com.fasterxml.jackson.databind.node.ArrayNode a = Json.MAPPER.createArrayNode();
      v.list().forEach(x -> a.add(json(x)));
      return a;
    }
    return Json.MAPPER.valueToTree(v.value());
  }
}
