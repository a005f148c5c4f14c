package dev.opcheck4j.junit;

import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;

/**
 * The {@link TestSource} of a node. An IDE gets the spec file. A build tool that selected
 * classes (Surefire, Gradle) reports by class and method name only and groups tests under the
 * nearest class container, so there the spec and each op are named as classes ({@code my_ops.mul_add})
 * and each test as a method of its op ({@code fake.metadata on cpu}): its reports then read as the
 * tree does, with no {@code usePhrased*} settings. These names are for reports; no such class exists.
 *
 * @param file the spec's own source
 * @param reportClass the class name reports group this node's tests under; null when sourcing by file
 * @param method the method name for a test; null for a container of tests
 */
record NodeSources(TestSource file, String reportClass, String method) {
  static NodeSources of(TestSource file, boolean classes, String reportClass) {
    return new NodeSources(file, classes ? reportClass : null, null);
  }

  /** Sources for a child whose tests group under {@code childClass} (a spec or an op). */
  NodeSources container(String childClass) {
    return new NodeSources(file, reportClass == null ? null : childClass, null);
  }

  /** Sources for a test (or container of tests) named {@code name} in this group. */
  NodeSources test(String name) {
    return new NodeSources(file, reportClass, name);
  }

  TestSource source() {
    if (reportClass == null) {
      return file;
    }
    return method == null ? ClassSource.from(reportClass) : MethodSource.from(reportClass, method);
  }

  /** {@code my_ops::mul_add} as a class name: {@code my_ops.mul_add}. */
  static String className(String name) {
    return name.replace("::", ".").replace('/', '.');
  }
}
