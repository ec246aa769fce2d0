"""roofcast: predict GPU SGEMM kernel performance analytically, and rank configs for tuners.

The C++ model and tuner API (roofcast._core) with results as plain dicts:

    >>> import roofcast
    >>> gpu = roofcast.spec("h200-sxm")
    >>> gpu.sm.max_threads_per_sm, gpu.chip.sm_count
    (2048, 132)
    >>> roofcast.occupancy(gpu, threads=256, registers_per_thread=128)["blocks_per_sm"]
    2
    >>> best = roofcast.rank("h200-sxm", (4096, 4096, 4096), top=3)["ranked"][0]
    >>> best["kernel_id"], best["time_s"], best["why"]["occupancy_limiter"]  # doctest: +SKIP

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
