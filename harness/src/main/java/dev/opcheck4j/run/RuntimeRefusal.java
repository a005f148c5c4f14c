package dev.opcheck4j.run;

import java.nio.file.Path;

/**
 * A library one runtime of a run on several refused to load (built for a newer stable ABI, or classic code
 * bound to another libtorch's C++ ABI): its results there are Skipped with {@code reason}.
 *
 * @param runtime the libtorch version that refused it ({@code 2.10.0})
 * @param library the library file
 * @param reason the one line each of its skipped results says ({@code needs libtorch ≥ 2.13: uses ...})
 */
public record RuntimeRefusal(String runtime, Path library, String reason) {}
