package dev.opcheck4j.spec;

import java.util.Objects;

/**
 * A spec entry's {@code "reference"}: what the op should compute, as TorchScript over its argument
 * names using aten ops only. Either one expression ({@code torch.sin(x) * alpha}, a tuple for several
 * values) or a function ({@code def reference(x: Tensor, alpha: float): ...}).
 *
 * @param source the TorchScript text as the spec gives it
 * @param location where the spec writes it, {@code file:line:column}
 */
public record Reference(String source, String location) {
  /** The name the {@code def} form must give its function. */
  public static final String FUNCTION = "reference";

  public Reference {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(location, "location");
  }

  /** Whether the spec gives a whole function ({@code def ...}) rather than one expression. */
  public boolean isFunction() {
    return source.stripLeading().startsWith("def ");
  }
}
