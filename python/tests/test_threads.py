"""The package's pool size: set_num_threads, else min(CPU affinity, OMP_NUM_THREADS), re-read
when OMP_NUM_THREADS changes. Each case runs in a fresh interpreter (the size is process state)."""

import os
import subprocess
import sys
import textwrap

import pytest

AFFINITY = len(os.sched_getaffinity(0))


def run(code, env_threads=None):
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    if env_threads is not None:
        env["OMP_NUM_THREADS"] = env_threads
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_default_is_the_affinity_without_omp_num_threads():
    assert run("import tensorcast as tc; print(tc.get_num_threads())") == [str(AFFINITY)]


@pytest.mark.parametrize(
    "value,want", [("1", 1), ("64", AFFINITY), ("0", AFFINITY), ("x", AFFINITY)]
)
def test_omp_num_threads_caps_the_default(value, want):
    # A positive number caps the affinity count; anything else is ignored.
    assert run("import tensorcast as tc; print(tc.get_num_threads())", value) == [str(want)]


def test_the_default_follows_omp_num_threads_changes():
    code = """
        import os, numpy as np, tensorcast as tc
        x = np.arange(1 << 20, dtype=np.float32)             # 4 MiB: cut into tasks
        want = tc.cast(x, "float8e4m3fn", threads=1).view(np.uint8)
        for value in ("1", "2", "1", None):
            if value is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = value
            got = tc.cast(x, "float8e4m3fn").view(np.uint8)
            assert np.array_equal(got, want)
            print(tc.get_num_threads())
    """
    assert run(code, "2") == ["1", str(min(2, AFFINITY)), "1", str(AFFINITY)]


def test_set_num_threads_fixes_the_size():
    code = """
        import os, tensorcast as tc
        tc.set_num_threads(3)
        print(tc.get_num_threads())
        os.environ["OMP_NUM_THREADS"] = "1"
        print(tc.get_num_threads())
        for bad in (0, -1, 1.5, True):
            try:
                tc.set_num_threads(bad)
            except ValueError:
                print("ValueError")
    """
    assert run(code) == ["3", "3"] + ["ValueError"] * 4


def test_the_gil_is_released_during_the_work():
    # While one Python thread is inside a long call, another keeps running: its timestamps
    # show no gap of the call's length (with the GIL held there would be one such gap).
    import threading
    import time

    import numpy as np
    import tensorcast as tc

    texts = tc.cast(np.random.default_rng(3).standard_normal(1 << 21), "string")
    t0 = time.perf_counter()
    tc.cast(texts, np.float64, threads=1)
    call = time.perf_counter() - t0
    assert call > 0.02, "the call is too short to tell"
    done = threading.Event()
    worker = threading.Thread(target=lambda: (tc.cast(texts, np.float64, threads=1), done.set()))
    stamps = [time.perf_counter()]
    worker.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
    worker.join()
    stamps.append(time.perf_counter())
    gaps = np.diff(stamps)
    assert gaps.max() < 0.5 * call, (gaps.max(), call)
