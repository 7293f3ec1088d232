#!/usr/bin/env python3
"""The Python package's cost over the C API, measured call against call.

    python3 bench/python_vs_capi.py --lib build/lib/libtensorcast_c.so [--n 16M] [--rounds 31]

For each pair, the same conversion runs through `tensorcast.cast(x, to, out=preallocated,
threads=1)` and through `tc_cast` of the C API (ctypes) on the same buffers, alternately
(package, C API, package, C API, ...), so that both see the same machine state. Reported:
the median time per element of each and the median of the per-round ratios package / C API
(1.00 = no cost; the C API figure includes ctypes' own call cost of about 1 us, which is
nothing at 16M elements). Sub-byte sources are given to the package unpacked (ml_dtypes'
layout, which it packs first) and to the C API packed: that row measures what a numpy user
pays, not the same work. The allocating call `tensorcast.cast(x, to, threads=1)` is
reported next to them.
"""

import argparse
import ctypes
import os
import platform
import statistics
import time

os.environ["OMP_NUM_THREADS"] = "1"

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import tensorcast as tc  # noqa: E402
from tensorcast import _types as tc_types  # noqa: E402

PAIRS_ALL = [
    ("FLOAT", "FLOAT16"),
    ("FLOAT16", "FLOAT"),
    ("FLOAT", "BFLOAT16"),
    ("DOUBLE", "FLOAT"),
    ("FLOAT", "INT8"),
    ("INT64", "FLOAT"),
    ("FLOAT", "FLOAT8E4M3FN"),
    ("FLOAT8E4M3FN", "FLOAT"),
    ("FLOAT", "FLOAT8E8M0"),
    ("FLOAT", "INT4"),
    ("INT4", "FLOAT"),
    ("UINT8", "FLOAT"),
]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    fam = mod = "?"
                    f.seek(0)
                    for l2 in f:
                        if l2.startswith("cpu family"):
                            fam = l2.split(":", 1)[1].strip()
                        if l2.startswith("model\t"):
                            mod = l2.split(":", 1)[1].strip()
                    return f"{name} (family {fam} model {mod})"
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def source(t, n, rng):
    dt = np.dtype(tc_types._DTYPE[tc.DataType[t]])
    if t in ("FLOAT", "DOUBLE", "FLOAT16"):
        return (rng.standard_normal(n) * 50).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), n).astype(dt)
    # ml_dtypes types: from float32 values
    return tc.cast((rng.standard_normal(n) * 4).astype(np.float32), t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True)
    ap.add_argument("--n", default="16M")
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--pairs", default="", help="comma-separated SRC:DST (default: all)")
    args = ap.parse_args()
    n = int(args.n[:-1]) << 20 if args.n.endswith("M") else int(args.n)
    lib = ctypes.CDLL(args.lib)
    lib.tc_cast.argtypes = [
        ctypes.c_void_p,
        ctypes.c_int32,
        ctypes.c_void_p,
        ctypes.c_int32,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_void_p,
    ]
    rng = np.random.default_rng(1)
    print(
        f"CPU: {cpu_model()}, Highway target {tc._tensorcast.active_target()}, tensorcast {tc.__version__}, "
        f"numpy {np.__version__}, ml_dtypes {ml_dtypes.__version__}; {n:,} elements, {args.rounds} rounds, one thread"
    )
    print()
    print(
        "| pair | package out= ns/el | C API ns/el | package / C API (median of rounds) | package allocating ns/el |"
    )
    print("|---|---:|---:|---:|---:|")
    pairs = [tuple(p.split(":")) for p in args.pairs.split(",")] if args.pairs else PAIRS_ALL
    for s, d in pairs:
        sc, dc = tc.DataType[s], tc.DataType[d]
        x = source(s, n, rng)
        packed_dst = dc in tc_types._BITS
        out = (
            np.empty(tc_types._storage_bytes(dc, n), np.uint8)
            if packed_dst
            else np.empty(n, tc_types._DTYPE[dc])
        )
        src_c = tc.pack(x) if sc in tc_types._BITS else x
        out_c = np.empty_like(out)
        c_src, c_dst = src_c.ctypes.data, out_c.ctypes.data

        def pkg(x=x, dc=dc, out=out, packed_dst=packed_dst):
            tc.cast(x, dc, out=out, packed=packed_dst, threads=1)

        def capi(c_src=c_src, sc=sc, c_dst=c_dst, dc=dc):
            if lib.tc_cast(c_src, int(sc), c_dst, int(dc), n, 1, 0, None) != 0:
                raise RuntimeError("tc_cast failed")

        def alloc(x=x, dc=dc, packed_dst=packed_dst):
            tc.cast(x, dc, packed=packed_dst, threads=1)

        pkg(), capi(), alloc()
        if not np.array_equal(out.view(np.uint8), out_c.view(np.uint8)):
            raise SystemExit(f"{s} -> {d}: the package and the C API disagree")
        tp, tcap, ta, ratios = [], [], [], []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            pkg()
            t1 = time.perf_counter()
            capi()
            t2 = time.perf_counter()
            tp.append(t1 - t0)
            tcap.append(t2 - t1)
            ratios.append((t1 - t0) / (t2 - t1))
        for _ in range(max(5, args.rounds // 4)):
            t0 = time.perf_counter()
            alloc()
            ta.append(time.perf_counter() - t0)
        ns = lambda ts: statistics.median(ts) / n * 1e9  # noqa: E731
        print(
            f"| {s} -> {d} | {ns(tp):.3f} | {ns(tcap):.3f} | {statistics.median(ratios):.3f} | {ns(ta):.3f} |"
        )


if __name__ == "__main__":
    main()
