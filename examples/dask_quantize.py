#!/usr/bin/env python3
"""Quantize a chunked ``dask.array`` of float32 with tensorcast on a local Dask cluster.

Each block is cast inside a worker with ``tc.cast`` (float32 -> FLOAT8E4M3FN and
float32 -> BFLOAT16, then back to float32); what travels between processes is the bit
pattern of the result (``uint8`` / ``uint16``), never an ml_dtypes array. See
``docs/distributed.md`` for why.

Run it::

    python examples/dask_quantize.py                  # 1 worker, then 2 workers
    python examples/dask_quantize.py --workers 2 --size 67108864

It prints, for each cluster size, the time to cast every block to the target's bits and the
time to cast those bits back to float32 (best of ``--repeats``), and checks every result bit
for bit against a local ``tc.cast`` of the same data.

The functions below are also imported by ``python/tests/test_distributed.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import sys
import time
import uuid
from typing import Any, Iterator

import numpy as np
import tensorcast as tc

#: The targets the script casts to by default (any ONNX name accepted by ``tc.cast`` works).
TARGETS = ("float8e4m3fn", "bfloat16")


# ---------------------------------------------------------------------------------------------
# Dtypes: the value dtype of a target (an ml_dtypes dtype) and its bit-pattern dtype (uint).
# ---------------------------------------------------------------------------------------------


def value_dtype(to: Any) -> np.dtype:
    """The numpy / ml_dtypes dtype that ``tc.cast(float32_array, to)`` returns."""
    # A plain function, not functools.lru_cache: cloudpickle sends a cache wrapper by
    # reference, which a Ray worker cannot resolve when this file runs as __main__.
    return tc.cast(np.zeros(1, np.float32), to).dtype


def bits_dtype(to: Any) -> np.dtype:
    """The unsigned integer dtype of the same width: what is shipped between processes."""
    return np.dtype(f"u{value_dtype(to).itemsize}")


def as_values(bits: np.ndarray, to: Any) -> np.ndarray:
    """View bit patterns as the target's numpy / ml_dtypes dtype (no copy)."""
    return bits.view(value_dtype(to))


# ---------------------------------------------------------------------------------------------
# Block functions: run inside the workers. Plain module-level functions, so they pickle by
# reference; their arguments are plain strings and numbers.
# ---------------------------------------------------------------------------------------------


def cast_to_bits(
    block: np.ndarray,
    to: Any,
    saturate: bool = True,
    round_mode: str = "up",
    threads: int | None = None,
) -> np.ndarray:
    """Cast a block to ``to`` and return the result's bit pattern (uint8 / uint16 / ...)."""
    y = tc.cast(block, to, saturate=saturate, round_mode=round_mode, threads=threads)
    return y.view(np.dtype(f"u{y.dtype.itemsize}"))


def bits_to_float32(bits: np.ndarray, frm: Any, threads: int | None = None) -> np.ndarray:
    """View a block of ``frm`` bit patterns as ``frm`` (locally, no copy) and cast it to float32."""
    return tc.cast(as_values(bits, frm), np.float32, threads=threads)


def alloc_bits(block: np.ndarray, itemsize: int) -> np.ndarray:
    """The baseline block function: allocates the output and casts nothing."""
    return np.empty(block.shape, np.dtype(f"u{itemsize}"))


def worker_threads() -> dict[str, Any]:
    """What a worker process sees: tensorcast's pool size and OMP_NUM_THREADS."""
    return {
        "get_num_threads": tc.get_num_threads(),
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
        "affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "pid": os.getpid(),
    }


def warm_up() -> str:
    """Import tensorcast (and ml_dtypes through it) and run one cast, before timing."""
    tc.cast(np.zeros(8, np.float32), "bfloat16")
    return tc.__version__


# ---------------------------------------------------------------------------------------------
# Graph builders: dask.array in, dask.array out. dtype= and meta= are given, so dask never
# calls the block function on fake 0-d data to guess the output type.
# ---------------------------------------------------------------------------------------------


def quantize(
    x,
    to: Any,
    *,
    saturate: bool = True,
    round_mode: str = "up",
    threads: int | None = None,
    name: str | None = None,
):
    """float32 dask array -> dask array of the bit patterns of ``to`` (uint8 / uint16).

    ``name`` (optional) is the output's key name; by default dask derives it from the inputs,
    so the same call twice gives the same keys (and a persisted result is reused).
    """
    bd = bits_dtype(to)
    return x.map_blocks(
        cast_to_bits,
        to=to,
        saturate=saturate,
        round_mode=round_mode,
        threads=threads,
        dtype=bd,
        meta=np.empty((0,) * x.ndim, bd),
        name=name,
    )


def dequantize(bits, frm: Any, *, threads: int | None = None, name: str | None = None):
    """Dask array of ``frm`` bit patterns -> float32 dask array."""
    return bits.map_blocks(
        bits_to_float32,
        frm=frm,
        threads=threads,
        dtype=np.float32,
        meta=np.empty((0,) * bits.ndim, np.float32),
        name=name,
    )


def make_source(size: int, chunk: int, seed: int = 0):
    """A 1-D float32 dask array of N(0, 1) values, generated in the workers."""
    import dask.array as da

    rng = da.random.default_rng(seed)
    return rng.standard_normal(size, chunks=chunk, dtype=np.float32)


@contextlib.contextmanager
def local_cluster(n_workers: int) -> Iterator[Any]:
    """A LocalCluster of ``n_workers`` single-threaded worker processes and its Client."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(warm_up)
        yield client


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


def time_round_trip(client, x, to: Any, repeats: int = 3) -> dict[str, Any]:
    """Time float32 -> ``to`` bits and bits -> float32 on the cluster (results stay there).

    Returns the best times in seconds and the persisted bits / float32 arrays.
    """
    from distributed import wait

    # A fresh key name per run: the same graph persisted twice would be served from memory.
    def run_quantize():
        b = quantize(x, to, name=f"cast-to-bits-{uuid.uuid4().hex}").persist()
        wait(b)
        return b

    t_q, bits = _best_time(run_quantize, repeats)

    def run_dequantize():
        r = dequantize(bits, to, name=f"bits-to-float32-{uuid.uuid4().hex}").persist()
        wait(r)
        return r

    t_d, back = _best_time(run_dequantize, repeats)
    return {"to_bits_s": t_q, "to_float32_s": t_d, "bits": bits, "back": back}


def time_baseline(x, itemsize: int, repeats: int = 3) -> float:
    """Best time of the same graph with ``alloc_bits``: what Dask itself costs."""
    from distributed import wait

    bd = np.dtype(f"u{itemsize}")

    def run():
        b = x.map_blocks(
            alloc_bits,
            itemsize=itemsize,
            dtype=bd,
            meta=np.empty((0,) * x.ndim, bd),
            name=f"alloc-bits-{uuid.uuid4().hex}",
        ).persist()
        wait(b)
        return b

    return _best_time(run, repeats)[0]


def check_against_local(src: np.ndarray, to: Any, bits: np.ndarray, back: np.ndarray) -> bool:
    """True if the cluster's results are bit for bit those of a local ``tc.cast``."""
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


def _local_time(src: np.ndarray, to: Any, threads: int | None, repeats: int) -> float:
    return _best_time(lambda: tc.cast(src, to, threads=threads), repeats)[0]


def main(argv: list[str] | None = None) -> int:
    import dask
    import distributed

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1, 2],
        metavar="N",
        help="cluster sizes to run, one after the other (default: 1 2)",
    )
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
        help="elements per chunk (default: 2^22 = 16 MiB of float32)",
    )
    p.add_argument(
        "--targets",
        nargs="+",
        default=list(TARGETS),
        metavar="TYPE",
        help="target types (default: %(default)s)",
    )
    p.add_argument("--repeats", type=int, default=5, help="best of N (default: 5)")
    p.add_argument(
        "--no-check",
        action="store_true",
        help="skip the bit-for-bit comparison with a local tc.cast",
    )
    args = p.parse_args(argv)

    n_chunks = -(-args.size // args.chunk)
    print(
        f"tensorcast {tc.__version__}, dask {dask.__version__}, distributed "
        f"{distributed.__version__}, numpy {np.__version__}, Python {platform.python_version()}"
    )
    print(f"CPU: {cpu_name()}, {os.cpu_count()} logical CPUs")
    print(
        f"source: {args.size:,} float32 N(0, 1) values ({args.size * 4 / 2**20:.0f} MiB) in "
        f"{n_chunks} chunks of {args.chunk:,}"
    )

    # A local reference in this process, for scale (no scheduling, no process boundary). It
    # runs first: starting a LocalCluster sets OMP_NUM_THREADS=1 in this process too (the
    # nanny's pre-spawn environment), which would size a pool created afterwards to 1.
    local = np.random.default_rng(0).standard_normal(args.size, dtype=np.float32)
    print(f"\nlocal tc.cast in this process, same size (best of {args.repeats}):")
    for to in args.targets:
        t1 = _local_time(local, to, 1, args.repeats)
        tn = _local_time(local, to, None, args.repeats)
        print(
            f"  {to:<14} threads=1 {t1 * 1e3:8.1f} ms   threads=None "
            f"({tc.get_num_threads()} threads) {tn * 1e3:8.1f} ms"
        )
    del local

    rows = []
    ok = True
    for n in args.workers:
        with local_cluster(n) as client:
            threads = client.run(worker_threads)
            pools = sorted({v["get_num_threads"] for v in threads.values()})
            omp = sorted({str(v["OMP_NUM_THREADS"]) for v in threads.values()})
            print(
                f"\n{n} worker process(es) x 1 thread: tc.get_num_threads() in workers = "
                f"{pools}, OMP_NUM_THREADS = {omp}"
            )
            x = make_source(args.size, args.chunk).persist()
            distributed.wait(x)
            src = None if args.no_check else x.compute()
            t_base = time_baseline(x, 1, args.repeats)
            print(
                f"  {'(baseline)':<14} the same graph, allocating uint8 output only: "
                f"{t_base * 1e3:8.1f} ms"
            )
            for to in args.targets:
                r = time_round_trip(client, x, to, args.repeats)
                gbs = args.size * 4 / r["to_bits_s"] / 1e9
                line = (
                    f"  {to:<14} float32 -> bits {r['to_bits_s'] * 1e3:8.1f} ms "
                    f"({gbs:5.2f} GB/s of float32)   bits -> float32 "
                    f"{r['to_float32_s'] * 1e3:8.1f} ms"
                )
                if src is not None:
                    same = check_against_local(src, to, r["bits"].compute(), r["back"].compute())
                    ok &= same
                    line += "   bit-exact vs local: " + ("yes" if same else "NO")
                print(line)
                rows.append((n, to, r["to_bits_s"], r["to_float32_s"]))
                del r

    if len(set(args.workers)) > 1:
        print(
            f"\nsummary, {args.size:,} float32 in {n_chunks} chunks, best of {args.repeats} "
            "(float32 -> bits / bits -> float32):"
        )
        for to in args.targets:
            cells = [
                f"{n} worker(s) {tq * 1e3:.1f} / {td * 1e3:.1f} ms"
                for n, tt, tq, td in rows
                if tt == to
            ]
            print(f"  {to:<14} " + ", ".join(cells))
    if not ok:
        print("MISMATCH: a cluster result differs from the local tc.cast", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
