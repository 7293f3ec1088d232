"""cast(errors="null", mask_out=): SQL's TRY_CAST of texts.

The oracle of every element is the errors="raise" path applied to that element alone: a
one-element object array holding the element as its layout stores it (str_ and bytes_ drop
trailing NULs, as numpy reads them). If that cast returns a value, the element's code must
be that value's code and the element is not null; if it raises CastError (or the element is
None / NA / an Arrow null), the element must be a null whose code is 0 (the all-zero code of
the target). Codes are compared bit for bit as unsigned integers (NaN != NaN). Packed
results are checked against the ONNX bit stream of those codes, built here with numpy.
"""

import itertools

import ml_dtypes
import numpy as np
import pyarrow as pa
import pytest
import tensorcast as tc
from leak_check import assert_no_leaks

NUMPY2 = int(np.__version__.split(".")[0]) >= 2
needs_numpy2 = pytest.mark.skipif(not NUMPY2, reason="StringDType needs numpy 2")

UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

# Every target of the brief, as tc.cast spells them (ONNX names); dtype: the numpy result.
TARGETS = {
    "float": np.dtype(np.float32),
    "double": np.dtype(np.float64),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "int8": np.dtype(np.int8),
    "uint16": np.dtype(np.uint16),
    "int64": np.dtype(np.int64),
    "bool": np.dtype(np.bool_),
    "float8e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "float8e8m0": np.dtype(ml_dtypes.float8_e8m0fnu),
    "int4": np.dtype(ml_dtypes.int4),
    "uint2": np.dtype(ml_dtypes.uint2),
    "float4e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
    "float6e2m3": np.dtype(ml_dtypes.float6_e2m3fn),
}
# The targets Arrow has: an Arrow input gives an Arrow result of this type.
ARROW_TYPE = {
    "float": pa.float32(),
    "double": pa.float64(),
    "float16": pa.float16(),
    "int8": pa.int8(),
    "uint16": pa.uint16(),
    "int64": pa.int64(),
    "bool": pa.bool_(),
}
PACKED_BITS = {"int4": 4, "uint2": 2, "float4e2m1": 4, "float6e2m3": 6}

# Numbers in several spellings, and texts of numbers outside some targets' range (they
# follow the raise path: saturated / inf / 0, never null unless that path raises).
NUMBERS = [
    "0",
    "-0",
    "+1",
    "1.5",
    " 2.25 ",
    "\t-3\n",
    ".5",
    "5.",
    "1e-3",
    "2.5E+2",
    "0001",
    "inf",
    "-Infinity",
    "nan",
    "-NaN",
    "7.9",
    "-8.5",
    "1e400",
    "-1e400",
    "1e-400",
    "300",
    "-129",
    "65536",
    "448",
    "1e30",
    "0.1",
]
# Numbers for BOOL only (not numbers for the other targets).
BOOL_WORDS = ["true", " FALSE "]
# Texts that are not numbers (for every target: the raise path raises on each).
BAD = [
    "x",
    "",
    " ",
    "1e",
    "1.2.3",
    "0x10",
    "nan?",
    "1" * 40 + "a",
    "\u00e9",
    "--1",
    "1 2",
    "1_000",
    "infinit",
    "1\x002",
    "\x001",
]
# A trailing NUL: kept by StringDType, object and Arrow (not a number there), dropped by
# str_ / bytes_ ("1": a number).
NUL_END = ["1\x00", "2\x00\x00"]
# 47 texts: numbers and bad texts interleaved, then the NUL-ended ones.
MIXED = [t for pair in itertools.zip_longest(NUMBERS, BAD) for t in pair if t is not None]
MIXED += BOOL_WORDS + NUL_END


# ---------------------------------------------------------------------------------------
# The oracle and the readers of results
# ---------------------------------------------------------------------------------------

_ORACLE: dict = {}


def oracle_one(element, to, **kw):
    """(code, null) of one element by the errors="raise" path."""
    key = (type(element), element, to, tuple(sorted(kw.items())))
    if key in _ORACLE:
        return _ORACLE[key]
    if element is None:
        got = (0, True)
    else:
        one = np.empty(1, dtype=object)
        one[0] = element
        try:
            r = tc.cast(one, to, **kw)
        except tc.CastError:
            got = (0, True)
        else:
            assert r.dtype == TARGETS[to] and r.shape == (1,)
            got = (int(r.view(UINT[r.dtype.itemsize])[0]), False)
    _ORACLE[key] = got
    return got


def oracle(elements, to, **kw):
    """(codes, nulls) of a list of elements, C order."""
    pairs = [oracle_one(e, to, **kw) for e in elements]
    codes = np.array([p[0] for p in pairs], np.uint64)
    nulls = np.array([p[1] for p in pairs], bool)
    return codes, nulls


def stored(x):
    """The elements of an input as its layout stores them, C order (the oracle's inputs)."""
    if isinstance(x, (pa.Array, pa.ChunkedArray)):
        return x.to_pylist()
    return x.reshape(-1).tolist()


def numpy_codes(r):
    r = np.ascontiguousarray(r)
    return r.view(UINT[r.dtype.itemsize]).reshape(-1).astype(np.uint64)


def arrow_codes(arr):
    """(codes of every slot, null slots included; nulls) of a fixed-width Arrow Array."""
    n, off = len(arr), arr.offset
    buf = arr.buffers()[1]
    if n == 0:
        codes = np.zeros(0, np.uint64)
    elif pa.types.is_boolean(arr.type):
        codes = np.unpackbits(np.frombuffer(buf, np.uint8), bitorder="little")[off : off + n]
    else:
        codes = np.frombuffer(buf, UINT[arr.type.bit_width // 8])[off : off + n]
    nulls = np.asarray(arr.is_null().to_numpy(zero_copy_only=False), bool)
    return codes.astype(np.uint64), nulls


def pack_codes(codes, bits):
    """The ONNX packed bytes of codes: element i in bits [i * bits, (i + 1) * bits) of a
    little-endian bit stream, zero padding."""
    c = np.asarray(codes, np.uint8).reshape(-1, 1)
    stream = np.unpackbits(c, axis=1, bitorder="little")[:, :bits].reshape(-1)
    return np.packbits(stream, bitorder="little")


def check_numpy(r, mask, elements, to, **kw):
    want, want_null = oracle(elements, to, **kw)
    assert isinstance(r, np.ndarray) and r.dtype == TARGETS[to]
    assert mask.dtype == np.bool_
    np.testing.assert_array_equal(mask.reshape(-1), want_null)
    np.testing.assert_array_equal(numpy_codes(r), want)


def check_arrow(r, x, to, **kw):
    want, want_null = oracle(stored(x), to, **kw)
    if isinstance(x, pa.ChunkedArray):
        assert isinstance(r, pa.ChunkedArray) and r.num_chunks == x.num_chunks
        assert [len(c) for c in r.chunks] == [len(c) for c in x.chunks]
        parts = [arrow_codes(c) for c in r.chunks]
        codes = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.uint64)
        nulls = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, bool)
    else:
        assert isinstance(r, pa.Array)
        codes, nulls = arrow_codes(r)
    assert r.type == ARROW_TYPE[to]
    assert r.null_count == int(want_null.sum())
    np.testing.assert_array_equal(nulls, want_null)
    np.testing.assert_array_equal(codes, want)


def try_cast(x, to, **kw):
    """cast(errors="null"): (result, mask_out or None for an Arrow result). The mask starts
    as the opposite of the oracle's answer, so every element must be written."""
    arrow_in = isinstance(x, (pa.Array, pa.ChunkedArray))
    numpy_result = (
        not arrow_in or to not in ARROW_TYPE or kw.get("packed") or kw.get("out") is not None
    )
    if not numpy_result:
        return tc.cast(x, to, errors="null", **kw), None
    shape = (len(x),) if arrow_in else x.shape
    _, want_null = oracle(stored(x), to, **_value_kw(kw))
    mask = np.logical_not(want_null).reshape(shape)
    r = tc.cast(x, to, errors="null", mask_out=mask, **kw)
    return r, mask


def _value_kw(kw):
    return {k: v for k, v in kw.items() if k in ("saturate", "round_mode")}


# ---------------------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------------------


def objects(items):
    a = np.empty(len(items), dtype=object)
    a[:] = items
    return a


def with_nones(texts):
    return [None if i % 7 == 3 else t for i, t in enumerate(texts)]


def make(layout, texts):
    """An input of that layout holding texts (None: a null where the layout has one)."""
    plain = [t for t in texts if t is not None]
    if layout == "str_":
        return np.array(plain, np.str_)
    if layout == "bytes_":
        return np.array([t.encode() for t in plain], np.bytes_)
    if layout == "object_str":
        return objects(with_nones(texts))
    if layout == "object_bytes":
        return objects([None if t is None else t.encode() for t in with_nones(texts)])
    if layout == "object_mixed":
        items = with_nones(texts)
        return objects([t.encode() if t is not None and i % 2 else t for i, t in enumerate(items)])
    if layout.startswith("StringDType"):
        small = layout.endswith("small")
        items = plain if "na" not in layout else with_nones(texts)
        while len(items) < 64 and not small:
            items = items + items
        items = items[:63] if small else items
        dt = np.dtypes.StringDType(na_object=None) if "na" in layout else np.dtypes.StringDType()
        x = np.array(items, dtype=dt)
        assert (x.size < 64) == small
        return x
    arrow_texts = with_nones(texts)
    if layout == "utf8":
        return pa.array(arrow_texts, pa.string())
    if layout == "large_utf8":
        return pa.array(arrow_texts, pa.large_string())
    if layout == "string_view":
        return pa.array(arrow_texts, pa.string_view())
    if layout in ("sliced_utf8", "sliced_large_utf8"):
        t = pa.string() if layout == "sliced_utf8" else pa.large_string()
        whole = pa.array(["x", None, "7"] + arrow_texts + ["y", "8"], t)
        return whole.slice(3, len(arrow_texts))
    if layout == "chunked":
        k = len(arrow_texts) // 3
        return pa.chunked_array(
            [arrow_texts[:k], [], pa.array(["z"] + arrow_texts[k:]).slice(1)], pa.string()
        )
    raise AssertionError(layout)


NUMPY_LAYOUTS = ["str_", "bytes_", "object_str", "object_bytes", "object_mixed"]
if NUMPY2:
    NUMPY_LAYOUTS += [
        "StringDType_small",
        "StringDType_large",
        "StringDType_na_small",
        "StringDType_na_large",
    ]
ARROW_LAYOUTS = [
    "utf8",
    "large_utf8",
    "string_view",
    "sliced_utf8",
    "sliced_large_utf8",
    "chunked",
]


# ---------------------------------------------------------------------------------------
# 1-3. Layouts x targets, mixed texts
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("to", list(TARGETS))
@pytest.mark.parametrize("layout", NUMPY_LAYOUTS + ARROW_LAYOUTS)
def test_every_layout_and_target_equals_the_raise_path_per_element(layout, to):
    x = make(layout, MIXED)
    elements = stored(x)
    want, want_null = oracle(elements, to)
    assert want_null.any() and not want_null.all()  # the test can fail both ways
    r, mask = try_cast(x, to)
    if mask is None:
        check_arrow(r, x, to)
    else:
        assert r.shape == mask.shape == ((len(x),) if not isinstance(x, np.ndarray) else x.shape)
        check_numpy(r, mask, elements, to)
    # The input is not changed.
    assert stored(x) == elements


@pytest.mark.parametrize("layout", NUMPY_LAYOUTS + ARROW_LAYOUTS)
def test_no_bad_text_gives_no_null_and_the_raise_path_result(layout):
    x = make(layout, NUMBERS)
    for to in ("float", "int8", "float8e4m3fn", "int4", "bool"):
        elements = stored(x)
        r, mask = try_cast(x, to)
        if mask is None:
            check_arrow(r, x, to)
            if None not in elements:
                assert r.null_count == 0
        else:
            check_numpy(r, mask, elements, to)
            if None not in elements:
                assert not mask.any()
                # the whole-array raise path agrees bit for bit
                np.testing.assert_array_equal(numpy_codes(r), numpy_codes(tc.cast(x, to)))


@pytest.mark.parametrize(
    "to", ["int8", "uint16", "float16", "float8e4m3fn", "int4", "uint2", "float4e2m1", "bool"]
)
def test_out_of_range_numbers_are_not_nulls(to):
    texts = ["1e400", "-1e400", "300", "-129", "65536", "1e30", "-1e30", "448", "1e-400", "inf"]
    x = np.array(texts)
    whole = tc.cast(x, to)  # the raise path does not raise on any of them
    for kw in ({}, {"saturate": False}):
        mask = np.ones(len(texts), bool)
        r = tc.cast(x, to, errors="null", mask_out=mask, **kw)
        assert not mask.any()
        if not kw:
            np.testing.assert_array_equal(numpy_codes(r), numpy_codes(whole))
        check_numpy(r, mask, stored(x), to, **kw)
    a = pa.array(texts)
    if to in ARROW_TYPE:
        r = tc.cast(a, to, errors="null")
        assert r.null_count == 0
        check_arrow(r, a, to)


@pytest.mark.parametrize(
    "to,kw",
    [
        ("float8e4m3fn", {"saturate": False}),
        ("float8e8m0", {"round_mode": "nearest"}),
        ("float8e8m0", {"round_mode": "down", "saturate": False}),
        ("int8", {"saturate": False}),
    ],
)
def test_saturate_and_round_mode_follow_the_raise_path(to, kw):
    texts = MIXED + ["464", "-1e9", "3.0", "0.1", "1e38", "1e-38"]
    for x in (np.array(texts), pa.array(texts)):
        r, mask = try_cast(x, to, **kw)
        if mask is None:
            check_arrow(r, x, to, **kw)
        else:
            check_numpy(r, mask, stored(x), to, **kw)


def test_n_dimensional_and_strided_inputs_in_c_order():
    base = np.array((MIXED + ["3"] * 3)[:48]).reshape(6, 8)
    for x in (base, base.T, base[::-2, 1::3], base.reshape(2, 3, 8)[:, ::-1], base[2:3, 4:5]):
        for to in ("float", "int4", "float8e8m0"):
            mask = np.empty(x.shape, bool)
            r = tc.cast(x, to, errors="null", mask_out=mask)
            assert r.shape == x.shape
            check_numpy(r, mask, stored(x), to)
    obj = objects(with_nones(MIXED[:40])).reshape(5, 8).T
    mask = np.empty(obj.shape, bool)
    r = tc.cast(obj, "double", errors="null", mask_out=mask)
    check_numpy(r, mask, stored(obj), "double")


@pytest.mark.parametrize("to", list(PACKED_BITS))
@pytest.mark.parametrize("layout", ["str_", "object_str", "utf8", "chunked", "sliced_utf8"])
def test_packed_results_and_the_mask_of_x_shape(layout, to):
    x = make(layout, MIXED)
    if isinstance(x, np.ndarray):
        x = x[: (x.size // 3) * 3].reshape(3, -1)  # mask_out has x's 2-D shape
    elements = stored(x)
    want, want_null = oracle(elements, to)
    shape = x.shape if isinstance(x, np.ndarray) else (len(x),)
    bits = PACKED_BITS[to]
    for out in (None, np.full((len(elements) * bits + 7) // 8, 0xA5, np.uint8)):
        if out is not None and isinstance(x, pa.ChunkedArray):
            continue
        mask = np.logical_not(want_null).reshape(shape)
        r = tc.cast(x, to, errors="null", mask_out=mask, packed=True, out=out)
        assert r.dtype == np.uint8 and r.ndim == 1
        if out is not None:
            assert r is out
        np.testing.assert_array_equal(mask.reshape(-1), want_null)
        np.testing.assert_array_equal(r, pack_codes(want, bits))


@pytest.mark.parametrize("to", ["float", "bfloat16", "int4", "bool", "float6e2m3"])
@pytest.mark.parametrize("layout", ["str_", "object_mixed", "StringDType_na_large", "utf8"])
@pytest.mark.parametrize("contiguous", [True, False], ids=["c_out", "strided_out"])
def test_out_contiguous_and_not(layout, to, contiguous):
    if layout.startswith("StringDType") and not NUMPY2:
        pytest.skip("StringDType needs numpy 2")
    x = make(layout, MIXED)
    elements = stored(x)
    n = len(elements)
    dt = TARGETS[to]
    if contiguous:
        out = np.empty(n, dt)
    else:
        whole = np.zeros(2 * n + 1, dt)
        out = whole[::-2][:n] if to != "bool" else whole[1::2][:n]
    _, want_null = oracle(elements, to)
    mask = np.logical_not(want_null)
    r = tc.cast(x, to, errors="null", mask_out=mask, out=out)
    assert r is out
    check_numpy(r, mask, elements, to)


def test_empty_zero_d_list_and_byte_swapped_inputs():
    m0 = np.zeros(0, bool)
    for x in (np.array([], np.str_), np.array([], object), pa.array([], pa.string())):
        r = tc.cast(x, "int4", errors="null", mask_out=m0)
        assert r.shape == (0,) and r.dtype == TARGETS["int4"]
    empty_chunked = pa.chunked_array([], pa.string())
    assert tc.cast(empty_chunked, "float8e4m3fn", errors="null", mask_out=m0).shape == (0,)
    assert len(tc.cast(empty_chunked, "float", errors="null")) == 0
    m = np.zeros((0, 3), bool)
    assert tc.cast(np.zeros((0, 3), np.str_), "float", errors="null", mask_out=m).shape == (0, 3)
    for text in ("1.5", "x", "1e400", ""):
        x = np.array(text)
        m = np.array(not oracle_one(text, "float")[1])
        r = tc.cast(x, "float", errors="null", mask_out=m)
        assert r.shape == () and m.shape == ()
        check_numpy(r.reshape(1), m.reshape(1), [text], "float")
    items = ["1", "x", None, "2.5", "\t"]
    m = np.zeros(5, bool)
    check_numpy(tc.cast(items, "double", errors="null", mask_out=m), m, items, "double")
    for order in (">", "<"):
        x = np.array(MIXED[:20], order + "U45")
        m = np.zeros(20, bool)
        check_numpy(tc.cast(x, "float16", errors="null", mask_out=m), m, stored(x), "float16")
    a = pa.array([None] * 9, pa.string())
    r = tc.cast(a, "uint16", errors="null")
    assert r.null_count == 9 and not arrow_codes(r)[0].any()


# ---------------------------------------------------------------------------------------
# 4. Threads: large columns
# ---------------------------------------------------------------------------------------

BIG_N = 12_289


def big_texts(seed):
    g = np.random.default_rng(seed)
    good = g.integers(0, len(NUMBERS), BIG_N)
    texts = [NUMBERS[i] for i in good]
    # bad texts spread out, and runs of them around the multiples of 1024 (chunk edges)
    for i in g.choice(BIG_N, 700, replace=False):
        texts[i] = BAD[int(i) % len(BAD)]
    for edge in range(1024, BIG_N, 1024):
        for i in range(edge - 2, min(edge + 2, BIG_N)):
            texts[i] = BAD[(i // 3) % len(BAD)]
    texts[0] = "x"
    texts[-1] = "1.2.3"
    return texts


def big_layout(layout, texts):
    if layout == "str_":
        return np.array(texts)
    if layout == "bytes_":
        return np.array([t.encode() for t in texts], np.bytes_)
    if layout == "object":
        return objects([None if i % 97 == 5 else t for i, t in enumerate(texts)])
    if layout == "StringDType_na":
        items = [None if i % 89 == 7 else t for i, t in enumerate(texts)]
        return np.array(items, dtype=np.dtypes.StringDType(na_object=None))
    items = [None if i % 101 == 9 else t for i, t in enumerate(texts)]
    if layout == "utf8":
        return pa.array(items, pa.string())
    if layout == "large_utf8_sliced":
        return pa.array(["q"] * 5 + items, pa.large_string()).slice(5)
    if layout == "chunked":
        return pa.chunked_array([items[:5000], [], items[5000:]], pa.string())
    raise AssertionError(layout)


BIG_LAYOUTS = ["str_", "bytes_", "object", "utf8", "large_utf8_sliced", "chunked"]
if NUMPY2:
    BIG_LAYOUTS.insert(3, "StringDType_na")


def result_codes(r, mask):
    if mask is not None:
        return numpy_codes(r), mask.reshape(-1).copy()
    if isinstance(r, pa.ChunkedArray):
        parts = [arrow_codes(c) for c in r.chunks]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    return arrow_codes(r)


@pytest.mark.parametrize("to", ["float", "int8", "float8e4m3fn", "int4", "bool"])
@pytest.mark.parametrize("layout", BIG_LAYOUTS)
def test_large_columns_threads_1_2_and_pool_identical(layout, to):
    texts = big_texts(len(layout) * 31 + len(to))
    x = big_layout(layout, texts)
    elements = stored(x)
    want, want_null = oracle(elements, to)
    assert want_null.sum() > 700
    runs = {}
    for threads in (1, 2, None):
        r, mask = try_cast(x, to, threads=threads)
        runs[threads] = result_codes(r, mask)
    for threads in (2, None):
        np.testing.assert_array_equal(runs[threads][1], runs[1][1])
        np.testing.assert_array_equal(runs[threads][0], runs[1][0])
    np.testing.assert_array_equal(runs[1][1], want_null)
    np.testing.assert_array_equal(runs[1][0], want)


@pytest.mark.parametrize("layout", BIG_LAYOUTS)
def test_large_packed_column_threads_identical(layout):
    x = big_layout(layout, big_texts(5))
    want, want_null = oracle(stored(x), "float4e2m1")
    for threads in (1, 2, None):
        mask = np.logical_not(want_null).reshape(x.shape if isinstance(x, np.ndarray) else -1)
        r = tc.cast(x, "float4e2m1", errors="null", mask_out=mask, packed=True, threads=threads)
        np.testing.assert_array_equal(mask.reshape(-1), want_null)
        np.testing.assert_array_equal(r, pack_codes(want, 4))


@pytest.mark.parametrize("layout", BIG_LAYOUTS)
def test_all_bad_column(layout):
    texts = [BAD[i % len(BAD)] for i in range(10_007)]
    x = big_layout(layout, texts)
    n = len(texts)
    for to in ("double", "float8e8m0", "uint16"):
        for threads in (1, 2, None):
            r, mask = try_cast(x, to, threads=threads)
            codes, nulls = result_codes(r, mask)
            assert nulls.all() and nulls.shape == (n,)
            assert not codes.any()
            if mask is None:
                assert r.null_count == n


# ---------------------------------------------------------------------------------------
# Numeric sources: nothing changes
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("to", ["float16", "int8", "float8e4m3fn", "int4", "bool"])
def test_numeric_sources_are_never_null(to):
    x = np.array([0.0, -0.0, 1.5, np.nan, -np.inf, 1e30, -300.0, 7.0], np.float32)
    ints = np.array([0, -1, 2, 300, -300, 7, 100, -8], np.int16).reshape(2, 4)
    for src in (x, x[::-1], ints, ints.T, x.astype(ml_dtypes.bfloat16), x > 0):
        mask = np.ones(src.shape, bool)
        want = numpy_codes(tc.cast(src, to))
        r = tc.cast(src, to, errors="null", mask_out=mask)
        assert not mask.any()
        np.testing.assert_array_equal(numpy_codes(r), want)


def test_arrow_numeric_sources_keep_their_nulls():
    a = pa.array([1.5, None, -2.0, 300.0, None, 0.25], pa.float64())
    nulls = np.array([False, True, False, False, True, False])
    # Arrow result: validity of x, null slots 0
    r = tc.cast(a, "int8", errors="null")
    codes, got_nulls = arrow_codes(r)
    np.testing.assert_array_equal(got_nulls, nulls)
    assert not codes[nulls].any()
    np.testing.assert_array_equal(codes, arrow_codes(tc.cast(a, "int8"))[0])
    # numpy results: mask_out = x's nulls
    for to, kw in (("float8e4m3fn", {}), ("int4", {"packed": True})):
        mask = np.logical_not(nulls)
        want = tc.cast(a, to, **kw)
        r = tc.cast(a, to, errors="null", mask_out=mask, **kw)
        np.testing.assert_array_equal(mask, nulls)
        if isinstance(want, np.ndarray):
            np.testing.assert_array_equal(numpy_codes(r), numpy_codes(want))
    out = np.empty(6, np.float32)
    mask = np.logical_not(nulls)
    r = tc.cast(a, "float", errors="null", mask_out=mask, out=out)
    assert r is out
    np.testing.assert_array_equal(mask, nulls)
    assert not numpy_codes(out)[nulls].any()
    np.testing.assert_array_equal(out[~nulls], np.array([1.5, -2.0, 300.0, 0.25], np.float32))
    # ChunkedArray with an empty chunk
    c = pa.chunked_array([a.slice(0, 2), pa.array([], pa.float64()), a.slice(2)])
    mask = np.logical_not(nulls)
    tc.cast(c, "bfloat16", errors="null", mask_out=mask)
    np.testing.assert_array_equal(mask, nulls)


# ---------------------------------------------------------------------------------------
# 5. Argument errors
# ---------------------------------------------------------------------------------------

X3 = np.array(["1", "x", "2"])
A3 = pa.array(["1", "x", None])


def m3():
    return np.zeros(3, bool)


def overlap_x():
    x = np.array([b"1", b"x", b"2"], "S1")
    tc.cast(x, "float", errors="null", mask_out=x.view(np.bool_))


def overlap_numeric_x():
    x = np.array([True, False, True])
    tc.cast(x, "float", errors="null", mask_out=x)


def overlap_out():
    out = np.zeros(3, np.uint8)
    tc.cast(X3, "uint8", errors="null", mask_out=out.view(np.bool_), out=out)


def overlap_packed_out():
    whole = np.zeros(5, np.uint8)
    mask = whole[1:4].view(np.bool_)
    tc.cast(X3, "int4", errors="null", packed=True, out=whole[:2], mask_out=mask)


NULL = {"errors": "null"}
NEEDS_MASK = r"errors='null' with a numpy result needs mask_out="
ARROW_HOLDS = r"mask_out: the result is an Arrow array, whose validity holds the nulls"
ERRORS_WORD = r"errors must be 'raise' or 'null'"
ERROR_CASES = [
    ("errors_ignore", ValueError, ERRORS_WORD + ", not 'ignore'", X3, {"errors": "ignore"}),
    ("errors_none", ValueError, ERRORS_WORD + ", not None", X3, {"errors": None}),
    ("errors_upper_arrow", ValueError, ERRORS_WORD, A3, {"errors": "NULL"}),
    ("errors_bytes", ValueError, ERRORS_WORD, X3, {"errors": b"null", "mask_out": m3}),
    ("mask_with_raise", ValueError, r"mask_out: it is written by errors='null' only", X3,
     {"mask_out": m3}),
    ("mask_with_explicit_raise_arrow", ValueError, r"written by errors='null' only", A3,
     {"errors": "raise", "mask_out": m3, "to": "float8e4m3fn"}),
    ("stats_out", ValueError, r"stats_out: statistics are not computed with errors='null'", X3,
     {**NULL, "mask_out": m3, "stats_out": tc.CastStats}),
    ("numpy_no_mask", ValueError, NEEDS_MASK, X3, NULL),
    ("numpy_numeric_no_mask", ValueError, NEEDS_MASK, np.ones(3), NULL),
    ("object_no_mask", ValueError, NEEDS_MASK, objects(["1", None, "x"]), NULL),
    ("list_no_mask", ValueError, NEEDS_MASK, ["1", "x"], NULL),
    ("arrow_float8_no_mask", ValueError, NEEDS_MASK, A3, {**NULL, "to": "float8e4m3fn"}),
    ("arrow_packed_no_mask", ValueError, NEEDS_MASK, A3, {**NULL, "to": "int4", "packed": True}),
    ("arrow_out_no_mask", ValueError, NEEDS_MASK, A3,
     {**NULL, "out": lambda: np.empty(3, np.float32)}),
    ("chunked_bfloat16_no_mask", ValueError, NEEDS_MASK, pa.chunked_array([A3, A3]),
     {**NULL, "to": "bfloat16"}),
    ("arrow_result_with_mask", ValueError, ARROW_HOLDS, A3, {**NULL, "mask_out": m3}),
    ("chunked_result_with_mask", ValueError, ARROW_HOLDS, pa.chunked_array([A3]),
     {**NULL, "mask_out": m3, "to": "int64"}),
    ("arrow_numeric_result_with_mask", ValueError, ARROW_HOLDS, pa.array([1, None, 2]),
     {**NULL, "mask_out": m3}),
    ("mask_list", TypeError, r"mask_out must be a numpy bool array, not list", X3,
     {**NULL, "mask_out": lambda: [False] * 3}),
    ("mask_uint8", TypeError, r"mask_out has dtype uint8, it must be bool", X3,
     {**NULL, "mask_out": lambda: np.zeros(3, np.uint8)}),
    ("mask_int64_arrow", TypeError, r"mask_out has dtype int64, it must be bool", A3,
     {**NULL, "mask_out": lambda: np.zeros(3, np.int64), "to": "int4"}),
    ("mask_shape", ValueError, r"mask_out has shape \(4,\), x has shape \(3,\)", X3,
     {**NULL, "mask_out": lambda: np.zeros(4, bool)}),
    ("mask_shape_2d", ValueError, r"mask_out has shape \(3, 1\), x has shape \(3,\)", X3,
     {**NULL, "mask_out": lambda: np.zeros((3, 1), bool)}),
    ("mask_shape_arrow", ValueError, r"mask_out has shape \(2,\), x has shape \(3,\)", A3,
     {**NULL, "mask_out": lambda: np.zeros(2, bool), "to": "bfloat16"}),
    ("mask_read_only", ValueError, r"mask_out is read-only", X3,
     {**NULL, "mask_out": lambda: np.broadcast_to(np.zeros(1, bool), (3,))}),
    ("mask_read_only_arrow", ValueError, r"mask_out is read-only", A3,
     {**NULL, "mask_out": lambda: np.frombuffer(b"\x00\x00\x00", bool), "to": "int4"}),
    ("chunked_out", ValueError, r"out= is not supported for a pyarrow ChunkedArray",
     pa.chunked_array([A3]), {**NULL, "mask_out": m3, "out": lambda: np.empty(3, np.float32)}),
    ("object_int_element", TypeError, r"element 1 is int, not str or bytes",
     objects(["1", 5, None]), {**NULL, "mask_out": m3}),
    ("object_float_element", TypeError, r"element 2 is float, not str or bytes",
     objects([None, "x", 1.5]), {**NULL, "mask_out": m3}),
]  # fmt: skip


@pytest.mark.parametrize(
    "exc,match,x,kw", [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_argument_errors(exc, match, x, kw):
    kw = {k: (v() if callable(v) else v) for k, v in kw.items()}
    to = kw.pop("to", "float")
    with pytest.raises(exc, match=match):
        tc.cast(x, to, **kw)


@pytest.mark.parametrize(
    "fn", [overlap_x, overlap_numeric_x, overlap_out, overlap_packed_out], ids=lambda f: f.__name__
)
def test_mask_out_overlapping_x_or_out_is_refused(fn):
    with pytest.raises(ValueError, match=r"mask_out shares memory with x or out"):
        fn()


@pytest.mark.parametrize(
    "x",
    [pa.array(["1", "x", "3", "4"]), pa.array([1, None, 3, 4], pa.int8())],
    ids=["text", "int8"],
)
def test_arrow_input_mask_overlapping_out_is_refused(x):
    out = np.zeros(4, np.uint8)
    with pytest.raises(ValueError, match=r"shares memory"):
        tc.cast(x, "uint8", out=out, errors="null", mask_out=out.view(np.bool_))


@pytest.mark.parametrize(
    "x",
    [objects(["1", "\ud800", "2"]), np.array(["1", "\ud800", "2"]), np.array(["1", "\udfff"] * 40)],
    ids=["object", "str_", "str_large"],
)
def test_texts_that_are_not_unicode_become_nulls(x):
    for i in range(x.size):  # the raise path raises CastError on each such element alone
        if "\ud800" in x[i] or "\udfff" in x[i]:
            with pytest.raises(tc.CastError):
                tc.cast(x[i : i + 1], "float")
    mask = np.zeros(x.shape, bool)
    r = tc.cast(x, "float", errors="null", mask_out=mask)
    check_numpy(r, mask, [e if e.isascii() else None for e in stored(x)], "float")


@needs_numpy2
def test_string_dtype_nan_na_is_treated_the_same_small_and_large():
    dt = np.dtypes.StringDType(na_object=np.nan)
    outcomes = []
    for n in (3, 90):
        x = np.array((["1", np.nan, "x"] * 30)[:n], dtype=dt)
        mask = np.zeros(n, bool)
        try:
            tc.cast(x, "float", errors="null", mask_out=mask)
            outcomes.append(("ok", mask[:3].tolist()))
        except TypeError:
            outcomes.append(("TypeError", None))
    assert outcomes[0] == outcomes[1]


# ---------------------------------------------------------------------------------------
# 6. Leaks and hostile arguments
# ---------------------------------------------------------------------------------------

CALLS = 10_000
L_STR = np.array(MIXED[:20])
L_MASK20 = np.zeros(20, bool)
L_OBJ = objects(with_nones(MIXED[:20]))
L_ARROW = pa.array(with_nones(MIXED[:40]))
L_MASK40 = np.zeros(40, bool)
L_CHUNKED = pa.chunked_array([L_ARROW.slice(0, 10), [], L_ARROW.slice(10)])
L_OUT = np.empty(20, np.float16)
L_PACKED_OUT = np.empty(10, np.uint8)
L_MASK_2D = np.zeros((4, 5), bool)
L_STR_2D = L_STR.reshape(4, 5)


def _refused():
    try:
        tc.cast(L_STR, "float", errors="null")
    except ValueError:
        return
    raise AssertionError("no ValueError")


LEAK_CALLS = {
    "str_": (
        lambda: tc.cast(L_STR, "float", errors="null", mask_out=L_MASK20),
        [L_STR, L_MASK20],
    ),
    "object_none": (
        lambda: tc.cast(L_OBJ, "int8", errors="null", mask_out=L_MASK20),
        [L_OBJ, L_MASK20],
    ),
    "packed_2d_out": (
        lambda: tc.cast(
            L_STR_2D, "int4", errors="null", mask_out=L_MASK_2D, packed=True, out=L_PACKED_OUT
        ),
        [L_STR_2D, L_MASK_2D, L_PACKED_OUT],
    ),
    "out": (
        lambda: tc.cast(L_STR, "float16", errors="null", mask_out=L_MASK20, out=L_OUT),
        [L_STR, L_MASK20, L_OUT],
    ),
    "arrow": (lambda: tc.cast(L_ARROW, "float", errors="null"), [L_ARROW]),
    "arrow_numpy": (
        lambda: tc.cast(L_ARROW, "float8e4m3fn", errors="null", mask_out=L_MASK40),
        [L_ARROW, L_MASK40],
    ),
    "chunked": (lambda: tc.cast(L_CHUNKED, "int64", errors="null"), [L_CHUNKED]),
    "refused": (_refused, [L_STR]),
}
if NUMPY2:
    L_SD_SMALL = np.array(with_nones(MIXED[:20]), dtype=np.dtypes.StringDType(na_object=None))
    L_SD_LARGE = np.array(with_nones(MIXED[:40]) * 2, dtype=np.dtypes.StringDType(na_object=None))
    L_MASK80 = np.zeros(80, bool)
    LEAK_CALLS["StringDType_small"] = (
        lambda: tc.cast(L_SD_SMALL, "double", errors="null", mask_out=L_MASK20),
        [L_SD_SMALL, L_MASK20],
    )
    LEAK_CALLS["StringDType_large"] = (
        lambda: tc.cast(L_SD_LARGE, "double", errors="null", mask_out=L_MASK80),
        [L_SD_LARGE, L_MASK80],
    )


@pytest.mark.parametrize("kind", list(LEAK_CALLS))
def test_no_leaks_over_10000_calls(kind):
    # The check and bounds of test_leaks.py.
    fn, args = LEAK_CALLS[kind]
    assert_no_leaks(fn, args, CALLS)


def _hostile_masks(n):
    """(name, mask_out, the exception expected or None for success)."""
    back = np.ones(2 * n + 64, bool)
    return [
        ("memoryview", memoryview(np.zeros(n, bool)), TypeError),
        ("bytearray", bytearray(n), TypeError),
        ("zero_d", np.zeros((), bool), ValueError),
        ("numpy_bool_scalar", np.bool_(False), TypeError),
        (
            "huge_shape",
            np.lib.stride_tricks.as_strided(np.zeros(1, bool), shape=(1 << 40,), strides=(0,)),
            ValueError,
        ),  # fmt: skip
        (
            "huge_2d",
            np.lib.stride_tricks.as_strided(
                np.zeros(1, bool), shape=(1 << 31, 1 << 31), strides=(0, 0)
            ),
            ValueError,
        ),  # fmt: skip
        ("one_more", np.zeros(n + 1, bool), ValueError),
        ("empty", np.zeros(0, bool), ValueError),
        ("void_bool_like", np.zeros(n, "V1"), TypeError),
        ("object", np.zeros(n, object), TypeError),
        ("negative_strides", back[: 2 * n][::-2], None),
        ("strided_2d_view", np.ones((n, 3), bool)[:, 1], None),
        ("fortran_column", np.asfortranarray(np.ones((n, 2), bool))[:, 0], None),
        ("copy_of_strided", np.ones(2 * n, bool)[::2].copy(), None),
    ]


@pytest.mark.parametrize("which", range(len(_hostile_masks(1))))
@pytest.mark.parametrize("layout", ["str_", "object_str", "utf8", "chunked"])
def test_hostile_mask_out_never_crashes(layout, which):
    x = make(layout, MIXED)
    n = len(stored(x))
    name, mask, exc = _hostile_masks(n)[which]
    to = "bfloat16"  # a numpy result for Arrow inputs too
    if exc is not None:
        with pytest.raises(exc):
            tc.cast(x, to, errors="null", mask_out=mask)
        return
    # A writable bool view: written in place, nothing around it touched.
    base = mask.base if mask.base is not None else mask
    before = base.copy()
    r = tc.cast(x, to, errors="null", mask_out=mask)
    check_numpy(r, mask, stored(x), to)
    # The elements of base that mask views: those that change when mask is flipped. Every
    # other element keeps its value.
    probe = base.copy()
    np.logical_not(mask, out=mask)
    inside = probe != base
    assert inside.sum() == n, name
    np.testing.assert_array_equal(base[~inside], before[~inside])


@pytest.mark.parametrize("trial", range(60))
def test_random_argument_combinations_never_crash(trial):
    g = np.random.default_rng(1000 + trial)
    layout = (NUMPY_LAYOUTS + ARROW_LAYOUTS)[int(g.integers(0, len(NUMPY_LAYOUTS) + 6))]
    x = make(layout, MIXED[: int(g.integers(1, len(MIXED)))])
    to = list(TARGETS)[int(g.integers(0, len(TARGETS)))]
    n = len(stored(x))
    packed = bool(g.integers(0, 2)) and to in PACKED_BITS
    shape = [(n,), (n + 1,), (), (1, n), (n, 1), (max(n - 1, 0),)][int(g.integers(0, 6))]
    mask = None if g.integers(0, 4) == 0 else np.ones(shape, bool)
    out = None
    if g.integers(0, 3) == 0 and not isinstance(x, pa.ChunkedArray):
        size = (n * PACKED_BITS[to] + 7) // 8 if packed else n
        size += int(g.choice([0, 0, 1, -1]))
        out = np.empty(max(size, 0), np.uint8 if packed else TARGETS[to])
    threads = [1, 2, None][int(g.integers(0, 3))]
    try:
        r = tc.cast(x, to, errors="null", mask_out=mask, out=out, packed=packed, threads=threads)
    except (TypeError, ValueError) as e:
        assert not isinstance(e, tc.CastError), e
        return
    want, want_null = oracle(stored(x), to)
    if isinstance(r, (pa.Array, pa.ChunkedArray)):
        check_arrow(r, x, to)
        return
    np.testing.assert_array_equal(mask.reshape(-1), want_null)
    if packed:
        np.testing.assert_array_equal(r, pack_codes(want, PACKED_BITS[to]))
    else:
        np.testing.assert_array_equal(numpy_codes(r), want)


def test_missing_object_values_are_nulls():
    # pandas' object columns mark missing values with NaN (or pandas.NA); with
    # errors="null" they are nulls like None. Other non-text objects stay a TypeError.
    x = np.array(["1", float("nan"), None, "x", "2.5"], dtype=object)
    mask = np.zeros(5, bool)
    r = tc.cast(x, "float32", errors="null", mask_out=mask)
    assert mask.tolist() == [False, True, True, True, False]
    assert r.view(np.uint32).tolist() == [0x3F800000, 0, 0, 0, 0x40200000]
    with pytest.raises(TypeError, match="element 1 is int"):
        tc.cast(np.array(["1", 7], dtype=object), "float32", errors="null", mask_out=mask[:2])
    with pytest.raises(TypeError, match="element 1 is float"):
        tc.cast(x, "float32")  # errors="raise": as before


def test_pandas_na_is_a_null():
    pd = pytest.importorskip("pandas")
    x = np.array(["1", pd.NA], dtype=object)
    mask = np.zeros(2, bool)
    r = tc.cast(x, "int8", errors="null", mask_out=mask)
    assert mask.tolist() == [False, True] and r.tolist() == [1, 0]
