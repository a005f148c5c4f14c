package dev.opcheck4j.checks;

import dev.opcheck4j.spec.PackageEntry;
import dev.opcheck4j.torch.AotiPackage;
import dev.opcheck4j.torch.AotiRun;
import dev.opcheck4j.torch.OpSchema;
import dev.opcheck4j.torch.SchemaBaseline;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a {@link PackageCheck} looks at: the package as read, the entry that named it, the ops the run's libraries
 * register, and the package's run once a worker ran it.
 *
 * @param pkg the package, read in plain Java
 * @param entry the entry naming it (its inputs, expected outputs and baseline)
 * @param registered every op the run's libraries register (qualified name with overload), with its schema and the
 *     library's file name: the proxy executor finds an op in whichever library registered it
 * @param libraries the run's libraries' file names, in order
 * @param builtWith the schema baseline of the release the package was compiled with (the entry's, else the
 *     run's {@code --baseline}), or null when there is none
 * @param devices the devices this machine has ({@code cpu}, and {@code cuda} with a GPU)
 * @param run what the worker saw running it, when it ran
 */
public record PackageSubject(AotiPackage pkg, PackageEntry entry, Map<String, Registered> registered,
    List<String> libraries, SchemaBaseline builtWith, Set<String> devices, Optional<AotiRun> run) {
  public PackageSubject {
    registered = Map.copyOf(registered);
    libraries = List.copyOf(libraries);
    devices = Set.copyOf(devices);
  }

  /**
   * An op as a library registers it.
   *
   * @param schema its schema
   * @param library the file name of the library registering it
   */
  public record Registered(OpSchema schema, String library) {}

  /** The same subject, with the package's run. */
  public PackageSubject ran(AotiRun done) {
    return new PackageSubject(pkg, entry, registered, libraries, builtWith, devices, Optional.of(done));
  }

  /** The baseline's schema of {@code op}, when there is a baseline and it has the op. */
  public Optional<OpSchema> builtWith(String op) {
    return builtWith == null ? Optional.empty()
        : builtWith.entry(op).map(e -> dev.opcheck4j.torch.SchemaText.parse(e.schema()));
  }
}
