"""StringDType through numpy 2's C API (the extension's stringdtype_parse and
stringdtype_format): the same results as the package's other text paths, bit for bit, for
every layout the fast path takes or hands back (missing elements, N-d and strided arrays)."""

import gc
import resource

import pytest

np = pytest.importorskip("numpy", minversion="2.0", reason="StringDType is numpy 2's")

import ml_dtypes  # noqa: E402
import pyarrow as pa  # noqa: E402
import tensorcast as tc  # noqa: E402
from tensorcast import _tensorcast as _ext  # noqa: E402

S = np.dtypes.StringDType()
G = np.random.default_rng(11)
TARGETS = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int8",
    "uint16",
    "int64",
    "bool",
    "float8e4m3fn",
    "float8e8m0",
    "int4",
    "float4e2m1",
    "float6e3m2",
]


def texts(n):
    """Numbers in many spellings, short (inline in StringDType) and long (arena)."""
    out = []
    for i in range(n):
        v = G.standard_normal() * 10.0 ** int(G.integers(-6, 6))
        k = i % 6
        out.append(
            [
                repr(v),
                f"{v:.3f}",
                str(int(v * 1000)),
                f"  {v:.20e}  ",
                "0" * 300 + "1.5",  # longer than numpy's medium strings
                "inf" if i % 12 == 5 else "-0",
            ][k]
        )
    return out


def bits(a):
    return a.view(np.uint8) if a.dtype.itemsize == 1 else a.view(f"u{a.dtype.itemsize}")


@pytest.mark.parametrize("to", TARGETS)
def test_parse_equals_the_object_path(to):
    t = texts(5000)
    for x in (
        np.array(t, dtype=S),
        np.array(t, dtype=S).reshape(50, 100),
        np.array(t + t[::-1], dtype=S)[::2],  # strided 1-D: read in place with its stride
        np.array(t, dtype=S).reshape(100, 50).T,  # not contiguous: flattened first
    ):
        # The oracle: the same texts as Python str objects (the package's list path).
        want = tc.cast(np.array(x.reshape(-1).tolist(), dtype=object), to, threads=1)
        got = tc.cast(x, to, threads=1)
        assert got.shape == x.shape
        assert np.array_equal(bits(got.reshape(-1)), bits(want))
        assert np.array_equal(bits(tc.cast(x, to, threads=2)), bits(got))


def test_parse_errors_name_the_index_and_keep_embedded_nuls():
    x = np.array(["1", "2", "3\x00", "4"], dtype=S)
    with pytest.raises(tc.CastError) as e:
        tc.cast(x, "float32")
    assert e.value.index == 2 and e.value.text == "3\x00"
    with pytest.raises(tc.CastError, match="element 1") as e:
        tc.cast(np.array(["1", "", "3"], dtype=S), "int32")
    assert e.value.index == 1
    # Missing elements take the other paths' rule (a CastError naming the null through
    # pyarrow for larger arrays), whatever the fast path does.
    na = np.dtypes.StringDType(na_object=None)
    x = np.array(["1"] * 70 + [None] + ["2"], dtype=na)
    with pytest.raises((tc.CastError, TypeError)) as e:
        tc.cast(x, "float32")
    if isinstance(e.value, tc.CastError):
        assert e.value.index == 70


@pytest.mark.parametrize(
    "dt",
    [
        np.float64,
        np.float32,
        np.float16,
        ml_dtypes.bfloat16,
        np.int64,
        np.uint8,
        np.bool_,
        ml_dtypes.float8_e5m2,
        ml_dtypes.int4,
        ml_dtypes.float6_e2m3fn,
    ],
    ids=lambda d: np.dtype(d).name,
)
def test_format_equals_the_arrow_path(dt):
    v = (G.standard_normal(3001) * 10.0 ** G.integers(-8, 8, 3001)).astype(np.float64)
    if np.dtype(dt).kind in "iub" or dt in (ml_dtypes.int4,):
        v = np.clip(v, -100, 100).astype(np.int64) % 8 if dt is ml_dtypes.int4 else v
    with np.errstate(over="ignore"):
        x = v.astype(dt)
    got = tc.cast(x, "string", threads=1)
    assert got.dtype == S and got.shape == x.shape
    # The library's formatter through the Arrow layout (cast_to_arrow_strings): numeric
    # Arrow types directly; the others through the packed buffer the library reads.
    flat = x.reshape(-1)
    if np.dtype(dt) in (
        np.dtype(np.float64),
        np.dtype(np.float32),
        np.dtype(np.int64),
        np.dtype(np.uint8),
        np.dtype(np.float16),
    ):
        want = tc.cast(pa.array(flat), "string", threads=1).to_pylist()
    else:
        want = [tc.cast(np.array([e]), "string", threads=1)[0] for e in flat[:200]]
        got = got[:200]
    assert got.tolist() == want
    assert tc.cast(x, "string", threads=2).tolist() == tc.cast(x, "string", threads=1).tolist()


def test_format_into_a_string_out_in_place():
    x = G.standard_normal((40, 50))
    want = tc.cast(x, "string")
    out = np.array([["a text longer than fifteen bytes, in the arena"] * 50] * 40, dtype=S)
    assert tc.cast(x, "string", out=out) is out
    assert (out == want).all()
    view = np.empty((80, 50), S)[::2]  # not contiguous: through a temporary
    assert tc.cast(x, "string", out=view) is view
    assert (view == want).all()
    na_out = np.empty(3, np.dtypes.StringDType(na_object=None))
    na_out[:] = None
    tc.cast(np.array([1.0, -2.5, 3.0]), "string", out=na_out)
    assert na_out.tolist() == ["1.0", "-2.5", "3.0"]


def test_no_memory_growth_over_repeated_calls():
    x = G.standard_normal(100_000)
    out = np.empty(100_000, S)
    t = np.array(texts(20_000), dtype=S)
    for _ in range(5):
        tc.cast(x, "string", out=out)
        tc.cast(x, "string")
        tc.cast(t, "float64")
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(100):
        tc.cast(x, "string", out=out)
        tc.cast(x, "string")
        tc.cast(t, "float64")
    gc.collect()
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grew < 20_000, f"max RSS grew by {grew} KiB"  # 100 x 100K texts would be GBs


def test_the_fast_paths_hand_back_what_they_do_not_take():
    out = np.empty(3, np.float32)
    assert _ext.stringdtype_parse(np.array(["1", "2", "3"]), out, 1, True, 0, 1) == (-1,)
    assert _ext.stringdtype_parse(np.array([["1"]], dtype=S), out, 1, True, 0, 1) == (-1,)
    res = np.empty(3, object)
    assert _ext.stringdtype_format(np.zeros(3), 11, 3, res, 1) == (-1,)
    assert _ext.stringdtype_format(np.zeros(3), 11, 2, np.empty(3, S), 1) == (-1,)
    x = np.array(["1", "2", "3"], dtype=S)
    assert _ext.stringdtype_parse(x, out, 1, True, 0, 1) is None
    assert out.tolist() == [1.0, 2.0, 3.0]
