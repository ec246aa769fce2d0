"""roofcast.adapters.kernel_tuner_restriction inside the real Kernel Tuner search space
(kernel_tuner.searchspace.Searchspace; no GPU needed)."""

import itertools

import pytest

kernel_tuner = pytest.importorskip("kernel_tuner", reason="pip install kernel_tuner")
from kernel_tuner.searchspace import Searchspace  # noqa: E402

import roofcast  # noqa: E402
from roofcast.adapters import kernel_tuner_restriction  # noqa: E402

PROBLEM = (4096, 4096, 4096)
# A rung-9 (cp.async) SGEMM kernel's parameters as a Kernel Tuner user would write them; the
# space holds valid and invalid tiles (BK = 64, warp tiles that do not give 32 threads, thread
# counts that do not match the warp tiling).
TUNE_PARAMS = {
    "block_size_x": [64, 128, 256, 512],
    "BM": [32, 64, 128, 256],
    "BN": [64, 128],
    "BK": [8, 16, 64],
    "TM": [4, 8, 16],
    "TN": [4, 8],
    "WM": [32, 64],
    "WN": [32, 64],
    "STAGES": [2, 3],
}
# The ladder's rung-9 headline, in the space above.
HEADLINE = dict(block_size_x=256, BM=256, BN=128, BK=16, TM=16, TN=8, WM=64, WN=64, STAGES=3)


def points(tune_params):
    names = list(tune_params)
    for values in itertools.product(*tune_params.values()):
        yield dict(zip(names, values))


def as_tuple(point, tune_params):
    return tuple(point[name] for name in tune_params)


def admitted_by(restriction, tune_params):
    return {as_tuple(p, tune_params) for p in points(tune_params) if restriction(p)}


def searchspace(restrictions, tune_params=TUNE_PARAMS):
    space = Searchspace(tune_params, restrictions, 1024)
    return {tuple(point) for point in space.list}


def test_searchspace_is_exactly_what_the_predicate_admits():
    restriction = kernel_tuner_restriction("h200-sxm", PROBLEM, rung=9)
    expected = admitted_by(restriction, TUNE_PARAMS)
    assert expected and len(expected) < 0.1 * len(list(points(TUNE_PARAMS)))
    assert searchspace([restriction]) == expected
    assert as_tuple(HEADLINE, TUNE_PARAMS) in expected


def test_invalid_tiles_are_excluded(h200):
    restriction = kernel_tuner_restriction(h200, PROBLEM, rung=9)
    names = list(TUNE_PARAMS)
    for values in searchspace([restriction]):
        point = dict(zip(names, values))
        assert point["BK"] != 64  # BK must be 8, 16, 24 or 32
        assert (point["WM"] // point["TM"]) * (point["WN"] // point["TN"]) == 32
        assert point["block_size_x"] == 32 * (point["BM"] // point["WM"]) * (
            point["BN"] // point["WN"])
        config = roofcast.TileConfig(rung=9, layout="padded", bm=point["BM"], bn=point["BN"],
                                     bk=point["BK"], tm=point["TM"], tn=point["TN"],
                                     wm=point["WM"], wn=point["WN"],
                                     threads=point["block_size_x"], stages=point["STAGES"],
                                     vector_width=4)
        assert roofcast.exclusion(h200, config) == ("none", "")
    bad = dict(HEADLINE, BK=64)
    verdict = restriction.explain(bad)
    assert not verdict["admitted"] and verdict["reason"] == "tile_rule" and "BK" in verdict["detail"]
    wrong_threads = dict(HEADLINE, block_size_x=512)
    assert restriction.explain(wrong_threads)["reason"] == "tile_rule"


def test_pruning_shrinks_the_space_and_keeps_what_the_predicate_admits():
    everything = kernel_tuner_restriction("h200-sxm", PROBLEM, rung=9)
    pruned = kernel_tuner_restriction("h200-sxm", PROBLEM, rung=9, min_occupancy=0.25,
                                      within=0.25, tune_params=TUNE_PARAMS)
    expected = admitted_by(pruned, TUNE_PARAMS)
    assert searchspace([pruned]) == expected
    assert 0 < len(expected) < len(admitted_by(everything, TUNE_PARAMS))
    # The reference is the fastest point that passes the other rules.
    floor = kernel_tuner_restriction("h200-sxm", PROBLEM, rung=9, min_occupancy=0.25)
    best = min(floor.explain(p)["time_s"] for p in points(TUNE_PARAMS) if floor(p))
    for values in expected:
        verdict = pruned.explain(dict(zip(TUNE_PARAMS, values)))
        assert verdict["explanation"]["occupancy"] >= 0.25
        assert verdict["best_time_s"] == pytest.approx(best, rel=1e-12)
        assert verdict["time_s"] <= 1.25 * best * (1 + 1e-12)
    slow = [p for p in points(TUNE_PARAMS) if everything(p) and not pruned(p)]
    assert {pruned.explain(p)["reason"] for p in slow} <= {"low_occupancy", "slow"}


def test_mixed_with_other_restrictions_positionally():
    # With a second restriction Kernel Tuner passes each point positionally, in tune_params
    # order: the restriction needs tune_params for that.
    restriction = kernel_tuner_restriction("h200-sxm", PROBLEM, rung=9,
                                           tune_params=TUNE_PARAMS)
    expected = {t for t in admitted_by(restriction, TUNE_PARAMS) if t[1] >= t[2]}
    assert searchspace([restriction, "BM >= BN"]) == expected
    assert restriction(**HEADLINE) and restriction(*as_tuple(HEADLINE, TUNE_PARAMS))
    without_order = kernel_tuner_restriction("h200-sxm", PROBLEM, rung=9)
    with pytest.raises(TypeError, match="tune_params"):
        without_order(*as_tuple(HEADLINE, TUNE_PARAMS))


def test_names_and_fixed_values_map_other_parameter_names():
    tune_params = {"block_size_x": [128, 256], "tile_m": [128, 256], "tile_n": [128],
                   "wtile_m": [64], "wtile_n": [32, 64], "ttile_m": [8, 16], "ttile_n": [8]}
    restriction = kernel_tuner_restriction(
        "h200-sxm", PROBLEM, rung=9,
        names={"bm": "tile_m", "bn": "tile_n", "wm": "wtile_m", "wn": "wtile_n",
               "tm": "ttile_m", "tn": "ttile_n"},
        fixed={"bk": 16, "stages": 4, "vector_width": 1})
    expected = admitted_by(restriction, tune_params)
    assert expected and searchspace([restriction], tune_params) == expected
    point = dict(zip(tune_params, next(iter(expected))))
    config = restriction.explain(point)["config"]
    assert (config["bk"], config["stages"], config["vector_width"]) == (16, 4, 1)
    with pytest.raises(ValueError, match="unknown roofcast fields"):
        kernel_tuner_restriction("h200-sxm", PROBLEM, names={"block_m": "BM"})


def test_bad_arguments_fail_early():
    with pytest.raises(ValueError, match="min_occupancy"):
        kernel_tuner_restriction("h200-sxm", PROBLEM, min_occupancy=-0.1)
    with pytest.raises(ValueError, match="raster"):
        kernel_tuner_restriction("h200-sxm", PROBLEM, raster="diagonal")
    with pytest.raises(ValueError, match="rung"):
        kernel_tuner_restriction("h200-sxm", PROBLEM, rung=11)
    with pytest.raises(roofcast.UnknownGpuError):
        kernel_tuner_restriction("h900", PROBLEM)
