// A library whose static initializer calls a function no library defines. The dynamic loader binds
// functions lazily: the library loads, and the first call ends the process with status 127
// ("symbol lookup error"). The harness must name the symbol, not the exit status.
// EXPECT: load error (exit 2)
extern "C" void opcheck4j_missing_function();

namespace {
struct CallsOnLoad {
  CallsOnLoad() { opcheck4j_missing_function(); }
};
CallsOnLoad instance;
}  // namespace
