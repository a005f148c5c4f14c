package dev.opcheck4j.checks.alias;

import dev.opcheck4j.torch.OpSchema;
import java.util.List;

/** What the schema declares about aliasing between returns and arguments. */
final class Aliasing {
  private Aliasing() {}

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
