package dev.opcheck4j.checks.out;

import dev.opcheck4j.api.Coverage;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.OpTags;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.torch.OpSchema;
import java.util.Optional;

/** An {@code out.*} check: it applies only to an op with a write-only argument ({@link WriteOnly}). */
abstract class OutCheck extends ValueCheck implements ExampleCheck {
  OutCheck(Declaration declared) {
    super(declared);
  }

  @Override
  public Optional<String> notFor(OpSchema schema, OpTags tags) {
    return WriteOnly.of(schema, tags.names()).isEmpty()
        ? Optional.of(Coverage.NOT_APPLICABLE + "no write-only argument (" + WriteOnly.RULE + ")")
        : Optional.empty();
  }
}
