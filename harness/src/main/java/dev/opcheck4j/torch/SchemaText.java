package dev.opcheck4j.torch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Parses an operator schema string into the {@link OpSchema} model in plain Java, without libtorch:
 * for processes that load no native code (a parent comparing a baseline against what a worker
 * reported). Tests hold it equal to libtorch's own parser ({@link SchemaReader#parse}) on the
 * schemas of the bundled libraries and on libtorch's own operators of the types it knows.
 */
public final class SchemaText {
  private static final Map<String, String> KINDS = Map.ofEntries(
      Map.entry("Tensor", "TensorType"), Map.entry("int", "IntType"), Map.entry("float", "FloatType"),
      Map.entry("bool", "BoolType"), Map.entry("str", "StringType"), Map.entry("Scalar", "NumberType"),
      Map.entry("ScalarType", "ScalarTypeType"), Map.entry("Layout", "LayoutType"),
      Map.entry("Device", "DeviceObjType"), Map.entry("MemoryFormat", "MemoryFormatType"),
      Map.entry("SymInt", "SymIntType"), Map.entry("Generator", "GeneratorType"), Map.entry("Any", "AnyType"),
      Map.entry("complex", "ComplexType"), Map.entry("Storage", "StorageType"), Map.entry("Stream", "StreamObjType"));

  private final String s;
  private int at;

  private SchemaText(String s) {
    this.s = s;
  }

  /**
   * The schema {@code text} as a model.
   *
   * @throws IllegalArgumentException naming the position and what was expected
   */
  public static OpSchema parse(String text) {
    return new SchemaText(text).schema();
  }

  private OpSchema schema() {
    String name = ident() + expect("::") + ident();
    String overload = "";
    if (peek('.')) {
      at++;
      overload = ident();
    }
    expect("(");
    List<OpSchema.Argument> args = new ArrayList<>();
    boolean kwargOnly = false;
    while (!peek(')')) {
      if (!args.isEmpty() || kwargOnly) {
        expect(",");
      }
      if (peek('*')) {
        at++;
        kwargOnly = true;
        continue;
      }
      args.add(argument(kwargOnly));
    }
    expect(")");
    expect("->");
    List<OpSchema.Return> returns = new ArrayList<>();
    skipSpace();
    if (peek('(')) {
      at++;
      while (!peek(')')) {
        if (!returns.isEmpty()) {
          expect(",");
        }
        returns.add(ret());
      }
      expect(")");
    } else {
      returns.add(ret());
    }
    skipSpace();
    if (at != s.length()) {
      throw error("end of schema");
    }
    return new OpSchema(name, overload, args, returns);
  }

  private OpSchema.Argument argument(boolean kwargOnly) {
    Typed t = type();
    String name = ident();
    Optional<String> def = Optional.empty();
    if (peek('=')) {
      at++;
      def = Optional.of(normalizeDefault(t.type, defaultText()));
    }
    return new OpSchema.Argument(name, t.type, t.size, def, kwargOnly, t.alias);
  }

  private OpSchema.Return ret() {
    Typed t = type();
    skipSpace();
    String name = at < s.length() && Character.isJavaIdentifierStart(s.charAt(at)) ? ident() : "";
    return new OpSchema.Return(name, t.type, t.alias);
  }

  private record Typed(OpSchema.Type type, Optional<Integer> size, Optional<OpSchema.Alias> alias) {}

  private Typed type() {
    String base = ident();
    OpSchema.Type type;
    if (base.equals("Dict")) {
      expect("(");
      OpSchema.Type k = type().type;
      expect(",");
      OpSchema.Type v = type().type;
      expect(")");
      type = new OpSchema.Type("DictType", "Dict(" + k.text() + ", " + v.text() + ")", List.of(k, v));
    } else {
      String kind = KINDS.get(base);
      if (kind == null) {
        throw error("a type (" + String.join(", ", KINDS.keySet().stream().sorted().toList()) + ", Dict)");
      }
      type = new OpSchema.Type(kind, base, List.of());
    }
    Optional<OpSchema.Alias> alias = Optional.empty();
    if (peek('(')) {
      alias = Optional.of(alias());
    }
    Optional<Integer> size = Optional.empty();
    while (true) {
      if (peek('?')) {
        at++;
        type = new OpSchema.Type("OptionalType", type.text() + "?", List.of(type));
      } else if (peek('[')) {
        at++;
        skipSpace();
        int start = at;
        while (at < s.length() && Character.isDigit(s.charAt(at))) {
          at++;
        }
        if (at > start) {
          size = Optional.of(Integer.parseInt(s.substring(start, at)));
        }
        expect("]");
        type = new OpSchema.Type("ListType", type.text() + "[]", List.of(type));
      } else {
        break;
      }
    }
    return new Typed(type, size, alias);
  }

  private OpSchema.Alias alias() {
    expect("(");
    List<String> before = sets();
    boolean write = false;
    if (peek('!')) {
      at++;
      write = true;
    }
    List<String> after = before;
    skipSpace();
    if (s.startsWith("->", at)) {
      at += 2;
      after = sets();
    }
    expect(")");
    return new OpSchema.Alias(before, after, write);
  }

  private List<String> sets() {
    List<String> out = new ArrayList<>();
    do {
      skipSpace();
      if (peek('*')) {
        at++;
        out.add("*");
      } else {
        out.add(ident());
      }
      skipSpace();
    } while (peek('|') && at++ >= 0);
    out.sort(null);
    return out;
  }

  private String defaultText() {
    skipSpace();
    int start = at;
    int depth = 0;
    char quote = 0;
    for (; at < s.length(); at++) {
      char c = s.charAt(at);
      if (quote != 0) {
        if (c == '\\') {
          at++;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '[' || c == '(') {
        depth++;
      } else if ((c == ']' || c == ')') && depth > 0) {
        depth--;
      } else if ((c == ',' || c == ')') && depth == 0) {
        break;
      }
    }
    return s.substring(start, at).strip();
  }

  /** A default as libtorch renders it back ({@link SchemaReader#renderDefault}): floats as Python prints them. */
  static String normalizeDefault(OpSchema.Type type, String text) {
    OpSchema.Type t = type.unwrapOptional();
    boolean floats = t.kind().equals("FloatType") || t.isList() && t.contained().get(0).kind().equals("FloatType");
    if (!floats || text.equals("None") || text.matches("-?(inf|nan)")) {
      return text;
    }
    if (text.startsWith("[")) {
      String inner = text.substring(1, text.length() - 1).strip();
      return inner.isEmpty() ? "[]" : "[" + String.join(", ",
          Arrays.stream(inner.split(",")).map(x -> SchemaReader.renderDouble(Double.parseDouble(x.strip()))).toList()) + "]";
    }
    return SchemaReader.renderDouble(Double.parseDouble(text.toLowerCase(Locale.ROOT)));
  }

  private String ident() {
    skipSpace();
    int start = at;
    while (at < s.length() && (Character.isLetterOrDigit(s.charAt(at)) || s.charAt(at) == '_')) {
      at++;
    }
    if (at == start) {
      throw error("a name");
    }
    return s.substring(start, at);
  }

  private String expect(String token) {
    skipSpace();
    if (!s.startsWith(token, at)) {
      throw error("'" + token + "'");
    }
    at += token.length();
    return token;
  }

  private boolean peek(char c) {
    skipSpace();
    return at < s.length() && s.charAt(at) == c;
  }

  private void skipSpace() {
    while (at < s.length() && s.charAt(at) == ' ') {
      at++;
    }
  }

  private IllegalArgumentException error(String expected) {
    return new IllegalArgumentException("schema '" + s + "' at column " + (at + 1) + ": expected " + expected);
  }
}
