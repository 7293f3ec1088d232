"""STRING through the package: texts in (StringDType, str_, bytes_, object), numbers out
and numbers in, texts out.

Oracles: Python's float() (correctly rounded decimal -> double), numpy's float32 /
float16 rounding of an exactly representable double, numpy < 2.3's str() of a value (the
spelling docs/semantics.md 7.3 adopts), ml_dtypes for reading the texts of the ml_dtypes
types back, and the golden examples of docs/semantics.md section 7.
"""

import math
from decimal import Decimal

import ml_dtypes
import numpy as np
import pytest
import tensorcast as tc

DT = tc.DataType


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def text_arrays(texts, string_dtype):
    """The same texts as every accepted numpy string layout."""
    obj = np.empty(len(texts), dtype=object)
    obj[:] = texts
    out = {
        "StringDType": np.array(texts, dtype=string_dtype),
        "str_": np.array(texts, np.str_),
        "object": obj,
    }
    if all(t.isascii() for t in texts):
        out["bytes_"] = np.array([t.encode() for t in texts], np.bytes_)
    return out


def test_numpy_is_older_than_2_3():
    # docs/semantics.md 7.3 spells numbers as numpy < 2.3 does; the oracle here is numpy's
    # str(), so it must be that numpy.
    assert str(np.float32(1e6)) == "1000000.0"
    assert str(np.float16(1000)) == "1000.0"


# ---------------------------------------------------------------------------------------
# Texts -> numbers
# ---------------------------------------------------------------------------------------

# (text, value as Python's float() reads it): the syntax of docs/semantics.md 7.1
VALID = [
    "0",
    "-0",
    "+0",
    "12",
    "  12 ",
    "\t3\n",
    "\n\r\t 4 \f\v",
    "+1.5",
    "-1.5",
    ".5",
    "5.",
    "-.5",
    "+5.",
    "1e-5",
    "1E8",
    "2.5e+3",
    "1e+8",
    "1E-05",
    "000123",
    "00.0100",
    "1.e3",
    "inf",
    "INF",
    "+Inf",
    "-inf",
    "infinity",
    "-Infinity",
    "iNfInItY",
    "nan",
    "NaN",
    "NAN",
    "-nan",
    "+nan",
    " nan ",
    " -inf\t",
    "1e400",
    "-1e400",
    "1e-400",
    "0.1",
    "123456789",
    "1.7976931348623157e308",
    "5e-324",
    "2.2250738585072014e-308",
    "9007199254740993",
    "0.1000000000000000055511151231257827021181583404541015625",
]


@pytest.mark.parametrize("layout", ["StringDType", "str_", "object", "bytes_"])
def test_texts_to_double_equal_python_float(layout, string_dtype):
    x = text_arrays(VALID, string_dtype)[layout]
    got = tc.cast(x, DT.DOUBLE)
    assert got.dtype == np.float64 and got.shape == (len(VALID),)
    want = np.array([float(t) for t in VALID], np.float64)
    nan = np.isnan(want)
    np.testing.assert_array_equal(bits(got[~nan]), bits(want[~nan]))  # -0 keeps its sign
    # NaN: the canonical quiet NaN with the sign written (docs section 6)
    signs = [t.strip().startswith("-") for t, n in zip(VALID, nan) if n]
    assert bits(got[nan]).tolist() == [
        0xFFF8000000000000 if s else 0x7FF8000000000000 for s in signs
    ]


@pytest.mark.parametrize("order", [">", "<", "="])
def test_str_arrays_of_any_byte_order(order):
    # UCS4 str_ arrays may be big- or little-endian; the texts are the same
    texts = ["1.5", " -2 ", "inf", "1e-5", "\u00e9"]
    x = np.array(texts, order + "U5")
    assert x.tolist() == texts
    assert tc.cast(x, DT.STRING).tolist() == texts
    assert tc.cast(x[:4], DT.DOUBLE).tolist() == [1.5, -2.0, math.inf, 1e-05]
    assert tc.cast(x[3::-2], DT.DOUBLE).tolist() == [1e-05, -2.0]
    with pytest.raises(tc.CastError) as ei:
        tc.cast(x, DT.DOUBLE)
    assert (ei.value.index, ei.value.text) == (4, "\u00e9")


def test_signed_zero_and_sign_of_texts():
    got = tc.cast(np.array(["-0", "-0.0", "+0", "0e5", "-0e-5"]), DT.FLOAT)
    assert bits(got).tolist() == [0x80000000, 0x80000000, 0, 0, 0x80000000]


@pytest.mark.parametrize("seed", [1, 2])
def test_exact_decimal_texts_to_float_float16_double(seed, string_dtype):
    # The exact decimal expansion of a double d: its value is d itself, so the correctly
    # rounded FLOAT / FLOAT16 is numpy's single rounding of d, and DOUBLE is d.
    g = np.random.default_rng(seed)
    d = np.concatenate(
        [
            np.exp2(g.uniform(-160, 130, 300)),
            g.uniform(-70000, 70000, 300),
            np.exp2(g.uniform(-26, 17, 300)),
        ]
    ) * g.choice([-1, 1], 900)
    texts = ["%s" % Decimal(float(v)) for v in d]
    x = np.array(texts, dtype=string_dtype)
    np.testing.assert_array_equal(bits(tc.cast(x, DT.DOUBLE)), bits(d))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(bits(tc.cast(x, DT.FLOAT)), bits(d.astype(np.float32)))
        np.testing.assert_array_equal(bits(tc.cast(x, DT.FLOAT16)), bits(d.astype(np.float16)))


def test_shortest_double_texts_round_trip(string_dtype):
    g = np.random.default_rng(3)
    d = g.integers(0, 2**64, 3000, dtype=np.uint64).view(np.float64)
    d = d[np.isfinite(d)]
    texts = [repr(float(v)) for v in d] + ["%.17g" % v for v in d] + ["%.30e" % v for v in d]
    got = tc.cast(np.array(texts, dtype=string_dtype), DT.DOUBLE)
    np.testing.assert_array_equal(bits(got), bits(np.array([float(t) for t in texts])))


def test_correct_rounding_example_of_the_spec():
    # docs/semantics.md 7.2: one rounding from the digits
    got = tc.cast(np.array(["1.000000059604644775390625001"]), DT.FLOAT)
    assert bits(got).tolist() == [0x3F800001]
    got = tc.cast(np.array(["1.000000059604644775390625"]), DT.FLOAT)  # the exact tie -> even
    assert bits(got).tolist() == [0x3F800000]


def test_texts_to_integers_and_bool():
    # docs/semantics.md 7.2
    x = np.array(["100.5", "-0.5", "1e3", "300", "-3", "inf", "-inf", "nan", " 7 "])
    assert tc.cast(x, DT.INT32).tolist() == [100, 0, 1000, 300, -3, 2**31 - 1, -(2**31), 0, 7]
    assert tc.cast(x, DT.INT8).tolist() == [100, 0, 127, 127, -3, 127, -128, 0, 7]
    assert tc.cast(x, DT.UINT8).tolist() == [100, 0, 255, 255, 0, 255, 0, 0, 7]
    assert tc.cast(np.array(["9", "-9", "7.9"]), DT.INT4).astype(np.int32).tolist() == [7, -8, 7]
    b = np.array(["true", " FALSE ", "True", "0", "2.5", "nan", "-0.0", "-inf", "0e10"])
    assert tc.cast(b, DT.BOOL).tolist() == [
        True,
        False,
        True,
        False,
        True,
        True,
        False,
        True,
        False,
    ]
    assert (
        tc.cast(np.array(["18446744073709551615", "1e30"]), DT.UINT64).tolist() == [2**64 - 1] * 2
    )


def test_texts_to_ml_dtypes_types():
    x = np.array(["448", "464", "464.00003", "-1e9", "0.5625", "nan"])
    got = tc.cast(x, DT.FLOAT8E4M3FN)
    assert got.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
    assert bits(got).tolist() == [0x7E, 0x7E, 0x7E, 0xFE, 0x31, 0x7F]
    got = tc.cast(x, DT.FLOAT8E4M3FN, saturate=False)
    assert bits(got).tolist() == [0x7E, 0x7E, 0x7F, 0xFF, 0x31, 0x7F]
    got = tc.cast(np.array(["0.1", "3.0", "1.5"]), DT.FLOAT8E8M0, round_mode="nearest")
    assert bits(got).tolist() == [0x7C, 0x81, 0x80]
    got = tc.cast(np.array(["0.1"]), DT.BFLOAT16)
    assert bits(got).tolist() == [bits(np.array([0.1], np.float32).astype(ml_dtypes.bfloat16))[0]]


BAD = [
    "",
    "abc",
    "0x10",
    "1.5abc",
    "1_000",
    "1e",
    ".",
    " ",
    "+",
    "-",
    "1.2.3",
    "--1",
    "1e5.5",
    "infinit",
    "nana",
    "nan(123)",
    "1 2",
    "1,5",
    "0x1p3",
    "1e+",
    ". 5",
    "\u0661",
    "\u221e",
]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_bad_text_raises_cast_error_naming_the_element(bad, string_dtype):
    shape = (2, 3, 4)
    where = (1, 2, 3)
    flat = int(np.ravel_multi_index(where, shape))  # 23 in C order
    texts = np.full(shape, "1.5", dtype=object)
    texts[where] = bad
    layouts = text_arrays(list(texts.ravel()), string_dtype)
    for name, arr in layouts.items():
        arr = arr.reshape(shape)
        for target in (DT.FLOAT, DT.INT8, DT.FLOAT8E4M3FN, DT.DOUBLE):
            with pytest.raises(tc.CastError) as ei:
                tc.cast(arr, target)
            e = ei.value
            assert isinstance(e, ValueError)
            assert e.index == flat, (name, e.index)
            assert e.text == bad, (name, e.text)
            assert ("element %d" % flat) in str(e), str(e)


def test_first_bad_text_is_reported_in_c_order_of_a_strided_array():
    x = np.array([["1", "x"], ["y", "2"]], dtype=object)
    with pytest.raises(tc.CastError) as ei:
        tc.cast(x, DT.FLOAT)
    assert (ei.value.index, ei.value.text) == (1, "x")
    with pytest.raises(tc.CastError) as ei:
        tc.cast(x.T, DT.FLOAT)  # C order of x.T: 1, y, x, 2
    assert (ei.value.index, ei.value.text) == (1, "y")


@pytest.mark.parametrize("bad", ["yes", "t", "truee", "", "no"], ids=repr)
def test_bad_bool_text(bad):
    with pytest.raises(tc.CastError) as ei:
        tc.cast(np.array(["true", bad]), DT.BOOL)
    assert ei.value.index == 1 and ei.value.text == bad


def test_strings_to_strings_are_copied(string_dtype):
    texts = ["h\u00e9llo", "\u65e5\u672c", "\U0001f600", "abc", "", "x" * 300, " 1.5 ", "a\x00b"]
    for name, arr in text_arrays(texts, string_dtype).items():
        got = tc.cast(arr, DT.STRING)
        assert got.dtype == string_dtype and got.tolist() == texts, name
    # StringDType and object elements keep trailing NULs (str_ / bytes_ cannot hold them)
    nul = ["x\x00", "\x00", "1\x00\x00"]
    for name in ("StringDType", "object"):
        got = tc.cast(text_arrays(nul, string_dtype)[name], DT.STRING)
        assert got.tolist() == nul, name


@pytest.mark.parametrize("others", [[], ["2"], ["2" + " " * 70]], ids=["alone", "short", "long"])
def test_a_nul_character_is_not_whitespace(others, string_dtype):
    # docs/semantics.md 7.1: only ASCII whitespace may surround a number, so "1\x00" is not
    # one (numpy's own StringDType astype(float) rejects it too). The answer must not depend
    # on the lengths of the other elements of the array.
    for text in ("1\x00", "1\x00\x00", "\x001", "1\x002"):
        for name in ("StringDType", "object"):
            arr = text_arrays([text] + others, string_dtype)[name]
            with pytest.raises(tc.CastError) as ei:
                tc.cast(arr, DT.DOUBLE)
            assert (ei.value.index, ei.value.text) == (0, text), (name, text, others)


@pytest.mark.parametrize("layout", ["StringDType", "str_", "object", "bytes_"])
def test_long_texts_are_rounded_from_all_their_digits(layout, string_dtype):
    # docs/semantics.md 7.1: no limit on the number of digits. The FLOAT tie
    # 1 + 2^-24 = 1.000000059604644775390625 goes to the even 0x3F800000; any digit after
    # it, however far, rounds up to 0x3F800001.
    tie = "1.000000059604644775390625"
    texts = [
        tie,
        tie + "0" * 2000 + "1",
        tie + "0" * 40 + "1",
        tie + "0" * 3000,
        " " * 100 + "2.5" + " " * 100,
        "1" + "0" * 400 + "e-400",
        "0." + "0" * 5000 + "1e5001",
        "3",
    ]
    got = tc.cast(text_arrays(texts, string_dtype)[layout], DT.FLOAT)
    assert bits(got).tolist() == [
        0x3F800000,
        0x3F800001,
        0x3F800001,
        0x3F800000,
        0x40200000,
        0x3F800000,
        0x3F800000,
        0x40400000,
    ]


# ---------------------------------------------------------------------------------------
# Numbers -> texts
# ---------------------------------------------------------------------------------------


def numpy_str(a):
    return [str(v) for v in a.ravel()]


def float_samples(dtype, seed):
    g = np.random.default_rng(seed)
    info = np.finfo(dtype)
    nbits = np.dtype(dtype).itemsize * 8
    ut = {16: np.uint16, 32: np.uint32, 64: np.uint64}[nbits]
    special = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            -np.nan,
            1e-4,
            1e16,
            1e15,
            0.1,
            123456789.0,
            3.14159265,
            float(info.max),
            float(info.tiny),
            float(info.smallest_subnormal),
            1.0,
            -1.0,
            0.5,
        ],
        np.float64,
    )
    with np.errstate(all="ignore"):
        parts = [
            special.astype(dtype),
            g.integers(0, np.iinfo(ut).max, 4000, dtype=ut, endpoint=True).view(dtype),
            (np.exp2(g.uniform(-20, 60, 2000)) * g.choice([-1, 1], 2000)).astype(dtype),
            np.array(
                [round(v, int(k)) for v, k in zip(g.uniform(-1e6, 1e6, 500), g.integers(0, 6, 500))]
            ).astype(dtype),
        ]
    return np.concatenate(parts)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_floats_to_text_equal_numpy_str(dtype, string_dtype):
    x = float_samples(dtype, 5)
    got = tc.cast(x, DT.STRING)
    assert got.dtype == string_dtype and got.shape == x.shape
    assert got.tolist() == numpy_str(x)
    # N-d and strided: the same texts in the same places
    x2 = x[: (len(x) // 6) * 6].reshape(-1, 6)[::-1, ::2]
    got2 = tc.cast(x2, DT.STRING)
    assert got2.shape == x2.shape and got2.ravel().tolist() == numpy_str(x2)


def test_every_float16_code_to_text_equals_numpy_str():
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    assert tc.cast(x, DT.STRING).tolist() == numpy_str(x)


def test_golden_spellings_of_the_spec():
    # docs/semantics.md 7.3
    cases = [
        (np.float32, 123456789, "123456790.0"),
        (np.float32, 3.14159265, "3.1415927"),
        (np.float16, 0.1, "0.1"),
        (np.float16, 3.14159, "3.14"),
        (np.float64, 0.1 + 0.2, "0.30000000000000004"),
        (np.float64, 5e-324, "5e-324"),
        (np.float32, 1e-4, "1e-04"),
        (np.float32, 1e16, "1e+16"),
        (np.float32, 3.4028235e38, "3.4028235e+38"),
        (np.float32, 1e-45, "1e-45"),
        (np.float64, 1000000000000000.0, "1000000000000000.0"),
        (np.float32, 0.0001234, "0.0001234"),
        (np.float64, -0.0, "-0.0"),
        (np.float32, -np.nan, "nan"),
        (np.float16, -np.inf, "-inf"),
        (ml_dtypes.bfloat16, 0.1, "0.1"),
        (ml_dtypes.float8_e4m3fn, 0.5625, "0.56"),
    ]
    for dt, v, want in cases:
        got = tc.cast(np.array([v]).astype(dt), DT.STRING).tolist()
        assert got == [want], (dt, v, got)
    e8 = np.array([0x00, 0x7F], np.uint8).view(ml_dtypes.float8_e8m0fnu)
    assert tc.cast(e8, DT.STRING).tolist() == ["6e-39", "1.0"]


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
)
def test_integers_to_text(dtype):
    info = np.iinfo(dtype)
    g = np.random.default_rng(6)
    x = np.concatenate(
        [
            np.array([info.min, info.max, 0, 1], dtype),
            g.integers(info.min, info.max, 1000, dtype=dtype, endpoint=True),
        ]
    )
    assert tc.cast(x, DT.STRING).tolist() == [str(int(v)) for v in x]


def test_bool_and_sub_byte_integers_to_text():
    assert tc.cast(np.array([True, False]), DT.STRING).tolist() == ["True", "False"]
    for mt, lo, hi in (
        (ml_dtypes.int4, -8, 7),
        (ml_dtypes.uint4, 0, 15),
        (ml_dtypes.int2, -2, 1),
        (ml_dtypes.uint2, 0, 3),
    ):
        v = np.arange(lo, hi + 1)
        assert tc.cast(v.astype(mt), DT.STRING).tolist() == [str(int(i)) for i in v]


ML_FLOATS = [
    ml_dtypes.bfloat16,
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e4m3fnuz,
    ml_dtypes.float8_e5m2,
    ml_dtypes.float8_e5m2fnuz,
    ml_dtypes.float4_e2m1fn,
    ml_dtypes.float8_e8m0fnu,
    ml_dtypes.float6_e2m3fn,
    ml_dtypes.float6_e3m2fn,
]
CODE_BITS = {
    ml_dtypes.float4_e2m1fn: 4,
    ml_dtypes.float6_e2m3fn: 6,
    ml_dtypes.float6_e3m2fn: 6,
}


def e8m0_nearest(v):
    """FLOAT8E8M0 code of a positive finite v with round_mode nearest (docs 5.3); ml_dtypes
    is not used here because it rounds float32 subnormals differently (test_ml_dtypes)."""
    if math.isnan(v):
        return 0xFF
    m, e = math.frexp(v)  # v = m * 2^e, 0.5 <= m < 1
    return (e - 1) + (1 if m >= 0.75 else 0) + 127


@pytest.mark.parametrize("mt", ML_FLOATS, ids=lambda m: m.__name__)
def test_ml_dtypes_floats_to_text_read_back_to_the_same_code(mt):
    # Every code's text, read back by Python's float() and rounded by ml_dtypes (RNE; e8m0:
    # nearest, as 7.3 says), is the same code; positional exactly for 0 and
    # 1e-4 <= |x| < 1e16 (docs 7.3). The shortest-digit choice is checked against the
    # reference by test_reference.py.
    size = np.dtype(mt).itemsize
    n = 1 << CODE_BITS.get(mt, 8 * size)
    codes = np.arange(n, dtype=np.uint16 if size == 2 else np.uint8)
    x = codes.view(mt)
    texts = tc.cast(x, DT.STRING).tolist()
    with np.errstate(all="ignore"):
        values = x.astype(np.float64)
        if mt == ml_dtypes.float8_e8m0fnu:
            back = np.array([e8m0_nearest(float(t)) for t in texts], np.uint8)
        else:
            back = bits(np.array([float(t) for t in texts]).astype(np.float32).astype(mt))
    for c, v, t, b in zip(codes, values, texts, back):
        if math.isnan(v):
            assert t == "nan"
            continue
        if math.isinf(v):
            assert t == ("-inf" if v < 0 else "inf")
            continue
        assert b == c or (
            v == 0 and float(t) == 0 and math.copysign(1, float(t)) == math.copysign(1, v)
        ), (hex(c), v, t)
        positional = v == 0 or 1e-4 <= abs(v) < 1e16
        assert ("e" not in t) == positional and ("." in t or not positional), (hex(c), v, t)


@pytest.mark.parametrize(
    "mt,t",
    [(ml_dtypes.float6_e2m3fn, DT.FLOAT6E2M3), (ml_dtypes.float6_e3m2fn, DT.FLOAT6E3M2)],
    ids=["FLOAT6E2M3", "FLOAT6E3M2"],
)
def test_texts_to_float6(mt, t, string_dtype):
    # Python's repr of each of the 64 values, and of the values between them (float32 ties
    # and non-ties, exact in float32: ml_dtypes' astype from float32 is the oracle), parsed
    # into FP6 from every kind of numpy text array; unpacked and packed.
    values = np.arange(64, dtype=np.uint8).view(mt).astype(np.float64)
    between = np.concatenate([values, (values[:-1] + values[1:]) / 2, [1e6, -1e6]])
    x = between.astype(np.float32)
    want = x.astype(mt).view(np.uint8)
    texts = [repr(float(v)) for v in x]
    n = len(texts)
    packed_want = np.frombuffer(
        sum(int(c) << (6 * i) for i, c in enumerate(want)).to_bytes((6 * n + 7) // 8, "little"),
        np.uint8,
    )
    for arr in (
        np.array(texts, np.str_),
        np.array(texts, np.bytes_),
        np.array(texts, object),
        np.array(texts, string_dtype),
    ):
        got = tc.cast(arr, t)
        assert got.dtype == np.dtype(mt)
        np.testing.assert_array_equal(got.view(np.uint8), want)
        np.testing.assert_array_equal(tc.cast(arr, t, packed=True), packed_want)
    # and 2-d, through the text spelling of the type
    got = tc.cast(np.array(texts[:90], np.str_).reshape(9, 10), t.name.lower())
    np.testing.assert_array_equal(got.view(np.uint8).ravel(), want[:90])
