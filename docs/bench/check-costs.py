"""What each check costs and finds on generated inputs, over opcheck4j JSON reports (issue 55): the table the
checks' try budgets come from (docs/performance.md).
  python3 docs/bench/check-costs.py REPORT.json... > table.md
Per check that runs on generated inputs: the inputs it checked (its 'inputs checked' facts), the worker time of
those results (durationMicros of each op's generated result, shrinking included), the time per input, and its
findings on generated inputs: results failed or warned whose example is a generated one, with how many of those
ops it did not also fail on an example (found only by generation) and the try each of those came at (0-based:
the size edge cases first): a budget of tries that reaches the latest keeps them all. A failed result's time
holds its shrinking too."""
import collections, json, sys

inputs = collections.Counter(); micros = collections.Counter(); found = collections.Counter(); only = collections.Counter()
ops_run = collections.defaultdict(set)
at_try = collections.defaultdict(list)
for path in sys.argv[1:]:
    try:
        report = json.load(open(path))
    except (OSError, ValueError):
        continue
    results = report.get("results", [])
    on_example = {(r.get("op"), r["check"], r.get("device")) for r in results
                  if r["outcome"] in ("failed", "warning") and r.get("example") and r["example"].get("ref")
                  and not r["example"].get("generated")}
    for r in results:
        e = r.get("example") or {}
        facts = {f["key"]: f["value"] for f in r.get("facts", [])}
        generated = e.get("generated") or (e.get("ref") is None and "inputs checked" in facts)
        if not generated:
            continue
        n = int(facts.get("inputs checked", 0) or 0)
        c = r["check"]
        inputs[c] += n
        micros[c] += r.get("durationMicros") or 0
        ops_run[c].add((path, r.get("op"), r.get("device")))
        if r["outcome"] in ("failed", "warning") and e.get("generated"):
            found[c] += 1
            if (r.get("op"), c, r.get("device")) not in on_example:
                only[c] += 1
                if e.get("try") is not None:
                    at_try[c].append(e["try"])
total = sum(micros.values()) or 1
print("| check | op-devices | inputs checked | worker time (s) | share | ms per input | findings on generated inputs | of them only there | at tries |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for c in sorted(micros, key=lambda k: -micros[k]):
    per = micros[c] / 1000 / inputs[c] if inputs[c] else float("nan")
    print(f"| {c} | {len(ops_run[c])} | {inputs[c]} | {micros[c] / 1e6:.1f} | {100 * micros[c] / total:.0f}% | {per:.2f} | {found[c]} | {only[c]} | {' '.join(map(str, sorted(at_try[c]))) or '-'} |")
