package dev.opcheck4j.reports;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.ResultText;
import io.qameta.allure.model.Label;
import io.qameta.allure.model.Link;
import io.qameta.allure.model.Parameter;
import io.qameta.allure.model.StatusDetails;
import io.qameta.allure.model.TestResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What an opcheck4j result is in Allure, said once for both producers: the command line's
 * {@code allure-results/} ({@link AllureResultsFormat}) and the JUnit engine, which describes the
 * test Allure's own JUnit Platform listener has open. Title, full name, labels (suites by library
 * and op, feature by family, story by check, a tag per device, severity), parameters and the
 * check's doc link come from here only.
 */
public final class AllureTestCase {
  private static final Set<String> LABELS = Set.of("framework", "parentSuite", "suite", "feature", "story", "tag", "runtime",
      "severity");

  private AllureTestCase() {}

  /**
   * Gives {@code t} the title, full name, labels, parameters and doc link of {@code r}, replacing
   * labels and parameters of the same names that another listener set.
   *
   * @param check what the catalog says of the result's check, or null when it is not known
   * @param docUrl the address of the check's doc page, or null for no link
   */
  public static void describe(TestResult t, CheckResult r, CheckInfo check, String docUrl) {
    String subject = Outcomes.subject(r);
    t.setName(ResultText.title(r, subject, r.deviceOrNull() == null ? List.of() : List.of(r.device())));
    t.setFullName(subject + "." + r.check() + (r.deviceOrNull() == null ? "" : "." + r.device())
        + (r.runtime() == null ? "" : ".libtorch-" + r.runtime()));
    List<Label> labels = labels(t, r, r.family(), r.check());
    if (check != null) {
      // Allure's severities: a failure is critical, a warning minor, a note trivial
      labels.add(new Label().setName("severity").setValue(switch (check.severity()) {
        case ERROR -> "critical";
        case WARNING -> "minor";
        case NOTE -> "trivial";
      }));
    }
    t.setLabels(labels);
    List<Parameter> params = new ArrayList<>(t.getParameters());
    params.removeIf(p -> p.getName().equals("device") || p.getName().equals("example") || p.getName().equals("runtime"));
    if (r.deviceOrNull() != null) {
      params.add(new Parameter().setName("device").setValue(r.device()));
    }
    if (r.runtime() != null) {
      params.add(new Parameter().setName("runtime").setValue("libtorch " + r.runtime()));
    }
    if (!r.example().equals(CheckResult.NONE)) {
      params.add(new Parameter().setName("example").setValue(r.example()));
    }
    t.setParameters(params);
    if (docUrl != null) {
      t.getLinks().add(new Link().setName(r.check()).setType("doc").setUrl(docUrl));
    }
  }

  /**
   * Gives {@code t} the title and labels of a test that stands for all of an op's checks on one
   * device (the JUnit engine's one "checks on cuda" test where no CUDA device can exist): the suites
   * of {@code r}, its op's results on that device, with the device as feature and tag and the group
   * as story.
   *
   * @param name the test's name, as the engine shows it ("checks on cuda")
   */
  public static void describeGroup(TestResult t, CheckResult r, String name) {
    String subject = Outcomes.subject(r);
    t.setName(subject + ": " + name);
    t.setFullName(subject + "." + r.device());
    t.setLabels(labels(t, r, r.device(), name));
  }

  /** {@code t}'s labels with ours in place of those of the same names: suites by library and op, a tag per device. */
  private static List<Label> labels(TestResult t, CheckResult r, String feature, String story) {
    List<Label> labels = new ArrayList<>(t.getLabels());
    labels.removeIf(l -> LABELS.contains(l.getName()));
    labels.add(new Label().setName("framework").setValue("opcheck4j"));
    labels.add(new Label().setName("parentSuite").setValue(r.library() != null ? r.library() : namespace(r.op())));
    labels.add(new Label().setName("suite").setValue(Outcomes.subject(r)));
    labels.add(new Label().setName("feature").setValue(feature));
    labels.add(new Label().setName("story").setValue(story));
    if (r.deviceOrNull() != null) {
      labels.add(new Label().setName("tag").setValue(r.device()));
    }
    if (r.runtime() != null) {
      labels.add(new Label().setName("tag").setValue("libtorch " + r.runtime()));
      labels.add(new Label().setName("runtime").setValue(r.runtime()));
    }
    return labels;
  }

  /**
   * The message and text of a result that has facts or did not pass: the message is
   * {@code OUTCOME [check] first fact}, with the cause kind after CRASHED (the categories match on them), the text the result in
   * the one message shape; null for a passed result without facts.
   */
  public static StatusDetails details(CheckResult r) {
    if (r.facts().isEmpty() && Outcomes.kind(r) == Outcomes.Kind.PASSED) {
      return null;
    }
    String first = r.facts().isEmpty() ? r.outcome().label() : r.facts().get(0).key() + ": " + r.facts().get(0).value();
    return new StatusDetails()
        .setMessage(Outcomes.kind(r).label().toUpperCase(java.util.Locale.ROOT) + crashCause(r) + " [" + r.check() + "] "
            + first)
        .setTrace(ResultText.render(r, Outcomes.subject(r), r.deviceOrNull() == null ? List.of() : List.of(r.device()),
            ResultText.Values.AS_IS) + "\n");
  }

  /** For a crashed result, its cause kind in parentheses (the categories tell crashes from timeouts by it); else empty. */
  private static String crashCause(CheckResult r) {
    return Outcomes.kind(r) == Outcomes.Kind.CRASHED ? " (" + r.finding().cause().kind() + ")" : "";
  }

  private static String namespace(String op) {
    int colons = op.indexOf("::");
    return colons < 0 ? op : op.substring(0, colons);
  }
}
