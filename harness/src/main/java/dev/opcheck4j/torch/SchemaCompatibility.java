package dev.opcheck4j.torch;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Whether an op as registered now keeps the promises a baseline recorded: its schema backward
 * compatible by the rules of libtorch's {@code FunctionSchema::isBackwardCompatibleWith}, and every
 * kernel the baseline had still there (or still served by a composite kernel).
 */
public final class SchemaCompatibility {
  private SchemaCompatibility() {}

  /**
   * One way the op breaks its callers.
   *
   * @param what what changed, e.g. {@code argument 'scale' renamed to 'factor'}
   * @param was what the baseline had
   * @param now what the library has now
   */
  public record Break(String what, String was, String now) {}

  /**
   * Every break of {@code now} (its schema and dispatch table) against the baseline entry {@code old},
   * empty when compatible. Plain Java, so it runs in a process without libtorch: the schema verdict is
   * {@link #backwardCompatible}, held equal to libtorch's own by tests.
   */
  public static List<Break> compare(SchemaBaseline.Entry old, OpSchema now, DispatchTable table) {
    return breaks(old, now, table, backwardCompatible(now, SchemaText.parse(old.schema())));
  }

  private static List<Break> breaks(SchemaBaseline.Entry old, OpSchema now, DispatchTable table, boolean compatible) {
    List<Break> breaks = new ArrayList<>();
    if (!compatible) {
      List<String> changes = describe(SchemaText.parse(old.schema()), now);
      if (changes.isEmpty()) {
        changes = List.of("the schema is not backward compatible (FunctionSchema::isBackwardCompatibleWith)");
      }
      for (String c : changes) {
        breaks.add(new Break(c, old.schema(), now.toString()));
      }
    }
    for (String key : old.kernels()) {
      if (!table.has(key) && !stillServed(key, table)) {
        breaks.add(new Break("the " + key + " kernel is gone", "kernels at " + String.join(", ", old.kernels()),
            table.isEmpty() ? "no kernels" : "kernels at " + String.join(", ", table.keys())));
      }
    }
    return breaks;
  }

  /**
   * libtorch's {@code FunctionSchema::isBackwardCompatibleWith(old)} in plain Java, for processes
   * without libtorch; tests hold it equal to libtorch's on every pair of schemas they try.
   */
  public static boolean backwardCompatible(OpSchema now, OpSchema old) {
    if (!now.name().equals(old.name()) || !now.overload().equals(old.overload())
        || now.returns().size() != old.returns().size() || now.arguments().size() < old.arguments().size()) {
      return false;
    }
    for (int i = 0; i < now.returns().size(); i++) {
      OpSchema.Return o = old.returns().get(i);
      OpSchema.Return n = now.returns().get(i);
      // returns are covariant: the new one must be at least as specific
      if (!o.name().equals(n.name()) || !o.alias().equals(n.alias()) || !subtype(n.type(), o.type())) {
        return false;
      }
    }
    int oldOut = firstOut(old.arguments());
    int newOut = firstOut(now.arguments());
    for (int i = 0; i < oldOut; i++) {
      if (!argumentCompatible(now.arguments().get(i), old.arguments().get(i))) {
        return false;
      }
    }
    for (int i = oldOut; i < newOut; i++) {
      if (now.arguments().get(i).defaultValue().isEmpty()) {
        return false;
      }
    }
    for (int i = oldOut; i < old.arguments().size(); i++) {
      int j = i - oldOut + newOut;
      if (j >= now.arguments().size() || !argumentCompatible(now.arguments().get(j), old.arguments().get(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean argumentCompatible(OpSchema.Argument now, OpSchema.Argument old) {
    return now.name().equals(old.name())
        && now.size().equals(old.size())
        && now.alias().equals(old.alias())
        && !(now.kwargOnly() && !old.kwargOnly())
        && subtype(old.type(), now.type())
        && (old.defaultValue().isEmpty() || old.defaultValue().equals(now.defaultValue()));
  }

  /** Index of the first out argument (keyword-only and written), or the argument count. */
  private static int firstOut(List<OpSchema.Argument> args) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).kwargOnly() && args.get(i).isWrite()) {
        return i;
      }
    }
    return args.size();
  }

  /** TorchScript's subtype relation on the types schemas use: {@code a <: b}. */
  static boolean subtype(OpSchema.Type a, OpSchema.Type b) {
    if (a.equals(b) || b.kind().equals("AnyType")) {
      return true;
    }
    if (b.isOptional()) {
      return subtype(a.isOptional() ? a.contained().get(0) : a, b.contained().get(0));
    }
    if (a.isOptional()) {
      return false;
    }
    if (b.kind().equals("NumberType")) {
      return List.of("IntType", "FloatType", "ComplexType").contains(a.kind());
    }
    return false;
  }

  /** Whether a key the baseline had a kernel for still runs the op through another kernel. */
  static boolean stillServed(String key, DispatchTable table) {
    if (DispatchTable.COMPOSITE_KEYS.contains(key)) {
      return false;
    }
    if (key.startsWith("Autograd")) {
      return table.has("CompositeImplicitAutograd") || table.keys().stream().anyMatch(k -> k.startsWith("Autograd"));
    }
    return table.kernelServing(key).isPresent();
  }

  /**
   * What changed between two schemas, in the terms of libtorch's rules: arguments removed, renamed,
   * retyped, losing or changing a default, changing their alias annotation or becoming keyword-only;
   * new arguments without a default; returns changed.
   */
  static List<String> describe(OpSchema old, OpSchema now) {
    List<String> out = new ArrayList<>();
    List<OpSchema.Argument> a = old.arguments();
    List<OpSchema.Argument> b = now.arguments();
    for (int i = 0; i < a.size(); i++) {
      OpSchema.Argument o = a.get(i);
      if (i >= b.size()) {
        out.add("argument '" + o.name() + "' removed");
        continue;
      }
      OpSchema.Argument n = b.get(i);
      if (!o.name().equals(n.name())) {
        out.add("argument '" + o.name() + "' renamed to '" + n.name() + "'");
      }
      if (!o.type().text().equals(n.type().text()) || !o.size().equals(n.size())) {
        out.add("argument '" + o.name() + "' changed type from " + o.type().text() + " to " + n.type().text());
      }
      if (o.defaultValue().isPresent() && n.defaultValue().isEmpty()) {
        out.add("argument '" + n.name() + "' lost its default (=" + o.defaultValue().get() + ")");
      } else if (o.defaultValue().isPresent() && !o.defaultValue().equals(n.defaultValue())) {
        out.add("argument '" + n.name() + "' changed its default from " + o.defaultValue().get() + " to "
            + n.defaultValue().get());
      }
      if (!Objects.equals(o.alias(), n.alias())) {
        out.add("argument '" + n.name() + "' changed its alias annotation from " + alias(o) + " to " + alias(n));
      }
      if (n.kwargOnly() && !o.kwargOnly()) {
        out.add("argument '" + n.name() + "' became keyword-only");
      }
    }
    for (int i = a.size(); i < b.size(); i++) {
      if (b.get(i).defaultValue().isEmpty()) {
        out.add("new argument '" + b.get(i).name() + "' has no default");
      }
    }
    if (!old.returns().toString().equals(now.returns().toString())) {
      out.add("returns changed from " + old.returns() + " to " + now.returns());
    }
    return out;
  }

  private static String alias(OpSchema.Argument arg) {
    return arg.alias().map(OpSchema.Alias::toString).orElse("none");
  }
}
