#!/usr/bin/env python3
"""Cuts data/measurements/h200-sxm/sgemm-ladder.json (about 0.5 MB) down to small documents for
the measurement fuzzer's seed corpus (fuzz/corpus/measurement/, a few KB each). Each seed keeps a
handful of kernels and their cases and stays a document the reader accepts: check with
`build-fuzz/fuzz/measurement_fuzzer fuzz/corpus/measurement/*.json`.

Usage: python3 fuzz/make_measurement_seeds.py  (from the repository root)
"""
import copy
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "data/measurements/h200-sxm/sgemm-ladder.json"
OUT = ROOT / "fuzz/corpus/measurement"


def write(name, document):
    # The writer's layout (top-level keys one per line, each kernel and case on one line).
    lines = ["{"]
    items = list(document.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i + 1 < len(items) else ""
        if key in ("kernels", "cases"):
            body = ",\n  ".join(json.dumps(v, separators=(",", ":")) for v in value)
            lines.append(f' "{key}": [\n  {body}\n ]{comma}' if value else f' "{key}": []{comma}')
        else:
            lines.append(f' "{key}": {json.dumps(value, separators=(",", ":"))}{comma}')
    lines.append("}")
    path = OUT / name
    path.write_text("\n".join(lines) + "\n")
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")


def cut(full, kernel_ids, keep_case, max_cases, microbenchmarks=True, raw=("ffma", "l2_latency")):
    doc = {"schema_version": full["schema_version"], "kind": full["kind"],
           "context": copy.deepcopy(full["context"])}
    if microbenchmarks:
        mb = copy.deepcopy(full["microbenchmarks"])
        mb["raw"] = {name: mb["raw"][name] for name in raw}
        doc["microbenchmarks"] = mb
    doc["kernels"] = [k for k in full["kernels"] if k["id"] in kernel_ids]
    cases = [c for c in full["cases"]
             if (c["kernel"] in kernel_ids or c["kernel"] == "cublas") and keep_case(c)]
    doc["cases"] = cases[:max_cases]
    return doc


def main():
    full = json.loads(SOURCE.read_text())
    ids = [k["id"] for k in full["kernels"]]
    ladder = [k["id"] for k in full["kernels"] if k["role"] == "ladder"]
    sweep = [k["id"] for k in full["kernels"] if k["role"] == "sweep"]
    OUT.mkdir(parents=True, exist_ok=True)

    # Three headline kernels (rungs 1, 4, 10: naive, thread tiling, cluster) at the square
    # power-of-two training sizes, with cuBLAS and Nsight Compute numbers.
    picked = {ladder[0], next(i for i in ladder if i.startswith("r04")), ladder[-1]}
    square = lambda c: c["m"] == c["n"] == c["k"] and c["m"] in (512, 2048)
    write("ladder-training.json", cut(full, picked, lambda c: c["set"] == "ladder" and square(c), 10))

    # Two sweep kernels in the training and held-out sweeps, without Nsight Compute numbers.
    picked = set(sweep[10:12])
    doc = cut(full, picked, lambda c: c["set"] in ("sweep", "sweep-train"), 8,
              raw=("dram_latency",))
    for c in doc["cases"]:
        c.pop("ncu", None)
    write("sweep-no-ncu.json", doc)

    # A check-only run: no microbenchmarks, cases that were checked but not timed, one of each
    # outcome the harness writes.
    picked = {ladder[1], ladder[5]}
    doc = cut(full, picked, lambda c: c["set"] == "ladder" and c["m"] == 512, 3,
              microbenchmarks=False)
    doc["context"].update({"mode": "quick check-only", "repeats": 0, "warmups": 0})
    for key in ("ncu_version", "ncu_status"):
        doc["context"].pop(key, None)
    checked = []
    for c in doc["cases"]:
        c = {key: value for key, value in c.items()
             if key not in ("time_ms", "tflops", "ncu", "repeats", "input_sets", "waves",
                            "sm_clock_MHz_before", "sm_clock_MHz_after")}
        c["set"] = "check"
        checked.append(c)
    if len(checked) >= 3:
        checked[1]["outcome"] = "incorrect"
        checked[1]["detail"] = "relative error 1.2e-2 above the bound 9.2e-05"
        checked[2]["outcome"] = "not_supported"
        checked[2]["detail"] = "needs compute capability 9.0"
        for key in ("relative_error", "error_bound"):
            checked[2].pop(key, None)
    doc["cases"] = checked
    write("check-only.json", doc)

    # The smallest: one kernel, one case.
    write("one-case.json", cut(full, {ids[0]}, lambda c: c["kernel"] == ids[0], 1,
                               microbenchmarks=False))


if __name__ == "__main__":
    main()
