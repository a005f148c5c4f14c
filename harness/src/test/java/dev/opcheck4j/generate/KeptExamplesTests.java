package dev.opcheck4j.generate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.opcheck4j.spec.Example;
import dev.opcheck4j.spec.SpecReader;
import dev.opcheck4j.testing.NativeOps;
import dev.opcheck4j.torch.Device;
import dev.opcheck4j.torch.OpLibrary;
import dev.opcheck4j.torch.Operator;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.javacpp.PointerScope;
import org.bytedeco.pytorch.LongOptional;
import org.bytedeco.pytorch.Scalar;
import org.bytedeco.pytorch.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A kept example's copy is what a fresh draw of it gives, in every layout a spec can ask for; a kernel
 * that writes into one copy changes no later one; an example with a list of tensors (never kept) binds the same values again.
 */
class KeptExamplesTests {
  private static final String[] TENSORS = {
      "{\"tensor\": [4, 3]}",
      "{\"tensor\": [4, 3], \"dtype\": \"float64\", \"requires_grad\": true}",
      "{\"tensor\": [4, 3], \"layout\": \"transposed\"}",
      "{\"tensor\": [4, 3], \"dtype\": \"int32\", \"init\": \"randint\", \"layout\": \"strided\"}",
      "{\"tensor\": [5], \"dtype\": \"float16\", \"layout\": \"offset\"}",
      "{\"tensor\": [2, 3, 4, 5], \"layout\": \"channels_last\"}",
      "{\"tensor\": [1, 3]}",
      "{\"tensor\": [0, 3]}",
      "{\"tensor\": [], \"dtype\": \"bool\", \"init\": \"randint\", \"low\": 0, \"high\": 2}"};

  @Test
  void aCopyIsWhatADrawGivesInEveryLayoutOnEveryDevice(@TempDir Path dir) throws Exception {
    Operator op = addScalar();
    for (String tensor : TENSORS) {
      Example ex = example(dir, "add_scalar", "[" + tensor + ", 2.5]");
      for (Device device : new Device[] {Device.CPU, Device.META}) {
        try (PointerScope scope = new PointerScope()) {
          BoundExample drawn = Materializer.draw(op, ex, device, 11L);
          for (int k = 0; k < 2; k++) { // the first bind keeps the example, the second copies the kept one
            BoundExample bound = Materializer.bind(op, ex, device, 11L);
            String what = tensor + " on " + device + ", bind " + (k + 1);
            assertEquals(drawn.description(), bound.description(), what);
            assertEquals(2.5, bound.values().get(1).toDouble(), what);
            assertSame(drawn.tensors().get(0).tensor(), bound.tensors().get(0).tensor(), device, what);
            assertTrue(bound.values().get(0).toTensor().is_same(bound.tensors().get(0).tensor()), what);
          }
        }
      }
    }
  }

  @Test
  void aKernelThatWritesIntoOneCopyChangesNoLaterOne(@TempDir Path dir) throws Exception {
    Operator op = addScalar();
    Example ex = example(dir, "add_scalar", "[{\"tensor\": [4, 3], \"layout\": \"strided\"}, 1.0]");
    try (PointerScope scope = new PointerScope()) {
      BoundExample first = Materializer.bind(op, ex, Device.CPU, 3L);
      byte[] before = storageBytes(first.tensors().get(0).tensor());
      first.tensors().get(0).tensor().fill_(new Scalar(7.0));
      assertNotEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(storageBytes(first.tensors().get(0).tensor())));
      assertArrayEquals(before, storageBytes(Materializer.bind(op, ex, Device.CPU, 3L).tensors().get(0).tensor()));
    }
  }

  @Test
  void anExampleWithAListOfTensorsBindsTheSameValuesAgain(@TempDir Path dir) throws Exception {
    Operator op = lib().op("good_ops::sum_list");
    Example ex = example(dir, "sum_list", "[[{\"tensor\": [2, 2]}, {\"tensor\": [3]}]]");
    try (PointerScope scope = new PointerScope()) {
      BoundExample a = Materializer.bind(op, ex, Device.CPU, 5L);
      BoundExample b = Materializer.bind(op, ex, Device.CPU, 5L);
      for (int i = 0; i < 2; i++) {
        assertSame(a.tensors().get(i).tensor(), b.tensors().get(i).tensor(), Device.CPU, "xs[" + i + "]");
      }
      assertTrue(b.values().get(0).isTensorList());
    }
  }

  /** Everything a draw fixes about a tensor, its whole storage's bytes included (the gaps of a layout). */
  private static void assertSame(Tensor want, Tensor got, Device device, String what) {
    assertTrue(!want.is_same(got), what + ": a copy, not the kept tensor");
    assertArrayEquals(want.sizes().vec().get(), got.sizes().vec().get(), what);
    assertArrayEquals(want.strides().vec().get(), got.strides().vec().get(), what);
    assertEquals(want.storage_offset(), got.storage_offset(), what);
    assertEquals(want.storage().nbytes(), got.storage().nbytes(), what);
    assertEquals(want.scalar_type().intern(), got.scalar_type().intern(), what);
    assertEquals(want.device().str().getString(), got.device().str().getString(), what);
    assertEquals(want.requires_grad(), got.requires_grad(), what);
    assertTrue(got.is_leaf(), what);
    if (device != Device.META) {
      assertArrayEquals(storageBytes(want), storageBytes(got), what);
    }
  }

  private static byte[] storageBytes(Tensor t) {
    long elements = t.storage().nbytes() / t.element_size();
    return TensorCopies.bytes(t.detach().as_strided(new long[] {elements}, new long[] {1}, new LongOptional(0)));
  }

  private static Operator addScalar() throws Exception {
    return lib().op("good_ops::add_scalar");
  }

  private static OpLibrary lib;

  private static synchronized OpLibrary lib() throws Exception {
    if (lib == null) {
      lib = OpLibrary.load(NativeOps.lib("good_ops"));
    }
    return lib;
  }

  private static Example example(Path dir, String op, String args) throws Exception {
    Path spec = Files.writeString(dir.resolve(op + ".json"), """
        {"library": "%s", "ops": [{"op": "good_ops::%s", "examples": [{"args": %s}]}]}
        """.formatted(NativeOps.lib("good_ops"), op, args));
    return SpecReader.read(spec).ops().get(0).examples().get(0);
  }
}
