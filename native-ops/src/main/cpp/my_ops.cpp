// The bundled example library: the TorchScript tutorial's warp_perspective, ported to the stable
// ABI with the output size taken from its arguments, and mul_add. Both have CPU and Meta kernels.
#include "kernels.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

using namespace opcheck4j;

namespace {

Tensor warp_perspective(Tensor image, Tensor warp, int64_t height, int64_t width) {
  STD_TORCH_CHECK(image.dim() == 2, "warp_perspective: image must be 2-d, got ", image.dim(), "-d");
  STD_TORCH_CHECK(warp.dim() == 2 && warp.size(0) == 3 && warp.size(1) == 3,
                  "warp_perspective: warp must be 3x3");
  STD_TORCH_CHECK(image.scalar_type() == ScalarType::Float && warp.scalar_type() == ScalarType::Float,
                  "warp_perspective: image and warp must be float32");
  STD_TORCH_CHECK(height >= 0 && width >= 0, "warp_perspective: height and width must be >= 0");
  Tensor img = torch::stable::contiguous(image);
  Tensor w = torch::stable::contiguous(warp);
  Tensor out = torch::stable::new_zeros(image, {height, width});
  if (height == 0 || width == 0 || img.numel() == 0) return out;
  cv::Mat image_mat(static_cast<int>(img.size(0)), static_cast<int>(img.size(1)), CV_32FC1,
                    img.data_ptr());
  cv::Mat warp_mat(3, 3, CV_32FC1, w.data_ptr());
  cv::Mat out_mat(static_cast<int>(height), static_cast<int>(width), CV_32FC1, out.data_ptr());
  cv::warpPerspective(image_mat, out_mat, warp_mat,
                      cv::Size(static_cast<int>(width), static_cast<int>(height)));
  return out;
}

Tensor warp_perspective_meta(Tensor image, Tensor warp, int64_t height, int64_t width) {
  STD_TORCH_CHECK(image.dim() == 2, "warp_perspective: image must be 2-d, got ", image.dim(), "-d");
  STD_TORCH_CHECK(warp.dim() == 2 && warp.size(0) == 3 && warp.size(1) == 3,
                  "warp_perspective: warp must be 3x3");
  STD_TORCH_CHECK(image.scalar_type() == ScalarType::Float && warp.scalar_type() == ScalarType::Float,
                  "warp_perspective: image and warp must be float32");
  STD_TORCH_CHECK(height >= 0 && width >= 0, "warp_perspective: height and width must be >= 0");
  return torch::stable::new_empty(image, {height, width});
}

Tensor mul_add(Tensor a, Tensor b, double c) {
  STD_TORCH_CHECK(sizes_of(a) == sizes_of(b), "mul_add: a and b must have the same shape");
  STD_TORCH_CHECK(a.scalar_type() == b.scalar_type(), "mul_add: a and b must have the same dtype");
  check_floating(a, "mul_add: a");
  Tensor ac = torch::stable::contiguous(a);
  Tensor bc = torch::stable::contiguous(b);
  return map_new(ac, [&](int64_t i) { return elem(ac, i) * elem(bc, i) + c; });
}

Tensor mul_add_meta(Tensor a, Tensor b, double c) {
  STD_TORCH_CHECK(sizes_of(a) == sizes_of(b), "mul_add: a and b must have the same shape");
  STD_TORCH_CHECK(a.scalar_type() == b.scalar_type(), "mul_add: a and b must have the same dtype");
  check_floating(a, "mul_add: a");
  return torch::stable::new_empty(a, a.sizes());
}

}  // namespace

STABLE_TORCH_LIBRARY(my_ops, m) {
  m.def("warp_perspective(Tensor image, Tensor warp, int height, int width) -> Tensor");
  m.def("mul_add(Tensor a, Tensor b, float c) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(my_ops, CPU, m) {
  m.impl("warp_perspective", TORCH_BOX(&warp_perspective));
  m.impl("mul_add", TORCH_BOX(&mul_add));
}

STABLE_TORCH_LIBRARY_IMPL(my_ops, Meta, m) {
  m.impl("warp_perspective", TORCH_BOX(&warp_perspective_meta));
  m.impl("mul_add", TORCH_BOX(&mul_add_meta));
}
