package dev.opcheck4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.testing.NativeOps;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code check --junit-xml DIR}: the platform's own XML writer, valid JUnit XML, the run's exit code. */
class JUnitXmlTests {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private ExitCode run(String... args) {
    return new Main(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
        NativeOps.repoRoot()).run(args);
  }

  static void validate(Path xml) throws Exception {
    SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
    Validator v = f.newSchema(JUnitXmlTests.class.getResource("/junit-xml/junit.xsd")).newValidator();
    v.validate(new StreamSource(xml.toFile()));
  }

  @Test
  void aFailingRunWritesValidJUnitXmlWithTheFactsAndExitsOne() throws Exception {
    ExitCode code = run("check", "--spec", NativeOps.spec("bad/bad_ops.json").toString(), "--op", "bad_ops::dict_arg",
        "--op", "bad_ops::nondeterministic", "--check", "schema", "--check", "determinism", "--device", "cpu",
        "--device", "cuda", "--tries", "0", "--junit-xml", dir.toString());
    assertEquals(ExitCode.CHECK_FAILED, code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
    Path xml = dir.resolve("TEST-opcheck4j.xml");
    validate(xml);
    String text = Files.readString(xml);
    assertTrue(text.contains("<testcase name=\"schema.types\""), text);
    assertTrue(text.contains("<failure message=\"FAILED [schema.types] bad_ops::dict_arg"), text);
    assertTrue(text.contains("name=\"determinism on cpu\""), text);
    assertTrue(text.matches("(?s).*no CUDA device (in this process|on this machine).*"), "skips carry their reason: " + text);
    assertTrue(Files.exists(dir.resolve("opcheck-report.json")) || !out.toString(StandardCharsets.UTF_8).contains("report (json)"));
  }

  @Test
  void aPassingRunExitsZero() throws Exception {
    ExitCode code = run("check", "--spec", NativeOps.spec("good_ops.json").toString(), "--check", "schema",
        "--junit-xml", dir.toString());
    assertEquals(ExitCode.OK, code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
    validate(dir.resolve("TEST-opcheck4j.xml"));
  }

  @Test
  void aLibraryWithoutSpecIsAUsageError() {
    assertEquals(ExitCode.INPUT_ERROR, run("check", "--library", NativeOps.lib("good_ops").toString(), "--junit-xml", dir.toString()));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--junit-xml checks spec files"), err.toString(StandardCharsets.UTF_8));
  }
}
