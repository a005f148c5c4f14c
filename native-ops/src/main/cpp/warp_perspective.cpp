// The TorchScript custom-operator tutorial's op in its classic form: torch/script.h, TORCH_LIBRARY(my_ops, m),
// OpenCV's cv::warpPerspective on cv::Mat headers over the tensors' data, and torch::from_blob + clone for the
// 8x8 result (the tutorial's dsize). Built with classic_op_library, i.e. the runtime's own headers (the torch
// 2.13.0 wheel's), into libwarp_perspective.so, the tutorial's library name.
//
// Where it departs from the tutorial, so that it passes every check (each departure is what a check asks for):
// - a Meta kernel, which the tutorial has none of (fake.missing, registration.device-kernel): it gives the
//   8x8 float32 result's metadata, after the same argument checks;
// - argument checks with clear errors shared by both kernels (the tutorial reads any tensor as 2-d float32);
// - .contiguous() before the cv::Mat headers (the tutorial reads a transposed image as if it were row-major:
//   noncontiguous), and an empty image gives zeros (cv::warpPerspective asserts on an empty cv::Mat);
// - the schema is declared with names and registered per key instead of m.def("warp_perspective", fn), and the
//   op is the overload my_ops::warp_perspective.classic: the bundled stable-ABI library my_ops already defines
//   my_ops::warp_perspective(image, warp, height, width), and both load into one worker for ./opcheck demo.
//   A call with two arguments, torch.ops.my_ops.warp_perspective(x, torch.eye(3)) as in the tutorial's model,
//   binds to this overload. This library owns the namespace (TORCH_LIBRARY), my_ops.cpp adds a fragment.
//
// Real PyTorch 2.13.0 on this library as the Maven build makes it (2026-11-27):
//   LD_LIBRARY_PATH=<JavaCPP's openblas dir> /root/.cache/opcheck4j/torch-2.13.0/bin/python
//     /work/shared/tools/pytorch-opcheck.py fixtures/specs/warp_perspective.json native-ops/target/lib/libwarp_perspective.so
// test_schema, test_autograd_registration, test_faketensor and test_aot_dispatch_dynamic: SUCCESS on both examples.
#include <torch/script.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

namespace {

void check_warp_args(const torch::Tensor& image, const torch::Tensor& warp) {
  TORCH_CHECK(image.dim() == 2, "warp_perspective: image must be 2-d, got ", image.dim(), "-d");
  TORCH_CHECK(warp.dim() == 2 && warp.size(0) == 3 && warp.size(1) == 3, "warp_perspective: warp must be 3x3");
  TORCH_CHECK(image.scalar_type() == torch::kFloat && warp.scalar_type() == torch::kFloat,
              "warp_perspective: image and warp must be float32");
}

torch::Tensor warp_perspective(torch::Tensor image, torch::Tensor warp) {
  check_warp_args(image, warp);
  if (image.numel() == 0) {
    return torch::zeros({8, 8}, image.options());
  }
  image = image.contiguous();
  warp = warp.contiguous();
  cv::Mat image_mat(/*rows=*/static_cast<int>(image.size(0)), /*cols=*/static_cast<int>(image.size(1)),
                    /*type=*/CV_32FC1, /*data=*/image.data_ptr<float>());
  cv::Mat warp_mat(/*rows=*/3, /*cols=*/3, /*type=*/CV_32FC1, /*data=*/warp.data_ptr<float>());
  cv::Mat output_mat;
  cv::warpPerspective(image_mat, output_mat, warp_mat, /*dsize=*/{8, 8});
  torch::Tensor output = torch::from_blob(output_mat.ptr<float>(), /*sizes=*/{8, 8});
  return output.clone();
}

torch::Tensor warp_perspective_meta(torch::Tensor image, torch::Tensor warp) {
  check_warp_args(image, warp);
  return torch::empty({8, 8}, image.options());
}

}  // namespace

TORCH_LIBRARY(my_ops, m) { m.def("warp_perspective.classic(Tensor image, Tensor warp) -> Tensor"); }

TORCH_LIBRARY_IMPL(my_ops, CPU, m) { m.impl("warp_perspective.classic", &warp_perspective); }

TORCH_LIBRARY_IMPL(my_ops, Meta, m) { m.impl("warp_perspective.classic", &warp_perspective_meta); }
