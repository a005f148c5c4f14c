// The message of the last error libtorch's stable-ABI shim caught on the calling thread. A library built for
// the stable ABI of 2.10-2.12 gets only "<call> API call failed at <file>, line N" when a shim call fails
// (TORCH_ERROR_CODE_CHECK); libtorch 2.13's shim logs nothing, but keeps the original message in a
// thread-local (what a 2.13-target library's STABLE_TORCH_ERROR_CODE_CHECK reads through
// torch_exception_get_what_without_backtrace). The harness reads it after a kernel call failed with that text,
// and clears it, so that a message is never given to a later failure it did not cause.
#include <torch/csrc/stable/c/shim.h>
#include <torch/library.h>

#include <string>

namespace torch::csrc::shim::details {
// libtorch_cpu's own (torch/csrc/shim_common.cpp); no installed header declares them
TORCH_API void set_torch_exception_what(const std::string& what);
TORCH_API void set_torch_exception_what_without_backtrace(const std::string& what);
}  // namespace torch::csrc::shim::details

namespace {
// The last message, empty when none was set since the last take.
std::string take_shim_error() {
  const char* what = torch_exception_get_what_without_backtrace();
  std::string message = what == nullptr ? "" : what;
  torch::csrc::shim::details::set_torch_exception_what("");
  torch::csrc::shim::details::set_torch_exception_what_without_backtrace("");
  return message;
}
}  // namespace

TORCH_LIBRARY_FRAGMENT(opcheck4j, m) { m.def("take_shim_error() -> str", &take_shim_error); }
