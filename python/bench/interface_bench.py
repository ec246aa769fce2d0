"""Python's per-call cost against the same C++ call, like for like (README "Speed").

    python python/bench/interface_bench.py --build build

times roofcast.predict (the rung-9 headline at 4096^3 on the H200, reading .tflops) and
roofcast.rank (the H200's default enumerated space at 4096^3, top 10, given as a candidate list),
then runs the C++ benchmarks of the same calls (rank_bench BM_predict_like_python and
BM_rank_default_space) and prints both and their ratio. Run it on a quiet machine, one core
(e.g. taskset -c 1).
"""

import argparse
import json
import pathlib
import subprocess
import sys
import time
import timeit

import roofcast

R9 = "r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded"
SQUARE = (4096, 4096, 4096)


def python_predict_seconds(repeat):
    gpu = roofcast.spec("h200-sxm")
    config = roofcast.TileConfig.from_id(R9)
    number = 20000
    return min(timeit.repeat(lambda: roofcast.predict(gpu, SQUARE, config).tflops,
                             number=number, repeat=repeat)) / number


def python_rank_seconds_per_candidate(repeat):
    gpu = roofcast.spec("h200-sxm")
    candidates = roofcast.enumerate_candidates(gpu)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        roofcast.rank(gpu, SQUARE, candidates=candidates, top=10)
        best = min(best, time.perf_counter() - start)
    return best / len(candidates), len(candidates)


def cpp_seconds_per_item(binary, name):
    """Seconds per item of a Google Benchmark (1 / items_per_second), min over repetitions."""
    run = subprocess.run([str(binary), f"--benchmark_filter=^{name}$", "--benchmark_format=json",
                          "--benchmark_repetitions=5"], capture_output=True, text=True,
                         check=True)
    rates = [b["items_per_second"] for b in json.loads(run.stdout)["benchmarks"]
             if b.get("run_type") == "iteration"]
    return 1 / max(rates)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=pathlib.Path, default=pathlib.Path("build"),
                        help="the CMake build folder holding the C++ benchmarks")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rank_bench = args.build / "tune" / "bench" / "rank_bench"
    for binary in (rank_bench,):
        if not binary.is_file():
            sys.exit(f"interface_bench: {binary} not found (build with benchmarks: --build DIR)")
    py_predict = python_predict_seconds(args.repeat)
    cpp_predict = cpp_seconds_per_item(rank_bench, "BM_predict_like_python")
    py_rank, candidates = python_rank_seconds_per_candidate(args.repeat)
    cpp_rank = cpp_seconds_per_item(rank_bench, "BM_rank_default_space")
    print(f"predict, one call:        Python {py_predict * 1e6:6.2f} us   "
          f"C++ {cpp_predict * 1e6:6.2f} us   ratio {py_predict / cpp_predict:.2f}")
    print(f"rank, per candidate ({candidates}): Python {py_rank * 1e9:6.0f} ns   "
          f"C++ {cpp_rank * 1e9:6.0f} ns   ratio {py_rank / cpp_rank:.2f}")


if __name__ == "__main__":
    main()
