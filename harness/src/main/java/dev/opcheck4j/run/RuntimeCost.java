package dev.opcheck4j.run;

/**
 * What one part of a run on several runtimes cost ({@code check --runtime 2.10.0,2.13.0}): a runtime's run of
 * the plan, from its first worker's start to its last result, or runtime.agree's recording of each runtime's
 * outputs.
 *
 * @param name the libtorch version, or {@code runtime.agree}
 * @param detail the JavaCPP presets' version, or what the part did
 * @param ms wall time, in milliseconds
 * @param results how many results it gave (a refused library's repeated skips not counted)
 */
public record RuntimeCost(String name, String detail, long ms, int results) {}
