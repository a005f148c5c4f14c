package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.junit.EngineSettings;
import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import dev.opcheck4j.run.plan.RunRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.ConfigurationParameters;

/** Every row of {@link RunOptions} reaches the front ends that name it, read by the row's own parser. */
class OptionTableTests {

  /** A value each row's parser accepts. */
  private static String sample(RunOption<?> row) {
    if (row == RunOptions.CHECKS || row == RunOptions.REQUIRE) {
      return "schema";
    }
    if (row == RunOptions.RUNTIMES) {
      return dev.opcheck4j.run.plan.Runtimes.own().torch();
    }
    RunOption.Type<?> t = row.type();
    return t == RunOption.Type.DEVICE ? "meta" : t == RunOption.Type.SHARD ? "2/3" : t == RunOption.Type.DURATION ? "90s"
        : t == RunOption.Type.SWITCH ? "true" : t == RunOption.Type.PATH ? "some/file" : t == RunOption.Type.TEXT
        ? "ns::op" : "7";
  }

  @Test
  void everyRowHasAFlagOrAnEngineKeyAndAHelpLine() {
    for (RunOption<?> row : RunOptions.all()) {
      assertTrue(row.flag() != null || row.key() != null, row.toString());
      assertFalse(row.helpLine().isBlank(), row.toString());
      assertFalse(row.helpLine().contains("{default}"), row.helpLine());
    }
  }

  @Test
  void everyFlagIsTakenByACommandAndReadByItsRow() throws UsageException {
    for (RunOption<?> row : RunOptions.all()) {
      if (row.flag() == null) {
        continue;
      }
      Command command = Commands.all().stream().filter(c -> c.options().contains(row)).findFirst()
          .orElseThrow(() -> new AssertionError(row.flag() + " is taken by no command"));
      List<String> words = row.isSwitch() ? List.of(row.flag()) : List.of(row.flag(), sample(row));
      Arguments args = Arguments.parse(command, words, "./opcheck");
      assertTrue(args.has(row), row.flag());
      Object value = row.repeatable() ? args.all(row) : args.get(row);
      Object expected = row.parse(row.flag(), sample(row));
      assertEquals(row.repeatable() ? List.of(expected) : expected, value, row.flag());
    }
  }

  @Test
  void everyEngineKeyIsReadByTheEngineAndDescribedWithItsValue() {
    for (RunOption<?> row : RunOptions.all()) {
      if (row.key() == null) {
        continue;
      }
      EngineSettings settings = EngineSettings.from(parameters(Map.of(row.engineKey(), sample(row))));
      Object parsed = row.parse(row.engineKey(), sample(row));
      assertEquals(row.show(row.repeatable() ? List.of(parsed) : parsed), settings.describe().get(row.engineKey()),
          row.engineKey());
    }
    Set<String> keys = EngineSettings.from(parameters(Map.of())).describe().keySet();
    assertEquals(RunOptions.all().stream().filter(r -> r.key() != null).map(RunOption::engineKey).toList(),
        new ArrayList<>(keys));
  }

  @Test
  void theFrontEndsShareOneDefault() {
    EngineSettings engine = EngineSettings.from(parameters(Map.of()));
    RunRequest request = RunRequest.builder().library(java.nio.file.Path.of("x.so")).build();
    assertEquals(RunOptions.SEED.defaultValue(), engine.run().seed());
    assertEquals(RunOptions.SEED.defaultValue(), request.seed());
    assertEquals(RunOptions.TRIES.defaultValue(), engine.run().tries());
    assertEquals(RunOptions.TRIES.defaultValue(), request.tries());
    assertEquals(RunOptions.TIMEOUT.defaultValue(), engine.run().timeout());
    assertEquals(RunOptions.TIMEOUT.defaultValue(), request.timeout());
    assertFalse(request.warningsAsErrors());
    assertEquals(dev.opcheck4j.api.SeverityPolicy.DEFAULT, request.severity());
  }

  @Test
  void aValueTheRowCannotReadIsOneLineNamingTheFlagOrTheKey() {
    UsageException e = org.junit.jupiter.api.Assertions.assertThrows(UsageException.class,
        () -> Arguments.parse(new CheckCommand(), List.of("--jobs", "0"), "./opcheck"));
    assertEquals("--jobs takes a whole number >= 1, got '0'", e.getMessage());
    IllegalArgumentException engine = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> EngineSettings.from(parameters(Map.of("opcheck4j.jobs", "0"))));
    assertEquals("opcheck4j.jobs takes a whole number >= 1, got '0'", engine.getMessage());
  }

  @Test
  void checkHelpHasALineForEveryOptionOfCheck() {
    String help = Usage.of(new CheckCommand());
    for (RunOption<?> row : CheckCommand.OPTIONS) {
      assertTrue(help.lines().anyMatch(l -> l.startsWith("  " + row.flag() + " ") && l.contains(row.helpLine())),
          row.flag() + " missing from\n" + help);
    }
    assertTrue(help.lines().anyMatch(l -> l.matches("  --seed N +seed of everything drawn at random \\(default 20261122\\)")),
        help);
  }

  @Test
  void theDocsHaveARowForEveryOptionAndCommand() throws java.io.IOException {
    java.nio.file.Path docs = dev.opcheck4j.testing.NativeOps.repoRoot().resolve("docs");
    String cli = java.nio.file.Files.readString(docs.resolve("cli.md"));
    String junit = java.nio.file.Files.readString(docs.resolve("junit.md"));
    for (RunOption<?> row : RunOptions.all()) {
      assertTrue(row.flag() == null || cli.contains("| `" + row.flag()), row.flag() + " missing from docs/cli.md");
      assertTrue(row.key() == null || cli.contains("`" + row.engineKey() + "`"), row.key() + " missing from docs/cli.md");
      assertTrue(row.key() == null || junit.contains("| `" + row.engineKey() + "` |"), row.key() + " missing from docs/junit.md");
    }
    for (Command c : Commands.all()) {
      assertTrue(cli.contains("| `" + c.name()), c.name() + " missing from docs/cli.md");
    }
  }

  private static ConfigurationParameters parameters(Map<String, String> values) {
    return new ConfigurationParameters() {
      @Override
      public Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key));
      }

      @Override
      public Optional<Boolean> getBoolean(String key) {
        return get(key).map(Boolean::parseBoolean);
      }

      @Override
      @SuppressWarnings("deprecation")
      public int size() {
        return values.size();
      }

      @Override
      public Set<String> keySet() {
        return values.keySet();
      }
    };
  }
}
