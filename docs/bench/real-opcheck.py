"""Times real torch.library.opcheck on every example of an opcheck4j spec, in one process.

The side of docs/performance.md's comparison that real PyTorch runs: the wall time of a CI step
that imports torch, loads the library and calls torch.library.opcheck (its four default
test_utils) on each example, as a user's test file would. Run it where PyTorch is installed, on the
library built there against that PyTorch (see docs/performance.md):
  python3 real-opcheck.py SPEC.json LIBRARY.so
Prints one JSON line: import, load and check seconds, the examples, failures and the wall time.
"""
import json, sys, time

t_start = time.perf_counter()
import torch  # noqa: E402

t_import = time.perf_counter()
spec_path, library = sys.argv[1], sys.argv[2]
torch.ops.load_library(library)
t_load = time.perf_counter()
gen = torch.Generator().manual_seed(0)


def make(v):
    if isinstance(v, dict) and "tensor" in v:
        t = torch.randn(v["tensor"], generator=gen).to(getattr(torch, v.get("dtype", "float32")))
        return t.requires_grad_(True) if v.get("requires_grad") else t
    if isinstance(v, list):
        return [make(x) for x in v]
    return v


examples, failures = 0, []
for entry in json.load(open(spec_path))["ops"]:
    ns, rest = entry["op"].split("::")
    base, _, overload = rest.partition(".")
    op = getattr(getattr(getattr(torch.ops, ns), base), overload or "default")
    for ex in entry.get("examples", []):
        args = tuple(make(a) for a in ex.get("args", []))
        kwargs = {k: make(v) for k, v in ex.get("kwargs", {}).items()}
        res = torch.library.opcheck(op, args, kwargs, raise_exception=False)
        examples += 1
        failures += [f"{entry['op']} {k}" for k, v in res.items() if v != "SUCCESS"]
t_end = time.perf_counter()
print(json.dumps({"torch": torch.__version__, "import_s": round(t_import - t_start, 3),
                  "load_s": round(t_load - t_import, 3), "check_s": round(t_end - t_load, 3),
                  "examples": examples, "ms_per_example": round((t_end - t_load) * 1e3 / max(examples, 1), 2),
                  "failures": failures[:10], "failure_count": len(failures),
                  "wall_s": round(t_end - t_start, 3)}))
