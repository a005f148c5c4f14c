// Operators whose text is hostile: error messages, worker output and schema defaults full of terminal
// control sequences (clear screen, window title, OSC 8 links, cursor moves, CR, backspace, BEL, C1
// CSI, a bidi override), HTML, Markdown pipes and backticks, XML that would close its element, and
// one message of 200 KB. Every output of the harness must show this text as inert data: the console
// with its control characters made visible, each report escaped for its own format. Each op is marked
// with the one failed result it must produce; their Meta kernels are correct.
#include "kernels.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace opcheck4j;

namespace {

// What a kernel could write to take over a terminal or a CI log: clear the screen and scrollback,
// retitle the window, a hyperlink to elsewhere, move up and erase the line above, a carriage return
// over a line, backspaces over a word, a bell, a C1 CSI (U+009B) and a right-to-left override.
const std::string TERMINAL =
    "\x1b[2J\x1b[3J\x1b[H"
    "\x1b]0;opcheck4j: all passed\x07"
    "\x1b]8;;https://example.invalid/\x1b\\click here\x1b]8;;\x1b\\"
    "\x1b[1A\x1b[2K"
    "PASSED [kernel.error] hostile_ops::ansi_error on cpu\r"
    "FAILED\b\b\b\b\b\bPASSED\x07"
    "\xc2\x9b" "31mred\xc2\x9b" "0m"
    "\xe2\x80\xae" "deliaf";

// What a report could take for its own markup: HTML that runs script, Markdown that breaks a table
// or opens a code block, XML that closes the element it sits in.
const std::string MARKUP =
    "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
    "<a href=\"javascript:alert(1)\">link</a> a | pipe | and `backticks` and ```\n"
    "# a heading\n| a | b |\n|---|---|\n"
    "]]></failure></testcase><testcase name=\"spoofed\"/><!-- &amp; &";

Tensor same_shape_meta(Tensor x) { return torch::stable::new_empty(x, x.sizes()); }
Tensor same_shape_meta_s(Tensor x, std::string s) { return same_shape_meta(x); }

// OP: hostile_ops::ansi_error
// EXPECT: kernel.error
Tensor ansi_error(Tensor x) {
  STD_TORCH_CHECK(false, "ansi_error: ", TERMINAL, "\nFAILED [kernel.error] spoofed::line on cpu");
  return x;
}

// OP: hostile_ops::markup_error
// EXPECT: kernel.error
Tensor markup_error(Tensor x) {
  STD_TORCH_CHECK(false, "markup_error: ", MARKUP);
  return x;
}

// A 200 KB message with no space to break at, a control sequence every 1,000 characters.
// OP: hostile_ops::huge_error
// EXPECT: kernel.error
Tensor huge_error(Tensor x) {
  std::string message;
  while (message.size() < 200 * 1000) {
    message += "\x1b[2K\r";
    message += std::string(994, 'A');
  }
  STD_TORCH_CHECK(false, "huge_error: ", message);
  return x;
}

// The message is the schema's default for `tag`, which the spec does not give.
// OP: hostile_ops::hostile_default
// EXPECT: kernel.error
Tensor hostile_default(Tensor x, std::string tag) {
  STD_TORCH_CHECK(false, "hostile_default: tag=", tag);
  return x;
}

// The message echoes the spec's string argument, itself hostile.
// OP: hostile_ops::echo_str
// EXPECT: kernel.error
Tensor echo_str(Tensor x, std::string s) {
  STD_TORCH_CHECK(false, "echo_str: s=", s);
  return x;
}

// Writes the hostile text to stdout and stderr, then aborts: the worker's output becomes a fact.
// OP: hostile_ops::noisy_crash
// EXPECT: kernel.crash
Tensor noisy_crash(Tensor x) {
  std::fputs((TERMINAL + "\n" + MARKUP + "\n").c_str(), stdout);
  std::fputs((TERMINAL + "\n" + MARKUP + "\n").c_str(), stderr);
  std::fflush(stdout);
  std::fflush(stderr);
  std::abort();
  return x;
}

}  // namespace

STABLE_TORCH_LIBRARY(hostile_ops, m) {
  m.def("ansi_error(Tensor x) -> Tensor");
  m.def("markup_error(Tensor x) -> Tensor");
  m.def("huge_error(Tensor x) -> Tensor");
  m.def("hostile_default(Tensor x, str tag=\"<b onmouseover=alert(1)>\x1b]0;title\x07\x1b[2J|`tag`|\r\b</b>\") -> Tensor");
  m.def("echo_str(Tensor x, str s) -> Tensor");
  m.def("noisy_crash(Tensor x) -> Tensor");
}

STABLE_TORCH_LIBRARY_IMPL(hostile_ops, CPU, m) {
  m.impl("ansi_error", TORCH_BOX(&ansi_error));
  m.impl("markup_error", TORCH_BOX(&markup_error));
  m.impl("huge_error", TORCH_BOX(&huge_error));
  m.impl("hostile_default", TORCH_BOX(&hostile_default));
  m.impl("echo_str", TORCH_BOX(&echo_str));
  m.impl("noisy_crash", TORCH_BOX(&noisy_crash));
}

STABLE_TORCH_LIBRARY_IMPL(hostile_ops, Meta, m) {
  m.impl("ansi_error", TORCH_BOX(&same_shape_meta));
  m.impl("markup_error", TORCH_BOX(&same_shape_meta));
  m.impl("huge_error", TORCH_BOX(&same_shape_meta));
  m.impl("hostile_default", TORCH_BOX(&same_shape_meta_s));
  m.impl("echo_str", TORCH_BOX(&same_shape_meta_s));
  m.impl("noisy_crash", TORCH_BOX(&same_shape_meta));
}
