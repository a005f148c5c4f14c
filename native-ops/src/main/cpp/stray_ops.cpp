// A crash on a thread a kernel left running fires while another op's unit runs: the supervisor must not
// charge it to that op. Each op is marked (`// OP:` / `// EXPECT:`) with the failed result it must produce;
// an op with no EXPECT must pass. The library-wide finding the stray crash becomes is about stray_ops::*.
// Run with one worker (--jobs 1), in spec order: leaves_thread, then wakes, then crashes_in_its_thread.
#include "kernels.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace opcheck4j;

namespace {

Tensor same_shape_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }

Tensor copy_of(const Tensor& x) {
  Tensor xc = torch::stable::contiguous(x);
  return map_new(xc, [&](int64_t i) { return elem(xc, i); });
}

// Never destroyed: a condition variable destroyed at exit while a thread waits on it may hang the exit.
struct Waiting {
  std::mutex m;
  std::condition_variable cv;
  bool started = false;
  bool woken = false;
};
Waiting& waiting() {
  static Waiting* w = new Waiting();
  return *w;
}

int* volatile nowhere = nullptr;  // volatile: the compiler cannot see it is null

// Returns a copy, and leaves a thread running (once per process) that writes through a null pointer when
// woken: by wakes, a call of another op. Its own calls never crash.
// OP: stray_ops::leaves_thread
Tensor leaves_thread(Tensor x) {
  Waiting& w = waiting();
  std::lock_guard<std::mutex> lock(w.m);
  if (!w.started) {
    w.started = true;
    std::thread([] {
      Waiting& w = waiting();
      std::unique_lock<std::mutex> lock(w.m);
      w.cv.wait(lock, [&] { return w.woken; });
      *nowhere = 1;
    }).detach();
  }
  return copy_of(x);
}

// Correct: returns a copy. When leaves_thread's thread waits in this process, it wakes it and waits for the
// crash that follows, so the worker dies while this op's unit runs; alone, on a new worker, it returns.
// OP: stray_ops::wakes
Tensor wakes(Tensor x) {
  Waiting& w = waiting();
  bool someone;
  {
    std::lock_guard<std::mutex> lock(w.m);
    someone = w.started && !w.woken;
    w.woken = true;
  }
  if (someone) {
    w.cv.notify_all();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  return copy_of(x);
}

// Writes through a null pointer on a thread of its own, and joins it: a crash on a native thread that is
// this op's, every time.
// OP: stray_ops::crashes_in_its_thread
// EXPECT: kernel.crash
Tensor crashes_in_its_thread(Tensor x) {
  std::thread([] { *nowhere = 1; }).join();
  return copy_of(x);
}

}  // namespace

STABLE_TORCH_LIBRARY(stray_ops, m) {
  m.def("leaves_thread(Tensor x) -> Tensor");
  m.def("wakes(Tensor x) -> Tensor");
  m.def("crashes_in_its_thread(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(stray_ops, CPU, m) {
  m.impl("leaves_thread", TORCH_BOX(&leaves_thread));
  m.impl("wakes", TORCH_BOX(&wakes));
  m.impl("crashes_in_its_thread", TORCH_BOX(&crashes_in_its_thread));
}

STABLE_TORCH_LIBRARY_IMPL(stray_ops, Meta, m) {
  m.impl("leaves_thread", TORCH_BOX(&same_shape_meta));
  m.impl("wakes", TORCH_BOX(&same_shape_meta));
  m.impl("crashes_in_its_thread", TORCH_BOX(&same_shape_meta));
}
