package dev.opcheck4j.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.opcheck4j.spec.OpSpec;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExampleBinderTests {
  @TempDir Path dir;

  private static final OpSchema SCHEMA = SchemaText.parse("t::f(Tensor x, float s, *, int k=2) -> Tensor");

  private List<String> errors(String examples, String vary) throws Exception {
    Path spec = Files.writeString(dir.resolve("s.json"), "{\"library\": \"x.so\", \"ops\": [{\"op\": \"t::f\",\n"
        + "\"vary\": " + vary + ",\n\"examples\": " + examples + "}]}");
    OpSpec op = SpecReader.read(spec).ops().get(0);
    return ExampleBinder.errors(op, SCHEMA).stream().map(e -> e.substring(spec.toString().length())).toList();
  }

  @Test
  void aValidExampleBindsWithoutErrors() throws Exception {
    assertEquals(List.of(), errors("[{\"args\": [{\"tensor\": [2, 3], \"requires_grad\": true}, 1.5], \"kwargs\": {\"k\": 3}}]",
        "{\"k\": {\"int\": [0, 4]}}"));
  }

  @Test
  void everyProblemOfEveryExampleIsOneLocatedLineWithAHint() throws Exception {
    List<String> all = errors("[{\"args\": [{\"tensor\": [2], \"dtype\": \"fp32\"}, 1.0]}, {\"args\": [{\"tensor\": [2]}, \"2\"], \"kwargs\": {\"kk\": 1}},"
            + " {\"args\": [{\"tensor\": [2], \"init\": \"randint\", \"low\": 5, \"high\": 1, \"dtype\": \"int64\", \"requires_grad\": true}]},"
            + " {\"args\": [{\"tensor\": [2], \"layout\": \"contigous\"}, 1.0, 3]}]",
            "{\"kk\": {\"int\": [0, 1]}, \"k\": {\"float\": [0, 1]}}");
    assertEquals(List.of(
        ":3:49: op 't::f' example #1 argument 'x': unknown dtype \"fp32\"; did you mean float32?",
        ":3:115: op 't::f' example #2: has no argument \"kk\"; did you mean k?",
        ":3:92: op 't::f' example #2 argument 's': needs a number (float), got the string \"2\"",
        ":3:172: op 't::f' example #3 argument 'x': init \"randint\" needs low < high (high is exclusive), got low 5.0 and high 1.0",
        ":3:221: op 't::f' example #3 argument 'x': \"requires_grad\" needs a floating-point or complex dtype; int64 tensors"
            + " cannot require gradients",
        ":3:120: op 't::f' example #3 argument 's': is missing (float, no default)",
        ":3:285: op 't::f' example #4 argument 'k': is keyword-only; give it under \"kwargs\"",
        ":3:266: op 't::f' example #4 argument 'x': unknown layout \"contigous\"; did you mean contiguous?",
        ":2:38: op 't::f' \"vary\" argument 'k': 'k' is int: give its range as {\"int\": [lo, hi]}",
        ":2:16: op 't::f' \"vary\" argument 'kk': is not an argument of the op; did you mean k?"), all);
    List<String> got = errors("[{\"args\": [{\"tensor\": [2], \"dtype\": \"fp32\"}, 1.0]}]", "{}");
    assertEquals(List.of(":3:49: op 't::f' example #1 argument 'x': unknown dtype \"fp32\"; did you mean float32?"), got);
  }

  @Test
  void theConsolesTensorNotationIsAShorthandForATensorObject() throws Exception {
    Path spec = Files.writeString(dir.resolve("short.json"), "{\"library\": \"x.so\", \"ops\": [{\"op\": \"t::f\",\n"
        + "\"examples\": [{\"args\": [\"float64[2,3] transposed\", 1.0]}, {\"args\": [\"float32[4,3]\", 2.0]}]}]}");
    OpSpec op = SpecReader.read(spec).ops().get(0);
    assertEquals(List.of(), ExampleBinder.errors(op, SCHEMA));
    var first = op.examples().get(0).args().get(0).object();
    assertEquals(List.of(2L, 3L), first.get("tensor").list().stream().map(v -> v.value()).toList());
    assertEquals("float64", first.get("dtype").value());
    assertEquals("transposed", first.get("layout").value());
    assertEquals("float32", op.examples().get(1).args().get(0).object().get("dtype").value());
    assertEquals(List.of(
        ":4:11: op 't::f' example #1 argument 'x': unknown dtype \"flaot32\"; did you mean float32?",
        ":5:11: op 't::f' example #2 argument 'x': unknown layout \"transposd\"; did you mean transposed?",
        ":6:11: op 't::f' example #3 argument 'x': layout \"transposed\" needs at least 2 dims, the tensor has 1",
        ":7:11: op 't::f' example #4 argument 'x': needs a tensor {\"tensor\": [sizes...]} or \"float32[4,3]\", got the string \"float32[4,x]\""),
        errors("[\n{\"args\": [\"flaot32[4,3]\", 1.0]},\n{\"args\": [\"float32[4,3] transposd\", 1.0]},\n"
            + "{\"args\": [\"float32[4] transposed\", 1.0]},\n{\"args\": [\"float32[4,x]\", 1.0]}]", "{}"));
  }
}
