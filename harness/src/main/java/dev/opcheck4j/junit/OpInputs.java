package dev.opcheck4j.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * Inputs of one op for a Jupiter {@code @ParameterizedTest}: the spec's examples, then generated
 * variants of them that the op's kernel accepts, each as an {@link OpInput} (materialized tensors
 * and values, and {@link OpInput#call()}). A generated input that fails the test is shrunk to a
 * minimal one, reported with the seed.
 *
 * <pre>{@code
 * @ParameterizedTest
 * @OpInputs(spec = "opcheck/my_ops.yaml", op = "my_ops::mul_add", tries = 50)
 * void mulAddByZeroIsAProduct(OpInput in) { ... }
 * }</pre>
 *
 * The op runs in the test's own JVM (libtorch is loaded there), as the user's assertions need its
 * tensors.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@ArgumentsSource(OpInputsProvider.class)
@ExtendWith(OpInputsShrinking.class)
public @interface OpInputs {
  /** The spec: a classpath resource ({@code opcheck/my_ops.yaml}) or, when there is none, a file path. */
  String spec();

  /** The op, {@code ns::name}. */
  String op();

  /** {@link #tries()}'s default: the default of {@code RunOptions.TRIES} (an annotation needs a constant). */
  int TRIES_FROM_TABLE = -1;

  /**
   * {@link #seed()}'s default: the default of {@code RunOptions.SEED}. This one seed cannot be given
   * explicitly; any other can.
   */
  long SEED_FROM_TABLE = Long.MIN_VALUE;

  /** Generated inputs to try after the examples (those the kernel rejects are left out). */
  int tries() default TRIES_FROM_TABLE;

  /** Seed of the generated inputs; the {@code opcheck4j.seed} parameter overrides it. */
  long seed() default SEED_FROM_TABLE;

  /** Device the inputs are made on. */
  String device() default "cpu";
}
