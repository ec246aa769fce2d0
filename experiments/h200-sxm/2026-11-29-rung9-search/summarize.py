#!/usr/bin/env python3
"""Markdown tables of the probe runs (run*.json): per variant and size, the TFLOPS of each
timing round (median of its repeats) and the median over rounds; checks that failed."""
import json
import statistics
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
# The runs' outputs stay with the measurements (this source moved to experiments/).
runs = here.parents[2] / "data" / "measurements" / here.parent.name / "probes" / here.name
for path in sorted(runs.glob("run[0-9].json")):
    data = json.loads(path.read_text())
    rows = {}
    for t in data["timings"]:
        rows.setdefault(t["variant"], {}).setdefault(t["size"], []).append(t["tflops"])
    print(f"### {path.name}\n")
    print("| variant | 4096³ TFLOPS (rounds) | median | 8192³ TFLOPS (rounds) | median |")
    print("| --- | --- | --- | --- | --- |")
    for name, sizes in rows.items():
        cells = []
        for size in (4096, 8192):
            v = sizes.get(size, [])
            cells.append(" ".join(f"{x:.2f}" for x in v))
            cells.append(f"{statistics.median(v):.2f}" if v else "")
        print(f"| {name} | " + " | ".join(cells) + " |")
    failed = [c for c in data["checks"] if not c["passed"]]
    print(f"\nchecks: {len(data['checks'])}, failed: {len(failed)}"
          + "".join(f"; {c['variant']} {c['m']}x{c['n']}x{c['k']} rel_err {c['rel_err']:.3g}"
                    for c in failed) + "\n")
