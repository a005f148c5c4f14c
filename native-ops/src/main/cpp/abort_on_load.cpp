// A library whose static initializer aborts while the dynamic loader runs it: loading it must give
// exit 2 and one line naming the library, never a crash of the harness.
// EXPECT: load error (exit 2)
#include <cstdlib>

namespace {
struct AbortsOnLoad {
  AbortsOnLoad() { std::abort(); }
};
AbortsOnLoad instance;
}  // namespace
