package dev.opcheck4j.generate.example;

import java.util.List;

/**
 * A relation between an example's sizes beyond equal ones, which tries can keep: a size (every
 * dimension of that size in the example) or an int argument equal to a sum of sources plus a constant (an int
 * equal to a size, or one more or one less, is an {@link Kind#OFFSET} of an int target).
 * The sources are dimensions of the example's tensors and, for {@link Kind#INT_OFFSET}, an int argument.
 * Which of the relations an example shows the kernel needs is learned by probing it
 * ({@code run/property/SizeProbing}); {@code ExampleGenerator.withRelations} keeps them in every try.
 *
 * @param kind what the relation adds up
 * @param target the size that follows (0 when {@code intTarget} is not null)
 * @param intTarget the int argument that follows, or null for a size
 * @param sources the dimensions added up, as positions in the generator's tensors
 * @param intSource the int argument added, or null
 * @param k the constant added
 * @param text the relation as coverage says it ({@code w.size(0) = a.size(0) + b.size(0)})
 */
public record SizeRelation(Kind kind, long target, String intTarget, List<Dim> sources, String intSource, long k,
    String text) {

  /** What a relation adds up. */
  public enum Kind {
    /** two dimensions (out= of a cat: out.size(0) = a.size(0) + b.size(0)) */
    SUM,
    /** a dimension and an int argument (a length that is the input's plus a padding argument) */
    INT_OFFSET,
    /** a dimension and a constant (an output one row longer than the input) */
    OFFSET
  }

  /** Dimension {@code dim} of the {@code tensor}-th tensor of the example (traversal order, explicit values left out). */
  public record Dim(int tensor, int dim) {}

  public SizeRelation {
    sources = List.copyOf(sources);
  }

  /** The same relation off by one: a probe with it breaks exactly this relation. */
  public SizeRelation broken() {
    return brokenBy(1);
  }

  /** The same relation off by {@code by} (one more, or one less): a probe with it breaks exactly this relation. */
  public SizeRelation brokenBy(long by) {
    return new SizeRelation(kind, target, intTarget, sources, intSource, k + by, text + (by < 0 ? " - " + -by : " + " + by));
  }
}
