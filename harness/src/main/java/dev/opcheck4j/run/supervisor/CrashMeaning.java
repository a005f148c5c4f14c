package dev.opcheck4j.run.supervisor;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import java.util.List;
import java.util.Optional;

/**
 * What a worker's crash means beyond its signal, as the supervisor checks say it: the supervisor
 * imports no check, so the run hands it this when it makes its pool (JMH's link knows no benchmark
 * either). The step is the one the worker told last, with whatever a check put in it for the
 * supervisor (the guard pages of {@code memory.bounds}).
 */
public interface CrashMeaning {
  /** No check claims any fault; the step is shown as told. */
  CrashMeaning NONE = new CrashMeaning() {
    @Override
    public Optional<Cause> fault(long address, String step) {
      return Optional.empty();
    }

    @Override
    public String shown(String step) {
      return step;
    }
  };

  /** The cause a fault at {@code address} during {@code step} is, where a check claims it. */
  Optional<Cause> fault(long address, String step);

  /** The step as a reader sees it (without what was told only for the supervisor). */
  String shown(String step);

  /**
   * What a worker printed while one unit ran means, where a check claims it (a sanitizer's report);
   * {@code libraries} are the file names of the run's op libraries. None by default.
   */
  default Optional<Said> said(String output, List<String> libraries) {
    return Optional.empty();
  }

  /** What a check says a unit's output is: the cause of its death, one line, and what is known. */
  record Said(Cause cause, String message, List<Fact> facts) {
    public Said {
      facts = List.copyOf(facts);
    }
  }
}
