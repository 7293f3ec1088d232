"""The package's API: argument spellings, input layouts, out=, packing, threads, split.

Expected values come from the specification (docs/semantics.md, README.md), numpy and
ml_dtypes (where their rules agree with the library's), or hand-written numpy code in this
file (the ONNX packing, numpy slicing for Split); never from tensorcast itself, except
where a test states that two ways of calling tensorcast must agree bit for bit.
"""

import array
import os
import re

import ml_dtypes
import numpy as np
import onnx
import pytest
import tensorcast as tc

DT = tc.DataType
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The dtype of a result, per target (the API's table).
RESULT_DTYPE = {
    DT.FLOAT: np.float32,
    DT.UINT8: np.uint8,
    DT.INT8: np.int8,
    DT.UINT16: np.uint16,
    DT.INT16: np.int16,
    DT.INT32: np.int32,
    DT.INT64: np.int64,
    DT.BOOL: np.bool_,
    DT.FLOAT16: np.float16,
    DT.DOUBLE: np.float64,
    DT.UINT32: np.uint32,
    DT.UINT64: np.uint64,
    DT.BFLOAT16: ml_dtypes.bfloat16,
    DT.FLOAT8E4M3FN: ml_dtypes.float8_e4m3fn,
    DT.FLOAT8E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
    DT.FLOAT8E5M2: ml_dtypes.float8_e5m2,
    DT.FLOAT8E5M2FNUZ: ml_dtypes.float8_e5m2fnuz,
    DT.UINT4: ml_dtypes.uint4,
    DT.INT4: ml_dtypes.int4,
    DT.FLOAT4E2M1: ml_dtypes.float4_e2m1fn,
    DT.FLOAT8E8M0: ml_dtypes.float8_e8m0fnu,
    DT.UINT2: ml_dtypes.uint2,
    DT.INT2: ml_dtypes.int2,
    DT.FLOAT6E2M3: ml_dtypes.float6_e2m3fn,
    DT.FLOAT6E3M2: ml_dtypes.float6_e3m2fn,
}
NUMERIC = list(RESULT_DTYPE)
# The types ONNX CastLike (opsets 15-25) does not accept: Cast-28's FLOAT6 types.
NOT_CAST_LIKE = {DT.FLOAT6E2M3, DT.FLOAT6E3M2}
ML_NAMES = {
    DT.BFLOAT16: "bfloat16",
    DT.FLOAT8E4M3FN: "float8_e4m3fn",
    DT.FLOAT8E4M3FNUZ: "float8_e4m3fnuz",
    DT.FLOAT8E5M2: "float8_e5m2",
    DT.FLOAT8E5M2FNUZ: "float8_e5m2fnuz",
    DT.UINT4: "uint4",
    DT.INT4: "int4",
    DT.FLOAT4E2M1: "float4_e2m1fn",
    DT.FLOAT8E8M0: "float8_e8m0fnu",
    DT.UINT2: "uint2",
    DT.INT2: "int2",
    DT.FLOAT6E2M3: "float6_e2m3fn",
    DT.FLOAT6E3M2: "float6_e3m2fn",
}


def bits(a):
    """The bits of an array, for exact comparison (NaNs included)."""
    a = np.ascontiguousarray(a)
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    if a.dtype.itemsize == 16:
        return a.view(np.uint64)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_same(got, want):
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(bits(got), bits(want))


def hand_pack(values, nbits):
    """ONNX packing written out (docs/semantics.md section 3): element i in bits
    [i * nbits, (i + 1) * nbits) of a little-endian bit stream (8 / nbits elements per byte
    for 4 and 2 bits; 6 bits: four elements in three bytes), ceil(n * nbits / 8) bytes, zero
    padding."""
    codes = [int(v) & ((1 << nbits) - 1) for v in values]
    stream = sum(c << (nbits * i) for i, c in enumerate(codes))
    return np.frombuffer(stream.to_bytes((len(codes) * nbits + 7) // 8, "little"), np.uint8)


def hand_pack6(codes):
    """ONNX's 6-bit packing by its byte formulas: per group of four codes e0..e3 (the last
    group padded with zero codes), byte0 = e0 | e1 << 6, byte1 = e1 >> 2 | e2 << 4, byte2 =
    e2 >> 4 | e3 << 2 (each & 0xFF); the first ceil(6n / 8) bytes."""
    c = [int(v) & 0x3F for v in codes]
    c += [0] * (-len(c) % 4)
    out = []
    for e0, e1, e2, e3 in zip(c[0::4], c[1::4], c[2::4], c[3::4]):
        out += [(e0 | e1 << 6) & 0xFF, (e1 >> 2 | e2 << 4) & 0xFF, (e2 >> 4 | e3 << 2) & 0xFF]
    return np.array(out[: (len(codes) * 6 + 7) // 8], np.uint8)


# ---------------------------------------------------------------------------------------
# DataType, version, CastError
# ---------------------------------------------------------------------------------------


def test_datatype_values_equal_onnx_tensorproto():
    assert issubclass(DT, int)
    names = [m.name for m in DT]
    for name in names:
        assert getattr(onnx.TensorProto, name) == DT[name].value, name
    # every ONNX element type the library knows (1..28) is there, with ONNX's name
    for name, code in onnx.TensorProto.DataType.items():
        if 1 <= code <= 28:
            assert DT(code).name == name
    assert DT.FLOAT == 1 and DT.INT2 == 26 and len(DT) == 28
    assert DT.FLOAT6E2M3 == 27 and DT.FLOAT6E3M2 == 28


def test_version_equals_the_library_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(tensorcast\s+VERSION\s+([0-9.]+)", f.read())
    assert m
    assert tc.__version__ == m.group(1)
    assert re.fullmatch(r"\d+\.\d+\.\d+", tc.__version__)
    from importlib.metadata import version

    assert version("tensorcast") == m.group(1)


def test_cast_error_is_a_value_error():
    assert issubclass(tc.CastError, ValueError)


def test_cast_error_survives_pickle():
    # As it comes back from a Dask or Ray worker: the message, the index and the text.
    import pickle

    with pytest.raises(tc.CastError) as info:
        tc.cast(np.array(["1", "2", "x"]), "float32")
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is tc.CastError
    assert str(back) == str(info.value)
    assert (back.index, back.text) == (2, "x")


# ---------------------------------------------------------------------------------------
# `to` spellings
# ---------------------------------------------------------------------------------------


def spellings(t):
    name = t.name
    out = [
        t,
        int(t),
        name,
        name.lower(),
        name.capitalize(),
        "tensor(%s)" % name.lower(),
        "tensor(%s)" % name,
    ]
    dt = RESULT_DTYPE.get(t)
    if dt is not None:
        out += [dt, np.dtype(dt)]
        if t in ML_NAMES:
            out += [ML_NAMES[t], getattr(ml_dtypes, ML_NAMES[t])]
        else:
            out.append(np.dtype(dt).name)  # "float16", "int8", "bool", ...
    return out


@pytest.mark.parametrize("t", NUMERIC, ids=[t.name for t in NUMERIC])
def test_every_spelling_of_to_gives_the_same_result(t):
    x = np.array([[1.0, 1.0], [1.0, 1.0]], np.float32)
    want = x.astype(RESULT_DTYPE[t])  # 1.0 is exact in every type
    if t == DT.FLOAT8E8M0:
        assert int(want.view(np.uint8)[0, 0]) == 0x7F
    for s in spellings(t):
        got = tc.cast(x, s)
        assert_same(got, want)
        if t in NOT_CAST_LIKE:
            with pytest.raises(TypeError, match="like: CastLike"):
                tc.cast_like(x, s)
        else:
            assert_same(tc.cast_like(x, s), want)


def test_string_spellings_of_to(string_dtype):
    x = np.array([1.5], np.float32)
    for s in (DT.STRING, 8, "STRING", "string", "tensor(string)", string_dtype):
        got = tc.cast(x, s)
        assert got.dtype == string_dtype and got.tolist() == ["1.5"]


def test_onnx_names_first():
    # "float" is ONNX FLOAT (float32), not numpy's float64; "double" is DOUBLE
    assert tc.cast(np.array([1.0]), "float").dtype == np.float32
    assert tc.cast(np.array([1.0]), "FLOAT").dtype == np.float32
    assert tc.cast(np.array([1.0], np.float32), "double").dtype == np.float64
    assert tc.cast(np.array([1.0], np.float32), "float64").dtype == np.float64
    assert tc.cast(np.array([1.0], np.float32), "float32").dtype == np.float32
    assert tc.cast(np.array([1.0], np.float32), "float16").dtype == np.float16
    assert tc.cast(np.array([1.0], np.float32), "bool").dtype == np.bool_


@pytest.mark.parametrize(
    "bad",
    [
        np.complex64,
        np.complex128,
        np.dtype(np.complex64),
        DT.COMPLEX64,
        DT.COMPLEX128,
        14,
        15,
        "complex64",
        "COMPLEX128",
        "tensor(complex64)",
        np.dtype("M8[s]"),
        np.dtype("V4"),
    ],
    ids=str,
)
def test_unsupported_to_is_a_type_error(bad):
    with pytest.raises(TypeError):
        tc.cast(np.zeros(3, np.float32), bad)


@pytest.mark.parametrize(
    "bad",
    ["float7", "nope", "", "tensor(float7)", 0, 29, 99, -1, "FLOAT6E4M1", "UNDEFINED"],
    ids=repr,
)
def test_unknown_to_is_a_value_error(bad):
    with pytest.raises(ValueError):
        tc.cast(np.zeros(3, np.float32), bad)


@pytest.mark.parametrize("bad", [None, 1.5, object(), [1]], ids=repr)
def test_non_type_to_is_a_type_error(bad):
    with pytest.raises(TypeError):
        tc.cast(np.zeros(3, np.float32), bad)


def test_complex_source_is_a_type_error():
    with pytest.raises(TypeError):
        tc.cast(np.zeros(3, np.complex64), DT.FLOAT)


@pytest.mark.parametrize("bad", ["UP", "", "nearest-even", None, 0], ids=repr)
def test_bad_round_mode_is_a_value_error(bad):
    with pytest.raises(ValueError):
        tc.cast(np.ones(2, np.float32), DT.FLOAT8E8M0, round_mode=bad)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"], ids=repr)
def test_bad_threads_is_an_error(bad):
    with pytest.raises((TypeError, ValueError)):
        tc.cast(np.ones(2, np.float32), DT.FLOAT16, threads=bad)


# ---------------------------------------------------------------------------------------
# Semantics through the API (golden values of the specification)
# ---------------------------------------------------------------------------------------


def test_readme_example_float8():
    x = np.array([0.1, 448.0, 1e6, np.nan], np.float32)
    assert bits(tc.cast(x, "FLOAT8E4M3FN")).tolist() == [0x1D, 0x7E, 0x7E, 0x7F]


def test_conformance_vector_float8_saturate():
    # docs/semantics.md 5.2
    x = np.array(
        [
            0.47892547,
            0.48033667,
            0.49968487,
            0.81910545,
            0.47031248,
            0.7229038,
            1e6,
            1e-7,
            np.nan,
            np.inf,
            np.inf,
            -np.inf,
            -1e-7,
            1e-7,
            -1e6,
        ],
        np.float32,
    )
    want = [
        0x2F,
        0x2F,
        0x30,
        0x35,
        0x2F,
        0x34,
        0x7E,
        0x00,
        0x7F,
        0x7E,
        0x7E,
        0xFE,
        0x80,
        0x00,
        0xFE,
    ]
    assert bits(tc.cast(x, DT.FLOAT8E4M3FN, saturate=True)).tolist() == want


def test_saturate_special_table():
    # docs/semantics.md 5.2, "Special values, saturate 1 / 0"
    x = np.array([np.inf, -np.inf, 1e9, -1e9], np.float32)
    table = {
        DT.FLOAT8E4M3FN: ([0x7E, 0xFE] * 2, [0x7F, 0xFF] * 2),
        DT.FLOAT8E4M3FNUZ: ([0x7F, 0xFF] * 2, [0x80] * 4),
        DT.FLOAT8E5M2: ([0x7B, 0xFB] * 2, [0x7C, 0xFC] * 2),
        DT.FLOAT8E5M2FNUZ: ([0x7F, 0xFF] * 2, [0x80] * 4),
    }
    for t, (sat, nosat) in table.items():
        assert bits(tc.cast(x, t, saturate=True)).tolist() == sat, t
        assert bits(tc.cast(x, t, saturate=False)).tolist() == nosat, t


def test_e8m0_round_modes_examples():
    # docs/semantics.md 5.3
    x = np.array([0.124, 0.25, 1.1, 4.0, -5.0], np.float32)
    assert bits(tc.cast(x, DT.FLOAT8E8M0)).tolist() == [0x7C, 0x7D, 0x80, 0x81, 0x82]
    y = np.array([1.4999999, 1.5, 3.0], np.float32)
    assert bits(tc.cast(y, DT.FLOAT8E8M0, round_mode="nearest")).tolist() == [0x7F, 0x80, 0x81]
    assert bits(
        tc.cast(np.array([1.9], np.float32), DT.FLOAT8E8M0, round_mode="down")
    ).tolist() == [0x7F]
    z = np.array([0.0, np.inf], np.float32)
    assert bits(tc.cast(z, DT.FLOAT8E8M0, saturate=True)).tolist() == [0x00, 0xFE]
    assert bits(tc.cast(z, DT.FLOAT8E8M0, saturate=False)).tolist() == [0xFF, 0xFF]
    # round_mode does not affect other targets; saturate does not affect FLOAT16
    f = np.array([1.7, 70000.0], np.float32)
    with np.errstate(over="ignore"):
        f16 = f.astype(np.float16)
    for rm in ("up", "down", "nearest"):
        assert_same(tc.cast(f, DT.FLOAT16, round_mode=rm, saturate=False), f16)
        assert_same(tc.cast(f, DT.FLOAT16, round_mode=rm, saturate=True), f16)


def test_float_to_int_truncates_and_saturates():
    # docs/semantics.md 5.5
    x = np.array([2.7, -1.5, 300.0, -300.0, np.nan, np.inf, -np.inf], np.float32)
    assert tc.cast(x, DT.INT8).tolist() == [2, -1, 127, -128, 0, 127, -128]
    assert tc.cast(x, DT.UINT8).tolist() == [2, 0, 255, 0, 0, 255, 0]
    assert tc.cast(np.array([1e10, -1e10]), DT.INT32).tolist() == [2147483647, -2147483648]


def test_float_to_int4_int2_truncates_and_wraps():
    # docs/semantics.md 5.6
    x = np.array([2.7, -1.5, -9, 8, 15, 1e10, np.nan, np.inf], np.float32)
    assert tc.cast(x, DT.INT4).astype(np.int32).tolist() == [2, -1, 7, -8, -1, 0, 0, 0]
    assert tc.cast(np.array([-1.0, 16.0]), DT.UINT4).astype(np.int32).tolist() == [15, 0]
    assert tc.cast(np.array([-3.0, 2.0]), DT.INT2).astype(np.int32).tolist() == [1, -2]
    assert tc.cast(np.array([-1.0]), DT.UINT2).astype(np.int32).tolist() == [3]


def test_bool_target_and_source():
    x = np.array([0.0, -0.0, np.nan, np.inf, 1e-45, 2.0], np.float32)
    assert tc.cast(x, DT.BOOL).tolist() == [False, False, True, True, True, True]
    b = np.array([True, False])
    assert bits(tc.cast(b, DT.FLOAT)).tolist() == [0x3F800000, 0]
    assert bits(tc.cast(b, DT.FLOAT8E8M0)).tolist() == [0x7F, 0x00]
    assert bits(tc.cast(b, DT.FLOAT4E2M1)).tolist() == [0x2, 0x0]


# ---------------------------------------------------------------------------------------
# Every source dtype
# ---------------------------------------------------------------------------------------

SOURCES = [
    np.bool_,
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
    ml_dtypes.bfloat16,
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e4m3fnuz,
    ml_dtypes.float8_e5m2,
    ml_dtypes.float8_e5m2fnuz,
    ml_dtypes.float8_e8m0fnu,
    ml_dtypes.float4_e2m1fn,
    ml_dtypes.int4,
    ml_dtypes.uint4,
    ml_dtypes.int2,
    ml_dtypes.uint2,
    ml_dtypes.float6_e2m3fn,
    ml_dtypes.float6_e3m2fn,
]


@pytest.mark.parametrize("src", SOURCES, ids=lambda d: np.dtype(d).name)
def test_every_source_dtype_to_double_is_exact(src):
    # small values exact in every source type: numpy / ml_dtypes astype is the oracle
    vals = np.array([0, 1, 0.5, 1, 0, 1], np.float64)
    if np.dtype(src).kind in "iub" or src in (
        ml_dtypes.int4,
        ml_dtypes.uint4,
        ml_dtypes.int2,
        ml_dtypes.uint2,
    ):
        vals = np.array([0, 1, 1, 0, 1, 1], np.float64)
    if src == ml_dtypes.float8_e8m0fnu:
        vals = np.array([0.5, 1, 2, 4, 0.25, 1], np.float64)
    x = vals.astype(src).reshape(2, 3)
    assert_same(tc.cast(x, DT.DOUBLE), x.astype(np.float64))
    assert_same(tc.cast(x, np.float32), x.astype(np.float32))


# ---------------------------------------------------------------------------------------
# Layouts: strides, 0-d, byte order, read-only, empty
# ---------------------------------------------------------------------------------------

G = np.random.default_rng(7)
F64 = G.standard_normal((6, 10)) * 1000.0


def layouts(a):
    return {
        "contiguous": a,
        "step3": a[:, ::3],
        "reversed": a[::-1, ::-1],
        "neg_step2": a[:, ::-2],
        "transposed": a.T,
        "fortran": np.asfortranarray(a),
        "row": a[2],
        "col": a[:, 4],
    }


@pytest.mark.parametrize("name", list(layouts(F64)))
def test_strided_inputs(name):
    x = layouts(F64)[name]
    # float64 -> float32 and -> float16: numpy rounds once (RNE), as the library does
    assert_same(tc.cast(x, DT.FLOAT), x.astype(np.float32))
    assert_same(tc.cast(x, DT.FLOAT16), x.astype(np.float16))
    # float64 -> float8 (no double rounding on these values: checked in test_ml_dtypes)
    x32 = x.astype(np.float32)
    assert_same(tc.cast(x32, DT.FLOAT8E5M2, saturate=False), x32.astype(ml_dtypes.float8_e5m2))
    # a strided sub-byte source and an ml_dtypes target
    i4 = (np.trunc(x) % 16 - 8).astype(ml_dtypes.int4)
    assert_same(tc.cast(i4, DT.FLOAT), i4.astype(np.float32))
    s = (np.trunc(F64) % 16 - 8).astype(ml_dtypes.int4)
    si = layouts(s)[name]
    assert_same(tc.cast(si, DT.INT8), si.astype(np.int8))


def test_zero_dim_inputs(string_dtype):
    x = np.array(1.5, np.float32)
    y = tc.cast(x, DT.FLOAT16)
    assert isinstance(y, np.ndarray) and y.shape == () and y.dtype == np.float16 and float(y) == 1.5
    y = tc.cast(np.array(-9.0), DT.INT4)
    assert y.shape == () and y.dtype == np.dtype(ml_dtypes.int4) and int(y) == 7
    y = tc.cast(np.array(2.5), DT.STRING)
    assert y.shape == () and y.dtype == string_dtype and y.item() == "2.5"
    y = tc.cast(np.array("  12 "), DT.INT32)
    assert y.shape == () and y.dtype == np.int32 and int(y) == 12
    # a numpy scalar is accepted too
    y = tc.cast(np.float32(0.5), DT.DOUBLE)
    assert np.asarray(y).shape == () and float(y) == 0.5


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 2, 5)])
def test_empty_inputs(shape, string_dtype):
    x = np.zeros(shape, np.float32)
    for t in (DT.FLOAT16, DT.INT4, DT.FLOAT8E4M3FN):
        y = tc.cast(x, t)
        assert y.shape == shape and y.dtype == np.dtype(RESULT_DTYPE[t])
    y = tc.cast(x, DT.STRING)
    assert y.shape == shape and y.dtype == string_dtype
    y = tc.cast(np.zeros(shape, string_dtype), DT.FLOAT)
    assert y.shape == shape and y.dtype == np.float32
    assert tc.cast(x, DT.INT4, packed=True).shape == (0,)


@pytest.mark.parametrize("dt", [">f4", ">f8", ">f2", ">i2", ">u4", ">i8", "<f4"])
def test_non_native_byte_order(dt):
    x = (F64 / 7).astype(dt) if dt[1] == "f" else (F64 % 1000).astype(dt)
    native = x.astype(np.dtype(dt).newbyteorder("="))
    for t in (DT.FLOAT, DT.DOUBLE, DT.INT16, DT.FLOAT8E4M3FN):
        assert_same(tc.cast(x, t), tc.cast(native, t))
    assert_same(tc.cast(x, DT.DOUBLE), native.astype(np.float64))
    assert_same(tc.cast(x[::-2], DT.DOUBLE), native[::-2].astype(np.float64))


def test_read_only_inputs():
    x = F64.copy()
    x.flags.writeable = False
    assert_same(tc.cast(x, DT.FLOAT), F64.astype(np.float32))
    buf = np.frombuffer(np.arange(10, dtype=np.int16).tobytes(), np.int16)
    assert not buf.flags.writeable
    assert_same(tc.cast(buf, DT.FLOAT), np.arange(10, dtype=np.float32))
    s = np.array(["1", "2.5"], np.str_)
    s.flags.writeable = False
    assert tc.cast(s, DT.DOUBLE).tolist() == [1.0, 2.5]


# ---------------------------------------------------------------------------------------
# dlpack and the buffer protocol
# ---------------------------------------------------------------------------------------


class OnlyDlpack:
    """Exposes an array through __dlpack__ only (no buffer protocol, no __array__)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, *args, **kwargs):
        return self._a.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_dlpack_input():
    x = F64[:3].astype(np.float32)
    y = tc.cast(OnlyDlpack(x), DT.FLOAT16)
    assert_same(y, x.astype(np.float16))
    y = tc.cast(OnlyDlpack(np.arange(5, dtype=np.int64)), DT.FLOAT8E4M3FN)
    assert_same(y, np.arange(5, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn))


def test_buffer_protocol_inputs():
    a = np.arange(12, dtype=np.float32).reshape(3, 4) / 4
    y = tc.cast(memoryview(a), DT.FLOAT16)  # format 'f', shape (3, 4)
    assert_same(y, a.astype(np.float16))
    y = tc.cast(array.array("d", [0.5, -2.0, 3.25]), DT.FLOAT)
    assert_same(y, np.array([0.5, -2.0, 3.25], np.float32))
    y = tc.cast(memoryview(b"\x01\x02\xff"), DT.FLOAT)  # format 'B'
    assert_same(y, np.array([1, 2, 255], np.float32))
    y = tc.cast(bytearray(b"\x01\x02\xff"), DT.INT16)
    assert_same(y, np.array([1, 2, 255], np.int16))


def test_bytes_object_is_a_uint8_buffer():
    # bytes has the buffer protocol (format 'B'): it is read as uint8 elements, like
    # memoryview(bytes) and bytearray, not as one text
    y = tc.cast(b"\x01\x02\xff", DT.FLOAT)
    assert_same(y, np.array([1, 2, 255], np.float32))


# ---------------------------------------------------------------------------------------
# out=
# ---------------------------------------------------------------------------------------


def test_out_contiguous():
    x = F64.astype(np.float32)
    out = np.empty(x.shape, np.float16)
    r = tc.cast(x, DT.FLOAT16, out=out)
    assert r is out
    assert_same(out, x.astype(np.float16))
    out8 = np.empty(x.shape, ml_dtypes.float8_e4m3fn)
    assert tc.cast_like(x, out8, out=out8) is out8
    assert_same(out8, np.clip(x, -448, 448).astype(ml_dtypes.float8_e4m3fn))


def test_out_non_contiguous():
    x = F64.astype(np.float32)
    base = np.full((x.shape[0], x.shape[1] * 2), 7.0, np.float64)
    out = base[:, ::2]
    assert not out.flags.c_contiguous
    r = tc.cast(x, DT.DOUBLE, out=out)
    assert r is out
    assert_same(out, x.astype(np.float64))
    assert np.all(base[:, 1::2] == 7.0)  # the gaps are untouched
    out_t = np.empty(x.shape[::-1], np.float16).T  # Fortran-ordered out
    assert tc.cast(x, DT.FLOAT16, out=out_t) is out_t
    assert_same(np.ascontiguousarray(out_t), x.astype(np.float16))
    rev = np.empty(x.shape, np.float32)[::-1, ::-1]  # negative strides
    assert tc.cast(x, DT.FLOAT, out=rev) is rev
    assert_same(np.ascontiguousarray(rev), x)
    # a sub-byte target into a strided out
    b4 = np.zeros(x.size * 2, ml_dtypes.int4)
    o4 = b4[::2].reshape(x.shape)
    assert tc.cast(x, DT.INT4, out=o4) is o4
    want = ((np.trunc(x).astype(np.int64) + 8) % 16 - 8).astype(ml_dtypes.int4)  # wrap
    np.testing.assert_array_equal(o4.astype(np.int32), want.astype(np.int32))
    assert np.all(b4[1::2].astype(np.int32) == 0)


def test_out_overlapping_the_input():
    # out may share memory with x: the result is that of the input as it was
    x = np.arange(8, dtype=np.float32) * 1.5 - 4
    want = np.trunc(x).astype(np.int32)
    inplace = x.view(np.int32)
    assert tc.cast(x, DT.INT32, out=inplace) is inplace
    np.testing.assert_array_equal(inplace, want)
    buf = np.arange(16, dtype=np.float64)
    src = buf[4:12]
    want = src.copy()
    dst = buf[2:10]  # overlaps src, shifted by two
    assert tc.cast(src, DT.DOUBLE, out=dst) is dst
    np.testing.assert_array_equal(dst, want)
    h = np.array([0.5, -2.0, 3.0, 65504.0], np.float16)
    rev = h[::-1]
    want = rev.copy()
    assert tc.cast(rev, DT.FLOAT16, out=h) is h  # x is out reversed
    np.testing.assert_array_equal(h, want)


def test_out_strings(string_dtype):
    x = np.array([[1.5, -0.0], [np.inf, 1e20]], np.float64)
    out = np.empty(x.shape, string_dtype)
    assert tc.cast(x, DT.STRING, out=out) is out
    assert out.tolist() == [["1.5", "-0.0"], ["inf", "1e+20"]]


def test_out_packed():
    x = np.array([1, -2, 3, -4, 5], np.float32)
    out = np.empty(3, np.uint8)
    assert tc.cast(x, DT.INT4, packed=True, out=out) is out
    np.testing.assert_array_equal(out, hand_pack([1, -2, 3, -4, 5], 4))


@pytest.mark.parametrize(
    "case",
    [
        "shape",
        "shape_flat",
        "dtype",
        "dtype_float64",
        "packed_size",
        "packed_dtype",
        "readonly",
        "list",
    ],
)
def test_out_errors(case):
    x = np.ones((2, 3), np.float32)
    kw = {}
    if case == "shape":
        out = np.zeros((3, 2), np.float16)
    elif case == "shape_flat":
        out = np.zeros((6,), np.float16)
    elif case == "dtype":
        out = np.zeros((2, 3), np.int16)  # same itemsize, wrong dtype
    elif case == "dtype_float64":
        out = np.zeros((2, 3), np.float64)
    elif case == "packed_size":
        out, kw = np.zeros(4, np.uint8), {"packed": True}
    elif case == "packed_dtype":
        out, kw = np.zeros(3, np.int8), {"packed": True}
    elif case == "readonly":
        out = np.zeros((2, 3), np.float16)
        out.flags.writeable = False
    else:
        out = [0.0] * 6
    target = DT.INT4 if kw else DT.FLOAT16
    before = np.array(out, copy=True)
    with pytest.raises((TypeError, ValueError)):
        tc.cast(x, target, out=out, **kw)
    np.testing.assert_array_equal(np.asarray(out), before)  # nothing written


# ---------------------------------------------------------------------------------------
# Packing
# ---------------------------------------------------------------------------------------


def test_packing_examples_of_the_spec():
    # docs/semantics.md 3, 5.4 and 5.6
    assert tc.cast(np.arange(-3, 4, dtype=np.float32), DT.INT2, packed=True).tolist() == [
        0x39,
        0x39,
    ]
    want = [0x87, 0xA9, 0xCB, 0xED, 0x0F, 0x21, 0x43, 0x65, 0x87, 0xA9, 0xCB, 0xED, 0x0F]
    x = np.arange(-9, 16, dtype=np.float32)
    assert tc.cast(x, DT.INT4, packed=True).tolist() == want
    assert tc.cast(x, DT.UINT4, packed=True).tolist() == want
    v = np.array(
        [0.48, 0.25, 1.05, -3.5, -8, 9, 1e6, 1e-7, np.nan, np.inf, np.inf, -np.inf, -4, 0.01, -0.0],
        np.float32,
    )
    assert tc.cast(v, DT.FLOAT4E2M1, packed=True).tolist() == [
        0x01,
        0xE2,
        0x7F,
        0x07,
        0x78,
        0xF7,
        0x0E,
        0x08,
    ]
    i2 = np.array([1, -2, -1, 0, 1, -2, -1], ml_dtypes.int2)
    assert tc.pack(i2).tolist() == [0x39, 0x39]


PACK_CASES = [
    (ml_dtypes.int4, DT.INT4, 4, -8, 8),
    (ml_dtypes.uint4, DT.UINT4, 4, 0, 16),
    (ml_dtypes.int2, DT.INT2, 2, -2, 2),
    (ml_dtypes.uint2, DT.UINT2, 2, 0, 4),
]


@pytest.mark.parametrize("mt,t,nbits,lo,hi", PACK_CASES, ids=[c[1].name for c in PACK_CASES])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 8, 33, 1001])
def test_pack_unpack_and_packed_cast(mt, t, nbits, lo, hi, n):
    vals = G.integers(lo, hi, n)
    x = vals.astype(mt)
    golden = hand_pack(vals, nbits)
    p = tc.pack(x)
    assert p.dtype == np.uint8 and p.ndim == 1
    np.testing.assert_array_equal(p, golden)
    # a packed cast from INT64 (integer -> 4/2-bit keeps the low bits) and from the
    # unpacked array itself
    np.testing.assert_array_equal(tc.cast(vals.astype(np.int64), t, packed=True), golden)
    np.testing.assert_array_equal(tc.cast(x, t, packed=True), golden)
    # unpacked result = ml_dtypes values
    u = tc.cast(vals.astype(np.int64), t)
    assert u.dtype == np.dtype(mt)
    np.testing.assert_array_equal(u.astype(np.int64), vals)
    # unpack round trip, from numpy, bytes and memoryview
    for buf in (golden, golden.tobytes(), memoryview(golden.tobytes())):
        back = tc.unpack(buf, t, n)
        assert back.dtype == np.dtype(mt) and back.shape == (n,)
        np.testing.assert_array_equal(back.astype(np.int64), vals)
    assert tc.unpack(golden, mt, n).dtype == np.dtype(mt)  # dtype spelled as ml_dtypes


@pytest.mark.parametrize("n", [1, 2, 3, 16, 17])
def test_pack_unpack_float4(n):
    codes = G.integers(0, 16, n).astype(np.uint8)
    x = codes.view(ml_dtypes.float4_e2m1fn)
    golden = hand_pack(codes, 4)
    np.testing.assert_array_equal(tc.pack(x), golden)
    back = tc.unpack(golden, DT.FLOAT4E2M1, n)
    assert back.dtype == np.dtype(ml_dtypes.float4_e2m1fn)
    np.testing.assert_array_equal(back.view(np.uint8), codes)
    xf = x.astype(np.float32)
    np.testing.assert_array_equal(tc.cast(xf, DT.FLOAT4E2M1, packed=True), golden)


FLOAT6 = [(DT.FLOAT6E2M3, ml_dtypes.float6_e2m3fn), (DT.FLOAT6E3M2, ml_dtypes.float6_e3m2fn)]


@pytest.mark.parametrize("t,mt", FLOAT6, ids=[c[0].name for c in FLOAT6])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 1001])
def test_pack_unpack_and_packed_cast_float6(t, mt, n):
    codes = G.integers(0, 64, n).astype(np.uint8)
    x = codes.view(mt)
    golden = hand_pack6(codes)
    assert golden.shape == ((6 * n + 7) // 8,)
    np.testing.assert_array_equal(hand_pack(codes, 6), golden)  # the two spellings agree
    p = tc.pack(x)
    assert p.dtype == np.uint8 and p.ndim == 1
    np.testing.assert_array_equal(p, golden)
    # a packed cast from the values (exact in float32) and from the unpacked array itself
    xf = x.astype(np.float32)
    np.testing.assert_array_equal(tc.cast(xf, t, packed=True), golden)
    np.testing.assert_array_equal(tc.cast(x, t, packed=True), golden)
    # unpacked result: ml_dtypes' bytes
    u = tc.cast(xf, t)
    assert u.dtype == np.dtype(mt) and u.shape == (n,)
    np.testing.assert_array_equal(u.view(np.uint8), codes)
    # unpack, from numpy, bytes and memoryview, with the dtype in every spelling
    for buf in (golden, golden.tobytes(), memoryview(golden.tobytes())):
        back = tc.unpack(buf, t, n)
        assert back.dtype == np.dtype(mt) and back.shape == (n,)
        np.testing.assert_array_equal(back.view(np.uint8), codes)
    for spelling in (mt, np.dtype(mt), t.name, int(t)):
        np.testing.assert_array_equal(tc.unpack(golden, spelling, n).view(np.uint8), codes)
    # a packed source decoded, N-d (the packing follows C order)
    if n % 3 == 0 and n:
        x2 = x.reshape(3, -1)
        np.testing.assert_array_equal(tc.cast(x2, np.float32), xf.reshape(3, -1))
        np.testing.assert_array_equal(tc.pack(x2.T), hand_pack6(codes.reshape(3, -1).T.ravel()))


@pytest.mark.parametrize("t,mt", FLOAT6, ids=[c[0].name for c in FLOAT6])
def test_float6_packing_equals_onnx_numpy_helper(t, mt):
    # onnx.numpy_helper's own 6-bit packing (onnx >= 1.23), as the independent oracle.
    from onnx import numpy_helper

    if not hasattr(numpy_helper, "_pack_6bit"):
        pytest.skip("onnx %s has no 6-bit packing" % onnx.__version__)
    for n in (1, 2, 3, 4, 5, 7, 8, 12, 1000, 1003):
        codes = G.integers(0, 64, n).astype(np.uint8)
        x = codes.view(mt)
        want = numpy_helper._pack_6bit(codes)
        np.testing.assert_array_equal(tc.pack(x), want)
        np.testing.assert_array_equal(tc.cast(x.astype(np.float64), t, packed=True), want)
        np.testing.assert_array_equal(
            tc.unpack(want, t, n).view(np.uint8), numpy_helper._unpack_6bit(want, (n,))
        )
    # A TensorProto's raw_data: onnx's from_array packs, and to_array reads tensorcast's bytes.
    codes = G.integers(0, 64, 11).astype(np.uint8)
    proto = numpy_helper.from_array(codes.view(mt))
    assert proto.data_type == int(t)
    assert tc.pack(codes.view(mt)).tobytes() == proto.raw_data
    proto.raw_data = tc.cast(codes.view(mt).astype(np.float32), t, packed=True).tobytes()
    np.testing.assert_array_equal(numpy_helper.to_array(proto).view(np.uint8), codes)


@pytest.mark.parametrize("t,mt", FLOAT6, ids=[c[0].name for c in FLOAT6])
def test_float6_out_and_strided_layouts(t, mt):
    codes = G.integers(0, 64, (6, 7)).astype(np.uint8)
    x = codes.view(mt)
    xf = x.astype(np.float32)
    # packed out=: uint8 of ceil(6n / 8) bytes, written in place and returned
    out = np.zeros(32, np.uint8)
    assert tc.cast(xf, t, packed=True, out=out) is out
    np.testing.assert_array_equal(out, hand_pack6(codes.ravel()))
    with pytest.raises(ValueError):
        tc.cast(xf, t, packed=True, out=np.zeros(31, np.uint8))
    # unpacked out=, contiguous and strided
    for o in (np.zeros((6, 7), mt), np.zeros((6, 14), mt)[:, ::2]):
        assert tc.cast(xf, t, out=o) is o
        np.testing.assert_array_equal(np.ascontiguousarray(o).view(np.uint8), codes)
    # strided and transposed FP6 sources, decoded and re-encoded
    for view in (x[:, ::2], x[::-1, 1::3], x.T):
        want = np.ascontiguousarray(view).astype(np.float32)
        np.testing.assert_array_equal(bits(tc.cast(view, np.float32)), bits(want))
        got = tc.cast(view, t)
        assert got.shape == view.shape
        np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(view).view(np.uint8))


def test_pack_float6_ignores_the_high_bits_of_its_bytes():
    # Packing keeps the low 6 bits of each byte (the code), as packing int4 keeps 4.
    raw = np.array([0xC1, 0x7F, 0x80, 0x3E, 0xFF], np.uint8)
    for mt in (ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn):
        np.testing.assert_array_equal(tc.pack(raw.view(mt)), hand_pack6(raw & 0x3F))


def test_pack_takes_c_order_of_nd_and_strided_arrays():
    vals = G.integers(-8, 8, (3, 5))
    x = vals.astype(ml_dtypes.int4)
    np.testing.assert_array_equal(tc.pack(x), hand_pack(vals.ravel(), 4))
    np.testing.assert_array_equal(tc.pack(x.T), hand_pack(vals.T.ravel(), 4))
    np.testing.assert_array_equal(tc.pack(x[:, ::-2]), hand_pack(vals[:, ::-2].ravel(), 4))
    f = vals.astype(np.float32)
    np.testing.assert_array_equal(tc.cast(f.T, DT.INT4, packed=True), hand_pack(vals.T.ravel(), 4))


def test_unpack_ignores_padding_bits():
    assert tc.unpack(b"\xff", DT.INT4, 1).astype(np.int32).tolist() == [-1]
    # 6 bits: 1 element in 1 byte (2 padding bits), 2 in 2 (4), 3 in 3 (6); all ones
    for t in (DT.FLOAT6E2M3, DT.FLOAT6E3M2):
        for n in (1, 2, 3):
            assert tc.unpack(b"\xff" * n, t, n).view(np.uint8).tolist() == [0x3F] * n
        # padding bits of the last byte set, the codes 1, 2, 3 below them
        assert tc.unpack(bytes([0x81, 0x30, 0xF0]), t, 3).view(np.uint8).tolist() == [1, 2, 3]
    assert tc.unpack(b"\xe4", DT.UINT2, 3).astype(np.int32).tolist() == [0, 1, 2]
    assert tc.unpack(b"\x39\x39", DT.INT2, 7).astype(np.int32).tolist() == [1, -2, -1, 0, 1, -2, -1]


def test_pack_unpack_errors():
    with pytest.raises((TypeError, ValueError)):
        tc.pack(np.zeros(4, np.int8))
    with pytest.raises((TypeError, ValueError)):
        tc.unpack(b"\x00", DT.INT8, 1)
    with pytest.raises(ValueError):
        tc.unpack(b"\x00", DT.INT4, 3)  # needs 2 bytes
    with pytest.raises(ValueError):
        tc.unpack(b"\x00", DT.INT4, -1)
    with pytest.raises(ValueError, match="need 3 bytes"):
        tc.unpack(b"\x00\x00", DT.FLOAT6E2M3, 3)  # 18 bits
    with pytest.raises(ValueError, match="need 2 bytes"):
        tc.unpack(b"\x00", DT.FLOAT6E3M2, 2)
    with pytest.raises(TypeError, match="pack: x must be an ml_dtypes"):
        tc.pack(np.zeros(4, np.uint8))
    with pytest.raises((TypeError, ValueError)):
        tc.cast(np.zeros(4, np.float32), DT.FLOAT16, packed=True)  # not a packed type


# ---------------------------------------------------------------------------------------
# Threads
# ---------------------------------------------------------------------------------------


def test_threads_give_identical_bits():
    g = np.random.default_rng(11)
    x = g.integers(0, 2**32, 4 * 1024 * 1024, dtype=np.uint32).view(np.float32)  # 16 MiB
    for t in (DT.FLOAT16, DT.FLOAT8E4M3FN, DT.INT4, DT.FLOAT8E8M0):
        one = tc.cast(x, t, threads=1)
        two = tc.cast(x, t, threads=2)
        default = tc.cast(x, t)
        np.testing.assert_array_equal(bits(one), bits(two))
        np.testing.assert_array_equal(bits(one), bits(default))
    np.testing.assert_array_equal(
        tc.cast(x, DT.INT4, packed=True, threads=1), tc.cast(x, DT.INT4, packed=True, threads=2)
    )
    # FLOAT6: the extension packs and unpacks 6-bit codes in tasks of 2^18 elements; an odd
    # count leaves a partial group of four at the end. ml_dtypes is the oracle of the codes.
    x6 = x[: 3 * (1 << 18) + 7]
    with np.errstate(all="ignore"):
        want6 = x6.astype(ml_dtypes.float6_e3m2fn)
    for threads in (1, 2, None):
        got6 = tc.cast(x6, DT.FLOAT6E3M2, threads=threads)
        np.testing.assert_array_equal(bits(got6), bits(want6))
        p6 = tc.cast(x6, DT.FLOAT6E3M2, packed=True, threads=threads)
        np.testing.assert_array_equal(p6, tc.pack(want6))
        np.testing.assert_array_equal(
            bits(tc.cast(want6, np.float32, threads=threads)), bits(want6.astype(np.float32))
        )
    np.testing.assert_array_equal(p6[:3000], hand_pack6(bits(want6[:4000])))
    np.testing.assert_array_equal(p6[-6:], hand_pack6(bits(want6[-7:]))[-6:])
    # and the oracle on the FLOAT16 result (numpy rounds float32 -> float16 as the library,
    # NaNs aside)
    h = tc.cast(x, DT.FLOAT16, threads=2)
    fin = ~np.isnan(x)
    with np.errstate(over="ignore"):
        want = x[fin].astype(np.float16)
    np.testing.assert_array_equal(bits(h[fin]), bits(want))


def test_threads_strings_identical():
    g = np.random.default_rng(12)
    x = g.standard_normal(20_000) * 10.0 ** g.integers(-20, 20, 20_000)
    s1 = tc.cast(x, DT.STRING, threads=1)
    s2 = tc.cast(x, DT.STRING, threads=2)
    assert s1.tolist() == s2.tolist()
    assert s1.tolist() == [str(v) for v in x]  # numpy < 2.3 spelling
    b1 = tc.cast(s1, DT.DOUBLE, threads=1)
    b2 = tc.cast(s1, DT.DOUBLE, threads=2)
    np.testing.assert_array_equal(bits(b1), bits(x))
    np.testing.assert_array_equal(bits(b2), bits(x))


def test_set_get_num_threads():
    old = tc.get_num_threads()
    assert isinstance(old, int) and old >= 1
    try:
        tc.set_num_threads(1)
        assert tc.get_num_threads() == 1
        tc.set_num_threads(3)
        assert tc.get_num_threads() == 3
        x = np.arange(2_000_000, dtype=np.float32)
        with np.errstate(over="ignore"):
            want = x.astype(np.float16)
        np.testing.assert_array_equal(tc.cast(x, DT.FLOAT16), want)
        for bad in (0, -2, 1.5):
            with pytest.raises((TypeError, ValueError)):
                tc.set_num_threads(bad)
        assert tc.get_num_threads() == 3
    finally:
        tc.set_num_threads(old)
    assert tc.get_num_threads() == old


# ---------------------------------------------------------------------------------------
# cast_like
# ---------------------------------------------------------------------------------------


def test_cast_like_uses_only_the_element_type(string_dtype):
    x = np.array([[0.5, 300.0], [-1.5, np.inf]], np.float32)
    for t, dt in RESULT_DTYPE.items():
        if t in NOT_CAST_LIKE:
            continue  # test_cast_like_refuses_float6
        like = np.zeros((7,), dt)  # another shape, values unused
        got = tc.cast_like(x, like, saturate=False, round_mode="down")
        want = tc.cast(x, t, saturate=False, round_mode="down")
        assert_same(got, want)
        assert got.shape == x.shape
    like = np.array(["a"], string_dtype)
    assert tc.cast_like(x, like).tolist() == [["0.5", "300.0"], ["-1.5", "inf"]]
    assert tc.cast_like(x, np.array(["a"], np.str_)).dtype == string_dtype
    # round_mode is honoured (CastLike-24/25)
    y = np.array([1.9], np.float32)
    assert bits(
        tc.cast_like(y, np.zeros(1, ml_dtypes.float8_e8m0fnu), round_mode="down")
    ).tolist() == [0x7F]
    assert bits(
        tc.cast_like(y, np.zeros(1, ml_dtypes.float8_e8m0fnu), round_mode="up")
    ).tolist() == [0x80]
    # saturate too
    z = np.array([1e6], np.float32)
    assert bits(tc.cast_like(z, "float8e4m3fn", saturate=False)).tolist() == [0x7F]


@pytest.mark.parametrize("t", sorted(NOT_CAST_LIKE), ids=lambda t: t.name)
def test_cast_like_refuses_float6(t):
    # ONNX CastLike exists at opsets 15-25; the FLOAT6 types are Cast-28's, neither T1 nor T2
    # of CastLike. The error names the argument; cast() takes them.
    x = np.array([1.5, -2.0], np.float32)
    x6 = x.astype(RESULT_DTYPE[t])
    for like in (np.zeros(3, RESULT_DTYPE[t]), t, t.name, RESULT_DTYPE[t]):
        with pytest.raises(TypeError, match=r"like: CastLike .* does not accept %s" % t.name):
            tc.cast_like(x, like)
    with pytest.raises(TypeError, match=r"x: CastLike .* does not accept %s" % t.name):
        tc.cast_like(x6, np.zeros(1, np.float32))
    assert tc.cast(x6, np.float32).tolist() == [1.5, -2.0]
    assert tc.cast(x, t).astype(np.float32).tolist() == [1.5, -2.0]


def test_cast_like_errors():
    with pytest.raises(TypeError):
        tc.cast_like(np.ones(2, np.float32), np.zeros(2, np.complex64))
    with pytest.raises(ValueError):
        tc.cast_like(np.ones(2, np.float32), "nope")


# ---------------------------------------------------------------------------------------
# split
# ---------------------------------------------------------------------------------------


def numpy_split(x, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


def assert_parts(parts, want):
    assert isinstance(parts, list) and len(parts) == len(want)
    for p, w in zip(parts, want):
        assert isinstance(p, np.ndarray)
        assert p.dtype == w.dtype and p.shape == w.shape
        if p.dtype.kind in "TUSO":
            assert p.tolist() == w.tolist()
        else:
            np.testing.assert_array_equal(bits(p), bits(w))


SPLIT_DTYPES = [
    np.float32,
    np.int8,
    np.uint16,
    np.float64,
    np.bool_,
    np.complex64,
    np.complex128,
    ml_dtypes.bfloat16,
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.int4,
    ml_dtypes.uint2,
    ml_dtypes.float4_e2m1fn,
    ml_dtypes.float6_e2m3fn,
    ml_dtypes.float6_e3m2fn,
    np.str_,
    "StringDType",
]


def split_input(dt, shape):
    """An array of `shape` and SPLIT_DTYPES entry `dt` with small values (texts: their str)."""
    vals = G.integers(-1, 2, shape).astype(np.float64) * G.integers(0, 4, shape)
    if dt == "StringDType":
        return np.array(vals.astype(str).tolist(), np.dtypes.StringDType())
    if dt == np.str_:
        return vals.astype(str)
    if dt in (np.complex64, np.complex128):
        return (vals + 1j * vals[::-1]).astype(dt)
    return vals.astype(dt)


@pytest.mark.parametrize("dt", SPLIT_DTYPES, ids=lambda d: str(d))
@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_split_sizes_equals_numpy_slicing(dt, axis):
    shape = (5, 6, 7)
    x = split_input(dt, shape)
    d = shape[axis]
    for sizes in ([d], [1, d - 1], [2, 0, d - 2], [d - 3, 1, 1, 1]):
        assert_parts(tc.split(x, sizes, axis=axis), numpy_split(x, sizes, axis % 3))


@pytest.mark.parametrize(
    "d,n,want",
    [
        (7, 3, [3, 3, 1]),
        (8, 3, [3, 3, 2]),
        (7, 4, [2, 2, 2, 1]),
        (6, 4, [2, 2, 2, 0]),
        (5, 4, [2, 2, 1, 0]),
        (2, 4, [1, 1, 0, 0]),
        (0, 3, [0, 0, 0]),
        (6, 1, [6]),
        (6, 6, [1] * 6),
    ],
)
def test_split_num_outputs_ceil_rule(d, n, want):
    # docs/semantics.md 8 (Split-18 num_outputs)
    x = np.arange(d * 3, dtype=np.float32).reshape(d, 3)
    parts = tc.split(x, num_outputs=n)
    assert [p.shape[0] for p in parts] == want
    assert_parts(parts, numpy_split(x, want, 0))
    xt = np.ascontiguousarray(x.T)
    assert_parts(tc.split(xt, num_outputs=n, axis=-1), numpy_split(xt, want, 1))


@pytest.mark.parametrize("mt", [ml_dtypes.float6_e2m3fn, ml_dtypes.float6_e3m2fn])
def test_split_float6_odd_counts(mt):
    # Parts of 1, 2, 3, 5 and 7 elements (no part a whole group of four packed codes), 1-D
    # and along either axis of a 2-d array.
    codes = G.integers(0, 64, 18).astype(np.uint8)
    x = codes.view(mt)
    sizes = [1, 2, 3, 5, 7]
    assert_parts(tc.split(x, sizes), numpy_split(x, sizes, 0))
    x2 = G.integers(0, 64, (3, 18)).astype(np.uint8).view(mt)
    assert_parts(tc.split(x2, sizes, axis=1), numpy_split(x2, sizes, 1))
    assert_parts(tc.split(x2, [1, 2], axis=0), numpy_split(x2, [1, 2], 0))
    assert_parts(tc.split(x2.T, num_outputs=4), numpy_split(x2.T, [5, 5, 5, 3], 0))


def test_split_strided_and_byte_swapped_inputs():
    x = np.arange(120, dtype=np.float64).reshape(4, 30)[:, ::-3]  # (4, 10), strided
    assert_parts(tc.split(x, [3, 7], axis=1), numpy_split(np.ascontiguousarray(x), [3, 7], 1))
    xb = np.arange(20, dtype=">i4").reshape(4, 5)
    parts = tc.split(xb, [2, 2])
    assert [p.tolist() for p in parts] == [xb[:2].tolist(), xb[2:].tolist()]
    x0 = np.arange(10, dtype=np.int16)
    assert_parts(tc.split(x0, [10], threads=1), [x0])
    big = np.arange(3_000_000, dtype=np.float32).reshape(1000, 3000)
    p1 = tc.split(big, [1000, 2000], axis=1, threads=1)
    p2 = tc.split(big, [1000, 2000], axis=1, threads=2)
    assert_parts(p1, numpy_split(big, [1000, 2000], 1))
    assert_parts(p2, numpy_split(big, [1000, 2000], 1))


@pytest.mark.parametrize(
    "args,kw",
    [
        (([2, 2],), {}),  # sum 4 != 5
        (([2, 4],), {}),  # sum 6 != 5
        (([6, -1],), {}),  # a negative size
        (([5],), {"axis": 2}),  # axis out of range
        (([5],), {"axis": -3}),
        (([2, 3],), {"num_outputs": 2}),  # both
        ((), {}),  # neither (Split-18)
        ((), {"num_outputs": 0}),
        ((), {"num_outputs": -1}),
        (([2**70, 5 - 2**70],), {}),  # sizes beyond int64: an error value, not a crash
    ],
)
def test_split_errors(args, kw):
    x = np.zeros((5, 4), np.float32)
    with pytest.raises(ValueError):
        tc.split(x, *args, **kw)


def test_split_rank0_is_an_error():
    with pytest.raises(ValueError):
        tc.split(np.array(1.0), [1])


@pytest.mark.parametrize("dt", SPLIT_DTYPES, ids=lambda d: str(d))
@pytest.mark.parametrize("axis", [0, 2, -2])
def test_split_out_equals_the_allocating_split(dt, axis):
    # out= writes the same parts as the allocating split (itself checked against numpy
    # slicing above) and returns the caller's arrays; non-contiguous outs (column blocks of
    # one array) are written too.
    shape = (5, 6, 7)
    x = split_input(dt, shape)
    d = shape[axis]
    for sizes in ([d], [1, d - 1], [2, 0, d - 2]):
        want = tc.split(x, sizes, axis=axis)
        outs = [np.empty(w.shape, w.dtype) for w in want]
        got = tc.split(x, sizes, axis=axis, out=outs)
        assert all(g is o for g, o in zip(got, outs))
        assert_parts(got, want)
        # The parts as interleaved views of one array: outs[k] = big[..., k] for axis 0.
        big = np.empty((*want[0].shape, len(want)), x.dtype) if axis == 0 else None
        if big is not None and len({w.shape for w in want}) == 1:
            views = [big[..., k] for k in range(len(want))]
            got = tc.split(x, sizes, axis=axis, out=views)
            assert all(g is v for g, v in zip(got, views))
            assert_parts([np.ascontiguousarray(v) for v in views], want)


def test_split_out_threads_and_tuple():
    x = G.standard_normal((300, 4000)).astype(np.float32)
    want = numpy_split(x, [1000, 3000], 1)
    for threads in (1, 2, None):
        outs = (np.empty((300, 1000), np.float32), np.empty((300, 3000), np.float32))
        got = tc.split(x, [1000, 3000], axis=1, out=outs, threads=threads)
        assert isinstance(got, list) and got[0] is outs[0] and got[1] is outs[1]
        assert_parts(got, want)


def test_split_out_errors():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    good = [np.empty((4, 2), np.float32) for _ in range(3)]
    ro = np.empty((4, 2), np.float32)
    ro.flags.writeable = False
    cases = [
        (TypeError, "list or tuple", np.empty((3, 4, 2), np.float32)),
        (TypeError, "list or tuple", iter(good)),
        (ValueError, "has 2 arrays", good[:2]),
        (TypeError, "must be a numpy array", [good[0], [[0.0] * 2] * 4, good[2]]),
        (TypeError, "dtype float64", [good[0], np.empty((4, 2)), good[2]]),
        (TypeError, "dtype >f4", [good[0], np.empty((4, 2), ">f4"), good[2]]),
        (ValueError, "shape \\(4, 3\\)", [good[0], np.empty((4, 3), np.float32), good[2]]),
        (ValueError, "read-only", [good[0], ro, good[2]]),
        (ValueError, "shares memory with x", [good[0], x[:, 2:4], good[2]]),
        (ValueError, "shares memory with out\\[0\\]", [good[0], good[0], good[2]]),
    ]
    for exc, match, out in cases:
        before = x.copy()
        with pytest.raises(exc, match=match):
            tc.split(x, axis=1, num_outputs=3, out=out)
        assert np.array_equal(x, before)


def test_split_out_overlap_on_numpy_copy_paths():
    # Texts and objects are split by numpy; their outs are checked as the library's are.
    x = np.array(list("abcd"))
    b = np.empty(2, x.dtype)
    with pytest.raises(ValueError, match=r"out\[1\] shares memory with out\[0\]"):
        tc.split(x, [2, 2], out=[b, b])
    with pytest.raises(ValueError, match=r"shares memory with x"):
        tc.split(x, [2, 2], out=[x[:2], np.empty(2, x.dtype)])
