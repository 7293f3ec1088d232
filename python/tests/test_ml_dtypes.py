"""tensorcast against ml_dtypes as an independent oracle.

- Every code of every ml_dtypes type (bfloat16: all 65536) decoded to FLOAT and DOUBLE
  equals ml_dtypes' astype bit for bit, NaNs included (docs/semantics.md sections 4 and 6
  and ml_dtypes agree on every code, so nothing is masked).
- FLOAT (and DOUBLE, FLOAT16) -> the four float8 formats with saturate=False equals
  ml_dtypes' (non-saturating) astype bit for bit on random bit patterns, log-uniform
  magnitudes, specials, and every value, tie and tie +- 1 ulp of each format; with
  saturate=True it equals ml_dtypes' astype of the input clipped to +-MAX (NaN stays NaN).
- The differences found, each asserted as the rule docs/semantics.md documents:
  FLOAT8E8M0 (ml_dtypes rounds to nearest and has no saturate: negative values, zero and
  float32 subnormals differ) and DOUBLE -> BFLOAT16 (ml_dtypes rounds through float32).
- The unpacked sub-byte results hold the bytes ml_dtypes itself stores.
- FLOAT6E2M3 / FLOAT6E3M2: every code decodes as ml_dtypes decodes it (to FLOAT, DOUBLE,
  FLOAT16 and BFLOAT16); FLOAT and FLOAT16 -> FP6 equal ml_dtypes' astype (both always
  saturate; NaN -> 0x20 / 0x00 by sign); DOUBLE -> FP6 rounds once where ml_dtypes rounds
  twice through float32 (docs/python.md).
"""

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
import tensorcast as tc

DT = tc.DataType

# (ONNX type, ml_dtypes type, bits)
ML_TYPES = [
    (DT.BFLOAT16, ml_dtypes.bfloat16, 16),
    (DT.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn, 8),
    (DT.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz, 8),
    (DT.FLOAT8E5M2, ml_dtypes.float8_e5m2, 8),
    (DT.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz, 8),
    (DT.FLOAT8E8M0, ml_dtypes.float8_e8m0fnu, 8),
    (DT.FLOAT4E2M1, ml_dtypes.float4_e2m1fn, 4),
    (DT.INT4, ml_dtypes.int4, 4),
    (DT.UINT4, ml_dtypes.uint4, 4),
    (DT.INT2, ml_dtypes.int2, 2),
    (DT.UINT2, ml_dtypes.uint2, 2),
    (DT.FLOAT6E2M3, ml_dtypes.float6_e2m3fn, 6),
    (DT.FLOAT6E3M2, ml_dtypes.float6_e3m2fn, 6),
]
FLOAT8 = [
    (DT.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
    (DT.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz),
    (DT.FLOAT8E5M2, ml_dtypes.float8_e5m2),
    (DT.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz),
]
FLOAT6 = [
    (DT.FLOAT6E2M3, ml_dtypes.float6_e2m3fn),
    (DT.FLOAT6E3M2, ml_dtypes.float6_e3m2fn),
]
BITS_OF = {
    np.dtype(np.float16): np.uint16,
    np.dtype(np.float32): np.uint32,
    np.dtype(np.float64): np.uint64,
}


def ids(params):
    return [p[0].name for p in params]


def every_code(mt, bits):
    """All codes of an ml_dtypes type, as an array of that type (one element per byte for
    the sub-byte types, the code in the low bits as ml_dtypes stores it)."""
    if bits == 16:
        return np.arange(1 << 16, dtype=np.uint16).view(mt)
    return np.arange(1 << bits, dtype=np.uint8).view(mt)


def bits_of(a):
    a = np.ascontiguousarray(a)
    if a.dtype in BITS_OF:
        return a.view(BITS_OF[a.dtype])
    return a.view({1: np.uint8, 2: np.uint16}[a.dtype.itemsize])


def assert_bits_equal(got, want, x, what):
    assert got.dtype == want.dtype, "%s: dtype %s, ml_dtypes %s" % (what, got.dtype, want.dtype)
    assert got.shape == want.shape
    g, w = bits_of(got), bits_of(want)
    bad = np.nonzero(g != w)[0]
    if len(bad):
        xb = bits_of(x)
        lines = [
            "input %#x: tensorcast %#x, ml_dtypes %#x" % (int(xb[i]), int(g[i]), int(w[i]))
            for i in bad[:10]
        ]
        pytest.fail(
            "%s: %d of %d elements differ:\n  %s" % (what, len(bad), len(g), "\n  ".join(lines))
        )


# ---------------------------------------------------------------------------------------
# Decoding every code
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("onnx_type,mt,bits", ML_TYPES, ids=ids(ML_TYPES))
@pytest.mark.parametrize(
    "target,np_type", [(DT.FLOAT, np.float32), (DT.DOUBLE, np.float64)], ids=["FLOAT", "DOUBLE"]
)
def test_every_code_decodes_as_ml_dtypes(onnx_type, mt, bits, target, np_type):
    x = every_code(mt, bits)
    with np.errstate(all="ignore"):
        want = x.astype(np_type)
    got = tc.cast(x, target)
    assert_bits_equal(got, want, x, "%s -> %s" % (onnx_type.name, target.name))
    # The same through the numpy spelling of the target.
    assert_bits_equal(tc.cast(x, np_type), want, x, "%s -> %s" % (onnx_type.name, np_type))


SUB_INTS = [p for p in ML_TYPES if p[0] in (DT.INT4, DT.UINT4, DT.INT2, DT.UINT2)]


@pytest.mark.parametrize("onnx_type,mt,bits", SUB_INTS, ids=ids(SUB_INTS))
def test_sub_byte_high_bits_are_ignored_as_ml_dtypes_ignores_them(onnx_type, mt, bits):
    # ml_dtypes reads only the low `bits` bits of an integer byte; a byte with other high
    # bits (e.g. an int4 stored sign-extended, 0xFF for -1) is the same value. (Not
    # float4_e2m1fn: ml_dtypes reads bit 4 of its byte as a sign, no rule to test.)
    raw = np.arange(256, dtype=np.uint8)
    x = raw.view(mt)
    want = x.astype(np.float32)
    np.testing.assert_array_equal(want, (raw & ((1 << bits) - 1)).view(mt).astype(np.float32))
    assert_bits_equal(tc.cast(x, np.float32), want, x, "%s with high bits set" % onnx_type.name)


SUB_INTS = [p for p in ML_TYPES if p[0] in (DT.INT4, DT.UINT4, DT.INT2, DT.UINT2)]


@pytest.mark.parametrize(
    "onnx_type,mt,bits",
    [p for p in ML_TYPES if p[2] < 8],
    ids=ids([p for p in ML_TYPES if p[2] < 8]),
)
def test_sub_byte_results_hold_the_bytes_ml_dtypes_stores(onnx_type, mt, bits):
    # "one element per byte, as ml_dtypes": the bytes of the result are those ml_dtypes
    # writes for the same values (ml_dtypes 0.6: the code, high bits zero; int4 -1 is 0x0F).
    if onnx_type == DT.FLOAT4E2M1:
        src = np.array(
            [0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], np.float32
        )
    elif onnx_type in (DT.FLOAT6E2M3, DT.FLOAT6E3M2):
        src = every_code(mt, bits).astype(np.float32)  # the 64 values, -0.0 included
    else:
        lo, hi = (
            (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            if onnx_type in (DT.INT4, DT.INT2)
            else (0, (1 << bits) - 1)
        )
        src = np.arange(lo, hi + 1, dtype=np.float32)
    want = src.astype(mt)
    got = tc.cast(src, onnx_type)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.astype(np.float32), src)  # the values
    np.testing.assert_array_equal(
        got.view(np.uint8), want.view(np.uint8), err_msg="bytes differ from ml_dtypes' own storage"
    )
    # and from an integer source too (INT8 -> INT4 wraps to the same values here)
    if onnx_type not in (DT.FLOAT4E2M1, DT.FLOAT6E2M3, DT.FLOAT6E3M2):
        got_i = tc.cast(src.astype(np.int8), onnx_type)
        np.testing.assert_array_equal(got_i.view(np.uint8), want.view(np.uint8))


# ---------------------------------------------------------------------------------------
# Encoding float -> float8 (ml_dtypes does not saturate)
# ---------------------------------------------------------------------------------------


def format_grid(mt, bits=8):
    """Every finite non-negative value of an ml_dtypes float format of `bits` bits, its
    midpoints (the ties) and the tie above MAX, as float64 (all exact)."""
    fi = ml_dtypes.finfo(mt)
    codes = np.arange(1 << bits, dtype=np.uint8).view(mt).astype(np.float64)
    vals = np.unique(codes[np.isfinite(codes) & (codes >= 0)])
    step = vals[-1] - vals[-2]
    vals = np.append(vals, vals[-1] + step)  # one step past MAX
    mids = (vals[:-1] + vals[1:]) / 2
    assert float(fi.max) == vals[-2]
    return np.concatenate([vals, mids])


def float32_inputs(seed=1):
    g = np.random.default_rng(seed)
    specials = np.array(
        [
            0,
            0x80000000,
            0x7F800000,
            0xFF800000,
            0x7FC00000,
            0xFFC00000,
            0x7F800001,
            0xFF800001,
            0x7FA00000,
            0x7FFFFFFF,
            0xFFFFFFFF,
            0x7FC00001,
            0x00000001,
            0x80000001,
            0x007FFFFF,
            0x00800000,
            0x7F7FFFFF,
            0xFF7FFFFF,
        ],
        np.uint32,
    )
    parts = [
        g.integers(0, 2**32, 100_000, dtype=np.uint32),
        (np.exp2(g.uniform(-24, 18, 100_000)) * g.choice([-1, 1], 100_000))
        .astype(np.float32)
        .view(np.uint32),
        specials,
    ]
    for mt, bits in [(mt, 8) for _, mt in FLOAT8] + [(mt, 6) for _, mt in FLOAT6]:
        with np.errstate(all="ignore"):
            p = format_grid(mt, bits).astype(np.float32)
        near = np.concatenate(
            [p, np.nextafter(p, np.float32(np.inf)), np.nextafter(p, np.float32(0))]
        )
        parts.append(np.concatenate([near, -near]).view(np.uint32))
    return np.concatenate(parts).view(np.float32)


X32 = float32_inputs()


@pytest.mark.parametrize("onnx_type,mt", FLOAT8, ids=ids(FLOAT8))
def test_float32_to_float8_unsaturated_equals_ml_dtypes(onnx_type, mt):
    with np.errstate(all="ignore"):
        want = X32.astype(mt)
    got = tc.cast(X32, onnx_type, saturate=False)
    assert_bits_equal(got, want, X32, "FLOAT -> %s saturate=False" % onnx_type.name)


@pytest.mark.parametrize("onnx_type,mt", FLOAT8, ids=ids(FLOAT8))
def test_float32_to_float8_saturated_equals_ml_dtypes_of_clipped(onnx_type, mt):
    # saturate=True: +-Inf and values rounding above MAX become +-MAX (docs/semantics.md
    # 5.2). Clipping to +-MAX first leaves every other value (and NaN) as it is and makes
    # ml_dtypes' non-saturating conversion the saturating one.
    m = np.float32(float(ml_dtypes.finfo(mt).max))
    clipped = np.clip(X32, -m, m)
    with np.errstate(all="ignore"):
        want = clipped.astype(mt)
    got = tc.cast(X32, onnx_type, saturate=True)
    assert_bits_equal(got, want, X32, "FLOAT -> %s saturate=True" % onnx_type.name)


@pytest.mark.parametrize("onnx_type,mt", FLOAT8, ids=ids(FLOAT8))
def test_float16_to_float8_every_code_equals_ml_dtypes(onnx_type, mt):
    x = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        want = x.astype(mt)
    assert_bits_equal(
        tc.cast(x, onnx_type, saturate=False),
        want,
        x,
        "FLOAT16 -> %s saturate=False" % onnx_type.name,
    )


def double_once(x, mt):
    """Correctly rounded (one RNE rounding) float64 -> an ml_dtypes float type, vectorised:
    round to odd into float32 (truncate toward zero, then set the last bit if inexact; 24
    bits >= the target's precision + 2 keeps the final rounding exact, and float32's
    exponent range covers the targets'), then ml_dtypes' RNE float32 -> target, which the
    tests above check equal to tensorcast's."""
    with np.errstate(all="ignore"):
        f = x.astype(np.float32)
        over = np.abs(f.astype(np.float64)) > np.abs(x)
        f = np.where(over, np.nextafter(f, np.float32(0)), f)
        inexact = (f.astype(np.float64) != x) & np.isfinite(x)
        fb = f.view(np.uint32) | inexact.astype(np.uint32)
        return fb.view(np.float32).astype(mt)


def check_double_rounds_once(x, onnx_type, mt, saturate):
    """tensorcast == one rounding on every finite x; ml_dtypes differs only where it
    rounds twice (== mt(float32(x))), and at least once (the difference is real)."""
    got = tc.cast(x, onnx_type, saturate=saturate)
    assert got.dtype == np.dtype(mt)
    got = bits_of(got)
    with np.errstate(all="ignore"):
        ml = bits_of(x.astype(mt))
        twice = bits_of(x.astype(np.float32).astype(mt))
    once = bits_of(double_once(x, mt))
    finite = np.isfinite(x)
    bad = np.nonzero(finite & (got != once))[0]
    assert len(bad) == 0, ["%r: tc %#x one rounding %#x" % (x[i], got[i], once[i]) for i in bad[:8]]
    differ = np.nonzero(finite & (got != ml))[0]
    assert len(differ) > 0, "expected double-rounding cases in the input"
    np.testing.assert_array_equal(ml[differ], twice[differ])
    return got, ml


def near_ties(mt, g, n=50_000, bits=None):
    """Random doubles, and values just off every tie of mt (of `bits` bits; default: its
    itemsize) by far less than a float32 ulp (where rounding through float32 lands on the
    tie: the double-rounding cases)."""
    size = np.dtype(mt).itemsize
    bits = 8 * size if bits is None else bits
    with np.errstate(all="ignore"):
        codes = (
            np.arange(1 << bits, dtype=np.uint8 if size == 1 else np.uint16)
            .view(mt)
            .astype(np.float64)
        )
    vals = np.unique(codes[np.isfinite(codes) & (codes >= 0)])
    ties = (vals[:-1] + vals[1:]) / 2
    off = np.concatenate(
        [ties * (1 + 2.0**-k) for k in (26, 30, 40, 52)]
        + [ties * (1 - 2.0**-k) for k in (26, 30, 40, 52)]
    )
    return np.concatenate(
        [
            g.integers(0, 2**64, n, dtype=np.uint64).view(np.float64),
            np.exp2(g.uniform(-24, 18, n)),
            vals,
            ties,
            off,
            -off,
            np.array([np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 1e300, -1e300, 5e-324]),
        ]
    )


@pytest.mark.parametrize("onnx_type,mt", FLOAT8, ids=ids(FLOAT8))
def test_double_to_float8_rounds_once_where_ml_dtypes_rounds_twice(onnx_type, mt):
    # ml_dtypes 0.6 converts float64 -> float8 through float32 (two roundings); tensorcast
    # rounds the exact value once (docs/semantics.md section 11, first row). Everywhere
    # else, NaN and Inf included, they are equal (saturate=False: ml_dtypes does not
    # saturate).
    x = near_ties(mt, np.random.default_rng(2))
    got, ml = check_double_rounds_once(x, onnx_type, mt, saturate=False)
    special = ~np.isfinite(x)
    np.testing.assert_array_equal(got[special], ml[special])


@pytest.mark.parametrize("src", [np.float32, np.float16], ids=["FLOAT", "FLOAT16"])
@pytest.mark.parametrize(
    "onnx_type,mt",
    [(DT.BFLOAT16, ml_dtypes.bfloat16), (DT.FLOAT4E2M1, ml_dtypes.float4_e2m1fn)],
    ids=["BFLOAT16", "FLOAT4E2M1"],
)
def test_float_to_bfloat16_float4_equals_ml_dtypes(onnx_type, mt, src):
    # FLOAT4E2M1 always saturates (docs 5.4) and so does ml_dtypes (it has no Inf/NaN).
    x = X32 if src == np.float32 else np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        want = x.astype(mt)
    for sat in (False, True):
        assert_bits_equal(
            tc.cast(x, onnx_type, saturate=sat),
            want,
            x,
            "%s -> %s saturate=%s" % (np.dtype(src), onnx_type.name, sat),
        )


# ---------------------------------------------------------------------------------------
# FLOAT6E2M3 and FLOAT6E3M2 (ml_dtypes float6_e2m3fn, float6_e3m2fn)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("onnx_type,mt", FLOAT6, ids=ids(FLOAT6))
@pytest.mark.parametrize(
    "target,np_type",
    [(DT.FLOAT16, np.float16), (DT.BFLOAT16, ml_dtypes.bfloat16)],
    ids=["FLOAT16", "BFLOAT16"],
)
def test_every_float6_code_decodes_to_16_bit_floats_as_ml_dtypes(onnx_type, mt, target, np_type):
    # FLOAT and DOUBLE: test_every_code_decodes_as_ml_dtypes (ML_TYPES).
    x = every_code(mt, 6)
    want = x.astype(np_type)
    assert_bits_equal(tc.cast(x, target), want, x, "%s -> %s" % (onnx_type.name, target.name))
    assert_bits_equal(tc.cast(x, np_type), want, x, "%s -> %s" % (onnx_type.name, np_type))
    # and in an N-d shape (the packing of the source does not depend on the shape)
    x2 = np.concatenate([x, x[:5]]).reshape(3, 23)
    assert_bits_equal(tc.cast(x2, target).reshape(-1), x2.astype(np_type).reshape(-1), x2, "2-d")


@pytest.mark.parametrize(
    "src", [np.float32, np.float16, ml_dtypes.bfloat16], ids=["FLOAT", "FLOAT16", "BFLOAT16"]
)
@pytest.mark.parametrize("onnx_type,mt", FLOAT6, ids=ids(FLOAT6))
def test_float_to_float6_equals_ml_dtypes(onnx_type, mt, src):
    # X32: random bit patterns, log-uniform magnitudes, specials (+-0, +-Inf, NaNs of both
    # signs, float32 subnormals, MAX) and every FP6 value, tie (at each binade, and the one
    # above MAX) and those +- 1 float32 ulp. FLOAT16 and BFLOAT16: every code. FP6 has no
    # Inf or NaN: both always saturate, and saturate=False changes nothing.
    if src == np.float32:
        x = X32
    else:
        x = np.arange(1 << 16, dtype=np.uint16).view(src)
    with np.errstate(all="ignore"):
        want = x.astype(mt)
    for sat in (True, False):
        got = tc.cast(x, onnx_type, saturate=sat)
        assert_bits_equal(got, want, x, "%s -> %s saturate=%s" % (np.dtype(src), onnx_type, sat))
        # the packed result is the packing of the same codes (element i in bits [6i, 6i + 6))
        packed = tc.cast(x[:4001], onnx_type, packed=True, saturate=sat)
        np.testing.assert_array_equal(
            np.unpackbits(packed, bitorder="little")[: 6 * 4001].reshape(-1, 6),
            np.unpackbits(bits_of(want[:4001]), bitorder="little").reshape(-1, 8)[:, :6],
        )


@pytest.mark.parametrize("onnx_type,mt", FLOAT6, ids=ids(FLOAT6))
def test_float6_specials_follow_the_rule(onnx_type, mt):
    # The rule (docs/python.md, as FLOAT4E2M1): no Inf or NaN; +-Inf and values above MAX
    # -> +-MAX (0x1F / 0x3F), NaN -> 0x20 (-0) if its sign bit is clear, else 0x00; -0 ->
    # 0x20. ml_dtypes agrees.
    nan_pos = np.array([0x7FC00000, 0x7F800001, 0x7FFFFFFF], np.uint32).view(np.float32)
    nan_neg = np.array([0xFFC00000, 0xFF800001, 0xFFFFFFFF], np.uint32).view(np.float32)
    m = float(ml_dtypes.finfo(mt).max)
    others = np.array([np.inf, -np.inf, 1e30, -1e30, 2 * m, -2 * m, 0.0, -0.0], np.float32)
    x = np.concatenate([nan_pos, nan_neg, others])
    want = [0x20] * 3 + [0x00] * 3 + [0x1F, 0x3F] * 3 + [0x00, 0x20]
    for t in (onnx_type, mt):
        assert bits_of(tc.cast(x, t)).tolist() == want
    with np.errstate(all="ignore"):
        assert bits_of(x.astype(mt)).tolist() == want
    # FLOAT -> FP6 -> FLOAT of MAX
    assert tc.cast(tc.cast(np.array([np.inf], np.float32), onnx_type), np.float32)[0] == m


def exact_float6(v, mt):
    """The code of the exact value v (a Fraction) in mt by the rule: round to nearest, ties
    to the even code, saturating at +-MAX (the sign is v's)."""
    values = [Fraction(float(f)) for f in every_code(mt, 6)[:32].astype(np.float64)]
    a = abs(v)
    best = min(range(32), key=lambda c: (abs(a - values[c]), c & 1))
    return best | (0x20 if v < 0 else 0)


@pytest.mark.parametrize("onnx_type,mt", FLOAT6, ids=ids(FLOAT6))
def test_double_to_float6_rounds_once_where_ml_dtypes_rounds_twice(onnx_type, mt):
    # ml_dtypes 0.6 converts float64 -> float6 through float32 (two roundings); tensorcast
    # rounds the exact value once. Elsewhere they are equal (saturated: FP6 has no Inf).
    x = near_ties(mt, np.random.default_rng(5), bits=6)
    got, ml = check_double_rounds_once(x, onnx_type, mt, saturate=True)
    special = ~np.isfinite(x)
    np.testing.assert_array_equal(got[special], ml[special])
    # By hand, from the exact rule: a double 2^-40 above a tie of mt, and 2^-40 below the
    # next one. float32 drops the 2^-40 and lands on the tie, which goes to the even code;
    # once-rounded, the value goes to the nearer code.
    vals = every_code(mt, 6)[:32].astype(np.float64)
    checked = 0
    for lo, hi in zip(vals[:-1], vals[1:]):
        tie = (lo + hi) / 2
        for v in (tie + 2.0**-40, tie - 2.0**-40, -(tie + 2.0**-40)):
            once = exact_float6(Fraction(v), mt)
            twice = exact_float6(Fraction(float(np.float32(v))), mt)
            got_v = int(bits_of(tc.cast(np.array([v]), onnx_type))[0])
            ml_v = int(bits_of(np.array([v]).astype(mt))[0])
            assert got_v == once, (v, hex(got_v), hex(once))
            assert ml_v == twice, (v, hex(ml_v), hex(twice))
            checked += once != twice
    assert checked > 0  # the difference is real
    # One example spelled out: FLOAT6E2M3 1.0 (0x08) and 1.125 (0x09) tie at 1.0625.
    if onnx_type == DT.FLOAT6E2M3:
        v = np.array([1.0625 + 2.0**-40])
        assert int(bits_of(tc.cast(v, onnx_type))[0]) == 0x09
        assert int(bits_of(v.astype(mt))[0]) == 0x08


# ---------------------------------------------------------------------------------------
# Documented differences
# ---------------------------------------------------------------------------------------


def e8m0_rule(v, saturate, mode):
    """docs/semantics.md 5.3 on an exact float value (float64 holds every float32)."""
    if math.isnan(v):
        return 0xFF
    if math.isinf(v):
        return 0xFE if saturate else 0xFF
    a = abs(Fraction(v))
    if a == 0:
        return 0x00 if saturate else 0xFF
    m, e = math.frexp(float(a))  # a = m * 2^e, 0.5 <= m < 1: k = e - 1
    k = e - 1
    if mode == "up":
        k += 0 if m == 0.5 else 1
    elif mode == "nearest":
        k += 1 if m >= 0.75 else 0
    if k < -127:
        return 0x00 if saturate else 0xFF
    if k > 127:
        return 0xFE if saturate else 0xFF
    return k + 127


def test_e8m0_equals_ml_dtypes_where_the_rules_agree_and_differs_where_documented():
    # ml_dtypes' float8_e8m0fnu rounds to nearest (ties up), has no saturation (zero, Inf and
    # overflow -> NaN 0xFF) and gives NaN for negative values. tensorcast with
    # round_mode="nearest", saturate=False must equal it on positive float32 values from
    # 2^-126 up, NaN, Inf and zero. The documented differences (docs/semantics.md 5.3 and
    # section 11): negative values are encoded as |x| (as onnx.reference does), and values
    # below 2^-126 are the exact value rounded once.
    x = X32
    with np.errstate(all="ignore"):
        ml = x.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)
    got = tc.cast(x, DT.FLOAT8E8M0, saturate=False, round_mode="nearest")
    assert got.dtype == np.dtype(ml_dtypes.float8_e8m0fnu)
    got = got.view(np.uint8)
    xb = x.view(np.uint32)
    negative = (xb >> 31).astype(bool) & ~np.isnan(x)
    tiny = (np.abs(x) < np.float32(2.0**-126)) & (x != 0)
    same = ~negative & ~tiny
    bad = np.nonzero(same & (got != ml))[0]
    assert len(bad) == 0, ["%#x: tc %#x ml_dtypes %#x" % (xb[i], got[i], ml[i]) for i in bad[:8]]
    assert same.sum() > 100_000
    # Negative values: ml_dtypes says NaN; tensorcast encodes |x| (equal to ml_dtypes of |x|
    # where the rules agree).
    neg = np.nonzero(negative & (x != 0) & ~tiny)[0]
    assert len(neg) > 10_000 and np.all(ml[neg] == 0xFF)
    with np.errstate(all="ignore"):
        ml_abs = np.abs(x[neg]).astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)
    np.testing.assert_array_equal(got[neg], ml_abs)
    # Subnormal magnitudes: tensorcast follows the exact rule; ml_dtypes differs on some.
    sub = np.nonzero(tiny)[0]
    want = np.array([e8m0_rule(float(x[i]), False, "nearest") for i in sub], np.uint8)
    np.testing.assert_array_equal(got[sub], want)
    differ = sub[got[sub] != ml[sub]]
    assert len(differ) > 0  # the difference is real (ml_dtypes: 0x01 on (2^-127, 1.5 * 2^-127))


@pytest.mark.parametrize("saturate", [False, True])
@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
def test_e8m0_every_mode_follows_the_rule(saturate, mode):
    # ml_dtypes has only "nearest"; every mode and saturate against the rule of 5.3.
    g = np.random.default_rng(3)
    powers = np.exp2(np.arange(-150, 128, dtype=np.float64))
    x = np.concatenate(
        [
            X32[::40],
            powers.astype(np.float32),
            (1.5 * powers).astype(np.float32),
            g.integers(0, 2**32, 2000, dtype=np.uint32).view(np.float32),
        ]
    )
    got = tc.cast(x, DT.FLOAT8E8M0, saturate=saturate, round_mode=mode).view(np.uint8)
    want = np.array([e8m0_rule(float(v), saturate, mode) for v in x], np.uint8)
    bad = np.nonzero(got != want)[0]
    assert len(bad) == 0, [
        "%#x: tc %#x rule %#x" % (x.view(np.uint32)[i], got[i], want[i]) for i in bad[:8]
    ]


def test_double_to_bfloat16_rounds_once_where_ml_dtypes_rounds_twice():
    # Same for BFLOAT16 (docs/semantics.md section 11, first row).
    x = near_ties(ml_dtypes.bfloat16, np.random.default_rng(4), 100_000)
    got, ml = check_double_rounds_once(x, DT.BFLOAT16, ml_dtypes.bfloat16, saturate=True)
    # NaN: 0x7FC0 / 0xFFC0 by sign (docs section 6); Inf stays Inf
    nan = np.isnan(x)
    np.testing.assert_array_equal(got[nan], np.where(np.signbit(x[nan]), 0xFFC0, 0x7FC0))
    inf = np.isinf(x)
    np.testing.assert_array_equal(got[inf], np.where(x[inf] < 0, 0xFF80, 0x7F80))
    # By hand: 1 + 2^-8 is the tie between 0x3F80 and 0x3F81; 2^-30 above it rounds up
    # once, while float32 first drops the 2^-30 and the tie then goes to the even 0x3F80.
    one = np.array([1 + 2.0**-8 + 2.0**-30])
    assert int(tc.cast(one, DT.BFLOAT16).view(np.uint16)[0]) == 0x3F81
    assert int(one.astype(ml_dtypes.bfloat16).view(np.uint16)[0]) == 0x3F80
    # docs/semantics.md section 11: INT32 16842753 -> BFLOAT16 0x4B81 (the reference 0x4B80)
    assert int(tc.cast(np.array([16842753], np.int32), DT.BFLOAT16).view(np.uint16)[0]) == 0x4B81
