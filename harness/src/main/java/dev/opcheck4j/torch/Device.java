package dev.opcheck4j.torch;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** A device the harness can materialize examples on. */
public enum Device {
  CPU("CPU"),
  META("Meta"),
  CUDA("CUDA");

  private final String dispatchKey;

  Device(String dispatchKey) {
    this.dispatchKey = dispatchKey;
  }

  /** Backend dispatch key whose kernel serves this device ({@code CPU}, {@code Meta}, {@code CUDA}). */
  public String dispatchKey() {
    return dispatchKey;
  }

  /** Autograd dispatch key for this device ({@code AutogradCPU}, ...). */
  public String autogradKey() {
    return "Autograd" + dispatchKey;
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Device> parse(String label) {
    return Arrays.stream(values()).filter(d -> d.label().equals(label)).findFirst();
  }
}
