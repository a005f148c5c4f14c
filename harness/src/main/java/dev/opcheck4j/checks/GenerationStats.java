package dev.opcheck4j.checks;

import java.util.List;

/**
 * What the generated inputs of one (op, device) showed.
 *
 * @param tries inputs generated
 * @param accepted inputs the real kernel ran on
 * @param discarded inputs the real kernel raised on (outside the op's domain)
 * @param domain what the op's domain was found or declared to be, one line each (e.g. "accepts only
 *     contiguous 'x'"); empty when nothing was excluded
 * @param topRejection the first line of the error the kernel raised most often, with how many tries,
 *     or empty when it raised on none
 * @param blamed the argument that made the kernel reject most tries, with how many, or empty
 * @param largestSizes per tensor, the largest size of each dimension drawn, accepted by the kernel and in the
 *     examples ({@code x: drawn [9, 7], accepted [9, 5], example [4, 3]}), or empty when none was drawn
 */
public record GenerationStats(
    int tries, int accepted, int discarded, List<String> domain, String topRejection, String blamed,
    String largestSizes) {
  public GenerationStats {
    domain = List.copyOf(domain);
  }

  /** Without the largest sizes (not known yet). */
  public GenerationStats(int tries, int accepted, int discarded, List<String> domain, String topRejection, String blamed) {
    this(tries, accepted, discarded, domain, topRejection, blamed, "");
  }

  /** The same, with the largest sizes drawn and accepted. */
  public GenerationStats withLargestSizes(String text) {
    return new GenerationStats(tries, accepted, discarded, domain, topRejection, blamed, text);
  }
}
