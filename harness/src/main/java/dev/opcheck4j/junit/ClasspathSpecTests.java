package dev.opcheck4j.junit;

/**
 * What Maven Surefire finds in the harness jar so that a project with no test classes still runs
 * its specs: Surefire only starts the JUnit Platform for the classes it scanned, and with
 * {@code <dependenciesToScan>dev.opcheck4j:opcheck4j-harness</dependenciesToScan>} it scans this
 * one. Selecting it makes the engine check the specs under {@code opcheck/} on the test
 * classpath; it is also the class of the spec test sets in Surefire's reports.
 */
public final class ClasspathSpecTests {
  private ClasspathSpecTests() {}
}
