// Issue 32: declared dtypes both ways, and variant families (foo, foo_, foo.out). For each check a
// correct op (no EXPECT: every check passes or is skipped) and one with one defect, marked with the one
// check that must trip (`// OP:` / `// EXPECT:`). What real PyTorch 2.14.1 says of each is recorded in
// fixtures/specs/variants/real-pytorch.json: opcheck passes every one; OpInfo's rules, applied by hand
// (real_variants.py beside it), fail exactly the marked ones. Every op here is a CPU kernel with a Meta
// kernel (or, for one that returns nothing, the trivial fake implementation); the spec declares them
// not differentiable.
#include "kernels.h"

#include <cstring>

using namespace opcheck4j;

namespace {

Tensor like_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

// k * x for float32 and float64; any other dtype is a clear error (elem() raises on it).
Tensor scaled(const Tensor& x, double k) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return k * elem(xc, i); });
}

// Writes k * x into out, which must have x's sizes and dtype.
void scaled_into(const Tensor& x, Tensor out, double k, const char* name) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), name, ": out must have x's sizes");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), name, ": out must have x's dtype");
  torch::stable::copy_(out, scaled(x, k));
}

// What scaled_into checks, and nothing else: the Meta kernel of the out= variants.
void out_like_meta(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "out must have x's sizes");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), "out must have x's dtype");
}

// Multiplies x by k where it is (x is contiguous or not: elementwise through a contiguous copy).
void scale_in_place(Tensor x, double k) { torch::stable::copy_(x, scaled(x, k)); }

// ---- Declared dtypes. The spec declares float32 and float64 for each op but dtype_unlisted.

// Handles float32 and float64, rejects the rest with a clear error: what it declares is what it does.
// OP: variant_ops::dtype_good
Tensor dtype_good(Tensor x) { return scaled(x, 2.0); }
Tensor dtype_good_meta(Tensor x) {
  check_floating(x, "dtype_good: x");
  return like_meta(x);
}

// Declares float64 but was written for float32 only: float64 is rejected with a clear error. OpInfo's
// test_dtypes calls this "claims to support float64 but it failed".
// OP: variant_ops::dtype_missing
// EXPECT: dtype.declared
Tensor dtype_missing(Tensor x) {
  STD_TORCH_CHECK(x.scalar_type() == ScalarType::Float, "dtype_missing: x must be float32");
  return scaled(x, 2.0);
}
Tensor dtype_missing_meta(Tensor x) {
  STD_TORCH_CHECK(x.scalar_type() == ScalarType::Float, "dtype_missing: x must be float32");
  return like_meta(x);
}

// The kernel of dtype_good, but the spec declares float32 only: float64 works and is not listed
// (test_dtypes: "works but not listed"), a warning.
// OP: variant_ops::dtype_unlisted
// EXPECT: dtype.unlisted
Tensor dtype_unlisted(Tensor x) { return scaled(x, 2.0); }

// ---- Variant families: foo, foo_ and foo.out in one library.

// triple(x) = 3x; triple_ multiplies x by 3 in place; triple.out writes 3x into out. They agree.
// OP: variant_ops::triple
Tensor triple(Tensor x) { return scaled(x, 3.0); }
// OP: variant_ops::triple_
void triple_(Tensor x) { scale_in_place(x, 3.0); }
// OP: variant_ops::triple.out
void triple_out(Tensor x, Tensor out) { scaled_into(x, out, 3.0, "triple.out"); }

// quad(x) = 4x and quad.out agree, but quad_ multiplies by 3: a copy-paste slip in the in-place variant.
// OP: variant_ops::quad
Tensor quad(Tensor x) { return scaled(x, 4.0); }
// OP: variant_ops::quad_
// EXPECT: variant.agree
void quad_(Tensor x) { scale_in_place(x, 3.0); }
// OP: variant_ops::quad.out
void quad_out(Tensor x, Tensor out) { scaled_into(x, out, 4.0, "quad.out"); }

// half(x) = x / 2, and half_out, named the other way PyTorch names out variants, writes x / 4.
// OP: variant_ops::half
Tensor half(Tensor x) { return scaled(x, 0.5); }
// OP: variant_ops::half_out
// EXPECT: variant.agree
void half_out(Tensor x, Tensor out) { scaled_into(x, out, 0.25, "half_out"); }

// ---- Families the spec names ("variant_of"), whose names do not follow foo / foo_ / foo.out.

// fivefold(x) = 5x; fivefold_inplace multiplies x by 5 in place; fivefold_into writes 5x into out. The
// spec names them one family, and they agree.
// OP: variant_ops::fivefold
Tensor fivefold(Tensor x) { return scaled(x, 5.0); }
// OP: variant_ops::fivefold_inplace
void fivefold_inplace(Tensor x) { scale_in_place(x, 5.0); }
// OP: variant_ops::fivefold_into
void fivefold_into(Tensor x, Tensor out) { scaled_into(x, out, 5.0, "fivefold_into"); }

// sixfold(x) = 6x, but sixfold_inplace, which the spec names its in-place variant, multiplies by 5.
// OP: variant_ops::sixfold
Tensor sixfold(Tensor x) { return scaled(x, 6.0); }
// OP: variant_ops::sixfold_inplace
// EXPECT: variant.agree
void sixfold_inplace(Tensor x) { scale_in_place(x, 5.0); }

// Named like quad's out= variant, but writes x to the fourth power (the quartic), on purpose: the spec
// says it is no variant ("variant_of": {"none": ...}), so variant.agree does not apply to it. Its out=
// handling is right.
// OP: variant_ops::quad_out
void quad_out_quartic(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "quad_out: out must have x's sizes");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), "quad_out: out must have x's dtype");
  Tensor xc = torch::stable::contiguous(x);
  torch::stable::copy_(out, map_new(xc, [&](int64_t i) { double v = elem(xc, i); return v * v * v * v; }));
}

// ---- out= semantics (the out.* checks), for keyword-only Tensor(a!) arguments. triple.out and quad.out
// above are the good twins: they check out's sizes and dtype, and copy_ into it.

int64_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Double: case ScalarType::Long: return 8;
    case ScalarType::Float: case ScalarType::Int: return 4;
    case ScalarType::Half: case ScalarType::BFloat16: case ScalarType::Short: return 2;
    default: return 1;
  }
}

// Accumulates into out (out += 2x) as if out were an input: its result depends on what out held.
// OP: variant_ops::accum_out
// EXPECT: out.reads-out
void accum_out(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "accum_out: out must have x's sizes");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), "accum_out: out must have x's dtype");
  torch::stable::copy_(out, add(out, scaled(x, 2.0)));
}

// Writes 2x into out's buffer as if out were contiguous: a strided out gets the values in the wrong places.
// OP: variant_ops::flat_out
// EXPECT: out.strides
void flat_out(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "flat_out: out must have x's sizes");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), "flat_out: out must have x's dtype");
  Tensor r = scaled(x, 2.0);
  std::memcpy(out.data_ptr(), r.data_ptr(), r.numel() * element_size(r.scalar_type()));
}

// Checks out's sizes and element size but not its dtype: an int32 out gets float32 bits.
// OP: variant_ops::bytes_out
// EXPECT: out.dtype
void bytes_out(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "bytes_out: out must have x's sizes");
  STD_TORCH_CHECK(element_size(x.scalar_type()) == element_size(out.scalar_type()),
                  "bytes_out: out must have x's element size");
  Tensor r = scaled(x, 2.0);
  Tensor raw = torch::stable::new_empty(out, sizes_of(out));
  std::memcpy(raw.data_ptr(), r.data_ptr(), r.numel() * element_size(r.scalar_type()));
  torch::stable::copy_(out, raw);
}

// Writes out of x's sizes properly, but takes any other contiguous out with room for the result and fills
// its first elements: a larger out keeps its wrong shape, partly written.
// OP: variant_ops::prefix_out
// EXPECT: out.shape
void check_prefix_out(const Tensor& x, const Tensor& out) {
  STD_TORCH_CHECK(sizes_of(out) == sizes_of(x) || (out.is_contiguous() && out.numel() >= x.numel()),
                  "prefix_out: out must have x's sizes, or be contiguous with room for them");
  STD_TORCH_CHECK(x.scalar_type() == out.scalar_type(), "prefix_out: out must have x's dtype");
}
void prefix_out(Tensor x, Tensor out) {
  check_prefix_out(x, out);
  Tensor r = scaled(x, 2.0);
  if (sizes_of(out) == sizes_of(x)) {
    torch::stable::copy_(out, r);
    return;
  }
  std::memcpy(out.data_ptr(), r.data_ptr(), r.numel() * element_size(r.scalar_type()));
}
void prefix_out_meta(Tensor x, Tensor out) { check_prefix_out(x, out); }
void bytes_out_meta(Tensor x, Tensor out) {
  STD_TORCH_CHECK(sizes_of(x) == sizes_of(out), "bytes_out: out must have x's sizes");
  STD_TORCH_CHECK(element_size(x.scalar_type()) == element_size(out.scalar_type()),
                  "bytes_out: out must have x's element size");
}

}  // namespace

STABLE_TORCH_LIBRARY(variant_ops, m) {
  m.def("dtype_good(Tensor x) -> Tensor");
  m.def("dtype_missing(Tensor x) -> Tensor");
  m.def("dtype_unlisted(Tensor x) -> Tensor");
  m.def("triple(Tensor x) -> Tensor");
  m.def("triple_(Tensor(a!) x) -> ()");
  m.def("triple.out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("quad(Tensor x) -> Tensor");
  m.def("quad_(Tensor(a!) x) -> ()");
  m.def("quad.out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("half(Tensor x) -> Tensor");
  m.def("half_out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("accum_out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("flat_out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("bytes_out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("prefix_out(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("fivefold(Tensor x) -> Tensor");
  m.def("fivefold_inplace(Tensor(a!) x) -> ()");
  m.def("fivefold_into(Tensor x, *, Tensor(a!) out) -> ()");
  m.def("sixfold(Tensor x) -> Tensor");
  m.def("sixfold_inplace(Tensor(a!) x) -> ()");
  m.def("quad_out(Tensor x, *, Tensor(a!) out) -> ()");
}

STABLE_TORCH_LIBRARY_IMPL(variant_ops, CPU, m) {
  m.impl("dtype_good", TORCH_BOX(&dtype_good));
  m.impl("dtype_missing", TORCH_BOX(&dtype_missing));
  m.impl("dtype_unlisted", TORCH_BOX(&dtype_unlisted));
  m.impl("triple", TORCH_BOX(&triple));
  m.impl("triple_", TORCH_BOX(&triple_));
  m.impl("triple.out", TORCH_BOX(&triple_out));
  m.impl("quad", TORCH_BOX(&quad));
  m.impl("quad_", TORCH_BOX(&quad_));
  m.impl("quad.out", TORCH_BOX(&quad_out));
  m.impl("half", TORCH_BOX(&half));
  m.impl("half_out", TORCH_BOX(&half_out));
  m.impl("accum_out", TORCH_BOX(&accum_out));
  m.impl("flat_out", TORCH_BOX(&flat_out));
  m.impl("bytes_out", TORCH_BOX(&bytes_out));
  m.impl("prefix_out", TORCH_BOX(&prefix_out));
  m.impl("fivefold", TORCH_BOX(&fivefold));
  m.impl("fivefold_inplace", TORCH_BOX(&fivefold_inplace));
  m.impl("fivefold_into", TORCH_BOX(&fivefold_into));
  m.impl("sixfold", TORCH_BOX(&sixfold));
  m.impl("sixfold_inplace", TORCH_BOX(&sixfold_inplace));
  m.impl("quad_out", TORCH_BOX(&quad_out_quartic));
}

STABLE_TORCH_LIBRARY_IMPL(variant_ops, Meta, m) {
  m.impl("dtype_good", TORCH_BOX(&dtype_good_meta));
  m.impl("dtype_missing", TORCH_BOX(&dtype_missing_meta));
  m.impl("dtype_unlisted", TORCH_BOX(&dtype_good_meta));
  m.impl("triple", TORCH_BOX(&dtype_good_meta));
  m.impl("quad", TORCH_BOX(&dtype_good_meta));
  m.impl("half", TORCH_BOX(&dtype_good_meta));
  m.impl("triple.out", TORCH_BOX(&out_like_meta));
  m.impl("quad.out", TORCH_BOX(&out_like_meta));
  m.impl("half_out", TORCH_BOX(&out_like_meta));
  m.impl("accum_out", TORCH_BOX(&out_like_meta));
  m.impl("flat_out", TORCH_BOX(&out_like_meta));
  m.impl("bytes_out", TORCH_BOX(&bytes_out_meta));
  m.impl("prefix_out", TORCH_BOX(&prefix_out_meta));
  m.impl("fivefold", TORCH_BOX(&dtype_good_meta));
  m.impl("fivefold_into", TORCH_BOX(&out_like_meta));
  m.impl("sixfold", TORCH_BOX(&dtype_good_meta));
  m.impl("quad_out", TORCH_BOX(&out_like_meta));
}
