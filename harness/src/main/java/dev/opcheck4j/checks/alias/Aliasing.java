package dev.opcheck4j.checks.alias;

import dev.opcheck4j.api.Fact;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.torch.OpSchema;
import java.util.List;
import java.util.Optional;

/** What the schema declares about aliasing between returns and arguments. */
final class Aliasing {
  private Aliasing() {}

  /**
   * Why aliasing is no defect of this op on the subject's device, when it is served there only by a
   * CompositeImplicitAutograd kernel: the dispatcher decomposes it into the aten ops it calls before
   * any schema or alias check (PyTorch's SchemaCheckMode, functionalization) sees it, so what it
   * returns is those ops' outputs, with their own declared aliasing.
   */
  static Optional<Fact> decomposed(Subject s) {
    return s.op().table().kernelServing(s.device().dispatchKey())
        .filter("CompositeImplicitAutograd"::equals)
        .map(k -> Fact.of("note", "served only by a CompositeImplicitAutograd kernel: decomposed into the aten ops"
            + " it calls before PyTorch's schema and alias checks see it, so its outputs may alias its inputs"
            + " as those ops' outputs do"));
  }

  static List<String> sets(java.util.Optional<OpSchema.Alias> alias) {
    return alias.map(OpSchema.Alias::before).orElse(List.of());
  }

  /** Whether return {@code ret} may alias argument {@code arg} by the schema's annotations. */
  static boolean declared(OpSchema schema, int ret, int arg) {
    List<String> r = sets(schema.returns().get(ret).alias());
    List<String> a = sets(schema.arguments().get(arg).alias());
    return r.contains("*") || a.contains("*") || r.stream().anyMatch(a::contains);
  }

  /** Whether returns {@code i} and {@code j} may alias each other by the schema's annotations. */
  static boolean declaredBetweenReturns(OpSchema schema, int i, int j) {
    List<String> a = sets(schema.returns().get(i).alias());
    List<String> b = sets(schema.returns().get(j).alias());
    return a.stream().anyMatch(b::contains);
  }
}
