package dev.opcheck4j.api;

import java.util.Objects;

/**
 * The entry of an expected-failures file that a result was judged by: an {@link Outcome#EXPECTED_FAILURE}
 * matched it, an {@link Outcome#UNEXPECTED_PASS} says it no longer fails.
 *
 * @param scope what the entry is limited to, as the file writes it ({@code spec:bad/bad_ops.json},
 *     {@code tag:nightly}), or null for an entry of every run
 * @param op the op the entry names, {@code ns::name}; never null
 * @param key the entry's key as the file writes it: a check id or a family, with an optional
 *     {@code @device}; never null
 * @param reason why the failure is expected; never null
 * @param file the expected-failures file; never null
 * @param location where the entry is written, {@code file:line:column}; never null
 */
public record Expectation(String scope, String op, String key, String reason, String file, String location) {
  public Expectation {
    Objects.requireNonNull(op, "op");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(location, "location");
  }
}
