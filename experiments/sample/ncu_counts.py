"""The Nsight Compute event counts of the sample (sgemm-sample-ncu-local.json, -ncu-all-*.json)
against the model: local loads + stores per thread per K tile of the spilling configs, the
L1 miss share of their local loads, and warp instructions and shared wavefronts of every config
at 2048^3. Training configs only (tune::config_held_out: FNV-1a of the id mod 4 != 0); the
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

print('\nevery training config at 2048^3 without local memory: measured / model')
by_rung = collections.defaultdict(list)
for c in cases:
    k = kernels[c['kernel']]
    if k['local_bytes'] > 0 or (c['m'], c['n'], c['k']) != (2048, 2048, 2048):
        continue
    p = predict(k, c)
    n = c['ncu']
    by_rung[k['rung']].append((n['warp_instructions'] / p['traffic']['warp_instructions'],
                               n['shared_wavefronts'] / p['traffic']['shared_wavefronts']))
for rung, values in sorted(by_rung.items()):
    inst = sorted(v[0] for v in values)
    wave = sorted(v[1] for v in values)
    print(f'rung {rung:2d}: {len(values):3d} configs  warp instructions median {inst[len(inst) // 2]:.3f}'
          f' ({inst[0]:.3f}..{inst[-1]:.3f})  shared wavefronts median {wave[len(wave) // 2]:.3f}'
          f' ({wave[0]:.3f}..{wave[-1]:.3f})')
