package dev.opcheck4j.checks.memory;

import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.ExampleCheck;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.ValueCheck;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.torch.Device;
import java.util.Optional;

/**
 * A memory check: what it controls (guard pages, the CPU allocator's fill, the bytes of a bool) is
 * host memory, so it runs on cpu, and only where that control is available (else Skipped, saying why).
 */
abstract class HostMemoryCheck extends ValueCheck implements ExampleCheck {
  HostMemoryCheck(Declaration declared) {
    super(declared);
  }

  @Override
  public boolean appliesTo(Device device) {
    return device == Device.CPU;
  }

  /** Why this process cannot control the memory the check needs, or empty when it can. */
  abstract Optional<String> unavailable();

  /** The check, where its memory control is available. */
  abstract Verdict evaluateWith(Subject s) throws Exception;

  @Override
  public final Verdict evaluateExample(Subject s) throws Exception {
    Optional<String> why = unavailable();
    return why.isPresent() ? Verdict.skipped(why.get()) : evaluateWith(s);
  }
}
