package dev.opcheck4j.junit;

/**
 * Where a node sits in the engine's tree, to find it again from a run event: its spec, kind, op,
 * check, device and example, each null where nodes of that kind have none.
 */
record NodeKey(int spec, EngineNode.Kind kind, String op, String check, String device, String example) {
  static NodeKey of(EngineNode n) {
    return switch (n.kind) {
      case SPEC -> spec(n.spec);
      case OP -> op(n.spec, n.op);
      case DEVICE -> device(n.spec, n.op, n.device);
      case CHECK -> check(n.spec, n.op, n.check, n.device);
      case EXAMPLE -> example(check(n.spec, n.op, n.check, n.device), n.example);
      default -> null;
    };
  }

  static NodeKey spec(int spec) {
    return new NodeKey(spec, EngineNode.Kind.SPEC, null, null, null, null);
  }

  static NodeKey op(int spec, String op) {
    return new NodeKey(spec, EngineNode.Kind.OP, op, null, null, null);
  }

  static NodeKey device(int spec, String op, String device) {
    return new NodeKey(spec, EngineNode.Kind.DEVICE, op, null, device, null);
  }

  static NodeKey check(int spec, String op, String check, String device) {
    return new NodeKey(spec, EngineNode.Kind.CHECK, op, check, device, null);
  }

  /** The example {@code example} of the check node {@code check}. */
  static NodeKey example(NodeKey check, String example) {
    return new NodeKey(check.spec, EngineNode.Kind.EXAMPLE, check.op, check.check, check.device, example);
  }
}
