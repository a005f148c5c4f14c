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

  /**
   * The tensors of a mixed try draw their dtypes in the order they were given: the same choices, the same
   * input, in every JVM (a Map.copyOf's order is salted per JVM, and a copy once made two runs of one seed
   * differ where two tensors could mix).
   */
  @Test
  void theTensorsOfAMixedTryDrawInTheOrderGiven() throws Exception {
    var schema = OpLibrary.load(NativeOps.lib("tied_ops")).op("tied_ops::weighted_cat").schema();
    ExampleGenerator plain = new ExampleGenerator(schema, new Example("e", List.of(tensor(3), tensor(3), tensor(6)), Map.of()),
        Vary.NONE);
    Map<String, List<String>> order = new java.util.LinkedHashMap<>();
    order.put("b", List.of("float32", "float64"));
    order.put("w", List.of("float32", "int32"));
    Map<String, List<String>> reversed = new java.util.LinkedHashMap<>();
    reversed.put("w", order.get("w"));
    reversed.put("b", order.get("b"));
    // tied, sizes 3 and 6 drawn 0, float32 (in the family, its first), salt 0, three contiguous layouts; then
    // mixed, the first tensor given its option 1, the second its option 0
    List<Long> choices = List.of(0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, ExampleGenerator.MIXED, 1L, 0L);
    Example e = plain.withMixedDtypes(order).generate(Choices.replay(choices));
    assertEquals(List.of("float32", "float64", "float32"), List.of(dtype(e, 0), dtype(e, 1), dtype(e, 2)));
    Example r = plain.withMixedDtypes(reversed).generate(Choices.replay(choices));
    assertEquals(List.of("float32", "float32", "int32"), List.of(dtype(r, 0), dtype(r, 1), dtype(r, 2)));
  }
}
