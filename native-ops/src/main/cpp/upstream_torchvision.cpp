// Real-code corpus (issue 52): operators whose contract is torchvision's csrc/ops, classic TORCH_LIBRARY code
// (built with the runtime's own headers, as torchvision's C++ is).
//
// Contract modelled on github.com/pytorch/vision (classic C++, before its move to the stable ABI):
//   torchvision/csrc/ops/{nms,roi_align,roi_pool,ps_roi_align,deform_conv2d}.cpp   (schemas, SymInt era)
//   torchvision/csrc/ops/cpu/*_kernel.cpp                                           (CPU kernels and their checks)
//   torchvision/csrc/ops/autograd/*_kernel.cpp                                      (Autograd kernels)
//   torchvision/_meta_registrations.py                                              (Meta kernels, in Python)
// The code is ours. What is upstream's is the contract the corpus keeps: the schema strings, the dispatch keys,
// the checks each kernel makes and the ones it omits (a roi's batch index is never checked against the batch;
// _roi_pool_backward and _ps_roi_align_backward read argmax / channel_mapping through data_ptr without making
// them contiguous; ps_roi_align divides by an empty sampling grid), and the order of its arithmetic. torchvision
// registers its Meta kernels from Python; the port registers the same ones in C++ (sizes read with size(d), as a
// C++ Meta kernel is written), so that the library alone carries them. nms has no Meta kernel: torchvision's is
// a Python fake with a data-dependent size, which a C++ library does not have.
// The Autograd kernels call the forward op through the dispatcher below autograd
// (AutoDispatchBelowADInplaceOrView) and save the input's sym_sizes() for the backward, as upstream does.
// Left out: ps_roi_pool, the quantized kernels, the autocast wrappers, interpolate_aa and deform_conv2d's
// im2col batching (the port computes the same sums directly).
#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <tuple>

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::Variable;
using torch::autograd::variable_list;

template <typename Signature>
c10::TypedOperatorHandle<Signature> op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Signature>();
}

// The bilinear sample torchvision's roi_align / ps_roi_align kernels take (points within one pixel of the
// border are clamped to it, further ones read as zero). roi_align's forward writes the range test so that a NaN
// coordinate reads zero (nan_safe); its backward and ps_roi_align's write it the other way round, and a NaN
// coordinate then reaches the int casts (undefined behaviour upstream, kept).
template <typename T>
struct Bilinear {
  int lo_y = 0, lo_x = 0, hi_y = 0, hi_x = 0;
  T w1 = 0, w2 = 0, w3 = 0, w4 = 0;
  bool inside = false;
  Bilinear(int height, int width, T y, T x, bool nan_safe = false) {
    bool outside = nan_safe ? !(y >= -1.0 && y <= height && x >= -1.0 && x <= width)
                            : (y < -1.0 || y > height || x < -1.0 || x > width);
    if (outside) {
      return;
    }
    inside = true;
    y = y <= 0 ? static_cast<T>(0) : y;
    x = x <= 0 ? static_cast<T>(0) : x;
    lo_y = static_cast<int>(y);
    lo_x = static_cast<int>(x);
    if (lo_y >= height - 1) {
      hi_y = lo_y = height - 1;
      y = static_cast<T>(lo_y);
    } else {
      hi_y = lo_y + 1;
    }
    if (lo_x >= width - 1) {
      hi_x = lo_x = width - 1;
      x = static_cast<T>(lo_x);
    } else {
      hi_x = lo_x + 1;
    }
    T ly = y - lo_y, lx = x - lo_x, hy = 1 - ly, hx = 1 - lx;
    w1 = hy * hx;
    w2 = hy * lx;
    w3 = ly * hx;
    w4 = ly * lx;
  }
  T read(const T* plane, int width) const {
    if (!inside) {
      return 0;
    }
    return w1 * plane[lo_y * width + lo_x] + w2 * plane[lo_y * width + hi_x] + w3 * plane[hi_y * width + lo_x] +
        w4 * plane[hi_y * width + hi_x];
  }
  void spread(T* plane, int width, T g) const {
    if (!inside) {
      return;
    }
    plane[lo_y * width + lo_x] += g * w1;
    plane[lo_y * width + hi_x] += g * w2;
    plane[hi_y * width + lo_x] += g * w3;
    plane[hi_y * width + hi_x] += g * w4;
  }
};

// ---------------------------------------------------------------------------------------------------------
// nms (CPU only): greedy suppression in descending score order, the kept indices as int64.
at::Tensor nms_cpu(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  TORCH_CHECK(dets.dim() == 2, "boxes should be a 2d tensor, got ", dets.dim(), "D");
  TORCH_CHECK(dets.size(1) == 4, "boxes should have 4 elements in dimension 1, got ", dets.size(1));
  TORCH_CHECK(scores.dim() == 1, "scores should be a 1d tensor, got ", scores.dim(), "D");
  TORCH_CHECK(dets.size(0) == scores.size(0), "boxes and scores should have same number of elements in ",
      "dimension 0, got ", dets.size(0), " and ", scores.size(0));
  TORCH_CHECK(dets.scalar_type() == scores.scalar_type(), "dets should have the same type as scores");
  if (dets.numel() == 0) {
    return at::empty({0}, dets.options().dtype(at::kLong));
  }
  at::Tensor keep;
  AT_DISPATCH_FLOATING_TYPES(dets.scalar_type(), "nms", [&] {
    auto x1 = dets.select(1, 0).contiguous(), y1 = dets.select(1, 1).contiguous();
    auto x2 = dets.select(1, 2).contiguous(), y2 = dets.select(1, 3).contiguous();
    at::Tensor areas = (x2 - x1) * (y2 - y1);
    at::Tensor order = std::get<1>(scores.sort(0, /*descending=*/true));
    int64_t n = dets.size(0);
    std::vector<uint8_t> suppressed(n, 0);
    keep = at::zeros({n}, dets.options().dtype(at::kLong));
    auto* kept = keep.data_ptr<int64_t>();
    const auto* ord = order.data_ptr<int64_t>();
    const auto *px1 = x1.data_ptr<scalar_t>(), *py1 = y1.data_ptr<scalar_t>();
    const auto *px2 = x2.data_ptr<scalar_t>(), *py2 = y2.data_ptr<scalar_t>();
    const auto* area = areas.data_ptr<scalar_t>();
    int64_t count = 0;
    for (int64_t a = 0; a < n; a++) {
      int64_t i = ord[a];
      if (suppressed[i]) {
        continue;
      }
      kept[count++] = i;
      for (int64_t b = a + 1; b < n; b++) {
        int64_t j = ord[b];
        if (suppressed[j]) {
          continue;
        }
        scalar_t w = std::max(static_cast<scalar_t>(0), std::min(px2[i], px2[j]) - std::max(px1[i], px1[j]));
        scalar_t h = std::max(static_cast<scalar_t>(0), std::min(py2[i], py2[j]) - std::max(py1[i], py1[j]));
        scalar_t inter = w * h;
        if (inter / (area[i] + area[j] - inter) > iou_threshold) {
          suppressed[j] = 1;
        }
      }
    }
    keep = keep.narrow(0, 0, count);
  });
  return keep;
}

// ---------------------------------------------------------------------------------------------------------
// roi_align: average of bilinear samples in each bin of each roi (rois: [K, 5] = batch index, x1, y1, x2, y2).
template <typename T>
struct RoiBox {
  int batch;
  T start_h, start_w, height, width;
  RoiBox(const T* roi, T scale, bool aligned) {
    batch = static_cast<int>(roi[0]);  // upstream never checks it against the input's batch
    T offset = aligned ? static_cast<T>(0.5) : static_cast<T>(0);
    start_w = roi[1] * scale - offset;
    start_h = roi[2] * scale - offset;
    width = roi[3] * scale - offset - start_w;
    height = roi[4] * scale - offset - start_h;
    if (!aligned) {
      width = std::max(width, static_cast<T>(1));
      height = std::max(height, static_cast<T>(1));
    }
  }
};

at::Tensor roi_align_cpu(const at::Tensor& input, const at::Tensor& rois, double spatial_scale, int64_t pooled_height,
    int64_t pooled_width, int64_t sampling_ratio, bool aligned) {
  TORCH_CHECK(input.device().is_cpu(), "input must be a CPU tensor");
  TORCH_CHECK(rois.device().is_cpu(), "rois must be a CPU tensor");
  TORCH_CHECK(rois.size(1) == 5, "rois must have shape as Tensor[K, 5]");
  at::TensorArg input_t{input, "input", 1}, rois_t{rois, "rois", 2};
  at::checkAllSameType("roi_align_forward_kernel", {input_t, rois_t});
  int64_t num_rois = rois.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  at::Tensor output = at::zeros({num_rois, channels, pooled_height, pooled_width}, input.options());
  if (output.numel() == 0) {
    return output;
  }
  auto in = input.contiguous();
  auto boxes = rois.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "roi_align", [&] {
    const scalar_t* data = in.data_ptr<scalar_t>();
    scalar_t* out = output.data_ptr<scalar_t>();
    for (int64_t n = 0; n < num_rois; n++) {
      RoiBox<scalar_t> box(boxes.data_ptr<scalar_t>() + n * 5, static_cast<scalar_t>(spatial_scale), aligned);
      scalar_t bin_h = box.height / static_cast<scalar_t>(pooled_height);
      scalar_t bin_w = box.width / static_cast<scalar_t>(pooled_width);
      int grid_h = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(box.height / pooled_height));
      int grid_w = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(box.width / pooled_width));
      scalar_t count = std::max(grid_h * grid_w, 1);  // an empty grid gives zeros
      for (int64_t c = 0; c < channels; c++) {
        const scalar_t* plane = data + (box.batch * channels + c) * height * width;
        for (int64_t ph = 0; ph < pooled_height; ph++) {
          for (int64_t pw = 0; pw < pooled_width; pw++) {
            scalar_t sum = 0;
            for (int iy = 0; iy < grid_h; iy++) {
              scalar_t y = box.start_h + ph * bin_h + static_cast<scalar_t>(iy + .5f) * bin_h / static_cast<scalar_t>(grid_h);
              for (int ix = 0; ix < grid_w; ix++) {
                scalar_t x = box.start_w + pw * bin_w + static_cast<scalar_t>(ix + .5f) * bin_w / static_cast<scalar_t>(grid_w);
                sum += Bilinear<scalar_t>(static_cast<int>(height), static_cast<int>(width), y, x, true)
                           .read(plane, static_cast<int>(width));
              }
            }
            out[((n * channels + c) * pooled_height + ph) * pooled_width + pw] = sum / count;
          }
        }
      }
    }
  });
  return output;
}

at::Tensor roi_align_backward_cpu(const at::Tensor& grad, const at::Tensor& rois, double spatial_scale,
    int64_t pooled_height, int64_t pooled_width, int64_t batch_size, int64_t channels, int64_t height, int64_t width,
    int64_t sampling_ratio, bool aligned) {
  TORCH_CHECK(grad.device().is_cpu(), "grad must be a CPU tensor");
  TORCH_CHECK(rois.device().is_cpu(), "rois must be a CPU tensor");
  at::TensorArg grad_t{grad, "grad", 1}, rois_t{rois, "rois", 2};
  at::checkAllSameType("roi_align_backward_kernel", {grad_t, rois_t});
  at::Tensor grad_input = at::zeros({batch_size, channels, height, width}, grad.options());
  if (grad.numel() == 0) {
    return grad_input;
  }
  auto boxes = rois.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(grad.scalar_type(), "roi_align_backward", [&] {
    const scalar_t* g = grad.data_ptr<scalar_t>();
    scalar_t* gi = grad_input.data_ptr<scalar_t>();
    int64_t sn = grad.stride(0), sc = grad.stride(1), sh = grad.stride(2), sw = grad.stride(3);
    for (int64_t n = 0; n < grad.size(0); n++) {
      RoiBox<scalar_t> box(boxes.data_ptr<scalar_t>() + n * 5, static_cast<scalar_t>(spatial_scale), aligned);
      scalar_t bin_h = box.height / pooled_height, bin_w = box.width / pooled_width;
      int grid_h = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(box.height / pooled_height));
      int grid_w = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(box.width / pooled_width));
      scalar_t count = grid_h * grid_w;
      for (int64_t c = 0; c < channels; c++) {
        scalar_t* plane = gi + (box.batch * channels + c) * height * width;
        for (int64_t ph = 0; ph < pooled_height; ph++) {
          for (int64_t pw = 0; pw < pooled_width; pw++) {
            scalar_t bin_grad = g[n * sn + c * sc + ph * sh + pw * sw];
            for (int iy = 0; iy < grid_h; iy++) {
              scalar_t y = box.start_h + ph * bin_h + (iy + static_cast<scalar_t>(0.5)) * bin_h / grid_h;
              for (int ix = 0; ix < grid_w; ix++) {
                scalar_t x = box.start_w + pw * bin_w + (ix + static_cast<scalar_t>(0.5)) * bin_w / grid_w;
                Bilinear<scalar_t>(static_cast<int>(height), static_cast<int>(width), y, x)
                    .spread(plane, static_cast<int>(width), bin_grad / count);
              }
            }
          }
        }
      }
    }
  });
  return grad_input;
}

// Meta kernels (torchvision/_meta_registrations.py's, in C++).
at::Tensor roi_align_meta(const at::Tensor& input, const at::Tensor& rois, double spatial_scale, int64_t pooled_height,
    int64_t pooled_width, int64_t sampling_ratio, bool aligned) {
  TORCH_CHECK(rois.size(1) == 5, "rois must have shape as Tensor[K, 5]");
  TORCH_CHECK(input.dtype() == rois.dtype(), "Expected tensor for input to have the same type as tensor for rois; but type ",
      input.dtype(), " does not equal ", rois.dtype());
  return input.new_empty({rois.size(0), input.size(1), pooled_height, pooled_width});
}

at::Tensor roi_align_backward_meta(const at::Tensor& grad, const at::Tensor& rois, double spatial_scale,
    int64_t pooled_height, int64_t pooled_width, int64_t batch_size, int64_t channels, int64_t height, int64_t width,
    int64_t sampling_ratio, bool aligned) {
  TORCH_CHECK(grad.dtype() == rois.dtype(), "Expected tensor for grad to have the same type as tensor for rois; but type ",
      grad.dtype(), " does not equal ", rois.dtype());
  return grad.new_empty({batch_size, channels, height, width});
}

using RoiAlign = at::Tensor(const at::Tensor&, const at::Tensor&, double, c10::SymInt, c10::SymInt, int64_t, bool);
using RoiAlignBackward = at::Tensor(const at::Tensor&, const at::Tensor&, double, c10::SymInt, c10::SymInt, c10::SymInt,
    c10::SymInt, c10::SymInt, c10::SymInt, int64_t, bool);

class RoiAlignFunction : public torch::autograd::Function<RoiAlignFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& input, const Variable& rois, double spatial_scale,
      c10::SymInt pooled_height, c10::SymInt pooled_width, int64_t sampling_ratio, bool aligned) {
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["pooled_height"] = pooled_height;
    ctx->saved_data["pooled_width"] = pooled_width;
    ctx->saved_data["sampling_ratio"] = sampling_ratio;
    ctx->saved_data["aligned"] = aligned;
    ctx->saved_data["input_shape"] = input.sym_sizes();
    ctx->save_for_backward({rois});
    at::AutoDispatchBelowADInplaceOrView guard;
    return {op<RoiAlign>("torchvision::roi_align")
                .call(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned)};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    auto rois = ctx->get_saved_variables()[0];
    auto shape = ctx->saved_data["input_shape"].toList();
    auto grad_in = op<RoiAlignBackward>("torchvision::_roi_align_backward")
                       .call(grad_output[0], rois, ctx->saved_data["spatial_scale"].toDouble(),
                           ctx->saved_data["pooled_height"].toSymInt(), ctx->saved_data["pooled_width"].toSymInt(),
                           shape[0].get().toSymInt(), shape[1].get().toSymInt(), shape[2].get().toSymInt(),
                           shape[3].get().toSymInt(), ctx->saved_data["sampling_ratio"].toInt(),
                           ctx->saved_data["aligned"].toBool());
    return {grad_in, Variable(), Variable(), Variable(), Variable(), Variable(), Variable()};
  }
};

// The backward op's own Autograd kernel: it runs, and differentiating it again raises (upstream's TODO class).
class RoiAlignBackwardFunction : public torch::autograd::Function<RoiAlignBackwardFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& grad, const Variable& rois, double spatial_scale,
      c10::SymInt pooled_height, c10::SymInt pooled_width, c10::SymInt batch_size, c10::SymInt channels,
      c10::SymInt height, c10::SymInt width, int64_t sampling_ratio, bool aligned) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return {op<RoiAlignBackward>("torchvision::_roi_align_backward")
                .call(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size, channels, height, width,
                    sampling_ratio, aligned)};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    TORCH_CHECK(0, "double backwards on roi_align not supported");
  }
};

at::Tensor roi_align_autograd(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
    c10::SymInt pooled_height, c10::SymInt pooled_width, int64_t sampling_ratio, bool aligned) {
  return RoiAlignFunction::apply(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned)[0];
}

at::Tensor roi_align_backward_autograd(const at::Tensor& grad, const at::Tensor& rois, double spatial_scale,
    c10::SymInt pooled_height, c10::SymInt pooled_width, c10::SymInt batch_size, c10::SymInt channels,
    c10::SymInt height, c10::SymInt width, int64_t sampling_ratio, bool aligned) {
  return RoiAlignBackwardFunction::apply(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size, channels,
      height, width, sampling_ratio, aligned)[0];
}

// ---------------------------------------------------------------------------------------------------------
// roi_pool: max over each bin (rounded roi corners), with the argmax (int32, -1 for an empty bin).
std::tuple<at::Tensor, at::Tensor> roi_pool_cpu(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
    int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(input.device().is_cpu(), "input must be a CPU tensor");
  TORCH_CHECK(rois.device().is_cpu(), "rois must be a CPU tensor");
  at::TensorArg input_t{input, "input", 1}, rois_t{rois, "rois", 2};
  at::checkAllSameType("roi_pool_forward_kernel", {input_t, rois_t});
  int num_rois = rois.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  at::Tensor output = at::zeros({num_rois, channels, pooled_height, pooled_width}, input.options());
  at::Tensor argmax = at::zeros({num_rois, channels, pooled_height, pooled_width}, input.options().dtype(at::kInt));
  if (output.numel() == 0) {
    return {output, argmax};
  }
  auto in = input.contiguous();
  auto boxes = rois.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "roi_pool", [&] {
    const scalar_t* data = in.data_ptr<scalar_t>();
    scalar_t* out = output.data_ptr<scalar_t>();
    int* arg = argmax.data_ptr<int>();
    for (int n = 0; n < num_rois; n++) {
      const scalar_t* roi = boxes.data_ptr<scalar_t>() + n * 5;
      int batch = static_cast<int>(roi[0]);
      int start_w = std::round(roi[1] * spatial_scale), start_h = std::round(roi[2] * spatial_scale);
      int end_w = std::round(roi[3] * spatial_scale), end_h = std::round(roi[4] * spatial_scale);
      scalar_t bin_h = static_cast<scalar_t>(std::max(end_h - start_h + 1, 1)) / static_cast<scalar_t>(pooled_height);
      scalar_t bin_w = static_cast<scalar_t>(std::max(end_w - start_w + 1, 1)) / static_cast<scalar_t>(pooled_width);
      for (int ph = 0; ph < pooled_height; ph++) {
        for (int pw = 0; pw < pooled_width; pw++) {
          int h0 = std::min(std::max(static_cast<int>(std::floor(ph * bin_h)) + start_h, 0), height);
          int h1 = std::min(std::max(static_cast<int>(std::ceil((ph + 1) * bin_h)) + start_h, 0), height);
          int w0 = std::min(std::max(static_cast<int>(std::floor(pw * bin_w)) + start_w, 0), width);
          int w1 = std::min(std::max(static_cast<int>(std::ceil((pw + 1) * bin_w)) + start_w, 0), width);
          bool empty = h1 <= h0 || w1 <= w0;
          for (int c = 0; c < channels; c++) {
            const scalar_t* plane = data + (batch * channels + c) * height * width;
            scalar_t best = empty ? 0 : -FLT_MAX;
            int best_at = -1;
            for (int h = h0; h < h1; h++) {
              for (int w = w0; w < w1; w++) {
                if (plane[h * width + w] > best) {
                  best = plane[h * width + w];
                  best_at = h * width + w;
                }
              }
            }
            int at = ((n * channels + c) * pooled_height + ph) * pooled_width + pw;
            out[at] = best;
            arg[at] = best_at;
          }
        }
      }
    }
  });
  return {output, argmax};
}

at::Tensor roi_pool_backward_cpu(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
    double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t batch_size, int64_t channels,
    int64_t height, int64_t width) {
  TORCH_CHECK(grad.device().is_cpu(), "grad must be a CPU tensor");
  TORCH_CHECK(rois.device().is_cpu(), "rois must be a CPU tensor");
  TORCH_CHECK(argmax.device().is_cpu(), "argmax must be a CPU tensor");
  TORCH_CHECK(rois.size(1) == 5, "Tensor rois should have shape as Tensor[K, 5]");
  at::TensorArg grad_t{grad, "grad", 1}, rois_t{rois, "rois", 2};
  at::checkAllSameType("roi_pool_backward_kernel", {grad_t, rois_t});
  at::Tensor grad_input = at::zeros({batch_size, channels, height, width}, grad.options());
  if (grad.numel() == 0) {
    return grad_input;
  }
  auto boxes = rois.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(grad.scalar_type(), "roi_pool_backward", [&] {
    const scalar_t* g = grad.data_ptr<scalar_t>();
    const int* arg = argmax.data_ptr<int>();  // upstream reads argmax in its own layout, as if contiguous
    scalar_t* gi = grad_input.data_ptr<scalar_t>();
    int64_t sn = grad.stride(0), sc = grad.stride(1), sh = grad.stride(2), sw = grad.stride(3);
    for (int64_t n = 0; n < rois.size(0); n++) {
      int batch = static_cast<int>(boxes.data_ptr<scalar_t>()[n * 5]);
      for (int64_t c = 0; c < channels; c++) {
        scalar_t* plane = gi + (batch * channels + c) * height * width;
        const int* args = arg + (n * channels + c) * pooled_height * pooled_width;
        for (int64_t ph = 0; ph < pooled_height; ph++) {
          for (int64_t pw = 0; pw < pooled_width; pw++) {
            int a = args[ph * pooled_width + pw];
            if (a != -1) {
              plane[a] += g[n * sn + c * sc + ph * sh + pw * sw];
            }
          }
        }
      }
    }
  });
  return grad_input;
}

std::tuple<at::Tensor, at::Tensor> roi_pool_meta(const at::Tensor& input, const at::Tensor& rois, double spatial_scale,
    int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(rois.size(1) == 5, "rois must have shape as Tensor[K, 5]");
  TORCH_CHECK(input.dtype() == rois.dtype(), "Expected tensor for input to have the same type as tensor for rois; but type ",
      input.dtype(), " does not equal ", rois.dtype());
  std::vector<int64_t> shape{rois.size(0), input.size(1), pooled_height, pooled_width};
  return {input.new_empty(shape), at::empty(shape, input.options().dtype(at::kInt))};
}

at::Tensor roi_pool_backward_meta(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
    double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t batch_size, int64_t channels,
    int64_t height, int64_t width) {
  TORCH_CHECK(grad.dtype() == rois.dtype(), "Expected tensor for grad to have the same type as tensor for rois; but type ",
      grad.dtype(), " does not equal ", rois.dtype());
  return grad.new_empty({batch_size, channels, height, width});
}

using RoiPool = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double, c10::SymInt, c10::SymInt);
using RoiPoolBackward = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, double, c10::SymInt,
    c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt);

class RoiPoolFunction : public torch::autograd::Function<RoiPoolFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& input, const Variable& rois, double spatial_scale,
      c10::SymInt pooled_height, c10::SymInt pooled_width) {
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["pooled_height"] = pooled_height;
    ctx->saved_data["pooled_width"] = pooled_width;
    ctx->saved_data["input_shape"] = input.sym_sizes();
    at::AutoDispatchBelowADInplaceOrView guard;
    auto [output, argmax] = op<RoiPool>("torchvision::roi_pool").call(input, rois, spatial_scale, pooled_height, pooled_width);
    ctx->save_for_backward({rois, argmax});
    ctx->mark_non_differentiable({argmax});
    return {output, argmax};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    auto saved = ctx->get_saved_variables();
    auto shape = ctx->saved_data["input_shape"].toList();
    auto grad_in = op<RoiPoolBackward>("torchvision::_roi_pool_backward")
                       .call(grad_output[0], saved[0], saved[1], ctx->saved_data["spatial_scale"].toDouble(),
                           ctx->saved_data["pooled_height"].toSymInt(), ctx->saved_data["pooled_width"].toSymInt(),
                           shape[0].get().toSymInt(), shape[1].get().toSymInt(), shape[2].get().toSymInt(),
                           shape[3].get().toSymInt());
    return {grad_in, Variable(), Variable(), Variable(), Variable()};
  }
};

class RoiPoolBackwardFunction : public torch::autograd::Function<RoiPoolBackwardFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& grad, const Variable& rois, const Variable& argmax,
      double spatial_scale, c10::SymInt pooled_height, c10::SymInt pooled_width, c10::SymInt batch_size,
      c10::SymInt channels, c10::SymInt height, c10::SymInt width) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return {op<RoiPoolBackward>("torchvision::_roi_pool_backward")
                .call(grad, rois, argmax, spatial_scale, pooled_height, pooled_width, batch_size, channels, height, width)};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    TORCH_CHECK(0, "double backwards on roi_pool not supported");
  }
};

std::tuple<at::Tensor, at::Tensor> roi_pool_autograd(const at::Tensor& input, const at::Tensor& rois,
    double spatial_scale, c10::SymInt pooled_height, c10::SymInt pooled_width) {
  auto result = RoiPoolFunction::apply(input, rois, spatial_scale, pooled_height, pooled_width);
  return {result[0], result[1]};
}

at::Tensor roi_pool_backward_autograd(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& argmax,
    double spatial_scale, c10::SymInt pooled_height, c10::SymInt pooled_width, c10::SymInt batch_size,
    c10::SymInt channels, c10::SymInt height, c10::SymInt width) {
  return RoiPoolBackwardFunction::apply(grad, rois, argmax, spatial_scale, pooled_height, pooled_width, batch_size,
      channels, height, width)[0];
}

// ---------------------------------------------------------------------------------------------------------
// ps_roi_align: position-sensitive roi_align; output channel c reads input channel (c * ph + i) * pw + j. Its
// boxes are always shifted by half a pixel and never forced to 1x1, so an empty box with sampling_ratio <= 0
// has an empty grid and its bin is 0 / 0 (upstream's arithmetic, kept).
template <typename T>
T ps_sample(const T* plane, int height, int width, T y, T x) {
  return Bilinear<T>(height, width, y, x).read(plane, width);
}

std::tuple<at::Tensor, at::Tensor> ps_roi_align_cpu(const at::Tensor& input, const at::Tensor& rois,
    double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio) {
  TORCH_CHECK(input.device().is_cpu(), "input must be a CPU tensor");
  TORCH_CHECK(rois.device().is_cpu(), "rois must be a CPU tensor");
  TORCH_CHECK(rois.size(1) == 5, "Tensor rois should have shape as Tensor[K, 5]");
  at::TensorArg input_t{input, "input", 1}, rois_t{rois, "rois", 2};
  at::checkAllSameType("ps_roi_align_forward_kernel", {input_t, rois_t});
  int num_rois = rois.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  TORCH_CHECK(channels % (pooled_height * pooled_width) == 0,
      "input channels must be a multiple of pooling height * pooling width");
  int channels_out = channels / (pooled_height * pooled_width);
  auto output = at::zeros({num_rois, channels_out, pooled_height, pooled_width}, input.options());
  auto mapping = at::zeros(output.sizes(), input.options().dtype(at::kInt));
  if (output.numel() == 0) {
    return {output, mapping};
  }
  auto in = input.contiguous();
  auto boxes = rois.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "ps_roi_align", [&] {
    const scalar_t* data = in.data_ptr<scalar_t>();
    scalar_t* out = output.data_ptr<scalar_t>();
    int* map = mapping.data_ptr<int>();
    for (int n = 0; n < num_rois; n++) {
      const scalar_t* roi = boxes.data_ptr<scalar_t>() + n * 5;
      int batch = static_cast<int>(roi[0]);
      scalar_t start_w = roi[1] * spatial_scale - static_cast<scalar_t>(0.5);
      scalar_t start_h = roi[2] * spatial_scale - static_cast<scalar_t>(0.5);
      scalar_t roi_w = roi[3] * spatial_scale - static_cast<scalar_t>(0.5) - start_w;
      scalar_t roi_h = roi[4] * spatial_scale - static_cast<scalar_t>(0.5) - start_h;
      scalar_t bin_h = roi_h / static_cast<scalar_t>(pooled_height), bin_w = roi_w / static_cast<scalar_t>(pooled_width);
      int grid_h = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(roi_h / pooled_height));
      int grid_w = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(roi_w / pooled_width));
      scalar_t count = grid_h * grid_w;
      for (int c_out = 0; c_out < channels_out; c_out++) {
        for (int ph = 0; ph < pooled_height; ph++) {
          for (int pw = 0; pw < pooled_width; pw++) {
            int c_in = (c_out * pooled_height + ph) * pooled_width + pw;
            const scalar_t* plane = data + (batch * channels + c_in) * height * width;
            scalar_t sum = 0;
            for (int iy = 0; iy < grid_h; iy++) {
              scalar_t y = start_h + ph * bin_h + (iy + static_cast<scalar_t>(0.5)) * bin_h / grid_h;
              for (int ix = 0; ix < grid_w; ix++) {
                scalar_t x = start_w + pw * bin_w + (ix + static_cast<scalar_t>(0.5)) * bin_w / grid_w;
                sum += ps_sample(plane, height, width, y, x);
              }
            }
            int at = ((n * channels_out + c_out) * pooled_height + ph) * pooled_width + pw;
            out[at] = sum / count;
            map[at] = c_in;
          }
        }
      }
    }
  });
  return {output, mapping};
}

at::Tensor ps_roi_align_backward_cpu(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& channel_mapping,
    double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, int64_t batch_size,
    int64_t channels, int64_t height, int64_t width) {
  TORCH_CHECK(grad.device().is_cpu(), "grad must be a CPU tensor");
  TORCH_CHECK(rois.device().is_cpu(), "rois must be a CPU tensor");
  TORCH_CHECK(channel_mapping.device().is_cpu(), "channel_mapping must be a CPU tensor");
  at::TensorArg grad_t{grad, "grad", 1}, rois_t{rois, "rois", 2}, mapping_t{channel_mapping, "channel_mapping", 3};
  at::checkAllSameType("ps_roi_align_backward_kernel", {grad_t, rois_t});
  auto grad_input = at::zeros({batch_size, channels, height, width}, grad.options());
  if (grad.numel() == 0) {
    return grad_input;
  }
  int channels_out = channels / (pooled_height * pooled_width);
  auto g = grad.contiguous();
  auto boxes = rois.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(grad.scalar_type(), "ps_roi_align_backward", [&] {
    const scalar_t* gd = g.data_ptr<scalar_t>();
    const int* map = channel_mapping.data_ptr<int>();  // upstream reads it as if contiguous
    scalar_t* gi = grad_input.data_ptr<scalar_t>();
    for (int64_t at = 0; at < grad.numel(); at++) {
      int pw = at % pooled_width, ph = (at / pooled_width) % pooled_height;
      int n = at / pooled_width / pooled_height / channels_out;
      const scalar_t* roi = boxes.data_ptr<scalar_t>() + n * 5;
      int batch = static_cast<int>(roi[0]);
      scalar_t start_w = roi[1] * spatial_scale - static_cast<scalar_t>(0.5);
      scalar_t start_h = roi[2] * spatial_scale - static_cast<scalar_t>(0.5);
      scalar_t roi_w = roi[3] * spatial_scale - static_cast<scalar_t>(0.5) - start_w;
      scalar_t roi_h = roi[4] * spatial_scale - static_cast<scalar_t>(0.5) - start_h;
      scalar_t bin_h = roi_h / static_cast<scalar_t>(pooled_height), bin_w = roi_w / static_cast<scalar_t>(pooled_width);
      int grid_h = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(roi_h / pooled_height));
      int grid_w = sampling_ratio > 0 ? sampling_ratio : static_cast<int>(std::ceil(roi_w / pooled_width));
      scalar_t count = grid_h * grid_w;
      scalar_t* plane = gi + (batch * channels + map[at]) * height * width;
      for (int iy = 0; iy < grid_h; iy++) {
        scalar_t y = start_h + ph * bin_h + (iy + static_cast<scalar_t>(0.5)) * bin_h / grid_h;
        for (int ix = 0; ix < grid_w; ix++) {
          scalar_t x = start_w + pw * bin_w + (ix + static_cast<scalar_t>(0.5)) * bin_w / grid_w;
          Bilinear<scalar_t>(height, width, y, x).spread(plane, width, gd[at] / count);
        }
      }
    }
  });
  return grad_input;
}

std::tuple<at::Tensor, at::Tensor> ps_roi_align_meta(const at::Tensor& input, const at::Tensor& rois,
    double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio) {
  TORCH_CHECK(rois.size(1) == 5, "rois must have shape as Tensor[K, 5]");
  TORCH_CHECK(input.dtype() == rois.dtype(), "Expected tensor for input to have the same type as tensor for rois; but type ",
      input.dtype(), " does not equal ", rois.dtype());
  int64_t channels = input.size(1);
  TORCH_CHECK(channels % (pooled_height * pooled_width) == 0,
      "input channels must be a multiple of pooling height * pooling width");
  std::vector<int64_t> shape{rois.size(0), channels / (pooled_height * pooled_width), pooled_height, pooled_width};
  return {input.new_empty(shape), at::empty(shape, input.options().dtype(at::kInt))};
}

at::Tensor ps_roi_align_backward_meta(const at::Tensor& grad, const at::Tensor& rois, const at::Tensor& channel_mapping,
    double spatial_scale, int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio, int64_t batch_size,
    int64_t channels, int64_t height, int64_t width) {
  TORCH_CHECK(grad.dtype() == rois.dtype(), "Expected tensor for grad to have the same type as tensor for rois; but type ",
      grad.dtype(), " does not equal ", rois.dtype());
  return grad.new_empty({batch_size, channels, height, width});
}

using PsRoiAlign = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, const at::Tensor&, double, c10::SymInt,
    c10::SymInt, int64_t);
using PsRoiAlignBackward = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, double, c10::SymInt,
    c10::SymInt, int64_t, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt);

class PsRoiAlignFunction : public torch::autograd::Function<PsRoiAlignFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& input, const Variable& rois, double spatial_scale,
      c10::SymInt pooled_height, c10::SymInt pooled_width, int64_t sampling_ratio) {
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["pooled_height"] = pooled_height;
    ctx->saved_data["pooled_width"] = pooled_width;
    ctx->saved_data["sampling_ratio"] = sampling_ratio;
    ctx->saved_data["input_shape"] = input.sym_sizes();
    at::AutoDispatchBelowADInplaceOrView guard;
    auto [output, mapping] = op<PsRoiAlign>("torchvision::ps_roi_align")
                                 .call(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio);
    ctx->save_for_backward({rois, mapping});
    ctx->mark_non_differentiable({mapping});
    return {output, mapping};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    auto saved = ctx->get_saved_variables();
    auto shape = ctx->saved_data["input_shape"].toList();
    auto grad_in = op<PsRoiAlignBackward>("torchvision::_ps_roi_align_backward")
                       .call(grad_output[0], saved[0], saved[1], ctx->saved_data["spatial_scale"].toDouble(),
                           ctx->saved_data["pooled_height"].toSymInt(), ctx->saved_data["pooled_width"].toSymInt(),
                           ctx->saved_data["sampling_ratio"].toInt(), shape[0].get().toSymInt(),
                           shape[1].get().toSymInt(), shape[2].get().toSymInt(), shape[3].get().toSymInt());
    return {grad_in, Variable(), Variable(), Variable(), Variable(), Variable()};
  }
};

class PsRoiAlignBackwardFunction : public torch::autograd::Function<PsRoiAlignBackwardFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& grad, const Variable& rois,
      const Variable& channel_mapping, double spatial_scale, c10::SymInt pooled_height, c10::SymInt pooled_width,
      int64_t sampling_ratio, c10::SymInt batch_size, c10::SymInt channels, c10::SymInt height, c10::SymInt width) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return {op<PsRoiAlignBackward>("torchvision::_ps_roi_align_backward")
                .call(grad, rois, channel_mapping, spatial_scale, pooled_height, pooled_width, sampling_ratio,
                    batch_size, channels, height, width)};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    TORCH_CHECK(0, "double backwards on ps_roi_align not supported");
  }
};

std::tuple<at::Tensor, at::Tensor> ps_roi_align_autograd(const at::Tensor& input, const at::Tensor& rois,
    double spatial_scale, c10::SymInt pooled_height, c10::SymInt pooled_width, int64_t sampling_ratio) {
  auto result = PsRoiAlignFunction::apply(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio);
  return {result[0], result[1]};
}

at::Tensor ps_roi_align_backward_autograd(const at::Tensor& grad, const at::Tensor& rois,
    const at::Tensor& channel_mapping, double spatial_scale, c10::SymInt pooled_height, c10::SymInt pooled_width,
    int64_t sampling_ratio, c10::SymInt batch_size, c10::SymInt channels, c10::SymInt height, c10::SymInt width) {
  return PsRoiAlignBackwardFunction::apply(grad, rois, channel_mapping, spatial_scale, pooled_height, pooled_width,
      sampling_ratio, batch_size, channels, height, width)[0];
}

// ---------------------------------------------------------------------------------------------------------
// deform_conv2d: a convolution whose taps are moved by per-position offsets (bilinear samples that read zero
// outside the image) and scaled by a mask. Upstream's checks are kept in upstream's order: the output size is
// divided by the strides before they are checked, and the channel counts are taken modulo the group counts
// before anything checks those (a stride or group count of 0 divides by zero); the mask's batch size is checked
// even when use_mask is false (torchvision's Python passes a [B, 0, 0, 0]-like mask then); the bias is viewed as
// [1, C_out, 1, 1] without a check of its own.
struct DeformGeometry {
  int64_t batch, in_channels, in_h, in_w, out_channels, weight_h, weight_w, out_h, out_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, weight_groups, offset_groups;
  bool use_mask;
};

DeformGeometry deform_geometry(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h,
    int64_t dil_w, int64_t weight_groups, int64_t offset_groups, bool use_mask) {
  TORCH_CHECK(input.dim() == 4);
  TORCH_CHECK(offset.dim() == 4);
  TORCH_CHECK(!use_mask || mask.dim() == 4);
  TORCH_CHECK(weight.dim() == 4);
  TORCH_CHECK(input.device().is_cpu(), "input must be a CPU tensor");
  DeformGeometry g{input.size(0), input.size(1), input.size(2), input.size(3), weight.size(0), weight.size(2),
      weight.size(3), 0, 0, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, weight_groups, offset_groups, use_mask};
  g.out_h = (g.in_h + 2 * pad_h - (dil_h * (g.weight_h - 1) + 1)) / stride_h + 1;
  g.out_w = (g.in_w + 2 * pad_w - (dil_w * (g.weight_w - 1) + 1)) / stride_w + 1;
  TORCH_CHECK(g.weight_h > 0 && g.weight_w > 0, "weight_h: ", g.weight_h, " weight_w: ", g.weight_w);
  TORCH_CHECK(stride_h > 0 && stride_w > 0, "stride_h: ", stride_h, " stride_w: ", stride_w);
  TORCH_CHECK(pad_h >= 0 && pad_w >= 0, "pad_h: ", pad_h, " pad_w: ", pad_w);
  TORCH_CHECK(dil_h > 0 && dil_w > 0, "dilation_h: ", dil_h, " dilation_w: ", dil_w);
  TORCH_CHECK(weight.size(1) * weight_groups == input.size(1));
  TORCH_CHECK(weight.size(0) % weight_groups == 0);
  TORCH_CHECK(offset.size(1) == offset_groups * 2 * g.weight_h * g.weight_w, "offset.shape[1] is not valid: got: ",
      offset.size(1), " expected: ", offset_groups * 2 * g.weight_h * g.weight_w);
  TORCH_CHECK(!use_mask || mask.size(1) == offset_groups * g.weight_h * g.weight_w, "mask.shape[1] is not valid: got: ",
      mask.size(1), " expected: ", offset_groups * g.weight_h * g.weight_w);
  TORCH_CHECK(input.size(1) % offset_groups == 0);
  TORCH_CHECK(offset.size(0) == input.size(0), "invalid batch size of offset");
  TORCH_CHECK(offset.size(2) == g.out_h && offset.size(3) == g.out_w, "offset output dims: (", offset.size(2), ", ",
      offset.size(3), ") - computed output dims: (", g.out_h, ", ", g.out_w, ")");
  TORCH_CHECK(mask.size(0) == input.size(0), "invalid batch size of mask");
  TORCH_CHECK(!use_mask || (mask.size(2) == g.out_h && mask.size(3) == g.out_w), "mask output dims: (", mask.size(2),
      ", ", mask.size(3), ") - computed output dims: (", g.out_h, ", ", g.out_w, ")");
  TORCH_CHECK(g.out_h > 0 && g.out_w > 0, "Calculated output size too small - out_h: ", g.out_h, " out_w: ", g.out_w);
  return g;
}

// torchvision's deformable sample: zero outside (-1, size) in either direction, each corner read only inside.
template <typename T>
T deform_sample(const T* plane, int64_t height, int64_t width, T y, T x) {
  if (y <= -1 || height <= y || x <= -1 || width <= x) {
    return 0;
  }
  int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
  T ly = y - y0, lx = x - x0;
  auto at = [&](int64_t yy, int64_t xx) { return (yy >= 0 && xx >= 0 && yy < height && xx < width) ? plane[yy * width + xx] : T(0); };
  return (1 - ly) * (1 - lx) * at(y0, x0) + (1 - ly) * lx * at(y0, x0 + 1) + ly * (1 - lx) * at(y0 + 1, x0) +
      ly * lx * at(y0 + 1, x0 + 1);
}

// Visits every tap (b, input channel, kh, kw, oh, ow) with its sample position, mask value and offset slots.
template <typename T, typename Visit>
void each_tap(const DeformGeometry& g, const T* offset, const T* mask, Visit visit) {
  int64_t taps = g.weight_h * g.weight_w, per_group = g.in_channels / g.offset_groups;
  for (int64_t b = 0; b < g.batch; b++) {
    for (int64_t ic = 0; ic < g.in_channels; ic++) {
      int64_t og = ic / per_group;
      for (int64_t kh = 0; kh < g.weight_h; kh++) {
        for (int64_t kw = 0; kw < g.weight_w; kw++) {
          int64_t tap = kh * g.weight_w + kw;
          for (int64_t oh = 0; oh < g.out_h; oh++) {
            for (int64_t ow = 0; ow < g.out_w; ow++) {
              int64_t plane = g.out_h * g.out_w, pos = oh * g.out_w + ow;
              int64_t oy = ((b * g.offset_groups + og) * 2 * taps + 2 * tap) * plane + pos, ox = oy + plane;
              int64_t mi = ((b * g.offset_groups + og) * taps + tap) * plane + pos;
              T m = g.use_mask ? mask[mi] : T(1);
              T y = oh * g.stride_h - g.pad_h + kh * g.dil_h + offset[oy];
              T x = ow * g.stride_w - g.pad_w + kw * g.dil_w + offset[ox];
              visit(b, ic, kh, kw, oh, ow, y, x, m, oy, ox, mi);
            }
          }
        }
      }
    }
  }
}

at::Tensor deform_conv2d_cpu(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dil_h, int64_t dil_w, int64_t weight_groups, int64_t offset_groups, bool use_mask) {
  auto in = input.contiguous(), w = weight.contiguous(), off = offset.contiguous(), m = mask.contiguous();
  auto g = deform_geometry(in, w, off, m, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, weight_groups, offset_groups,
      use_mask);
  auto out = at::zeros({g.batch, g.out_channels, g.out_h, g.out_w}, in.options());
  if (g.batch == 0) {
    return out;
  }
  int64_t out_per_group = g.out_channels / weight_groups, in_per_group = g.in_channels / weight_groups;
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(in.scalar_type(), "deform_conv2d", [&] {
    const scalar_t *x = in.data_ptr<scalar_t>(), *wt = w.data_ptr<scalar_t>();
    scalar_t* o = out.data_ptr<scalar_t>();
    each_tap<scalar_t>(g, off.data_ptr<scalar_t>(), use_mask ? m.data_ptr<scalar_t>() : nullptr,
        [&](int64_t b, int64_t ic, int64_t kh, int64_t kw, int64_t oh, int64_t ow, scalar_t y, scalar_t xx, scalar_t mv,
            int64_t, int64_t, int64_t) {
          scalar_t v = mv * deform_sample(x + (b * g.in_channels + ic) * g.in_h * g.in_w, g.in_h, g.in_w, y, xx);
          int64_t grp = ic / in_per_group, icl = ic % in_per_group;
          for (int64_t oc = grp * out_per_group; oc < (grp + 1) * out_per_group; oc++) {
            o[((b * g.out_channels + oc) * g.out_h + oh) * g.out_w + ow] +=
                wt[((oc * in_per_group + icl) * g.weight_h + kh) * g.weight_w + kw] * v;
          }
        });
  });
  return out + bias.contiguous().view({1, g.out_channels, 1, 1});
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward_cpu(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dil_h, int64_t dil_w, int64_t weight_groups, int64_t offset_groups, bool use_mask) {
  auto go = grad.contiguous(), in = input.contiguous(), w = weight.contiguous(), off = offset.contiguous();
  auto m = mask.contiguous();
  auto g = deform_geometry(in, w, off, m, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, weight_groups, offset_groups,
      use_mask);
  auto grad_input = at::zeros_like(in), grad_weight = at::zeros_like(w), grad_offset = at::zeros_like(off);
  auto grad_mask = at::zeros_like(m);
  auto grad_bias = go.sum({0, 2, 3});
  if (g.batch == 0) {
    return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};
  }
  int64_t out_per_group = g.out_channels / weight_groups, in_per_group = g.in_channels / weight_groups;
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(in.scalar_type(), "deform_conv2d_backward", [&] {
    const scalar_t *x = in.data_ptr<scalar_t>(), *wt = w.data_ptr<scalar_t>(), *gd = go.data_ptr<scalar_t>();
    scalar_t *gx = grad_input.data_ptr<scalar_t>(), *gw = grad_weight.data_ptr<scalar_t>();
    scalar_t *goff = grad_offset.data_ptr<scalar_t>(), *gm = use_mask ? grad_mask.data_ptr<scalar_t>() : nullptr;
    each_tap<scalar_t>(g, off.data_ptr<scalar_t>(), use_mask ? m.data_ptr<scalar_t>() : nullptr,
        [&](int64_t b, int64_t ic, int64_t kh, int64_t kw, int64_t oh, int64_t ow, scalar_t y, scalar_t xx, scalar_t mv,
            int64_t oy, int64_t ox, int64_t mi) {
          int64_t grp = ic / in_per_group, icl = ic % in_per_group;
          const scalar_t* plane = x + (b * g.in_channels + ic) * g.in_h * g.in_w;
          scalar_t* gplane = gx + (b * g.in_channels + ic) * g.in_h * g.in_w;
          scalar_t col_grad = 0;  // d loss / d (mask * sample) at this tap
          scalar_t sample = deform_sample(plane, g.in_h, g.in_w, y, xx);
          for (int64_t oc = grp * out_per_group; oc < (grp + 1) * out_per_group; oc++) {
            int64_t wi = ((oc * in_per_group + icl) * g.weight_h + kh) * g.weight_w + kw;
            scalar_t go_v = gd[((b * g.out_channels + oc) * g.out_h + oh) * g.out_w + ow];
            col_grad += wt[wi] * go_v;
            gw[wi] += go_v * mv * sample;
          }
          if (gm != nullptr) {
            gm[mi] += col_grad * sample;
          }
          if (y <= -1 || g.in_h <= y || xx <= -1 || g.in_w <= xx) {
            return;
          }
          int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(xx));
          scalar_t ly = y - y0, lx = xx - x0;
          scalar_t cg = col_grad * mv;
          auto corner = [&](int64_t yy, int64_t xc, scalar_t wy, scalar_t wx, scalar_t dy, scalar_t dx) {
            if (yy < 0 || xc < 0 || yy >= g.in_h || xc >= g.in_w) {
              return;
            }
            gplane[yy * g.in_w + xc] += cg * wy * wx;
            goff[oy] += cg * dy * wx * plane[yy * g.in_w + xc];
            goff[ox] += cg * wy * dx * plane[yy * g.in_w + xc];
          };
          corner(y0, x0, 1 - ly, 1 - lx, -1, -1);
          corner(y0, x0 + 1, 1 - ly, lx, -1, 1);
          corner(y0 + 1, x0, ly, 1 - lx, 1, -1);
          corner(y0 + 1, x0 + 1, ly, lx, 1, 1);
        });
  });
  return {grad_input, grad_weight, grad_offset, grad_mask, grad_bias};
}

// torchvision's Meta kernel takes the output's height and width from offset's last two sizes; it checks nothing.
at::Tensor deform_conv2d_meta(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dil_h, int64_t dil_w, int64_t weight_groups, int64_t offset_groups, bool use_mask) {
  return input.new_empty({input.size(0), weight.size(0), offset.size(-2), offset.size(-1)});
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward_meta(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dil_h, int64_t dil_w, int64_t weight_groups, int64_t offset_groups, bool use_mask) {
  return {input.new_empty(input.sizes()), weight.new_empty(weight.sizes()), offset.new_empty(offset.sizes()),
      mask.new_empty(mask.sizes()), bias.new_empty(bias.sizes())};
}

using DeformConv = at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt,
    c10::SymInt, bool);
using DeformConvBackward = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor>(const at::Tensor&,
    const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, const at::Tensor&, c10::SymInt,
    c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, c10::SymInt, bool);

class DeformConvFunction : public torch::autograd::Function<DeformConvFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& input, const Variable& weight,
      const Variable& offset, const Variable& mask, const Variable& bias, c10::SymInt stride_h, c10::SymInt stride_w,
      c10::SymInt pad_h, c10::SymInt pad_w, c10::SymInt dil_h, c10::SymInt dil_w, c10::SymInt weight_groups,
      c10::SymInt offset_groups, bool use_mask) {
    at::AutoDispatchBelowADInplaceOrView guard;
    auto output = op<DeformConv>("torchvision::deform_conv2d")
                      .call(input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
                          weight_groups, offset_groups, use_mask);
    ctx->save_for_backward({input, weight, offset, mask, bias});
    for (auto [key, value] : std::initializer_list<std::pair<const char*, c10::SymInt>>{{"stride_h", stride_h},
             {"stride_w", stride_w}, {"pad_h", pad_h}, {"pad_w", pad_w}, {"dilation_h", dil_h}, {"dilation_w", dil_w},
             {"groups", weight_groups}, {"offset_groups", offset_groups}}) {
      ctx->saved_data[key] = value;
    }
    ctx->saved_data["use_mask"] = use_mask;
    return {output};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    auto s = ctx->get_saved_variables();
    auto sym = [&](const char* key) { return ctx->saved_data[key].toSymInt(); };
    auto [gi, gw, goff, gm, gb] = op<DeformConvBackward>("torchvision::_deform_conv2d_backward")
                                      .call(grad_output[0], s[0], s[1], s[2], s[3], s[4], sym("stride_h"),
                                          sym("stride_w"), sym("pad_h"), sym("pad_w"), sym("dilation_h"),
                                          sym("dilation_w"), sym("groups"), sym("offset_groups"),
                                          ctx->saved_data["use_mask"].toBool());
    return {gi, gw, goff, gm, gb, Variable(), Variable(), Variable(), Variable(), Variable(), Variable(), Variable(),
        Variable(), Variable()};
  }
};

at::Tensor deform_conv2d_autograd(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, c10::SymInt stride_h, c10::SymInt stride_w, c10::SymInt pad_h,
    c10::SymInt pad_w, c10::SymInt dil_h, c10::SymInt dil_w, c10::SymInt weight_groups, c10::SymInt offset_groups,
    bool use_mask) {
  return DeformConvFunction::apply(input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
      weight_groups, offset_groups, use_mask)[0];
}

// Upstream's _deform_conv2d_backward Autograd kernel: it runs, and differentiating it again raises.
class DeformConvBackwardFunction : public torch::autograd::Function<DeformConvBackwardFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const Variable& grad, const Variable& input,
      const Variable& weight, const Variable& offset, const Variable& mask, const Variable& bias, c10::SymInt stride_h,
      c10::SymInt stride_w, c10::SymInt pad_h, c10::SymInt pad_w, c10::SymInt dil_h, c10::SymInt dil_w,
      c10::SymInt weight_groups, c10::SymInt offset_groups, bool use_mask) {
    at::AutoDispatchBelowADInplaceOrView guard;
    auto [gi, gw, goff, gm, gb] = op<DeformConvBackward>("torchvision::_deform_conv2d_backward")
                                      .call(grad, input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w,
                                          dil_h, dil_w, weight_groups, offset_groups, use_mask);
    return {gi, gw, goff, gm, gb};
  }
  static variable_list backward(AutogradContext* ctx, const variable_list& grad_output) {
    TORCH_CHECK(0, "double backwards on deform_conv2d not supported");
  }
};

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, at::Tensor> deform_conv2d_backward_autograd(
    const at::Tensor& grad, const at::Tensor& input, const at::Tensor& weight, const at::Tensor& offset,
    const at::Tensor& mask, const at::Tensor& bias, c10::SymInt stride_h, c10::SymInt stride_w, c10::SymInt pad_h,
    c10::SymInt pad_w, c10::SymInt dil_h, c10::SymInt dil_w, c10::SymInt weight_groups, c10::SymInt offset_groups,
    bool use_mask) {
  auto r = DeformConvBackwardFunction::apply(grad, input, weight, offset, mask, bias, stride_h, stride_w, pad_h, pad_w,
      dil_h, dil_w, weight_groups, offset_groups, use_mask);
  return {r[0], r[1], r[2], r[3], r[4]};
}

}  // namespace

TORCH_LIBRARY(torchvision, m) {
  m.def("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor");
  m.def("roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
        "int sampling_ratio, bool aligned) -> Tensor");
  m.def("_roi_align_backward(Tensor grad, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
        "SymInt batch_size, SymInt channels, SymInt height, SymInt width, int sampling_ratio, bool aligned) -> Tensor");
  m.def("roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) "
        "-> (Tensor, Tensor)");
  m.def("_roi_pool_backward(Tensor grad, Tensor rois, Tensor argmax, float spatial_scale, SymInt pooled_height, "
        "SymInt pooled_width, SymInt batch_size, SymInt channels, SymInt height, SymInt width) -> Tensor");
  m.def("ps_roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, "
        "int sampling_ratio) -> (Tensor, Tensor)");
  m.def("_ps_roi_align_backward(Tensor grad, Tensor rois, Tensor channel_mapping, float spatial_scale, "
        "SymInt pooled_height, SymInt pooled_width, int sampling_ratio, SymInt batch_size, SymInt channels, "
        "SymInt height, SymInt width) -> Tensor");
  m.def("deform_conv2d(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, SymInt stride_h, "
        "SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, SymInt groups, "
        "SymInt offset_groups, bool use_mask) -> Tensor");
  m.def("_deform_conv2d_backward(Tensor grad, Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
        "SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, "
        "SymInt groups, SymInt offset_groups, bool use_mask) -> (Tensor, Tensor, Tensor, Tensor, Tensor)");
}

TORCH_LIBRARY_IMPL(torchvision, CPU, m) {
  m.impl("nms", nms_cpu);
  m.impl("roi_align", roi_align_cpu);
  m.impl("_roi_align_backward", roi_align_backward_cpu);
  m.impl("roi_pool", roi_pool_cpu);
  m.impl("_roi_pool_backward", roi_pool_backward_cpu);
  m.impl("ps_roi_align", ps_roi_align_cpu);
  m.impl("_ps_roi_align_backward", ps_roi_align_backward_cpu);
  m.impl("deform_conv2d", deform_conv2d_cpu);
  m.impl("_deform_conv2d_backward", deform_conv2d_backward_cpu);
}

TORCH_LIBRARY_IMPL(torchvision, Meta, m) {
  m.impl("roi_align", roi_align_meta);
  m.impl("_roi_align_backward", roi_align_backward_meta);
  m.impl("roi_pool", roi_pool_meta);
  m.impl("_roi_pool_backward", roi_pool_backward_meta);
  m.impl("ps_roi_align", ps_roi_align_meta);
  m.impl("_ps_roi_align_backward", ps_roi_align_backward_meta);
  m.impl("deform_conv2d", deform_conv2d_meta);
  m.impl("_deform_conv2d_backward", deform_conv2d_backward_meta);
}

TORCH_LIBRARY_IMPL(torchvision, Autograd, m) {
  m.impl("roi_align", roi_align_autograd);
  m.impl("_roi_align_backward", roi_align_backward_autograd);
  m.impl("roi_pool", roi_pool_autograd);
  m.impl("_roi_pool_backward", roi_pool_backward_autograd);
  m.impl("ps_roi_align", ps_roi_align_autograd);
  m.impl("_ps_roi_align_backward", ps_roi_align_backward_autograd);
  m.impl("deform_conv2d", deform_conv2d_autograd);
  m.impl("_deform_conv2d_backward", deform_conv2d_backward_autograd);
}
