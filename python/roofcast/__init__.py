"""roofcast: predict GPU SGEMM kernel performance analytically, and rank configs for tuners.

The C++ model and tuner API (roofcast._core). Results are the documents of docs/schema.md, the
same that the CLI prints with --json:

    >>> import roofcast
    >>> gpu = roofcast.spec("h200-sxm")
    >>> gpu.sm.max_threads_per_sm, gpu.chip.sm_count
    (2048, 132)
    >>> roofcast.occupancy(gpu, threads=256, registers_per_thread=128)["blocks_per_sm"]
    2
    >>> p = roofcast.predict(gpu, (4096, 4096, 4096), roofcast.TileConfig.from_id(
    ...     "r09_bm128_bn128_bk16_tm8_tn8_wm64_wn32_t256_s2_v4_plain"))  # doctest: +SKIP
    >>> p.tflops, p["occupancy"]["limiters"], p["l2"]["l2_operand_hit_rate"]  # doctest: +SKIP
    >>> best = roofcast.rank("h200-sxm", (4096, 4096, 4096), top=3)["problems"][0]["ranked"][0]
    >>> best["kernel_id"], best["time_s"], best["explanation"]["limiters"]  # doctest: +SKIP

`gpu` arguments take a GpuSpec, an embedded id ("h200-sxm") or a path to a spec file ending in
".json". Problems are (M, N, K). Tuner adapters (Triton, Kernel Tuner) are in
roofcast.adapters.
"""

from roofcast._core import (
    Candidate,
    ChipFigures,
    GpuSpec,
    MeasuredCeilings,
    PeakTflops,
    Prediction,
    SmLimits,
    SpaceBounds,
    SpecError,
    TileConfig,
    UnknownGpuError,
    __version__,
    embedded_ids,
    enumerate_candidates,
    enumerate_configs,
    exclusion,
    find_spec,
    load_spec,
    occupancy,
    predict,
    rank,
    spec,
    with_raster_orders,
)

__all__ = [
    "Candidate",
    "ChipFigures",
    "GpuSpec",
    "MeasuredCeilings",
    "PeakTflops",
    "Prediction",
    "SmLimits",
    "SpaceBounds",
    "SpecError",
    "TileConfig",
    "UnknownGpuError",
    "__version__",
    "embedded_ids",
    "enumerate_candidates",
    "enumerate_configs",
    "exclusion",
    "find_spec",
    "load_spec",
    "occupancy",
    "predict",
    "rank",
    "spec",
    "with_raster_orders",
]

# A Prediction reads like a read-only dict (the document); say so to isinstance checks.
import collections.abc as _abc

_abc.Mapping.register(Prediction)
