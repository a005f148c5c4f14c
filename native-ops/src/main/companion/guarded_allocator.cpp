// A CPU allocator that places each allocation against a guard page, for memory.bounds' calls
// (dev.opcheck4j.checks.memory.GuardedAllocator), so that the outputs and temporaries the kernel allocates
// itself get what its tensor arguments get (GuardedMemory, in Java).
//
// It serves every caller of c10::Allocator, not only allocate(): aten kernels also use raw_allocate and
// raw_deallocate (through the CPU allocator current at the time: gelu's, sort's scratch buffers), and clone
// and is_simple_data_ptr (copy-on-write). Those need a DataPtr whose context is its data pointer and a raw
// deleter that frees by address. And memory raw-allocated while guarding may be raw-deallocated after the
// guarding ended, and memory raw-allocated before it while it guards: so this allocator is installed once,
// with c10::SetAllocator(kCPU), the first time memory.bounds guards, and stays installed for the worker's
// life. While it does not guard, it passes every allocation through to the allocator it replaced; its raw
// deleter frees an address of its arena itself and passes any other to that allocator's raw deleter.
//
// Every guarded allocation is carved, in order, from one arena the process reserves once (PROT_NONE, no
// memory committed): a slot is the allocation's pages plus a guard page after them (END) or before them
// (START). So the guard pages of a call's allocations are known before the call from the sizes a first,
// surveying call allocated (SURVEY: a canary page on both sides, no guard page adjacent): the worker
// names them in its step, and a fault there names "output 0" or "a temporary the kernel allocated" and
// the side, as one in an argument's guard page names the argument. A freed slot is made PROT_NONE (END and
// START), so a use after free faults in the temporary's own pages, which the step names too; in a survey it
// stays mapped and filled with the canary, and a write after free is seen as the canary's damage.
//
// c10's CPU allocator promises 64-byte alignment. START keeps it (the storage starts on a page); END
// keeps it too, so the storage ends up to 63 bytes before the guard page, and those bytes hold a canary
// that is checked when the allocation is freed or the scope ends: a write there is found after the
// call, a read there is not.
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/library.h>

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

constexpr unsigned char kCanary = 0xA5;
constexpr size_t kAlignment = 64;
constexpr int64_t kNoDamage = std::numeric_limits<int64_t>::min();

enum class Mode : int64_t { Survey = 0, End = 1, Start = 2 };

size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The bytes a slot of an allocation of n bytes takes in the arena, in a mode.
size_t slot_size(size_t n, Mode mode) {
  size_t data = round_up(n, page_size());
  return mode == Mode::Survey ? data + 2 * page_size() : data + page_size();
}

// One guarded allocation: its slot, its canary bytes, and the record of its scope it updates.
struct Slot {
  uintptr_t slot;
  size_t size;
  uintptr_t address;
  size_t nbytes;
  uintptr_t canary_from;  // the bytes of the slot that hold the canary: [canary_from, canary_to)
  uintptr_t canary_to;
  uint64_t scope;
  size_t record;
  Mode mode;
};

// One allocation of the current scope, as restore() reports it.
struct Record {
  uintptr_t address;
  size_t nbytes;
  bool live;  // false once freed
  int64_t first_damaged = kNoDamage;  // relative to address: < 0 before the start, >= nbytes past the end
  int64_t last_damaged = kNoDamage;
};

// The bytes of s's canary that changed, relative to its allocation's first byte; with `whole`, the
// allocation's own bytes too (a freed survey slot, filled with the canary when it was freed).
void damage(const Slot& s, int64_t& first, int64_t& last, bool whole = false) {
  const auto* b = reinterpret_cast<const unsigned char*>(s.canary_from);
  size_t n = s.canary_to - s.canary_from;
  size_t from = s.address - s.canary_from;
  size_t to = from + s.nbytes;
  for (size_t i = 0; i < n; ++i) {
    if ((whole || i < from || i >= to) && b[i] != kCanary) {
      int64_t at = static_cast<int64_t>(i) - static_cast<int64_t>(from);
      if (first == kNoDamage) first = at;
      last = at;
    }
  }
}

class GuardedAllocator final : public c10::Allocator {
 public:
  static GuardedAllocator& instance() {
    static auto* one = new GuardedAllocator();  // never destroyed: a DataPtr may outlive static destruction
    return *one;
  }

  c10::DataPtr allocate(size_t n) override {
    if (!guarding_.load(std::memory_order_acquire)) {
      return previous_->allocate(n);  // not guarding: the allocator this one replaced serves it
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (!guarding_.load(std::memory_order_relaxed) || n == 0 || bump_ + slot_size(n, mode_) > arena_ + arena_size_) {
      // nothing to guard, or no room left: the allocator this one replaced serves it, unguarded
      return previous_->allocate(n);
    }
    size_t page = page_size();
    uintptr_t slot = bump_;
    size_t size = slot_size(n, mode_);
    size_t data = round_up(n, page);
    uintptr_t address;
    uintptr_t rw_from;
    uintptr_t rw_to;
    if (mode_ == Mode::End) {
      rw_from = slot;
      rw_to = slot + data;
      address = (rw_to - n) / kAlignment * kAlignment;
    } else if (mode_ == Mode::Start) {
      rw_from = slot + page;
      rw_to = slot + size;
      address = rw_from;
    } else {
      rw_from = slot;
      rw_to = slot + size;
      address = slot + page;
    }
    // the whole slot first: a slot used before in another mode may have had its guard page elsewhere
    if (mprotect(reinterpret_cast<void*>(slot), size, PROT_NONE) != 0 ||
        mprotect(reinterpret_cast<void*>(rw_from), rw_to - rw_from, PROT_READ | PROT_WRITE) != 0) {
      return previous_->allocate(n);
    }
    bump_ += size;
    std::memset(reinterpret_cast<void*>(rw_from), kCanary, rw_to - rw_from);
    // what c10's allocator gives a worker's calls (AllocatorFill.zerosByDefault): zeros
    std::memset(reinterpret_cast<void*>(address), 0, n);
    slots_[address] = Slot{slot, size, address, n, rw_from, rw_to, scope_, records_.size(), mode_};
    records_.push_back(Record{address, n, true});
    // the context is the data pointer, as raw_allocate requires: the deleter finds the slot by address
    auto* p = reinterpret_cast<void*>(address);
    return c10::DataPtr(p, p, &GuardedAllocator::release, c10::Device(c10::kCPU));
  }

  // What raw_deallocate calls, on the CPU allocator current when memory is freed, whichever was current
  // when it was allocated: an address of the arena is freed here, any other by the replaced allocator.
  c10::DeleterFnPtr raw_deleter() const override {
    return &GuardedAllocator::release;
  }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }

  // Starts guarding in `mode` (installing this allocator as the CPU allocator the first time), and returns
  // the arena's range and, for each of `expected` allocations, the guard page and the data pages (four
  // numbers) it will have if the kernel allocates those sizes in that order.
  std::vector<int64_t> install(Mode mode, const std::vector<int64_t>& expected) {
    std::lock_guard<std::mutex> lock(mutex_);
    TORCH_CHECK(!guarding_.load(), "the guarded allocator is already guarding");
    reserve();
    if (previous_ == nullptr) {
      previous_ = c10::GetAllocator(c10::DeviceType::CPU);
      TORCH_CHECK(previous_ != this, "the guarded allocator cannot replace itself");
      c10::SetAllocator(c10::DeviceType::CPU, this, kPriority);
    }
    if (live_ == 0) {
      bump_ = arena_;
    }
    mode_ = mode;
    ++scope_;
    records_.clear();
    std::vector<int64_t> told{static_cast<int64_t>(arena_), static_cast<int64_t>(arena_ + arena_size_)};
    uintptr_t at = bump_;
    size_t page = page_size();
    for (int64_t n : expected) {
      size_t data = round_up(static_cast<size_t>(n), page);
      uintptr_t guard = mode == Mode::End ? at + data : at;
      uintptr_t from = mode == Mode::End ? at : at + page;
      told.insert(told.end(), {static_cast<int64_t>(guard), static_cast<int64_t>(guard + page),
          static_cast<int64_t>(from), static_cast<int64_t>(from + data)});
      at += slot_size(static_cast<size_t>(n), mode);
    }
    guarding_.store(true, std::memory_order_release);
    return told;
  }

  // Stops guarding (the allocator stays installed, passing allocations through) and reports the scope's
  // allocations, five numbers each: address, bytes, the first and the last byte around it that no longer
  // hold the canary (relative to the address; kNoDamage when none), and whether the kernel freed it (a
  // temporary).
  std::vector<int64_t> restore() {
    std::lock_guard<std::mutex> lock(mutex_);
    TORCH_CHECK(guarding_.load(), "the guarded allocator is not guarding");
    guarding_.store(false, std::memory_order_release);
    for (const Slot& s : parked_) {
      // freed in the survey and filled with the canary: any byte changed since was written after the free
      Record& r = records_[s.record];
      damage(s, r.first_damaged, r.last_damaged, true);
    }
    std::vector<int64_t> out;
    for (Record& r : records_) {
      auto live = r.live ? slots_.find(r.address) : slots_.end();
      if (live != slots_.end()) {
        damage(live->second, r.first_damaged, r.last_damaged);
      }
      out.insert(out.end(), {static_cast<int64_t>(r.address), static_cast<int64_t>(r.nbytes), r.first_damaged,
          r.last_damaged, r.live ? 0 : 1});
    }
    // the outputs live on after the scope: their slots no longer report to it
    ++scope_;
    records_.clear();
    for (const Slot& s : parked_) {
      // a survey's freed slots, kept mapped through its call: now they go back
      madvise(reinterpret_cast<void*>(s.slot), s.size, MADV_DONTNEED);
      mprotect(reinterpret_cast<void*>(s.slot), s.size, PROT_NONE);
    }
    parked_.clear();
    return out;
  }

  bool guarding() const {
    return guarding_.load();
  }

  bool owns(const void* p) const {
    auto a = reinterpret_cast<uintptr_t>(p);
    return a >= arena_ && a < arena_ + arena_size_;
  }

 private:
  // above c10's default CPU allocator's 0, so SetAllocator takes it
  static constexpr uint8_t kPriority = 200;

  void reserve() {
    if (arena_ != 0) {
      return;
    }
    // the address space only: PROT_NONE and MAP_NORESERVE commit no memory
    for (size_t size : {size_t(1) << 36, size_t(1) << 33, size_t(1) << 30}) {
      void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p != MAP_FAILED) {
        arena_ = reinterpret_cast<uintptr_t>(p);
        arena_size_ = size;
        bump_ = arena_;
        return;
      }
    }
    TORCH_CHECK(false, "cannot reserve address space for guarded allocations (mmap of 1 GiB PROT_NONE failed)");
  }

  // The deleter of every guarded DataPtr, and the raw deleter: frees by address.
  static void release(void* p) {
    GuardedAllocator& a = instance();
    if (!a.owns(p)) {
      // raw-allocated by the allocator this one replaced (before this one was installed, or while it was
      // passing allocations through): that allocator's raw deleter frees it
      c10::DeleterFnPtr theirs = a.previous_ == nullptr ? nullptr : a.previous_->raw_deleter();
      TORCH_CHECK(theirs != nullptr, "the CPU allocator the guarded allocator replaced has no raw deleter");
      theirs(p);
      return;
    }
    std::lock_guard<std::mutex> lock(a.mutex_);
    auto it = a.slots_.find(reinterpret_cast<uintptr_t>(p));
    if (it == a.slots_.end()) {
      return;  // not a live allocation's first byte: a second free, which faulting would hide behind
    }
    Slot s = it->second;
    a.slots_.erase(it);
    bool current = s.scope == a.scope_ && s.record < a.records_.size();
    if (current) {
      Record& r = a.records_[s.record];
      damage(s, r.first_damaged, r.last_damaged);
      r.live = false;
    }
    --a.live_;
    if (current && s.mode == Mode::Survey && a.guarding_.load()) {
      // kept mapped, its bytes the canary, until the scope ends: a write after free shows as damage then
      std::memset(reinterpret_cast<void*>(s.canary_from), kCanary, s.canary_to - s.canary_from);
      a.parked_.push_back(s);
      return;
    }
    // the pages go back to the system (they read as zeros when the slot is used again); the slot is
    // left PROT_NONE so a use after free faults instead of reading stale bytes
    madvise(reinterpret_cast<void*>(s.slot), s.size, MADV_DONTNEED);
    mprotect(reinterpret_cast<void*>(s.slot), s.size, PROT_NONE);
  }

  std::mutex mutex_;
  std::atomic<bool> guarding_{false};
  c10::Allocator* previous_ = nullptr;
  Mode mode_ = Mode::End;
  uintptr_t arena_ = 0;
  size_t arena_size_ = 0;
  uintptr_t bump_ = 0;
  uint64_t scope_ = 0;
  int64_t live_ = 0;
  std::vector<Record> records_;
  std::unordered_map<uintptr_t, Slot> slots_;
  std::vector<Slot> parked_;
};

// `expected`: the sizes in bytes, in order, that the call is expected to allocate, separated by spaces (a
// str rather than an int[]: the JavaCPP presets give Java no easy way to build an int list IValue).
std::vector<int64_t> guarded_allocator_install(int64_t mode, c10::string_view expected) {
  TORCH_CHECK(mode >= 0 && mode <= 2, "mode must be 0 (survey), 1 (end) or 2 (start), not ", mode);
  std::vector<int64_t> sizes;
  std::istringstream in{std::string(expected)};
  for (int64_t n; in >> n;) {
    TORCH_CHECK(n >= 0, "a size cannot be negative: ", n);
    sizes.push_back(n);
  }
  return GuardedAllocator::instance().install(static_cast<Mode>(mode), sizes);
}

std::vector<int64_t> guarded_allocator_restore() { return GuardedAllocator::instance().restore(); }

// The capability's own self-test: an allocation through the CPU allocator lands in the arena, against its
// guard page, and its canary and zeros are as promised; once it stops guarding, allocations pass through to
// the allocator it replaced; memory raw-allocated while it guards is raw-deallocated after, and memory
// raw-allocated before while it guards. Returns 1, or raises saying what did not hold.
int64_t guarded_allocator_self_test() {
  GuardedAllocator& guarded = GuardedAllocator::instance();
  TORCH_CHECK(!guarded.guarding(), "the guarded allocator is guarding already");
  // raw memory of the allocator in place before the guarded one (on the first run, c10's own)
  void* before = c10::GetAllocator(c10::DeviceType::CPU)->raw_allocate(48);
  std::vector<int64_t> told = guarded_allocator_install(1, "100");
  bool inside;
  bool aligned;
  bool against;
  bool zeros = true;
  void* raw = nullptr;
  {
    c10::DataPtr p = c10::GetAllocator(c10::DeviceType::CPU)->allocate(100);
    auto a = reinterpret_cast<uintptr_t>(p.get());
    inside = static_cast<int64_t>(a) >= told[0] && static_cast<int64_t>(a) < told[1];
    aligned = a % kAlignment == 0;
    against = static_cast<int64_t>(a + 100) <= told[2] && static_cast<int64_t>(a + 100 + kAlignment) > told[2];
    for (int i = 0; i < 100; ++i) zeros = zeros && static_cast<const unsigned char*>(p.get())[i] == 0;
    static_cast<unsigned char*>(p.get())[100] = 0;  // one byte past the end, in the canary
    raw = c10::GetAllocator(c10::DeviceType::CPU)->raw_allocate(24);
    c10::GetAllocator(c10::DeviceType::CPU)->raw_deallocate(before);
  }
  std::vector<int64_t> records = guarded_allocator_restore();
  c10::Allocator* now = c10::GetAllocator(c10::DeviceType::CPU);
  TORCH_CHECK(now == &guarded, "the guarded allocator is not the CPU allocator after its first use");
  TORCH_CHECK(inside, "the allocation is not in the arena");
  TORCH_CHECK(aligned, "the allocation is not 64-byte aligned");
  TORCH_CHECK(against, "the allocation does not end within 64 bytes of the guard page told");
  TORCH_CHECK(zeros, "the allocation is not zero-filled");
  TORCH_CHECK(records.size() == 10 && records[2] == 100 && records[3] == 100 && records[4] == 1,
      "the byte written past the end was not reported as the canary's damage");
  TORCH_CHECK(guarded.owns(raw), "raw_allocate while guarding did not give guarded memory");
  now->raw_deallocate(raw);
  c10::DataPtr passed = now->allocate(100);
  TORCH_CHECK(!guarded.owns(passed.get()), "an allocation after guarding ended was guarded");
  TORCH_CHECK(now->is_simple_data_ptr(passed), "an allocation passed through is not a simple data pointer");
  c10::DataPtr copy = now->clone(passed.get(), 100);
  TORCH_CHECK(copy.get() != nullptr && !guarded.owns(copy.get()), "clone() after guarding ended was guarded");
  return 1;
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opcheck4j, m) {
  m.def("guarded_allocator_install(int mode, str expected) -> int[]", &guarded_allocator_install);
  m.def("guarded_allocator_restore() -> int[]", &guarded_allocator_restore);
  m.def("guarded_allocator_self_test() -> int", &guarded_allocator_self_test);
}
