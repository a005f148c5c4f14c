package dev.opcheck4j.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecValue;
import dev.opcheck4j.spec.Vary;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.OpLibrary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Dtypes that differ between tensors (issue 43): which tensors may take one of their own, and how tries draw it. No kernel runs. */
class MixedDtypesTests {

  private static SpecValue tensor(long... sizes) {
    return new SpecValue(Map.of("tensor", new SpecValue(java.util.Arrays.stream(sizes).mapToObj(s -> new SpecValue(s, "-")).toList(), "-")), "-");
  }

  private static String dtype(Example e, int arg) {
    SpecValue d = e.args().get(arg).object().get("dtype");
    return d == null ? "float32" : (String) d.value();
  }

  @Test
  void everyTensorButTheFirstOfADtypeMayTakeAnotherAndTheChoiceComesLast() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("tied_ops")).op("tied_ops::shift_by").schema();
    ExampleGenerator plain = new ExampleGenerator(schema, new Example("e", List.of(tensor(2, 3), tensor(2, 3)), Map.of()),
        Vary.NONE);
    assertEquals(Map.of("s", List.of("float64", "float16", "bfloat16", "bool", "uint8", "int8", "int16", "int32", "int64")),
        plain.mixableDtypes());
    assertEquals("float64", dtype(plain.withDtypeOf("s", "float64"), 1));
    assertEquals("float32", dtype(plain.withDtypeOf("s", "float64"), 0));
    ExampleGenerator mixing = plain.withMixedDtypes(Map.of("s", List.of("float64")));
    int mixed = 0;
    for (long seed = 0; seed < 100; seed++) {
      Choices a = Choices.random(seed);
      Choices b = Choices.random(seed);
      Example p = plain.generate(a);
      Example m = mixing.generate(b);
      assertEquals(a.sequence(), b.sequence().subList(0, a.sequence().size()), "every earlier choice as before");
      assertEquals(dtype(p, 0), dtype(m, 0));
      if (!dtype(m, 1).equals(dtype(p, 1))) {
        mixed++;
        assertEquals("float64", dtype(m, 1));
      }
    }
    assertTrue(mixed > 3 && mixed < 30, "about one try in five gives s its own dtype: " + mixed);
  }
}
