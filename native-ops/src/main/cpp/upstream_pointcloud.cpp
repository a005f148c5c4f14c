// Real-code corpus (issue 52): operators whose contract is that of the point-cloud and graph libraries
// torch_scatter, torch_cluster, torch_sparse (PyG) and pytorch3d, classic TORCH_LIBRARY code (built with the
// runtime's own headers, as those libraries are).
//
// Contract modelled on:
//   github.com/rusty1s/pytorch_scatter  csrc/scatter.cpp, csrc/segment_csr.cpp, csrc/cpu/{scatter,segment_csr}_cpu.cpp
//                                       @ 648dda3cf964731ffb4de11eafc445a83133eda4
//   github.com/rusty1s/pytorch_cluster  csrc/{fps,knn,radius,grid}.cpp, csrc/cpu/*_cpu.cpp
//                                       @ 3d1d9e3967c77c757a68d8aad37d0171e93018e2
//   github.com/rusty1s/pytorch_sparse   csrc/{spmm,convert}.cpp, csrc/cpu/{spmm,convert}_cpu.cpp
//                                       @ 91feaa5e28a2eb4ba983a9007d046112dbc92d97
//   github.com/facebookresearch/pytorch3d  pytorch3d/csrc/knn/knn_cpu.cpp, pytorch3d/ops/knn.py,
//                                       pytorch3d/csrc/sample_farthest_points/*  @ 9381c4016376345bb795b97c45a6c2de66db354a
// The code is ours. What is upstream's is the contract the corpus keeps:
// - PyG's libraries register a function by name (torch::RegisterOperators().op("ns::name", &fn)): the schema is
//   inferred from the C++ signature (arguments _0, _1, ...), the kernel is a catch-all, which the dispatcher
//   serves as CompositeImplicitAutograd, and its torch::autograd::Function runs inside it. The port registers
//   the same way (m.def("name", fn) in TORCH_LIBRARY). Their out= arguments are Tensor? without (a!), though
//   the kernels write into them; indices are never checked against the sizes they index; output sizes are read
//   from the data (index.max() + 1, ptr[-1]); knn and radius read x and y as if contiguous; fps starts at rand().
// - pytorch3d binds its C++ functions with pybind11 and wraps them in Python autograd Functions; a C++ library
//   registers them as dispatcher ops (CPU kernels, Meta kernels sized with size(d)), and knn_points, pytorch3d's
//   _knn_points autograd Function, is a composite kernel (CompositeImplicitAutograd, running a
//   torch::autograd::Function) that calls knn_points_idx through the dispatcher and then reads numel() of its
//   output (the inner-op pattern of issue 52). The CPU kernel keeps upstream's crash on
//   K = 0: the first comparison reads top() of an empty std::priority_queue. The norm check that pytorch3d makes
//   in Python ("Support for 1 or 2 norm.") is made in C++.
// Left out: scatter_min/mul, segment_min/max_csr, the segment_coo family, graclus, nearest, random_walk, the samplers, metis, the
// spmm reductions other than sum, ball_query and pytorch3d's rendering ops.
#include <ATen/ATen.h>
#include <ATen/OpMathType.h>
#include <torch/autograd.h>
#include <torch/library.h>
#include <torch/script.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <queue>
#include <tuple>
#include <vector>

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::Variable;
using torch::autograd::variable_list;

#define PYG_CHECK_CPU(x) TORCH_INTERNAL_ASSERT(x.device().is_cpu(), #x " must be CPU tensor")
#define PYG_CHECK_INPUT(x) TORCH_INTERNAL_ASSERT(x, "Input mismatch")

// ---------------------------------------------------------------------------------------------------------
// torch_scatter

// A one-dimensional index, or one of lower rank, expanded to src's shape along dim.
at::Tensor broadcast(at::Tensor src, const at::Tensor& other, int64_t dim) {
  if (src.dim() == 1) {
    for (int64_t i = 0; i < dim; i++) {
      src = src.unsqueeze(0);
    }
  }
  for (auto i = src.dim(); i < other.dim(); i++) {
    src = src.unsqueeze(-1);
  }
  return src.expand(other.sizes().vec());
}

enum class Reduce { Sum, Mean, Max };

// out[b, index[b, e, k], k] (+)= src[b, e, k] for the leading dims b, the scattered dim e and the trailing k.
// The out= tensor is written through a contiguous copy when it is not contiguous (upstream's .contiguous()).
std::tuple<at::Tensor, std::optional<at::Tensor>> scatter_kernel(at::Tensor src, const at::Tensor& index, int64_t dim,
    const std::optional<at::Tensor>& optional_out, std::optional<int64_t> dim_size, Reduce reduce) {
  PYG_CHECK_CPU(src);
  PYG_CHECK_CPU(index);
  PYG_CHECK_INPUT(src.dim() == index.dim());
  for (int64_t i = 0; i < index.dim() - 1; i++) {
    PYG_CHECK_INPUT(src.size(i) >= index.size(i));
  }
  src = src.contiguous();
  at::Tensor out;
  if (optional_out.has_value()) {
    out = optional_out->contiguous();
    for (int64_t i = 0; i < out.dim(); i++) {
      if (i != dim) {
        PYG_CHECK_INPUT(src.size(i) == out.size(i));
      }
    }
  } else {
    auto sizes = src.sizes().vec();
    if (dim_size.has_value()) {
      sizes[dim] = *dim_size;
    } else if (index.numel() == 0) {
      sizes[dim] = 0;
    } else {
      sizes[dim] = 1 + *index.max().data_ptr<int64_t>();
    }
    out = at::empty(sizes, src.options());
  }
  std::optional<at::Tensor> arg_out;
  if (reduce == Reduce::Max) {
    arg_out = at::full_like(out, src.size(dim), index.options());
  }
  if (src.numel() == 0) {
    if (!optional_out.has_value()) {
      out.fill_(0);
    }
    return {out, arg_out};
  }
  int64_t B = 1;
  for (int64_t i = 0; i < dim; i++) {
    B *= src.size(i);
  }
  int64_t E = src.size(dim), K = src.numel() / (B * E), N = out.size(dim);
  auto idx = index.contiguous();
  const int64_t* ix = idx.data_ptr<int64_t>();
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, src.scalar_type(), "scatter", [&] {
    const scalar_t* s = src.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    int64_t* arg = arg_out ? arg_out->data_ptr<int64_t>() : nullptr;
    scalar_t init = reduce == Reduce::Max ? std::numeric_limits<scalar_t>::lowest() : scalar_t(0);
    if (!optional_out.has_value()) {
      out.fill_(init);
    }
    for (int64_t b = 0; b < B; b++) {
      for (int64_t e = 0; e < E; e++) {
        for (int64_t k = 0; k < K; k++) {
          int64_t i = (b * E + e) * K + k;
          int64_t at = (b * N + ix[i]) * K + k;  // ix[i] is never checked against N
          if (reduce == Reduce::Max) {
            if (s[i] > o[at] || (o[at] != o[at])) {
              o[at] = s[i];
              arg[at] = e;
            }
          } else {
            o[at] += s[i];
          }
        }
      }
    }
    if (!optional_out.has_value() && reduce == Reduce::Max) {
      out.masked_fill_(out == init, scalar_t(0));
    }
  });
  return {out, arg_out};
}

class ScatterSum : public torch::autograd::Function<ScatterSum> {
 public:
  static variable_list forward(AutogradContext* ctx, Variable src, Variable index, int64_t dim,
      std::optional<Variable> optional_out, std::optional<int64_t> dim_size) {
    dim = dim < 0 ? src.dim() + dim : dim;
    ctx->saved_data["dim"] = dim;
    index = broadcast(index, src, dim);
    auto out = std::get<0>(scatter_kernel(src, index, dim, optional_out, dim_size, Reduce::Sum));
    ctx->save_for_backward({index});
    if (optional_out.has_value()) {
      ctx->mark_dirty({*optional_out});
    }
    return {out};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outs) {
    auto index = ctx->get_saved_variables()[0];
    auto grad_in = at::gather(grad_outs[0], ctx->saved_data["dim"].toInt(), index, false);
    return {grad_in, Variable(), Variable(), Variable(), Variable()};
  }
};

class ScatterMean : public torch::autograd::Function<ScatterMean> {
 public:
  static variable_list forward(AutogradContext* ctx, Variable src, Variable index, int64_t dim,
      std::optional<Variable> optional_out, std::optional<int64_t> dim_size) {
    dim = dim < 0 ? src.dim() + dim : dim;
    ctx->saved_data["dim"] = dim;
    auto old_index = index;
    index = broadcast(index, src, dim);
    auto out = std::get<0>(scatter_kernel(src, index, dim, optional_out, dim_size, Reduce::Sum));
    auto ones = at::ones(old_index.sizes(), src.options());
    auto count = std::get<0>(scatter_kernel(ones, old_index, old_index.dim() <= dim ? old_index.dim() - 1 : dim,
        std::nullopt, out.size(dim), Reduce::Sum));
    count.masked_fill_(count < 1, 1);
    count = broadcast(count, out, dim);
    if (out.is_floating_point()) {
      out.true_divide_(count);
    } else {
      out.div_(count, "floor");
    }
    ctx->save_for_backward({index, count});
    if (optional_out.has_value()) {
      ctx->mark_dirty({*optional_out});
    }
    return {out};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outs) {
    auto saved = ctx->get_saved_variables();
    auto dim = ctx->saved_data["dim"].toInt();
    auto count = at::gather(saved[1], dim, saved[0], false);
    auto grad_in = at::gather(grad_outs[0], dim, saved[0], false);
    grad_in.true_divide_(count);
    return {grad_in, Variable(), Variable(), Variable(), Variable()};
  }
};

class ScatterMax : public torch::autograd::Function<ScatterMax> {
 public:
  static variable_list forward(AutogradContext* ctx, Variable src, Variable index, int64_t dim,
      std::optional<Variable> optional_out, std::optional<int64_t> dim_size) {
    dim = dim < 0 ? src.dim() + dim : dim;
    ctx->saved_data["dim"] = dim;
    ctx->saved_data["src_shape"] = src.sizes();
    index = broadcast(index, src, dim);
    auto [out, arg_out] = scatter_kernel(src, index, dim, optional_out, dim_size, Reduce::Max);
    ctx->save_for_backward({index, *arg_out});
    ctx->mark_non_differentiable({*arg_out});
    if (optional_out.has_value()) {
      ctx->mark_dirty({*optional_out});
    }
    return {out, *arg_out};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outs) {
    auto saved = ctx->get_saved_variables();
    auto dim = ctx->saved_data["dim"].toInt();
    auto shape = ctx->saved_data["src_shape"].toIntVector();
    shape[dim] += 1;
    auto grad_in = at::zeros(shape, grad_outs[0].options());
    grad_in.scatter_(dim, saved[1], grad_outs[0]);
    grad_in = grad_in.narrow(dim, 0, shape[dim] - 1);
    return {grad_in, Variable(), Variable(), Variable(), Variable()};
  }
};

at::Tensor scatter_sum(at::Tensor src, at::Tensor index, int64_t dim, std::optional<at::Tensor> out,
    std::optional<int64_t> dim_size) {
  return ScatterSum::apply(src, index, dim, out, dim_size)[0];
}

at::Tensor scatter_mean(at::Tensor src, at::Tensor index, int64_t dim, std::optional<at::Tensor> out,
    std::optional<int64_t> dim_size) {
  return ScatterMean::apply(src, index, dim, out, dim_size)[0];
}

std::tuple<at::Tensor, at::Tensor> scatter_max(at::Tensor src, at::Tensor index, int64_t dim,
    std::optional<at::Tensor> out, std::optional<int64_t> dim_size) {
  auto result = ScatterMax::apply(src, index, dim, out, dim_size);
  return {result[0], result[1]};
}

// Segments of src's dim (indptr.dim() - 1) given by indptr (its leading dims broadcast against src's).
struct Segments {
  at::Tensor indptr;  // expanded to src's leading dims, contiguous
  int64_t dim, rows, segments, K;
};

Segments segments_of(const at::Tensor& src, at::Tensor indptr) {
  PYG_CHECK_INPUT(src.dim() >= indptr.dim());
  auto sizes = indptr.sizes().vec();
  for (int64_t i = 0; i < indptr.dim() - 1; i++) {
    sizes[i] = src.size(i);
  }
  indptr = indptr.expand(sizes).contiguous();
  int64_t dim = indptr.dim() - 1, rows = indptr.numel() / indptr.size(-1);
  int64_t lead = 1;
  for (int64_t i = 0; i <= dim; i++) {
    lead *= src.size(i);
  }
  return {indptr, dim, rows, std::max<int64_t>(indptr.size(-1) - 1, 0), lead == 0 ? 0 : src.numel() / lead};
}

// out[r, s, k] = sum (mean: the sum over the count, 1 for an empty segment) of src[r, e, k] for e in
// [indptr[r, s], indptr[r, s + 1]).
at::Tensor segment_sum_kernel(at::Tensor src, const at::Tensor& indptr_in, const std::optional<at::Tensor>& optional_out,
    bool mean = false) {
  PYG_CHECK_CPU(src);
  PYG_CHECK_CPU(indptr_in);
  auto seg = segments_of(src, indptr_in);
  src = src.contiguous();
  at::Tensor out;
  if (optional_out.has_value()) {
    out = optional_out->contiguous();
    for (int64_t i = 0; i < out.dim(); i++) {
      if (i != seg.dim) {
        PYG_CHECK_INPUT(src.size(i) == out.size(i));
      }
    }
    PYG_CHECK_INPUT(src.numel() == 0 || out.size(seg.dim) == seg.segments);
  } else {
    auto sizes = src.sizes().vec();
    sizes[seg.dim] = seg.segments;
    out = at::empty(sizes, src.options());
  }
  if (src.numel() == 0) {
    if (!optional_out.has_value()) {
      out.fill_(0);
    }
    return out;
  }
  int64_t E = src.size(seg.dim);
  const int64_t* ptr = seg.indptr.data_ptr<int64_t>();
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, src.scalar_type(), "segment_csr", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const scalar_t* s = src.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t r = 0; r < seg.rows; r++) {
      const int64_t* p = ptr + r * (seg.segments + 1);
      for (int64_t n = 0; n < seg.segments; n++) {
        for (int64_t k = 0; k < seg.K; k++) {
          acc_t v = 0;
          for (int64_t e = p[n]; e < p[n + 1]; e++) {  // indptr is never checked against E
            v += static_cast<acc_t>(s[(r * E + e) * seg.K + k]);
          }
          if (mean) {
            int64_t count = p[n + 1] - p[n];
            v = v / static_cast<acc_t>(count > 0 ? count : 1);
          }
          o[(r * seg.segments + n) * seg.K + k] = static_cast<scalar_t>(v);
        }
      }
    }
  });
  return out;
}

// out[r, e, k] = src[r, s, k] for e in segment s; elements of out no segment covers are left as they were
// (uninitialised when the op allocates out, as upstream's torch::empty leaves them).
at::Tensor gather_kernel(at::Tensor src, const at::Tensor& indptr_in, const std::optional<at::Tensor>& optional_out) {
  PYG_CHECK_CPU(src);
  PYG_CHECK_CPU(indptr_in);
  auto seg = segments_of(src, indptr_in);
  PYG_CHECK_INPUT(src.size(seg.dim) == 0 || src.size(seg.dim) == seg.segments);
  src = src.contiguous();
  at::Tensor out;
  if (optional_out.has_value()) {
    out = optional_out->contiguous();
    for (int64_t i = 0; i < out.dim(); i++) {
      if (i != seg.dim) {
        PYG_CHECK_INPUT(src.size(i) == out.size(i));
      }
    }
  } else {
    auto sizes = src.sizes().vec();
    sizes[seg.dim] = src.numel() > 0 ? *seg.indptr.flatten()[-1].data_ptr<int64_t>() : 0;
    out = at::empty(sizes, src.options());
  }
  if (src.numel() == 0) {
    if (!optional_out.has_value()) {
      out.fill_(0);
    }
    return out;
  }
  int64_t E = out.size(seg.dim);
  const int64_t* ptr = seg.indptr.data_ptr<int64_t>();
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, src.scalar_type(), "gather_csr", [&] {
    const scalar_t* s = src.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t r = 0; r < seg.rows; r++) {
      const int64_t* p = ptr + r * (seg.segments + 1);
      for (int64_t n = 0; n < seg.segments; n++) {
        for (int64_t e = p[n]; e < p[n + 1]; e++) {
          for (int64_t k = 0; k < seg.K; k++) {
            o[(r * E + e) * seg.K + k] = s[(r * seg.segments + n) * seg.K + k];
          }
        }
      }
    }
  });
  return out;
}

class SegmentSumCsr : public torch::autograd::Function<SegmentSumCsr> {
 public:
  static variable_list forward(AutogradContext* ctx, Variable src, Variable indptr, std::optional<Variable> optional_out) {
    ctx->saved_data["src_shape"] = src.sizes();
    auto out = segment_sum_kernel(src, indptr, optional_out);
    ctx->save_for_backward({indptr});
    if (optional_out.has_value()) {
      ctx->mark_dirty({*optional_out});
    }
    return {out};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outs) {
    auto grad_in = at::empty(ctx->saved_data["src_shape"].toIntVector(), grad_outs[0].options());
    gather_kernel(grad_outs[0], ctx->get_saved_variables()[0], grad_in);
    return {grad_in, Variable(), Variable()};
  }
};

class GatherCsr : public torch::autograd::Function<GatherCsr> {
 public:
  static variable_list forward(AutogradContext* ctx, Variable src, Variable indptr, std::optional<Variable> optional_out) {
    ctx->saved_data["src_shape"] = src.sizes();
    auto out = gather_kernel(src, indptr, optional_out);
    ctx->save_for_backward({indptr});
    if (optional_out.has_value()) {
      ctx->mark_dirty({*optional_out});
    }
    return {out};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outs) {
    auto grad_in = at::empty(ctx->saved_data["src_shape"].toIntVector(), grad_outs[0].options());
    segment_sum_kernel(grad_outs[0], ctx->get_saved_variables()[0], grad_in);
    return {grad_in, Variable(), Variable()};
  }
};

class SegmentMeanCsr : public torch::autograd::Function<SegmentMeanCsr> {
 public:
  static variable_list forward(AutogradContext* ctx, Variable src, Variable indptr, std::optional<Variable> optional_out) {
    ctx->saved_data["src_shape"] = src.sizes();
    auto out = segment_sum_kernel(src, indptr, optional_out, /*mean=*/true);
    ctx->save_for_backward({indptr});
    if (optional_out.has_value()) {
      ctx->mark_dirty({*optional_out});
    }
    return {out};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outs) {
    auto grad_out = grad_outs[0];
    auto indptr = ctx->get_saved_variables()[0];
    auto grad_in = at::empty(ctx->saved_data["src_shape"].toIntVector(), grad_out.options());
    if (grad_in.numel() > 0) {
      gather_kernel(grad_out, indptr, grad_in);
      auto count = (indptr.narrow(-1, 1, indptr.size(-1) - 1) - indptr.narrow(-1, 0, indptr.size(-1) - 1))
                       .to(grad_in.options());
      count = gather_kernel(count, indptr, std::nullopt);
      for (int64_t i = 0; i < grad_out.dim() - indptr.dim(); i++) {
        count = count.unsqueeze(-1);
      }
      grad_in.true_divide_(count);
    }
    return {grad_in, Variable(), Variable()};
  }
};

at::Tensor segment_mean_csr(at::Tensor src, at::Tensor indptr, std::optional<at::Tensor> out) {
  return SegmentMeanCsr::apply(src, indptr, out)[0];
}

at::Tensor segment_sum_csr(at::Tensor src, at::Tensor indptr, std::optional<at::Tensor> out) {
  return SegmentSumCsr::apply(src, indptr, out)[0];
}

at::Tensor gather_csr(at::Tensor src, at::Tensor indptr, std::optional<at::Tensor> out) {
  return GatherCsr::apply(src, indptr, out)[0];
}

// ---------------------------------------------------------------------------------------------------------
// torch_cluster

// Farthest point sampling per batch segment ptr[b]..ptr[b+1], ceil(ratio * size) points each, starting at the
// segment's first point or at rand() (the C library's generator, not torch's). A segment with no points still
// writes its first sample, into the next segment's slot.
at::Tensor fps(at::Tensor src, at::Tensor ptr, at::Tensor ratio, bool random_start) {
  PYG_CHECK_CPU(src);
  PYG_CHECK_CPU(ptr);
  PYG_CHECK_CPU(ratio);
  PYG_CHECK_INPUT(ptr.dim() == 1);
  src = src.view({src.size(0), -1}).contiguous();
  ptr = ptr.contiguous();
  int64_t batch_size = ptr.numel() - 1;
  auto deg = ptr.narrow(0, 1, batch_size) - ptr.narrow(0, 0, batch_size);
  auto out_ptr = (deg.toType(at::kFloat) * ratio).ceil().toType(at::kLong).cumsum(0);
  auto out = at::empty({out_ptr[-1].data_ptr<int64_t>()[0]}, ptr.options());
  const int64_t* p = ptr.data_ptr<int64_t>();
  const int64_t* op = out_ptr.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch_size; b++) {
    int64_t src_start = p[b], src_end = p[b + 1];
    int64_t out_start = b == 0 ? 0 : op[b - 1], out_end = op[b];
    auto y = src.narrow(0, src_start, src_end - src_start);
    int64_t start = random_start ? rand() % y.size(0) : 0;
    o[out_start] = src_start + start;
    auto dist = (y - y[start]).pow_(2).sum(1);
    for (int64_t i = 1; i < out_end - out_start; i++) {
      int64_t argmax = dist.argmax().data_ptr<int64_t>()[0];
      o[out_start + i] = src_start + argmax;
      dist = at::min(dist, (y - y[argmax]).pow_(2).sum(1));
    }
  }
  return out;
}

// The pairs (y row, x row) of the k nearest x rows of each y row (within its batch segment), nearest first,
// as a [2, E] int64 tensor. x and y are read through data_ptr as if contiguous.
template <typename Visit>
void each_segment_pair(const at::Tensor& x, const at::Tensor& y, const std::optional<at::Tensor>& ptr_x,
    const std::optional<at::Tensor>& ptr_y, Visit visit) {
  if (!ptr_x.has_value()) {
    visit(0, x.size(0), 0, y.size(0));
    return;
  }
  const int64_t* px = ptr_x->data_ptr<int64_t>();
  const int64_t* py = ptr_y.value().data_ptr<int64_t>();
  for (int64_t b = 0; b < ptr_x->size(0) - 1; b++) {
    if (px[b] != px[b + 1] && py[b] != py[b + 1]) {
      visit(px[b], px[b + 1], py[b], py[b + 1]);
    }
  }
}

void check_point_sets(const at::Tensor& x, const at::Tensor& y, const std::optional<at::Tensor>& ptr_x,
    const std::optional<at::Tensor>& ptr_y) {
  PYG_CHECK_CPU(x);
  PYG_CHECK_INPUT(x.dim() == 2);
  PYG_CHECK_CPU(y);
  PYG_CHECK_INPUT(y.dim() == 2);
  for (const auto& ptr : {ptr_x, ptr_y}) {
    if (ptr.has_value()) {
      PYG_CHECK_CPU(ptr.value());
      PYG_CHECK_INPUT(ptr->dim() == 1);
    }
  }
}

at::Tensor pairs_tensor(const std::vector<int64_t>& pairs, const at::Tensor& like) {
  int64_t n = static_cast<int64_t>(pairs.size() / 2);
  auto out = at::from_blob(const_cast<int64_t*>(pairs.data()), {n, 2}, like.options().dtype(at::kLong));
  return out.t().index_select(0, at::tensor({1, 0}));
}

at::Tensor knn(at::Tensor x, at::Tensor y, std::optional<at::Tensor> ptr_x, std::optional<at::Tensor> ptr_y, int64_t k,
    bool cosine, int64_t num_workers) {
  if (cosine) {
    TORCH_CHECK(false, "`cosine` argument not supported on CPU");
  }
  check_point_sets(x, y, ptr_x, ptr_y);
  std::vector<int64_t> pairs;
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "knn", [&] {
    const scalar_t* xd = x.data_ptr<scalar_t>();
    const scalar_t* yd = y.data_ptr<scalar_t>();
    int64_t D = x.size(1);
    each_segment_pair(x, y, ptr_x, ptr_y, [&](int64_t x0, int64_t x1, int64_t y0, int64_t y1) {
      for (int64_t i = y0; i < y1; i++) {
        std::vector<std::pair<double, int64_t>> near;
        for (int64_t j = x0; j < x1; j++) {
          double d = 0;
          for (int64_t c = 0; c < D; c++) {
            double diff = static_cast<double>(xd[j * D + c]) - static_cast<double>(yd[i * D + c]);
            d += diff * diff;
          }
          near.emplace_back(d, j);
        }
        std::stable_sort(near.begin(), near.end(), [](auto& a, auto& b) { return a.first < b.first; });
        for (int64_t j = 0; j < std::min<int64_t>(k, near.size()); j++) {
          pairs.push_back(near[j].second);
          pairs.push_back(i);
        }
      }
    });
  });
  return pairs_tensor(pairs, x);
}

at::Tensor radius(at::Tensor x, at::Tensor y, std::optional<at::Tensor> ptr_x, std::optional<at::Tensor> ptr_y,
    double r, int64_t max_num_neighbors, int64_t num_workers, bool ignore_same_index) {
  check_point_sets(x, y, ptr_x, ptr_y);
  std::vector<int64_t> pairs;
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "radius", [&] {
    const scalar_t* xd = x.data_ptr<scalar_t>();
    const scalar_t* yd = y.data_ptr<scalar_t>();
    int64_t D = x.size(1);
    each_segment_pair(x, y, ptr_x, ptr_y, [&](int64_t x0, int64_t x1, int64_t y0, int64_t y1) {
      for (int64_t i = y0; i < y1; i++) {
        int64_t count = 0;
        for (int64_t j = x0; j < x1 && count < max_num_neighbors; j++) {
          double d = 0;
          for (int64_t c = 0; c < D; c++) {
            double diff = static_cast<double>(xd[j * D + c]) - static_cast<double>(yd[i * D + c]);
            d += diff * diff;
          }
          if (d <= r * r && (!ignore_same_index || j - x0 != i - y0)) {
            pairs.push_back(j);
            pairs.push_back(i);
            count++;
          }
        }
      }
    });
  });
  return pairs_tensor(pairs, x);
}

// The voxel each point falls in, numbered row-major from start with voxels of the given size. As upstream, a
// given end is checked with start's element count (its typo), and the result is not sized from end.
at::Tensor grid(at::Tensor pos, at::Tensor size, std::optional<at::Tensor> optional_start,
    std::optional<at::Tensor> optional_end) {
  PYG_CHECK_CPU(pos);
  PYG_CHECK_CPU(size);
  pos = pos.view({pos.size(0), -1});
  PYG_CHECK_INPUT(size.numel() == pos.size(1));
  if (!optional_start.has_value()) {
    optional_start = std::get<0>(pos.min(0));
  } else {
    PYG_CHECK_INPUT(optional_start->numel() == pos.size(1));
  }
  if (!optional_end.has_value()) {
    optional_end = std::get<0>(pos.max(0));
  } else {
    PYG_CHECK_INPUT(optional_start->numel() == pos.size(1));
  }
  auto start = *optional_start;
  auto end = *optional_end;
  pos = pos - start.unsqueeze(0);
  auto num_voxels = ((end - start).true_divide(size).toType(at::kLong) + 1).cumprod(0);
  num_voxels = at::cat({at::ones({1}, num_voxels.options()), num_voxels}, 0).narrow(0, 0, size.size(0));
  auto out = pos.true_divide(size.view({1, -1})).toType(at::kLong);
  out *= num_voxels.view({1, -1});
  return out.sum(1);
}

// ---------------------------------------------------------------------------------------------------------
// torch_sparse

// out[..., m, :] = sum over nonzeros e of row m of value[e] * mat[..., col[e], :] (value 1 when absent).
at::Tensor spmm_kernel(const at::Tensor& rowptr, const at::Tensor& col, const std::optional<at::Tensor>& value,
    at::Tensor mat) {
  PYG_CHECK_CPU(rowptr);
  PYG_CHECK_CPU(col);
  PYG_CHECK_CPU(mat);
  PYG_CHECK_INPUT(rowptr.dim() == 1);
  PYG_CHECK_INPUT(col.dim() == 1);
  if (value.has_value()) {
    PYG_CHECK_CPU(value.value());
    PYG_CHECK_INPUT(value->dim() == 1);
    PYG_CHECK_INPUT(value->size(0) == col.size(0));
  }
  PYG_CHECK_INPUT(mat.dim() >= 2);
  mat = mat.contiguous();
  auto sizes = mat.sizes().vec();
  int64_t M = rowptr.numel() - 1, N = mat.size(-2), K = mat.size(-1), B = mat.numel() / (N * K);
  sizes[mat.dim() - 2] = M;
  auto out = at::empty(sizes, mat.options());
  const int64_t* rp = rowptr.data_ptr<int64_t>();
  const int64_t* cl = col.data_ptr<int64_t>();
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, mat.scalar_type(), "spmm", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const scalar_t* md = mat.data_ptr<scalar_t>();
    const scalar_t* vd = value.has_value() ? value->data_ptr<scalar_t>() : nullptr;
    scalar_t* o = out.data_ptr<scalar_t>();
    for (int64_t b = 0; b < B; b++) {
      for (int64_t m = 0; m < M; m++) {
        for (int64_t k = 0; k < K; k++) {
          acc_t v = 0;
          for (int64_t e = rp[m]; e < rp[m + 1]; e++) {  // col[e] is never checked against N
            acc_t w = vd != nullptr ? static_cast<acc_t>(vd[e]) : acc_t(1);
            v += w * static_cast<acc_t>(md[(b * N + cl[e]) * K + k]);
          }
          o[(b * M + m) * K + k] = static_cast<scalar_t>(v);
        }
      }
    }
  });
  return out;
}

class SpmmSum : public torch::autograd::Function<SpmmSum> {
 public:
  static variable_list forward(AutogradContext* ctx, std::optional<Variable> opt_row, Variable rowptr, Variable col,
      Variable value, std::optional<Variable> opt_colptr, std::optional<Variable> opt_csr2csc, Variable mat,
      bool has_value) {
    if (has_value && torch::autograd::any_variable_requires_grad({value})) {
      TORCH_INTERNAL_ASSERT(opt_row.has_value(), "Argument `row` is missing");
    }
    if (torch::autograd::any_variable_requires_grad({mat})) {
      TORCH_INTERNAL_ASSERT(opt_row.has_value(), "Argument `row` is missing");
      TORCH_INTERNAL_ASSERT(opt_colptr.has_value(), "Argument `colptr` is missing");
      TORCH_INTERNAL_ASSERT(opt_csr2csc.has_value(), "Argument `csr2csc` is missing");
    }
    auto row = opt_row.has_value() ? *opt_row : col;
    auto colptr = opt_colptr.has_value() ? *opt_colptr : col;
    auto csr2csc = opt_csr2csc.has_value() ? *opt_csr2csc : col;
    std::optional<at::Tensor> opt_value;
    if (has_value) {
      opt_value = value;
    }
    auto out = spmm_kernel(rowptr, col, opt_value, mat);
    ctx->saved_data["has_value"] = has_value;
    ctx->save_for_backward({row, rowptr, col, value, colptr, csr2csc, mat});
    return {out};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outs) {
    auto has_value = ctx->saved_data["has_value"].toBool();
    auto grad_out = grad_outs[0];
    auto s = ctx->get_saved_variables();
    auto row = s[0], rowptr = s[1], col = s[2], value = s[3], colptr = s[4], csr2csc = s[5], mat = s[6];
    auto grad_value = Variable();
    if (has_value > 0 && torch::autograd::any_variable_requires_grad({value})) {
      // d value[e] = sum_k grad_out[row[e], k] * mat[col[e], k]
      grad_value = (grad_out.index_select(-2, row) * mat.index_select(-2, col)).sum(-1);
      while (grad_value.dim() > 1) {
        grad_value = grad_value.sum(0);
      }
    }
    auto grad_mat = Variable();
    if (torch::autograd::any_variable_requires_grad({mat})) {
      auto row_t = row.index_select(0, csr2csc);
      std::optional<at::Tensor> value_t;
      if (has_value) {
        value_t = value.index_select(0, csr2csc);
      }
      grad_mat = spmm_kernel(colptr, row_t, value_t, grad_out);
    }
    return {Variable(), Variable(), Variable(), grad_value, Variable(), Variable(), grad_mat, Variable()};
  }
};

at::Tensor spmm_sum(std::optional<at::Tensor> opt_row, at::Tensor rowptr, at::Tensor col,
    std::optional<at::Tensor> opt_value, std::optional<at::Tensor> opt_colptr, std::optional<at::Tensor> opt_csr2csc,
    at::Tensor mat) {
  auto value = opt_value.has_value() ? *opt_value : col;
  return SpmmSum::apply(opt_row, rowptr, col, value, opt_colptr, opt_csr2csc, mat, opt_value.has_value())[0];
}

// The CSR row pointer of a sorted COO row index: out[m] = number of entries with ind < m. The first loop trusts
// ind[0] <= M.
at::Tensor ind2ptr(at::Tensor ind, int64_t M) {
  PYG_CHECK_CPU(ind);
  auto out = at::empty(M + 1, ind.options());
  const int64_t* id = ind.data_ptr<int64_t>();
  int64_t* o = out.data_ptr<int64_t>();
  int64_t numel = ind.numel();
  if (numel == 0) {
    return out.zero_();
  }
  for (int64_t i = 0; i <= id[0]; i++) {
    o[i] = 0;
  }
  int64_t idx = id[0];
  for (int64_t i = 0; i < numel - 1; i++) {
    for (; idx < id[i + 1]; idx++) {
      o[idx + 1] = i + 1;
    }
  }
  for (int64_t i = id[numel - 1] + 1; i < M + 1; i++) {
    o[i] = numel;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// pytorch3d

// For each point of p1 (its first lengths1[n] of each cloud n), the K nearest of p2's first lengths2[n] points
// by squared L2 (norm 2) or L1 (norm 1) distance: (idx [N, P1, K] int64, dists [N, P1, K]), unsorted (a max-heap
// drained into slots K-1 .. 0), zero where fewer exist. float32 only (accessor<float, 3>).
std::tuple<at::Tensor, at::Tensor> knn_points_idx_cpu(const at::Tensor& p1, const at::Tensor& p2,
    const at::Tensor& lengths1, const at::Tensor& lengths2, int64_t norm, int64_t K, int64_t version) {
  TORCH_CHECK(norm == 1 || norm == 2, "Support for 1 or 2 norm.");
  TORCH_CHECK(p1.is_cpu(), "p1 must be a CPU tensor.");
  TORCH_CHECK(p2.is_cpu(), "p2 must be a CPU tensor.");
  const int N = p1.size(0), P1 = p1.size(1), D = p1.size(2);
  const int k_max = static_cast<int>(K);
  auto idxs = at::full({N, P1, K}, 0, lengths1.options().dtype(at::kLong));
  auto dists = at::full({N, P1, K}, 0, p1.options());
  auto a1 = p1.accessor<float, 3>();
  auto a2 = p2.accessor<float, 3>();
  auto l1 = lengths1.accessor<int64_t, 1>();
  auto l2 = lengths2.accessor<int64_t, 1>();
  auto ia = idxs.accessor<int64_t, 3>();
  auto da = dists.accessor<float, 3>();
  for (int n = 0; n < N; ++n) {
    for (int64_t i1 = 0; i1 < l1[n]; ++i1) {
      std::priority_queue<std::tuple<float, int>> q;
      for (int64_t i2 = 0; i2 < l2[n]; ++i2) {
        float dist = 0;
        for (int d = 0; d < D; ++d) {
          float diff = a1[n][i1][d] - a2[n][i2][d];
          dist += norm == 1 ? std::abs(diff) : diff * diff;
        }
        int size = static_cast<int>(q.size());
        // with K = 0 the heap is empty and full at once: top() of an empty queue (upstream's crash)
        if (size < k_max || dist < std::get<0>(q.top())) {
          q.emplace(dist, static_cast<int>(i2));
          if (size >= k_max) {
            q.pop();
          }
        }
      }
      while (!q.empty()) {
        auto t = q.top();
        q.pop();
        const int k = static_cast<int>(q.size());
        da[n][i1][k] = std::get<0>(t);
        ia[n][i1][k] = std::get<1>(t);
      }
    }
  }
  return {idxs, dists};
}

std::tuple<at::Tensor, at::Tensor> knn_points_idx_meta(const at::Tensor& p1, const at::Tensor& p2,
    const at::Tensor& lengths1, const at::Tensor& lengths2, int64_t norm, int64_t K, int64_t version) {
  TORCH_CHECK(norm == 1 || norm == 2, "Support for 1 or 2 norm.");
  return {at::empty({p1.size(0), p1.size(1), K}, lengths1.options().dtype(at::kLong)),
      at::empty({p1.size(0), p1.size(1), K}, p1.options())};
}

std::tuple<at::Tensor, at::Tensor> knn_points_backward_cpu(const at::Tensor& p1, const at::Tensor& p2,
    const at::Tensor& lengths1, const at::Tensor& lengths2, const at::Tensor& idxs, int64_t norm,
    const at::Tensor& grad_dists) {
  const int N = p1.size(0), P1 = p1.size(1), D = p1.size(2), P2 = p2.size(1), K = idxs.size(2);
  auto grad_p1 = at::full({N, P1, D}, 0, p1.options());
  auto grad_p2 = at::full({N, P2, D}, 0, p2.options());
  auto a1 = p1.accessor<float, 3>();
  auto a2 = p2.accessor<float, 3>();
  auto l1 = lengths1.accessor<int64_t, 1>();
  auto l2 = lengths2.accessor<int64_t, 1>();
  auto ia = idxs.accessor<int64_t, 3>();
  auto ga = grad_dists.accessor<float, 3>();
  auto g1 = grad_p1.accessor<float, 3>();
  auto g2 = grad_p2.accessor<float, 3>();
  for (int n = 0; n < N; ++n) {
    int64_t length2 = std::min<int64_t>(l2[n], K);
    for (int64_t i1 = 0; i1 < l1[n]; ++i1) {
      for (int64_t k = 0; k < length2; ++k) {
        const int64_t i2 = ia[n][i1][k];
        if (i2 == -1) {
          continue;
        }
        for (int64_t d = 0; d < D; ++d) {
          float diff = norm == 1 ? ga[n][i1][k] * (a1[n][i1][d] > a2[n][i2][d] ? 1.0f : -1.0f)
                                 : 2.0f * ga[n][i1][k] * (a1[n][i1][d] - a2[n][i2][d]);
          g1[n][i1][d] += diff;
          g2[n][i2][d] += -1.0f * diff;
        }
      }
    }
  }
  return {grad_p1, grad_p2};
}

std::tuple<at::Tensor, at::Tensor> knn_points_backward_meta(const at::Tensor& p1, const at::Tensor& p2,
    const at::Tensor& lengths1, const at::Tensor& lengths2, const at::Tensor& idxs, int64_t norm,
    const at::Tensor& grad_dists) {
  return {at::empty({p1.size(0), p1.size(1), p1.size(2)}, p1.options()),
      at::empty({p2.size(0), p2.size(1), p2.size(2)}, p2.options())};
}

using KnnIdx = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, int64_t, int64_t, int64_t);
using KnnBackward = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, const at::Tensor&, int64_t, const at::Tensor&);

template <typename Signature>
c10::TypedOperatorHandle<Signature> op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

// pytorch3d/ops/knn.py's _knn_points: sorted distances and their indices; distances to padding slots (clouds of
// p2 with fewer than K points) sort last and read 0. Upstream branches on lengths2.min() < K; the masked sort
// below gives the same values on both branches without reading the data.
class KnnPoints : public torch::autograd::Function<KnnPoints> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& p1, const Variable& p2, const Variable& lengths1,
      const Variable& lengths2, int64_t K, int64_t version, int64_t norm, bool return_sorted) {
    TORCH_CHECK_VALUE(norm == 1 || norm == 2, "Support for 1 or 2 norm.");
    at::Tensor idx, dists;
    {
      at::AutoDispatchBelowADInplaceOrView guard;
      std::tie(idx, dists) = op<KnnIdx>("pytorch3d::knn_points_idx").call(p1, p2, lengths1, lengths2, norm, K, version);
    }
    if (K > 1 && return_sorted && dists.numel() > 0) {
      auto mask = lengths2.unsqueeze(1) <= at::arange(K, lengths2.options()).unsqueeze(0);
      mask = mask.unsqueeze(1).expand({-1, p1.size(1), -1});
      dists = dists.masked_fill(mask, std::numeric_limits<float>::infinity());
      auto [sorted, order] = dists.sort(2);
      dists = sorted.masked_fill(mask, 0);
      idx = idx.gather(2, order);
    }
    ctx->save_for_backward({p1, p2, lengths1, lengths2, idx});
    ctx->mark_non_differentiable({idx});
    ctx->saved_data["norm"] = norm;
    return {dists, idx};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grads) {
    auto s = ctx->get_saved_variables();
    auto grad_dists = grads[0].to(at::kFloat);
    auto [g1, g2] = op<KnnBackward>("pytorch3d::knn_points_backward")
                        .call(s[0].to(at::kFloat), s[1].to(at::kFloat), s[2], s[3], s[4],
                            ctx->saved_data["norm"].toInt(), grad_dists);
    return {g1, g2, Variable(), Variable(), Variable(), Variable(), Variable(), Variable()};
  }
};

std::tuple<at::Tensor, at::Tensor> knn_points_composite(const at::Tensor& p1, const at::Tensor& p2,
    const at::Tensor& lengths1, const at::Tensor& lengths2, int64_t K, int64_t version, int64_t norm,
    bool return_sorted) {
  auto out = KnnPoints::apply(p1, p2, lengths1, lengths2, K, version, norm, return_sorted);
  return {out[0], out[1]};
}

// Farthest point sampling per cloud: start at start_idxs[n], then repeatedly the point farthest from the ones
// taken, min(lengths[n], K[n]) of them; the output is [N, max(K)] int64, -1 where none. Neither lengths nor
// start_idxs is checked against the points' size.
at::Tensor sample_farthest_points_cpu(const at::Tensor& points, const at::Tensor& lengths, const at::Tensor& K,
    const at::Tensor& start_idxs, int64_t max_K_known) {
  TORCH_CHECK(points.is_cpu(), "points must be a CPU tensor.");
  const int64_t N = points.size(0), P = points.size(1), D = points.size(2);
  const int64_t max_K = at::max(K).item<int64_t>();
  auto sampled = at::full({N, max_K}, -1, lengths.options());
  auto pa = points.accessor<float, 3>();
  auto la = lengths.accessor<int64_t, 1>();
  auto ka = K.accessor<int64_t, 1>();
  auto sa = sampled.accessor<int64_t, 2>();
  auto st = start_idxs.accessor<int64_t, 1>();
  std::vector<unsigned char> taken(P, false);
  std::vector<float> dists(P, std::numeric_limits<float>::max());
  for (int64_t n = 0; n < N; ++n) {
    taken.assign(la[n], false);
    dists.assign(la[n], std::numeric_limits<float>::max());
    int64_t last = st[n];
    sa[n][0] = last;
    taken[last] = true;
    const int64_t batch_k = std::min(la[n], ka[n]);
    for (int64_t k = 1; k < batch_k; ++k) {
      for (int64_t p = 0; p < la[n]; ++p) {
        if (taken[p]) {
          dists[p] = 0.0;
          continue;
        }
        float d2 = 0;
        for (int64_t d = 0; d < D; ++d) {
          float diff = pa[n][last][d] - pa[n][p][d];
          d2 += diff * diff;
        }
        dists[p] = std::min(dists[p], d2);
      }
      last = std::distance(dists.begin(), std::max_element(dists.begin(), dists.end()));
      sa[n][k] = last;
      taken[last] = true;
    }
  }
  return sampled;
}

}  // namespace

// PyG's registrations: by name, the schema inferred from the function, a catch-all kernel. Upstream writes
// them with the older torch::RegisterOperators, whose kernel the dispatcher lists as "registered by
// RegisterOperators" rather than at a file and line; segment_mean_csr is registered that way, exactly as
// upstream registers all of them, the others through TORCH_LIBRARY with the same schema and dispatch key.
static auto segment_mean_registry = torch::RegisterOperators().op("torch_scatter::segment_mean_csr", &segment_mean_csr);

TORCH_LIBRARY(torch_scatter, m) {
  m.def("scatter_sum", scatter_sum);
  m.def("scatter_mean", scatter_mean);
  m.def("scatter_max", scatter_max);
  m.def("segment_sum_csr", segment_sum_csr);
  m.def("gather_csr", gather_csr);
}

TORCH_LIBRARY(torch_cluster, m) {
  m.def("fps", fps);
  m.def("knn", knn);
  m.def("radius", radius);
  m.def("grid", grid);
}

TORCH_LIBRARY(torch_sparse, m) {
  m.def("spmm_sum", spmm_sum);
  m.def("ind2ptr", ind2ptr);
}

TORCH_LIBRARY(pytorch3d, m) {
  m.def("knn_points_idx(Tensor p1, Tensor p2, Tensor lengths1, Tensor lengths2, int norm, int K, int version) "
        "-> (Tensor, Tensor)");
  m.def("knn_points_backward(Tensor p1, Tensor p2, Tensor lengths1, Tensor lengths2, Tensor idxs, int norm, "
        "Tensor grad_dists) -> (Tensor, Tensor)");
  m.def("knn_points(Tensor p1, Tensor p2, Tensor lengths1, Tensor lengths2, int K, int version, int norm=2, "
        "bool return_sorted=True) -> (Tensor, Tensor)");
  m.def("sample_farthest_points(Tensor points, Tensor lengths, Tensor K, Tensor start_idxs, int max_K_known=-1) "
        "-> Tensor");
}

TORCH_LIBRARY_IMPL(pytorch3d, CPU, m) {
  m.impl("knn_points_idx", knn_points_idx_cpu);
  m.impl("knn_points_backward", knn_points_backward_cpu);
  m.impl("sample_farthest_points", sample_farthest_points_cpu);
}

TORCH_LIBRARY_IMPL(pytorch3d, Meta, m) {
  m.impl("knn_points_idx", knn_points_idx_meta);
  m.impl("knn_points_backward", knn_points_backward_meta);
}

// pytorch3d's _knn_points is a Python autograd Function around the C++ op: a composite kernel (it serves every
// key, inference mode and tracing below autograd included) that runs a torch::autograd::Function.
TORCH_LIBRARY_IMPL(pytorch3d, CompositeImplicitAutograd, m) {
  m.impl("knn_points", knn_points_composite);
}
