package dev.opcheck4j.cli;

import dev.opcheck4j.run.plan.Interruption;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Where a command writes and where the repository is.
 *
 * @param out results and reports
 * @param err errors, one line each
 * @param home the repository root (the demo's specs, the benchmarks' libraries)
 * @param stop set by the first SIGINT or SIGTERM ({@link Main#main}); a run stops and reports what it has
 * @param env the environment variables ({@code GITHUB_ACTIONS}); null for one that is not set
 */
record Session(PrintStream out, PrintStream err, Path home, Interruption stop, UnaryOperator<String> env) {}
