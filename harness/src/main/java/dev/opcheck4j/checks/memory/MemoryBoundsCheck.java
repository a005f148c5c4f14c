package dev.opcheck4j.checks.memory;

import dev.opcheck4j.api.Cause;
import dev.opcheck4j.api.Fact;
import dev.opcheck4j.api.Finding;
import dev.opcheck4j.checks.Declaration;
import dev.opcheck4j.checks.OpCall;
import dev.opcheck4j.checks.Subject;
import dev.opcheck4j.checks.Verdict;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.generate.BoundExample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The kernel reads and writes only inside its tensor arguments' storage. Each tensor argument is
 * copied against a guard page ({@link GuardedMemory}): in one call right after its storage, in a second
 * right before it. A fault in a guard page kills the worker; the parent finds the faulting address in
 * the JVM's error file and the guard pages in the worker's last step ({@link GuardRanges}), and the
 * death is this check's finding, naming the argument and the direction, not a generic {@code
 * kernel.crash}: this check is also the supervisor of such deaths. Writes into the canary bytes around
 * the storage are seen after the call.
 */
public final class MemoryBoundsCheck extends ProtectedPagesCheck {
  public static final String ID = "memory.bounds";
  /** The key of the fact that names the allocations of the kernel's own that got a guard page. */
  public static final String ALLOCATIONS_GUARDED = "allocations guarded";
  /** What a worker JVM needs for the guard pages. */
  public static final List<String> JVM_OPTIONS = GuardedMemory.OPTIONS;
  private static final byte CANARY = (byte) 0xA5;
  /** What a run did not check on an op that returns tensors of its own. */
  static final String OWN_OUTPUTS = "outputs the kernel allocates itself get no guard page (the guarded allocator"
      + " cannot be installed)";
  private static final String EXPECTED = "the kernel reads and writes only the bytes of its tensor arguments' storage"
      + " and of the memory it allocates";
  private static final String HINT = "an index or a loop bound goes one element too far (i <= n, i + 1 at the last"
      + " element, i - 1 at the first): the native frames name the function; -fsanitize=address names the line";

  public MemoryBoundsCheck() {
    super(Declaration.error(ID, "the kernel reads and writes only inside its tensor arguments' storage (guard pages)")
        .requires(KernelErrorCheck.ID)
        .onAFewGeneratedInputs(), GuardRanges.RULE);
  }

  @Override
  Verdict evaluateWith(Subject s) throws Exception {
    BoundExample ex = OpCall.bind(s, s.device());
    Optional<String> noAllocator = GuardedAllocator.unavailable();
    try (GuardedArguments end = GuardedArguments.of(ex, GuardedMemory.Side.END, CANARY)) {
      if (end.none() && noAllocator.isPresent()) {
        return Verdict.skipped("no tensor argument with elements on cpu: nothing to guard");
      }
      List<String> own = new ArrayList<>();
      // first call: the arguments end at their guard pages; what the kernel allocates is surveyed (between
      // canary pages), to learn its sizes and which output each is, so the next calls can name its guard pages
      Call first = call(s, ex, end, "the cpu kernel, its tensor arguments ending at a guard page", own,
          noAllocator.isEmpty() ? GuardedAllocator.Mode.SURVEY : null, KernelAllocations.none());
      if (first.verdict().isPresent()) {
        return first.verdict().get();
      }
      KernelAllocations survey = first.allocations();
      // bound again: a call may take the elements out of a list argument it was given
      try (GuardedArguments start = GuardedArguments.of(OpCall.bind(s, s.device()), GuardedMemory.Side.START, CANARY)) {
        Call second = call(s, ex, start, "the cpu kernel, its tensor arguments starting at a guard page",
            new ArrayList<>(), noAllocator.isEmpty() ? GuardedAllocator.Mode.START : null, survey);
        if (second.verdict().isPresent()) {
          return second.verdict().get();
        }
      }
      if (!survey.named().isEmpty()) {
        try (GuardedArguments again = GuardedArguments.of(OpCall.bind(s, s.device()), GuardedMemory.Side.END, CANARY)) {
          Call third = call(s, ex, again, "the cpu kernel, what it allocates ending at a guard page", new ArrayList<>(),
              GuardedAllocator.Mode.END, survey);
          if (third.verdict().isPresent()) {
            return third.verdict().get();
          }
        }
      }
      List<Fact> facts = new ArrayList<>();
      if (!end.none()) {
        facts.add(Fact.of("guarded", String.join(", ", end.arguments())));
      }
      if (noAllocator.isEmpty()) {
        if (!survey.named().isEmpty()) {
          facts.add(Fact.of(ALLOCATIONS_GUARDED, survey.summary()));
        }
        return Verdict.passed(facts.toArray(Fact[]::new));
      }
      if (!own.isEmpty()) {
        facts.add(Fact.of("not guarded", String.join(", ", own)));
        facts.add(Fact.of(Fact.NOT_CHECKED, OWN_OUTPUTS + ": " + noAllocator.get()));
      }
      return Verdict.passed(facts.toArray(Fact[]::new));
    }
  }

  /** One guarded call: the verdict it already is, if any, and what the kernel allocated in it. */
  private record Call(Optional<Verdict> verdict, KernelAllocations allocations) {}

  /**
   * The verdict one guarded call already is: skipped when the kernel raised, failed when it wrote around
   * an argument's storage or an allocation's. The outputs that are no guarded argument (nor a view of one)
   * are added to {@code own}. With {@code mode}, the guarded allocator is installed for the call, and the
   * guard pages of the allocations {@code expected} names are told in the step.
   */
  private static Call call(Subject s, BoundExample ex, GuardedArguments guarded, String step, List<String> own,
      GuardedAllocator.Mode mode, KernelAllocations expected) {
    OpCall.Outputs outputs;
    KernelAllocations allocated = KernelAllocations.none();
    try {
      if (mode == null) {
        outputs = OpCall.call(s, guarded.example(), step + guarded.ranges().told());
      } else {
        GuardedAllocator.Scope scope = GuardedAllocator.install(mode, expected.sizes());
        try (scope) {
          outputs = OpCall.call(s, guarded.example(), step + guarded.ranges().and(expected.told(scope)).told());
        }
        allocated = KernelAllocations.of(scope, outputs.tensors());
      }
      for (OpCall.Output o : outputs.tensors()) {
        if (guarded.example().tensors().stream().noneMatch(in -> o.tensor().is_alias_of(in.tensor()))) {
          own.add(o.label());
        }
      }
    } catch (OpCall.KernelError e) {
      return new Call(Optional.of(raised("guarded memory", e)), allocated);
    }
    Optional<GuardedArguments.Damage> damage = guarded.damage().or(allocated::damage);
    return new Call(damage.map(d -> Verdict.failed(Finding.of(EXPECTED, d.text(), HINT, d.cause()), OpCall.exampleFact(s, ex))),
        allocated);
  }

  /**
   * A kernel that writes just outside memory malloc gave it damages the heap, and the plain call crashes
   * (issue 52): under the guards the access lands in a guard page or a canary, and this check names the buffer
   * and the side.
   */
  @Override
  public boolean diagnosesCrashes() {
    return true;
  }

  @Override
  public Finding finding(Cause death, String happened, Duration deadline, List<Fact> details) {
    Cause.Contract c = (Cause.Contract) death;
    return new Finding(EXPECTED, c.subject() + ": the kernel touched the guard page there and the worker died ("
        + happened + ")", HINT, death, details, List.of());
  }
}
