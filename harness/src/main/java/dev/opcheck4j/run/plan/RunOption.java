package dev.opcheck4j.run.plan;

import dev.opcheck4j.torch.Device;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One option of a run, declared once and read by every front end: the command line by its flag, the
 * JUnit engine by its configuration key, and the help text and docs by its help line. The rows are
 * in {@link RunOptions}.
 *
 * @param flag the command line's flag ({@code --seed}), or null when only the engine has the option
 * @param metavar what the flag's value is called in help ({@code N}); empty for a switch
 * @param key the engine's configuration key after {@link RunOptions#ENGINE_PREFIX} ({@code seed}),
 *     or null when only the command line has the option
 * @param specKey the spec file's key with the same meaning ({@code warnings-as-errors}), or null
 * @param type how one value is read and shown
 * @param repeatable whether the option takes several values: a repeated flag, or a comma-separated
 *     engine value
 * @param fallback the value when the option is not given, or null for none (a repeatable option's
 *     fallback is the empty list)
 * @param unset how the engine describes the option when it is not given and has no fallback
 * @param help the help line; {@code {default}} in it stands for the fallback, shown by {@link Type#show}
 */
public record RunOption<T>(String flag, String metavar, String key, String specKey, Type<T> type, boolean repeatable,
    Supplier<T> fallback, String unset, String help) {

  /** An option of one value, with no engine key, spec key or fallback yet. */
  public static <T> RunOption<T> of(String flag, String metavar, Type<T> type, String help) {
    return new RunOption<>(flag, metavar, null, null, type, false, null, "(none)", help);
  }

  /** An option the engine has and the command line has not. */
  public static <T> RunOption<T> engineOnly(String key, Type<T> type, String help) {
    return new RunOption<>(null, "", key, null, type, false, null, "(none)", help);
  }

  public RunOption<T> engine(String configurationKey) {
    return new RunOption<>(flag, metavar, configurationKey, specKey, type, repeatable, fallback, unset, help);
  }

  public RunOption<T> spec(String key) {
    return new RunOption<>(flag, metavar, this.key, key, type, repeatable, fallback, unset, help);
  }

  public RunOption<T> repeated(String whenUnset) {
    return new RunOption<>(flag, metavar, key, specKey, type, true, fallback, whenUnset, help);
  }

  public RunOption<T> orElse(Supplier<T> value) {
    return new RunOption<>(flag, metavar, key, specKey, type, repeatable, value, unset, help);
  }

  public RunOption<T> orElse(T value) {
    return orElse(() -> value);
  }

  public RunOption<T> unset(String label) {
    return new RunOption<>(flag, metavar, key, specKey, type, repeatable, fallback, label, help);
  }

  /** The full engine key ({@code opcheck4j.seed}), or null. */
  public String engineKey() {
    return key == null ? null : RunOptions.ENGINE_PREFIX + key;
  }

  /** Whether the command line's flag takes no value (its presence means true). */
  public boolean isSwitch() {
    return type == Type.SWITCH;
  }

  /** The value when the option is not given; null when it has none. */
  public T defaultValue() {
    return fallback == null ? null : fallback.get();
  }

  /**
   * Reads one value given under {@code name} (the flag or the engine key).
   *
   * @throws IllegalArgumentException with the one line the user sees: {@code --seed takes a whole number, got 'x'}
   */
  public T parse(String name, String text) {
    try {
      return type.parse().apply(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(name + " takes " + type.expects() + ", got '" + text + "'");
    }
  }

  /** The engine's value of a one-value option, if given ({@code params} maps full keys to raw values). */
  public Optional<T> read(Function<String, Optional<String>> params) {
    return raw(params).map(v -> parse(engineKey(), v));
  }

  /** The engine's value, or the fallback. */
  public T value(Function<String, Optional<String>> params) {
    return read(params).orElseGet(this::defaultValue);
  }

  /** The engine's values of a repeatable option (comma-separated), empty when not given. */
  public List<T> readAll(Function<String, Optional<String>> params) {
    return raw(params).map(v -> Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty())
        .map(s -> parse(engineKey(), s)).toList()).orElse(List.of());
  }

  private Optional<String> raw(Function<String, Optional<String>> params) {
    return params.apply(engineKey()).map(String::strip).filter(s -> !s.isEmpty());
  }

  /**
   * How a value in force is shown (the engine's {@code describe}, the values given to the engine by
   * the command line): a list comma-separated, nothing given as {@link #unset}.
   */
  @SuppressWarnings("unchecked")
  public String show(Object value) {
    if (value instanceof Optional<?> o) {
      return show(o.orElse(null));
    }
    if (repeatable && value instanceof List<?> list) {
      return list.isEmpty() ? unset : String.join(",", list.stream().map(v -> type.show().apply((T) v)).toList());
    }
    return value == null ? unset : type.show().apply((T) value);
  }

  /** The help line, with the fallback in place of {@code {default}}. */
  public String helpLine() {
    return help.replace("{default}", show(defaultValue()));
  }

  /**
   * The kind of an option's value.
   *
   * @param expects what a value must be, in the one-line error: {@code takes <expects>, got 'x'}
   * @param parse reads a value; any exception means the text is not one
   * @param show writes a value as the engine and the command line read it back
   */
  public record Type<T>(String expects, Function<String, T> parse, Function<T, String> show) {
    public static final Type<String> TEXT = new Type<>("a value", s -> s, s -> s);
    public static final Type<Path> PATH = new Type<>("a path", Path::of, Path::toString);
    public static final Type<Long> LONG = new Type<>("a whole number", Long::parseLong, String::valueOf);
    public static final Type<Boolean> SWITCH = new Type<>("true or false", Type::bool, String::valueOf);
    public static final Type<Device> DEVICE = new Type<>("cpu, meta or cuda", s -> Device.parse(s).orElseThrow(),
        Device::label);
    public static final Type<Shard> SHARD = new Type<>("I/N with 1 <= I <= N (e.g. 1/2)",
        Shard::parse, Shard::toString);
    public static final Type<Duration> DURATION = new Type<>("seconds or a duration such as 90s or 2m",
        Type::duration, d -> d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms");

    /** A whole number at least {@code min}. */
    /** A percentage, 0 to 100 (a fraction allowed: 87.5). */
    public static final Type<Double> PERCENT = new Type<>("a percentage from 0 to 100", s -> {
      double v = Double.parseDouble(s.strip());
      if (!(v >= 0 && v <= 100)) {
        throw new IllegalArgumentException(s);
      }
      return v;
    }, String::valueOf);

    public static Type<Integer> atLeast(int min) {
      return new Type<>("a whole number >= " + min, s -> {
        int n = Integer.parseInt(s);
        if (n < min) {
          throw new IllegalArgumentException("below " + min);
        }
        return n;
      }, String::valueOf);
    }

    private static boolean bool(String s) {
      return switch (s.toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> throw new IllegalArgumentException(s);
      };
    }

    /** {@code 90}, {@code 90s}, {@code 2m}, {@code 500ms} or ISO-8601 such as {@code PT90S}; more than zero. */
    private static Duration duration(String v) {
      Duration d;
      if (v.startsWith("P") || v.startsWith("p")) {
        d = Duration.parse(v);
      } else if (v.endsWith("ms")) {
        d = Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
      } else if (v.endsWith("m")) {
        d = Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
      } else {
        d = Duration.ofSeconds(Long.parseLong(v.endsWith("s") ? v.substring(0, v.length() - 1) : v));
      }
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(v);
      }
      return d;
    }
  }
}
