// A valid shared library that registers no operators (OpLibrary must reject it clearly).
extern "C" int opcheck4j_no_ops_marker() { return 42; }
