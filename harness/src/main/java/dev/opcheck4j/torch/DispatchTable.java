package dev.opcheck4j.torch;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.bytedeco.pytorch.OperatorHandle;

/**
 * Which dispatch keys of an operator have a kernel registered, and where each was registered,
 * read from the dispatcher's {@code dumpState()}.
 *
 * @param kernels dispatch key name to registration site ({@code file:line}, or {@code by RegisterOperators}
 *     for a kernel {@code torch::RegisterOperators} registered), in dump order
 */
public record DispatchTable(Map<String, String> kernels) {
  /** Keys whose kernel makes an op runnable on any backend (it decomposes into other ops). */
  public static final List<String> COMPOSITE_KEYS =
      List.of(
          "CompositeImplicitAutograd",
          "CompositeExplicitAutograd",
          "CompositeExplicitAutogradNonFunctional");

  public DispatchTable {
    kernels = Collections.unmodifiableMap(new LinkedHashMap<>(kernels));
  }

  public static DispatchTable of(OperatorHandle handle) {
    return parse(NativeStrings.of(handle.dumpState()));
  }

  /**
   * Parses a {@code dumpState()} text: after the header lines ({@code name:}, {@code schema:},
   * {@code debug:}, {@code alias analysis kind:}), each {@code KEY: registered at SITE :: ...} line is one
   * kernel, and so is each {@code KEY: registered by RegisterOperators :: ...} line: a kernel registered
   * through {@code torch::RegisterOperators} (all of PyG's ops, and extensions older than TORCH_LIBRARY)
   * carries no site.
   */
  static DispatchTable parse(String dump) {
    Map<String, String> kernels = new LinkedHashMap<>();
    for (String line : dump.split("\n")) {
      if (line.startsWith("debug:")) {
        continue;
      }
      int at = line.indexOf(": registered at ");
      int by = line.indexOf(": registered by ");
      int colon = at > 0 ? at : by;
      if (colon <= 0) {
        continue;
      }
      // alias keys are dumped with a suffix: "CompositeImplicitAutograd[alias]"
      String key = line.substring(0, colon).strip().replace("[alias]", "");
      // the site ("file:line"), or "by RegisterOperators", which names no site
      String rest = line.substring(colon + (at > 0 ? ": registered at " : ": registered ").length());
      int end = rest.indexOf(" :: ");
      kernels.put(key, (end < 0 ? rest : rest.substring(0, end)).strip());
    }
    return new DispatchTable(kernels);
  }

  public Set<String> keys() {
    return kernels.keySet();
  }

  public boolean has(String key) {
    return kernels.containsKey(key);
  }

  public boolean hasComposite() {
    return COMPOSITE_KEYS.stream().anyMatch(kernels::containsKey);
  }

  /** The key whose kernel runs the op for {@code backendKey}: that key itself, else a composite one. */
  public Optional<String> kernelServing(String backendKey) {
    return firstPresent(backendKey, COMPOSITE_KEYS.get(0), COMPOSITE_KEYS.get(1), COMPOSITE_KEYS.get(2));
  }

  /** Whether {@code device} can run the op: a kernel for its backend key, or a composite one. */
  public boolean serves(Device device) {
    return kernelServing(device.dispatchKey()).isPresent();
  }

  /** The key that gives the op autograd on {@code device}, if any. */
  public Optional<String> autogradKernel(Device device) {
    return firstPresent("Autograd", device.autogradKey(), "CompositeImplicitAutograd");
  }

  /**
   * Whether the op can carry gradients on some device: a kernel at an Autograd key ({@code Autograd},
   * {@code AutogradCPU}, ...) or at CompositeImplicitAutograd (which decomposes into differentiable ops).
   */
  public boolean carriesGradients() {
    return kernels.keySet().stream().anyMatch(k -> k.startsWith("Autograd") || k.equals(COMPOSITE_KEYS.get(0)));
  }

  /**
   * The op's own Autograd kernel for {@code device} (not a composite one), which a call on that device
   * enters first: one that calls other ops through the dispatcher (a custom autograd function's forward)
   * serves the device with no backend kernel of the op's own.
   */
  public Optional<String> ownAutogradKernel(Device device) {
    return autogradKernel(device).filter(k -> !COMPOSITE_KEYS.contains(k));
  }

  public boolean hasAutograd(Device device) {
    return autogradKernel(device).isPresent();
  }

  /** {@code KEY registered at SITE} (or {@code by RegisterOperators}), for facts. */
  public String describe(String key) {
    String site = kernels.get(key);
    return key + " registered " + (site.startsWith("by ") ? site : "at " + site);
  }

  private Optional<String> firstPresent(String... keys) {
    for (String k : keys) {
      if (kernels.containsKey(k)) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  public boolean isEmpty() {
    return kernels.isEmpty();
  }
}
