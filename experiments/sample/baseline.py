"""The committed model (embedded calibration) on the measured sample, split by tune::case_held_out
rule (FNV-1a mod 4 of the kernel id or "MxNxK"): the baseline numbers of docs/sample.md. An
experiment, not a tool: issue 15 moves this into roofcast accuracy.

    python experiments/sample/baseline.py data/measurements/h200-sxm/sample/sgemm-sample-*.json
"""
import json, sys, statistics, math
import roofcast
cases, kernels = [], {}
for f in sys.argv[1:]:
    d = json.load(open(f))
    for k in d['kernels']: kernels[k['id']] = k
    cases += [c for c in d['cases'] if c['outcome'] == 'passed' and c.get('tflops')]
def held(kid, shape):
    return fnv(kid) % 4 == 0 or fnv('%dx%dx%d' % shape) % 4 == 0
def fnv(t):
    h = 14695981039346656037
    for ch in t.encode():
        h ^= ch; h = (h * 1099511628211) % 2**64
    return h
sample_shapes = None
rows = []
for c in cases:
    if c['kernel'] == 'cublas': continue
    k = kernels[c['kernel']]
    shape = (c['m'], c['n'], c['k'])
    cfg = roofcast.TileConfig.from_id(c['kernel'])
    p = roofcast.predict('h200-sxm', shape, cfg, raster=c['raster'] or 'row_major',
                         registers_per_thread=k['registers_per_thread'], spill_bytes_per_thread=k['local_bytes'])
    q = roofcast.predict('h200-sxm', shape, cfg, raster=c['raster'] or 'row_major')
    if not p.launchable: continue
    rows.append(dict(kernel=c['kernel'], rung=k['rung'], role=k['role'], shape=shape,
                     measured=c['tflops'], predicted=p.tflops, predicted_est=q.tflops if q.launchable else None,
                     held=held(c['kernel'], shape), config_held=fnv(c['kernel']) % 4 == 0,
                     shape_held=fnv('%dx%dx%d' % shape) % 4 == 0))
def mape(rs, key='predicted'):
    e = [abs(r[key] - r['measured']) / r['measured'] for r in rs if r[key]]
    return 100 * statistics.mean(e) if e else float('nan'), len(e)
print('cases', len(rows))
for name, sel in [('all', lambda r: True), ('training', lambda r: not r['held']), ('held out', lambda r: r['held']),
                  ('held config x held shape', lambda r: r['config_held'] and r['shape_held']),
                  ('sample kernels only', lambda r: r['role'] == 'sample'), ('registry kernels', lambda r: r['role'] != 'sample')]:
    rs = [r for r in rows if sel(r)]
    m, n = mape(rs); me, ne = mape(rs, 'predicted_est')
    print(f'{name:28s} n {n:5d}  MAPE (ptxas registers) {m:5.1f}%   (estimated registers) {me:5.1f}%')
for rung in range(4, 11):
    rs = [r for r in rows if r['rung'] == rung and r['held']]
    print(f'  held-out rung {rung}: n {len(rs)} MAPE {mape(rs)[0]:.1f}%')
def spearman(a, b):
    def rank(x):
        o = sorted(range(len(x)), key=lambda i: x[i]); r = [0] * len(x)
        for i, j in enumerate(o): r[j] = i
        return r
    ra, rb = rank(a), rank(b); n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))
print('per shape: first choice % of best, best-of-5 %, Spearman (sample + registry rungs 4-10, ptxas registers)')
for shape in sorted({r['shape'] for r in rows}, key=lambda s: s[0] * s[1] * s[2]):
    rs = [r for r in rows if r['shape'] == shape]
    best = max(r['measured'] for r in rs)
    order = sorted(rs, key=lambda r: -r['predicted'])
    first = order[0]['measured'] / best; top5 = max(r['measured'] for r in order[:5]) / best
    sp = spearman([r['predicted'] for r in rs], [r['measured'] for r in rs])
    print(f'  {shape[0]}x{shape[1]}x{shape[2]:<6} n {len(rs):3d} held {"yes" if rs[0]["shape_held"] else "no ":3s} first {100*first:5.1f}%  best5 {100*top5:5.1f}%  spearman {sp:.3f}  best {best:.1f} TFLOPS')
