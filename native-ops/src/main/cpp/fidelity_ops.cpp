// Where opcheck4j must agree with PyTorch's own rules (issue 17 §4): for each class of real-code
// disagreement, one op PyTorch's opcheck passes (no EXPECT: every check passes or is skipped) and one
// it fails, marked with the one check that must trip (`// OP:` / `// EXPECT:`). Each pair was run
// through torch.library.opcheck 2.14.1; what it said is quoted above the op.
#include "kernels.h"

#include <atomic>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

using namespace opcheck4j;

namespace {

// A copy that carries no autograd history. These ops are CPU kernels about other classes; an aten call
// on an input that requires grad would record autograd inside them, which opcheck's
// test_autograd_registration (and autograd.registration's probe) rightly rejects.
Tensor copy_of(const Tensor& x) { return detach(torch::stable::clone(x)); }

// ---- Class 1: an op that returns nothing and only mutates its arguments needs no Meta kernel.
// FakeTensorMode gives such a custom op a trivial fake implementation (it returns nothing and
// mutates no metadata: torch._library.utils.can_generate_trivial_fake_impl).

// CPU kernel only. opcheck: test_schema, test_autograd_registration, test_faketensor and
// test_aot_dispatch_dynamic all SUCCESS.
// OP: fidelity_ops::void_scale_
void void_scale_(Tensor x, double s) {
  aten<2>("aten::mul_", "Tensor", {torch::stable::detail::from(x), torch::stable::detail::from(scalar_like(x, s))});
}

// Mutates its argument but also returns a new tensor: no trivial fake implementation exists, so a
// Meta kernel is needed. opcheck: test_faketensor fails ("... has no fake impl" / Meta kernel missing).
// OP: fidelity_ops::add_into_
// EXPECT: fake.missing, registration.device-kernel
Tensor add_into_(Tensor acc, Tensor x) {
  torch::stable::copy_(acc, detach(add(acc, x)));
  return detach(torch::stable::clone(acc));
}

// ---- Class 2: an op served only by a CompositeImplicitAutograd kernel is decomposed before any
// schema or alias check sees it: the aten ops it calls are what is checked.

// CompositeImplicitAutograd: a view of x through aten::unsqueeze. opcheck: all SUCCESS.
// OP: fidelity_ops::cia_unsqueeze
Tensor cia_unsqueeze(Tensor x) { return torch::stable::unsqueeze(x, 0); }

// The same view, registered at CompositeExplicitAutograd: the op itself reaches the dispatcher's
// schema check, and its output aliases an input its schema does not annotate. opcheck:
// test_schema fails ("...  has an output that aliases an input ...").
// (As a CompositeExplicitAutograd kernel it also records autograd when its input requires grad, which
// opcheck's test_autograd_registration rejects as well: a backend-registered view cannot help it.)
// OP: fidelity_ops::cea_unsqueeze
// EXPECT: alias.undeclared, autograd.registration
Tensor cea_unsqueeze(Tensor x) { return torch::stable::unsqueeze(x, 0); }

// ---- Class 3: non-tensor outputs are part of the fake/meta contract.

// int, bool, float, int[] and str outputs that the Meta kernel computes as the real one does. Sizes
// are read one dimension at a time: under torch.compile's symbolic shapes the stable ABI's numel()
// and sizes() raise, size(d) does not.
// OP: fidelity_ops::shape_facts
using Facts = std::tuple<Tensor, int64_t, bool, double, std::vector<int64_t>>;

Facts facts_of(Tensor x, Tensor out) {
  std::vector<int64_t> sizes;
  int64_t n = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    sizes.push_back(x.size(d));
    n *= x.size(d);
  }
  return {out, n, x.dim() == 0, 0.5 * static_cast<double>(n), sizes};
}

Facts shape_facts(Tensor x) { return facts_of(x, copy_of(x)); }

Facts shape_facts_meta(Tensor x) { return facts_of(x, torch::stable::empty_like(x)); }

// The real kernel returns the element count; the Meta kernel forgets the last dimension.
// OP: fidelity_ops::count_meta_wrong
// EXPECT: fake.metadata
std::tuple<Tensor, int64_t> count_meta_wrong(Tensor x) { return {copy_of(x), x.numel()}; }

std::tuple<Tensor, int64_t> count_meta_wrong_meta(Tensor x) {
  int64_t n = 1;
  for (int64_t d = 0; d + 1 < x.dim(); ++d) n *= x.size(d);
  return {torch::stable::empty_like(x), n};
}

// Reports where its input lives: true on the cpu, false on meta.
// OP: fidelity_ops::reports_cpu
// EXPECT: fake.metadata
bool reports_cpu(Tensor x) { return x.is_cpu(); }

// ---- Class 5: a crash report says why (crash_ops' conventions: the CPU kernel is correct here, the
// Meta kernel is not, and only on inputs the spec's example does not have).

// Its Meta kernel writes a diagnostic line to stderr and carries on.
// OP: fidelity_ops::meta_notes
Tensor copy_kernel(Tensor x) { return copy_of(x); }

Tensor meta_notes_meta(Tensor x) {
  std::fprintf(stderr, "meta_notes: a note, not an error\n");
  return torch::stable::empty_like(x);
}

// Its Meta kernel aborts, after saying why, on more than 8 elements: found on a generated input.
// OP: fidelity_ops::meta_aborts_large
// EXPECT: kernel.crash, trace.symbolic-sizes
// (its Meta kernel's numel() fails real PyTorch 2.13.0's test_aot_dispatch_dynamic too: fixtures/specs/trace/real-pytorch.json)
Tensor meta_aborts_large_meta(Tensor x) {
  if (x.numel() > 8) {
    std::fprintf(stderr, "meta_aborts_large: no Meta rule for %lld elements\n", static_cast<long long>(x.numel()));
    std::fflush(stderr);
    std::abort();
  }
  return torch::stable::empty_like(x);
}

// ---- Class 6: one cause, one finding. An op whose contiguous run already differs from call to call
// (in real code: an output element it never writes, so it returns whatever memory held) fails
// determinism; comparing a non-contiguous run with a contiguous one cannot tell layout from that
// noise, so noncontiguous must not add a finding whose hint (call contiguous() on inputs) is wrong.
// The stale element is modelled with a call counter, so the test does not depend on the allocator.
// OP: fidelity_ops::stale_element
// EXPECT: determinism
std::atomic<int64_t> stale_calls{0};
Tensor stale_element(Tensor x) {
  Tensor out = copy_of(x);
  if (out.numel() > 0) {
    put(out, 0, static_cast<double>(++stale_calls));
  }
  return out;
}

// ---- Class 4: generation covers every dtype the kernel accepts. This kernel accepts every dtype
// through aten, and dies on bool: found by a generated bool input, with no vary.dtype in the spec.
// OP: fidelity_ops::abort_on_bool
// EXPECT: kernel.crash
Tensor abort_on_bool(Tensor x) {
  if (x.scalar_type() == ScalarType::Bool) {
    std::fprintf(stderr, "abort_on_bool: no rule for bool inputs\n");
    std::fflush(stderr);
    std::abort();
  }
  return copy_of(x);
}

Tensor empty_like_meta(Tensor x) { return torch::stable::empty_like(x); }

// ---- Class 7: every argument the schema allows is a valid example, None too, in any position and in
// generated variants (torchvision's and mmcv's ops end in optional weight and bias tensors). An example
// whose trailing Tensor? arguments were null used to abort the run with a harness error once a generated
// try was rejected (ExampleGenerator compared the example's None with the try's by calling a method on it).
// The kernel is aten calls only, so the same function serves CPU and Meta, and it rejects an empty x
// with a clear error: generation's rejected tries (the edge case "sizes 0") took the path that broke.
// torch.library.opcheck 2.14.1 on its four examples (pytorch-opcheck.py): test_schema,
//   test_autograd_registration, test_faketensor and test_aot_dispatch_dynamic: SUCCESS on each
// OP: fidelity_ops::optional_affine
Tensor optional_affine(Tensor x, std::optional<Tensor> weight, std::optional<Tensor> bias) {
  check_floating(x, "optional_affine: x");
  // size(d), not numel(): under torch.compile's symbolic shapes the stable ABI's numel() raises
  for (int64_t d = 0; d < x.dim(); ++d) STD_TORCH_CHECK(x.size(d) > 0, "optional_affine: x must not be empty");
  Tensor out = copy_of(x);
  if (weight.has_value()) out = detach(mul(out, *weight));
  if (bias.has_value()) out = detach(add(out, *bias));
  return out;
}

// ---- Class 8: a CompositeImplicitAutograd kernel that checks the device of its input (torch_cluster's
// and pytorch3d's CPU paths do). Under PyTorch's FakeTensor the check passes: a fake tensor keeps the
// device it fakes, so is_cpu() is true, and only the aten calls the composite makes run on meta. A meta
// tensor says it is on meta, so a stand-in that calls the composite on meta inputs sees the kernel reject
// them: that is no defect of the op, and opcheck4j says Skipped, with this reason, for fake.metadata and for
// kernel.error on meta (docs/checks/fake.metadata.md).
// torch.library.opcheck 2.14.1 on this op, example float32[2, 3] requires_grad (pytorch-opcheck.py):
//   test_schema: SUCCESS, test_autograd_registration: SUCCESS, test_faketensor: SUCCESS,
//   test_aot_dispatch_dynamic: SUCCESS; torch.autograd.gradcheck: SUCCESS
// OP: fidelity_ops::cia_checks_cpu
Tensor cia_checks_cpu(Tensor pos) {
  STD_TORCH_CHECK(pos.is_cpu(), "cia_checks_cpu: pos must be a CPU tensor");
  return mul(pos, pos);
}

// Its twin with a Meta kernel of its own that makes the same device check: FakeTensorMode calls a Meta
// kernel on meta tensors, so the check fails there as it does on opcheck4j's meta stand-in.
// torch.library.opcheck 2.14.1 on this op, example float32[2, 3] (pytorch-opcheck.py): test_schema: SUCCESS,
//   test_autograd_registration: SUCCESS, test_faketensor and test_aot_dispatch_dynamic: "RuntimeError:
//   meta_checks_cpu_meta, fidelity_ops.cpp:(line), meta_checks_cpu: pos must be a CPU tensor"
// OP: fidelity_ops::meta_checks_cpu
// EXPECT: kernel.error, fake.metadata
Tensor meta_checks_cpu(Tensor pos) { return detach(mul(pos, pos)); }

Tensor meta_checks_cpu_meta(Tensor pos) {
  STD_TORCH_CHECK(pos.is_cpu(), "meta_checks_cpu: pos must be a CPU tensor");
  return torch::stable::empty_like(pos);
}

}  // namespace

STABLE_TORCH_LIBRARY(fidelity_ops, m) {
  m.def("void_scale_(Tensor(a!) x, float s) -> ()");
  m.def("add_into_(Tensor(a!) acc, Tensor x) -> Tensor");
  m.def("cia_unsqueeze(Tensor x) -> Tensor");
  m.def("cea_unsqueeze(Tensor x) -> Tensor");
  m.def("shape_facts(Tensor x) -> (Tensor, int, bool, float, int[])");
  m.def("count_meta_wrong(Tensor x) -> (Tensor, int)");
  m.def("reports_cpu(Tensor x) -> bool");
  m.def("meta_notes(Tensor x) -> Tensor");
  m.def("meta_aborts_large(Tensor x) -> Tensor");
  m.def("stale_element(Tensor x) -> Tensor");
  m.def("abort_on_bool(Tensor x) -> Tensor");
  m.def("optional_affine(Tensor x, Tensor? weight=None, Tensor? bias=None) -> Tensor");
  m.def("cia_checks_cpu(Tensor pos) -> Tensor");
  m.def("meta_checks_cpu(Tensor pos) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(fidelity_ops, CPU, m) {
  m.impl("void_scale_", TORCH_BOX(&void_scale_));
  m.impl("add_into_", TORCH_BOX(&add_into_));
  m.impl("shape_facts", TORCH_BOX(&shape_facts));
  m.impl("count_meta_wrong", TORCH_BOX(&count_meta_wrong));
  m.impl("meta_notes", TORCH_BOX(&copy_kernel));
  m.impl("meta_aborts_large", TORCH_BOX(&copy_kernel));
  m.impl("stale_element", TORCH_BOX(&stale_element));
  m.impl("abort_on_bool", TORCH_BOX(&abort_on_bool));
  m.impl("optional_affine", TORCH_BOX(&optional_affine));
  m.impl("meta_checks_cpu", TORCH_BOX(&meta_checks_cpu));
}

STABLE_TORCH_LIBRARY_IMPL(fidelity_ops, Meta, m) {
  m.impl("shape_facts", TORCH_BOX(&shape_facts_meta));
  m.impl("count_meta_wrong", TORCH_BOX(&count_meta_wrong_meta));
  m.impl("meta_notes", TORCH_BOX(&meta_notes_meta));
  m.impl("meta_aborts_large", TORCH_BOX(&meta_aborts_large_meta));
  m.impl("stale_element", TORCH_BOX(&empty_like_meta));
  m.impl("abort_on_bool", TORCH_BOX(&empty_like_meta));
  m.impl("optional_affine", TORCH_BOX(&optional_affine));
  m.impl("meta_checks_cpu", TORCH_BOX(&meta_checks_cpu_meta));
}

STABLE_TORCH_LIBRARY_IMPL(fidelity_ops, CompositeImplicitAutograd, m) {
  m.impl("cia_unsqueeze", TORCH_BOX(&cia_unsqueeze));
  m.impl("cia_checks_cpu", TORCH_BOX(&cia_checks_cpu));
}

STABLE_TORCH_LIBRARY_IMPL(fidelity_ops, CompositeExplicitAutograd, m) {
  m.impl("cea_unsqueeze", TORCH_BOX(&cea_unsqueeze));
  m.impl("reports_cpu", TORCH_BOX(&reports_cpu));
}
