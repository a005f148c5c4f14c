package dev.opcheck4j.junit;

import dev.opcheck4j.api.CheckResult;
import dev.opcheck4j.run.ResultText;
import io.qameta.allure.Allure;
import io.qameta.allure.AllureLifecycle;
import io.qameta.allure.model.Label;
import io.qameta.allure.model.Link;
import io.qameta.allure.model.Parameter;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/**
 * Labels, parameters, facts and doc link for Allure, added to the test Allure's own JUnit Platform
 * listener ({@code allure-junit-platform}) has open on this thread. Allure is optional: without
 * it on the classpath nothing here is loaded.
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
  static void describe(CheckResult r, String library, String docsBase) {
    if (PRESENT) {
      Bridge.describe(r, library, docsBase);
    }
  }

  /** Touches Allure types only when Allure is on the classpath. */
  private static final class Bridge {
    static void describe(CheckResult r, String library, String docsBase) {
      AllureLifecycle lifecycle = Allure.getLifecycle();
      if (lifecycle.getCurrentTestCase().isEmpty()) {
        return;
      }
      lifecycle.updateTestCase(t -> {
        t.getLabels().add(new Label().setName("epic").setValue(library));
        t.getLabels().add(new Label().setName("feature").setValue(r.family()));
        t.getLabels().add(new Label().setName("story").setValue(r.check()));
        t.getParameters().add(new Parameter().setName("op").setValue(r.op()));
        t.getParameters().add(new Parameter().setName("device").setValue(r.device()));
        t.getParameters().add(new Parameter().setName("example").setValue(r.example()));
        t.getLinks().add(new Link().setName(r.check()).setType("doc").setUrl(docsBase + r.check() + ".md"));
      });
      lifecycle.addAttachment("facts", "text/plain", ".txt",
          new ByteArrayInputStream(ResultText.render(r).getBytes(StandardCharsets.UTF_8)));
    }
  }
}
