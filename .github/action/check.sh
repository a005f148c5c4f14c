#!/usr/bin/env bash
# Step "check" of action.yml: ./opcheck check with the action's inputs, on the harness the opcheck4j
# step resolved. Its exit status is check's (0 passed, 1 a check failed, 2 bad input, 3 harness error)
# and goes to the step's output exit-code. With GITHUB_ACTIONS=true, check prints each failing
# (op, check) as an ::error annotation at its line of the spec; a spec Maven copied under
# target/test-classes/ is named by its src/test/resources/ twin when the two are the same file, the
# file a pull request shows.
set -uo pipefail
cp_file="${OPCHECK4J_CLASSPATH:?run the opcheck4j step first}"
args=(check)
[ -n "${OPCHECK_SPEC:-}" ] && args+=(--spec "$OPCHECK_SPEC")
[ -n "${OPCHECK_LIBRARY:-}" ] && args+=(--library "$OPCHECK_LIBRARY")
if [ -z "${OPCHECK_SPEC:-}" ] && [ -z "${OPCHECK_LIBRARY:-}" ]; then
  echo "::error title=opcheck4j::give the action a spec or a library input"
  exit 2
fi
# comma- or space-separated lists, as the inputs take them
checks="${OPCHECK_CHECKS:-}"
devices="${OPCHECK_DEVICES:-}"
for c in ${checks//,/ }; do args+=(--check "$c"); done
for d in ${devices//,/ }; do args+=(--device "$d"); done
[ -n "${OPCHECK_SEED:-}" ] && args+=(--seed "$OPCHECK_SEED")
[ -n "${OPCHECK_TRIES:-}" ] && args+=(--tries "$OPCHECK_TRIES")
[ -n "${OPCHECK_SHARD:-}" ] && args+=(--shard "$OPCHECK_SHARD")
[ -n "${OPCHECK_TIMINGS:-}" ] && args+=(--timings "$OPCHECK_TIMINGS")
[ -n "${OPCHECK_EXPECTED_FAILURES:-}" ] && args+=(--expected-failures "$OPCHECK_EXPECTED_FAILURES")
[ "${OPCHECK_WARNINGS_AS_ERRORS:-false}" = true ] && args+=(--warnings-as-errors)
[ "${OPCHECK_STRICT:-false}" = true ] && args+=(--strict)
report="${OPCHECK_REPORT_DIR:-opcheck-report}"
args+=(--report-dir "$report")
echo "opcheck: ${args[*]}"
java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$(cat "$cp_file")" dev.opcheck4j.cli.Main "${args[@]}" \
  | while IFS= read -r line; do
      if [[ "$line" =~ ^::error\ file=([^,]*)/target/test-classes/([^,]*), ]] || [[ "$line" =~ ^::error\ file=()target/test-classes/([^,]*), ]]; then
        base="${BASH_REMATCH[1]}"; rel="${BASH_REMATCH[2]}"
        copy="${base:+$base/}target/test-classes/$rel"; twin="${base:+$base/}src/test/resources/$rel"
        if [ -f "$twin" ] && cmp -s "$twin" "$copy"; then line="${line/"file=$copy,"/"file=$twin,"}"; fi
      fi
      printf '%s\n' "$line"
    done
code=${PIPESTATUS[0]}
echo "exit-code=$code" >> "${GITHUB_OUTPUT:-/dev/null}"
exit "$code"
