// The bundled example library: the TorchScript tutorial's warp_perspective, ported to the stable
// ABI with the output size taken from its arguments; mul_add; and the custom-ops tutorial's crop and
// paste. warp_perspective and mul_add have CPU and Meta kernels. crop and paste are composites of
// differentiable aten ops registered at CompositeImplicitAutograd: that gives them autograd, meta and
// every device from aten. (Registered as CPU kernels, the aten calls inside them record autograd in a
// backend kernel, which real opcheck's test_autograd_registration rejects on PyTorch 2.14.1.)
#include "kernels.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

using namespace opcheck4j;

namespace {

// The same argument checks for the CPU and the Meta kernel: they must accept the same inputs.
void check_warp_args(const Tensor& image, const Tensor& warp, int64_t height, int64_t width) {
  STD_TORCH_CHECK(image.dim() == 2, "warp_perspective: image must be 2-d, got ", image.dim(), "-d");
  STD_TORCH_CHECK(warp.dim() == 2 && warp.size(0) == 3 && warp.size(1) == 3,
                  "warp_perspective: warp must be 3x3");
  STD_TORCH_CHECK(image.scalar_type() == ScalarType::Float && warp.scalar_type() == ScalarType::Float,
                  "warp_perspective: image and warp must be float32");
  STD_TORCH_CHECK(height >= 0 && width >= 0, "warp_perspective: height and width must be >= 0");
}

Tensor warp_perspective(Tensor image, Tensor warp, int64_t height, int64_t width) {
  check_warp_args(image, warp, height, width);
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
  check_warp_args(image, warp, height, width);
  return torch::stable::new_empty(image, {height, width});
}

void check_mul_add_args(const Tensor& a, const Tensor& b) {
  STD_TORCH_CHECK(sizes_of(a) == sizes_of(b), "mul_add: a and b must have the same shape");
  STD_TORCH_CHECK(a.scalar_type() == b.scalar_type(), "mul_add: a and b must have the same dtype");
  check_floating(a, "mul_add: a");
}

Tensor mul_add(Tensor a, Tensor b, double c) {
  check_mul_add_args(a, b);
  Tensor ac = torch::stable::contiguous(a);
  Tensor bc = torch::stable::contiguous(b);
  return map_new(ac, [&](int64_t i) { return elem(ac, i) * elem(bc, i) + c; });
}

Tensor mul_add_meta(Tensor a, Tensor b, double c) {
  check_mul_add_args(a, b);
  return torch::stable::new_empty(a, a.sizes());
}

// The custom-ops tutorial's crop: pic is C x H x W, box is (left, upper, right, lower).
std::vector<int64_t> crop_size(const Tensor& pic, const std::vector<int64_t>& box) {
  STD_TORCH_CHECK(pic.dim() == 3, "crop: pic must be 3-d (C, H, W), got ", pic.dim(), "-d");
  STD_TORCH_CHECK(box.size() == 4, "crop: box must be (left, upper, right, lower), got ", box.size(), " values");
  int64_t left = box[0], upper = box[1], right = box[2], lower = box[3];
  STD_TORCH_CHECK(0 <= left && left <= right && right <= pic.size(2) && 0 <= upper && upper <= lower &&
                      lower <= pic.size(1),
                  "crop: box (", left, ", ", upper, ", ", right, ", ", lower, ") is outside the ",
                  pic.size(1), "x", pic.size(2), " picture");
  return {pic.size(0), lower - upper, right - left};
}

Tensor crop(Tensor pic, std::vector<int64_t> box) {
  crop_size(pic, box);
  Tensor rows = torch::stable::narrow(pic, 1, box[1], box[3] - box[1]);
  Tensor cols = torch::stable::narrow(rows, 2, box[0], box[2] - box[0]);
  // a copy, never a view of pic: the schema declares no alias
  return torch::stable::contiguous(torch::stable::clone(cols));
}

// The tutorial's paste: a copy of im1 with im2 pasted at coord (left, upper).
void check_paste(const Tensor& im1, const Tensor& im2, const std::vector<int64_t>& coord) {
  STD_TORCH_CHECK(im1.dim() == 3 && im2.dim() == 3, "paste: images must be 3-d (C, H, W)");
  STD_TORCH_CHECK(im1.size(0) == im2.size(0), "paste: images must have the same number of channels");
  STD_TORCH_CHECK(im1.scalar_type() == im2.scalar_type(), "paste: images must have the same dtype");
  STD_TORCH_CHECK(coord.size() == 2, "paste: coord must be (left, upper)");
  STD_TORCH_CHECK(coord[0] >= 0 && coord[1] >= 0 && coord[0] + im2.size(2) <= im1.size(2) &&
                      coord[1] + im2.size(1) <= im1.size(1),
                  "paste: im2 does not fit in im1 at (", coord[0], ", ", coord[1], ")");
}

Tensor paste(Tensor im1, Tensor im2, std::vector<int64_t> coord) {
  check_paste(im1, im2, coord);
  Tensor out = torch::stable::contiguous(torch::stable::clone(im1));
  Tensor rows = torch::stable::narrow(out, 1, coord[1], im2.size(1));
  Tensor region = torch::stable::narrow(rows, 2, coord[0], im2.size(2));
  torch::stable::copy_(region, im2);
  return out;
}

}  // namespace

// A fragment: the classic libwarp_perspective.so (warp_perspective.cpp) owns the namespace with TORCH_LIBRARY,
// and the demo loads both into one worker.
STABLE_TORCH_LIBRARY_FRAGMENT(my_ops, m) {
  m.def("warp_perspective(Tensor image, Tensor warp, int height, int width) -> Tensor");
  m.def("mul_add(Tensor a, Tensor b, float c) -> Tensor");
  m.def("crop(Tensor pic, int[] box) -> Tensor");
  m.def("paste(Tensor im1, Tensor im2, int[] coord) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(my_ops, CPU, m) {
  m.impl("warp_perspective", TORCH_BOX(&warp_perspective));
  m.impl("mul_add", TORCH_BOX(&mul_add));
}

STABLE_TORCH_LIBRARY_IMPL(my_ops, Meta, m) {
  m.impl("warp_perspective", TORCH_BOX(&warp_perspective_meta));
  m.impl("mul_add", TORCH_BOX(&mul_add_meta));
}

STABLE_TORCH_LIBRARY_IMPL(my_ops, CompositeImplicitAutograd, m) {
  m.impl("crop", TORCH_BOX(&crop));
  m.impl("paste", TORCH_BOX(&paste));
}
