"""roofcast.adapters.triton_early_config_prune with plain dicts and Triton-like Config objects
(no Triton needed)."""

import itertools

import pytest

import roofcast
from roofcast.adapters import triton_early_config_prune

ARGS = {"M": 4096, "N": 4096, "K": 4096, "a_ptr": None}


def triton_space():
    """A Triton-style config list: some map to rung-9 kernels, some cannot (BLOCK_K 64,
    num_stages 1 or 5, more warps than the tile has warp tiles for)."""
    return [
        {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "num_warps": w, "num_stages": s}
        for bm, bn, bk, w, s in itertools.product(
            (64, 128, 256), (64, 128), (16, 32, 64), (4, 8), (1, 3, 5))
    ]


_RUNG9 = {}


def expected_score(gpu, config, raster="row_major"):
    """The brute-force score: predict every rung-9 config of the default space that matches."""
    if gpu.id not in _RUNG9:
        _RUNG9[gpu.id] = roofcast.enumerate_configs(gpu, roofcast.SpaceBounds(rungs=[9]))
    threads = 32 * config["num_warps"]
    times = []
    for c in _RUNG9[gpu.id]:
        if (c.bm, c.bn, c.bk, c.threads, c.stages) == (
                config["BLOCK_M"], config["BLOCK_N"], config["BLOCK_K"], threads,
                config["num_stages"]):
            p = roofcast.predict(gpu, (4096, 4096, 4096), c, raster=raster)
            if p["launchable"]:
                times.append(p["time_s"])
    return min(times) if times else None


class FakeConfig:
    """What the adapter reads of triton.Config."""

    def __init__(self, kwargs, num_warps, num_stages):
        self.kwargs = kwargs
        self.num_warps = num_warps
        self.num_stages = num_stages


def test_dicts_in_filtered_fastest_first_out(h200):
    configs = triton_space()
    prune = triton_early_config_prune("h200-sxm", keep=5, unsupported="drop")
    kept = prune(configs, ARGS)
    assert len(kept) == 5
    assert all(any(k is c for c in configs) for k in kept)  # the same objects
    scores = {id(s["config"]): s["time_s"] for s in prune.last_scores}
    times = [scores[id(k)] for k in kept]
    assert times == sorted(times)
    scored = sorted(t for t in scores.values() if t is not None)
    assert times == scored[:5]
    for config in kept:
        assert config["BLOCK_K"] in (16, 32) and config["num_stages"] == 3


def test_scores_are_the_best_matching_rung9_prediction(h200):
    configs = [c for c in triton_space() if c["BLOCK_K"] == 16 and c["BLOCK_M"] == 128]
    prune = triton_early_config_prune(h200)
    prune(configs, ARGS)
    for score in prune.last_scores:
        expected = expected_score(h200, score["config"])
        if expected is None:
            assert score["time_s"] is None
        else:
            assert score["time_s"] == pytest.approx(expected, rel=1e-12)
            assert score["kernel_id"].startswith("r09-")


def test_unscorable_configs_go_last_in_their_order_or_are_dropped(h200):
    configs = triton_space()
    last = triton_early_config_prune("h200-sxm")(configs, ARGS)
    dropped = triton_early_config_prune("h200-sxm", unsupported="drop")(configs, ARGS)
    assert len(last) == len(configs)
    unscorable = [c for c in configs if not any(c is d for d in dropped)]
    assert unscorable and last[len(dropped):] == unscorable
    for config in configs:
        # Unscorable exactly when no rung-9 kernel has the config's tile, threads and stages.
        assert (expected_score(h200, config) is None) == (config in unscorable)
        if config["BLOCK_K"] == 64 or config["num_stages"] in (1, 5):
            assert config in unscorable


def test_keep_as_a_fraction_and_as_a_count():
    configs = triton_space()
    scored = len(triton_early_config_prune("h200-sxm", unsupported="drop")(configs, ARGS))
    half = triton_early_config_prune("h200-sxm", keep=0.5, unsupported="drop")(configs, ARGS)
    assert len(half) == -(-scored // 2)
    assert len(triton_early_config_prune("h200-sxm", keep=1000, unsupported="drop")(
        configs, ARGS)) == scored
    with pytest.raises(ValueError):
        triton_early_config_prune("h200-sxm", keep=0)
    with pytest.raises(ValueError):
        triton_early_config_prune("h200-sxm", keep=1.5)
    with pytest.raises(ValueError):
        triton_early_config_prune("h200-sxm", unsupported="keep")


def test_triton_config_objects_match_dicts():
    dicts = triton_space()
    objects = [FakeConfig({k: v for k, v in d.items() if k.startswith("BLOCK")},
                          d["num_warps"], d["num_stages"]) for d in dicts]
    by_dict = triton_early_config_prune("h200-sxm", keep=8)(dicts, ARGS)
    by_object = triton_early_config_prune("h200-sxm", keep=8)(objects, ARGS)
    assert [dicts.index(c) for c in by_dict] == [objects.index(c) for c in by_object]


def test_problem_from_keyword_arguments_or_given():
    configs = triton_space()
    prune = triton_early_config_prune("h200-sxm", keep=3, m="m", n="n", k="k")
    from_kwargs = prune(configs, {}, m=4096, n=4096, k=4096)
    given = triton_early_config_prune("h200-sxm", keep=3, problem=(4096, 4096, 4096))(
        configs, {})
    assert from_kwargs == given == triton_early_config_prune("h200-sxm", keep=3)(configs, ARGS)
    with pytest.raises(KeyError, match="'M'"):
        triton_early_config_prune("h200-sxm")(configs, {"N": 1, "K": 1})


def test_group_size_selects_the_grouped_raster_and_tutorial_keys(h200):
    config = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 8,
              "num_warps": 8, "num_stages": 3}
    prune = triton_early_config_prune(h200)
    assert prune([config], ARGS) == [config]
    score = prune.last_scores[0]
    assert score["raster"] == "grouped:8"
    plain = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 16, "num_warps": 8, "num_stages": 3}
    assert score["time_s"] == pytest.approx(expected_score(h200, plain, "grouped:8"), rel=1e-12)


def test_pruning_rules_apply_to_the_rung9_kernels():
    configs = triton_space()
    prune = triton_early_config_prune("h200-sxm", min_occupancy=0.25, unsupported="drop")
    kept = prune(configs, ARGS)
    assert kept
    for score in prune.last_scores:
        if score["time_s"] is not None:
            assert score["explanation"]["occupancy"] >= 0.25
    with pytest.raises(ValueError, match="min_occupancy"):
        triton_early_config_prune("h200-sxm", min_occupancy=2)


def test_not_a_config_is_a_type_error():
    with pytest.raises(TypeError, match="triton.Config"):
        triton_early_config_prune("h200-sxm")([42], ARGS)
