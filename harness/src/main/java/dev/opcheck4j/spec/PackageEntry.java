package dev.opcheck4j.spec;

import java.nio.file.Path;
import java.util.List;

/**
 * An AOTInductor package ({@code .pt2}) that a library release must keep serving: named by a spec's
 * {@code "packages"}, or by {@code --package} (docs/aoti.md).
 *
 * @param file the package
 * @param inputs the tensors (files saved by {@code torch.save}) to run it on, one per input of its call spec;
 *     empty: it is checked, not run
 * @param expect the outputs it must give on them (a tensor, or a tuple or list of tensors, saved by
 *     {@code torch.save}), or null
 * @param baseline the schema baseline ({@code ./opcheck baseline}) of the release the package was compiled with,
 *     or null: what its calls' alias annotations were, which the package does not record
 * @param where where it was named, for messages: {@code spec.json:12:7}, or {@code --package}
 */
public record PackageEntry(Path file, List<Path> inputs, Path expect, Path baseline, String where) {
  public PackageEntry {
    inputs = List.copyOf(inputs);
  }

  /** A package checked, not run, with no baseline of its own. */
  public static PackageEntry of(Path file, String where) {
    return new PackageEntry(file, List.of(), null, null, where);
  }

  /** Whether it is to be run: it has inputs and the outputs they must give. */
  public boolean runnable() {
    return !inputs.isEmpty() && expect != null;
  }

  /** Its file name, which its results name as their example. */
  public String label() {
    return file.getFileName().toString();
  }
}
