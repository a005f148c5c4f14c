// A shared library with an undefined data symbol: the dynamic loader refuses it at load time,
// and OpLibrary must name the symbol.
extern "C" int opcheck4j_missing_symbol;
extern "C" int opcheck4j_read_missing() { return opcheck4j_missing_symbol; }
