package dev.opcheck4j.checks.builtin;

import dev.opcheck4j.checks.Check;
import dev.opcheck4j.checks.SupervisorCheck;
import dev.opcheck4j.checks.coverage.RequiredCoverageCheck;
import dev.opcheck4j.checks.alias.OutputsAliasCheck;
import dev.opcheck4j.checks.aoti.PackageAnnotationsCheck;
import dev.opcheck4j.checks.aoti.PackageCallsCheck;
import dev.opcheck4j.checks.aoti.PackageRunCheck;
import dev.opcheck4j.checks.alias.ReturnsInputCheck;
import dev.opcheck4j.checks.alias.UndeclaredAliasCheck;
import dev.opcheck4j.checks.autograd.AutogradRegistrationCheck;
import dev.opcheck4j.checks.autograd.DifferentiableCheck;
import dev.opcheck4j.checks.autograd.MetaBackwardCheck;
import dev.opcheck4j.checks.gradcheck.GradGradCheck;
import dev.opcheck4j.checks.gradcheck.GradOutputCheck;
import dev.opcheck4j.checks.gradcheck.JacobianCheck;
import dev.opcheck4j.checks.gradcheck.UndefinedGradCheck;
import dev.opcheck4j.checks.determinism.DeterminismCheck;
import dev.opcheck4j.checks.dtype.DeclaredDtypeCheck;
import dev.opcheck4j.checks.dtype.UnlistedDtypeCheck;
import dev.opcheck4j.checks.variant.VariantAgreementCheck;
import dev.opcheck4j.checks.out.OutDtypeCheck;
import dev.opcheck4j.checks.out.OutShapeCheck;
import dev.opcheck4j.checks.out.OutStridesCheck;
import dev.opcheck4j.checks.out.ReadsOutCheck;
import dev.opcheck4j.checks.fake.FakeMetadataCheck;
import dev.opcheck4j.checks.fake.FakeMissingCheck;
import dev.opcheck4j.checks.kernel.KernelCrashCheck;
import dev.opcheck4j.checks.fake.PermissiveMetaCheck;
import dev.opcheck4j.checks.generate.DomainCheck;
import dev.opcheck4j.checks.generate.ExamplesCheck;
import dev.opcheck4j.checks.kernel.KernelErrorCheck;
import dev.opcheck4j.checks.kernel.KernelTimeoutCheck;
import dev.opcheck4j.checks.kernel.LineCoverageCheck;
import dev.opcheck4j.checks.memory.BoolBytesCheck;
import dev.opcheck4j.checks.memory.CowInputCheck;
import dev.opcheck4j.checks.memory.MemoryBoundsCheck;
import dev.opcheck4j.checks.memory.ReadOnlyInputCheck;
import dev.opcheck4j.checks.memory.UninitializedCheck;
import dev.opcheck4j.checks.mutation.UndeclaredMutationCheck;
import dev.opcheck4j.checks.mutation.UnusedMutationCheck;
import dev.opcheck4j.checks.noncontiguous.NoncontiguousCheck;
import dev.opcheck4j.checks.noncontiguous.RejectedLayoutCheck;
import dev.opcheck4j.checks.reference.ReferenceGradCheck;
import dev.opcheck4j.checks.sanitizer.AddressSanitizerCheck;
import dev.opcheck4j.checks.sanitizer.ThreadSanitizerCheck;
import dev.opcheck4j.checks.sanitizer.UndefinedBehaviorCheck;
import dev.opcheck4j.checks.reference.ReferenceValuesCheck;
import dev.opcheck4j.checks.baseline.BaselineValuesCheck;
import dev.opcheck4j.checks.runtime.RuntimeAgreeCheck;
import dev.opcheck4j.checks.registration.AnyKernelCheck;
import dev.opcheck4j.checks.registration.DanglingImplCheck;
import dev.opcheck4j.checks.registration.DeviceKernelCheck;
import dev.opcheck4j.checks.registration.ExistsCheck;
import dev.opcheck4j.checks.schema.AliasTargetCheck;
import dev.opcheck4j.checks.schema.FunctionalizableCheck;
import dev.opcheck4j.checks.schema.InplaceNameCheck;
import dev.opcheck4j.checks.schema.MutableArgsCheck;
import dev.opcheck4j.checks.schema.OutVariantCheck;
import dev.opcheck4j.checks.schema.TypesCheck;
import dev.opcheck4j.checks.schema.CompatibleCheck;
import dev.opcheck4j.checks.torchscript.ScriptCallCheck;
import dev.opcheck4j.checks.trace.DataAccessCheck;
import dev.opcheck4j.checks.trace.DataDependentCheck;
import dev.opcheck4j.checks.trace.SpecializationCheck;
import dev.opcheck4j.checks.trace.SymbolicSizesCheck;
import dev.opcheck4j.checks.torchscript.ScriptRoundtripCheck;
import dev.opcheck4j.checks.tags.InplaceViewCheck;
import dev.opcheck4j.checks.tags.Pt2CompliantCheck;
import dev.opcheck4j.spec.NearestName;
import java.util.List;
import java.util.Optional;

/** The single ordered registry of built-in checks; reports list results in this order. */
public final class BuiltinChecks {
  private static final List<Check> ALL =
      List.of(
          new ExistsCheck(),
          new AnyKernelCheck(),
          new DeviceKernelCheck(),
          new DanglingImplCheck(),
          new TypesCheck(),
          new MutableArgsCheck(),
          new AliasTargetCheck(),
          new FunctionalizableCheck(),
          new InplaceNameCheck(),
          new OutVariantCheck(),
          new CompatibleCheck(),
          new ExamplesCheck(),
          new FakeMissingCheck(),
          new KernelErrorCheck(),
          new KernelCrashCheck(),
          new KernelTimeoutCheck(),
          // the reports of a library built with sanitizers: an ASan report first, as it is the one that ends a worker
          new AddressSanitizerCheck(),
          new UndefinedBehaviorCheck(),
          new ThreadSanitizerCheck(),
          new UndeclaredMutationCheck(),
          new UnusedMutationCheck(),
          new UndeclaredAliasCheck(),
          new ReturnsInputCheck(),
          new OutputsAliasCheck(),
          new FakeMetadataCheck(),
          new AutogradRegistrationCheck(),
          new DifferentiableCheck(),
          new MetaBackwardCheck(),
          new JacobianCheck(),
          new GradOutputCheck(),
          new GradGradCheck(),
          new UndefinedGradCheck(),
          // after the autograd family: a trace call that kills the worker (a Meta kernel that dies on meta
          // tensors) must not cost the op its autograd findings, which real opcheck's tests make too
          new SymbolicSizesCheck(),
          new DataAccessCheck(),
          new DataDependentCheck(),
          new SpecializationCheck(),
          new DeterminismCheck(),
          new NoncontiguousCheck(),
          new DeclaredDtypeCheck(),
          new UnlistedDtypeCheck(),
          new VariantAgreementCheck(),
          new ReadsOutCheck(),
          new OutStridesCheck(),
          new OutShapeCheck(),
          new OutDtypeCheck(),
          new MemoryBoundsCheck(),
          new UninitializedCheck(),
          new BoolBytesCheck(),
          new ReadOnlyInputCheck(),
          new CowInputCheck(),
          new ReferenceValuesCheck(),
          new ReferenceGradCheck(),
          new BaselineValuesCheck(),
          new RuntimeAgreeCheck(),
          new ScriptCallCheck(),
          new ScriptRoundtripCheck(),
          new PackageCallsCheck(),
          new PackageAnnotationsCheck(),
          new PackageRunCheck(),
          new RejectedLayoutCheck(),
          new PermissiveMetaCheck(),
          new DomainCheck(),
          new InplaceViewCheck(),
          new Pt2CompliantCheck(BuiltinChecks::opcheckCounterparts),
          new RequiredCoverageCheck(),
          new LineCoverageCheck());

  private BuiltinChecks() {}

  public static List<Check> all() {
    return ALL;
  }

  public static Optional<Check> byId(String id) {
    return Optional.ofNullable(BY_ID.get(id));
  }

  /** A worker looks a check up for each unit it runs. */
  private static final java.util.Map<String, Check> BY_ID =
      ALL.stream().collect(java.util.stream.Collectors.toUnmodifiableMap(Check::id, c -> c));

  /** The supervisor check whose finding a worker death with {@code cause} is. */
  public static SupervisorCheck supervising(dev.opcheck4j.api.Cause cause) {
    return ALL.stream().filter(c -> c instanceof SupervisorCheck s && s.covers(cause)).map(c -> (SupervisorCheck) c)
        .findFirst().orElseThrow(() -> new IllegalArgumentException("no check covers " + cause.kind()));
  }

  /** The ids of the supervisor checks, as a reader is pointed to them: {@code a / b}. */
  public static String supervisors() {
    return String.join(" / ", ALL.stream().filter(c -> c.scope() == dev.opcheck4j.api.CheckInfo.Scope.SUPERVISOR).map(Check::id).toList());
  }

  /**
   * The checks named by ids or families, in registry order.
   *
   * @throws IllegalArgumentException naming an id that is neither, with the known ids
   */
  public static List<Check> select(List<String> idsOrFamilies) {
    java.util.Set<Check> selected = new java.util.HashSet<>();
    for (String id : idsOrFamilies) {
      List<Check> found = select(id);
      if (found.isEmpty()) {
        List<String> names = new java.util.ArrayList<>(ALL.stream().map(Check::family).distinct().toList());
        names.addAll(ALL.stream().map(Check::id).toList());
        String hint = NearestName.didYouMean(id, names);
        throw new IllegalArgumentException("unknown check or family '" + id + "'" + (hint.isEmpty() ? "; known: "
            + String.join(", ", ALL.stream().map(Check::id).toList()) : hint + " (./opcheck checks lists them)"));
      }
      selected.addAll(found);
    }
    return ALL.stream().filter(selected::contains).toList();
  }

  /** Checks whose id or family equals {@code idOrFamily}. */
  public static List<Check> select(String idOrFamily) {
    return ALL.stream()
        .filter(c -> c.id().equals(idOrFamily) || c.family().equals(idOrFamily))
        .toList();
  }

  /**
   * The checks of the families torch.library.opcheck covers (its test_schema: mutation and alias;
   * test_faketensor: fake; test_autograd_registration), for measuring our cost beside its own.
   */
  public static List<Check> opcheckCounterparts() {
    return select(List.of("mutation", "alias", "fake", AutogradRegistrationCheck.ID));
  }
}
