package dev.opcheck4j.junit;

import dev.opcheck4j.api.CheckInfo;
import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.api.DocsLocation;
import dev.opcheck4j.api.ResultText;
import dev.opcheck4j.reports.AllureTestCase;
import io.qameta.allure.Allure;
import io.qameta.allure.AllureLifecycle;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/**
 * Title, labels, parameters, doc link ({@link AllureTestCase}, the same as the command line's Allure
 * results) and the facts as an attachment, given to the test Allure's own JUnit Platform listener
 * ({@code allure-junit-platform}) has open on this thread. Without Allure on the classpath nothing
 * here is loaded.
 */
final class AllureResults {
  private static final boolean PRESENT = present();

  private AllureResults() {}

  private static boolean present() {
    try {
      Class.forName("io.qameta.allure.Allure", false, AllureResults.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Describes the running test, if Allure has one open. */
  static void describe(CheckResult r, CheckInfo check, String docsBase) {
    if (PRESENT) {
      Bridge.describe(r, check, docsBase);
    }
  }

  /**
   * Runs {@code skip}, which tells the platform a test is skipped without starting it (Allure's
   * listener then opens and closes the test's result inside that call, before anything here could
   * describe it), so that {@link GroupLabels} gives the result the title and labels of {@code r}'s
   * op's checks on its device, named {@code name}.
   */
  static void skippingGroup(CheckResult r, String name, Runnable skip) {
    PENDING.set(new Group(r, name));
    try {
      skip.run();
    } finally {
      PENDING.remove();
    }
  }

  /** The group a test about to be skipped on this thread stands for. */
  private record Group(CheckResult result, String name) {}

  private static final ThreadLocal<Group> PENDING = new ThreadLocal<>();

  /**
   * Allure's lifecycle listener (a service Allure loads itself, so never loaded without Allure):
   * describes the result of a group test being skipped on this thread ({@link #skippingGroup}) as it
   * is stopped.
   */
  public static final class GroupLabels implements io.qameta.allure.listener.TestLifecycleListener {
    @Override
    public void beforeTestStop(io.qameta.allure.model.TestResult t) {
      Group g = PENDING.get();
      if (g != null) {
        AllureTestCase.describeGroup(t, g.result(), g.name());
      }
    }
  }

  /** Touches Allure types only when Allure is on the classpath. */
  private static final class Bridge {
    static void describe(CheckResult r, CheckInfo check, String docsBase) {
      AllureLifecycle lifecycle = Allure.getLifecycle();
      if (lifecycle.getCurrentTestCase().isEmpty()) {
        return;
      }
      String page = DocsLocation.of(docsBase, System.getProperty("opcheck4j.home"))
          .map(base -> DocsLocation.page(base, r.check())).orElse(null);
      lifecycle.updateTestCase(t -> AllureTestCase.describe(t, r, check, page));
      lifecycle.addAttachment("facts", "text/plain", ".txt",
          new ByteArrayInputStream(ResultText.render(r).getBytes(StandardCharsets.UTF_8)));
    }
  }
}
