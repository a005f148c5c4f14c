package dev.opcheck4j.cli;

import dev.opcheck4j.run.plan.RunOption;
import dev.opcheck4j.run.plan.RunOptions;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code demo}: {@code check} on the bundled example specs, with every report (Allure's too) in {@code reports/out}
 * unless told otherwise.
 */
final class DemoCommand implements Command {
  @Override
  public String name() {
    return "demo";
  }

  @Override
  public String summary() {
    return "Checks the bundled example ops (fixtures/specs/my_ops.json, warp_perspective.json, good_ops.json) and"
        + " writes the reports to reports/out.";
  }

  @Override
  public String synopsis() {
    return "demo [options]";
  }

  @Override
  public List<RunOption<?>> options() {
    return CheckCommand.OPTIONS.stream().filter(o -> o != RunOptions.SPECS && o != RunOptions.LIBRARIES).toList();
  }

  @Override
  public ExitCode run(Arguments args, Session s) throws Exception {
    Path specs = s.home().resolve("fixtures/specs");
    // the example library in both forms: stable ABI (my_ops) and the tutorial's classic code (warp_perspective)
    Arguments demo = args.with(RunOptions.SPECS, List.of(specs.resolve("my_ops.json"), specs.resolve("warp_perspective.json"),
        specs.resolve("good_ops.json")));
    if (!args.has(RunOptions.REPORT_DIR)) {
      demo = demo.with(RunOptions.REPORT_DIR, List.of(s.home().resolve("reports/out")));
    }
    // the demo shows every report format, Allure's too (docs/report.md#allure)
    demo = demo.with(RunOptions.ALLURE, List.of(true));
    return new CheckCommand().run(demo, s);
  }
}
