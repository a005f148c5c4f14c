package dev.opcheck4j.junit;

import dev.opcheck4j.api.TerminalText;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import org.junit.platform.engine.TestTag;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.support.descriptor.AbstractTestDescriptor;

/**
 * One node of the engine's tree: a spec, a runtime (in a run on several), an op, an op's checks on cuda, a
 * check on a device, or one example or the generated inputs of a check. Unique ids follow spec → (runtime) →
 * op → (cuda) → check → device → example, so they stay the same from run to run and between discovery and an
 * IDE's rerun.
 */
final class EngineNode extends AbstractTestDescriptor {
  enum Kind {
    SPEC,
    INPUT,
    /** A spec's tests on one libtorch runtime, in a run on several ({@code opcheck4j.runtimes}). */
    RUNTIME,
    OP,
    CHECK,
    /** An op's checks on a device that may be absent (cuda): one node to skip when it is. */
    DEVICE,
    EXAMPLE,
    GENERATED,
    STALE_XFAIL,
    NEVER_RAN
  }

  final Kind kind;
  final int spec;
  final String op;
  final String check;
  final String device;
  final String example;
  /** How this node's tests are sourced: the spec file, or class and method names for build tools. */
  final NodeSources sources;
  private final Type type;
  private final Set<TestTag> tags = new LinkedHashSet<>();

  EngineNode(UniqueId id, String displayName, NodeSources sources, Kind kind, Type type, int spec, String op,
      String check, String device, String example) {
    super(id, TerminalText.visible(displayName), sources.source()); // a spec's strings and names, inert in every report
    this.sources = sources;
    this.kind = kind;
    this.type = type;
    this.spec = spec;
    this.op = op;
    this.check = check;
    this.device = device;
    this.example = example;
  }

  /**
   * The method name a build tool reports this test under ({@code kernel.error on cpu, example #1 (...)}),
   * so JUnit XML written by the platform names a test as Surefire's does; a node sourced by file keeps its
   * display name, with its runtime in a run on several ({@code kernel.error on cpu, libtorch 2.10.0}: there
   * the class names carry it).
   */
  @Override
  public String getLegacyReportingName() {
    String name = sources.method() == null ? getDisplayName() : TerminalText.visible(sources.method());
    String runtime = kind == Kind.RUNTIME || sources.reportClass() != null ? null : runtime();
    return runtime == null ? name : name + ", " + TerminalText.visible(EngineTree.RUNTIME_NAME + runtime);
  }

  @Override
  public Type getType() {
    return type;
  }

  @Override
  public Set<TestTag> getTags() {
    return tags;
  }

  EngineNode tag(String name) {
    if (name != null && TestTag.isValid(name)) {
      tags.add(TestTag.create(name));
    }
    return this;
  }

  EngineNode tags(Set<TestTag> more) {
    tags.addAll(more);
    return this;
  }

  /**
   * The libtorch version of the runtime this node is under ({@code 2.10.0}), read from its unique id; null in a
   * run on one runtime, whose tree has no runtime level.
   */
  String runtime() {
    return getUniqueId().getSegments().stream().filter(s -> s.getType().equals(EngineTree.RUNTIME_SEGMENT))
        .map(UniqueId.Segment::getValue).findFirst().orElse(null);
  }

  Optional<EngineNode> parentNode() {
    return getParent().filter(EngineNode.class::isInstance).map(EngineNode.class::cast);
  }
}
