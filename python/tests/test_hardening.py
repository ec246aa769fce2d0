"""Bad input from Python (issue 13): the same bounds and errors as the CLI, never a crash."""

import json

import pytest

import roofcast

R9 = dict(rung=9, layout="padded", bm=256, bn=128, bk=16, tm=16, tn=8, wm=64, wn=64,
          threads=256, stages=3, vector_width=4)


def test_overflowing_numbers_in_a_spec_are_a_spec_error(tmp_path, spec_file):
    text = spec_file.read_text().replace('"boost_clock_MHz": 1980', '"boost_clock_MHz": 1e400')
    assert "1e400" in text
    bad = tmp_path / "overflow.json"
    bad.write_text(text.replace('"id": "h200-sxm"', '"id": "overflow"'))
    with pytest.raises(roofcast.SpecError) as error:
        roofcast.load_spec(str(bad))
    assert error.value.field == "chip.boost_clock_MHz"
    assert "finite" in error.value.expectation


def test_a_spec_that_breaks_the_model_is_refused_by_the_loader(tmp_path, spec_file):
    document = json.loads(spec_file.read_text())
    document["id"] = "split-sixteen"
    document["sm"]["register_file_subpartitions"] = 16
    path = tmp_path / "sixteen.json"
    path.write_text(json.dumps(document))
    gpu = roofcast.load_spec(str(path))
    # Killed the interpreter with SIGFPE before: no block fits, so there is no headroom.
    result = roofcast.occupancy(gpu, threads=32, registers_per_thread=255)
    assert result["blocks_per_sm"] == 0
    assert result["launchable"] is False
    assert "no block fits" in result["cannot_launch_reason"]


def test_extents_are_bounded_as_everywhere_else(h200):
    config = roofcast.TileConfig(**R9)
    for problem in [(2**31, 4096, 4096), (4096, 0, 4096), (2**62, 2**62, 2**62)]:
        with pytest.raises(ValueError, match="within 1..2147483647"):
            roofcast.predict(h200, problem, config)
        with pytest.raises(ValueError, match="within 1..2147483647"):
            roofcast.rank(h200, problem, candidates=[roofcast.Candidate(config)])


def test_spills_need_registers_and_are_never_negative(h200):
    config = roofcast.TileConfig(**R9)
    with pytest.raises(ValueError, match="spill_bytes_per_thread must be >= 0"):
        roofcast.predict(h200, (4096, 4096, 4096), config, registers_per_thread=128,
                         spill_bytes_per_thread=-4096)
    with pytest.raises(ValueError, match="needs registers_per_thread"):
        roofcast.predict(h200, (4096, 4096, 4096), config, spill_bytes_per_thread=64)
    spilled = roofcast.predict(h200, (4096, 4096, 4096), config, registers_per_thread=128,
                               spill_bytes_per_thread=64)
    clean = roofcast.predict(h200, (4096, 4096, 4096), config, registers_per_thread=128)
    assert spilled["time_s"] >= clean["time_s"]


def test_bad_types_are_type_errors(h200):
    with pytest.raises(TypeError):
        roofcast.predict(h200, ("4096", 4096, 4096), roofcast.TileConfig(**R9))
    with pytest.raises(TypeError):
        roofcast.predict(12, (4096, 4096, 4096), roofcast.TileConfig(**R9))
    with pytest.raises(TypeError):
        roofcast.rank(h200, (4096, 4096, 4096), candidates=[1, 2])
    with pytest.raises(TypeError):
        roofcast.TileConfig(rung="nine", bm=1, bn=1)
    # These raised RuntimeError("Unable to cast ...") before.
    with pytest.raises(TypeError):
        roofcast.SpaceBounds(rungs="nine")
    with pytest.raises(TypeError):
        roofcast.SpaceBounds(rasters=[1, 2])


def test_tile_fields_beyond_any_kernel_are_refused(h200):
    config = roofcast.TileConfig(**R9)
    config.bm = 2**30
    with pytest.raises(ValueError, match="BM and BN"):
        roofcast.predict(h200, (4096, 4096, 4096), config)


def test_a_kernel_the_gpu_cannot_run_has_no_time():
    # Rung 10 (thread-block clusters) on an A100, rung 9 (cp.async) on a V100: came back as
    # launchable with a TFLOPS figure.
    r10 = roofcast.TileConfig(rung=10, layout="padded", bm=128, bn=256, bk=16, tm=8, tn=16, wm=64,
                              wn=64, threads=256, stages=4, vector_width=4, cluster=2)
    for gpu, config in [("a100-sxm4-80gb", r10), ("v100-sxm2-32gb", roofcast.TileConfig(**R9))]:
        p = roofcast.predict(gpu, (4096, 4096, 4096), config)
        assert p["launchable"] is False and p.launchable is False
        assert p["time_s"] is None and p["tflops"] is None
        assert p.time_s is None and p.tflops is None
        assert "compute capability" in p["cannot_launch_reason"]
        assert "calibration" not in p  # no time, so no time model either
    assert roofcast.predict("h200-sxm", (4096, 4096, 4096), r10)["cannot_launch_reason"] is None
