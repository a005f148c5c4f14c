package dev.opcheck4j.junit;

import dev.opcheck4j.spec.SpecFile;
import dev.opcheck4j.spec.SpecReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.support.descriptor.EngineDescriptor;

/** The engine's root: the settings of the run and the specs found, read once at discovery. */
final class RunDescriptor extends EngineDescriptor {
  final EngineSettings settings;
  /** Specs in discovery order as read (once: the runs take them from here), index = {@link EngineNode#spec}; null where the spec did not read. */
  final List<SpecReader.Parsed> read;
  /** What {@link #read} says, index = {@link EngineNode#spec}; null where the spec did not read. */
  final List<SpecFile> specs;
  /** Every (spec, op, check, device) discovered, before filters: results for others are new. */
  final Set<NodeKey> discovered = new HashSet<>();
  /** Why a spec did not read, by index; null where it did. */
  final List<String> specErrors;

  RunDescriptor(UniqueId id, EngineSettings settings, List<SpecReader.Parsed> read, List<String> specErrors) {
    super(id, "opcheck4j");
    this.settings = settings;
    this.read = new ArrayList<>(read);
    this.specs = new ArrayList<>(read.stream().map(p -> p == null ? null : p.file()).toList());
    this.specErrors = new ArrayList<>(specErrors);
  }
}
