package dev.opcheck4j.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.generate.ExampleBinder;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutated spec files through the reader and the schema binder, in process: every one is read or
 * refused with located one-line messages, none is a harness error, and none does more than linear work
 * (bytes allocated, values built: counts the machine's load does not change, unlike time).
 */
class SpecFuzzTests {
  @TempDir Path dir;

  private static final OpSchema SCHEMA = SchemaText.parse("t::f(Tensor x, float s, *, int k=2) -> Tensor");
  private static final Set<String> CHECKS = Set.of("determinism", "fake", "fake.metadata", "autograd", "gradcheck");

  /** Every slot of the template, with its valid JSON text. */
  private static final Map<String, String> SLOTS = new LinkedHashMap<>();

  static {
    SLOTS.put("library", "\"lib/libt.so\"");
    SLOTS.put("wae", "false");
    SLOTS.put("op", "\"t::f\"");
    SLOTS.put("devices", "[\"cpu\"]");
    SLOTS.put("skip", "[\"determinism\"]");
    SLOTS.put("why", "\"atomics\"");
    SLOTS.put("tolerance", "{\"atol\": 1e-4}");
    SLOTS.put("gradcheck", "{\"eps\": 1e-6, \"mode\": \"fast\"}");
    SLOTS.put("vary", "{\"s\": {\"float\": [0.5, 2]}, \"dtype\": [\"float32\"]}");
    SLOTS.put("domain", "{\"layouts\": [\"contiguous\"], \"dtypes\": [\"float32\"]}");
    SLOTS.put("timeout", "30");
    SLOTS.put("shape", "[3, 4]");
    SLOTS.put("dtype", "\"float32\"");
    SLOTS.put("init", "\"rand\"");
    SLOTS.put("low", "0");
    SLOTS.put("high", "1");
    SLOTS.put("layout", "\"contiguous\"");
    SLOTS.put("rg", "true");
    SLOTS.put("scalar", "2.5");
    SLOTS.put("k", "3");
    SLOTS.put("args", null);
    SLOTS.put("examples", null);
  }

  /** Hostile values put into every slot. */
  private static final List<String> HOSTILE = List.of("null", "true", "0", "-1", "1.5", "\"\"", "\"fp32\"", "[]", "{}",
      "[[]]", "1e18", "-1e18", "1e400", "123456789012345678901234567890", "\"\\u0000\"", "\"\\u001b[2J\\u0007\"");

  private static String spec(Map<String, String> over) {
    Map<String, String> v = new LinkedHashMap<>(SLOTS);
    v.putAll(over);
    String tensor = "{\"tensor\": " + v.get("shape") + ", \"dtype\": " + v.get("dtype") + ", \"init\": " + v.get("init")
        + ", \"low\": " + v.get("low") + ", \"high\": " + v.get("high") + ", \"layout\": " + v.get("layout")
        + ", \"requires_grad\": " + v.get("rg") + "}";
    String args = v.get("args") != null ? v.get("args") : "[" + tensor + ", " + v.get("scalar") + "]";
    String examples = v.get("examples") != null ? v.get("examples")
        : "[{\"args\": " + args + ", \"kwargs\": {\"k\": " + v.get("k") + "}}]";
    return "{\"library\": " + v.get("library") + ", \"warnings-as-errors\": " + v.get("wae") + ", \"ops\": [{\"op\": "
        + v.get("op") + ", \"devices\": " + v.get("devices") + ", \"skip\": " + v.get("skip") + ", \"why\": " + v.get("why")
        + ", \"tolerance\": " + v.get("tolerance") + ", \"gradcheck\": " + v.get("gradcheck") + ", \"vary\": " + v.get("vary")
        + ", \"domain\": " + v.get("domain") + ", \"timeout\": " + v.get("timeout") + ", \"examples\": " + examples + "}]}";
  }

  private record Case(String name, String file, byte[] bytes) {}

  private static Case json(String name, String text) {
    return new Case(name, "s.json", text.getBytes(StandardCharsets.UTF_8));
  }

  private static Case yaml(String name, String text) {
    return new Case(name, "s.yaml", text.getBytes(StandardCharsets.UTF_8));
  }

  private static List<Case> cases() {
    List<Case> out = new ArrayList<>();
    String valid = spec(Map.of());
    out.add(json("valid", valid));
    // types and numbers: every hostile value in every slot
    for (String slot : SLOTS.keySet()) {
      for (String h : HOSTILE) {
        out.add(json(slot + "=" + h, spec(Map.of(slot, h))));
      }
    }
    // structure: truncated at many points, the root replaced, keys missing or repeated
    for (int cut = 0; cut < valid.length(); cut += 17) {
      out.add(json("truncated at " + cut, valid.substring(0, cut)));
    }
    for (String root : List.of("", " ", "[]", "\"spec\"", "42", "null", "{}", "{\"ops\": []}", "{\"library\": \"l.so\"}",
        valid + " {}", valid + valid, "{\"library\": \"a.so\", \"library\": \"b.so\", \"ops\": [{\"op\": \"t::f\"}]}",
        "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\", \"op\": \"t::g\"}]}",
        "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\", \"devices\": []}]}",
        "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\", \"skip\": [\"nope.check\"], \"why\": \"x\"}]}",
        "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\", \"timeout\": 1e18}]}",
        "{\"library\": \"a\\u0000b.so\", \"ops\": [{\"op\": \"t::f\"}]}",
        "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\"}], \"extra\": 1}")) {
      out.add(json("root " + root.length(), root));
    }
    for (int depth : List.of(31, 33, 100, 900, 5000)) {
      out.add(json("nested " + depth, spec(Map.of("scalar", "[".repeat(depth) + "]".repeat(depth)))));
    }
    // numbers
    for (String n : List.of("-0", "0.0", "1e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "1" + "0".repeat(2000), "0." + "1".repeat(2000), "1e99999")) {
      out.add(json("timeout " + n.length(), spec(Map.of("timeout", n))));
      out.add(json("shape " + n.length(), spec(Map.of("shape", "[" + n + ", 2]"))));
      out.add(json("low " + n.length(), spec(Map.of("low", n, "init", "\"randint\""))));
    }
    out.add(json("randint low > high", spec(Map.of("init", "\"randint\"", "low", "5", "high", "1", "rg", "false"))));
    out.add(json("requires_grad int64", spec(Map.of("dtype", "\"int64\""))));
    out.add(json("huge shape", spec(Map.of("shape", "[100000, 100000, 100000]"))));
    out.add(json("many dims", spec(Map.of("shape", "[" + "1, ".repeat(2000) + "1]"))));
    // unicode
    for (String u : List.of("\\u202e", "\\ud83d\\ude00", "\\ud800", "\\udc00x", "\\u00e9\\u0301", "\\ufeff", "\\u2028",
        "\\u0085", "\\t\\r\\n", "\\\\")) {
      out.add(json("unicode op " + u, spec(Map.of("op", "\"t::f" + u + "\""))));
      out.add(json("unicode dtype " + u, spec(Map.of("dtype", "\"fp32" + u + "\""))));
      out.add(json("unicode key " + u, "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\", \"o" + u + "p\": 1}]}"));
    }
    // sizes
    String big = "x".repeat(3_000_000);
    for (String slot : List.of("library", "op", "dtype", "why", "scalar", "k")) {
      out.add(json("3 MB " + slot, spec(Map.of(slot, "\"" + big + "\""))));
    }
    out.add(json("3 MB key", "{\"library\": \"a.so\", \"ops\": [{\"op\": \"t::f\", \"" + big + "\": 1}]}"));
    out.add(json("5 MB file", spec(Map.of("why", "\"" + "y".repeat(5_000_000) + "\""))));
    out.add(json("many values", spec(Map.of("shape", "[100000]", "init", "\"rand\"", "examples",
        "[{\"args\": [{\"tensor\": [100000], \"values\": [" + "1.5, ".repeat(99_999) + "1]}, 1.0]}]"))));
    out.add(json("many ops", "{\"library\": \"a.so\", \"ops\": [" + "{\"op\": \"t::f\"},".repeat(20_000)
        + "{\"op\": \"t::f\"}]}"));
    // encodings
    byte[] utf8 = valid.getBytes(StandardCharsets.UTF_8);
    out.add(new Case("utf-16le bom", "s.json", concat(new byte[] {(byte) 0xff, (byte) 0xfe}, valid.getBytes(StandardCharsets.UTF_16LE))));
    out.add(new Case("utf-16be", "s.json", valid.getBytes(StandardCharsets.UTF_16BE)));
    out.add(new Case("utf-8 bom", "s.json", concat(new byte[] {(byte) 0xef, (byte) 0xbb, (byte) 0xbf}, utf8)));
    out.add(new Case("utf-32", "s.json", valid.getBytes(java.nio.charset.Charset.forName("UTF-32"))));
    out.add(new Case("latin-1 in string", "s.json", spec(Map.of("why", "\"caf\u00e9\"")).getBytes(StandardCharsets.ISO_8859_1)));
    out.add(new Case("invalid utf-8", "s.json", concat(utf8, new byte[] {(byte) 0xc3, (byte) 0x28, (byte) 0xff})));
    out.add(new Case("raw NUL", "s.json", concat(new byte[] {0}, utf8)));
    out.add(new Case("yaml utf-16", "s.yaml", "library: a.so\nops: [{op: t::f}]\n".getBytes(StandardCharsets.UTF_16)));
    out.add(new Case("yaml invalid utf-8", "s.yaml", concat("library: a.so\nops: [{op: \"".getBytes(StandardCharsets.UTF_8),
        new byte[] {(byte) 0xff, (byte) 0xfe, '"', '}', ']', '\n'})));
    // YAML features
    String ok = "library: a.so\nops:\n  - op: t::f\n    examples:\n      - args: [{tensor: [2, 3]}, 1.0]\n";
    out.add(yaml("yaml valid", ok));
    for (String y : List.of(
        "library: !!binary aGVsbG8=\nops: [{op: t::f}]\n",
        "library: a.so\nops:\n\t- op: t::f\n",
        "library: a.so\nops:\n  - op: t::f\n\tdevices: [cpu]\n",
        "a: &a [1, 2]\nb: *a\nlibrary: a.so\nops: [{op: t::f}]\n",
        "library: a.so\nops: [{op: t::f, examples: [&e {args: [{tensor: [1]}, 1.0]}, *e]}]\n",
        "library: a.so\nbase: &b {op: t::f}\nops: [{<<: *b, devices: [cpu]}]\n",
        "library: a.so\nops: [{op: t::f}]\n---\nlibrary: b.so\n",
        "? [a, b]\n: 1\nlibrary: a.so\n",
        "library: a.so\nops: !!set {x, y}\n",
        "library: 2024-01-01\nops: [{op: t::f}]\n",
        "library: !!python/object:os.system x\nops: [{op: t::f}]\n",
        "library: !custom x\nops: [{op: t::f}]\n",
        "library: a.so\nops: [{op: t::f, timeout: .nan}]\n",
        "library: a.so\nops: [{op: t::f, timeout: .inf}]\n",
        "library: a.so\nops: [{op: t::f, tolerance: {atol: .nan}}]\n",
        "library: a.so\nops: [{op: t::f, vary: {s: {float: [.nan, 1]}}}]\n",
        "library: a.so\nops: [{op: t::f, examples: [{args: [{tensor: [2], init: randint, low: .inf}, 1.0]}]}]\n",
        "library: a.so\nlibrary: b.so\nops: [{op: t::f}]\n",
        "library: a.so\nops: [{op: t::f, devices: []}]\n",
        "library: 0x1F\nops: [{op: t::f}]\n",
        "library: a.so\nops: [{op: t::f, timeout: 1e18}]\n",
        "library: a.so\nops: [{op: t::f, examples: [{args: [{tensor: [2], dtype: fp32}, 1.0]}]}]\n",
        "library: |\n  multi\n  line\nops: [{op: t::f}]\n",
        "library: a.so\nops: [{op: t::f}]\n# " + "c".repeat(250_000) + "\n",
        "library: a.so\nops: [{op: t::f}]\n# " + "c".repeat(3_000_000) + "\n",
        "library: a.so\nops: [{op: t::f}]\n# " + "c".repeat(5_000_000) + "\n",
        "library: \"" + "v".repeat(3_000_000) + "\"\nops: [{op: t::f}]\n",
        "library: " + "v".repeat(250_000) + "\nops: [{op: t::f}]\n",
        "%YAML 1.2\n---\nlibrary: a.so\nops: [{op: t::f}]\n",
        "%TAG ! tag:x,2000:\n---\nlibrary: !foo a.so\n",
        "library: [unclosed\n",
        "library: a.so\nops: [{op: t::f}]\n...\ngarbage: [\n",
        "{library: a.so, ops: [{op: t::f}]}",
        "- library\n- ops\n",
        "library: a.so\nops: [{op: t::f, examples: [{args: [" + "[".repeat(200) + "]".repeat(200) + "]}]}]\n",
        "library: a.so\nops:\n" + "  - op: t::f\n".repeat(5000),
        "library: a.so\nops: [{op: t::f, skip: [nope.check], why: x}]\n",
        "library: ~\nops: [{op: t::f}]\n",
        "library: a.so\nops: [{op: t::f, \"\\u0000\": 1}]\n",
        "library: \"\\e[31mred\\a\"\nops: [{op: t::f}]\n")) {
      out.add(yaml("yaml " + out.size(), y));
    }
    String bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        + "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        + "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
        + "g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nlibrary: a.so\nops: [{op: t::f}]\n";
    out.add(yaml("yaml billion laughs", bomb));
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * The work reading a spec does, as the bytes its thread allocates: what the code does, the same on an
   * idle and on a loaded machine (the JIT can only allocate less than the interpreter), unlike the time
   * it takes. Reading is linear in the file: a fixed cost and a bounded number of bytes per byte read.
   */
  record Work(com.sun.management.ThreadMXBean threads) {
    /**
     * Allowed for a file of {@code bytes}: 8 MiB fixed (the parser's factory and buffers) and 1.5 KB per
     * byte. The most a fuzz case took was ~4 MB for a spec of 500 bytes and ~575 bytes per byte for 5,000
     * YAML op entries; a quadratic reader would take 65,000 times that for those 65 KB.
     */
    static long bound(long bytes) {
      return (8L << 20) + 1500 * bytes;
    }

    long allocated() {
      return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }
  }

  private static final Work WORK = new Work((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean());

  /** The values (objects, arrays, scalars) of a parsed file; 0 when it does not parse. */
  private static long values(Path file) {
    try {
      return count(SpecReader.parseTree(file));
    } catch (SpecException e) {
      return 0;
    }
  }

  private static long count(SpecValue v) {
    long n = 1;
    if (v.isList()) {
      for (SpecValue e : v.list()) {
        n += count(e);
      }
    } else if (v.isObject()) {
      for (SpecValue e : v.object().values()) {
        n += count(e);
      }
    }
    return n;
  }

  @Test
  void everyMutatedSpecIsReadOrRefusedWithLocatedOneLineMessages() throws IOException {
    assertTrue(WORK.threads().isThreadAllocatedMemorySupported() && WORK.threads().isThreadAllocatedMemoryEnabled(),
        "this JVM counts the bytes a thread allocates");
    List<Case> cases = cases();
    assertTrue(cases.size() >= 300, "fuzz cases: " + cases.size());
    List<String> problems = new ArrayList<>();
    int refused = 0;
    int bound = 0;
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      Path sub = Files.createDirectories(dir.resolve("c" + i));
      Path file = Files.write(sub.resolve(c.file()), c.bytes());
      long allocated = WORK.allocated();
      List<String> messages = new ArrayList<>();
      try {
        SpecFile spec = SpecReader.read(file, CHECKS);
        for (OpSpec op : spec.ops()) {
          messages.addAll(ExampleBinder.errors(op, SCHEMA));
        }
        bound++;
      } catch (SpecException e) {
        messages.addAll(e.lines());
        refused++;
      } catch (RuntimeException | Error e) {
        problems.add(c.name() + ": harness error " + e);
      }
      long work = WORK.allocated() - allocated;
      if (work > Work.bound(c.bytes().length)) {
        problems.add(c.name() + ": " + work + " bytes allocated reading " + c.bytes().length + " (at most "
            + Work.bound(c.bytes().length) + ")");
      }
      long values = values(file);
      if (values > c.bytes().length) {
        problems.add(c.name() + ": " + values + " values read from " + c.bytes().length + " bytes");
      }
      for (String m : messages) {
        if (m.isBlank() || m.endsWith(": ")) {
          problems.add(c.name() + ": empty message " + m);
        }
        if (m.length() > 600) {
          problems.add(c.name() + ": message of " + m.length() + " characters: " + m.substring(0, 200));
        }
        if (m.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
          problems.add(c.name() + ": control character in " + m.replaceAll("\\p{Cntrl}", "?"));
        }
        if (!m.startsWith(file.toString())) {
          problems.add(c.name() + ": not located in the file: " + m);
        }
      }
      Files.delete(file);
    }
    assertEquals(List.of(), problems, cases.size() + " cases, " + refused + " refused, " + bound + " read");
  }

  /** Large specs of one shape, made at a size, and how much the reader's work may grow when the size doubles. */
  private record Family(String name, java.util.function.IntFunction<Case> at, double growth) {}

  /**
   * The reader's work grows with the file as it should: read at three sizes (doubling), each family of
   * large specs allocates at most 2.5 times as much (plus 1 MiB) for twice the size (the JIT, warming
   * up, can only lower the larger ones), where a reader quadratic in its input would take four times as much. One
   * family is quadratic, and known: SnakeYAML (2.4) allocates quadratically in the length of one scalar
   * (plain or quoted; its own {@code Yaml.load} does the same), 80 MB for 200 KB. The 256 KiB limit on
   * YAML spec files is what bounds it, and {@link Work#bound} holds at that limit.
   */
  @Test
  void readingGrowsWithTheFileAsItShould() throws IOException {
    List<Family> families = List.of(
        new Family("JSON op entries", n -> json("ops", "{\"library\": \"a.so\", \"ops\": [" + "{\"op\": \"t::f\"},".repeat(n)
            + "{\"op\": \"t::f\"}]}"), 2.5),
        new Family("YAML op entries", n -> yaml("ops", "library: a.so\nops:\n" + "  - op: t::f\n".repeat(n)), 2.5),
        new Family("JSON tensor values", n -> json("values", spec(Map.of("examples", "[{\"args\": [{\"tensor\": [" + (n + 1)
            + "], \"values\": [" + "1.5, ".repeat(n) + "1]}, 1.0]}]"))), 2.5),
        new Family("JSON string", n -> json("string", spec(Map.of("why", "\"" + "w".repeat(20 * n) + "\""))), 2.5),
        new Family("YAML scalar (quadratic in SnakeYAML)", n -> yaml("scalar", "library: " + "v".repeat(20 * n)
            + "\nops: [{op: t::f}]\n"), 4.5));
    List<String> problems = new ArrayList<>();
    for (Family family : families) {
      long[] work = new long[3];
      long size = 0;
      for (int k = 0; k < 3; k++) {
        Case c = family.at().apply(2500 << k);
        size = c.bytes().length;
        Path file = Files.write(Files.createDirectories(dir.resolve("grow" + k)).resolve(c.file()), c.bytes());
        long before = WORK.allocated();
        try {
          SpecFile spec = SpecReader.read(file, CHECKS);
          for (OpSpec op : spec.ops()) {
            ExampleBinder.errors(op, SCHEMA);
          }
        } catch (SpecException e) {
          problems.add(family.name() + " at " + (2500 << k) + ": refused: " + e.getMessage());
        }
        work[k] = WORK.allocated() - before;
      }
      // 1 MiB of slack: the parsers recycle their buffers, so a small read may allocate next to nothing
      if (work[1] > family.growth() * work[0] + (1 << 20) || work[2] > family.growth() * work[1] + (1 << 20)
          || work[2] > Work.bound(size)) {
        problems.add(family.name() + ": " + work[0] + ", " + work[1] + ", " + work[2] + " bytes allocated at sizes 1, 2, 4 (at most "
            + family.growth() + " times more each, plus 1 MiB, and " + Work.bound(size) + ")");
      }
    }
    assertEquals(List.of(), problems);
  }
}
