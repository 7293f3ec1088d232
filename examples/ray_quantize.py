#!/usr/bin/env python3
"""Quantize float32 data with tensorcast in Ray Data ``map_batches`` (numpy batches).

A dataset of float32 values (column ``data``, one Arrow block per chunk) is cast batch by
batch inside Ray tasks: float32 -> FLOAT8E4M3FN and float32 -> BFLOAT16, then back to
float32. The batch functions receive numpy batches and return the bit patterns (``uint8`` /
``uint16``) as a ``pyarrow.Table``, never ml_dtypes arrays, which Arrow cannot hold (Ray
would store them as pickled Python objects). See ``docs/distributed.md``.

Run it::

    python examples/ray_quantize.py                   # ray.init(num_cpus=2)
    python examples/ray_quantize.py --cpus 1 --size 67108864
    python examples/ray_quantize.py --batch-format pyarrow
    python examples/ray_quantize.py --output dict     # return numpy dicts (slow path)

It prints the time to cast every batch to the target's bits and back (best of
``--repeats``), and checks every result bit for bit against a local ``tc.cast``.

The functions below are also imported by ``python/tests/test_distributed.py``.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import sys
import time
from typing import Any

import numpy as np
import tensorcast as tc

#: The targets the script casts to by default (any ONNX name accepted by ``tc.cast`` works).
TARGETS = ("float8e4m3fn", "bfloat16")


def value_dtype(to: Any) -> np.dtype:
    """The numpy / ml_dtypes dtype that ``tc.cast(float32_array, to)`` returns."""
    # A plain function, not functools.lru_cache: cloudpickle sends a cache wrapper by
    # reference, which a Ray worker cannot resolve when this file runs as __main__.
    return tc.cast(np.zeros(1, np.float32), to).dtype


def as_values(bits: np.ndarray, to: Any) -> np.ndarray:
    """View bit patterns as the target's numpy / ml_dtypes dtype (no copy)."""
    return bits.view(value_dtype(to))


# ---------------------------------------------------------------------------------------------
# Batch functions: run inside Ray tasks. Plain module-level functions; their arguments
# (fn_kwargs) are plain strings and numbers.
#
# Input: a numpy batch (dict of arrays, batch_format="numpy") or a pyarrow.Table
# (batch_format="pyarrow"). Output: a pyarrow.Table by default, a dict of numpy arrays with
# output="dict". Both are accepted by map_batches whatever the input format; the Table is much
# faster here: Ray Data infers the Arrow type of a returned numpy column with
# pyarrow.infer_type, which walks every element (see docs/distributed.md for figures).
# ---------------------------------------------------------------------------------------------


def _column(batch: Any, name: str) -> np.ndarray:
    """One column of a numpy batch (dict) or a pyarrow.Table, as numpy (no copy when the
    column is a single chunk without nulls)."""
    if isinstance(batch, dict):
        return batch[name]
    return batch.column(name).to_numpy()


def _batch(name: str, values: np.ndarray, output: str) -> Any:
    if output == "dict":
        return {name: values}
    import pyarrow as pa

    return pa.table({name: values})


def cast_batch_to_bits(
    batch: Any,
    to: Any,
    saturate: bool = True,
    round_mode: str = "up",
    threads: int | None = None,
    output: str = "table",
) -> Any:
    """{"data": float32} -> {"bits": uint8 / uint16 bit patterns of ``to``}."""
    y = tc.cast(
        _column(batch, "data"), to, saturate=saturate, round_mode=round_mode, threads=threads
    )
    return _batch("bits", y.view(np.dtype(f"u{y.dtype.itemsize}")), output)


def bits_batch_to_float32(
    batch: Any, frm: Any, threads: int | None = None, output: str = "table"
) -> Any:
    """{"bits": bit patterns of ``frm``} -> {"data": float32}."""
    bits = _column(batch, "bits")
    return _batch("data", tc.cast(as_values(bits, frm), np.float32, threads=threads), output)


def alloc_batch(batch: Any, itemsize: int, output: str = "table") -> Any:
    """The baseline batch function: allocates the output and casts nothing."""
    n = len(_column(batch, "data"))
    return _batch("bits", np.empty(n, np.dtype(f"u{itemsize}")), output)


def batch_threads(batch: Any) -> dict[str, np.ndarray]:
    """One row per batch: what the task sees (tensorcast's pool size, OMP_NUM_THREADS)."""
    omp = os.environ.get("OMP_NUM_THREADS")
    return {
        "get_num_threads": np.array([tc.get_num_threads()], np.int64),
        "omp_num_threads": np.array([int(omp) if omp else -1], np.int64),
        "pid": np.array([os.getpid()], np.int64),
    }


# ---------------------------------------------------------------------------------------------
# Dataset builders.
# ---------------------------------------------------------------------------------------------


def init_ray(num_cpus: int = 2, **kwargs: Any) -> None:
    """``ray.init`` for a local run: no dashboard, quiet progress, ordered results.

    The directory of this file is put on the workers' import path, so that the batch
    functions above pickle by reference also when this module is imported (by the test).
    """
    import ray
    import ray.data

    here = os.path.dirname(os.path.abspath(__file__))
    ray.init(
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        job_config=ray.job_config.JobConfig(code_search_path=[here]),
        **kwargs,
    )
    ctx = ray.data.DataContext.get_current()
    ctx.execution_options.preserve_order = True  # results in source order, for the check
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # no line per executed dataset


def make_dataset(source: np.ndarray, n_blocks: int):
    """A Ray dataset of the float32 ``source`` (column ``data``) in ``n_blocks`` Arrow blocks."""
    import pyarrow as pa
    import ray.data

    return ray.data.from_arrow(
        [pa.table({"data": part}) for part in np.array_split(source, n_blocks)]
    )


def quantize(
    ds,
    to: Any,
    *,
    saturate: bool = True,
    round_mode: str = "up",
    threads: int | None = None,
    batch_format: str = "numpy",
    output: str = "table",
):
    """Dataset {"data": float32} -> dataset {"bits": bit patterns of ``to``}.

    One batch per block (batch_size=None); zero_copy_batch lets the batch share the block's
    memory (read-only), which tc.cast only reads.
    """
    return ds.map_batches(
        cast_batch_to_bits,
        batch_format=batch_format,
        batch_size=None,
        zero_copy_batch=True,
        fn_kwargs={
            "to": to,
            "saturate": saturate,
            "round_mode": round_mode,
            "threads": threads,
            "output": output,
        },
    )


def dequantize(
    ds, frm: Any, *, threads: int | None = None, batch_format: str = "numpy", output: str = "table"
):
    """Dataset {"bits": bit patterns of ``frm``} -> dataset {"data": float32}."""
    return ds.map_batches(
        bits_batch_to_float32,
        batch_format=batch_format,
        batch_size=None,
        zero_copy_batch=True,
        fn_kwargs={"frm": frm, "threads": threads, "output": output},
    )


def column(ds, name: str) -> np.ndarray:
    """All of one column, in order, as one numpy array (bit patterns stay unsigned ints)."""
    parts = [b[name] for b in ds.iter_batches(batch_format="numpy", batch_size=None)]
    return np.concatenate(parts) if parts else np.empty(0)


def task_threads(ds) -> list[dict[str, int]]:
    """What each map_batches task of ``ds`` saw: pool size and OMP_NUM_THREADS."""
    out = ds.map_batches(batch_threads, batch_format="numpy", batch_size=None)
    cols = {k: column(out, k) for k in ("get_num_threads", "omp_num_threads", "pid")}
    return [{k: int(v[i]) for k, v in cols.items()} for i in range(len(cols["pid"]))]


# ---------------------------------------------------------------------------------------------
# Timing and checking.
# ---------------------------------------------------------------------------------------------


def _best_time(fn, repeats: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def time_round_trip(ds, to: Any, repeats: int = 3, **kw: Any) -> dict[str, Any]:
    """Time float32 -> ``to`` bits and bits -> float32 (``materialize``: results stay in the
    object store). ``kw``: batch_format= and output= of quantize / dequantize. Returns the best
    times in seconds and the materialized datasets."""
    t_q, bits = _best_time(lambda: quantize(ds, to, **kw).materialize(), repeats)
    t_d, back = _best_time(lambda: dequantize(bits, to, **kw).materialize(), repeats)
    return {"to_bits_s": t_q, "to_float32_s": t_d, "bits": bits, "back": back}


def time_baseline(
    ds, itemsize: int = 1, repeats: int = 3, batch_format: str = "numpy", output: str = "table"
) -> float:
    """Best time of the same map_batches with ``alloc_batch``: what Ray Data itself costs."""

    def run():
        return ds.map_batches(
            alloc_batch,
            batch_format=batch_format,
            batch_size=None,
            zero_copy_batch=True,
            fn_kwargs={"itemsize": itemsize, "output": output},
        ).materialize()

    return _best_time(run, repeats)[0]


def check_against_local(src: np.ndarray, to: Any, bits: np.ndarray, back: np.ndarray) -> bool:
    """True if the Ray results are bit for bit those of a local ``tc.cast``."""
    local = tc.cast(src, to)
    local_back = tc.cast(local, np.float32)
    return np.array_equal(local.view(bits.dtype), bits) and np.array_equal(
        local_back.view(np.uint32), back.view(np.uint32)
    )


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cpus", type=int, default=2, help="ray.init(num_cpus=N) (default: 2)")
    p.add_argument(
        "--size",
        type=int,
        default=1 << 25,
        help="number of float32 elements (default: 2^25 = 128 MiB)",
    )
    p.add_argument(
        "--chunk",
        type=int,
        default=1 << 22,
        help="elements per block (default: 2^22 = 16 MiB of float32)",
    )
    p.add_argument(
        "--targets",
        nargs="+",
        default=list(TARGETS),
        metavar="TYPE",
        help="target types (default: %(default)s)",
    )
    p.add_argument(
        "--batch-format",
        choices=["numpy", "pyarrow"],
        default="numpy",
        help="batch format the functions receive (default: numpy)",
    )
    p.add_argument(
        "--output",
        choices=["table", "dict"],
        default="table",
        help="what the functions return: a pyarrow.Table (default) or a dict of "
        "numpy arrays (slow: see docs/distributed.md)",
    )
    p.add_argument("--repeats", type=int, default=5, help="best of N (default: 5)")
    p.add_argument(
        "--no-check",
        action="store_true",
        help="skip the bit-for-bit comparison with a local tc.cast",
    )
    args = p.parse_args(argv)

    import ray

    n_blocks = -(-args.size // args.chunk)
    src = np.random.default_rng(0).standard_normal(args.size, dtype=np.float32)
    print(
        f"tensorcast {tc.__version__}, ray {ray.__version__}, numpy {np.__version__}, "
        f"Python {platform.python_version()}"
    )
    print(f"CPU: {cpu_name()}, {os.cpu_count()} logical CPUs")
    print(
        f"source: {args.size:,} float32 N(0, 1) values ({args.size * 4 / 2**20:.0f} MiB) in "
        f"{n_blocks} blocks"
    )

    print(f"\nlocal tc.cast in this process, same size (best of {args.repeats}):")
    for to in args.targets:
        t1 = _best_time(lambda to=to: tc.cast(src, to, threads=1), args.repeats)[0]
        tn = _best_time(lambda to=to: tc.cast(src, to), args.repeats)[0]
        print(
            f"  {to:<14} threads=1 {t1 * 1e3:8.1f} ms   threads=None "
            f"({tc.get_num_threads()} threads) {tn * 1e3:8.1f} ms"
        )

    t0 = time.perf_counter()
    init_ray(args.cpus)
    print(f"\nray.init(num_cpus={args.cpus}): {time.perf_counter() - t0:.2f} s")
    ok = True
    try:
        ds = make_dataset(src, n_blocks).materialize()
        seen = task_threads(ds)
        print(
            "map_batches tasks: tc.get_num_threads() = "
            f"{sorted({s['get_num_threads'] for s in seen})}, OMP_NUM_THREADS = "
            f"{sorted({s['omp_num_threads'] for s in seen})} in "
            f"{len({s['pid'] for s in seen})} worker process(es)"
        )
        print(
            f"map_batches(batch_format={args.batch_format!r}), the functions return "
            + ("a pyarrow.Table" if args.output == "table" else "a dict of numpy arrays")
            + f"; best of {args.repeats}:"
        )
        t_base = time_baseline(ds, 1, args.repeats, args.batch_format, args.output)
        print(
            f"  {'(baseline)':<14} the same map_batches, allocating uint8 output only: "
            f"{t_base * 1e3:8.1f} ms"
        )
        for to in args.targets:
            r = time_round_trip(
                ds, to, args.repeats, batch_format=args.batch_format, output=args.output
            )
            gbs = args.size * 4 / r["to_bits_s"] / 1e9
            line = (
                f"  {to:<14} float32 -> bits {r['to_bits_s'] * 1e3:8.1f} ms "
                f"({gbs:5.2f} GB/s of float32)   bits -> float32 "
                f"{r['to_float32_s'] * 1e3:8.1f} ms"
            )
            if not args.no_check:
                same = check_against_local(
                    src, to, column(r["bits"], "bits"), column(r["back"], "data")
                )
                ok &= same
                line += "   bit-exact vs local: " + ("yes" if same else "NO")
            print(line)
            del r
    finally:
        t0 = time.perf_counter()
        ray.shutdown()
        print(f"ray.shutdown(): {time.perf_counter() - t0:.2f} s")
    if not ok:
        print("MISMATCH: a Ray result differs from the local tc.cast", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
