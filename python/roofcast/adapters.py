"""Adapters that let autotuners prune their search spaces with roofcast's predictions.

triton_early_config_prune
    A Triton autotune pruner: ``@triton.autotune(configs, key=[...],
    prune_configs_by={"early_config_prune": triton_early_config_prune("h200-sxm", keep=4)})``.
    Each Triton config (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) is scored as the
    fastest prediction among roofcast's rung-9 (cp.async pipeline) kernels with the same block
    tile, K tile, threads (32 * num_warps) and stages; the kept configs come back fastest first.

kernel_tuner_restriction
    A Kernel Tuner restriction: ``tune_kernel(..., restrictions=[kernel_tuner_restriction(
    "h200-sxm", (M, N, K), rung=9, names={...})])``. It admits a point of the search space when
    the roofcast config it describes obeys the kernels' tile rules, fits the GPU and is not
    pruned (occupancy floor, blocks per SM, spills, predicted time within a factor of the best).

Both are pure CPU: no GPU, no Triton and no Kernel Tuner import needed.
"""

from __future__ import annotations

import inspect
import itertools
import math
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from roofcast import _core

__all__ = ["triton_early_config_prune", "kernel_tuner_restriction"]

Problem = Tuple[int, int, int]

# ---- Triton ------------------------------------------------------------------------------------

# Config keys Triton kernels use for the tile (the tutorials' BLOCK_SIZE_* and the older
# BLOCK_*), first match wins; GROUP_SIZE_M / GROUP_M is the grouped ("swizzled") launch order.
_TRITON_KEYS = {
    "bm": ("BLOCK_M", "BLOCK_SIZE_M"),
    "bn": ("BLOCK_N", "BLOCK_SIZE_N"),
    "bk": ("BLOCK_K", "BLOCK_SIZE_K"),
    "group": ("GROUP_M", "GROUP_SIZE_M"),
}
# triton.Config's defaults.
_TRITON_DEFAULT_WARPS = 4
_TRITON_DEFAULT_STAGES = 3
# The rung Triton configs are mapped to: cp.async pipeline, 2..4 stages (the closest of the
# ladder's kernels to what Triton generates for an FP32 matmul without tensor cores).
_TRITON_RUNG = 9


def _triton_fields(config: Any) -> Tuple[Mapping[str, Any], Any, Any]:
    """(tile parameters, num_warps, num_stages) of a triton.Config or a plain dict."""
    if isinstance(config, Mapping):
        return (
            config,
            config.get("num_warps", _TRITON_DEFAULT_WARPS),
            config.get("num_stages", _TRITON_DEFAULT_STAGES),
        )
    kwargs = getattr(config, "kwargs", None)
    if not isinstance(kwargs, Mapping):
        raise TypeError(
            f"triton_early_config_prune: config {config!r} is neither a dict nor a triton.Config "
            "(an object with .kwargs, .num_warps, .num_stages)"
        )
    warps = getattr(config, "num_warps", None)
    stages = getattr(config, "num_stages", None)
    return (
        kwargs,
        _TRITON_DEFAULT_WARPS if warps is None else warps,
        _TRITON_DEFAULT_STAGES if stages is None else stages,
    )


def _lookup(kwargs: Mapping[str, Any], field: str) -> Optional[Any]:
    for key in _TRITON_KEYS[field]:
        if key in kwargs:
            return kwargs[key]
    return None


def _positive_int(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 1 and number == value else None


def _check_rules(min_occupancy: float, min_blocks_per_sm: int = 0) -> None:
    if not 0 <= min_occupancy <= 1:
        raise ValueError(f"min_occupancy: expected 0..1, got {min_occupancy}")
    if min_blocks_per_sm < 0:
        raise ValueError(f"min_blocks_per_sm: expected >= 0, got {min_blocks_per_sm}")


def _keep_count(keep: Union[None, int, float], scored: int) -> int:
    if keep is None:
        return scored
    if isinstance(keep, float):
        return min(scored, max(1, math.ceil(keep * scored))) if scored else 0
    return min(scored, keep)


def triton_early_config_prune(
    gpu: Union[str, "_core.GpuSpec"] = "h200-sxm",
    keep: Union[None, int, float] = None,
    *,
    problem: Optional[Problem] = None,
    m: str = "M",
    n: str = "N",
    k: str = "K",
    unsupported: str = "last",
    min_occupancy: float = 0.0,
    drop_spilling: bool = False,
    calibrated: bool = True,
) -> Callable[..., List[Any]]:
    """A Triton ``early_config_prune`` function: ``fn(configs, named_args, **kwargs) -> list``.

    gpu: a GpuSpec, an embedded id or a spec file (.json).
    keep: how many scored configs to return: None (all), an int N >= 1, or a float fraction in
        (0, 1] of the scored configs (rounded up, at least one).
    problem: (M, N, K); when None they are read from the kernel's arguments named `m`, `n`,
        `k` (``named_args`` first, then the call's keyword arguments).
    unsupported: what happens to a config roofcast cannot score, "last" (kept after the scored
        ones, in their given order; the default: a config outside the ladder's vocabulary is
        unknown, not slow) or "drop".
    min_occupancy, drop_spilling: rank()'s pruning rules applied to the rung-9 kernels.
    calibrated: use the GPU's committed calibration when it has one.

    A config maps to roofcast's rung-9 kernels with BM = BLOCK_M, BN = BLOCK_N, BK = BLOCK_K,
    threads = 32 * num_warps and stages = num_stages, every thread tile, warp tile and A load
    width the kernels' tile rules allow for those (the enumerated space restricted to them), and
    the raster order grouped:GROUP_SIZE_M when the config has a group size, else row-major. Its
    score is the fastest of those predictions. It cannot be scored when no such kernel exists
    (BLOCK_K not 8, 16, 24 or 32, num_stages outside 2..4, threads that no warp tiling of the
    block gives, a tile that does not fit the GPU) or every one is pruned. Configs come back
    as the same objects, scored ones fastest first (ties keep their given order).

    The function keeps its last scoring in ``fn.last_scores``: one dict per given config
    (config, time_s or None, kernel_id and raster of the best kernel, or None).
    """
    if unsupported not in ("last", "drop"):
        raise ValueError(f"unsupported: expected 'last' or 'drop', got {unsupported!r}")
    if keep is not None:
        if isinstance(keep, bool) or not isinstance(keep, (int, float)):
            raise TypeError(f"keep: expected None, an int or a float, got {keep!r}")
        if isinstance(keep, float) and not 0 < keep <= 1:
            raise ValueError(f"keep: a fraction must be in (0, 1], got {keep}")
        if isinstance(keep, int) and keep < 1:
            raise ValueError(f"keep: a count must be >= 1, got {keep}")
    _check_rules(min_occupancy)
    spec = gpu if isinstance(gpu, _core.GpuSpec) else _core.find_spec(gpu)
    # Rung-9 tile configs per (BM, BN, BK, threads, stages): enumeration is cheap, but the
    # autotuner calls the pruner once per new key, so keep them.
    kernels_by_shape: Dict[Tuple[int, int, int, int, int], List[Any]] = {}

    def rung9_configs(bm: int, bn: int, bk: int, threads: int, stages: int) -> List[Any]:
        shape = (bm, bn, bk, threads, stages)
        if shape not in kernels_by_shape:
            bounds = _core.SpaceBounds(
                rungs=[_TRITON_RUNG], block_tiles=sorted({bm, bn}), k_tiles=[bk], stages=[stages]
            )
            kernels_by_shape[shape] = [
                c
                for c in _core.enumerate_configs(spec, bounds)
                if c.bm == bm and c.bn == bn and c.threads == threads
            ]
        return kernels_by_shape[shape]

    def problem_of(named_args: Mapping[str, Any], kwargs: Mapping[str, Any]) -> Problem:
        if problem is not None:
            return tuple(int(v) for v in problem)  # type: ignore[return-value]
        dims = []
        for name in (m, n, k):
            if name in named_args:
                dims.append(int(named_args[name]))
            elif name in kwargs:
                dims.append(int(kwargs[name]))
            else:
                raise KeyError(
                    f"triton_early_config_prune: the kernel has no argument {name!r} (give "
                    "problem=(M, N, K) or the argument names m=, n=, k=)"
                )
        return (dims[0], dims[1], dims[2])

    def early_config_prune(configs: Sequence[Any], named_args: Mapping[str, Any], **kwargs: Any):
        shape = problem_of(named_args or {}, kwargs)
        candidates = []
        owner = []  # config index of each candidate
        rasters = []
        for i, config in enumerate(configs):
            tile, warps, stages = _triton_fields(config)
            values = [_positive_int(_lookup(tile, f)) for f in ("bm", "bn", "bk")]
            warps, stages = _positive_int(warps), _positive_int(stages)
            group = _lookup(tile, "group")
            raster = "row_major"
            if group is not None:
                group = _positive_int(group)
                raster = f"grouped:{group}" if group else ""
            rasters.append(raster)
            if None in values or warps is None or stages is None or not raster:
                continue
            for kernel in rung9_configs(values[0], values[1], values[2], 32 * warps, stages):
                candidates.append(_core.Candidate(kernel, raster))
                owner.append(i)
        best: Dict[int, Dict[str, Any]] = {}
        if candidates:
            ranking = _core.rank(
                spec,
                shape,
                candidates=candidates,
                min_occupancy=min_occupancy,
                drop_spilling=drop_spilling,
                calibrated=calibrated,
            )
            for item in ranking["problems"][0]["ranked"]:  # fastest first: the first is the best
                best.setdefault(owner[item["candidate_index"]], item)
        scores = []
        for i, config in enumerate(configs):
            item = best.get(i)
            scores.append(
                {
                    "config": config,
                    "time_s": item["time_s"] if item else None,
                    "kernel_id": item["kernel_id"] if item else None,
                    "raster": item["raster"] if item else None,
                    "explanation": item["explanation"] if item else None,
                }
            )
        early_config_prune.last_scores = scores
        scored = sorted(best, key=lambda i: (best[i]["time_s"], i))
        kept = [configs[i] for i in scored[: _keep_count(keep, len(scored))]]
        if unsupported == "last":
            kept.extend(config for i, config in enumerate(configs) if i not in best)
        return kept

    early_config_prune.last_scores = []
    return early_config_prune


# ---- Kernel Tuner ------------------------------------------------------------------------------

# roofcast's TileConfig fields and the Kernel Tuner parameter names read for them by default.
_DEFAULT_NAMES = {
    "bm": "BM",
    "bn": "BN",
    "bk": "BK",
    "tm": "TM",
    "tn": "TN",
    "wm": "WM",
    "wn": "WN",
    "threads": "block_size_x",
    "stages": "STAGES",
    "vector_width": "VECTOR_WIDTH",
    "cluster": "CLUSTER",
    "layout": "LAYOUT",
}
_FIELDS = tuple(_DEFAULT_NAMES)


def _rung_defaults(rung: int) -> Dict[str, Any]:
    """Values of the fields a Kernel Tuner space does not set: what the rung's rules require
    where there is one choice (rungs 1-2: TM = TN = 1; rung 2: BK = BM; vector width 4 on
    rungs 5-8; one stage on rung 7, two on rung 8), else the ladder's usual choice (padded
    layout on rungs 6-10, 3 stages and float4 A loads on rungs 9-10, no cluster)."""
    defaults: Dict[str, Any] = {
        "bk": 0,
        "tm": 0,
        "tn": 0,
        "wm": 0,
        "wn": 0,
        "threads": 0,
        "stages": 1,
        "vector_width": 1,
        "cluster": 1,
        "layout": "plain",
    }
    if rung <= 2:
        defaults.update(tm=1, tn=1)
    if rung >= 5:
        defaults["vector_width"] = 4
    if rung >= 6:
        defaults["layout"] = "padded"
    if rung == 8:
        defaults["stages"] = 2
    if rung >= 9:
        defaults["stages"] = 3
    return defaults


def kernel_tuner_restriction(
    gpu: Union[str, "_core.GpuSpec"],
    problem: Problem,
    rung: int = 9,
    *,
    names: Optional[Mapping[str, str]] = None,
    fixed: Optional[Mapping[str, Any]] = None,
    raster: str = "row_major",
    min_occupancy: float = 0.0,
    min_blocks_per_sm: int = 0,
    drop_spilling: bool = False,
    within: Optional[float] = None,
    tune_params: Optional[Mapping[str, Iterable[Any]]] = None,
    calibrated: bool = True,
) -> Callable[..., bool]:
    """A Kernel Tuner restriction ``f(params) -> bool`` for roofcast rung `rung` kernels.

    names: Kernel Tuner parameter name per roofcast field, merged over the defaults BM, BN, BK,
        TM, TN, WM, WN, block_size_x (threads), STAGES, VECTOR_WIDTH, CLUSTER, LAYOUT. A field
        whose parameter is not in the point takes `fixed`'s value, else the rung's default
        (threads: derived from the tile; see _rung_defaults).
    raster: the launch order the kernel uses ("row_major", "column_major", "grouped:G").
    min_occupancy, min_blocks_per_sm, drop_spilling: rank()'s pruning rules.
    within: admit only points predicted at most (1 + within) times the best time: the fastest
        point that passes the other rules, over `tune_params` (the product of the mapped
        parameters' values) when given, else over roofcast's enumerated space of the rung on
        the GPU with this raster order (computed once, on the first call that needs it).
    tune_params: the Kernel Tuner space, for `within` and for positional calls (below).

    A point is admitted when its config obeys the kernels' tile rules and fits the GPU
    (roofcast.exclusion is "none"), can launch, and survives the pruning rules. The function
    accepts the point as one dict (Kernel Tuner's single-restriction form), as keyword
    arguments (its checks of a restriction list), or positionally in the order of
    ``tune_params`` (python-constraint, when it is one of several restrictions; needs
    tune_params). ``f.explain(params)`` returns why a point is or is not admitted.
    """
    mapping = dict(_DEFAULT_NAMES)
    if names:
        unknown = set(names) - set(_FIELDS)
        if unknown:
            raise ValueError(f"names: unknown roofcast fields {sorted(unknown)}; known: {_FIELDS}")
        mapping.update(names)
    fixed = dict(fixed or {})
    unknown = set(fixed) - set(_FIELDS)
    if unknown:
        raise ValueError(f"fixed: unknown roofcast fields {sorted(unknown)}; known: {_FIELDS}")
    _check_rules(min_occupancy, min_blocks_per_sm)
    if within is not None and not within >= 0:
        raise ValueError(f"within: expected a fraction >= 0, got {within}")
    spec = gpu if isinstance(gpu, _core.GpuSpec) else _core.find_spec(gpu)
    shape = tuple(int(v) for v in problem)
    if len(shape) != 3:
        raise ValueError(f"problem: expected (M, N, K), got {problem!r}")
    defaults = _rung_defaults(rung)
    defaults.update(fixed)
    order = list(tune_params) if tune_params is not None else None
    if not 1 <= rung <= 10:
        raise ValueError(f"rung: expected 1..10, got {rung}")
    _core.Candidate(_core.TileConfig(rung=rung, bm=1, bn=1), raster)  # checks the raster order
    cache: Dict[Tuple[Any, ...], Dict[str, Any]] = {}

    def config_of(params: Mapping[str, Any]) -> Dict[str, Any]:
        fields = {}
        for field in _FIELDS:
            name = mapping[field]
            fields[field] = params[name] if name in params else defaults.get(field)
        for field in ("bm", "bn"):
            if fields[field] is None:
                raise KeyError(
                    f"kernel_tuner_restriction: the point has no {mapping[field]!r} and fixed= "
                    f"gives no {field}"
                )
        for field in _FIELDS:
            if field != "layout":
                fields[field] = int(fields[field])
        if rung == 2 and mapping["bk"] not in params and "bk" not in fixed:
            fields["bk"] = fields["bm"]
        return fields

    def judge(fields: Dict[str, Any]) -> Dict[str, Any]:
        key = tuple(fields[f] for f in _FIELDS)
        if key in cache:
            return cache[key]
        config = _core.TileConfig(rung=rung, **fields)
        reason, detail = _core.exclusion(spec, config)
        verdict: Dict[str, Any] = {"config": config.to_dict(), "kernel_id": config.kernel_id}
        if reason != "none":
            verdict.update(admitted=False, reason=reason, detail=detail, time_s=None)
        else:
            ranking = _core.rank(
                spec,
                shape,
                candidates=[_core.Candidate(config, raster)],
                min_occupancy=min_occupancy,
                min_blocks_per_sm=min_blocks_per_sm,
                drop_spilling=drop_spilling,
                calibrated=calibrated,
                list_pruned=True,
            )
            result = ranking["problems"][0]
            if result["ranked"]:
                item = result["ranked"][0]
                verdict.update(
                    admitted=True,
                    reason="none",
                    detail="",
                    time_s=item["time_s"],
                    explanation=item["explanation"],
                )
            else:
                verdict.update(
                    admitted=False,
                    reason=result["pruned"][0]["reason"],
                    detail="pruned by rank()",
                    time_s=None,
                )
        cache[key] = verdict
        return verdict

    best: List[Optional[float]] = []  # computed once, on the first call that needs it

    def best_time() -> Optional[float]:
        if not best:
            times = []
            if tune_params is not None:
                mapped = [name for name in dict.fromkeys(mapping.values()) if name in tune_params]
                for values in itertools.product(*(list(tune_params[name]) for name in mapped)):
                    verdict = judge(config_of(dict(zip(mapped, values))))
                    if verdict["admitted"]:
                        times.append(verdict["time_s"])
            else:
                bounds = _core.SpaceBounds(rungs=[rung], rasters=[raster])
                ranking = _core.rank(
                    spec,
                    shape,
                    bounds=bounds,
                    top=1,
                    min_occupancy=min_occupancy,
                    min_blocks_per_sm=min_blocks_per_sm,
                    drop_spilling=drop_spilling,
                    calibrated=calibrated,
                )
                times = [item["time_s"] for item in ranking["problems"][0]["ranked"]]
            best.append(min(times) if times else None)
        return best[0]

    def explain(params: Mapping[str, Any]) -> Dict[str, Any]:
        """Why the point is admitted or not: config, kernel_id, admitted, reason, detail,
        time_s (and explanation, the ranked entry's explanation, when it launches)."""
        verdict = dict(judge(config_of(params)))
        if verdict["admitted"] and within is not None:
            reference = best_time()
            verdict["best_time_s"] = reference
            if reference is not None and verdict["time_s"] > (1 + within) * reference:
                verdict.update(
                    admitted=False,
                    reason="slow",
                    detail=f"predicted {verdict['time_s'] / reference:.3f}x the best time",
                )
        return verdict

    def restriction(*args: Any, **kwargs: Any) -> bool:
        if kwargs and not args:
            params: Mapping[str, Any] = kwargs
        elif len(args) == 1 and not kwargs and isinstance(args[0], Mapping):
            params = args[0]
        elif args and not kwargs and order is not None and len(args) == len(order):
            params = dict(zip(order, args))
        else:
            raise TypeError(
                "kernel_tuner_restriction: call with the point as a dict, as keyword arguments, "
                "or positionally in tune_params order (pass tune_params= for that)"
            )
        return bool(explain(params)["admitted"])

    # Kernel Tuner passes the whole point as one dict to a restriction that takes one parameter.
    restriction.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("params", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    )
    restriction.explain = explain  # type: ignore[attr-defined]
    restriction.params = order  # type: ignore[attr-defined]
    return restriction
