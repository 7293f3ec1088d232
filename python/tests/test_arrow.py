"""pyarrow inputs and outputs: numeric and string arrays, nulls, slices, chunked arrays,
Arrow PyCapsule objects.

The rules: pyarrow in -> pyarrow out (Array -> Array, ChunkedArray -> ChunkedArray), the
output's validity is the input's, null slots hold 0; targets without an Arrow type give
numpy ml_dtypes arrays (a ChunkedArray: one concatenated array); a null text is not an
error. The values' oracle is numpy / ml_dtypes on the valid elements.
"""

import ml_dtypes
import numpy as np
import pyarrow as pa
import pytest
import tensorcast as tc

DT = tc.DataType

ARROW_OF = {
    DT.FLOAT: pa.float32(),
    DT.DOUBLE: pa.float64(),
    DT.FLOAT16: pa.float16(),
    DT.INT8: pa.int8(),
    DT.INT16: pa.int16(),
    DT.INT32: pa.int32(),
    DT.INT64: pa.int64(),
    DT.UINT8: pa.uint8(),
    DT.UINT16: pa.uint16(),
    DT.UINT32: pa.uint32(),
    DT.UINT64: pa.uint64(),
    DT.BOOL: pa.bool_(),
}
NUMPY_OF = {
    DT.FLOAT: np.float32,
    DT.DOUBLE: np.float64,
    DT.FLOAT16: np.float16,
    DT.INT8: np.int8,
    DT.INT16: np.int16,
    DT.INT32: np.int32,
    DT.INT64: np.int64,
    DT.UINT8: np.uint8,
    DT.UINT16: np.uint16,
    DT.UINT32: np.uint32,
    DT.UINT64: np.uint64,
    DT.BOOL: np.bool_,
}
NO_ARROW = {
    DT.BFLOAT16: ml_dtypes.bfloat16,
    DT.FLOAT8E4M3FN: ml_dtypes.float8_e4m3fn,
    DT.FLOAT8E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
    DT.FLOAT8E5M2: ml_dtypes.float8_e5m2,
    DT.FLOAT8E5M2FNUZ: ml_dtypes.float8_e5m2fnuz,
    DT.FLOAT4E2M1: ml_dtypes.float4_e2m1fn,
    DT.INT4: ml_dtypes.int4,
    DT.UINT4: ml_dtypes.uint4,
    DT.INT2: ml_dtypes.int2,
    DT.UINT2: ml_dtypes.uint2,
    DT.FLOAT8E8M0: ml_dtypes.float8_e8m0fnu,
    DT.FLOAT6E2M3: ml_dtypes.float6_e2m3fn,
    DT.FLOAT6E3M2: ml_dtypes.float6_e3m2fn,
}

G = np.random.default_rng(21)
N = 40
# small integers exact in every type (also in int2: -2..1), and a null mask
VALUES = G.integers(-2, 2, N).astype(np.float64)
VALUES[VALUES == 0] = 1.0  # non-zero, so "null slot holds 0" means something
MASK = G.random(N) < 0.3
MASK[[0, 5]] = True
MASK[[1, 2]] = False


def slot_values(arr):
    """The data of every slot of a fixed-width Arrow array, nulls included, as numpy."""
    buf = arr.buffers()[1]
    if pa.types.is_boolean(arr.type):
        b = np.unpackbits(np.frombuffer(buf, np.uint8), bitorder="little")
        return b[arr.offset : arr.offset + len(arr)].astype(bool)
    dt = (
        np.dtype(arr.type.to_pandas_dtype())
        if not pa.types.is_float16(arr.type)
        else np.dtype(np.float16)
    )
    return np.frombuffer(buf, dt)[arr.offset : arr.offset + len(arr)]


FLOAT_TYPES = (DT.FLOAT, DT.DOUBLE, DT.FLOAT16)


def expected(src_np, src, t):
    """numpy's conversion where it has the library's rule: float -> integer truncates and
    saturates (numpy's is undefined out of range), integer -> integer wraps, x != 0 for
    BOOL, and the exact small integers here convert exactly to every float type."""
    info = (
        np.iinfo(NUMPY_OF[t])
        if NUMPY_OF[t] not in (np.float16, np.float32, np.float64, np.bool_)
        else None
    )
    if t == DT.BOOL:
        return src_np != 0
    if info is not None:
        if src in FLOAT_TYPES:
            return np.clip(np.trunc(src_np.astype(np.float64)), info.min, info.max).astype(
                NUMPY_OF[t]
            )
        return src_np.astype(NUMPY_OF[t])
    with np.errstate(over="ignore"):
        return src_np.astype(NUMPY_OF[t])


def code_bits(r):
    """The code of each element of an unpacked numpy result (sub-byte: the low bits)."""
    if r.dtype.itemsize == 2:
        return r.view(np.uint16)
    b = r.view(np.uint8)
    if r.dtype in (
        np.dtype(ml_dtypes.int4),
        np.dtype(ml_dtypes.uint4),
        np.dtype(ml_dtypes.float4_e2m1fn),
    ):
        return b & 0xF
    if r.dtype in (np.dtype(ml_dtypes.int2), np.dtype(ml_dtypes.uint2)):
        return b & 0x3
    if r.dtype in (np.dtype(ml_dtypes.float6_e2m3fn), np.dtype(ml_dtypes.float6_e3m2fn)):
        return b & 0x3F
    return b


def make_input(src, values=VALUES, mask=MASK):
    a = pa.array(values.astype(NUMPY_OF[src]), type=ARROW_OF[src], mask=mask)
    return a


def check_arrow_result(r, a, t, valid_values):
    """r: result for input a (Array), target t with an Arrow type."""
    assert isinstance(r, pa.Array), type(r)
    assert r.type == ARROW_OF[t]
    assert len(r) == len(a)
    assert r.is_null().to_pylist() == a.is_null().to_pylist()
    assert r.null_count == a.null_count
    slots = slot_values(r)
    valid = np.array(a.is_valid().to_pylist(), bool)
    np.testing.assert_array_equal(slots[valid], valid_values.astype(NUMPY_OF[t]))
    assert np.all(slots[~valid] == 0), slots[~valid]


@pytest.mark.parametrize("src", list(ARROW_OF), ids=lambda t: t.name)
def test_numeric_arrays_with_nulls_to_every_arrow_type(src):
    a = make_input(src)
    valid = ~MASK
    src_np = VALUES.astype(NUMPY_OF[src])
    if src != DT.BOOL:
        # the input's null slots hold data (so null slots of 0 in the output are written)
        assert np.all(slot_values(a)[MASK] != 0)
    for t in ARROW_OF:
        r = tc.cast(a, t)
        check_arrow_result(r, a, t, expected(src_np[valid], src, t))


@pytest.mark.parametrize("t", list(NO_ARROW), ids=lambda t: t.name)
def test_targets_without_arrow_type_give_ml_dtypes_arrays(t):
    a = make_input(DT.FLOAT)
    r = tc.cast(a, t)
    assert isinstance(r, np.ndarray) and r.dtype == np.dtype(NO_ARROW[t]) and r.shape == (N,)
    # ml_dtypes is the oracle on these small integers, except FLOAT8E8M0 of a negative value,
    # which is encoded as |x| (docs/semantics.md 5.3; ml_dtypes says NaN). Values are
    # compared (ml_dtypes' own byte layout of int4 / int2 is checked in test_ml_dtypes).
    src = VALUES.astype(np.float32)
    want = (np.abs(src) if t == DT.FLOAT8E8M0 else src).astype(NO_ARROW[t])
    np.testing.assert_array_equal(r[~MASK].astype(np.float64), want[~MASK].astype(np.float64))
    # null slots hold 0: the all-zero code (docs/semantics.md 7.4; FLOAT8E8M0 has no zero,
    # its code 0x00), as for a null text
    assert np.all(code_bits(r)[MASK] == 0), code_bits(r)[MASK]


PACKED = [DT.INT4, DT.UINT4, DT.FLOAT4E2M1, DT.INT2, DT.UINT2, DT.FLOAT6E2M3, DT.FLOAT6E3M2]
PACKED_BITS = {DT.INT2: 2, DT.UINT2: 2, DT.FLOAT6E2M3: 6, DT.FLOAT6E3M2: 6}


@pytest.mark.parametrize("t", PACKED, ids=lambda t: t.name)
def test_packed_result_of_an_arrow_array_has_zero_null_slots(t):
    # packed=True is the ONNX packing of the unpacked result: null slots hold 0 there too
    a = make_input(DT.FLOAT)
    p = tc.cast(a, t, packed=True)
    assert isinstance(p, np.ndarray) and p.dtype == np.uint8
    nbits = PACKED_BITS.get(t, 4)
    src = VALUES.astype(np.float32)
    codes = code_bits(src.astype(NO_ARROW[t])).astype(np.int64)
    codes[MASK] = 0
    # ONNX packing: element i in bits [i * nbits, (i + 1) * nbits) of a little-endian bit
    # stream, ceil(N * nbits / 8) bytes
    stream = sum(int(c) << (nbits * i) for i, c in enumerate(codes))
    want = np.frombuffer(stream.to_bytes((N * nbits + 7) // 8, "little"), np.uint8)
    np.testing.assert_array_equal(p, want)


def test_sliced_arrays():
    a = make_input(DT.DOUBLE).slice(3, 10)
    assert a.offset == 3
    r = tc.cast(a, DT.FLOAT16)
    check_arrow_result(r, a, DT.FLOAT16, VALUES[3:13][~MASK[3:13]])
    r = tc.cast(a, DT.FLOAT8E5M2)
    assert isinstance(r, np.ndarray) and r.shape == (10,)
    np.testing.assert_array_equal(r[~MASK[3:13]].astype(np.float64), VALUES[3:13][~MASK[3:13]])
    assert np.all(code_bits(r)[MASK[3:13]] == 0)
    # a bool array sliced at an offset that is not a multiple of 8
    b = pa.array((VALUES > 0), mask=MASK).slice(5, 17)
    r = tc.cast(b, DT.INT32)
    check_arrow_result(r, b, DT.INT32, (VALUES > 0)[5:22][~MASK[5:22]].astype(np.int32))
    # an array without nulls
    c = pa.array(VALUES).slice(7)
    r = tc.cast(c, DT.INT8)
    check_arrow_result(r, c, DT.INT8, VALUES[7:].astype(np.int8))
    assert r.null_count == 0


def test_chunked_arrays():
    a = make_input(DT.FLOAT)
    ch = pa.chunked_array([a.slice(0, 7), a.slice(7, 0), a.slice(7, 20), a.slice(27)])
    r = tc.cast(ch, DT.INT16)
    assert isinstance(r, pa.ChunkedArray) and r.type == pa.int16() and len(r) == N
    assert [len(c) for c in r.chunks] == [len(c) for c in ch.chunks]
    for rc, ic in zip(r.chunks, ch.chunks):
        check_arrow_result(
            rc, ic, DT.INT16, np.array([v for v in ic.to_pylist() if v is not None], np.float32)
        )
    # no Arrow type: one concatenated numpy array, nulls 0
    r = tc.cast(ch, DT.BFLOAT16)
    assert isinstance(r, np.ndarray) and r.dtype == np.dtype(ml_dtypes.bfloat16) and r.shape == (N,)
    np.testing.assert_array_equal(r[~MASK].astype(np.float64), VALUES[~MASK])
    assert np.all(r.view(np.uint16)[MASK] == 0)
    # an empty chunked array
    e = pa.chunked_array([], type=pa.float32())
    r = tc.cast(e, DT.DOUBLE)
    assert isinstance(r, pa.ChunkedArray) and len(r) == 0 and r.type == pa.float64()


def test_chunked_array_packed_is_one_packing_of_all_elements():
    # packed=True: the ONNX packed bytes of all elements in order (not each chunk packed
    # with its own padding); nulls hold 0
    ch = pa.chunked_array([pa.array([1.5, None, 2.0]), pa.array([3.0, -4.0]), pa.array([7.0])])
    p = tc.cast(ch, DT.INT4, packed=True)
    assert isinstance(p, np.ndarray) and p.dtype == np.uint8
    # INT4 codes 1, 0, 2, 3, 0xC, 7 -> bytes 0x01, 0x32, 0x7C
    assert p.tolist() == [0x01, 0x32, 0x7C]
    p = tc.cast(ch, DT.UINT2, packed=True)  # codes 1, 0, 2, 3 | 0 (-4 wraps), 3
    assert p.tolist() == [0x01 | 0x2 << 4 | 0x3 << 6, 0x0 | 0x3 << 2]


FLOAT6 = [(DT.FLOAT6E2M3, ml_dtypes.float6_e2m3fn), (DT.FLOAT6E3M2, ml_dtypes.float6_e3m2fn)]


def pack6(codes):
    """ONNX's 6-bit packing by its byte formulas (groups of four codes e0..e3, zero-padded):
    e0 | e1 << 6, e1 >> 2 | e2 << 4, e2 >> 4 | e3 << 2; the first ceil(6n / 8) bytes."""
    c = [int(v) & 0x3F for v in codes] + [0] * (-len(codes) % 4)
    out = []
    for e0, e1, e2, e3 in zip(c[0::4], c[1::4], c[2::4], c[3::4]):
        out += [(e0 | e1 << 6) & 0xFF, (e1 >> 2 | e2 << 4) & 0xFF, (e2 >> 4 | e3 << 2) & 0xFF]
    return out[: (len(codes) * 6 + 7) // 8]


@pytest.mark.parametrize("t,mt", FLOAT6, ids=[p[0].name for p in FLOAT6])
def test_arrow_to_float6_gives_numpy(t, mt):
    # Arrow has no 6-bit float: an Arrow input gives an ml_dtypes array (one code per byte),
    # or with packed=True ONNX's packed bytes; nulls hold code 0. ml_dtypes' astype from
    # float32 is the oracle of the values (ties, MAX, above MAX, Inf, NaN, -0, subnormals).
    vals = np.array(
        [0.0, -0.0, 0.0625, 0.1, 1.0625, -1.1875, 2.75, 7.25, 7.5, 7.75, 28, 30, 1e9, -np.inf]
        + [np.inf, np.nan, -np.nan, 3.0, -5.0, 0.03125, 26.0, -0.4],
        np.float32,
    )
    mask = np.zeros(len(vals), bool)
    mask[[3, 11]] = True
    with np.errstate(all="ignore"):
        want = vals.astype(mt).view(np.uint8).copy()
    want[mask] = 0
    for arr in (pa.array(vals, mask=mask), pa.array(vals.astype(np.float64), mask=mask)):
        r = tc.cast(arr, t)
        assert isinstance(r, np.ndarray) and r.dtype == np.dtype(mt) and r.shape == (len(vals),)
        assert r.view(np.uint8).tolist() == want.tolist()
        p = tc.cast(arr, t, packed=True)
        assert isinstance(p, np.ndarray) and p.dtype == np.uint8
        assert p.tolist() == pack6(want)
    # sliced at an odd offset, odd lengths (the packed tail is a partial group of four)
    for start, n in ((1, 1), (3, 2), (5, 3), (2, 5), (7, 7)):
        part = pa.array(vals, mask=mask).slice(start, n)
        assert tc.cast(part, t).view(np.uint8).tolist() == want[start : start + n].tolist()
        assert tc.cast(part, t, packed=True).tolist() == pack6(want[start : start + n])
    # a ChunkedArray: one array, and one packing of all its elements
    ch = pa.chunked_array([pa.array(vals[:3]), pa.array(vals[3:5]), pa.array(vals[5:6])])
    r = tc.cast(ch, t)
    assert isinstance(r, np.ndarray) and r.dtype == np.dtype(mt)
    with np.errstate(all="ignore"):
        want6 = vals[:6].astype(mt).view(np.uint8)
    assert r.view(np.uint8).tolist() == want6.tolist()
    assert tc.cast(ch, t, packed=True).tolist() == pack6(want6)
    # texts (Arrow utf8 with nulls) parsed into FP6: one rounding of the decimal value
    texts = pa.array(["1.5", None, "-2.25", "100", "inf", "nan", "-0", None, "0.0625"])
    with np.errstate(all="ignore"):
        want_t = np.array([1.5, 0, -2.25, 100, np.inf, np.nan, -0.0, 0, 0.0625], np.float32)
        want_t = want_t.astype(mt).view(np.uint8).copy()
    want_t[[1, 7]] = 0
    assert tc.cast(texts, t).view(np.uint8).tolist() == want_t.tolist()
    assert tc.cast(texts, t, packed=True).tolist() == pack6(want_t)
    # CastLike does not take FLOAT6 (ONNX CastLike-25)
    with pytest.raises(TypeError, match="like: CastLike"):
        tc.cast_like(pa.array(vals), np.zeros(1, mt))


@pytest.mark.parametrize("stype", [pa.string(), pa.large_string()], ids=str)
def test_chunked_strings(stype):
    ch = pa.chunked_array(
        [pa.array(["1", None, "2.5"], stype), pa.array([], stype), pa.array(["-3", " inf "], stype)]
    )
    r = tc.cast(ch, DT.FLOAT)
    assert isinstance(r, pa.ChunkedArray) and r.type == pa.float32()
    assert r.to_pylist() == [1.0, None, 2.5, -3.0, float("inf")]
    # a bad text in a later chunk: .index is its position in the whole array
    bad = pa.chunked_array([pa.array(["1", None, "2"], stype), pa.array(["3", "x"], stype)])
    with pytest.raises(tc.CastError) as ei:
        tc.cast(bad, DT.FLOAT)
    assert (ei.value.index, ei.value.text) == (4, "x")


def test_empty_and_all_null_arrays():
    e = pa.array([], pa.float64())
    r = tc.cast(e, DT.FLOAT)
    assert isinstance(r, pa.Array) and len(r) == 0 and r.type == pa.float32()
    n = pa.array([None, None, None], pa.float32())
    r = tc.cast(n, DT.INT64)
    assert r.type == pa.int64() and r.null_count == 3 and len(r) == 3


@pytest.mark.parametrize("stype", [pa.string(), pa.large_string()], ids=str)
def test_strings_with_nulls_to_numbers(stype):
    texts = ["1.5", None, " -2 ", "inf", None, "1e3", "nan", "0.1", "x1", "300"]
    a = pa.array(texts, type=stype).slice(0, 8)  # without the bad text
    r = tc.cast(a, DT.DOUBLE)
    assert isinstance(r, pa.Array) and r.type == pa.float64()
    assert r.is_null().to_pylist() == a.is_null().to_pylist()
    slots = slot_values(r)
    want = [float(t) if t is not None else 0.0 for t in texts[:8]]
    np.testing.assert_array_equal(slots.view(np.uint64), np.array(want).view(np.uint64))
    r = tc.cast(a, DT.INT8)
    assert r.to_pylist() == [1, None, -2, 127, None, 127, 0, 0]
    assert np.all(slot_values(r)[[1, 4]] == 0)
    # sliced so that a null and the bad text come after an offset
    s = pa.array(texts, type=stype).slice(3, 7)  # "inf", None, "1e3", "nan", "0.1", "x1", "300"
    with pytest.raises(tc.CastError) as ei:
        tc.cast(s, DT.FLOAT)
    assert ei.value.index == 5 and ei.value.text == "x1"
    ok = pa.array(texts, type=stype).slice(1, 3)  # None, " -2 ", "inf"
    r = tc.cast(ok, DT.FLOAT16)
    assert r.to_pylist() == [None, -2.0, float("inf")]
    r = tc.cast(ok, DT.FLOAT8E4M3FN)  # no Arrow type: numpy, null -> 0
    assert isinstance(r, np.ndarray) and r.view(np.uint8).tolist() == [0x00, 0xC0, 0x7E]


@pytest.mark.parametrize("stype", [pa.string(), pa.large_string()], ids=str)
def test_null_text_is_not_an_error_for_every_target(stype):
    a = pa.array([None, "1", None], type=stype)
    for t in list(ARROW_OF) + list(NO_ARROW):
        r = tc.cast(a, t)
        if isinstance(r, pa.Array):
            assert r.is_null().to_pylist() == [True, False, True]
        else:
            assert code_bits(r)[[0, 2]].tolist() == [0, 0], t


def test_numbers_to_arrow_strings():
    x = np.array([1.5, -0.0, 1e20, np.nan, 0.1, 123456789.0, 1e-5, 7.0], np.float32)
    mask = np.array([False, False, True, False, False, True, False, False])
    a = pa.array(x, mask=mask)
    r = tc.cast(a, DT.STRING)
    assert isinstance(r, pa.Array)
    assert pa.types.is_string(r.type) or pa.types.is_large_string(r.type)
    assert r.to_pylist() == [None if m else str(v) for v, m in zip(x, mask)]
    ints = pa.array([1, None, -128, 127], pa.int8())
    assert tc.cast(ints, DT.STRING).to_pylist() == ["1", None, "-128", "127"]
    b = pa.array([True, None, False])
    assert tc.cast(b, DT.STRING).to_pylist() == ["True", None, "False"]
    ch = pa.chunked_array([ints, ints.slice(2)])
    r = tc.cast(ch, DT.STRING)
    assert isinstance(r, pa.ChunkedArray) and r.to_pylist() == [
        "1",
        None,
        "-128",
        "127",
        "-128",
        "127",
    ]


@pytest.mark.parametrize("stype", [pa.string(), pa.large_string()], ids=str)
def test_strings_to_strings(stype):
    a = pa.array(["a", None, "h\u00e9llo", ""], type=stype).slice(1)
    r = tc.cast(a, DT.STRING)
    assert isinstance(r, pa.Array) and r.to_pylist() == [None, "h\u00e9llo", ""]


def test_float16_arrow_input():
    x = np.array([0.5, 65504, -1.0, 3.0], np.float16)
    a = pa.array(x, type=pa.float16(), mask=np.array([False, True, False, False]))
    r = tc.cast(a, DT.FLOAT)
    assert r.to_pylist() == [0.5, None, -1.0, 3.0]
    r = tc.cast(a, DT.FLOAT8E4M3FN)
    assert r.view(np.uint8).tolist() == [0x30, 0x00, 0xB8, 0x44]


class CapsuleOnly:
    """An Arrow producer known only through the PyCapsule interface."""

    def __init__(self, arr):
        self._arr = arr

    def __arrow_c_array__(self, requested_schema=None):
        return self._arr.__arrow_c_array__(requested_schema)


def test_arrow_c_array_objects():
    a = make_input(DT.INT32)
    r = tc.cast(CapsuleOnly(a), DT.DOUBLE)
    assert isinstance(r, pa.Array) and r.type == pa.float64()
    assert r.to_pylist() == [None if m else float(v) for v, m in zip(VALUES, MASK)]
    s = pa.array(["1", None, "2.5"])
    assert tc.cast(CapsuleOnly(s), DT.FLOAT).to_pylist() == [1.0, None, 2.5]


def test_cast_like_an_arrow_array():
    a = make_input(DT.FLOAT)
    r = tc.cast_like(a, pa.array([], pa.int16()))
    check_arrow_result(r, a, DT.INT16, VALUES[~MASK])
    x = np.array([1.5, 2.0])
    r = tc.cast_like(x, pa.array([7], pa.float16()))
    assert isinstance(r, np.ndarray) and r.dtype == np.float16 and r.tolist() == [1.5, 2.0]
    r = tc.cast_like(x, pa.array(["z"]))
    assert r.tolist() == ["1.5", "2.0"]


NUMERIC_ARROW = [t for t in ARROW_OF if t not in (DT.BOOL, DT.STRING)]


@pytest.mark.parametrize("src", NUMERIC_ARROW, ids=lambda t: t.name)
def test_numeric_arrow_results_equal_the_numpy_out_path(src):
    # The short path of numeric Arrow -> numeric Arrow (a pool buffer wrapped with x's
    # validity) against the general path into a numpy out=, bit for bit, null slots 0,
    # validity kept, at offsets on and off byte boundaries, with and without nulls.
    values = np.arange(-150, 150, 3, dtype=np.float64) / 2
    mask = np.arange(values.size) % 7 == 3
    for a in (
        pa.array(values.astype(NUMPY_OF[src]), type=ARROW_OF[src], mask=mask),
        pa.array(values.astype(NUMPY_OF[src]), type=ARROW_OF[src]),
    ):
        for piece in (a, a.slice(8, 60), a.slice(5, 61)):
            for dst in NUMERIC_ARROW:
                r = tc.cast(piece, dst)
                assert r.type == ARROW_OF[dst] and len(r) == len(piece)
                assert r.null_count == piece.null_count
                assert r.is_valid().equals(piece.is_valid())
                want = np.empty(len(piece), NUMPY_OF[dst])
                tc.cast(piece, dst, out=want)
                got = slot_values(r)
                assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (src, dst)
