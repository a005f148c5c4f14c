package dev.opcheck4j.junit;

/**
 * Where a node sits in the engine's tree, to find it again from a run event: its spec, runtime, kind, op,
 * check, device and example, each null where nodes of that kind have none (the runtime too, in a run on one
 * runtime, whose tree has no runtime level).
 */
record NodeKey(int spec, String runtime, EngineNode.Kind kind, String op, String check, String device, String example) {
  static NodeKey of(EngineNode n) {
    return switch (n.kind) {
      case SPEC -> spec(n.spec);
      case RUNTIME -> runtime(n.spec, n.runtime());
      case OP -> op(n.spec, n.runtime(), n.op);
      case DEVICE -> device(n.spec, n.runtime(), n.op, n.device);
      case CHECK -> check(n.spec, n.runtime(), n.op, n.check, n.device);
      case EXAMPLE -> example(check(n.spec, n.runtime(), n.op, n.check, n.device), n.example);
      default -> null;
    };
  }

  static NodeKey spec(int spec) {
    return new NodeKey(spec, null, EngineNode.Kind.SPEC, null, null, null, null);
  }

  /** The container of a spec's tests on libtorch {@code runtime}, in a run on several runtimes. */
  static NodeKey runtime(int spec, String runtime) {
    return new NodeKey(spec, runtime, EngineNode.Kind.RUNTIME, null, null, null, null);
  }

  static NodeKey op(int spec, String runtime, String op) {
    return new NodeKey(spec, runtime, EngineNode.Kind.OP, op, null, null, null);
  }

  static NodeKey device(int spec, String runtime, String op, String device) {
    return new NodeKey(spec, runtime, EngineNode.Kind.DEVICE, op, null, device, null);
  }

  static NodeKey check(int spec, String runtime, String op, String check, String device) {
    return new NodeKey(spec, runtime, EngineNode.Kind.CHECK, op, check, device, null);
  }

  /** The example {@code example} of the check node {@code check}. */
  static NodeKey example(NodeKey check, String example) {
    return new NodeKey(check.spec, check.runtime, EngineNode.Kind.EXAMPLE, check.op, check.check, check.device, example);
  }
}
