"""The Nsight Compute event counts of the sample (sgemm-sample-ncu-local.json, -ncu-all-*.json)
against the model: local loads + stores per thread per K tile of the spilling configs, the
L1 miss share of their local loads, warp instructions and shared wavefronts of every config
at 2048^3, and the fit of the compiled overhead (kernels/src/anatomy.cpp, compiled_overhead) on
those warp instructions. Training configs only (tune::config_held_out: FNV-1a of the id mod 4 != 0); the
held-out ones are left out so that this cannot guide a mechanism. An experiment, not a tool:
docs/model.md#spills gives the findings.

    python experiments/sample/ncu_counts.py build/cli/roofcast data/measurements/h200-sxm/sample
"""
import collections, json, math, subprocess, sys

roofcast, folder = sys.argv[1], sys.argv[2]


def fnv(text):
    h = 14695981039346656037
    for ch in text.encode():
        h = ((h ^ ch) * 1099511628211) % 2**64
    return h


def predict(kernel, case):
    cmd = [roofcast, 'predict', '--json', '--gpu', 'h200-sxm', '--kernel', kernel['id'],
           '--m', str(case['m']), '--n', str(case['n']), '--k', str(case['k']),
           '--regs', str(kernel['registers_per_thread']),
           '--spill-bytes', str(kernel['local_bytes'])]
    if case['raster']:
        cmd += ['--raster', case['raster']]
    return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)


kernels, cases, seen = {}, [], set()
for part in ['ncu-local', 'ncu-all-a', 'ncu-all-b']:
    d = json.load(open(f'{folder}/sgemm-sample-{part}.json'))
    kernels.update({k['id']: k for k in d['kernels']})
    for c in d['cases']:
        key = (c['kernel'], c['m'], c['n'], c['k'])
        if c.get('ncu') and c['kernel'] != 'cublas' and key not in seen and fnv(c['kernel']) % 4:
            seen.add(key)
            cases.append(c)

print('spilling training configs, K >= 2048: measured local accesses per thread per K tile')
print(f"{'kernel':52} {'words':>5} {'bk':>3} {'measured':>8} {'/(2w)':>6} {'miss':>5}")
for c in cases:
    k = kernels[c['kernel']]
    if k['local_bytes'] <= 0 or c['k'] < 2048:
        continue
    p = predict(k, c)
    n = c['ncu']
    warps = c['grid_blocks'] * math.ceil(k['threads_per_block'] / 32)
    tiles = p['tile_waste']['k_tiles']
    measured = (n['local_load_instructions'] + n['local_store_instructions']) / warps / tiles
    words = k['local_bytes'] / 4
    miss = 1 - n['local_load_hit_sectors'] / max(1, n['local_load_sectors'])
    print(f"{c['kernel']:52} {words:5.0f} {p['per_k_tile']['k_tile']:3d} {measured:8.0f} "
          f"{measured / (2 * words):6.2f} {miss:5.2f}")

# Every training config at 2048^3 without local memory, predicted once for both tables below.
at_2048 = [(kernels[c['kernel']], c, predict(kernels[c['kernel']], c)) for c in cases
           if kernels[c['kernel']]['local_bytes'] <= 0 and (c['m'], c['n'], c['k']) == (2048, 2048, 2048)]

print('\nevery training config at 2048^3 without local memory: measured / model')
by_rung = collections.defaultdict(list)
for k, c, p in at_2048:
    n = c['ncu']
    by_rung[k['rung']].append((n['warp_instructions'] / p['traffic']['warp_instructions'],
                               n['shared_wavefronts'] / p['traffic']['shared_wavefronts']))
for rung, values in sorted(by_rung.items()):
    inst = sorted(v[0] for v in values)
    wave = sorted(v[1] for v in values)
    print(f'rung {rung:2d}: {len(values):3d} configs  warp instructions median {inst[len(inst) // 2]:.3f}'
          f' ({inst[0]:.3f}..{inst[-1]:.3f})  shared wavefronts median {wave[len(wave) // 2]:.3f}'
          f' ({wave[0]:.3f}..{wave[-1]:.3f})')

# A 4-byte cp.async of A (rungs 9-10, vector_width 1) writes shared memory as its global data
# returns: the wavefronts one copy instruction implies are the measured ones less the model's
# fragment reads and B stores, over the A copies (kernels/ladder/anatomy_warp_tiled.cpp,
# async_copy_store_wavefronts: the copy's global wavefronts at least).
print('\n4-byte cp.async A copies (rungs 9-10, vector_width 1), training configs at 2048^3:'
      ' shared wavefronts per copy instruction')
implied = []
for k, c, p in at_2048:
    cfg = k['config']
    if cfg['rung'] < 9 or cfg['vector_width'] != 1:
        continue
    pk = p['per_k_tile']
    warps = c['grid_blocks'] * math.ceil(k['threads_per_block'] / 32)
    per_warp_tile = c['ncu']['shared_wavefronts'] / warps / p['tile_waste']['k_tiles']
    others = sum(pk[g]['instructions_per_thread'] * pk[g]['wavefronts']
                 for g in ('shared_load_a', 'shared_load_b', 'shared_store_b'))
    implied.append((per_warp_tile - others) / pk['shared_store_a']['instructions_per_thread'])
implied.sort()
print(f'{len(implied)} configs: median {implied[len(implied) // 2]:.2f} ({implied[0]:.2f}..'
      f'{implied[-1]:.2f}); global wavefronts of one copy: 4 (8 floats of each of 4 rows)')

# The instruction fetch stall (spec instruction_cache_bytes, instruction_fetch_stall_cycles):
# Nsight Compute's no_instruction stall per issued instruction by the K loop body's size
# (instructions per warp per K tile x 16 bytes; rung 4 apart: its k loop is unrolled by two).
print('\nno_instruction stall per instruction by K-tile body size (training configs at 2048^3)')
bins = collections.defaultdict(list)
for k, c, p in at_2048:
    body = p['per_k_tile']['instructions'] * 16 / 1024
    key = 'rung 4' if k['rung'] == 4 else f'{int(body // 16) * 16:3d}-{int(body // 16) * 16 + 16} KiB'
    bins[key].append(c['ncu']['stalls']['no_instruction'])
for key, values in sorted(bins.items()):
    values.sort()
    print(f'{key:>12}: {len(values):3d} configs  median {values[len(values) // 2]:.2f}  max {values[-1]:.2f}')


def solve(rows, ys):
    """Least squares by the normal equations (Gauss-Jordan; a few columns)."""
    n = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) for j in range(n)] + [sum(r[i] * y for r, y in zip(rows, ys))]
         for i in range(n)]
    for i in range(n):
        pivot = max(range(i, n), key=lambda r: abs(a[r][i]))
        a[i], a[pivot] = a[pivot], a[i]
        for r in range(n):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
    return [a[i][n] / a[i][i] for i in range(n)]


print('\ncompiled overhead per rung: measured warp instructions per warp per K tile minus the anatomy\'s'
      '\ncount without it, least squares on per_k_tile + per_k_step * BK (+ per_global_load * global'
      '\ncopy sites per thread, rungs 4-6; + per_swizzle_pattern * (BK / 4 - 1) * (TM + TN) / 4 for'
      '\nrung 6 swizzled); leave-one-out mean |error| of the total count')
fits = collections.defaultdict(list)
for k, c, p in at_2048:
    pk = p['per_k_tile']
    warps = c['grid_blocks'] * math.ceil(k['threads_per_block'] / 32)
    tiles = p['tile_waste']['k_tiles']
    measured = c['ncu']['warp_instructions'] / warps / tiles
    model = p['traffic']['warp_instructions'] / warps / tiles - pk['compiled_overhead']
    site = 4 if k['rung'] in (5, 6) else 1  # copy sites: rungs 5-6's float4s, rung 4's loads
    loads = sum(pk[g]['instructions_per_thread'] * pk[g]['vector_floats'] / site
                for g in ('global_a', 'global_b'))
    cfg = k['config']
    # Rung 6's swizzled layout: (BK / 4 - 1) extra XOR patterns per fragment float4 stream.
    swizzle = (cfg['layout'] == 'swizzled') * (cfg['bk'] / 4 - 1) * (cfg['tm'] + cfg['tn']) / 4
    row = [1, pk['k_tile']] + ([loads] if k['rung'] <= 6 else []) + ([swizzle] if k['rung'] == 6 else [])
    fits[k['rung']].append((row, measured - model, model, measured))
for rung, items in sorted(fits.items()):
    coef = solve([r for r, *_ in items], [y for _, y, *_ in items])
    loo = []
    for i in range(len(items)):
        rest = items[:i] + items[i + 1:]
        ci = solve([r for r, *_ in rest], [y for _, y, *_ in rest])
        row, _, model, measured = items[i]
        loo.append(abs((model + sum(a * b for a, b in zip(ci, row))) / measured - 1))
    before = sum(abs(m / x - 1) for _, _, m, x in items) / len(items)
    print(f'rung {rung:2d}: {len(items):3d} configs  {{' + ', '.join(f'{v:.2f}' for v in coef + [0] * (4 - len(coef))) +
          f'}}  without it {100 * before:.1f}%, with it (leave-one-out) {100 * sum(loo) / len(loo):.2f}%')


# The spill count law (model/include/roofcast/registers.hpp, spill_accesses), fitted on the
# training configs' local loads and stores per warp per K tile at 2048^3. A config reloads its
# accumulators inside the K loop when accumulators + one k's fragments exceed its registers
# (accumulators_spill); then log(loads) = log(scale) + a log(w) + b log(accumulators) + c log(BK)
# by least squares, and stores / loads as sum over sum; otherwise loads and stores per spilled
# word as sum over sum. The L1 miss share of local loads (the spec's
# microarchitecture.local_load_l1_miss_share) is weighted by loads over the accumulator configs'
# cases at all three shapes.
print('\nspill count law (training configs at 2048^3): local accesses per warp per K tile')
heavy, partial, misses = [], [], [0.0, 0.0]
for c in cases:
    k = kernels[c['kernel']]
    if k['local_bytes'] <= 0:
        continue
    cfg = k['config']
    p = predict(k, c)
    n = c['ncu']
    warps = c['grid_blocks'] * math.ceil(k['threads_per_block'] / 32)
    tiles = p['tile_waste']['k_tiles']
    loads = n['local_load_instructions'] / warps / tiles
    stores = n['local_store_instructions'] / warps / tiles
    words = k['local_bytes'] / 4
    accumulators = cfg['tm'] * cfg['tn']
    reloads_accumulators = accumulators + cfg['tm'] + cfg['tn'] > k['registers_per_thread']
    if reloads_accumulators and n['local_load_sectors'] > 0:
        misses[0] += loads * (1 - n['local_load_hit_sectors'] / n['local_load_sectors'])
        misses[1] += loads
    if (c['m'], c['n'], c['k']) != (2048, 2048, 2048):
        continue
    (heavy if reloads_accumulators else partial).append((words, accumulators, cfg['bk'], loads, stores))
coef = solve([[1, math.log(w), math.log(a), math.log(b)] for w, a, b, _, _ in heavy],
             [math.log(ld) for _, _, _, ld, _ in heavy])
law = [math.exp(coef[0]) * w ** coef[1] * a ** coef[2] * b ** coef[3] for w, a, b, _, _ in heavy]
error = sum(abs(x / ld - 1) for x, (_, _, _, ld, _) in zip(law, heavy)) / len(heavy)
print(f'accumulators reloaded ({len(heavy)} configs): loads = {math.exp(coef[0]):.3f} w^{coef[1]:.3f}'
      f' acc^{coef[2]:.3f} BK^{coef[3]:.3f} (mean |error| {100 * error:.1f}%), stores / loads'
      f' {sum(h[4] for h in heavy) / sum(h[3] for h in heavy):.3f}')
words = sum(p[0] for p in partial)
print(f'other spills ({len(partial)} configs): loads per word {sum(p[3] for p in partial) / words:.3f},'
      f' stores per word {sum(p[4] for p in partial) / words:.3f}')
print(f'L1 miss share of the accumulator configs\' local loads (three shapes): {misses[0] / misses[1]:.3f}')
