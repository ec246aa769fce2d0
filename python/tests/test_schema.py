"""docs/schema.md: the CLI and Python give the identical document for the same inputs.

The CLI binary comes from $ROOFCAST_CLI (scripts/test.sh sets it to the build's roofcast, so CI
never skips these), else build/cli/roofcast of this checkout; with neither the module is skipped
and says why.
"""

import json
import os
import pathlib
import subprocess

import pytest

import roofcast

REPO = pathlib.Path(__file__).resolve().parents[2]
CLI = pathlib.Path(os.environ.get("ROOFCAST_CLI", REPO / "build" / "cli" / "roofcast"))

if "ROOFCAST_CLI" in os.environ and not CLI.is_file():
    raise FileNotFoundError(f"ROOFCAST_CLI={CLI} is not a file")
if not CLI.is_file():
    pytest.skip(f"no roofcast CLI at {CLI} (set ROOFCAST_CLI): the identity tests compare "
                "its documents with Python's", allow_module_level=True)


def cli(*args):
    run = subprocess.run([str(CLI), *args, "--json"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


R9 = "r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded"
R10 = "r10-cluster-128x256x16-w64x64-t8x16-256t-s4-v4-padded-c2"


@pytest.mark.parametrize(
    "gpu, shape, kernel, raster, registers, beta",
    [
        ("h200-sxm", (4096, 4096, 4096), R9, "grouped:8", None, False),
        ("h200-sxm", (256, 4096, 4096), R9, "row_major", 168, True),
        ("h100-sxm5", (1999, 3001, 1537), "r06-bank-128x128x8-t8x8-256t-v4-swizzled",
         "column_major", None, False),
        ("v100-sxm2-32gb", (4096, 4096, 4096), "r04-tile2d-128x128x8-t8x8-256t", "row_major",
         None, False),
        ("a100-sxm4-80gb", (4096, 4096, 4096), R10, "row_major", None, False),  # cannot run
    ],
)
def test_predict_is_the_cli_document(gpu, shape, kernel, raster, registers, beta):
    m, n, k = shape
    args = ["predict", "--gpu", gpu, "--m", str(m), "--n", str(n), "--k", str(k), "--kernel",
            kernel, "--raster", raster]
    if registers is not None:
        args += ["--regs", str(registers)]
    if beta:
        args += ["--beta", "1"]
    expected = cli(*args)
    got = roofcast.predict(gpu, shape, roofcast.TileConfig.from_id(kernel), raster=raster,
                           registers_per_thread=registers, c_is_read=beta)
    assert got.to_dict() == expected
    assert json.loads(got.to_json()) == expected
    assert got.time_s == expected["time_s"] and got.tflops == expected["tflops"]


def test_uncalibrated_predict_is_the_cli_document():
    args = ["predict", "--gpu", "h200-sxm", "--m", "4096", "--n", "4096", "--k", "4096",
            "--kernel", R9, "--uncalibrated"]
    got = roofcast.predict("h200-sxm", (4096, 4096, 4096), roofcast.TileConfig.from_id(R9),
                           calibrated=False)
    assert got.to_dict() == cli(*args)


@pytest.mark.parametrize(
    "gpu, threads, registers, smem, dynamic, carveout",
    [
        ("h200-sxm", 256, 128, 0, 0, None),
        ("h100-sxm5", 128, 32, 1024, 100 * 1024, 50),
        ("v100-sxm2-32gb", 2048, 32, 0, 0, None),  # cannot launch
    ],
)
def test_occupancy_is_the_cli_document(gpu, threads, registers, smem, dynamic, carveout):
    args = ["occupancy", "--gpu", gpu, "--threads", str(threads), "--regs", str(registers),
            "--smem", str(smem), "--dynamic-smem", str(dynamic)]
    if carveout is not None:
        args += ["--carveout", str(carveout)]
    got = roofcast.occupancy(gpu, threads=threads, registers_per_thread=registers,
                             shared_memory_bytes=smem, dynamic_shared_memory_bytes=dynamic,
                             carveout_percent=carveout)
    assert got == cli(*args)


@pytest.mark.parametrize("gpu, shape", [("h200-sxm", (4096, 4096, 4096)),
                                        ("a100-sxm4-80gb", (256, 4096, 1024))])
def test_rank_is_the_cli_document(gpu, shape):
    m, n, k = shape
    expected = cli("rank", "--gpu", gpu, "--m", str(m), "--n", str(n), "--k", str(k), "--top",
                   "5")
    # The CLI lists each config in its fastest raster order unless --all-rasters.
    got = roofcast.rank(gpu, shape, top=5, best_raster_only=True)
    assert got == expected
