"""The bindings: specs, occupancy, predict, the config space and rank, and their errors."""

import collections.abc
import json
import math

import pytest

import roofcast

SQUARE = (4096, 4096, 4096)
# The rung-9 ladder headline (kernels/include/roofcast/kernels/registry.hpp).
R9 = dict(rung=9, layout="padded", bm=256, bn=128, bk=16, tm=16, tn=8, wm=64, wn=64,
          threads=256, stages=3, vector_width=4)


# ---- specs ---------------------------------------------------------------------------------


def test_embedded_ids_are_sorted_and_hold_the_h200():
    ids = roofcast.embedded_ids()
    assert ids == sorted(ids)
    assert "h200-sxm" in ids and "a100-sxm4-80gb" in ids


def test_spec_facts_are_readable(h200):
    assert h200.id == "h200-sxm"
    assert h200.compute_capability == (9, 0)
    assert h200.sm.max_threads_per_sm == 2048
    assert h200.sm.max_warps_per_sm == 64
    assert h200.chip.sm_count == 132
    assert h200.peak_TFLOPS.fp32 > 60
    assert h200.measured is not None and h200.measured.ffma_TFLOPS > 0
    assert h200.sources and all(isinstance(v, str) for v in h200.sources.values())
    assert h200.origin == "embedded:h200-sxm.json"
    with pytest.raises(AttributeError):
        h200.id = "other"  # read-only


def test_spec_from_file_equals_the_embedded_one(h200, spec_file):
    loaded = roofcast.load_spec(str(spec_file))
    assert loaded.origin == str(spec_file)
    assert (loaded.id, loaded.sm.registers_per_sm, loaded.chip.l2_bytes) == (
        h200.id, h200.sm.registers_per_sm, h200.chip.l2_bytes)
    assert roofcast.find_spec(str(spec_file)).id == "h200-sxm"
    assert roofcast.find_spec("h200-sxm").origin == h200.origin


def test_unknown_gpu_lists_the_known_ones():
    with pytest.raises(roofcast.UnknownGpuError, match="h200-sxm") as error:
        roofcast.spec("h900")
    assert isinstance(error.value, LookupError)
    assert "h900" in str(error.value)


def test_spec_error_names_file_field_and_expectation(tmp_path, spec_file):
    document = json.loads(spec_file.read_text())
    document["sm"]["warp_size"] = "thirty-two"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    with pytest.raises(roofcast.SpecError) as error:
        roofcast.load_spec(str(bad))
    assert isinstance(error.value, ValueError)
    assert error.value.file == str(bad)
    assert error.value.field == "sm.warp_size"
    assert "integer" in error.value.expectation
    assert str(bad) in str(error.value) and "sm.warp_size" in str(error.value)


def test_unreadable_spec_file_is_a_spec_error(tmp_path):
    with pytest.raises(roofcast.SpecError, match="readable"):
        roofcast.find_spec(str(tmp_path / "missing.json"))


# ---- occupancy -----------------------------------------------------------------------------


def test_occupancy_names_the_binding_limit(h200):
    # 256 threads x 128 registers = 32768 registers per block: two blocks fill the file.
    result = roofcast.occupancy(h200, threads=256, registers_per_thread=128)
    assert result["blocks_per_sm"] == 2
    assert result["schema_version"] == 1 and result["kind"] == "occupancy"
    assert result["limiters"] == ["registers"]
    assert result["occupancy"] == pytest.approx(16 / 64)
    assert result["limits_blocks_per_sm"]["warps"] == 8
    assert result["headroom"]["registers_to_gain_block_per_thread"] == 48


def test_occupancy_shared_memory_limit_by_id():
    # 100 KiB per block (+1 KiB reserved) on 228 KiB: two blocks.
    result = roofcast.occupancy("h200-sxm", threads=128, registers_per_thread=32,
                                dynamic_shared_memory_bytes=100 * 1024)
    assert result["blocks_per_sm"] == 2
    assert "shared_memory" in result["limiters"]


def test_occupancy_of_a_block_that_cannot_launch(h200):
    result = roofcast.occupancy(h200, threads=2048, registers_per_thread=32)
    assert not result["launchable"] and result["blocks_per_sm"] == 0
    assert "threads" in result["cannot_launch_reason"] and result["headroom"] is None


def test_occupancy_rejects_bad_input_with_the_message(h200):
    with pytest.raises(ValueError, match="threads_per_block"):
        roofcast.occupancy(h200, threads=0, registers_per_thread=32)


# ---- configs and predict -------------------------------------------------------------------


def test_tile_config_derives_threads_and_round_trips():
    config = roofcast.TileConfig(**dict(R9, threads=0))
    assert config.threads == 256 and config.violated_rule is None
    assert config.kernel_id.startswith("r09-")
    assert roofcast.TileConfig(**config.to_dict()) == config
    assert roofcast.TileConfig.from_id(config.kernel_id) == config
    with pytest.raises(ValueError, match="kernel id"):
        roofcast.TileConfig.from_id("r09-nonsense")
    assert config.shared_memory_bytes == 4 * 3 * (16 * (256 + 4) + 16 * 128)
    broken = roofcast.TileConfig(**dict(R9, bk=64))
    assert "BK" in broken.violated_rule
    with pytest.raises(ValueError, match="layout"):
        roofcast.TileConfig(**dict(R9, layout="diagonal"))


def test_predict_explains_its_time(h200):
    config = roofcast.TileConfig(**R9)
    p = roofcast.predict(h200, SQUARE, config)
    assert isinstance(p, roofcast.Prediction) and isinstance(p, collections.abc.Mapping)
    assert p["schema_version"] == 1 and p["kind"] == "prediction"
    assert p.launchable and p["launchable"] and p["calibration"]["calibrated"]
    assert p.time_s == p["time_s"] > 0 and p.tflops == p["tflops"]
    assert p.kernel_id == p["kernel"]["id"] == config.kernel_id
    assert p.tflops == pytest.approx(2 * 4096**3 / p.time_s / 1e12, rel=1e-9)
    assert p.tflops <= h200.peak_TFLOPS.fp32
    assert p["kernel"]["config"]["threads"] == 256 and p["occupancy"]["blocks_per_sm"] >= 1
    assert 0 < p["occupancy"]["occupancy"] <= 1 and p["occupancy"]["limiters"]
    assert p["waves"]["grid_blocks"] == (4096 // 256) * (4096 // 128)
    assert p["binding_term"] + "_s" in p["terms"]
    assert p["roofline"]["binding"] in ("compute", "shared_memory", "l2", "dram")
    assert 0 <= p["l2"]["l2_operand_hit_rate"] <= 1 and 0 <= p["l2"]["l2_sector_hit_rate"] <= 1
    assert set(p["terms"]) == {"issue_s", "shared_memory_s", "latency_s", "l2_s", "dram_s",
                               "spill_s"}
    assert json.loads(p.to_json()) == p.to_dict() == dict(p)
    uncalibrated = roofcast.predict(h200, SQUARE, config, calibrated=False)
    assert not uncalibrated["calibration"]["calibrated"] and uncalibrated.time_s != p.time_s


def test_predict_takes_raster_and_registers(h200):
    config = roofcast.TileConfig(**R9)
    grouped = roofcast.predict(h200, SQUARE, config, raster="grouped:8")
    assert grouped["kernel"]["raster"] == "grouped:8"
    given = roofcast.predict(h200, SQUARE, config, registers_per_thread=168)
    assert given["kernel"]["registers_per_thread"] == 168
    assert not given["kernel"]["registers_estimated"]


def test_predict_errors_surface_as_value_errors(h200):
    with pytest.raises(ValueError, match="tile rule"):
        roofcast.predict(h200, SQUARE, roofcast.TileConfig(**dict(R9, bk=64)))
    with pytest.raises(ValueError, match="M, N and K must be within 1..2147483647"):
        roofcast.predict(h200, (0, 4096, 4096), roofcast.TileConfig(**R9))
    with pytest.raises(ValueError, match="raster"):
        roofcast.predict(h200, SQUARE, roofcast.TileConfig(**R9), raster="diagonal")
    with pytest.raises(TypeError):
        roofcast.predict(42, SQUARE, roofcast.TileConfig(**R9))


# ---- the space -----------------------------------------------------------------------------


def test_enumerated_configs_obey_the_bounds_and_the_rules(h200):
    bounds = roofcast.SpaceBounds(rungs=[9], k_tiles=[8, 16], stages=[2, 3])
    configs = roofcast.enumerate_configs(h200, bounds)
    assert configs
    assert len(set(configs)) == len(configs)
    for config in configs:
        assert config.rung == 9 and config.bk in (8, 16) and config.stages in (2, 3)
        assert config.violated_rule is None
        assert roofcast.exclusion(h200, config) == ("none", "")
        assert config.threads == config.derived_threads
    assert roofcast.TileConfig(**R9) in configs  # the ladder's rung-9 headline


def test_candidates_repeat_each_config_per_raster_order(h200):
    bounds = roofcast.SpaceBounds(rungs=[4, 9], rasters=["row_major", "grouped:8"])
    assert bounds.rasters == ["row_major", "grouped:8"]
    configs = roofcast.enumerate_configs(h200, bounds)
    candidates = roofcast.enumerate_candidates(h200, bounds)
    rung4 = sum(1 for c in configs if c.rung == 4)
    assert len(candidates) == rung4 + 2 * (len(configs) - rung4)
    assert roofcast.with_raster_orders(configs, bounds) == candidates


def test_exclusion_says_why(h200):
    v100 = roofcast.spec("v100-sxm2-32gb")
    reason, detail = roofcast.exclusion(v100, roofcast.TileConfig(**R9))
    assert reason == "compute_capability" and "8.0" in detail
    reason, detail = roofcast.exclusion(h200, roofcast.TileConfig(**dict(R9, bk=64)))
    assert reason == "tile_rule" and "BK" in detail


def test_bad_bounds_name_the_field(h200):
    with pytest.raises(ValueError, match="SpaceBounds.rungs"):
        roofcast.enumerate_configs(h200, roofcast.SpaceBounds(rungs=[]))
    with pytest.raises(ValueError, match="z_order"):
        roofcast.enumerate_candidates(h200, roofcast.SpaceBounds(rasters=["z_order"]))
    with pytest.raises(TypeError, match="unknown field"):
        roofcast.SpaceBounds(tiles=[1])


# ---- rank ----------------------------------------------------------------------------------


def test_rank_default_space_top3_fastest_first(h200):
    document = roofcast.rank(h200, SQUARE, top=3)
    assert document["schema_version"] == 1 and document["kind"] == "ranking"
    assert document["gpu"]["id"] == "h200-sxm" and document["calibrated"]
    (ranking,) = document["problems"]
    ranked = ranking["ranked"]
    assert len(ranked) == 3
    assert tuple(ranking["problem"][axis] for axis in "mnk") == SQUARE
    times = [r["time_s"] for r in ranked]
    assert times == sorted(times) and times[0] > 0
    pruned = sum(ranking["pruned_candidates"].values())
    assert ranking["candidates"] == ranking["kept"] + ranking["other_rasters"] + pruned
    assert ranking["candidates"] == len(roofcast.enumerate_candidates(h200))
    for r in ranked:
        assert set(r) >= {"candidate_index", "config", "kernel_id", "raster", "time_s", "tflops",
                          "explanation"}
        assert r["explanation"]["limiters"]


def test_rank_equals_predict(h200):
    bounds = roofcast.SpaceBounds(rungs=[9], block_tiles=[128], k_tiles=[16], stages=[3],
                                  rasters=["row_major"])
    candidates = roofcast.enumerate_candidates(h200, bounds)
    ranking = roofcast.rank(h200, SQUARE, candidates=candidates)["problems"][0]
    assert ranking["kept"] == len(ranking["ranked"]) > 0
    for r in ranking["ranked"]:
        candidate = candidates[r["candidate_index"]]
        p = roofcast.predict(h200, SQUARE, candidate.config, raster=candidate.raster)
        assert r["time_s"] == pytest.approx(p.time_s, rel=1e-12)
        why = r["explanation"]
        assert why["limiters"] == p["occupancy"]["limiters"]
        assert why["blocks_per_sm"] == p["occupancy"]["blocks_per_sm"]
        assert why["l2_operand_hit_rate"] == p["l2"]["l2_operand_hit_rate"]
        assert why["l2_sector_hit_rate"] == p["l2"]["l2_sector_hit_rate"]
        assert why["binding_term"] == p["binding_term"]
        assert r["config"] == p["kernel"]["config"]
        assert roofcast.TileConfig(**r["config"]) == candidate.config


def test_rank_pruning_rules(h200):
    bounds = roofcast.SpaceBounds(rungs=[7, 9])
    everything = roofcast.rank(h200, SQUARE, bounds=bounds)["problems"][0]
    pruned = roofcast.rank(h200, SQUARE, bounds=bounds, min_occupancy=0.25,
                           min_blocks_per_sm=2, drop_spilling=True, list_pruned=True)
    pruned = pruned["problems"][0]
    assert 0 < pruned["kept"] < everything["kept"]
    assert "pruned" not in everything  # listed only when asked for
    for r in pruned["ranked"]:
        assert r["explanation"]["occupancy"] >= 0.25 and r["explanation"]["blocks_per_sm"] >= 2
        assert r["explanation"]["spill_bytes_per_thread"] == 0
    reasons = {p["reason"] for p in pruned["pruned"]}
    assert reasons <= {"not_launchable", "spills", "low_occupancy", "few_blocks"}
    assert len(pruned["pruned"]) == sum(pruned["pruned_candidates"].values())


def test_rank_best_raster_only_keeps_one_raster_per_config(h200):
    ranking = roofcast.rank(h200, SQUARE, bounds=roofcast.SpaceBounds(rungs=[9]),
                            best_raster_only=True)["problems"][0]
    ids = [r["kernel_id"] for r in ranking["ranked"]]
    assert len(ids) == len(set(ids)) and ranking["other_rasters"] > 0


def test_rank_errors(h200):
    with pytest.raises(ValueError, match="min_occupancy"):
        roofcast.rank(h200, SQUARE, min_occupancy=1.5)
    with pytest.raises(ValueError, match="not both"):
        roofcast.rank(h200, SQUARE, candidates=[], bounds=roofcast.SpaceBounds())
    with pytest.raises(ValueError, match="M, N"):
        roofcast.rank(h200, (4096, 0, 4096))
    broken = roofcast.Candidate(roofcast.TileConfig(**dict(R9, bk=64)))
    with pytest.raises(ValueError, match="BK"):
        roofcast.rank(h200, SQUARE, candidates=[broken])


def test_rank_by_gpu_id_and_spec_file(spec_file):
    by_id = roofcast.rank("h200-sxm", SQUARE, top=1)["problems"][0]["ranked"][0]
    by_file = roofcast.rank(str(spec_file), SQUARE, top=1)["problems"][0]["ranked"][0]
    assert by_id["kernel_id"] == by_file["kernel_id"]
    assert math.isclose(by_id["time_s"], by_file["time_s"], rel_tol=1e-12)
