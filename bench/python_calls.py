"""The Python package's calls as people write them, one thread, in ns per element (or us
per call): run with the package installed, pinned to one core (taskset -c 1).

  python bench/python_calls.py alloc   allocating casts at 16M elements against out=,
                                       np.empty + fill (allocate and first-touch the same
                                       bytes) and numpy / ml_dtypes astype; medians of 9
  python bench/python_calls.py arrow   per call on small pyarrow arrays against
                                       pyarrow.compute.cast; minimum over 21 rounds of 1000
  python bench/python_calls.py null    1M pyarrow texts -> DOUBLE: a valid column with
                                       errors="raise" and "null", an all-bad one with "null"

Results: bench/results/python_alloc_zen4.md."""

import statistics
import sys
import time

import ml_dtypes
import numpy as np
import tensorcast as tc


def alloc():
    n = 1 << 24

    def med(f, reps=9):
        ts = []
        for _ in range(reps):
            t0 = time.perf_counter()
            r = f()
            ts.append(time.perf_counter() - t0)
            del r
        return statistics.median(ts) / n * 1e9

    base = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    pairs = {
        "f32->f16": (base, np.float16, "float16"),
        "f16->f32": (base.astype(np.float16), np.float32, "float32"),
        "e4m3->f32": (base.astype(ml_dtypes.float8_e4m3fn), np.float32, "float32"),
        "bf16->f32": (base.astype(ml_dtypes.bfloat16), np.float32, "float32"),
        "int4->f32": ((base * 3).clip(-8, 7).astype(ml_dtypes.int4), np.float32, "float32"),
        "f32->bf16": (base, ml_dtypes.bfloat16, "bfloat16"),
        "f32->e4m3": (base, ml_dtypes.float8_e4m3fn, "float8e4m3fn"),
    }
    print(
        f"{'pair':10} {'alloc':>7} {'out=':>7} {'empty+fill':>10} {'astype':>7} {'ratio':>6} "
        f"{'alloc/astype':>12}"
    )
    for name, (x, dt, to) in pairs.items():
        o = np.empty(n, dt)
        tc.cast(x, to, out=o, threads=1)

        def fill(dt=dt):
            a = np.empty(n, dt)
            a.fill(0)
            return a

        a = med(lambda x=x, to=to: tc.cast(x, to, threads=1))
        b = med(lambda x=x, to=to, o=o: tc.cast(x, to, out=o, threads=1))
        c = med(fill)
        d = med(lambda x=x, dt=dt: x.astype(dt))
        print(f"{name:10} {a:7.3f} {b:7.3f} {c:10.3f} {d:7.3f} {a / (b + c):6.2f} {a / d:12.2f}")


def arrow():
    import pyarrow as pa
    import pyarrow.compute as pc

    def rounds(fs, reps=1000, k=21):
        best = [1e9] * len(fs)
        for _ in range(k):
            for i, f in enumerate(fs):
                t0 = time.perf_counter()
                for _ in range(reps):
                    f()
                best[i] = min(best[i], (time.perf_counter() - t0) / reps * 1e6)
        return best

    print("| n | pair | tensorcast us | pyarrow us | ratio |\n|---:|---|---:|---:|---:|")
    for n in (16, 1024):
        v = np.linspace(-3, 3, n, dtype=np.float32)
        cases = [
            ("float -> double", pa.array(v), "float64", pa.float64()),
            (
                "float -> double, 20% nulls",
                pa.array(v, mask=np.arange(n) % 5 == 0),
                "float64",
                pa.float64(),
            ),
            ("float -> float16", pa.array(v), "float16", pa.float16()),
            ("int32 -> float", pa.array(np.arange(n, dtype=np.int32)), "float32", pa.float32()),
            ("utf8 -> double", pa.array([str(i * 0.5) for i in range(n)]), "float64", pa.float64()),
        ]
        for name, arr, to, pto in cases:
            t_tc, t_pc = rounds(
                [
                    lambda arr=arr, to=to: tc.cast(arr, to, threads=1),
                    lambda arr=arr, pto=pto: pc.cast(arr, pto),
                ]
            )
            print(f"| {n} | {name} | {t_tc:.2f} | {t_pc:.2f} | {t_tc / t_pc:.2f} |")


def null():
    import pyarrow as pa

    rng = np.random.default_rng(1)
    n = 1 << 20
    valid = pa.array([repr(float(v)) for v in rng.standard_normal(n)])
    words = ["n/a", "NULL", "#VALUE!", "abc", "1.2.3", "", "--5", "1e", "0x1F", "12,5"]
    bad = pa.array([words[i % len(words)] for i in range(n)])

    def t(f, reps=7):
        best = 1e9
        for _ in range(reps):
            t0 = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - t0)
        return best / n * 1e9

    r = {
        "valid, errors='raise'": t(lambda: tc.cast(valid, "float64", threads=1)),
        "valid, errors='null'": t(lambda: tc.cast(valid, "float64", threads=1, errors="null")),
        "all bad, errors='null'": t(lambda: tc.cast(bad, "float64", threads=1, errors="null")),
    }
    for k, v in r.items():
        print(f"| {k} | {v:.1f} |")
    ratio = r["all bad, errors='null'"] / r["valid, errors='null'"]
    print(f"| all bad / valid | {ratio:.2f} |")


if __name__ == "__main__":
    {"alloc": alloc, "arrow": arrow, "null": null}[sys.argv[1] if len(sys.argv) > 1 else "alloc"]()
