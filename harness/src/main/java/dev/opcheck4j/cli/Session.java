package dev.opcheck4j.cli;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Where a command writes and where the repository is.
 *
 * @param out results and reports
 * @param err errors, one line each
 * @param home the repository root (the demo's specs, the benchmarks' libraries)
 */
record Session(PrintStream out, PrintStream err, Path home) {}
