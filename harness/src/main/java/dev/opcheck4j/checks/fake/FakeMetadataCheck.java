package dev.opcheck4j.checks.fake;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.CheckBase;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.MetaStandIn;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import dev.opcheck4j.generate.TensorSpec;
import dev.opcheck4j.torch.Device;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.bytedeco.pytorch.BooleanList;
import org.bytedeco.pytorch.IValue;
import org.bytedeco.pytorch.Tensor;

/**
 * The meta kernel describes the real kernel's outputs: run on meta copies of the inputs (same
 * sizes, strides, storage offset, dtype) and on the real device, and compare the number of outputs,
 * which are tensors, the values of the others (bool, int, float, str, lists of them: a meta kernel must
 * return what the real one does), and the tensors' sizes, dtype, strides (dims of size > 1, non-empty
 * tensors), storage offset, and which outputs alias which inputs. Runs for each real device; meta is the reference.
 */
public final class FakeMetadataCheck extends ValueCheck implements ExampleCheck {
  public static final String ID = "fake.metadata";

  public FakeMetadataCheck() {
    super(Declaration.error(ID, "outputs on meta tensors match the real outputs' metadata and aliasing")
        .requires(FakeMissingCheck.ID, KernelErrorCheck.ID)
        .onGeneratedInputs());
  }

  @Override
  public Optional<String> notFor(dev.opcheck4j.torch.OpSchema schema, OpTags tags) {
    return crossRefSkips(tags);
  }

  /**
   * Why PyTorch's CrossRefFakeMode (opcheck's test_faketensor) does not compare an op with {@code tags} on
   * fake and real tensors: its output sizes depend on the data ({@code dynamic_output_shape}), its output
   * is data ({@code data_dependent_output}), or it changes its input's metadata in place
   * ({@code inplace_view}); empty for any other op.
   */
  public static Optional<String> crossRefSkips(OpTags tags) {
    return tags.firstOf(OpTags.DYNAMIC_OUTPUT_SHAPE, OpTags.DATA_DEPENDENT_OUTPUT, OpTags.INPLACE_VIEW)
        .map(t -> Coverage.NOT_APPLICABLE + "the op is tagged " + tags.describe(t) + ": "
            + switch (t) {
              case OpTags.DYNAMIC_OUTPUT_SHAPE -> "its output sizes depend on the input's values, which meta tensors do not have";
              case OpTags.DATA_DEPENDENT_OUTPUT -> "its output depends on the input's values, which meta tensors do not have";
              default -> "it changes its input's sizes or strides in place";
            } + "; PyTorch's CrossRefFakeMode (opcheck's test_faketensor) does not compare such an op either");
  }

  @Override
  public Verdict evaluateExample(Subject s) throws Exception {
    BoundExample real = OpCall.bind(s, s.device());
    BoundExample meta = OpCall.bind(s, Device.META);
    OpCall.Outputs realOut = OpCall.call(s, real);
    OpCall.Outputs metaOut;
    Fact example = OpCall.exampleFact(s, real);
    try {
      metaOut = OpCall.call(s, meta);
    } catch (OpCall.KernelError e) {
      if (MetaStandIn.composite(s)) {
        return Verdict.skipped(MetaStandIn.cannotJudge(s.device(), e.getMessage()));
      }
      return Verdict.failed(Finding.of(
          "the meta kernel accepts what the " + s.device().label() + " kernel accepts",
          "meta kernel raised: " + e.getMessage(),
          "make the Meta kernel check the same conditions as the real kernel, and only those",
          new Cause.Rejection(e.getMessage())), example);
    }
    List<Mismatch> mismatches = compare(realOut, real, metaOut, meta);
    if (mismatches.isEmpty()) {
      return Verdict.passed(Fact.of("outputs compared", realOut.values().isEmpty()
          ? "none (the op returns nothing; the meta kernel accepted the inputs)" : String.valueOf(realOut.values().size())));
    }
    Mismatch first = mismatches.get(0);
    if (first.property().equals("value")) {
      return Verdict.failed(Finding.of(
          "meta outputs match " + s.device().label() + " outputs (values of the non-tensor outputs)",
          first.text(),
          "compute non-tensor outputs in the Meta kernel exactly as the real kernel does, from sizes, strides and"
              + " dtypes only (never from the device or the data): torch.compile traces with what the Meta kernel returns",
          new Cause.MetadataMismatch(first.where(), first.property())), example);
    }
    return Verdict.failed(Finding.of(
        "meta outputs match " + s.device().label() + " outputs (sizes, dtype, strides, storage offset, aliasing)",
        String.join("; ", mismatches.stream().map(Mismatch::text).toList()),
        "make the Meta kernel allocate its outputs exactly as the real kernel does (new_empty with the"
            + " same sizes and dtype; same memory format)",
        new Cause.MetadataMismatch(first.where(), first.property())), example);
  }

  /** One difference between a meta output and the real one: where, which property, and as text. */
  record Mismatch(String where, String property, String text) {}

  static List<Mismatch> compare(OpCall.Outputs real, BoundExample realIn, OpCall.Outputs meta, BoundExample metaIn) {
    List<Mismatch> out = new ArrayList<>();
    if (real.values().size() != meta.values().size()) {
      out.add(new Mismatch("outputs", "count",
          "meta returned " + meta.values().size() + " values, " + real.values().size() + " expected"));
      return out;
    }
    for (int i = 0; i < real.values().size(); i++) {
      IValue r = real.values().get(i);
      IValue m = meta.values().get(i);
      if (r.isTensor() != m.isTensor() || r.isTensorList() != m.isTensorList()) {
        out.add(new Mismatch("output " + i, "kind", "output " + i + " is " + (r.isTensor() ? "a tensor" : r.tagKind().getString())
            + " on the real device but " + (m.isTensor() ? "a tensor" : m.tagKind().getString()) + " on meta"));
      }
    }
    for (int i = 0; i < real.values().size() && out.isEmpty(); i++) {
      Optional<String> r = plainValue(real.values().get(i));
      Optional<String> m = plainValue(meta.values().get(i));
      if (r.isPresent() && !r.equals(m)) {
        out.add(new Mismatch("output " + i, "value",
            "output " + i + " is " + m.orElse(meta.values().get(i).tagKind().getString()) + " on meta, " + r.get() + " real"));
      }
    }
    if (!out.isEmpty() || real.tensors().size() != meta.tensors().size()) {
      if (out.isEmpty()) {
        out.add(new Mismatch("outputs", "tensor count",
            "meta returned " + meta.tensors().size() + " tensors, " + real.tensors().size() + " expected"));
      }
      return out;
    }
    for (int i = 0; i < real.tensors().size(); i++) {
      Tensor r = real.tensors().get(i).tensor();
      Tensor m = meta.tensors().get(i).tensor();
      String label = real.tensors().get(i).label();
      long[] rs = r.sizes().vec().get();
      long[] ms = m.sizes().vec().get();
      if (!Arrays.equals(rs, ms)) {
        out.add(new Mismatch(label, "sizes", label + " sizes " + Arrays.toString(ms) + " on meta, " + Arrays.toString(rs) + " real"));
        continue;
      }
      if (r.scalar_type().intern() != m.scalar_type().intern()) {
        out.add(new Mismatch(label, "dtype", label + " dtype " + TensorSpec.dtypeName(m.scalar_type()) + " on meta, "
            + TensorSpec.dtypeName(r.scalar_type()) + " real"));
      }
      long[] rst = r.strides().vec().get();
      long[] mst = m.strides().vec().get();
      // strides of an empty tensor mean nothing (PyTorch compares only when numel > 0)
      for (int d = 0; d < rs.length && r.numel() > 0; d++) {
        if (rs[d] > 1 && rst[d] != mst[d]) {
          out.add(new Mismatch(label, "strides",
              label + " strides " + Arrays.toString(mst) + " on meta, " + Arrays.toString(rst) + " real"));
          break;
        }
      }
      if (r.storage_offset() != m.storage_offset()) {
        out.add(new Mismatch(label, "storage offset",
            label + " storage offset " + m.storage_offset() + " on meta, " + r.storage_offset() + " real"));
      }
      String ra = aliases(r, realIn);
      String ma = aliases(m, metaIn);
      if (!ra.equals(ma)) {
        out.add(new Mismatch(label, "aliasing", label + " aliases " + ma + " on meta, " + ra + " real"));
      }
    }
    return out;
  }

  /**
   * A non-tensor output as comparable text: bool, int, float (exact: a meta kernel computes it from
   * the same sizes and dtypes), str, and lists of int, float or bool. Empty for tensors and other kinds.
   */
  static Optional<String> plainValue(IValue v) {
    if (v.isBool()) {
      return Optional.of(String.valueOf(v.toBool()));
    } else if (v.isInt()) {
      return Optional.of(String.valueOf(v.toInt()));
    } else if (v.isDouble()) {
      return Optional.of(String.valueOf(v.toDouble()));
    } else if (v.isString()) {
      return Optional.of("'" + v.toStringRef().getString() + "'");
    } else if (v.isIntList()) {
      return Optional.of(Arrays.toString(v.toIntVector().get()));
    } else if (v.isDoubleList()) {
      return Optional.of(Arrays.toString(v.toDoubleVector().get()));
    } else if (v.isBoolList()) {
      BooleanList list = v.toBoolList();
      List<Boolean> values = new ArrayList<>();
      for (long i = 0; i < list.size(); i++) {
        values.add(list.get(i));
      }
      return Optional.of(values.toString());
    }
    return Optional.empty();
  }

  private static String aliases(Tensor t, BoundExample in) {
    List<String> names = new ArrayList<>();
    for (BoundExample.TensorInput i : in.tensors()) {
      if (t.is_same(i.tensor())) {
        names.add("'" + i.argument() + "' itself");
      } else if (t.is_alias_of(i.tensor())) {
        names.add("'" + i.argument() + "'");
      }
    }
    return names.isEmpty() ? "no input" : String.join(", ", names);
  }
}
