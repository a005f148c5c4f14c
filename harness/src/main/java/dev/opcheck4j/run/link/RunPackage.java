package dev.opcheck4j.run.link;

import dev.opcheck4j.torch.AotiRun;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Loads the AOTInductor package {@code file} with libtorch's {@code AOTIModelPackageLoader} (the worker's
 * libraries are loaded first, as the proxy executor needs them) and, given inputs, runs it once; the loader
 * and what it extracted are gone when the unit ends, whether it loaded or not.
 *
 * @param model the model in the package ({@code model}, the loader's default)
 * @param inputs one per input of its call spec: a {@code .pt} file saved by {@code torch.save}, or a tensor to
 *     draw ({@code float32[4,3]}); empty: load it only
 * @param seed seeds the generator drawn tensors' values come from
 * @param expect a file saved by {@code torch.save} that its outputs are compared with, when present
 */
public record RunPackage(Path file, String model, List<String> inputs, long seed, Optional<Path> expect)
    implements Protocol.Unit<Answers.PackageRan> {
  public RunPackage {
    inputs = List.copyOf(inputs);
  }

  @Override
  public Class<Answers.PackageRan> answers() {
    return Answers.PackageRan.class;
  }

  @Override
  public Answers.PackageRan failed(String error) {
    return new Answers.PackageRan(AotiRun.failed(AotiRun.Stage.LOAD, error));
  }
}
