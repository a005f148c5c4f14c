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
#include <c10/core/WrapDimMinimal.h>
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

// Which values the symbols take. A call the kernel makes runs on concrete meta tensors twice: with the
// hints, and with every symbol moved by a shift of its own (SHIFTED). An output size that moves with them
// was computed from symbolic sizes and is symbolic, as FakeTensor's meta functions keep it a SymInt; one
// that stays put came from ints the kernel passed (sizes() it read: the hints after a guard, its own
// arguments) and is concrete, as a tensor FakeTensor builds from ints is. When the shifted call raises (the
// ints it was given pin a symbol), it runs once more with the symbols the kernel has guarded kept at their
// hints (FREE), as ShapeEnv replaces a guarded symbol by its value.
enum class Pass { HINT, SHIFTED, FREE };

// A symbol of the trace: backed (a size of an argument), unbacked (a size that depends on data), or derived
// (an output size that moved with the symbols but is no expression of them that Node can name).
struct Symbol {
  std::string name;
  int64_t hint;
  int64_t shift;
  bool unbacked;
  int64_t lower;
  bool specialized = false;
};

// One trace on this thread: its log (one line per event, tab-separated) and its symbols.
struct Trace {
  std::vector<std::string> events;
  std::vector<Symbol> symbols;
  std::vector<c10::SymInt> named;  // expressions seen (a symbol, or a SymInt a call was given), to name sizes by
  int next_backed = 0;
  int next_unbacked = 0;
  int next_derived = 0;
  int depth = 0;
  std::vector<std::string> within;  // the custom ops the traced kernel called, innermost last
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

// Symbol i's shift: 64 * 3^i, so that a size that is a sum of symbols with coefficients 0, 1 or 2 (plus a
// constant) is named from how far it moved; from the tenth symbol on, shifts no longer tell sums apart.
int64_t shift_of(size_t i) {
  int64_t s = 64;
  for (size_t k = 0; k < std::min<size_t>(i, 9); ++k) s *= 3;
  return s + static_cast<int64_t>(i >= 9 ? i : 0);
}

int64_t symbol_value(size_t i, Pass pass) {
  const auto& symbols = trace().symbols;
  if (i >= symbols.size()) return 0;
  const Symbol& s = symbols[i];
  if (pass == Pass::HINT || (pass == Pass::FREE && s.specialized)) return s.hint;
  return s.hint + s.shift;
}

enum class Op { Leaf, Add, Sub, Mul, FloorDiv, Mod, Min, Max, Neg, Eq, Ne, Gt, Lt, Le, Ge, And, Or, Not, Ite };

int64_t apply(Op op, int64_t a, int64_t b) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::FloorDiv: return b == 0 ? 0 : a / b;
    case Op::Mod: return b == 0 ? 0 : a % b;
    case Op::Min: return std::min(a, b);
    case Op::Max: return std::max(a, b);
    case Op::Neg: return -a;
    case Op::Eq: return a == b;
    case Op::Ne: return a != b;
    case Op::Gt: return a > b;
    case Op::Lt: return a < b;
    case Op::Le: return a <= b;
    case Op::Ge: return a >= b;
    case Op::And: return a && b;
    case Op::Or: return a || b;
    case Op::Not: return !a;
    default: return a;
  }
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

  // A leaf: symbol i of the trace.
  static c10::SymNode symbol(size_t i) {
    const Symbol& s = trace().symbols[i];
    auto n = c10::make_intrusive<Node>(Kind::Int, s.name, s.hint, s.unbacked, false, s.lower);
    n->symbol_ = static_cast<int64_t>(i);
    return n;
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
  c10::SymNode clone() override {
    auto n = c10::make_intrusive<Node>(kind_, expr_, hint_, unbacked_, constant_, lower_);
    n->symbol_ = symbol_;
    n->op_ = op_;
    n->args_ = args_;
    return n;
  }
  c10::SymNode wrap_int(int64_t num) override { return constant(Kind::Int, num); }
  c10::SymNode wrap_bool(bool num) override { return constant(Kind::Bool, num); }

  c10::SymNode add(const c10::SymNode& o) override { return bin(o, "+", Kind::Int, Op::Add); }
  c10::SymNode sub(const c10::SymNode& o) override { return bin(o, "-", Kind::Int, Op::Sub); }
  c10::SymNode mul(const c10::SymNode& o) override { return bin(o, "*", Kind::Int, Op::Mul); }
  c10::SymNode floordiv(const c10::SymNode& o) override { return bin(o, "//", Kind::Int, Op::FloorDiv); }
  c10::SymNode int_floordiv(const c10::SymNode& o) override { return floordiv(o); }
  c10::SymNode mod(const c10::SymNode& o) override { return bin(o, "%", Kind::Int, Op::Mod); }
  // A comparison with a constant that the symbols' ranges decide (a size is >= 0; a backed one, which
  // ShapeEnv made symbolic because it was not 0 or 1, is >= 2), or of an expression with itself, is no
  // guard, as ShapeEnv decides it statically.
  c10::SymNode eq(const c10::SymNode& o) override { return known(o, 0).value_or(bin(o, "==", Kind::Bool, Op::Eq)); }
  c10::SymNode ne(const c10::SymNode& o) override { return known(o, 1).value_or(bin(o, "!=", Kind::Bool, Op::Ne)); }
  c10::SymNode gt(const c10::SymNode& o) override { return known(o, 2).value_or(bin(o, ">", Kind::Bool, Op::Gt)); }
  c10::SymNode lt(const c10::SymNode& o) override { return known(o, 3).value_or(bin(o, "<", Kind::Bool, Op::Lt)); }
  c10::SymNode le(const c10::SymNode& o) override { return known(o, 4).value_or(bin(o, "<=", Kind::Bool, Op::Le)); }
  c10::SymNode ge(const c10::SymNode& o) override { return known(o, 5).value_or(bin(o, ">=", Kind::Bool, Op::Ge)); }
  c10::SymNode sym_min(const c10::SymNode& o) override { return call2(o, "Min", Op::Min); }
  c10::SymNode sym_max(const c10::SymNode& o) override { return call2(o, "Max", Op::Max); }
  c10::SymNode sym_and(const c10::SymNode& o) override { return bin(o, "&", Kind::Bool, Op::And); }
  c10::SymNode sym_or(const c10::SymNode& o) override { return bin(o, "|", Kind::Bool, Op::Or); }
  c10::SymNode sym_not() override {
    return unary(Kind::Bool, constant_ ? (hint_ ? "False" : "True") : "~" + expr_, !hint_, Op::Not);
  }
  c10::SymNode neg() override {
    return unary(kind_, constant_ ? std::to_string(-hint_) : "-" + expr_, -hint_, Op::Neg);
  }
  c10::SymNode sym_ite(const c10::SymNode& then_val, const c10::SymNode& else_val) override {
    auto* t = as(then_val);
    auto* e = as(else_val);
    bool unbacked = unbacked_ || t->unbacked_ || e->unbacked_;
    bool constant = constant_ && t->constant_ && e->constant_;
    int64_t h = hint_ ? t->hint_ : e->hint_;
    auto n = c10::make_intrusive<Node>(t->kind_, constant ? std::to_string(h)
        : "ITE(" + expr_ + ", " + t->expr_ + ", " + e->expr_ + ")", h, unbacked, constant);
    n->op_ = Op::Ite;
    n->args_ = {c10::SymNode(c10::intrusive_ptr<c10::SymNodeImpl>::reclaim_copy(this)), then_val, else_val};
    return n;
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
    guarded(at_line(file, line));
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

  // Logs the guard Eq(this, hint); a symbol guarded to its hint is specialized (ShapeEnv replaces it).
  void guarded(const std::string& where) {
    log("guard", "Eq(" + expr_ + ", " + std::to_string(hint_) + ")", where);
    if (symbol_ >= 0 && static_cast<size_t>(symbol_) < trace().symbols.size()) {
      trace().symbols[symbol_].specialized = true;
    }
  }

  // The value under `pass`: the hint, or what the expression gives with the symbols moved.
  int64_t eval(Pass pass) const {
    if (pass == Pass::HINT || constant_) return hint_;
    if (op_ == Op::Leaf) return symbol_ >= 0 ? symbol_value(static_cast<size_t>(symbol_), pass) : hint_;
    if (op_ == Op::Ite) return as(args_[0])->eval(pass) ? as(args_[1])->eval(pass) : as(args_[2])->eval(pass);
    int64_t a = as(args_[0])->eval(pass);
    return args_.size() > 1 ? apply(op_, a, as(args_[1])->eval(pass)) : apply(op_, a, 0);
  }

  Kind kind_;
  std::string expr_;
  int64_t hint_;
  bool unbacked_;
  bool constant_;
  int64_t lower_;  // a lower bound of the value, or kUnknown
  int64_t symbol_ = -1;  // the trace's symbol a leaf stands for
  Op op_ = Op::Leaf;
  std::vector<c10::SymNode> args_;

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

  c10::SymNode self() { return c10::SymNode(c10::intrusive_ptr<c10::SymNodeImpl>::reclaim_copy(this)); }

  c10::SymNode unary(Kind kind, std::string expr, int64_t h, Op op) {
    auto n = c10::make_intrusive<Node>(kind, std::move(expr), h, unbacked_, constant_);
    if (!constant_) {
      n->op_ = op;
      n->args_ = {self()};
    }
    return n;
  }

  // op: 0 ==, 1 !=, 2 >, 3 <, 4 <=, 5 >=; decided when this is symbolic, the other a constant c and lower_ > c
  // (or >= c for >= and <).
  std::optional<c10::SymNode> known(const c10::SymNode& o, int op) {
    Node* b = as(o);
    if (!constant_ && !b->constant_ && expr_ == b->expr_) {
      // an expression compared with itself (sym_size(0) == sym_size(0) of one tensor): ShapeEnv simplifies it
      // to a constant, no guard
      return constant(Kind::Bool, op == 0 || op == 4 || op == 5 ? 1 : 0);
    }
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

  c10::SymNode bin(const c10::SymNode& o, const char* op, Kind kind, Op code) {
    Node* b = as(o);
    bool constant = constant_ && b->constant_;
    bool unbacked = unbacked_ || b->unbacked_;
    int64_t h = apply(code, hint_, b->hint_);
    std::string mine = expr_;
    std::string theirs = b->expr_;
    if (!constant && kind == Kind::Int) {
      // keep guards readable: x*1, x+0, 1*x, 0+x are x
      if ((code == Op::Mul && b->constant_ && b->hint_ == 1) || (code == Op::Add && b->constant_ && b->hint_ == 0) ||
          (code == Op::Sub && b->constant_ && b->hint_ == 0)) {
        return clone();
      }
      if ((code == Op::Mul && constant_ && hint_ == 1) || (code == Op::Add && constant_ && hint_ == 0)) {
        return b->clone();
      }
    }
    std::string e = constant ? (kind == Kind::Bool ? (h ? "True" : "False") : std::to_string(h))
                             : (code == Op::Mul ? mine + "*" + theirs : "(" + mine + " " + op + " " + theirs + ")");
    int64_t lower = kUnknown;
    if (constant) {
      lower = h;
    } else if (kind == Kind::Int && lower_ != kUnknown && b->lower_ != kUnknown && lower_ >= 0 && b->lower_ >= 0 &&
               (code == Op::Mul || code == Op::Add)) {
      lower = code == Op::Mul ? lower_ * b->lower_ : lower_ + b->lower_;
    }
    auto n = c10::make_intrusive<Node>(kind, e, h, unbacked, constant, lower);
    if (!constant) {
      n->op_ = code;
      n->args_ = {self(), o};
    }
    return n;
  }

  c10::SymNode call2(const c10::SymNode& o, const char* name, Op code) {
    Node* b = as(o);
    bool constant = constant_ && b->constant_;
    int64_t h = apply(code, hint_, b->hint_);
    auto n = c10::make_intrusive<Node>(Kind::Int, constant ? std::to_string(h) : std::string(name) + "(" + expr_ + ", " + b->expr_ + ")", h,
                                       unbacked_ || b->unbacked_, constant);
    if (!constant) {
      n->op_ = code;
      n->args_ = {self(), o};
    }
    return n;
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

// A new symbol of the trace, named by `prefix` and its number, as a SymInt.
c10::SymInt new_symbol(const std::string& name, int64_t hint, int64_t shift, bool unbacked, int64_t lower) {
  Trace& t = trace();
  t.symbols.push_back(Symbol{name, hint, shift, unbacked, lower});
  c10::SymInt s(Node::symbol(t.symbols.size() - 1));
  t.named.push_back(s);
  return s;
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

int64_t value_of(const c10::SymInt& s, Pass pass) {
  if (!s.is_heap_allocated()) return s.as_int_unchecked();
  return Node::as(c10::SymNode(s.toSymNode()))->eval(pass);
}

c10::SymInt backed_symbol(int64_t hint) {
  Trace& t = trace();
  for (const auto& s : t.named) {
    auto* n = Node::as(c10::SymNode(s.toSymNode()));
    if (n->op_ == Op::Leaf && !n->unbacked_ && n->hint_ == hint && n->expr_[0] == 's') return s;
  }
  std::string name = "s" + std::to_string(t.next_backed++);
  return new_symbol(name, hint, shift_of(t.symbols.size()), false, 2);
}

// The size of an output dim that is `hint` with the symbols' hints and `moved` with them shifted: concrete
// when it did not move; else the expression it is (a symbol or size seen before, a product of two symbols,
// or a sum of symbols with coefficients 0-2 plus a constant, told by how far it moved), else a new symbol.
c10::SymInt size_of(int64_t hint, int64_t moved) {
  if (hint == moved) return c10::SymInt(hint);
  Trace& t = trace();
  for (const auto& s : t.named) {
    if (hint_of(s) == hint && value_of(s, Pass::SHIFTED) == moved) return s;
  }
  size_t n = t.symbols.size();
  std::vector<c10::SymInt> leaves;
  for (size_t i = 0; i < n; ++i) leaves.emplace_back(Node::symbol(i));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i; j < n; ++j) {
      if (symbol_value(i, Pass::HINT) * symbol_value(j, Pass::HINT) == hint &&
          symbol_value(i, Pass::SHIFTED) * symbol_value(j, Pass::SHIFTED) == moved) {
        c10::SymInt p = leaves[i] * leaves[j];
        t.named.push_back(p);
        return p;
      }
    }
  }
  int64_t delta = moved - hint;
  // symbols with the base-3 shifts (backed and unbacked ones; a derived symbol's shift is its own)
  bool decodable = delta > 0 && n <= 9;
  std::vector<int64_t> coefficient(n, 0);
  for (size_t i = n; decodable && i-- > 0;) {
    if (t.symbols[i].shift != shift_of(i)) {
      continue;
    }
    coefficient[i] = delta / shift_of(i);
    delta -= coefficient[i] * shift_of(i);
    decodable = coefficient[i] <= 2;
  }
  if (decodable && delta == 0) {
    c10::SymInt e(0);
    int64_t rest = hint;
    for (size_t i = 0; i < n; ++i) {
      for (int64_t c = 0; c < coefficient[i]; ++c) e = e + leaves[i];
      rest -= coefficient[i] * t.symbols[i].hint;
    }
    e = rest >= 0 ? e + rest : e - (-rest);
    t.named.push_back(e);
    return e;
  }
  return new_symbol("d" + std::to_string(t.next_derived++), hint, moved - hint, false, Node::kUnknown);
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

  // The inner tensor as it would be with the symbols' values of `pass`: a concrete meta tensor.
  at::Tensor concrete(Pass pass) const {
    if (pass == Pass::HINT) return inner_;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;
    for (const auto& v : sym_sizes_default()) sizes.push_back(value_of(v, pass));
    for (const auto& v : sym_strides_default()) strides.push_back(value_of(v, pass));
    int64_t offset = inner_.storage_offset();
    if (offset == 0) return at::empty_strided(sizes, strides, inner_.options());
    int64_t extent = offset + 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] == 0) {
        extent = offset;
        break;
      }
      extent += (sizes[d] - 1) * strides[d];
    }
    return at::empty({extent}, inner_.options()).as_strided(sizes, strides, offset);
  }

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
    std::string accessor = "size(" + std::to_string(d) + ")";
    d = c10::maybe_wrap_dim(d, static_cast<int64_t>(hint_sizes_.size()), /*wrap_scalar=*/false);  // size(-2), as the default does
    guard_size(d, accessor);
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
    n->guarded(accessor + " on " + name_);
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

// An output of a call the kernel made, `hint` with the symbols' hints and `moved` (if it could be made) with
// them shifted: symbolic where its sizes moved with them (size_of).
at::Tensor rewrap(const at::Tensor& hint, const at::Tensor* moved, const std::string& name, c10::Device reported) {
  if (!hint.defined()) return hint;
  at::Tensor inner = hint.is_meta() ? hint : hint.to(at::kMeta);
  bool comparable = moved != nullptr && moved->defined() && moved->dim() == hint.dim();
  std::vector<c10::SymInt> sizes;
  for (int64_t d = 0; d < inner.dim(); ++d) {
    sizes.push_back(size_of(inner.size(d), comparable ? moved->size(d) : inner.size(d)));
  }
  return wrap(inner, name, reported, sizes);
}

struct Depth {
  Depth() { ++trace().depth; }
  ~Depth() { --trace().depth; }
};

// A SymInt a call is given (reshape_symint({s0*s1})) is remembered, so an output of that size is that
// expression again.
void remember(const c10::SymInt& s) {
  if (!s.is_heap_allocated() || Node::as(c10::SymNode(s.toSymNode()))->constant_) return;
  int64_t h = hint_of(s);
  int64_t m = value_of(s, Pass::SHIFTED);
  auto& named = trace().named;
  bool seen = std::any_of(named.begin(), named.end(), [&](const c10::SymInt& n) {
    return hint_of(n) == h && value_of(n, Pass::SHIFTED) == m;
  });
  if (!seen) named.push_back(s);
}

at::Tensor concrete(const at::Tensor& t, Pass pass) {
  if (auto* s = symbolic(t)) return s->concrete(pass);
  return t.defined() && !t.is_meta() ? t.to(at::kMeta) : t;
}

// An argument with the symbols' values of `pass`: symbolic tensors as concrete meta tensors, SymInts as ints.
c10::IValue concrete(const c10::IValue& v, Pass pass) {
  if (v.isSymInt()) {
    if (pass == Pass::HINT) remember(v.toSymInt());
    return c10::IValue(value_of(v.toSymInt(), pass));
  }
  if (v.isTensor()) return c10::IValue(concrete(v.toTensor(), pass));
  if (v.isTensorList()) {
    auto list = v.toTensorList().copy();
    for (size_t i = 0; i < list.size(); ++i) list.set(i, concrete(list.get(i), pass));
    return c10::IValue(list);
  }
  if (v.isList()) {
    auto elements = v.toListRef();
    bool symints = std::any_of(elements.begin(), elements.end(), [](const c10::IValue& e) { return e.isSymInt(); });
    if (symints) {
      std::vector<int64_t> ints;
      for (const auto& e : elements) {
        if (e.isSymInt() && pass == Pass::HINT) remember(e.toSymInt());
        ints.push_back(e.isSymInt() ? value_of(e.toSymInt(), pass) : e.toInt());
      }
      return c10::IValue(ints);
    }
    bool tensors = std::any_of(elements.begin(), elements.end(), [](const c10::IValue& e) { return e.isTensor(); });
    if (tensors) {
      auto list = v.toList().copy();
      for (size_t i = 0; i < list.size(); ++i) list.set(i, concrete(list.get(i), pass));
      return c10::IValue(list);
    }
  }
  return v;
}

bool any_specialized() {
  const auto& symbols = trace().symbols;
  return std::any_of(symbols.begin(), symbols.end(), [](const Symbol& s) { return s.specialized; });
}

// `op` on `args` (symbolic ones as concrete meta tensors) with the symbols moved: SHIFTED, else FREE (the
// ints the kernel passed pinned a symbol it had read), else nothing (the outputs are taken as concrete).
std::optional<torch::jit::Stack> moved_call(const c10::OperatorHandle& op, const std::vector<c10::IValue>& args) {
  for (Pass pass : {Pass::SHIFTED, Pass::FREE}) {
    if (pass == Pass::FREE && !any_specialized()) break;
    try {
      torch::jit::Stack s;
      for (const auto& v : args) s.push_back(concrete(v, pass));
      op.callBoxed(&s);
      return s;
    } catch (const std::exception&) {
      // sizes the shifted symbols cannot have: try the next pass
    }
  }
  return std::nullopt;
}

// How an output of `op` is named in the log: with the custom op that made the call, if any.
std::string output_name(const c10::OperatorHandle& op) {
  const auto& within = trace().within;
  return "the output of " + op.schema().name() + (within.empty() ? "" : " (called by " + within.back() + ")");
}

// The outputs of a call: each tensor the input it returns (an in-place or out= call), else rewrapped.
void rewrap_outputs(torch::jit::Stack& outs, const std::optional<torch::jit::Stack>& moved,
                    const std::vector<std::pair<c10::TensorImpl*, at::Tensor>>& inputs, const c10::OperatorHandle& op,
                    c10::Device reported) {
  std::string who = output_name(op);
  for (size_t i = 0; i < outs.size(); ++i) {
    auto& v = outs[i];
    const c10::IValue* m = moved && i < moved->size() ? &(*moved)[i] : nullptr;
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      at::Tensor mt = m != nullptr && m->isTensor() ? m->toTensor() : at::Tensor();
      auto same = std::find_if(inputs.begin(), inputs.end(), [&](const auto& p) { return p.first == t.unsafeGetTensorImpl(); });
      if (same != inputs.end()) {
        if (op.hasTag(at::Tag::inplace_view)) {
          std::vector<c10::SymInt> sizes;
          for (int64_t d = 0; d < t.dim(); ++d) {
            sizes.push_back(size_of(t.size(d), mt.defined() && mt.dim() == t.dim() ? mt.size(d) : t.size(d)));
          }
          symbolic(same->second)->refresh(sizes);
        }
        v = same->second;
      } else {
        v = rewrap(t, mt.defined() ? &mt : nullptr, who, reported);
      }
    } else if (v.isTensorList()) {
      auto list = v.toTensorList();
      auto mlist = m != nullptr && m->isTensorList() ? m->toTensorList() : c10::List<at::Tensor>();
      for (size_t k = 0; k < list.size(); ++k) {
        at::Tensor mk = k < mlist.size() ? mlist.get(k) : at::Tensor();
        list.set(k, rewrap(list.get(k), mk.defined() ? &mk : nullptr, who, reported));
      }
      v = list;
    }
  }
}

// Concrete copies of the arguments on the cpu, with the symbols' values of `pass`, filled by `fill` (0
// zeros, 1 ones, 2 counting).
std::vector<c10::IValue> filled(const std::vector<c10::IValue>& args, int fill, Pass pass) {
  std::vector<c10::IValue> out;
  for (const auto& v : args) {
    if (v.isTensor() && v.toTensor().defined()) {
      const at::Tensor t = concrete(v.toTensor(), pass);
      auto opts = at::TensorOptions().dtype(t.scalar_type()).device(at::kCPU);
      at::Tensor c = fill == 0 ? at::zeros(t.sizes(), opts) : fill == 1 ? at::ones(t.sizes(), opts)
                                                                      : at::arange(t.numel(), at::kDouble).reshape(t.sizes()).to(t.scalar_type());
      out.emplace_back(c);
    } else {
      out.push_back(concrete(v, pass));
    }
  }
  return out;
}

// Elements of the tensor arguments with the symbols shifted: a dynamic call on the cpu is made that large
// only when it is small enough.
int64_t moved_elements(const std::vector<c10::IValue>& args) {
  int64_t total = 0;
  for (const auto& v : args) {
    if (v.isTensor() && v.toTensor().defined()) total += concrete(v.toTensor(), Pass::SHIFTED).numel();
  }
  return total;
}

// A call whose output sizes depend on the input's values (tagged dynamic_output_shape: nonzero,
// masked_select, unique, ...): run it on the cpu on zeros, ones and counting values; each output size that
// differs among them is data-dependent and gets an unbacked symbol, as the op's fake implementation gives.
// The others are symbolic where they move with the symbols (a counting call with them shifted).
std::vector<c10::IValue> dynamic_outputs(const c10::OperatorHandle& op, const std::vector<c10::IValue>& args, c10::Device reported) {
  std::vector<std::vector<c10::IValue>> runs;
  for (int fill = 0; fill < 3; ++fill) {
    torch::jit::Stack s = filled(args, fill, Pass::HINT);
    op.callBoxed(&s);
    runs.push_back(s);
  }
  std::optional<torch::jit::Stack> moved;
  if (moved_elements(args) <= (int64_t{1} << 22)) {
    try {
      torch::jit::Stack s = filled(args, 2, Pass::SHIFTED);
      op.callBoxed(&s);
      moved = s;
    } catch (const std::exception&) {
    }
  }
  std::vector<c10::IValue> outs;
  for (size_t i = 0; i < runs[0].size(); ++i) {
    if (!runs[0][i].isTensor()) {
      outs.push_back(runs[0][i]);
      continue;
    }
    at::Tensor r = runs[2][i].toTensor();
    at::Tensor m = moved && i < moved->size() && (*moved)[i].isTensor() ? (*moved)[i].toTensor() : at::Tensor();
    std::vector<c10::SymInt> sizes;
    std::vector<int64_t> inner_sizes;
    for (int64_t d = 0; d < r.dim(); ++d) {
      bool varies = runs[0][i].toTensor().size(d) != r.size(d) || runs[1][i].toTensor().size(d) != r.size(d);
      if (varies) {
        Trace& t = trace();
        int64_t placeholder = kUnbackedBase + t.next_unbacked;
        sizes.push_back(new_symbol("u" + std::to_string(t.next_unbacked++), placeholder, shift_of(t.symbols.size()), true, 0));
        inner_sizes.push_back(placeholder);
      } else {
        sizes.push_back(size_of(r.size(d), m.defined() && m.dim() == r.dim() ? m.size(d) : r.size(d)));
        inner_sizes.push_back(r.size(d));
      }
    }
    at::Tensor inner = at::empty(inner_sizes, r.options().device(at::kMeta));
    outs.emplace_back(wrap(inner, output_name(op), reported, sizes));
  }
  return outs;
}

// Whether FakeTensor runs `op` through PyTorch's own meta functions and decompositions (aten and prims ops,
// which keep the sizes they compute symbolic) rather than through the kernels registered for it (a custom
// op's Meta or composite kernel, in C++: what it reads through sizes() is the hint, after a guard).
bool has_symbolic_meta(const c10::OperatorHandle& op) {
  const std::string& name = op.schema().name();
  return name.rfind("aten::", 0) == 0 || name.rfind("prims::", 0) == 0;
}

// The mode every call of the traced kernel goes through first (TESTING_ONLY_GenericMode, set while the op
// under test runs), as FakeTensorMode sees every call: a call with symbolic sizes but no symbolic tensor (a
// factory: at::empty_symint, at::zeros_symint) runs on meta with the hints (and with the symbols moved),
// and its outputs come back symbolic where they moved, reporting the device it was asked for. Anything else
// goes on to the symbolic tensors' own key.
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
      for (const auto& e : it->toListRef()) {
        symbolic_int = symbolic_int || e.isSymInt();
        symbolic_tensor = symbolic_tensor || (e.isTensor() && symbolic(e.toTensor()) != nullptr);
      }
    }
  }
  if (symbolic_tensor || !symbolic_int) {
    op.redispatchBoxed(ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::TESTING_ONLY_GenericMode), stack);
    return;
  }
  c10::Device reported(at::kCPU);
  std::vector<c10::IValue> args(stack->end() - nargs, stack->end());
  stack->erase(stack->end() - nargs, stack->end());
  for (auto& v : args) {
    if (v.isDevice()) {
      reported = v.toDevice();
      v = c10::IValue(c10::Device(at::kMeta));
    }
  }
  c10::impl::ExcludeDispatchKeyGuard plain(
      c10::DispatchKeySet(c10::DispatchKey::TESTING_ONLY_GenericMode) | c10::DispatchKeySet(c10::DispatchKey::TESTING_ONLY_GenericWrapper));
  torch::jit::Stack outs;
  for (const auto& v : args) outs.push_back(concrete(v, Pass::HINT));
  op.callBoxed(&outs);
  rewrap_outputs(outs, moved_call(op, args), {}, op, reported);
  for (auto& v : outs) stack->push_back(std::move(v));
}

void fallback(const c10::OperatorHandle& op, c10::DispatchKeySet ks, torch::jit::Stack* stack) {
  if (trace().depth == 0 || !has_symbolic_meta(op)) {
    // the op under test (or one of opcheck4j's), or a custom op its kernel calls: its kernels get the symbolic
    // tensors, as FakeTensor runs a custom op's Meta or composite kernel on FakeTensors, and the mode sees
    // every call they make
    bool inner = trace().depth > 0;
    Depth d;
    if (inner) trace().within.push_back(op.schema().name());
    c10::impl::IncludeDispatchKeyGuard mode(c10::DispatchKey::TESTING_ONLY_GenericMode);
    try {
      op.redispatchBoxed(ks & c10::DispatchKeySet(c10::DispatchKeySet::FULL_AFTER, c10::DispatchKey::TESTING_ONLY_GenericWrapper), stack);
    } catch (...) {
      if (inner) trace().within.pop_back();
      throw;
    }
    if (inner) trace().within.pop_back();
    return;
  }
  // an aten call the kernel makes on symbolic tensors: run it on the concrete meta tensors inside, and once
  // more with the symbols moved, to tell which output sizes are symbolic
  const auto& schema = op.schema();
  size_t nargs = schema.arguments().size();
  std::vector<c10::IValue> args(stack->end() - nargs, stack->end());
  stack->erase(stack->end() - nargs, stack->end());
  c10::Device reported(at::kMeta);
  std::vector<std::pair<c10::TensorImpl*, at::Tensor>> inputs;  // inner -> its symbolic tensor
  auto note = [&](const at::Tensor& t) {
    if (auto* s = symbolic(t)) {
      reported = s->device();
      inputs.emplace_back(s->inner().unsafeGetTensorImpl(), t);
    }
  };
  for (const auto& v : args) {
    if (v.isTensor()) note(v.toTensor());
    if (v.isTensorList()) {
      for (const auto& t : v.toTensorList()) note(t);
    } else if (v.isList()) {
      for (const auto& e : v.toListRef()) {
        if (e.isTensor()) note(e.toTensor());
      }
    }
  }
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
    torch::jit::Stack s;
    for (const auto& v : args) s.push_back(concrete(v, Pass::HINT));
    op.callBoxed(&s);
    rewrap_outputs(s, moved_call(op, args), inputs, op, reported);
    outs = std::move(s);
  }
  for (auto& v : outs) stack->push_back(std::move(v));
}

void trace_begin() {
  Trace& t = trace();
  t.events.clear();
  t.symbols.clear();
  t.named.clear();
  t.next_backed = 0;
  t.next_unbacked = 0;
  t.next_derived = 0;
  t.depth = 0;
  t.within.clear();
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
    if (x.size(-1) != 3 || x.size(-2) != 2) return "size(-1), size(-2) of a symbolic [2, 3] tensor did not return 3, 2";
    size_t guards = std::count_if(trace().events.begin(), trace().events.end(), [](const std::string& e) { return e.rfind("guard\t", 0) == 0; });
    if (guards != 4) {
      return "sizes(), size(-1) and size(-2) on a symbolic [2, 3] tensor logged " + std::to_string(guards) + " guards, 4 expected";
    }
    size_t before = trace().events.size();
    if (!(x.sym_size(0) == x.sym_size(0)) || trace().events.size() != before) {
      return "a size compared with itself was not decided without a guard";
    }
    at::Tensor y;
    {
      Depth d;  // as if a kernel called aten::mul
      y = x * 2;
    }
    if (symbolic(y) == nullptr || describe(y) != "s0,s1\t2,3") {
      return "aten::mul on a symbolic tensor did not return one with sizes [s0, s1] (" + describe(y) + ")";
    }
    at::Tensor z;
    {
      Depth d;  // as if a kernel sized a new tensor with the ints sizes() gave it
      z = x.new_empty({2, 3});
    }
    if (describe(z) != "2,3\t2,3") {
      return "aten::new_empty with the ints [2, 3] did not return concrete sizes (" + describe(z) + ")";
    }
    at::Tensor w;
    {
      Depth d;
      w = at::cat({x, x}, 1);
    }
    if (describe(w) != "s0,(s1 + s1)\t2,6") {
      return "aten::cat of two [s0, s1] tensors along dim 1 did not return sizes [s0, s1 + s1] (" + describe(w) + ")";
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
