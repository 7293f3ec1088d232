"""tensorcast inside Dask and Ray workers: results bit for bit equal to a local ``tc.cast``.

The block / batch functions are those of ``examples/dask_quantize.py`` and
``examples/ray_quantize.py``: they cast inside the worker and ship the results' bit patterns
(unsigned ints) between processes. The Dask tests run wherever dask and distributed are
installed; the Ray tests carry the ``ray`` marker (deselect them with ``-m "not ray"``) and
are skipped when ray is not importable.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorcast as tc

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# The examples are imported by name, and the workers unpickle their functions by reference:
# Dask's worker processes are spawned with this process's sys.path; Ray's get EXAMPLES
# through the example's init_ray (code_search_path).
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

N = 1 << 18  # elements of the 1-D source
CHUNK = 1 << 15  # 8 chunks / blocks
SHAPE_2D = (384, 640)
CHUNKS_2D = (128, 256)  # 3 x 3 blocks, the last ones ragged

# (target, keyword arguments of tc.cast): every float8 flavour, bfloat16, float16, and the
# non-default saturate / round_mode.
CASES: list[tuple[Any, dict[str, Any]]] = [
    ("float8e4m3fn", {}),
    ("float8e4m3fn", {"saturate": False}),
    ("bfloat16", {}),
    ("float8e5m2", {}),  # the dtype whose str() is '<f1'
    ("float8e5m2", {"saturate": False}),
    ("FLOAT8E4M3FNUZ", {}),
    ("tensor(float8e5m2fnuz)", {}),
    (int(tc.DataType.FLOAT8E8M0), {"round_mode": "nearest"}),
    (int(tc.DataType.FLOAT8E8M0), {"round_mode": "down", "saturate": False}),
    ("float16", {}),
]
CASE_IDS = [
    (tc.DataType(to).name if isinstance(to, int) else to)
    + "".join(f"-{k}={v}" for k, v in kw.items())
    for to, kw in CASES
]


def make_source(n: int, seed: int = 0) -> np.ndarray:
    """float32 values of every kind: N(0, 1) at magnitudes from 1e-40 to 1e5, random bit
    patterns (NaN payloads, infinities, subnormals, huge values), and hand-picked edges."""
    rng = np.random.default_rng(seed)
    q = n // 2
    scaled = (rng.standard_normal(q) * 10.0 ** rng.uniform(-40, 5, q)).astype(np.float32)
    bits = rng.integers(0, 1 << 32, n - q, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edges = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            448.0,
            464.0,
            480.0,
            -464.0,
            57344.0,
            61440.0,
            1.0e-45,
            -1.0e-45,
            1.17549435e-38,
            3.4028235e38,
            2.0**-127,
            1.5,
            2.5,
            -0.75,
        ],
        np.float32,
    )
    out = np.concatenate([scaled, bits])
    out[: edges.size] = edges
    out[-1] = np.uint32(0x7FC12345).view(np.float32)  # a NaN with a payload
    return out


@contextlib.contextmanager
def restored_environ():
    """Give back os.environ as it was: starting a LocalCluster with processes=True puts the
    nanny's pre-spawn environment (OMP_NUM_THREADS=1, MALLOC_TRIM_THRESHOLD_, ...) into this
    process's os.environ, and ray.init adds RAY_* and PYTHONBREAKPOINT. Later tests must see
    the environment they started with (tc.get_num_threads() reads OMP_NUM_THREADS)."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        for key in set(os.environ) - set(saved):
            del os.environ[key]
        os.environ.update(saved)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def assert_bit_exact(src: np.ndarray, to, kw: dict, bits: np.ndarray, back: np.ndarray) -> None:
    """``bits``: the cluster's bit patterns of ``tc.cast(src, to, **kw)``; ``back``: its
    float32 round trip. Both must equal the local results bit for bit."""
    local = tc.cast(src, to, **kw)
    assert bits.dtype == np.dtype(f"u{local.dtype.itemsize}")
    assert bits.shape == src.shape
    mismatch = np.flatnonzero(_bits(local).ravel() != bits.ravel())
    assert mismatch.size == 0, (
        f"{mismatch.size} elements differ, first at {mismatch[0]}: "
        f"src bits {src.ravel()[mismatch[0] :][:1].view(np.uint32)}, "
        f"local {_bits(local).ravel()[mismatch[0]]}, cluster {bits.ravel()[mismatch[0]]}"
    )
    local_back = tc.cast(local, np.float32)
    assert back.dtype == np.float32 and back.shape == src.shape
    np.testing.assert_array_equal(back.view(np.uint32), local_back.view(np.uint32))


# ---------------------------------------------------------------------------------------------
# Dask
# ---------------------------------------------------------------------------------------------


# scripts/dev.sh test-python installs the engines and sets TENSORCAST_REQUIRE_ENGINES ("dask",
# or "dask,ray"): there a missing engine fails instead of silently skipping its tests.
REQUIRED = os.environ.get("TENSORCAST_REQUIRE_ENGINES", "").split(",")


def _require_dask() -> None:
    """Skip when dask / distributed are not installed, unless they are required."""
    if "dask" in REQUIRED:
        import dask.array  # noqa: F401
        import distributed  # noqa: F401

        return
    pytest.importorskip("dask.array", reason="dask is not installed (pip install dask distributed)")
    pytest.importorskip("distributed", reason="distributed is not installed")


@pytest.fixture(scope="module")
def dask_client():
    _require_dask()
    import dask_quantize as dq

    with restored_environ(), dq.local_cluster(2) as client:
        yield client


@pytest.fixture(scope="module")
def src() -> np.ndarray:
    return make_source(N)


def test_dask_workers_do_not_oversubscribe(dask_client):
    import dask_quantize as dq

    info = dask_client.run(dq.worker_threads)  # on each worker's event loop
    assert len(info) == 2
    for addr, v in info.items():
        assert v["OMP_NUM_THREADS"] == "1", (addr, v)
        assert v["get_num_threads"] == 1, (addr, v)
    # And inside tasks, on the worker's executor thread, one task pinned to each worker.
    futures = [dask_client.submit(dq.worker_threads, pure=False, workers=[addr]) for addr in info]
    for v in dask_client.gather(futures):
        assert v["get_num_threads"] == 1, v
        assert v["OMP_NUM_THREADS"] == "1", v
    assert {v["pid"] for v in info.values()} != {os.getpid()}


@pytest.mark.parametrize("to, kw", CASES, ids=CASE_IDS)
def test_dask_cast_bit_exact(dask_client, src, to, kw):
    import dask.array as da
    import dask_quantize as dq

    x = da.from_array(src, chunks=CHUNK)
    q = dq.quantize(x, to, **kw)
    assert q.dtype == np.dtype(f"u{dq.value_dtype(to).itemsize}")  # no ml_dtypes in the graph
    back = dq.dequantize(q, to)
    bits, back = dask_client.compute([q, back], sync=True)
    assert_bit_exact(src, to, kw, bits, back)


def test_dask_cast_2d_ragged_chunks(dask_client, src):
    import dask.array as da
    import dask_quantize as dq

    a = src[: SHAPE_2D[0] * SHAPE_2D[1]].reshape(SHAPE_2D)
    x = da.from_array(a, chunks=CHUNKS_2D)
    for to in dq.TARGETS:
        q = dq.quantize(x, to)
        bits, back = dask_client.compute([q, dq.dequantize(q, to)], sync=True)
        assert_bit_exact(a, to, {}, bits, back)


def test_dask_example_pipeline(dask_client):
    """The example's own source (generated in the workers) and timing path."""
    import dask_quantize as dq
    import distributed

    x = dq.make_source(N, CHUNK).persist()
    distributed.wait(x)
    local_src = x.compute()
    for to in dq.TARGETS:
        r = dq.time_round_trip(dask_client, x, to, repeats=1)
        assert r["to_bits_s"] > 0 and r["to_float32_s"] > 0
        assert dq.check_against_local(local_src, to, r["bits"].compute(), r["back"].compute())


# The fixture's cluster holds the scheduler's default HTTP port, so the script's clusters warn.
@pytest.mark.filterwarnings("ignore:Port .* is already in use")
def test_dask_example_script_runs(dask_client, capsys):
    """The script's main(), 1 then 2 workers, on a small array (its own clusters)."""
    import dask_quantize as dq

    with restored_environ():
        rc = dq.main(
            ["--workers", "1", "2", "--size", str(N), "--chunk", str(CHUNK), "--repeats", "1"]
        )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "bit-exact vs local: NO" not in out
    assert out.count("bit-exact vs local: yes") == 2 * len(dq.TARGETS)
    assert "1 worker(s)" in out and "2 worker(s)" in out


# ---------------------------------------------------------------------------------------------
# Ray (marker `ray`; skipped when ray is not importable)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_session():
    # Any import failure skips (not only a missing module), unless Ray is required.
    if "ray" in REQUIRED:
        import ray.data  # noqa: F401
    pytest.importorskip(
        "ray", reason="ray is not importable (pip install 'ray[data]')", exc_type=ImportError
    )
    pytest.importorskip(
        "ray.data",
        reason="Ray Data is not importable (pip install 'ray[data]')",
        exc_type=ImportError,
    )
    import ray
    import ray_quantize as rq

    with restored_environ():
        rq.init_ray(num_cpus=2)
        try:
            yield ray
        finally:
            ray.shutdown()


@pytest.mark.ray
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_ray_tasks_do_not_oversubscribe(ray_session, src):
    import ray_quantize as rq

    ds = rq.make_dataset(src, N // CHUNK)
    seen = rq.task_threads(ds)
    assert len(seen) == N // CHUNK
    for v in seen:
        # map_batches tasks take 1 CPU: Ray sets OMP_NUM_THREADS=1, the pool follows it.
        assert v["omp_num_threads"] == 1, v
        assert v["get_num_threads"] == 1, v
        assert v["pid"] != os.getpid()


@pytest.mark.ray
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize(
    "to, kw",
    [CASES[0], CASES[2], CASES[3], CASES[4]],
    ids=[CASE_IDS[0], CASE_IDS[2], CASE_IDS[3], CASE_IDS[4]],
)
def test_ray_cast_bit_exact(ray_session, src, to, kw):
    """numpy batches in, pyarrow.Table of bit patterns out (the example's default)."""
    import ray_quantize as rq

    ds = rq.make_dataset(src, N // CHUNK)
    q = rq.quantize(ds, to, **kw).materialize()
    back = rq.dequantize(q, to).materialize()
    bits = rq.column(q, "bits")
    assert bits.dtype == np.dtype(f"u{rq.value_dtype(to).itemsize}")
    assert_bit_exact(src, to, kw, bits, rq.column(back, "data"))


@pytest.mark.ray
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("batch_format, output", [("pyarrow", "table"), ("numpy", "dict")])
def test_ray_cast_other_batch_formats(ray_session, src, batch_format, output):
    """pyarrow batches in; and numpy dicts out (slower in Ray Data, still exact)."""
    import ray_quantize as rq

    ds = rq.make_dataset(src, N // CHUNK)
    for to in rq.TARGETS:
        q = rq.quantize(ds, to, batch_format=batch_format, output=output).materialize()
        back = rq.dequantize(q, to, batch_format=batch_format, output=output).materialize()
        assert_bit_exact(src, to, {}, rq.column(q, "bits"), rq.column(back, "data"))


@pytest.mark.ray
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_ray_example_timing_path(ray_session, src):
    import ray_quantize as rq

    ds = rq.make_dataset(src, N // CHUNK).materialize()
    for to in rq.TARGETS:
        r = rq.time_round_trip(ds, to, repeats=1)
        assert rq.check_against_local(
            src, to, rq.column(r["bits"], "bits"), rq.column(r["back"], "data")
        )
