// The tracing tensor of the trace.* checks (issue 42): what a C++ kernel sees of a FakeTensor with symbolic
// sizes under torch.compile(dynamic=True) / opcheck's test_aot_dispatch_dynamic, without Python.
//
// - Node: a c10::SymNodeImpl carrying a concrete hint and an expression ("s0", "(s0*s1)"), or an unbacked
//   symbol ("u0": a size that depends on data, which has no hint). Every guard on it is logged; a guard on
//   an unbacked expression raises as PyTorch's GuardOnDataDependentSymNode does.
// - SymbolicImpl: a TensorImpl whose sizes and strides are such SymInts (dims of size 0 and 1 stay static,
//   as ShapeEnv specialises them; equal sizes share one symbol, as its duck sizing does). It reports the
//   device it is given (the device under test for a CompositeImplicitAutograd kernel, meta for a Meta
//   kernel: FakeTensor says meta inside a kernel invocation), has no storage (a data access raises
//   FakeTensor's message), and follows c10/core/TensorImpl.h + torch/_subclasses/fake_tensor.py for the
//   accessors: numel() and storage_offset() raise "Cannot call ... on tensor with symbolic sizes/strides";
//   sizes(), size(d), strides() (stride(d)) return the hints and log a guard, as fake_tensor.py's
//   _DISPATCH_META_HANDLERS do (int(s) on each SymInt).
// - A boxed fallback at TESTING_ONLY_GenericWrapper (a key libtorch registers nothing at) sees every call on
//   such a tensor: the outermost call (the op under test) goes on below it with the symbolic tensors; a call
//   the kernel makes (aten::mul, aten::nonzero, ...) runs on the concrete meta tensors inside, and its
//   outputs come back symbolic (a size equal to a symbol's hint is that symbol). An op tagged
//   dynamic_output_shape gives unbacked sizes; one tagged data_dependent_output (item()) raises.
//
// Operators (schemas are part of the companion's contract; trace_selftest checks them at load):
//   opcheck4j::trace_begin() -> ()
//   opcheck4j::trace_symbolic(Tensor inner, str name, int dims, str device) -> Tensor  (dims: a bit per dim)
//   opcheck4j::trace_report() -> str          (one line per event: kind, text, where; tab-separated)
//   opcheck4j::trace_sizes(Tensor t) -> str   (its sizes' expressions and hints, "?" for an unbacked one)
//   opcheck4j::trace_selftest() -> str   ("" when the runtime agrees with this file, else why not)
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/SymNodeImpl.h>
#include <c10/core/TensorImpl.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/library.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr const char* kDataMessage =
    "Cannot access data pointer of Tensor (e.g. FakeTensor, FunctionalTensor). If you're using "
    "torch.compile/export/fx, it is likely that we are erroneously tracing into a custom kernel";
// Sizes given to the concrete meta tensor behind an unbacked dimension: far from any generated size, so a
// size equal to one is that symbol.
constexpr int64_t kUnbackedBase = 7919;

// One trace on this thread: its log (one line per event, tab-separated) and its symbols.
struct Trace {
  std::vector<std::string> events;
  std::vector<std::pair<int64_t, c10::SymInt>> symbols;  // concrete size -> symbol (backed and unbacked)
  int next_backed = 0;
  int next_unbacked = 0;
  int depth = 0;
};

Trace& trace() {
  thread_local Trace t;
  return t;
}

void log(const std::string& kind, const std::string& text, const std::string& where) {
  trace().events.push_back(kind + "\t" + text + "\t" + where);
}

std::string at_line(const char* file, int64_t line) {
  std::string f = file == nullptr ? "?" : file;
  auto slash = f.find_last_of('/');
  return (slash == std::string::npos ? f : f.substr(slash + 1)) + ":" + std::to_string(line);
}

class Node final : public c10::SymNodeImpl {
 public:
  enum class Kind { Int, Bool };

  Node(Kind kind, std::string expr, int64_t hint, bool unbacked, bool constant)
      : kind_(kind), expr_(std::move(expr)), hint_(hint), unbacked_(unbacked), constant_(constant),
        lower_(constant ? hint : unbacked ? 0 : kUnknown) {}
  Node(Kind kind, std::string expr, int64_t hint, bool unbacked, bool constant, int64_t lower)
      : kind_(kind), expr_(std::move(expr)), hint_(hint), unbacked_(unbacked), constant_(constant), lower_(lower) {}

  static constexpr int64_t kUnknown = std::numeric_limits<int64_t>::min();

  static c10::SymNode constant(Kind kind, int64_t v) {
    std::string e = kind == Kind::Bool ? (v ? "True" : "False") : std::to_string(v);
    return c10::make_intrusive<Node>(kind, e, v, false, true);
  }

  bool is_int() override { return kind_ == Kind::Int; }
  bool is_bool() override { return kind_ == Kind::Bool; }
  bool is_float() override { return false; }
  bool has_hint() override { return !unbacked_; }
  std::string str() override { return expr_; }
  bool is_constant() override { return constant_; }
  bool is_symbolic() override { return !constant_; }
  std::optional<int64_t> constant_int() override {
    return constant_ && kind_ == Kind::Int ? std::optional<int64_t>(hint_) : std::nullopt;
  }
  std::optional<bool> constant_bool() override {
    return constant_ && kind_ == Kind::Bool ? std::optional<bool>(hint_ != 0) : std::nullopt;
  }
  std::optional<int64_t> maybe_as_int() override { return constant_int(); }
  c10::SymNode clone() override { return c10::make_intrusive<Node>(kind_, expr_, hint_, unbacked_, constant_, lower_); }
  c10::SymNode wrap_int(int64_t num) override { return constant(Kind::Int, num); }
  c10::SymNode wrap_bool(bool num) override { return constant(Kind::Bool, num); }

  c10::SymNode add(const c10::SymNode& o) override { return bin(o, "+", Kind::Int, std::plus<int64_t>()); }
  c10::SymNode sub(const c10::SymNode& o) override { return bin(o, "-", Kind::Int, std::minus<int64_t>()); }
  c10::SymNode mul(const c10::SymNode& o) override { return bin(o, "*", Kind::Int, std::multiplies<int64_t>()); }
  c10::SymNode floordiv(const c10::SymNode& o) override {
    return bin(o, "//", Kind::Int, [](int64_t a, int64_t b) { return b == 0 ? 0 : a / b; });
  }
  c10::SymNode int_floordiv(const c10::SymNode& o) override { return floordiv(o); }
  c10::SymNode mod(const c10::SymNode& o) override {
    return bin(o, "%", Kind::Int, [](int64_t a, int64_t b) { return b == 0 ? 0 : a % b; });
  }
  // A comparison with a constant that the symbols' ranges decide (a size is >= 0; a backed one, which
  // ShapeEnv made symbolic because it was not 0 or 1, is >= 2) is no guard, as ShapeEnv's value ranges
  // decide it statically.
  c10::SymNode eq(const c10::SymNode& o) override { return known(o, 0).value_or(bin(o, "==", Kind::Bool, std::equal_to<int64_t>())); }
  c10::SymNode ne(const c10::SymNode& o) override { return known(o, 1).value_or(bin(o, "!=", Kind::Bool, std::not_equal_to<int64_t>())); }
  c10::SymNode gt(const c10::SymNode& o) override { return known(o, 2).value_or(bin(o, ">", Kind::Bool, std::greater<int64_t>())); }
  c10::SymNode lt(const c10::SymNode& o) override { return known(o, 3).value_or(bin(o, "<", Kind::Bool, std::less<int64_t>())); }
  c10::SymNode le(const c10::SymNode& o) override { return known(o, 4).value_or(bin(o, "<=", Kind::Bool, std::less_equal<int64_t>())); }
  c10::SymNode ge(const c10::SymNode& o) override { return known(o, 5).value_or(bin(o, ">=", Kind::Bool, std::greater_equal<int64_t>())); }
  c10::SymNode sym_min(const c10::SymNode& o) override {
    return call2(o, "Min", Kind::Int, [](int64_t a, int64_t b) { return std::min(a, b); });
  }
  c10::SymNode sym_max(const c10::SymNode& o) override {
    return call2(o, "Max", Kind::Int, [](int64_t a, int64_t b) { return std::max(a, b); });
  }
  c10::SymNode sym_and(const c10::SymNode& o) override {
    return bin(o, "&", Kind::Bool, [](int64_t a, int64_t b) { return static_cast<int64_t>(a && b); });
  }
  c10::SymNode sym_or(const c10::SymNode& o) override {
    return bin(o, "|", Kind::Bool, [](int64_t a, int64_t b) { return static_cast<int64_t>(a || b); });
  }
  c10::SymNode sym_not() override {
    return c10::make_intrusive<Node>(Kind::Bool, constant_ ? (hint_ ? "False" : "True") : "~" + expr_, !hint_, unbacked_, constant_);
  }
  c10::SymNode neg() override {
    return c10::make_intrusive<Node>(kind_, constant_ ? std::to_string(-hint_) : "-" + expr_, -hint_, unbacked_, constant_);
  }
  c10::SymNode sym_ite(const c10::SymNode& then_val, const c10::SymNode& else_val) override {
    auto* t = as(then_val);
    auto* e = as(else_val);
    bool unbacked = unbacked_ || t->unbacked_ || e->unbacked_;
    bool constant = constant_ && t->constant_ && e->constant_;
    int64_t h = hint_ ? t->hint_ : e->hint_;
    return c10::make_intrusive<Node>(t->kind_, constant ? std::to_string(h)
        : "ITE(" + expr_ + ", " + t->expr_ + ", " + e->expr_ + ")", h, unbacked, constant);
  }

  // Layout predicates, evaluated on the hints (SymbolicShapeMeta asks the node for them).
  c10::SymNode is_contiguous(c10::ArrayRef<c10::SymNode> sizes, c10::ArrayRef<c10::SymNode> strides) override {
    return layout("is_contiguous", sizes, strides, contiguous_order(sizes.size()));
  }
  c10::SymNode is_channels_last_contiguous_2d(c10::ArrayRef<c10::SymNode> sizes, c10::ArrayRef<c10::SymNode> strides) override {
    return layout("is_channels_last_contiguous_2d", sizes, strides, sizes.size() == 4 ? std::vector<size_t>{1, 3, 2, 0} : std::vector<size_t>{});
  }
  c10::SymNode is_channels_last_contiguous_3d(c10::ArrayRef<c10::SymNode> sizes, c10::ArrayRef<c10::SymNode> strides) override {
    return layout("is_channels_last_contiguous_3d", sizes, strides, sizes.size() == 5 ? std::vector<size_t>{1, 4, 3, 2, 0} : std::vector<size_t>{});
  }
  c10::SymNode is_channels_last_strides_2d(c10::ArrayRef<c10::SymNode> sizes, c10::ArrayRef<c10::SymNode> strides) override {
    return is_channels_last_contiguous_2d(sizes, strides);
  }
  c10::SymNode is_channels_last_strides_3d(c10::ArrayRef<c10::SymNode> sizes, c10::ArrayRef<c10::SymNode> strides) override {
    return is_channels_last_contiguous_3d(sizes, strides);
  }
  c10::SymNode is_non_overlapping_and_dense(c10::ArrayRef<c10::SymNode> sizes, c10::ArrayRef<c10::SymNode> strides) override {
    std::vector<size_t> order(sizes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return as(strides[a])->hint_ < as(strides[b])->hint_; });
    return layout("is_non_overlapping_and_dense", sizes, strides, order);
  }

  int64_t guard_int(const char* file, int64_t line) override {
    if (constant_) return hint_;
    if (unbacked_) {
      data_dependent("Could not extract specialized integer from data-dependent expression " + expr_, file, line);
    }
    log("guard", "Eq(" + expr_ + ", " + std::to_string(hint_) + ")", at_line(file, line));
    return hint_;
  }
  bool guard_bool(const char* file, int64_t line) override {
    if (constant_) return hint_ != 0;
    if (unbacked_) {
      data_dependent("Could not guard on data-dependent expression " + expr_, file, line);
    }
    log("guard", std::string(hint_ ? "" : "Not(") + expr_ + (hint_ ? "" : ")"), at_line(file, line));
    return hint_ != 0;
  }
  // What ShapeEnv answers without a guard when the expression is data-dependent.
  bool guard_size_oblivious(const char* file, int64_t line) override { return unbacked_ ? false : guard_bool(file, line); }
  bool guard_or_false(const char* file, int64_t line) override { return unbacked_ ? false : guard_bool(file, line); }
  bool guard_or_true(const char* file, int64_t line) override { return unbacked_ ? true : guard_bool(file, line); }
  bool statically_known_true(const char* file, int64_t line) override { return constant_ && hint_ != 0; }
  bool expect_true(const char* file, int64_t line) override { return unbacked_ ? true : guard_bool(file, line); }
  int64_t int_() override { return guard_int(__FILE__, __LINE__); }
  bool bool_() override { return guard_bool(__FILE__, __LINE__); }

  Kind kind_;
  std::string expr_;
  int64_t hint_;
  bool unbacked_;
  bool constant_;
  int64_t lower_;  // a lower bound of the value, or kUnknown

  static Node* as(const c10::SymNode& n) {
    auto* p = dynamic_cast<Node*>(n.get());
    TORCH_CHECK(p != nullptr, "opcheck4j: a symbolic size met a SymNode that is not opcheck4j's");
    return p;
  }

 private:
  [[noreturn]] static void data_dependent(const std::string& what, const char* file, int64_t line) {
    log("data-dependent", what, at_line(file, line));
    TORCH_CHECK(false, "GuardOnDataDependentSymNode: ", what,
                " (opcheck4j: the kernel branches on a size that depends on the input's values)");
  }

  // op: 0 ==, 1 !=, 2 >, 3 <, 4 <=, 5 >=; decided when this is symbolic, the other a constant c and lower_ > c
  // (or >= c for >= and <).
  std::optional<c10::SymNode> known(const c10::SymNode& o, int op) {
    Node* b = as(o);
    if (constant_ || !b->constant_ || lower_ == kUnknown) return std::nullopt;
    int64_t c = b->hint_;
    switch (op) {
      case 0: if (lower_ > c) return constant(Kind::Bool, 0); break;
      case 1: if (lower_ > c) return constant(Kind::Bool, 1); break;
      case 2: if (lower_ > c) return constant(Kind::Bool, 1); break;
      case 3: if (lower_ >= c) return constant(Kind::Bool, 0); break;
      case 4: if (lower_ > c) return constant(Kind::Bool, 0); break;
      case 5: if (lower_ >= c) return constant(Kind::Bool, 1); break;
    }
    return std::nullopt;
  }

  template <class F>
  c10::SymNode bin(const c10::SymNode& o, const char* op, Kind kind, F f) {
    Node* b = as(o);
    bool constant = constant_ && b->constant_;
    bool unbacked = unbacked_ || b->unbacked_;
    int64_t h = f(hint_, b->hint_);
    std::string mine = expr_;
    std::string theirs = b->expr_;
    if (!constant && kind == Kind::Int) {
      // keep guards readable: x*1, x+0, 1*x, 0+x are x
      if ((std::string(op) == "*" && b->constant_ && b->hint_ == 1) || (std::string(op) == "+" && b->constant_ && b->hint_ == 0) ||
          (std::string(op) == "-" && b->constant_ && b->hint_ == 0)) {
        return clone();
      }
      if ((std::string(op) == "*" && constant_ && hint_ == 1) || (std::string(op) == "+" && constant_ && hint_ == 0)) {
        return b->clone();
      }
    }
    std::string e = constant ? (kind == Kind::Bool ? (h ? "True" : "False") : std::to_string(h))
                             : (std::string(op) == "*" ? mine + "*" + theirs : "(" + mine + " " + op + " " + theirs + ")");
    int64_t lower = kUnknown;
    if (constant) {
      lower = h;
    } else if (kind == Kind::Int && lower_ != kUnknown && b->lower_ != kUnknown && lower_ >= 0 && b->lower_ >= 0 &&
               (std::string(op) == "*" || std::string(op) == "+")) {
      lower = std::string(op) == "*" ? lower_ * b->lower_ : lower_ + b->lower_;
    }
    return c10::make_intrusive<Node>(kind, e, h, unbacked, constant, lower);
  }

  template <class F>
  c10::SymNode call2(const c10::SymNode& o, const char* name, Kind kind, F f) {
    Node* b = as(o);
    bool constant = constant_ && b->constant_;
    int64_t h = f(hint_, b->hint_);
    return c10::make_intrusive<Node>(kind, constant ? std::to_string(h) : std::string(name) + "(" + expr_ + ", " + b->expr_ + ")", h,
                                     unbacked_ || b->unbacked_, constant);
  }

  static std::vector<size_t> contiguous_order(size_t n) {
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = n - 1 - i;
    return order;
  }

  // Whether the strides are dense in `order` (innermost first), on the hints; size-1 dims are ignored.
  static c10::SymNode layout(const char* name, c10::ArrayRef<c10::SymNode> sizes, c10::ArrayRef<c10::SymNode> strides,
                             const std::vector<size_t>& order) {
    bool ok = !order.empty() || sizes.empty();
    bool symbolic = false;
    int64_t numel = 1;
    for (const auto& s : sizes) {
      numel *= as(s)->hint_;
      symbolic = symbolic || !as(s)->constant_;
    }
    int64_t expected = 1;
    for (size_t d : order) {
      int64_t size = as(sizes[d])->hint_;
      if (size == 1) continue;
      if (as(strides[d])->hint_ != expected) ok = false;
      expected *= size;
    }
    if (numel == 0) ok = true;
    return c10::make_intrusive<Node>(Kind::Bool, std::string(name) + "(...)", ok ? 1 : 0, false, !symbolic);
  }
};

c10::SymInt backed_symbol(int64_t hint) {
  Trace& t = trace();
  for (const auto& [h, s] : t.symbols) {
    if (h == hint) return s;
  }
  c10::SymInt s(c10::SymNode(c10::make_intrusive<Node>(Node::Kind::Int, "s" + std::to_string(t.next_backed++), hint, false, false, 2)));
  t.symbols.emplace_back(hint, s);
  return s;
}

// The symbol a size of an output stands for: the one whose concrete size it equals, else none (static).
std::optional<c10::SymInt> symbol_of(int64_t size) {
  for (const auto& [h, s] : trace().symbols) {
    if (h == size) return s;
  }
  return std::nullopt;
}

bool is_unbacked(const c10::SymInt& s) {
  if (!s.is_heap_allocated()) return false;
  auto* n = dynamic_cast<Node*>(s.toSymNodeImplUnowned());
  return n != nullptr && n->unbacked_;
}

int64_t hint_of(const c10::SymInt& s) {
  if (!s.is_heap_allocated()) return s.as_int_unchecked();
  return Node::as(c10::SymNode(s.toSymNode()))->hint_;
}

class SymbolicImpl final : public c10::TensorImpl {
 public:
  SymbolicImpl(at::Tensor inner, std::string name, c10::Device reported, const std::vector<c10::SymInt>& sizes)
      : c10::TensorImpl(c10::DispatchKeySet(c10::DispatchKey::TESTING_ONLY_GenericWrapper) | c10::DispatchKeySet(c10::DispatchKey::Meta),
                        inner.dtype(), reported),
        inner_(std::move(inner)),
        name_(std::move(name)),
        hint_sizes_(inner_.sizes().vec()),
        hint_strides_(inner_.strides().vec()) {
    set_symbolic(sizes);
    release_storage_and_set_meta_custom_data_ptr_error_msg_(
        std::string(kDataMessage) + " (opcheck4j: a data access on " + name_ + " while tracing)");
  }

  const at::Tensor& inner() const { return inner_; }
  const std::string& name() const { return name_; }

  // After a call changed the inner tensor's sizes or strides in place (aten::t_, an op tagged inplace_view).
  void refresh(const std::vector<c10::SymInt>& sizes) {
    hint_sizes_ = inner_.sizes().vec();
    hint_strides_ = inner_.strides().vec();
    set_symbolic(sizes);
  }

 private:
  void set_symbolic(const std::vector<c10::SymInt>& sizes) {
    // strides in terms of the symbolic sizes where the inner tensor is dense in some order
    std::vector<size_t> order(hint_sizes_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return hint_strides_[a] < hint_strides_[b]; });
    std::vector<c10::SymInt> strides(hint_sizes_.size());
    c10::SymInt running(1);
    int64_t running_hint = 1;
    for (size_t d : order) {
      if (hint_strides_[d] == running_hint) {
        strides[d] = running;
      } else {
        strides[d] = c10::SymInt(hint_strides_[d]);
        running = c10::SymInt(hint_strides_[d]);
        running_hint = hint_strides_[d];
      }
      running = running * sizes[d];
      running_hint *= hint_sizes_[d];
    }
    set_sizes_and_strides(sizes, strides, c10::SymInt(inner_.storage_offset()));
  }

 protected:
  c10::IntArrayRef sizes_custom() const override {
    for (int64_t d = 0; d < static_cast<int64_t>(hint_sizes_.size()); ++d) guard_size(d, "sizes()");
    return hint_sizes_;
  }
  int64_t size_custom(int64_t d) const override {
    guard_size(d, "size(" + std::to_string(d) + ")");
    return hint_sizes_[d];
  }
  c10::IntArrayRef strides_custom() const override {
    const auto& strides = sym_strides_default();
    for (size_t d = 0; d < strides.size(); ++d) {
      if (strides[d].is_heap_allocated()) guard(strides[d], "strides()");
    }
    return hint_strides_;
  }
  int64_t numel_custom() const override { refuse("numel"); }
  int64_t storage_offset_custom() const override { refuse("storage_offset"); }

 private:
  [[noreturn]] void refuse(const char* accessor) const {
    log("symbolic-call", std::string(accessor) + "()", name_);
    TORCH_CHECK(false, "Cannot call ", accessor, "() on tensor with symbolic sizes/strides (opcheck4j: on ", name_, ")");
  }
  void guard_size(int64_t d, const std::string& accessor) const {
    const auto& s = sym_sizes_default()[d];
    if (s.is_heap_allocated()) guard(s, accessor);
  }
  void guard(const c10::SymInt& s, const std::string& accessor) const {
    auto* n = Node::as(c10::SymNode(s.toSymNode()));
    if (n->constant_) return;
    if (n->unbacked_) {
      log("data-dependent", "Could not extract specialized integer from data-dependent expression " + n->expr_,
          accessor + " on " + name_);
      TORCH_CHECK(false, "GuardOnDataDependentSymNode: Could not extract specialized integer from data-dependent expression ",
                  n->expr_, " (opcheck4j: ", accessor, " on ", name_, ", a size that depends on the input's values)");
    }
    log("guard", "Eq(" + n->expr_ + ", " + std::to_string(n->hint_) + ")", accessor + " on " + name_);
  }

  at::Tensor inner_;
  std::string name_;
  std::vector<int64_t> hint_sizes_;
  std::vector<int64_t> hint_strides_;
};

SymbolicImpl* symbolic(const at::Tensor& t) {
  return t.defined() ? dynamic_cast<SymbolicImpl*>(t.unsafeGetTensorImpl()) : nullptr;
}

at::Tensor wrap(at::Tensor inner, std::string name, c10::Device reported, const std::vector<c10::SymInt>& sizes) {
  return at::Tensor(c10::make_intrusive<SymbolicImpl>(std::move(inner), std::move(name), reported, sizes));
}

// An output of a call the kernel made: symbolic where a size equals a symbol's concrete size.
at::Tensor rewrap(const at::Tensor& out, const std::string& name, c10::Device reported) {
  if (!out.defined()) return out;
  at::Tensor inner = out.is_meta() ? out : out.to(at::kMeta);
  std::vector<c10::SymInt> sizes;
  for (int64_t s : inner.sizes()) {
    auto sym = s >= 2 ? symbol_of(s) : std::nullopt;
    sizes.push_back(sym ? *sym : c10::SymInt(s));
  }
  return wrap(inner, name, reported, sizes);
}

struct Depth {
  Depth() { ++trace().depth; }
  ~Depth() { --trace().depth; }
};

// Concrete copies of the meta arguments on the cpu, filled by `fill` (0 zeros, 1 ones, 2 counting).
std::vector<c10::IValue> filled(const std::vector<c10::IValue>& args, int fill) {
  std::vector<c10::IValue> out;
  for (const auto& v : args) {
    if (v.isTensor() && v.toTensor().defined()) {
      const at::Tensor& t = v.toTensor();
      auto opts = at::TensorOptions().dtype(t.scalar_type()).device(at::kCPU);
      at::Tensor c = fill == 0 ? at::zeros(t.sizes(), opts) : fill == 1 ? at::ones(t.sizes(), opts)
                                                                      : at::arange(t.numel(), at::kDouble).reshape(t.sizes()).to(t.scalar_type());
      out.emplace_back(c);
    } else {
      out.push_back(v);
    }
  }
  return out;
}

// A call whose output sizes depend on the input's values (tagged dynamic_output_shape: nonzero,
// masked_select, unique, ...): run it on the cpu on zeros, ones and counting values; each output size that
// differs among them is data-dependent and gets an unbacked symbol, as the op's fake implementation gives.
std::vector<c10::IValue> dynamic_outputs(const c10::OperatorHandle& op, const std::vector<c10::IValue>& args, c10::Device reported) {
  std::vector<std::vector<c10::IValue>> runs;
  for (int fill = 0; fill < 3; ++fill) {
    torch::jit::Stack s = filled(args, fill);
    op.callBoxed(&s);
    runs.push_back(s);
  }
  std::vector<c10::IValue> outs;
  for (size_t i = 0; i < runs[0].size(); ++i) {
    if (!runs[0][i].isTensor()) {
      outs.push_back(runs[0][i]);
      continue;
    }
    at::Tensor r = runs[2][i].toTensor();
    std::vector<c10::SymInt> sizes;
    std::vector<int64_t> inner_sizes;
    for (int64_t d = 0; d < r.dim(); ++d) {
      bool varies = runs[0][i].toTensor().size(d) != r.size(d) || runs[1][i].toTensor().size(d) != r.size(d);
      if (varies) {
        Trace& t = trace();
        int64_t placeholder = kUnbackedBase + t.next_unbacked;
        c10::SymInt u(c10::SymNode(c10::make_intrusive<Node>(Node::Kind::Int, "u" + std::to_string(t.next_unbacked++), placeholder, true, false)));
        t.symbols.emplace_back(placeholder, u);
        sizes.push_back(u);
        inner_sizes.push_back(placeholder);
      } else {
        auto sym = r.size(d) >= 2 ? symbol_of(r.size(d)) : std::nullopt;
        sizes.push_back(sym ? *sym : c10::SymInt(r.size(d)));
        inner_sizes.push_back(r.size(d));
      }
    }
    at::Tensor inner = at::empty(inner_sizes, r.options().device(at::kMeta));
    outs.emplace_back(wrap(inner, "the output of " + op.schema().name(), reported, sizes));
  }
  return outs;
}

// A SymInt argument (or a list of them) as its concrete size, the hint, which the concrete meta tensors
// inside have; whether there was one.
// A symbolic size passed to a call (reshape_symint({s0*s1})) is remembered by its hint, so an output of
// that size is that expression again.
void remember(const c10::SymInt& s) {
  if (!s.is_heap_allocated() || hint_of(s) < 2 || symbol_of(hint_of(s))) return;
  trace().symbols.emplace_back(hint_of(s), s);
}

bool concretize(c10::IValue& v) {
  if (v.isSymInt()) {
    remember(v.toSymInt());
    v = c10::IValue(hint_of(v.toSymInt()));
    return true;
  }
  if (v.isList()) {
    auto list = v.toListRef();
    bool any = std::any_of(list.begin(), list.end(), [](const c10::IValue& e) { return e.isSymInt(); });
    if (!any) return false;
    std::vector<int64_t> ints;
    for (const auto& e : list) {
      if (e.isSymInt()) remember(e.toSymInt());
      ints.push_back(e.isSymInt() ? hint_of(e.toSymInt()) : e.toInt());
    }
    v = c10::IValue(ints);
    return true;
  }
  return false;
}

// The mode every call of the traced kernel goes through first (TESTING_ONLY_GenericMode, set while the op
// under test runs), as FakeTensorMode sees every call: a call with symbolic sizes but no symbolic tensor (a
// factory: at::empty_symint, at::zeros_symint) runs on meta with the hints, and its outputs come back
// symbolic, reporting the device it was asked for. Anything else goes on to the symbolic tensors' own key.
void mode_fallback(const c10::OperatorHandle& op, c10::DispatchKeySet ks, torch::jit::Stack* stack) {
  const auto& schema = op.schema();
  size_t nargs = schema.arguments().size();
  bool symbolic_tensor = false;
  bool symbolic_int = false;
  for (auto it = stack->end() - nargs; it != stack->end(); ++it) {
    if (it->isTensor()) symbolic_tensor = symbolic_tensor || symbolic(it->toTensor()) != nullptr;
    if (it->isTensorList()) {
      for (const auto& t : it->toTensorList()) symbolic_tensor = symbolic_tensor || symbolic(t) != nullptr;
    }
    if (it->isSymInt()) symbolic_int = true;
    if (it->isList()) {
      for (const auto& e : it->toListRef()) symbolic_int = symbolic_int || e.isSymInt();
    }
  }
  if (symbolic_tensor || !symbolic_int) {
    op.redispatchBoxed(ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::TESTING_ONLY_GenericMode), stack);
    return;
  }
  c10::Device reported(at::kCPU);
  for (size_t i = 0; i < nargs; ++i) {
    auto& v = (*stack)[stack->size() - nargs + i];
    concretize(v);
    if (v.isDevice()) {
      reported = v.toDevice();
      v = c10::IValue(c10::Device(at::kMeta));
    }
  }
  {
    c10::impl::ExcludeDispatchKeyGuard plain(
        c10::DispatchKeySet(c10::DispatchKey::TESTING_ONLY_GenericMode) | c10::DispatchKeySet(c10::DispatchKey::TESTING_ONLY_GenericWrapper));
    op.callBoxed(stack);
  }
  for (auto it = stack->end() - schema.returns().size(); it != stack->end(); ++it) {
    if (it->isTensor()) *it = rewrap(it->toTensor(), "the output of " + schema.name(), reported);
  }
}

void fallback(const c10::OperatorHandle& op, c10::DispatchKeySet ks, torch::jit::Stack* stack) {
  if (trace().depth == 0) {
    // the op under test (or one of opcheck4j's): its kernel gets the symbolic tensors, and the mode sees
    // every call it makes
    Depth d;
    c10::impl::IncludeDispatchKeyGuard mode(c10::DispatchKey::TESTING_ONLY_GenericMode);
    op.redispatchBoxed(ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::TESTING_ONLY_GenericWrapper), stack);
    return;
  }
  // a call the kernel makes on symbolic tensors: run it on the concrete meta tensors inside
  const auto& schema = op.schema();
  size_t nargs = schema.arguments().size();
  std::vector<c10::IValue> args(stack->end() - nargs, stack->end());
  stack->erase(stack->end() - nargs, stack->end());
  c10::Device reported(at::kMeta);
  std::vector<std::pair<c10::TensorImpl*, at::Tensor>> inputs;  // inner -> its symbolic tensor
  auto unwrap = [&](const at::Tensor& t) -> at::Tensor {
    if (auto* s = symbolic(t)) {
      reported = s->device();
      inputs.emplace_back(s->inner().unsafeGetTensorImpl(), t);
      return s->inner();
    }
    return t.defined() && !t.is_meta() ? t.to(at::kMeta) : t;
  };
  for (auto& v : args) {
    concretize(v);
    if (v.isTensor()) {
      v = unwrap(v.toTensor());
    } else if (v.isTensorList()) {
      auto list = v.toTensorList();
      for (size_t i = 0; i < list.size(); ++i) list.set(i, unwrap(list.get(i)));
      v = list;
    }
  }
  std::string who = "the output of " + schema.name();
  if (op.hasTag(at::Tag::data_dependent_output)) {
    std::string what = "Could not guard on data-dependent expression: " + schema.name() + " reads the values of a tensor";
    log("data-dependent", what, schema.name());
    TORCH_CHECK(false, "GuardOnDataDependentSymNode: ", what, " (opcheck4j: the kernel reads a value of its input while tracing)");
  }
  c10::impl::ExcludeDispatchKeyGuard no_wrapper(
      c10::DispatchKeySet(c10::DispatchKey::TESTING_ONLY_GenericMode) | c10::DispatchKeySet(c10::DispatchKey::TESTING_ONLY_GenericWrapper));
  std::vector<c10::IValue> outs;
  if (op.hasTag(at::Tag::dynamic_output_shape)) {
    outs = dynamic_outputs(op, args, reported);
  } else {
    torch::jit::Stack s(args.begin(), args.end());
    op.callBoxed(&s);
    for (auto& v : s) {
      if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        auto same = std::find_if(inputs.begin(), inputs.end(), [&](const auto& p) { return p.first == t.unsafeGetTensorImpl(); });
        if (same != inputs.end() && op.hasTag(at::Tag::inplace_view)) {
          std::vector<c10::SymInt> sizes;
          for (int64_t n : t.sizes()) {
            auto sym = n >= 2 ? symbol_of(n) : std::nullopt;
            sizes.push_back(sym ? *sym : c10::SymInt(n));
          }
          symbolic(same->second)->refresh(sizes);
        }
        v = same != inputs.end() ? same->second : rewrap(t, who, reported);
      } else if (v.isTensorList()) {
        auto list = v.toTensorList();
        for (size_t i = 0; i < list.size(); ++i) list.set(i, rewrap(list.get(i), who, reported));
        v = list;
      }
      outs.push_back(v);
    }
  }
  for (auto& v : outs) stack->push_back(std::move(v));
}

void trace_begin() {
  Trace& t = trace();
  t.events.clear();
  t.symbols.clear();
  t.next_backed = 0;
  t.next_unbacked = 0;
  t.depth = 0;
}

at::Tensor trace_symbolic(const at::Tensor& inner, std::string name, int64_t dims, std::string device) {
  TORCH_CHECK(inner.is_meta(), "opcheck4j::trace_symbolic takes a meta tensor");
  std::vector<c10::SymInt> sizes;
  for (int64_t d = 0; d < inner.dim(); ++d) {
    int64_t s = inner.size(d);
    bool chosen = d < 63 && ((dims >> d) & 1) != 0;
    sizes.push_back(chosen && s >= 2 ? backed_symbol(s) : c10::SymInt(s));
  }
  return wrap(inner, "argument '" + name + "'", c10::Device(device), sizes);
}

std::string describe(const at::Tensor& t) {
  if (!t.defined()) return "undefined\t";
  std::ostringstream exprs, hints;
  auto sizes = symbolic(t) != nullptr ? t.unsafeGetTensorImpl()->sym_sizes() : t.sym_sizes();
  for (size_t d = 0; d < sizes.size(); ++d) {
    exprs << (d ? "," : "") << (sizes[d].is_heap_allocated() ? sizes[d].toSymNodeImplUnowned()->str() : std::to_string(sizes[d].as_int_unchecked()));
    hints << (d ? "," : "") << (is_unbacked(sizes[d]) ? std::string("?") : std::to_string(hint_of(sizes[d])));
  }
  return exprs.str() + "\t" + hints.str();
}

std::string trace_report() {
  std::ostringstream out;
  for (const auto& e : trace().events) out << e << "\n";
  return out.str();
}

std::string trace_sizes(const at::Tensor& t) { return describe(t); }

// Builds a symbolic tensor and reads it back through the runtime's own TensorImpl and SymInt code: the
// vtable, the sizes/strides policy and the fallback key must all behave as this file expects.
std::string trace_selftest() {
  try {
    trace_begin();
    at::Tensor x = trace_symbolic(at::empty({2, 3}, at::TensorOptions().device(at::kMeta)), "x", 3, "cpu");
    auto sizes = x.sym_sizes();
    if (sizes.size() != 2 || !sizes[0].is_heap_allocated() || sizes[0].toSymNodeImplUnowned()->str() != "s0" ||
        sizes[1].toSymNodeImplUnowned()->str() != "s1" || hint_of(sizes[0]) != 2 || hint_of(sizes[1]) != 3) {
      return "sym_sizes() of a symbolic [2, 3] tensor did not read back as [s0, s1] with hints [2, 3]";
    }
    if (!x.is_cpu()) return "a symbolic tensor made to report the cpu says it is not on the cpu";
    bool raised = false;
    try {
      (void)x.numel();
    } catch (const c10::Error& e) {
      raised = std::string(e.what()).find("Cannot call numel()") != std::string::npos;
    }
    if (!raised) return "numel() on a symbolic tensor did not raise \"Cannot call numel() on tensor with symbolic sizes/strides\"";
    if (x.sizes().vec() != std::vector<int64_t>{2, 3}) return "sizes() of a symbolic [2, 3] tensor did not return the hints [2, 3]";
    size_t guards = std::count_if(trace().events.begin(), trace().events.end(), [](const std::string& e) { return e.rfind("guard\t", 0) == 0; });
    if (guards != 2) return "sizes() on a symbolic [2, 3] tensor logged " + std::to_string(guards) + " guards, 2 expected";
    at::Tensor y;
    {
      Depth d;  // as if a kernel called aten::mul
      y = x * 2;
    }
    if (symbolic(y) == nullptr || describe(y) != "s0,s1\t2,3") {
      return "aten::mul on a symbolic tensor did not return one with sizes [s0, s1] (" + describe(y) + ")";
    }
    trace_begin();
    return "";
  } catch (const std::exception& e) {
    trace_begin();
    std::string what = e.what();
    return "building a symbolic tensor raised: " + what.substr(0, what.find('\n'));
  }
}

}  // namespace

TORCH_LIBRARY_FRAGMENT(opcheck4j, m) {
  m.def("trace_begin() -> ()", &trace_begin);
  m.def("trace_symbolic(Tensor inner, str name, int dims, str device) -> Tensor", &trace_symbolic);
  m.def("trace_report() -> str", &trace_report);
  m.def("trace_sizes(Tensor t) -> str", &trace_sizes);
  m.def("trace_selftest() -> str", &trace_selftest);
}

TORCH_LIBRARY_IMPL(_, TESTING_ONLY_GenericWrapper, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&fallback>());
}

TORCH_LIBRARY_IMPL(_, TESTING_ONLY_GenericMode, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&mode_fallback>());
}
