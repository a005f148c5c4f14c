package dev.opcheck4j.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A library of {@code ops} correct operators for {@code ./opcheck bench}, the kinds of its {@link Flavor}
 * in turn, each with one example: its C++ source on the stable ABI ({@code bench_ops.cpp},
 * self-contained so that the same file builds against another libtorch, e.g. real PyTorch's), its spec
 * ({@code bench_ops.json}) and its build.
 */
public record SyntheticLibrary(Path dir, int ops, Flavor flavor) {
  public static final String SOURCE = "bench_ops.cpp";
  public static final String SPEC = "bench_ops.json";
  public static final String LIBRARY = "libbench_ops.so";

  /** Which five kinds the library's ops take, in turn. */
  public enum Flavor {
    /** {@code bench library}: elementwise, in-place, two outputs, row reduction, aten composite. */
    PLAIN("elementwise, in-place, two outputs, row reduction, aten composite"),
    /**
     * {@code bench shapes}: inputs whose shapes must agree, as in most real libraries: the row
     * reduction becomes a matmul-like {@code [m,k] x [k,n]} and the aten composite takes two tensors of
     * one shape ({@code x - y}).
     */
    SHAPES("elementwise, in-place, two outputs, [m,k] x [k,n] matmul, aten composite x - y of one shape"),
    /**
     * {@code bench crashes}: elementwise ops whose kernel kills the process on about one generated input
     * in five (never on the example), unless {@code BENCH_OPS_NO_CRASH} is set in its environment.
     */
    CRASHES("elementwise, crashing on one generated input in five"),
    /**
     * {@code bench shards}: elementwise ops of which three ({@link #HEAVY}) spin on every element, so
     * that they cost about a hundred times a light one; two of the three fall in one shard of four by
     * index, as heavy ops declared side by side do (docs/ci.md, "Shards balanced by time").
     */
    SHARDS("elementwise, three of them (ops 2, 6 and 17) spinning on every element"),
    /**
     * {@code bench composites}: correct, simple ops shaped like most real stable-ABI libraries (issue
     * 52's library of 200 ops): in every five, three of two same-shaped tensors and a scalar with CPU
     * and Meta kernels whose {@code STD_TORCH_CHECK}s ask for a float dtype and one shape (one shares its
     * checks with its Meta kernel, one checks in its Meta kernel only the shapes, and a row reduction only
     * the dimensions of the input it sizes the output from), and two aten composites of two same-shaped tensors
     * and a scalar at CompositeImplicitAutograd. The kernels read their inputs through {@code data_ptr()},
     * the stable ABI's only accessor before 2.10; the spec declares them {@code "differentiable": false}.
     */
    COMPOSITES("x * s + y and x + s * (y - x) and row dot products with CPU and Meta kernels,"
        + " composites x * y + s * x and (x - y) * s");

    public final String describe;

    Flavor(String describe) {
      this.describe = describe;
    }

    List<Kind> kinds() {
      return switch (this) {
        case PLAIN -> List.of(Kind.ELEMENTWISE, Kind.IN_PLACE, Kind.TWO_OUTPUTS, Kind.ROW_REDUCTION, Kind.COMPOSITE);
        case SHAPES -> List.of(Kind.ELEMENTWISE, Kind.IN_PLACE, Kind.TWO_OUTPUTS, Kind.MATMUL, Kind.DIFFERENCE);
        case CRASHES -> List.of(Kind.CRASHING);
        case SHARDS -> List.of(Kind.ELEMENTWISE);
        case COMPOSITES -> List.of(Kind.AXPY, Kind.MIX, Kind.BLEND, Kind.DIFFERENCE, Kind.ROW_DOT);
      };
    }
  }

  /** The ops that spin in a {@link Flavor#SHARDS} library (those of them it has). */
  public static final List<Integer> HEAVY = List.of(2, 6, 17);

  /** The kinds of op, in the order op {@code i} takes kind {@code i % 5} of its flavor. */
  enum Kind {
    ELEMENTWISE("ew", "(Tensor x, float s) -> Tensor", "[ {\"tensor\": [4, 3]}, 1.5 ]", "CPU"),
    IN_PLACE("inplace", "(Tensor(a!) x, float s) -> ()", "[ {\"tensor\": [4, 3]}, 0.5 ]", "CPU"),
    TWO_OUTPUTS("pair", "(Tensor x) -> (Tensor, Tensor)", "[ {\"tensor\": [3, 4]} ]", "CPU"),
    ROW_REDUCTION("rowsum", "(Tensor x) -> Tensor", "[ {\"tensor\": [4, 5]} ]", "CPU"),
    COMPOSITE("comp", "(Tensor x, float s) -> Tensor",
        "[ {\"tensor\": [3, 3], \"dtype\": \"float64\", \"requires_grad\": true}, 2.0 ]", "CompositeImplicitAutograd"),
    MATMUL("mm", "(Tensor a, Tensor b) -> Tensor", "[ {\"tensor\": [3, 4]}, {\"tensor\": [4, 5]} ]", "CPU"),
    DIFFERENCE("diff", "(Tensor x, Tensor y, float s) -> Tensor",
        "[ {\"tensor\": [3, 3], \"dtype\": \"float64\", \"requires_grad\": true},"
            + " {\"tensor\": [3, 3], \"dtype\": \"float64\", \"requires_grad\": true}, 2.0 ]",
        "CompositeImplicitAutograd"),
    AXPY("axpy", "(Tensor x, Tensor y, float s) -> Tensor", "[ {\"tensor\": [4, 3]}, {\"tensor\": [4, 3]}, 1.5 ]", "CPU"),
    MIX("mix", "(Tensor x, Tensor y, float s) -> Tensor",
        "[ {\"tensor\": [3, 3], \"dtype\": \"float64\", \"requires_grad\": true},"
            + " {\"tensor\": [3, 3], \"dtype\": \"float64\", \"requires_grad\": true}, 0.5 ]",
        "CompositeImplicitAutograd"),
    BLEND("blend", "(Tensor x, Tensor y, float s) -> Tensor", "[ {\"tensor\": [3, 4]}, {\"tensor\": [3, 4]}, 0.25 ]", "CPU"),
    ROW_DOT("rowdot", "(Tensor x, Tensor y, float s) -> Tensor", "[ {\"tensor\": [4, 5]}, {\"tensor\": [4, 5]}, 2.0 ]",
        "CPU"),
    CRASHING("crash", "(Tensor x, float s) -> Tensor", "[ {\"tensor\": [4, 3]}, 1.5 ]", "CPU"),
    SPINNING("spin", "(Tensor x, float s) -> Tensor", "[ {\"tensor\": [4, 3]}, 1.5 ]", "CPU");

    final String stem;
    final String signature;
    final String args;
    final String dispatchKey;

    Kind(String stem, String signature, String args, String dispatchKey) {
      this.stem = stem;
      this.signature = signature;
      this.args = args;
      this.dispatchKey = dispatchKey;
    }
  }

  /** Thrown with the one line the user sees when the library cannot be built. */
  public static final class BuildError extends Exception {
    public BuildError(String message) {
      super(message);
    }
  }

  /** A library of the plain flavor. */
  public SyntheticLibrary(Path dir, int ops) {
    this(dir, ops, Flavor.PLAIN);
  }

  public SyntheticLibrary {
    if (ops < 1) {
      throw new IllegalArgumentException("a library needs at least one op, got " + ops);
    }
  }

  public Path source() {
    return dir.resolve(SOURCE);
  }

  public Path spec() {
    return dir.resolve(SPEC);
  }

  public Path library() {
    return dir.resolve(LIBRARY);
  }

  Kind kind(int op) {
    if (flavor == Flavor.SHARDS && HEAVY.contains(op)) {
      return Kind.SPINNING;
    }
    List<Kind> kinds = flavor.kinds();
    return kinds.get(op % kinds.size());
  }

  String name(int op) {
    return kind(op).stem + "_" + op;
  }

  /** Writes the source and the spec (the source only when it changed, so that a rebuild can be skipped). */
  public void write() throws IOException {
    Files.createDirectories(dir);
    String cpp = cpp();
    if (!Files.exists(source()) || !Files.readString(source()).equals(cpp)) {
      Files.writeString(source(), cpp);
    }
    Files.writeString(spec(), spec(LIBRARY));
  }

  /** The spec, naming {@code library} (relative to the spec's directory, or absolute). */
  public String spec(String library) {
    StringBuilder s = new StringBuilder("{\n  \"library\": \"" + library + "\",\n  \"ops\": [\n");
    for (int i = 0; i < ops; i++) {
      // a correct library declares its backend-only kernels non-differentiable (else autograd.differentiable
      // warns that gradients stop there, rightly); the older flavors' specs stay as they were measured
      String declared = flavor == Flavor.COMPOSITES && kind(i).dispatchKey.equals("CPU") ? "\"differentiable\": false, " : "";
      s.append("    { \"op\": \"bench_ops::").append(name(i)).append("\", ").append(declared).append("\"examples\": [ { \"args\": ")
          .append(kind(i).args).append(" } ] }").append(i + 1 < ops ? ",\n" : "\n");
    }
    return s.append("  ]\n}\n").toString();
  }

  String cpp() {
    StringBuilder s = new StringBuilder(PRELUDE);
    s.append("STABLE_TORCH_LIBRARY(bench_ops, m) {\n");
    for (int i = 0; i < ops; i++) {
      s.append("  m.def(\"").append(name(i)).append(kind(i).signature).append("\");\n");
    }
    s.append("}\n\n");
    for (String key : List.of("CPU", "Meta", "CompositeImplicitAutograd")) {
      StringBuilder impls = new StringBuilder();
      for (int i = 0; i < ops; i++) {
        Kind k = kind(i);
        boolean meta = key.equals("Meta");
        if (k.dispatchKey.equals(key) || meta && k.dispatchKey.equals("CPU")) {
          impls.append("  m.impl(\"").append(name(i)).append("\", TORCH_BOX(&").append(k.stem)
              .append(meta ? "_meta" : "").append('<').append(i).append(">));\n");
        }
      }
      if (!impls.isEmpty()) {
        s.append("STABLE_TORCH_LIBRARY_IMPL(bench_ops, ").append(key).append(", m) {\n").append(impls).append("}\n\n");
      }
    }
    return s.toString();
  }

  /**
   * Builds {@link #library()} with g++ against the LibTorch headers and the libtorch the native-ops
   * build uses ({@code native-ops/target/torch-headers/include-dir.txt} and
   * {@code native-ops/target/libtorch-dir.txt} under {@code home}), unless it is newer than its source.
   *
   * @return whether it was built (false: it was up to date)
   * @throws BuildError when the headers or libtorch are not there, or g++ fails
   */
  public boolean build(Path home) throws BuildError, IOException, InterruptedException {
    return build(home, List.of());
  }

  /** {@link #build(Path)} with {@code flags} after the usual ones (a sanitizer's or coverage's, {@code bench sanitizers}). */
  public boolean build(Path home, List<String> flags) throws BuildError, IOException, InterruptedException {
    Path target = home.resolve("native-ops/target");
    Path headersFile = target.resolve("torch-headers/include-dir.txt");
    Path libtorchFile = target.resolve("libtorch-dir.txt");
    if (!Files.isRegularFile(headersFile) || !Files.isRegularFile(libtorchFile)) {
      throw new BuildError("the LibTorch headers are not available (" + target + " has no torch-headers/include-dir.txt"
          + " or libtorch-dir.txt); build them with: mvn -o -B -q -pl native-ops package");
    }
    Path headers = Path.of(Files.readString(headersFile).strip());
    Path libtorch = Path.of(Files.readString(libtorchFile).strip());
    if (!Files.isRegularFile(headers.resolve("torch/csrc/stable/library.h"))) {
      throw new BuildError("the LibTorch headers are not available: " + headers
          + " has no torch/csrc/stable/library.h; build them with: mvn -o -B -q -pl native-ops package");
    }
    if (!Files.isRegularFile(libtorch.resolve("libtorch_cpu.so"))) {
      throw new BuildError("libtorch is not available: " + libtorch + " has no libtorch_cpu.so");
    }
    if (Files.exists(library())
        && Files.getLastModifiedTime(library()).compareTo(Files.getLastModifiedTime(source())) > 0) {
      return false;
    }
    // the flags of native-ops/src/main/cpp/CMakeLists.txt's op_library
    List<String> cmd = new ArrayList<>(List.of("g++", "-std=c++17", "-O1", "-fPIC", "-shared",
        "-DTORCH_TARGET_VERSION=0x020a000000000000", "-D_GLIBCXX_USE_CXX11_ABI=1", "-isystem", headers.toString(),
        source().toString(), "-o", library() + ".tmp", "-Wl,--no-as-needed",
        libtorch.resolve("libtorch_cpu.so").toString(), libtorch.resolve("libc10.so").toString(),
        "-Wl,-rpath," + libtorch));
    cmd.addAll(6, flags);
    Path log = dir.resolve("build.log");
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    } catch (IOException e) {
      throw new BuildError("g++ could not be started (" + e.getMessage() + "); the benchmark builds its library with g++");
    }
    if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new BuildError("g++ failed to build " + library() + "; see " + log);
    }
    Files.move(Path.of(library() + ".tmp"), library(), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return true;
  }

  private static final String PRELUDE = """
      // Generated by ./opcheck bench: operators of a few kinds, one template each,
      // instantiated once per op (the template argument K makes each op compute something of its own).
      #include <torch/csrc/stable/library.h>
      #include <torch/csrc/stable/ops.h>
      #include <torch/csrc/stable/tensor.h>
      #include <torch/headeronly/core/ScalarType.h>
      #include <torch/headeronly/util/Exception.h>

      #include <array>
      #include <cmath>
      #include <cstdint>
      #include <cstdlib>
      #include <tuple>
      #include <vector>

      namespace {

      using torch::stable::Tensor;
      using torch::headeronly::ScalarType;

      void check_floating(const Tensor& t) {
        STD_TORCH_CHECK(t.scalar_type() == ScalarType::Float || t.scalar_type() == ScalarType::Double,
                        "x must be float32 or float64");
      }

      double elem(const Tensor& t, int64_t i) {
        if (t.scalar_type() == ScalarType::Double) return static_cast<const double*>(t.data_ptr())[i];
        return static_cast<const float*>(t.data_ptr())[i];
      }

      void put(Tensor& t, int64_t i, double v) {
        if (t.scalar_type() == ScalarType::Double) {
          static_cast<double*>(t.data_ptr())[i] = v;
        } else {
          static_cast<float*>(t.data_ptr())[i] = static_cast<float>(v);
        }
      }

      template <class F>
      Tensor map_new(const Tensor& like, F f) {
        Tensor out = torch::stable::new_empty(like, like.sizes());
        int64_t n = out.numel();
        for (int64_t i = 0; i < n; ++i) put(out, i, f(i));
        return out;
      }

      std::vector<int64_t> without_last(const Tensor& x) {
        auto s = x.sizes();
        return std::vector<int64_t>(s.begin(), s.end() - 1);
      }

      template <size_t N>
      Tensor aten(const char* name, const char* overload, std::array<StableIValue, N> stack) {
        STABLE_TORCH_ERROR_CODE_CHECK(torch_call_dispatcher(name, overload, stack.data(), TORCH_ABI_VERSION));
        return torch::stable::detail::to<Tensor>(stack[0]);
      }

      Tensor mul(const Tensor& a, const Tensor& b) {
        return aten<2>("aten::mul", "Tensor", {torch::stable::detail::from(a), torch::stable::detail::from(b)});
      }

      Tensor scalar_like(const Tensor& a, double v) {
        Tensor t = torch::stable::new_empty(a, {});
        torch::stable::fill_(t, v);
        return t;
      }

      // elementwise: x * K + s
      template <int K> Tensor ew(Tensor x, double s) {
        check_floating(x);
        Tensor xc = torch::stable::contiguous(x);
        return map_new(xc, [&](int64_t i) { return elem(xc, i) * (K % 7 + 1) + s; });
      }
      template <int K> Tensor ew_meta(Tensor x, double s) {
        check_floating(x);
        return torch::stable::new_empty(x, x.sizes());
      }

      // in-place: x += s * K, declared (a!)
      template <int K> void inplace(Tensor x, double s) {
        check_floating(x);
        Tensor xc = torch::stable::contiguous(x);
        Tensor r = map_new(xc, [&](int64_t i) { return elem(xc, i) + s * (K % 5 + 1); });
        torch::stable::copy_(x, r);
      }
      template <int K> void inplace_meta(Tensor x, double s) { check_floating(x); }

      // two outputs: (x * K, x - K)
      template <int K> std::tuple<Tensor, Tensor> pair(Tensor x) {
        check_floating(x);
        Tensor xc = torch::stable::contiguous(x);
        return {map_new(xc, [&](int64_t i) { return elem(xc, i) * (K % 3 + 1); }),
                map_new(xc, [&](int64_t i) { return elem(xc, i) - K % 11; })};
      }
      template <int K> std::tuple<Tensor, Tensor> pair_meta(Tensor x) {
        check_floating(x);
        return {torch::stable::new_empty(x, x.sizes()), torch::stable::new_empty(x, x.sizes())};
      }

      // row reduction: K * the sum over the last dimension
      template <int K> Tensor rowsum(Tensor x) {
        check_floating(x);
        STD_TORCH_CHECK(x.dim() >= 1, "x must have at least one dimension");
        Tensor xc = torch::stable::contiguous(x);
        Tensor out = torch::stable::new_empty(xc, without_last(xc));
        int64_t last = xc.sizes()[xc.dim() - 1];
        int64_t rows = out.numel();
        for (int64_t r = 0; r < rows; ++r) {
          double acc = 0;
          for (int64_t j = 0; j < last; ++j) acc += elem(xc, r * last + j);
          put(out, r, acc * (K % 4 + 1));
        }
        return out;
      }
      template <int K> Tensor rowsum_meta(Tensor x) {
        check_floating(x);
        STD_TORCH_CHECK(x.dim() >= 1, "x must have at least one dimension");
        return torch::stable::new_empty(x, without_last(x));
      }

      // aten composite: x * x * (s * K); autograd and meta come from the decomposition
      template <int K> Tensor comp(Tensor x, double s) { return mul(mul(x, x), scalar_like(x, s * (K % 3 + 1))); }

      // aten composite of two tensors of one shape (as aten's binary ops, up to broadcasting): (x - y) * (s * K)
      template <int K> Tensor diff(Tensor x, Tensor y, double s) {
        return mul(torch::stable::subtract(x, y), scalar_like(x, s * (K % 3 + 1)));
      }

      // two tensors of one float dtype and one shape, as most binary kernels check
      void check_pair(const Tensor& x, const Tensor& y) {
        check_floating(x);
        STD_TORCH_CHECK(x.scalar_type() == y.scalar_type(), "x and y must have one dtype");
        auto xs = x.sizes();
        auto ys = y.sizes();
        STD_TORCH_CHECK(std::vector<int64_t>(xs.begin(), xs.end()) == std::vector<int64_t>(ys.begin(), ys.end()),
                        "x and y must have one shape");
      }

      // the shape check alone: what a Meta kernel needs to size its output
      void check_shape(const Tensor& x, const Tensor& y) {
        auto xs = x.sizes();
        auto ys = y.sizes();
        STD_TORCH_CHECK(std::vector<int64_t>(xs.begin(), xs.end()) == std::vector<int64_t>(ys.begin(), ys.end()),
                        "x and y must have one shape");
      }

      // x * s + y * K; the Meta kernel shares the CPU kernel's checks
      template <int K> Tensor axpy(Tensor x, Tensor y, double s) {
        check_pair(x, y);
        Tensor xc = torch::stable::contiguous(x);
        Tensor yc = torch::stable::contiguous(y);
        return map_new(xc, [&](int64_t i) { return elem(xc, i) * s + elem(yc, i) * (K % 5 + 1); });
      }
      template <int K> Tensor axpy_meta(Tensor x, Tensor y, double s) {
        check_pair(x, y);
        return torch::stable::new_empty(x, x.sizes());
      }

      // aten composite: x * y + x * (s * K)
      template <int K> Tensor mix(Tensor x, Tensor y, double s) {
        return torch::stable::subtract(mul(x, y), mul(x, scalar_like(x, s * (K % 3 + 1))), -1.0);
      }

      // x + s * (y - x) * K; the Meta kernel checks the shape it sizes the output from, not the dtype
      template <int K> Tensor blend(Tensor x, Tensor y, double s) {
        check_pair(x, y);
        Tensor xc = torch::stable::contiguous(x);
        Tensor yc = torch::stable::contiguous(y);
        return map_new(xc, [&](int64_t i) { return elem(xc, i) + s * (K % 4 + 1) * (elem(yc, i) - elem(xc, i)); });
      }
      template <int K> Tensor blend_meta(Tensor x, Tensor y, double s) {
        check_shape(x, y);
        return torch::stable::new_empty(x, x.sizes());
      }

      // s * K * the dot product of x's and y's rows (over the last dimension); the Meta kernel checks only
      // what it sizes the output from (x's dimensions), as many Meta kernels sized from their first input do
      template <int K> Tensor rowdot(Tensor x, Tensor y, double s) {
        check_pair(x, y);
        STD_TORCH_CHECK(x.dim() >= 1, "x must have at least one dimension");
        Tensor xc = torch::stable::contiguous(x);
        Tensor yc = torch::stable::contiguous(y);
        Tensor out = torch::stable::new_empty(xc, without_last(xc));
        int64_t last = xc.sizes()[xc.dim() - 1];
        int64_t rows = out.numel();
        for (int64_t r = 0; r < rows; ++r) {
          double acc = 0;
          for (int64_t j = 0; j < last; ++j) acc += elem(xc, r * last + j) * elem(yc, r * last + j);
          put(out, r, acc * s * (K % 3 + 1));
        }
        return out;
      }
      template <int K> Tensor rowdot_meta(Tensor x, Tensor y, double s) {
        STD_TORCH_CHECK(x.dim() >= 1, "x must have at least one dimension");
        return torch::stable::new_empty(x, without_last(x));
      }

      // matmul-like: K * (a @ b) for a [m,k] and b [k,n]
      std::vector<int64_t> mm_shape(const Tensor& a, const Tensor& b) {
        check_floating(a);
        STD_TORCH_CHECK(a.scalar_type() == b.scalar_type(), "a and b must have one dtype");
        STD_TORCH_CHECK(a.dim() == 2 && b.dim() == 2, "a and b must be matrices");
        STD_TORCH_CHECK(a.sizes()[1] == b.sizes()[0], "a's columns must be as many as b's rows");
        return {a.sizes()[0], b.sizes()[1]};
      }
      template <int K> Tensor mm(Tensor a, Tensor b) {
        std::vector<int64_t> shape = mm_shape(a, b);
        Tensor ac = torch::stable::contiguous(a);
        Tensor bc = torch::stable::contiguous(b);
        Tensor out = torch::stable::new_empty(ac, shape);
        int64_t k = ac.sizes()[1];
        int64_t n = shape[1];
        for (int64_t i = 0; i < shape[0]; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double acc = 0;
            for (int64_t p = 0; p < k; ++p) acc += elem(ac, i * k + p) * elem(bc, p * n + j);
            put(out, i * n + j, acc * (K % 3 + 1));
          }
        }
        return out;
      }
      template <int K> Tensor mm_meta(Tensor a, Tensor b) { return torch::stable::new_empty(a, mm_shape(a, b)); }

      // elementwise like ew, but the process dies on about one input in five: on a first value whose
      // thousandths end in 4 or 9, never on 12 elements (the example's shape)
      template <int K> Tensor crash(Tensor x, double s) {
        check_floating(x);
        Tensor xc = torch::stable::contiguous(x);
        if (xc.numel() > 0 && xc.numel() != 12 && std::getenv("BENCH_OPS_NO_CRASH") == nullptr) {
          double v = elem(xc, 0);
          if (std::isfinite(v) && std::fabs(v) < 1e9 && static_cast<int64_t>(std::fabs(v) * 1000) % 5 == 4) {
            volatile int* nowhere = nullptr;
            *nowhere = K;
          }
        }
        return map_new(xc, [&](int64_t i) { return elem(xc, i) * (K % 7 + 1) + s; });
      }
      template <int K> Tensor crash_meta(Tensor x, double s) {
        check_floating(x);
        return torch::stable::new_empty(x, x.sizes());
      }

      // elementwise like ew, after spinning on every element (a heavy op of a bench shards library)
      template <int K> Tensor spin(Tensor x, double s) {
        check_floating(x);
        Tensor xc = torch::stable::contiguous(x);
        return map_new(xc, [&](int64_t i) {
          double v = elem(xc, i);
          volatile double sink = 0;
          for (int r = 0; r < 100000; ++r) sink = sink + std::sin(v + r);
          return v * (K % 7 + 1) + s;
        });
      }
      template <int K> Tensor spin_meta(Tensor x, double s) {
        check_floating(x);
        return torch::stable::new_empty(x, x.sizes());
      }

      }  // namespace

      """;
}
