package dev.opcheck4j.torch;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An operator schema as an immutable value, e.g.
 * {@code my_ops::mul_add(Tensor a, Tensor b, float c) -> Tensor}. {@link #toString()} renders the
 * schema string, which parses back to an equal model.
 *
 * @param name qualified name without overload
 * @param overload overload name, empty for none
 * @param arguments in declaration order
 * @param returns in declaration order; empty for {@code -> ()}
 */
public record OpSchema(
    String name, String overload, List<Argument> arguments, List<Return> returns) {

  public OpSchema {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(overload, "overload");
    arguments = List.copyOf(arguments);
    returns = List.copyOf(returns);
  }

  /** {@code name} or {@code name.overload}. */
  public String qualifiedName() {
    return overload.isEmpty() ? name : name + "." + overload;
  }

  /** The unqualified operator name, e.g. {@code mul_add}. */
  public String baseName() {
    return name.substring(name.indexOf("::") + 2);
  }

  public Optional<Argument> argument(String argName) {
    return arguments.stream().filter(a -> a.name().equals(argName)).findFirst();
  }

  /** Arguments declared written ({@code (a!)}). */
  public List<Argument> mutableArguments() {
    return arguments.stream().filter(a -> a.alias().map(Alias::write).orElse(false)).toList();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(qualifiedName()).append('(');
    boolean kwargs = false;
    for (int i = 0; i < arguments.size(); i++) {
      Argument a = arguments.get(i);
      if (i > 0) {
        sb.append(", ");
      }
      if (a.kwargOnly() && !kwargs) {
        sb.append("*, ");
        kwargs = true;
      }
      sb.append(a);
    }
    sb.append(") -> ");
    if (returns.size() == 1 && returns.get(0).name().isEmpty()) {
      sb.append(returns.get(0));
    } else {
      sb.append(returns.stream().map(Return::toString).collect(Collectors.joining(", ", "(", ")")));
    }
    return sb.toString();
  }

  /**
   * A schema type such as {@code Tensor}, {@code Tensor?}, {@code int[]} or {@code Dict(str, Tensor)}.
   *
   * @param kind libtorch's TypeKind name, e.g. {@code TensorType}, {@code ListType}, {@code OptionalType}
   * @param text the type as libtorch spells it in schemas (list sizes not included)
   * @param contained element types: the element of a list or optional, key and value of a dict
   */
  public record Type(String kind, String text, List<Type> contained) {
    public Type {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(text, "text");
      contained = List.copyOf(contained);
    }

    public boolean isOptional() {
      return kind.equals("OptionalType");
    }

    public boolean isList() {
      return kind.equals("ListType");
    }

    /** The type without Optional: {@code Tensor} for {@code Tensor?}. */
    public Type unwrapOptional() {
      return isOptional() ? contained.get(0) : this;
    }

    /** Whether values of this type are, or may be, a tensor or a list of tensors. */
    public boolean holdsTensor() {
      return kind.equals("TensorType") || contained.stream().anyMatch(Type::holdsTensor);
    }

    public boolean isTensor() {
      return unwrapOptional().kind().equals("TensorType");
    }
  }

  /**
   * An alias annotation such as {@code (a)}, {@code (a!)} or {@code (a -> *)}.
   *
   * @param before the alias sets before the call, e.g. {@code [a]}
   * @param after the alias sets after the call (equal to before unless written {@code a -> b})
   * @param write whether the annotation has {@code !}
   */
  public record Alias(List<String> before, List<String> after, boolean write) {
    public Alias {
      before = List.copyOf(before);
      after = List.copyOf(after);
    }

    @Override
    public String toString() {
      String sets = String.join("|", before);
      String tail = after.equals(before) ? "" : " -> " + String.join("|", after);
      return "(" + sets + (write ? "!" : "") + tail + ")";
    }
  }

  /**
   * One argument.
   *
   * @param name the argument's name
   * @param type its type
   * @param size fixed list size ({@code int[2]}), if declared
   * @param defaultValue the default as written in a schema, if any
   * @param kwargOnly whether it comes after {@code *}
   * @param alias its alias annotation, if any
   */
  public record Argument(
      String name,
      Type type,
      Optional<Integer> size,
      Optional<String> defaultValue,
      boolean kwargOnly,
      Optional<Alias> alias) {

    public boolean isWrite() {
      return alias.map(Alias::write).orElse(false);
    }

    @Override
    public String toString() {
      String d = defaultValue.map(v -> "=" + v).orElse("");
      return spell(type, size, alias) + " " + name + d;
    }
  }

  /**
   * One return value.
   *
   * @param name the return's name, empty when unnamed
   * @param type its type
   * @param alias its alias annotation, if any
   */
  public record Return(String name, Type type, Optional<Alias> alias) {
    @Override
    public String toString() {
      String spelled = spell(type, Optional.empty(), alias);
      return name.isEmpty() ? spelled : spelled + " " + name;
    }
  }

  /** Spells a type with its list size and alias annotation: {@code Tensor(a!)?}, {@code int[2]}. */
  static String spell(Type type, Optional<Integer> size, Optional<Alias> alias) {
    String text = type.text();
    if (size.isPresent()) {
      text = text.replaceFirst("\\[\\]", "[" + size.get() + "]");
    }
    if (alias.isPresent()) {
      String a = alias.get().toString();
      int at = text.indexOf("Tensor");
      text = at < 0 ? text + a : text.substring(0, at + 6) + a + text.substring(at + 6);
    }
    return text;
  }
}
