package dev.opcheck4j.cli;

import dev.opcheck4j.run.plan.RunOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A command line read against the options its command takes: the values given for each row of
 * {@link dev.opcheck4j.run.plan.RunOptions}, the other words (operands), and the line as typed.
 */
final class Arguments {
  private final Map<RunOption<?>, List<Object>> given;
  private final List<String> operands;
  private final String commandLine;

  private Arguments(Map<RunOption<?>, List<Object>> given, List<String> operands, String commandLine) {
    this.given = given;
    this.operands = operands;
    this.commandLine = commandLine;
  }

  /**
   * Reads {@code words} (the words after the command's name).
   *
   * @throws UsageException for an option the command does not take (with "did you mean"), a value
   *     missing or not parsed by its row, or an operand of a command that takes none
   */
  static Arguments parse(Command command, List<String> words, String commandLine) throws UsageException {
    Map<String, RunOption<?>> byFlag = new LinkedHashMap<>();
    command.options().forEach(o -> byFlag.put(o.flag(), o));
    Map<RunOption<?>, List<Object>> given = new LinkedHashMap<>();
    List<String> operands = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      RunOption<?> option = byFlag.get(word);
      if (option == null && word.startsWith("-")) {
        List<String> known = new ArrayList<>(byFlag.keySet());
        known.add("--help");
        throw new UsageException("unknown option '" + word + "'" + Suggestions.didYouMean(word, known) + " (see --help)");
      }
      if (option == null) {
        if (operands.size() >= command.operands()) {
          throw new UsageException("unexpected argument '" + word + "' (options start with --; see --help)");
        }
        operands.add(word);
        continue;
      }
      Object value;
      if (option.isSwitch()) {
        value = true;
      } else if (i + 1 >= words.size()) {
        throw new UsageException(word + " needs a value");
      } else {
        try {
          value = option.parse(word, words.get(++i));
        } catch (IllegalArgumentException e) {
          throw new UsageException(e.getMessage());
        }
      }
      given.computeIfAbsent(option, k -> new ArrayList<>()).add(value);
    }
    return new Arguments(given, List.copyOf(operands), commandLine);
  }

  /** The value of a one-value option: the last one given, or the row's default (null when it has none). */
  @SuppressWarnings("unchecked")
  <T> T get(RunOption<T> option) {
    List<Object> values = given.get(option);
    return values == null ? option.defaultValue() : (T) values.get(values.size() - 1);
  }

  /** Every value given for a repeatable option, in order. */
  @SuppressWarnings("unchecked")
  <T> List<T> all(RunOption<T> option) {
    return (List<T>) List.copyOf(given.getOrDefault(option, List.of()));
  }

  /** Whether the option was on the command line. */
  boolean has(RunOption<?> option) {
    return given.containsKey(option);
  }

  /** The words that are no option, in order. */
  List<String> operands() {
    return operands;
  }

  /** The command line as typed, for the reports' run block. */
  String commandLine() {
    return commandLine;
  }

  /** These arguments with {@code option} given as {@code values} instead (none: as if not given). */
  <T> Arguments with(RunOption<T> option, List<T> values) {
    Map<RunOption<?>, List<Object>> copy = new LinkedHashMap<>(given);
    copy.remove(option);
    if (!values.isEmpty()) {
      copy.put(option, List.copyOf(values));
    }
    return new Arguments(copy, operands, commandLine);
  }
}
