package dev.opcheck4j.spec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * Reads spec files (JSON, or YAML with the same structure; see docs/spec.md). Every error names
 * {@code file:line:column}, says what is wrong and what is allowed.
 */
public final class SpecReader {
  static final Set<String> TOP_KEYS = Set.of("library", "ops", "warnings-as-errors", "strict", "require", "runtimes", "packages",
      "min-line-coverage", "all-tries");
  /** The keys of an entry of {@code "packages"} given as an object. */
  static final Set<String> PACKAGE_KEYS = Set.of("file", "inputs", "expect", "baseline");
  static final Set<String> OP_KEYS =
      Set.of("op", "devices", "skip", "why", "tolerance", "examples", "gradcheck", "vary", "domain", "timeout",
          "require", "differentiable", "reference", "double_backward", "variant_of", "tags");
  /** A qualified op name, {@code ns::name} or {@code ns::name.overload}. */
  static final String OP_NAME = "[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)?";
  static final Set<String> EXAMPLE_KEYS = Set.of("args", "kwargs", "expect");
  static final Set<String> DEVICES = Set.of("cpu", "meta", "cuda");
  /** The dtype names a spec may use, in the order errors list them. */
  public static final List<String> DTYPES = List.of("float32", "float64", "float16", "bfloat16", "int64",
      "int32", "int16", "int8", "uint8", "bool", "complex64");
  static final Set<String> DTYPE_NAMES = Set.copyOf(DTYPES);
  /**
   * The tags an op entry may declare ({@code "tags"}): libtorch 2.13's {@code at::Tag} values, the ones the
   * runtime's dispatcher can carry (a test holds this list to the presets' enum, whose order matches
   * torch/headeronly/core/enum_tag.h).
   */
  public static final List<String> TAGS = List.of("core", "cudagraph_unsafe", "data_dependent_output",
      "dynamic_output_shape", "flexible_layout", "generated", "inplace", "inplace_view", "maybe_aliasing_or_mutating",
      "needs_contiguous_strides", "needs_exact_strides", "needs_fixed_stride_order", "nondeterministic_bitwise",
      "nondeterministic_seeded", "out", "out_variant", "pointwise", "pt2_compliant_tag", "reduction", "view_copy");

  /** The largest JSON spec file read, in bytes; a larger one is refused before it is parsed. */
  public static final long MAX_BYTES = 4L << 20;
  /** The largest YAML spec file read, in bytes: SnakeYAML reads a long comment or scalar in quadratic time. */
  public static final long MAX_YAML_BYTES = 256L << 10;
  /** The deepest nesting of arrays and objects in a spec file. */
  public static final int MAX_DEPTH = 32;
  /** The longest deadline an op may give, in seconds (a day). */
  static final double MAX_TIMEOUT_SECONDS = 86_400;

  private static final java.util.concurrent.atomic.LongAdder PARSES = new java.util.concurrent.atomic.LongAdder();

  private SpecReader() {}

  /** Reads {@code file}, taking any well-formed check id or family in {@code "skip"}. */
  public static SpecFile read(Path file) throws SpecException {
    return read(file, Set.of());
  }

  /**
   * Reads {@code file}; {@code "skip"} may name only {@code checkNames} (check ids and families), or
   * any well-formed name when it is empty.
   */
  public static SpecFile read(Path file, Set<String> checkNames) throws SpecException {
    return parse(file, checkNames).file();
  }

  /**
   * A spec file read once: its located values as written, and what they say.
   *
   * @param tree the file's values, each with where it was written (what a result cache keys on)
   * @param file the spec they make
   */
  public record Parsed(SpecValue tree, SpecFile file) {}

  /** {@link #read(Path, Set)}, keeping the values as written too. */
  public static Parsed parse(Path file, Set<String> checkNames) throws SpecException {
    Path path = file.toAbsolutePath().normalize();
    if (!Files.isRegularFile(path)) {
      throw new SpecException(path.toString(), "spec file not found");
    }
    PARSES.increment();
    SpecValue root = parseTree(path);
    return new Parsed(root, interpret(path, root, checkNames));
  }

  /**
   * Checks that every {@code "skip"} of a spec read with any well-formed name (the JUnit engine's
   * discovery, which knows no run's checks yet) names one of {@code checkNames}: the error
   * {@link #parse(Path, Set)} with these names would have given, from the values already read. (A file
   * that read once has no other error, so the first unknown name in file order is the one it would report.)
   *
   * @throws SpecException naming the first unknown check or family, where it is written
   */
  public static void requireCheckNames(Parsed parsed, Set<String> checkNames) throws SpecException {
    for (SpecValue entry : parsed.tree().object().get("ops").list()) {
      SpecValue skip = entry.object().get("skip");
      if (skip != null) {
        for (SpecValue s : skip.list()) {
          requireCheckName(s, checkNames);
        }
      }
    }
  }

  private static void requireCheckName(SpecValue s, Set<String> checkNames) throws SpecException {
    if (!checkNames.isEmpty() && !checkNames.contains(s.value())) {
      String hint = NearestName.didYouMean((String) s.value(), checkNames.stream().sorted().toList());
      throw new SpecException(s.location(), "\"skip\" names " + SpecValue.quote((String) s.value())
          + ", which is no check or family" + (hint.isEmpty() ? " (./opcheck checks lists them)" : hint));
    }
  }

  /**
   * How many spec files this JVM has parsed so far ({@link #parse}, {@link #read}): what a test reads
   * before and after an entry point runs, to see that it parses each spec once.
   */
  public static long parses() {
    return PARSES.sum();
  }

  /** Parses any JSON or YAML file into located values (for files shaped like specs). */
  public static SpecValue parseTree(Path path) throws SpecException {
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    boolean yaml = name.endsWith(".yaml") || name.endsWith(".yml");
    JsonFactory factory = yaml ? new YAMLFactory() : new JsonFactory();
    factory.enable(JsonParser.Feature.ALLOW_COMMENTS);
    try {
      long size = Files.size(path);
      long max = yaml ? MAX_YAML_BYTES : MAX_BYTES;
      if (size > max) {
        throw new SpecException(path.toString(), "spec file is " + size + " bytes; " + (yaml ? "YAML" : "JSON")
            + " spec files may have at most " + max + " (" + (yaml ? "256 KiB; JSON ones 4 MiB" : "4 MiB")
            + "): give large tensors by shape and init, not by values");
      }
    } catch (IOException e) {
      throw new SpecException(path.toString(), "cannot read: " + oneLine(e.getMessage()));
    }
    try (JsonParser p = factory.createParser(path.toFile())) {
      if (p.nextToken() == null) {
        throw new SpecException(path + ":1:1", "empty spec file; expected an object with \"library\" and \"ops\"");
      }
      SpecValue v = value(p, path, 0);
      if (p.nextToken() != null) {
        throw new SpecException(where(path, p.currentTokenLocation()), "unexpected content after the spec object");
      }
      return v;
    } catch (JsonProcessingException e) {
      throw malformed(path, yaml, e);
    } catch (IOException | RuntimeException e) {
      // SnakeYAML reports some problems (an unreadable encoding, a document over its own limits) unchecked
      throw new SpecException(path.toString(), "cannot read: " + oneLine(String.valueOf(e.getMessage())));
    }
  }

  /** A parse error as one line: the parser's problem, where it is, without the parser's quoted excerpt. */
  private static SpecException malformed(Path path, boolean yaml, JsonProcessingException e) {
    String at = where(path, e.getLocation());
    String problem = e.getOriginalMessage();
    if (e.getCause() instanceof org.yaml.snakeyaml.error.MarkedYAMLException m) {
      problem = m.getProblem() != null ? m.getProblem() : m.getContext();
      if (m.getProblemMark() != null) {
        at = path + ":" + (m.getProblemMark().getLine() + 1) + ":" + (m.getProblemMark().getColumn() + 1);
      }
    }
    return new SpecException(at, "malformed " + (yaml ? "YAML" : "JSON") + ": " + oneLine(String.valueOf(problem)));
  }

  /** The first line of a parser's message, cut to a length a console line holds. */
  static String oneLine(String message) {
    String first = message.strip().lines().findFirst().orElse("").strip();
    first = first.replaceAll("\\p{Cntrl}", "?");
    return first.length() > 200 ? first.substring(0, 200) + "…" : first;
  }

  private static SpecValue value(JsonParser p, Path path, int depth) throws IOException, SpecException {
    String at = where(path, p.currentTokenLocation());
    JsonToken t = p.currentToken();
    if ((t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) && depth >= MAX_DEPTH) {
      throw new SpecException(at, "arrays and objects nested more than " + MAX_DEPTH + " deep; a spec needs far fewer");
    }
    switch (t) {
      case START_OBJECT -> {
        Map<String, SpecValue> map = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          String keyAt = where(path, p.currentTokenLocation());
          p.nextToken();
          SpecValue before = map.put(key, value(p, path, depth + 1));
          if (before != null) {
            throw new SpecException(keyAt, "duplicate key " + SpecValue.quote(key) + " (first given at "
                + before.location().substring(path.toString().length() + 1) + "); give each key once");
          }
        }
        return new SpecValue(map, at);
      }
      case START_ARRAY -> {
        List<SpecValue> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          list.add(value(p, path, depth + 1));
        }
        return new SpecValue(list, at);
      }
      case VALUE_STRING -> {
        return new SpecValue(p.getText(), at);
      }
      case VALUE_NUMBER_INT -> {
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
          throw new SpecException(at, "whole number with " + p.getTextLength() + " digits is out of range (at most "
              + Long.MAX_VALUE + ")");
        }
        return new SpecValue(p.getLongValue(), at);
      }
      case VALUE_NUMBER_FLOAT -> {
        return new SpecValue(p.getDoubleValue(), at);
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return new SpecValue(p.getBooleanValue(), at);
      }
      case VALUE_NULL -> {
        return new SpecValue(null, at);
      }
      case VALUE_EMBEDDED_OBJECT -> throw new SpecException(at, "binary and other tagged YAML values (!!binary) "
          + "cannot be given in a spec; use strings, numbers, true/false, null, arrays and objects");
      default -> throw new SpecException(at, "unexpected " + t + "; a spec holds strings, numbers, true/false, null, "
          + "arrays and objects");
    }
  }

  static String where(Path path, JsonLocation loc) {
    return loc == null ? path.toString() : path + ":" + loc.getLineNr() + ":" + loc.getColumnNr();
  }

  private static SpecFile interpret(Path path, SpecValue root, Set<String> checkNames) throws SpecException {
    Map<String, SpecValue> top = object(root, "the spec", TOP_KEYS);
    SpecValue lib = required(top, "library", root);
    if (!lib.isString() || ((String) lib.value()).isBlank()) {
      throw new SpecException(lib.location(), "\"library\" must be a path string (relative to the spec file), got " + lib.describe());
    }
    Path library;
    try {
      library = path.getParent().resolve((String) lib.value()).normalize();
    } catch (java.nio.file.InvalidPathException e) {
      throw new SpecException(lib.location(), "\"library\" is not a usable path: " + lib.describe()
          + " (" + oneLine(e.getReason()) + ")");
    }
    SpecValue ops = required(top, "ops", root);
    if (!ops.isList() || ops.list().isEmpty()) {
      throw new SpecException(ops.location(), "\"ops\" must be a non-empty array of op entries, got " + ops.describe());
    }
    String file = path.getFileName().toString();
    List<OpSpec> entries = new ArrayList<>();
    for (int i = 0; i < ops.list().size(); i++) {
      entries.add(opEntry(ops.list().get(i), file + "#ops[" + i + "]", checkNames, path.getParent()));
    }
    boolean warningsAsErrors = flag(top, "warnings-as-errors");
    boolean strict = flag(top, "strict");
    if (top.containsKey("require")) {
      List<String> families = require(top.get("require"));
      entries.replaceAll(e -> e.requiring(families));
    }
    List<String> runtimes = new ArrayList<>();
    if (top.containsKey("runtimes")) {
      for (SpecValue r : list(top.get("runtimes"), "\"runtimes\"")) {
        if (!r.isString() || !((String) r.value()).matches("\\d+\\.\\d+\\.\\d+")) {
          throw new SpecException(r.location(), "\"runtimes\" entries are libtorch versions such as \"2.13.0\", got "
              + r.describe());
        }
        runtimes.add((String) r.value());
      }
    }
    List<PackageEntry> packages = new ArrayList<>();
    if (top.containsKey("packages")) {
      for (SpecValue p : list(top.get("packages"), "\"packages\"")) {
        packages.add(packageEntry(p, path.getParent()));
      }
    }
    Double minimum = null;
    if (top.containsKey("min-line-coverage")) {
      SpecValue m = top.get("min-line-coverage");
      if (!m.isNumber() || !(m.number() >= 0 && m.number() <= 100)) {
        throw new SpecException(m.location(), "\"min-line-coverage\" must be a percentage from 0 to 100, got "
            + m.describe());
      }
      minimum = m.number();
    }
    return new SpecFile(path, library, entries, warningsAsErrors, strict, runtimes, packages, minimum,
        flag(top, "all-tries"));
  }

  /**
   * An entry of {@code "packages"}: the path of an AOTInductor package, or {@code {"file": ..., "inputs": [...],
   * "expect": ..., "baseline": ...}}; every path relative to the spec's folder, and every file there.
   */
  private static PackageEntry packageEntry(SpecValue v, Path dir) throws SpecException {
    if (v.isString()) {
      return new PackageEntry(existing(v, dir, "\"packages\" entry", "an AOTInductor package (.pt2)"), List.of(), null,
          null, v.location());
    }
    Map<String, SpecValue> m = object(v, "a \"packages\" entry (a path, or {\"file\", \"inputs\", \"expect\","
        + " \"baseline\"})", PACKAGE_KEYS);
    Path file = existing(required(m, "file", v), dir, "\"file\"", "an AOTInductor package (.pt2)");
    List<Path> inputs = new ArrayList<>();
    if (m.containsKey("inputs")) {
      for (SpecValue in : list(m.get("inputs"), "\"inputs\"")) {
        inputs.add(existing(in, dir, "\"inputs\" entry", "a tensor saved by torch.save"));
      }
    }
    Path expect = m.containsKey("expect") ? existing(m.get("expect"), dir, "\"expect\"",
        "the outputs saved by torch.save") : null;
    if (inputs.isEmpty() != (expect == null)) {
      throw new SpecException(v.location(), "a \"packages\" entry runs its package when it names both \"inputs\""
          + " and \"expect\": give both, or neither to check the package without running it");
    }
    Path baseline = m.containsKey("baseline") ? existing(m.get("baseline"), dir, "\"baseline\"",
        "a schema baseline (./opcheck baseline) of the release the package was compiled with") : null;
    return new PackageEntry(file, inputs, expect, baseline, v.location());
  }

  /** The file a string value names, relative to {@code dir}; it must be there. */
  private static Path existing(SpecValue v, Path dir, String what, String holding) throws SpecException {
    if (!v.isString() || ((String) v.value()).isBlank()) {
      throw new SpecException(v.location(), what + " is the path of " + holding + ", got " + v.describe());
    }
    Path file;
    try {
      file = dir.resolve((String) v.value()).normalize();
    } catch (java.nio.file.InvalidPathException e) {
      throw new SpecException(v.location(), what + " is not a usable path: " + v.describe());
    }
    if (!Files.isRegularFile(file)) {
      throw new SpecException(v.location(), what + " file not found: " + file);
    }
    return file;
  }

  /** A top-level {@code true}/{@code false} key ({@code "strict": true}); false when absent. */
  private static boolean flag(Map<String, SpecValue> top, String key) throws SpecException {
    if (!top.containsKey(key)) {
      return false;
    }
    SpecValue w = top.get(key);
    if (!w.isBoolean()) {
      throw new SpecException(w.location(), "\"" + key + "\" must be true or false, got " + w.describe());
    }
    return (Boolean) w.value();
  }

  /** {@code "require": ["gradcheck", "fake"]}: check families that must run on the ops. */
  private static List<String> require(SpecValue v) throws SpecException {
    List<String> families = new ArrayList<>();
    for (SpecValue f : list(v, "\"require\"")) {
      if (!f.isString() || !((String) f.value()).matches("[a-z]+")) {
        throw new SpecException(f.location(), "\"require\" entries are check families such as \"gradcheck\" or \"fake\", got "
            + f.describe());
      }
      families.add((String) f.value());
    }
    return families;
  }

  private static OpSpec opEntry(SpecValue v, String ref, Set<String> checkNames, Path dir) throws SpecException {
    Map<String, SpecValue> m = object(v, "an op entry", OP_KEYS);
    SpecValue op = required(m, "op", v);
    if (!op.isString() || !((String) op.value()).matches(OP_NAME)) {
      throw new SpecException(op.location(), "\"op\" must be a qualified name like \"ns::name\" or \"ns::name.overload\", got " + op.describe());
    }
    List<String> devices = new ArrayList<>();
    if (m.containsKey("devices")) {
      List<SpecValue> named = list(m.get("devices"), "\"devices\"");
      if (named.isEmpty()) {
        throw new SpecException(m.get("devices").location(), "\"devices\" must name at least one device; "
            + "leave it out to run on every available device");
      }
      for (SpecValue d : named) {
        if (!d.isString() || !DEVICES.contains(d.value())) {
          throw new SpecException(d.location(), "unknown device " + d.describe() + "; allowed: cpu, meta, cuda");
        }
        devices.add((String) d.value());
      }
    }
    Map<String, String> skips = new LinkedHashMap<>();
    if (m.containsKey("skip")) {
      SpecValue why = m.get("why");
      if (why == null || !why.isString() || ((String) why.value()).isBlank()) {
        throw new SpecException(m.get("skip").location(), "\"skip\" needs a \"why\" string giving the reason");
      }
      List<SpecValue> skipped = list(m.get("skip"), "\"skip\"");
      if (skipped.isEmpty()) {
        throw new SpecException(m.get("skip").location(), "\"skip\" must name at least one check or family; leave it out to skip none");
      }
      for (SpecValue s : skipped) {
        if (!s.isString() || !((String) s.value()).matches("[a-z]+(\\.[a-z-]+)?")) {
          throw new SpecException(s.location(), "\"skip\" entries are check ids or families such as \"determinism\" or \"fake.metadata\", got " + s.describe());
        }
        requireCheckName(s, checkNames);
        skips.put((String) s.value(), (String) why.value());
      }
    }
    Optional<OpSpec.Tolerance> tolerance = Optional.empty();
    if (m.containsKey("tolerance")) {
      SpecValue tv = m.get("tolerance");
      Map<String, SpecValue> t = object(tv, "\"tolerance\"", Set.of("atol", "rtol"));
      tolerance = Optional.of(new OpSpec.Tolerance(
          nonNegative(t, "atol", tv, 1e-5), nonNegative(t, "rtol", tv, 1.3e-6)));
    }
    List<Example> examples = new ArrayList<>();
    if (m.containsKey("examples")) {
      List<SpecValue> xs = list(m.get("examples"), "\"examples\"");
      for (int i = 0; i < xs.size(); i++) {
        examples.add(example(xs.get(i), ref + ".examples[" + i + "]", dir));
      }
    }
    OpSpec.Gradcheck gradcheck = OpSpec.Gradcheck.DEFAULT;
    if (m.containsKey("gradcheck")) {
      SpecValue gv = m.get("gradcheck");
      Map<String, SpecValue> g = object(gv, "\"gradcheck\"", Set.of("eps", "atol", "rtol", "mode"));
      boolean fast = true;
      if (g.containsKey("mode")) {
        SpecValue mode = g.get("mode");
        if (!mode.isString() || !(mode.value().equals("fast") || mode.value().equals("slow"))) {
          throw new SpecException(mode.location(), "\"mode\" must be \"fast\" or \"slow\", got " + mode.describe());
        }
        fast = mode.value().equals("fast");
      }
      OpSpec.Gradcheck d = OpSpec.Gradcheck.DEFAULT;
      double eps = nonNegative(g, "eps", gv, d.eps());
      if (eps == 0) {
        throw new SpecException(g.get("eps").location(), "\"eps\" must be > 0");
      }
      gradcheck = new OpSpec.Gradcheck(eps, nonNegative(g, "atol", gv, d.atol()), nonNegative(g, "rtol", gv, d.rtol()), fast);
    }
    SpecValue doubleBackward = m.get("double_backward");
    if (doubleBackward != null) {
      if (!doubleBackward.isBoolean()) {
        throw new SpecException(doubleBackward.location(), "\"double_backward\" must be true or false, got "
            + doubleBackward.describe());
      }
      if (!(Boolean) doubleBackward.value()) {
        gradcheck = gradcheck.withoutDoubleBackward();
      }
    }
    Vary vary = m.containsKey("vary") ? vary(m.get("vary")) : Vary.NONE;
    Optional<Duration> timeout = Optional.empty();
    if (m.containsKey("timeout")) {
      SpecValue tv = m.get("timeout");
      if (!tv.isNumber() || !(tv.number() > 0) || tv.number() > MAX_TIMEOUT_SECONDS) {
        throw new SpecException(tv.location(), "\"timeout\" is the deadline of one unit in seconds (a number > 0, at most "
            + (long) MAX_TIMEOUT_SECONDS + "), got " + tv.describe());
      }
      timeout = Optional.of(Duration.ofMillis(Math.round(tv.number() * 1000)));
    }
    Domain domain = m.containsKey("domain") ? domain(m.get("domain")) : Domain.ANY;
    List<String> require = m.containsKey("require") ? require(m.get("require")) : List.of();
    SpecValue differentiable = m.get("differentiable");
    if (differentiable != null && !differentiable.isBoolean()) {
      throw new SpecException(differentiable.location(), "\"differentiable\" must be true or false, got "
          + differentiable.describe());
    }
    if (m.containsKey("tags") && list(m.get("tags"), "\"tags\"").isEmpty()) {
      throw new SpecException(m.get("tags").location(), "\"tags\" must name at least one tag; leave it out to declare none");
    }
    List<String> tags = names(m, "tags", Set.copyOf(TAGS));
    Optional<Reference> reference = Optional.empty();
    if (m.containsKey("reference")) {
      SpecValue rv = m.get("reference");
      if (!rv.isString() || ((String) rv.value()).isBlank()) {
        throw new SpecException(rv.location(), "\"reference\" is TorchScript over the op's argument names, such as"
            + " \"torch.sin(x) * alpha\", or a \"def reference(...)\" function; got " + rv.describe());
      }
      reference = Optional.of(new Reference((String) rv.value(), rv.location()));
    }
    Optional<VariantOf> variantOf = m.containsKey("variant_of")
        ? Optional.of(variantOf(m.get("variant_of"), (String) op.value())) : Optional.empty();
    return new OpSpec((String) op.value(), devices, skips, tolerance, examples, ref, gradcheck, vary, domain, "",
        timeout, require, differentiable == null || (Boolean) differentiable.value(), reference, variantOf, tags);
  }

  /**
   * {@code "variant_of": {"op": "ns::scale", "kind": "in-place"}} (or {@code "out"}), naming the family of
   * an op whose name does not follow PyTorch's pattern; or {@code {"none": "why"}}, for an op named like a
   * member that is none. Whether the named op exists is known once the library is loaded.
   */
  private static VariantOf variantOf(SpecValue v, String member) throws SpecException {
    Map<String, SpecValue> m = object(v, "\"variant_of\"", Set.of("op", "kind", "none"));
    String form = "; give {\"op\": \"ns::foo\", \"kind\": \"in-place\"} (or \"out\") for the op this one is a variant of,"
        + " or {\"none\": \"why\"} for an op that is no variant";
    if (m.containsKey("none")) {
      SpecValue why = m.get("none");
      if (m.size() > 1) {
        throw new SpecException(v.location(), "\"variant_of\" gives \"none\" with \"op\" or \"kind\"" + form);
      }
      if (!why.isString() || ((String) why.value()).isBlank()) {
        throw new SpecException(why.location(), "\"none\" in \"variant_of\" is the reason the op is no variant, got "
            + why.describe());
      }
      return new VariantOf("", false, (String) why.value(), v.location());
    }
    SpecValue op = m.get("op");
    SpecValue kind = m.get("kind");
    if (op == null || kind == null) {
      throw new SpecException(v.location(), "\"variant_of\" needs \"op\" and \"kind\"" + form);
    }
    if (!op.isString() || !((String) op.value()).matches(OP_NAME)) {
      throw new SpecException(op.location(), "\"op\" in \"variant_of\" is the functional op's qualified name like"
          + " \"ns::name\", got " + op.describe());
    }
    if (op.value().equals(member)) {
      throw new SpecException(op.location(), "\"variant_of\" names the op itself; name the functional op it is a"
          + " variant of");
    }
    if (!kind.isString() || !(kind.value().equals(VariantOf.IN_PLACE) || kind.value().equals(VariantOf.OUT))) {
      throw new SpecException(kind.location(), "\"kind\" in \"variant_of\" is \"" + VariantOf.IN_PLACE + "\" or \""
          + VariantOf.OUT + "\", got " + kind.describe());
    }
    return new VariantOf((String) op.value(), kind.value().equals(VariantOf.IN_PLACE), "", v.location());
  }

  /** {@code "domain": {"layouts": ["contiguous"], "dtypes": ["float32"], "devices": ["cpu"]}}. */
  private static Domain domain(SpecValue v) throws SpecException {
    Map<String, SpecValue> m = object(v, "\"domain\"", Set.of("layouts", "dtypes", "devices"));
    return new Domain(names(m, "layouts", Set.copyOf(Domain.LAYOUTS)), names(m, "dtypes", DTYPE_NAMES),
        names(m, "devices", DEVICES));
  }

  private static List<String> names(Map<String, SpecValue> m, String key, Set<String> allowed) throws SpecException {
    List<String> out = new ArrayList<>();
    if (!m.containsKey(key)) {
      return out;
    }
    List<SpecValue> xs = list(m.get(key), "\"" + key + "\"");
    if (xs.isEmpty()) {
      throw new SpecException(m.get(key).location(), "\"" + key + "\" must name at least one; leave it out to allow any");
    }
    for (SpecValue x : xs) {
      if (!x.isString() || !allowed.contains(x.value())) {
        List<String> sorted = allowed.stream().sorted().toList();
        String hint = !x.isString() ? "" : key.equals("dtypes") ? NearestName.didYouMeanDtype((String) x.value(), sorted)
            : NearestName.didYouMean((String) x.value(), sorted);
        throw new SpecException(x.location(), "unknown " + key.substring(0, key.length() - 1) + " "
            + (x.isString() ? SpecValue.quote((String) x.value()) : x.describe())
            + " in \"" + key + "\"; allowed: " + String.join(", ", sorted) + hint);
      }
      out.add((String) x.value());
    }
    return out;
  }

  /**
   * {@code "vary": {"box": {"int": [0, 64]}, "scale": {"float": [0.5, 2]}, "dtype": ["float32"],
   * "values": "extremes"}}: per-argument ranges, plus the reserved keys dtype and values.
   */
  private static Vary vary(SpecValue v) throws SpecException {
    Map<String, SpecValue> m = object(v, "\"vary\"", null);
    Map<String, Vary.Range> ranges = new LinkedHashMap<>();
    List<String> dtypes = new ArrayList<>();
    boolean extremes = false;
    for (Map.Entry<String, SpecValue> e : m.entrySet()) {
      SpecValue x = e.getValue();
      if (e.getKey().equals("dtype") && x.isList()) {
        for (SpecValue d : x.list()) {
          if (!d.isString() || !DTYPE_NAMES.contains(d.value())) {
            throw new SpecException(d.location(), "\"dtype\" in \"vary\" lists dtypes such as \"float32\", got " + d.describe()
                + (d.isString() ? NearestName.didYouMeanDtype((String) d.value(), DTYPE_NAMES.stream().sorted().toList()) : ""));
          }
          dtypes.add((String) d.value());
        }
      } else if (e.getKey().equals("values") && x.isString()) {
        if (!x.value().equals("normal") && !x.value().equals("extremes")) {
          throw new SpecException(x.location(), "\"values\" in \"vary\" is \"normal\" or \"extremes\", got " + x.describe());
        }
        extremes = x.value().equals("extremes");
      } else {
        Map<String, SpecValue> r = object(x, "the range of " + SpecValue.quote(e.getKey()), Set.of("int", "float"));
        if (r.size() != 1) {
          throw new SpecException(x.location(), "a range is {\"int\": [lo, hi]} or {\"float\": [lo, hi]}");
        }
        boolean integer = r.containsKey("int");
        SpecValue bounds = r.get(integer ? "int" : "float");
        if (!bounds.isList() || bounds.list().size() != 2 || !bounds.list().get(0).isNumber() || !bounds.list().get(1).isNumber()
            || !Double.isFinite(bounds.list().get(0).number()) || !Double.isFinite(bounds.list().get(1).number())
            || bounds.list().get(0).number() > bounds.list().get(1).number()
            || integer && !(bounds.list().get(0).isInteger() && bounds.list().get(1).isInteger())) {
          throw new SpecException(bounds.location(), "a range is [lo, hi] with lo <= hi" + (integer ? ", whole numbers" : ", finite")
              + ", got " + (bounds.isList() ? bounds.list().stream().map(SpecValue::describe).toList().toString() : bounds.describe()));
        }
        ranges.put(e.getKey(), new Vary.Range(integer, bounds.list().get(0).number(), bounds.list().get(1).number(), x.location()));
      }
    }
    return new Vary(ranges, dtypes, extremes);
  }

  private static Example example(SpecValue v, String ref, Path dir) throws SpecException {
    Map<String, SpecValue> m = object(v, "an example", EXAMPLE_KEYS);
    List<SpecValue> args = m.containsKey("args") ? list(m.get("args"), "\"args\"") : List.of();
    Map<String, SpecValue> kwargs =
        m.containsKey("kwargs") ? object(m.get("kwargs"), "\"kwargs\"", null) : Map.of();
    // "float32[4,3] transposed", as the console prints a tensor, stands for its {"tensor": ...} object
    Map<String, SpecValue> expanded = new LinkedHashMap<>();
    kwargs.forEach((k, x) -> expanded.put(k, TensorNotation.expand(x)));
    Optional<Example.Expect> expect = Optional.empty();
    if (m.containsKey("expect")) {
      SpecValue e = m.get("expect");
      if (!e.isString() || ((String) e.value()).isBlank()) {
        throw new SpecException(e.location(), "\"expect\" is the path of a file saved by torch.save, got " + e.describe());
      }
      Path file = dir.resolve((String) e.value()).normalize();
      if (!Files.isRegularFile(file)) {
        throw new SpecException(e.location(), "\"expect\" file not found: " + file);
      }
      expect = Optional.of(new Example.Expect(file, e.location()));
    }
    return new Example(ref, args.stream().map(TensorNotation::expand).toList(), expanded, 0L, v.location(), expect);
  }

  private static double nonNegative(Map<String, SpecValue> m, String key, SpecValue owner, double dflt)
      throws SpecException {
    SpecValue v = m.get(key);
    if (v == null) {
      return dflt;
    }
    if (!v.isNumber() || !(v.number() >= 0) || v.number() == Double.POSITIVE_INFINITY) {
      throw new SpecException(v.location(), "\"" + key + "\" must be a finite number >= 0, got " + v.describe());
    }
    return v.number();
  }

  static Map<String, SpecValue> object(SpecValue v, String what, Set<String> allowed) throws SpecException {
    if (!v.isObject()) {
      throw new SpecException(v.location(), what + " must be an object, got " + v.describe());
    }
    if (allowed != null) {
      for (Map.Entry<String, SpecValue> e : v.object().entrySet()) {
        if (!allowed.contains(e.getKey())) {
          List<String> sorted = allowed.stream().sorted().toList();
          String hint = NearestName.didYouMean(e.getKey(), sorted);
          throw new SpecException(e.getValue().location(), "unknown key " + SpecValue.quote(e.getKey()) + " in " + what
              + "; allowed: " + String.join(", ", sorted) + hint);
        }
      }
    }
    return v.object();
  }

  static List<SpecValue> list(SpecValue v, String what) throws SpecException {
    if (!v.isList()) {
      throw new SpecException(v.location(), what + " must be an array, got " + v.describe());
    }
    return v.list();
  }

  private static SpecValue required(Map<String, SpecValue> m, String key, SpecValue owner) throws SpecException {
    SpecValue v = m.get(key);
    if (v == null) {
      throw new SpecException(owner.location(), "missing \"" + key + "\"");
    }
    return v;
  }
}
