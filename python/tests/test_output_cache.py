"""The output cache of allocating calls (tensorcast.set_output_cache, docs/python.md,
"Allocating calls"): results of 4 MiB and more are placed in mapped blocks that return to a
bounded cache when the result is freed. A reused block holds the bytes of an earlier result:
every result must still be the out= result bit for bit, whatever block it lands in."""

import concurrent.futures
import gc
import pickle

import ml_dtypes
import numpy as np
import pytest
import tensorcast as tc
from tensorcast import _tensorcast as _ext

N = 1 << 21  # 8 MiB of float32: above the cache's 4 MiB threshold
G = np.random.default_rng(5)
X32 = G.standard_normal(N).astype(np.float32) * 100

PAIRS = [
    (X32, "float16", np.float16),
    (X32.astype(np.float16), "float32", np.float32),
    (X32.astype(ml_dtypes.bfloat16), "float32", np.float32),
    (X32.astype(ml_dtypes.float8_e4m3fn), "float32", np.float32),
    ((X32 / 30).clip(-8, 7).astype(ml_dtypes.int4), "float32", np.float32),
    (X32, "bfloat16", ml_dtypes.bfloat16),
    (X32, "float8e4m3fn", ml_dtypes.float8_e4m3fn),
    (X32, "int4", ml_dtypes.int4),
    (X32.astype(np.float64), "float32", np.float32),
]


@pytest.fixture(autouse=True)
def default_cache():
    tc.set_output_cache(int(_ext.OUTPUT_CACHE_BYTES))
    yield
    tc.set_output_cache(int(_ext.OUTPUT_CACHE_BYTES))


def same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


def test_allocating_results_equal_out_results_in_reused_blocks():
    # Each result lands in the block the previous one (of another pair) freed, so its bytes
    # start as another pair's output: every byte must be rewritten.
    for _ in range(2):
        for x, to, dt in PAIRS:
            want = np.empty(x.shape, dt)
            tc.cast(x, to, out=want, threads=1)
            got = tc.cast(x, to, threads=1)
            same_bits(got, want)
            assert got.flags.writeable and got.flags.c_contiguous
            del got
            got = tc.cast(x.reshape(512, -1), to)  # shaped, the package's pool
            same_bits(got, want.reshape(512, -1))
            del got
            gc.collect()
    assert 0 < _ext.output_cache_bytes() <= int(_ext.OUTPUT_CACHE_BYTES)


def test_results_behave_as_numpy_arrays():
    y = tc.cast(X32, "float16")
    assert y.nbytes >= int(_ext.OUTPUT_CACHE_MIN_BYTES)
    same_bits(pickle.loads(pickle.dumps(y)), y)
    z = y.copy()
    y[:] = 0  # writable
    assert not y.any() and z.any()
    v = y[10:20]  # a view keeps the block alive after the result is gone
    del y
    gc.collect()
    again = tc.cast(X32, "float16")  # may not take the block v still uses
    v[:] = 1
    same_bits(again, z)
    assert np.all(v == 1)


def test_the_limit_bounds_what_the_cache_holds():
    results = [tc.cast(X32, "float32") for _ in range(6)]  # 6 x 8 MiB
    tc.set_output_cache(16 << 20)
    del results
    gc.collect()
    assert _ext.output_cache_bytes() <= 16 << 20
    tc.set_output_cache(0)
    assert _ext.output_cache_bytes() == 0
    y = tc.cast(X32, "float16")
    del y
    gc.collect()
    assert _ext.output_cache_bytes() == 0  # no cache: nothing kept
    want = np.empty(N, np.float16)
    tc.cast(X32, "float16", out=want)
    same_bits(tc.cast(X32, "float16"), want)
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="max_bytes"):
            tc.set_output_cache(bad)


def test_split_parts_and_small_results():
    x = X32.reshape(1024, -1)
    want = [np.ascontiguousarray(p) for p in np.split(x, [256], axis=0)]
    for _ in range(3):
        parts = tc.split(x, [256, 768])
        for p, w in zip(parts, want):
            same_bits(p, w)
        del parts
    small = tc.cast(X32[:1000], "float16")  # below the threshold: plain numpy memory
    assert small.flags.owndata


def test_threads_allocate_and_free_concurrently():
    want = [tc.cast(x, to, threads=1).copy() for x, to, _ in PAIRS[:4]]

    def work(k):
        x, to, _ = PAIRS[k % 4]
        for _ in range(5):
            got = tc.cast(x, to, threads=1)
            if not np.array_equal(got.view(np.uint8), want[k % 4].view(np.uint8)):
                return False
        return True

    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        assert all(ex.map(work, range(16)))


def test_reference_dtypes_are_never_placed_in_blocks():
    # numpy cannot view bytes as references: object and StringDType parts stay np.empty's.
    n = 1_200_000  # parts of 4.8 MB of object pointers
    x = np.array(["a", "b"] * (n // 2), dtype=object)
    parts = tc.split(x, [n // 2, n // 2])
    assert parts[0].tolist()[:2] == ["a", "b"] and parts[1].shape == (n // 2,)
    if hasattr(np, "dtypes") and hasattr(np.dtypes, "StringDType"):
        s = np.array(["ab", "cd"] * (n // 2), dtype=np.dtypes.StringDType())
        parts = tc.split(s, num_outputs=2)
        assert parts[1][:2].tolist() == ["ab", "cd"]


def test_a_block_larger_than_the_limit_is_not_kept():
    tc.set_output_cache(16 << 20)
    small = [tc.cast(X32, "float32") for _ in range(2)]  # 2 x 8 MiB blocks
    del small
    gc.collect()
    held = _ext.output_cache_bytes()
    assert 0 < held <= 16 << 20
    big = tc.cast(np.zeros(6 << 20, np.float32), "float32")  # 24 MiB > the limit
    del big
    gc.collect()
    assert _ext.output_cache_bytes() == held  # the small blocks stay, the big one went
