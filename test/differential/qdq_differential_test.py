#!/usr/bin/env python3
"""Differential test: tensorcast QuantizeLinear / DequantizeLinear versus onnx.reference.

Every schema version of both operators (10, 13, 19, 21, 23, 24, 25, 28) is run with every
type combination it allows: x, scale, zero point (or none), output_dtype, precision and
saturate, each combination once with one of the granularities (per tensor with a scalar
or a (1,) scale, per axis with a positive or negative axis, blocked along the first, the
last or a middle axis with a random block size, a partial last block included) on a
random x of rank 1 to 4 (empty dimensions included). The opsets between the versions
(11, 12, 14-18, 20, 22, 26, 27) run a sample of their version's combinations. The
inputs are random plus adversarial: ties (k + 0.5) * scale and values next to them, the
saturation bounds, +-0, NaN, +-Inf, 3e9, 1e30, zero, subnormal, negative and huge scales,
FLOAT8E8M0 scales 0x00 and 0xFF, INT32 x near 2^24 and near the FLOAT16 / BFLOAT16 ties,
and inputs searched for double roundings. tensorcast runs through its C API
(libtensorcast_c, ctypes); onnx.reference runs a one-node model of the same opset
(DequantizeLinear has no reference before opset 19: opsets 10-18 run DequantizeLinear-19,
whose rules are those of versions 10 and 13 for their types). Results are compared bit
for bit: integer and float8 / float4 / float6 codes exactly, FLOAT / FLOAT16 / BFLOAT16
outputs by their bits, any two NaNs of the same sign being equal.

Every element that differs goes into exactly one category. The test computes two things
for it, both with exact fractions.Fraction arithmetic and formats decoded here (not
through numpy or ml_dtypes): the oracle (tensorcast's rules, docs/semantics.md section
12), and a model of onnx.reference 1.23, which is the oracle with the reference's
deviations switched on (int32 wrap, numpy's division type, rounding through FLOAT, float
zero points ignored, the platform's default NaN). The element is explained when the
reference equals the model and tensorcast equals the oracle; its category is the first
deviation that alone changes the oracle's result. A category in DOCUMENTED is a
difference that section 12 states; the others (UNDOCUMENTED) fail until the document or
the library changes, as does anything else (UNEXPLAINED). A sample of the elements that
match is checked against the oracle and the model too, so a wrong oracle cannot hide.
Five calls of over 1 MiB run with a thread-pool runner, which must give one thread's bytes.

The calls that tensorcast must reject (types outside the version, attributes the version
lacks, precision outside FLOAT/FLOAT16/BFLOAT16, shapes outside the schema, block_size
out of range, zero points of the wrong type or shape, nonzero float zero points, a wrong
y_type, null or overlapping buffers, sizes that overflow) are run too: the status code
must be the one the rules give, the message must name the argument and nothing may be
written. Each is also run through onnx.reference; where the reference computes a result
(or raises where tensorcast computes), the case is counted in its documented category.

Usage (ctest runs it through scripts/python-env.sh):
    TENSORCAST_C_LIB=/path/libtensorcast_c.so python qdq_differential_test.py [options]
Options: --seed N, --quick (a quarter of the combinations, no runner calls), --opsets
         LIST (e.g. 21,23-25), --op QL|DQ, --examples N, --sample F (the share of the
         matching elements checked against the oracle), -v (one line per configuration
         and rejection case).
Prints the counts per category; the last line is "N passed, N failed" (configurations and
rejection cases). Exit status 0 only when none failed.
"""

import argparse
import collections
import ctypes
import math
import os
import platform
import random
import re
import sys
import time
import warnings
from fractions import Fraction
from functools import lru_cache

import ml_dtypes
import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

# ----------------------------------------------------------------------------------
# Types and the operators' versions (from the ONNX schemas, not from the library)
# ----------------------------------------------------------------------------------

FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64 = 1, 2, 3, 4, 5, 6, 7
FLOAT16, DOUBLE, BF16 = 10, 11, 16
E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ = 17, 18, 19, 20
UINT4, INT4, FLOAT4, E8M0, UINT2, INT2, F6E2M3, F6E3M2 = 21, 22, 23, 24, 25, 26, 27, 28

# code: (name, bits, the numpy / ml_dtypes dtype onnx.reference uses)
TYPE_TABLE = {
    FLOAT: ("FLOAT", 32, np.float32),
    UINT8: ("UINT8", 8, np.uint8),
    INT8: ("INT8", 8, np.int8),
    UINT16: ("UINT16", 16, np.uint16),
    INT16: ("INT16", 16, np.int16),
    INT32: ("INT32", 32, np.int32),
    INT64: ("INT64", 64, np.int64),
    FLOAT16: ("FLOAT16", 16, np.float16),
    DOUBLE: ("DOUBLE", 64, np.float64),
    BF16: ("BFLOAT16", 16, ml_dtypes.bfloat16),
    E4M3FN: ("FLOAT8E4M3FN", 8, ml_dtypes.float8_e4m3fn),
    E4M3FNUZ: ("FLOAT8E4M3FNUZ", 8, ml_dtypes.float8_e4m3fnuz),
    E5M2: ("FLOAT8E5M2", 8, ml_dtypes.float8_e5m2),
    E5M2FNUZ: ("FLOAT8E5M2FNUZ", 8, ml_dtypes.float8_e5m2fnuz),
    UINT4: ("UINT4", 4, ml_dtypes.uint4),
    INT4: ("INT4", 4, ml_dtypes.int4),
    FLOAT4: ("FLOAT4E2M1", 4, ml_dtypes.float4_e2m1fn),
    E8M0: ("FLOAT8E8M0", 8, ml_dtypes.float8_e8m0fnu),
    UINT2: ("UINT2", 2, ml_dtypes.uint2),
    INT2: ("INT2", 2, ml_dtypes.int2),
    F6E2M3: ("FLOAT6E2M3", 6, ml_dtypes.float6_e2m3fn),
    F6E3M2: ("FLOAT6E3M2", 6, ml_dtypes.float6_e3m2fn),
}
NAME = {t: v[0] for t, v in TYPE_TABLE.items()}
BITS = {t: v[1] for t, v in TYPE_TABLE.items()}
NP_DTYPE = {t: v[2] for t, v in TYPE_TABLE.items()}
INT_RANGE = {
    UINT8: (0, 255),
    INT8: (-128, 127),
    UINT16: (0, 65535),
    INT16: (-32768, 32767),
    INT32: (-(2**31), 2**31 - 1),
    UINT4: (0, 15),
    INT4: (-8, 7),
    UINT2: (0, 3),
    INT2: (-2, 1),
}
INTS = set(INT_RANGE)
FLOAT8 = {E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ}
FLOAT6 = {F6E2M3, F6E3M2}
WIDE_FLOATS = {FLOAT, FLOAT16, BF16, DOUBLE}  # IEEE formats with Inf and NaN payloads
PACKED = {UINT4, INT4, FLOAT4, UINT2, INT2} | FLOAT6
STATUS = {0: "OK", 1: "INVALID_ARGUMENT", 2: "UNSUPPORTED", 4: "OVERFLOW", 5: "INTERNAL"}
OK, INVALID, UNSUPPORTED, OVERFLOW = 0, 1, 2, 4

VERSIONS = (10, 13, 19, 21, 23, 24, 25, 28)


def version_of(opset):
    return max(v for v in VERSIONS if v <= opset)


def quantized_types(v):
    """QuantizeLinear's y and zero point, DequantizeLinear's x (with INT32) and zero point."""
    t = [UINT8, INT8]
    if v >= 19:
        t += [E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ]
    if v >= 21:
        t += [UINT16, INT16, UINT4, INT4]
    if v >= 23:
        t += [FLOAT4]
    if v >= 25:
        t += [UINT2, INT2]
    if v >= 28:
        t += [F6E2M3, F6E3M2]
    return t


def ql_x_types(v):
    return [FLOAT, INT32] if v < 19 else [FLOAT, FLOAT16, BF16, INT32]


def ql_scale_types(v, x):
    if v < 19:
        return [FLOAT]
    if v < 23:
        return [x]  # one type for x and the scale
    return [FLOAT, FLOAT16, BF16, INT32] + ([E8M0] if v >= 24 else [])


def dq_scale_types(v):
    if v < 19:
        return [FLOAT]
    return [FLOAT, FLOAT16, BF16] + ([E8M0] if v >= 24 else [])


def dq_output_type(v, scale, output_dtype):
    """None when the node is invalid (a FLOAT8E8M0 scale needs output_dtype)."""
    if v < 19:
        return FLOAT
    if v >= 23 and output_dtype:
        return output_dtype
    return None if scale == E8M0 else scale


# ----------------------------------------------------------------------------------
# Exact values and the formats, decoded here (not through numpy or ml_dtypes)
# ----------------------------------------------------------------------------------

# A value is (kind, sign, magnitude): ("num", 0/1, Fraction), ("inf", 0/1, None) or
# ("nan", 0/1, None). Zeros keep their sign.


@lru_cache(maxsize=None)
def pow2(k):
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def floor_log2(x):
    """floor(log2(x)) of a positive Fraction, exactly."""
    n, d = x.numerator, x.denominator
    e = n.bit_length() - d.bit_length()
    if e >= 0:
        if n < (d << e):
            e -= 1
    elif (n << -e) < d:
        e -= 1
    return e


def rne_div(n, d):
    """Round half to even of n / d (d > 0), to int."""
    q, r = divmod(n, d)
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
    return q


def rne_int(x):
    """Round half to even of a Fraction, to int."""
    return rne_div(x.numerator, x.denominator)


def num(x):
    x = Fraction(x)
    return ("num", 1 if x < 0 else 0, abs(x))


def signed(v):
    """The Fraction of a finite value."""
    return -v[2] if v[1] else v[2]


# ebits, mbits, bias, kind. ieee: Inf and NaN at the top exponent; fn: E4M3FN (only
# S.1111.111 is NaN); fnuz: 0x80 is the only NaN, no -0; fn4: FLOAT4E2M1 and the float6
# types (no Inf, no NaN).
FORMATS = {
    DOUBLE: (11, 52, 1023, "ieee"),
    FLOAT: (8, 23, 127, "ieee"),
    FLOAT16: (5, 10, 15, "ieee"),
    BF16: (8, 7, 127, "ieee"),
    E4M3FN: (4, 3, 7, "fn"),
    E4M3FNUZ: (4, 3, 8, "fnuz"),
    E5M2: (5, 2, 15, "ieee"),
    E5M2FNUZ: (5, 2, 16, "fnuz"),
    FLOAT4: (2, 1, 1, "fn4"),
    F6E2M3: (2, 3, 1, "fn4"),
    F6E3M2: (3, 2, 3, "fn4"),
}


def top_of(t):
    """(emax, kmax): the largest finite value of format t is kmax * 2^(emax - mbits)."""
    eb, mb, bias, kind = FORMATS[t]
    if kind == "ieee":
        return (1 << eb) - 2 - bias, (2 << mb) - 1
    if kind == "fn":  # S.1111.111 is NaN
        return (1 << eb) - 1 - bias, (2 << mb) - 2
    return (1 << eb) - 1 - bias, (2 << mb) - 1


TOP = {t: top_of(t) for t in FORMATS}


def decode_float(t, code):
    eb, mb, bias, kind = FORMATS[t]
    sign = (code >> (eb + mb)) & 1
    e = (code >> mb) & ((1 << eb) - 1)
    m = code & ((1 << mb) - 1)
    top = (1 << eb) - 1
    if kind == "ieee" and e == top:
        return ("inf", sign, None) if m == 0 else ("nan", sign, None)
    if kind == "fn" and e == top and m == (1 << mb) - 1:
        return ("nan", sign, None)
    if kind == "fnuz" and code == 1 << (eb + mb):
        return ("nan", 1, None)  # the FNUZ NaN counts as negative (semantics.md section 6)
    if e == 0:
        return ("num", sign, m * pow2(1 - bias - mb))
    return ("num", sign, ((1 << mb) + m) * pow2(e - bias - mb))


@lru_cache(maxsize=1 << 17)
def decode(t, code):
    code = int(code)
    if t in FORMATS:
        return decode_float(t, code)
    if t == E8M0:
        return ("nan", 0, None) if code == 0xFF else ("num", 0, pow2(code - 127))
    lo, hi = INT_RANGE[t]
    n = code & ((1 << BITS[t]) - 1)
    if lo < 0 and n > hi:
        n -= 1 << BITS[t]
    return num(n)


def nan_code(t, sign):
    """The NaN tensorcast writes (semantics.md section 6); payloads are not compared."""
    if t == E4M3FN:
        return (sign << 7) | 0x7F
    if t == E5M2:
        return (sign << 7) | 0x7E
    if t in (E4M3FNUZ, E5M2FNUZ):
        return 0x80
    if t == FLOAT4:
        return 0x0 if sign else 0x8  # a positive NaN gives -0, a negative one +0
    if t in FLOAT6:
        return 0x00 if sign else 0x20
    eb, mb = FORMATS[t][:2]
    return (sign << (eb + mb)) | (((1 << eb) - 1) << mb) | (1 << (mb - 1))


def overflow_code(t, sign, sat):
    """+-Inf and finite overflow into a small float: Cast's rules with `saturate`."""
    if t == E4M3FN:
        return (sign << 7) | (0x7E if sat else 0x7F)
    if t in (E4M3FNUZ, E5M2FNUZ):
        return (sign << 7) | 0x7F if sat else 0x80
    if t == E5M2:
        return (sign << 7) | (0x7B if sat else 0x7C)
    if t == FLOAT4:
        return (sign << 3) | 0x7  # always saturates
    return (sign << 5) | 0x1F  # FLOAT6: always saturates


def encode(t, v, sat=True):
    """The code of value v rounded once (RNE) into float type t, Cast's rules."""
    eb, mb, bias, kind = FORMATS[t]
    sbit = 1 << (eb + mb)
    if v[0] == "nan":
        return nan_code(t, v[1])
    sign = v[1]
    inf = (sign * sbit) | (((1 << eb) - 1) << mb)
    if v[0] == "inf":
        return inf if t in WIDE_FLOATS else overflow_code(t, sign, sat)
    mag = v[2]
    zero = 0 if kind == "fnuz" else sign * sbit
    if mag == 0:
        return zero
    # mag / 2^q rounded half to even, 2^q the step of mag's binade (gradual underflow)
    emin = 1 - bias
    q = max(floor_log2(mag), emin) - mb
    n, d = mag.numerator, mag.denominator
    k = rne_div(n << -q, d) if q < 0 else rne_div(n, d << q)
    if k == 0:
        return zero
    if k == 2 << mb:  # rounded up into the next binade
        q, k = q + 1, 1 << mb
    emax, kmax = TOP[t]
    if q + mb > emax or (q + mb == emax and k > kmax):  # the rounded value exceeds MAX
        return inf if t in WIDE_FLOATS else overflow_code(t, sign, sat)
    if k < 1 << mb:  # subnormal
        return sign * sbit | k
    return sign * sbit | ((q + mb + bias) << mb) | (k - (1 << mb))


@lru_cache(maxsize=1 << 16)
def round_to(t, v):
    """v rounded once into the float type t, as a value (NaN keeps its sign)."""
    if v[0] == "nan":
        return v
    return decode(t, encode(t, v))


def is_zero(v):
    return v[0] == "num" and v[2] == 0


def divide(a, b, default_nan_sign):
    """a / b exactly, IEEE specials: the first NaN operand's NaN; 0/0 and Inf/Inf give a
    NaN with sign default_nan_sign."""
    if a[0] == "nan":
        return a
    if b[0] == "nan":
        return b
    s = a[1] ^ b[1]
    if a[0] == "inf":
        return ("nan", default_nan_sign, None) if b[0] == "inf" else ("inf", s, None)
    if b[0] == "inf":
        return ("num", s, Fraction(0))
    if b[2] == 0:
        return ("nan", default_nan_sign, None) if a[2] == 0 else ("inf", s, None)
    return ("num", s, a[2] / b[2])


def multiply(a, b, default_nan_sign, second_nan_first=False):
    """a * b exactly: a's NaN, else b's (b's first with second_nan_first); Inf * 0 gives
    a NaN with sign default_nan_sign."""
    if second_nan_first and b[0] == "nan":
        return b
    if a[0] == "nan":
        return a
    if b[0] == "nan":
        return b
    s = a[1] ^ b[1]
    if a[0] == "inf" or b[0] == "inf":
        if is_zero(a) or is_zero(b):
            return ("nan", default_nan_sign, None)
        return ("inf", s, None)
    return ("num", s, a[2] * b[2])


def add_signed_zero(v, z):
    """v + z for a zero z (IEEE): only the sign of a zero v can change (-0 + +0 = +0)."""
    if is_zero(v):
        return ("num", v[1] & z[1], Fraction(0))
    return v


def sub_signed_zero(v, z):
    """v - z for a zero z (IEEE): -0 - -0 = +0."""
    return add_signed_zero(v, (z[0], 1 - z[1], z[2]))


def value_str(v):
    if v[0] == "nan":
        return "-NaN" if v[1] else "+NaN"
    if v[0] == "inf":
        return "-Inf" if v[1] else "+Inf"
    s = "-" if v[1] else ""
    mag = v[2]
    if mag.denominator == 1:
        return s + str(mag.numerator)
    return "%s%.17g" % (s, float(mag)) if mag < 2**1000 else s + "huge"


# ----------------------------------------------------------------------------------
# Storage: codes <-> numpy arrays and packed buffers
# ----------------------------------------------------------------------------------


def code_dtype(t):
    return {64: np.uint64, 32: np.uint32, 16: np.uint16}.get(BITS[t], np.uint8)


def to_np(t, codes, shape):
    """Codes -> the numpy / ml_dtypes array onnx.reference takes."""
    codes = np.asarray(codes)
    if t in (INT4, INT2):
        b = codes.astype(np.int16) & ((1 << BITS[t]) - 1)
        b = np.where(b >= (1 << (BITS[t] - 1)), b - (1 << BITS[t]), b)
        return b.astype(np.int8).astype(NP_DTYPE[t]).reshape(shape)
    if t in (UINT4, UINT2):
        return codes.astype(np.uint8).astype(NP_DTYPE[t]).reshape(shape)
    if BITS[t] < 8:
        return codes.astype(np.uint8).view(NP_DTYPE[t]).reshape(shape)
    return np.ascontiguousarray(codes.astype(code_dtype(t))).view(NP_DTYPE[t]).reshape(shape)


def from_np(t, a):
    """A numpy / ml_dtypes array of type t -> flat codes."""
    a = np.ascontiguousarray(a).reshape(-1)
    if t in (INT4, INT2, UINT4, UINT2):
        return (a.astype(np.int16) & ((1 << BITS[t]) - 1)).astype(np.uint8)
    if BITS[t] < 8:
        return a.view(np.uint8) & ((1 << BITS[t]) - 1)
    return a.view(code_dtype(t))


def pack(codes, bits):
    """ONNX's storage: 4- and 2-bit elements low bits first; 6-bit ones as pack6."""
    codes = np.asarray(codes).astype(np.uint8) & ((1 << bits) - 1)
    if bits == 6:
        return pack6(codes)
    if bits == 8:
        return codes
    per = 8 // bits
    padded = np.zeros(-(-len(codes) // per) * per, np.uint8)
    padded[: len(codes)] = codes
    padded = padded.reshape(-1, per)
    out = np.zeros(len(padded), np.uint8)
    for j in range(per):
        out |= padded[:, j] << (bits * j)
    return out


def unpack(buf, bits, n):
    if bits == 6:
        return unpack6(buf, n)
    per = 8 // bits
    b = np.frombuffer(buf, np.uint8)
    out = np.zeros((len(b), per), np.uint8)
    for j in range(per):
        out[:, j] = (b >> (bits * j)) & ((1 << bits) - 1)
    return out.reshape(-1)[:n]


def pack6(codes):
    """Four elements in three bytes: element i in bits [6i, 6i + 6) of the little-endian
    bit stream; ceil(6n / 8) bytes."""
    n = len(codes)
    padded = np.zeros(-(-n // 4) * 4, np.uint8)
    padded[:n] = codes
    e0, e1, e2, e3 = (padded[j::4] for j in range(4))
    out = np.empty((len(e0), 3), np.uint8)
    out[:, 0] = e0 | ((e1 & 0x03) << 6)
    out[:, 1] = (e1 >> 2) | ((e2 & 0x0F) << 4)
    out[:, 2] = (e2 >> 4) | (e3 << 2)
    return out.reshape(-1)[: (6 * n + 7) // 8]


def unpack6(buf, n):
    b = np.zeros(-(-n // 4) * 3, np.uint8)
    raw = np.frombuffer(buf, np.uint8)
    b[: len(raw)] = raw
    b0, b1, b2 = (b[j::3] for j in range(3))
    out = np.empty((len(b0), 4), np.uint8)
    out[:, 0] = b0 & 0x3F
    out[:, 1] = (b0 >> 6) | ((b1 & 0x0F) << 2)
    out[:, 2] = (b1 >> 4) | ((b2 & 0x03) << 4)
    out[:, 3] = b2 >> 2
    return out.reshape(-1)[:n]


def storage(t, codes):
    codes = np.asarray(codes)
    if t in PACKED:
        return pack(codes, BITS[t]).tobytes()
    return np.ascontiguousarray(codes.astype(code_dtype(t))).tobytes()


def storage_bytes(t, n):
    return (n * BITS[t] + 7) // 8


# ----------------------------------------------------------------------------------
# Configurations
# ----------------------------------------------------------------------------------

Config = collections.namedtuple(
    "Config",
    [
        "op",  # "QL" or "DQ"
        "opset",
        "v",  # the schema version the opset runs
        "x",
        "s",  # the scale's type
        "zp",  # the zero point's type, 0: none
        "out",  # the output_dtype attribute, 0: absent
        "prec",  # the precision attribute (QL), 0: absent
        "sat",  # the saturate attribute (QL), 0 or 1
        "y",  # the output type
        "P",  # QL: tensorcast's division precision
        "T",  # QL: the reference's division type (precision, else numpy's promotion)
    ],
)


def type_of_dtype(dt):
    for t, d in NP_DTYPE.items():
        if np.dtype(d) == dt:
            return t
    raise KeyError(dt)


@lru_cache(maxsize=None)
def promoted(x, s):
    """The type numpy divides x / scale in (onnx.reference without precision)."""
    with np.errstate(all="ignore"):
        return type_of_dtype((np.ones(1, NP_DTYPE[x]) / np.ones(1, NP_DTYPE[s])).dtype)


def ql_config(opset, x, s, zp, out, prec, sat):
    v = version_of(opset)
    y = zp or out or UINT8
    if prec:
        P = prec
    else:
        P = {INT32: DOUBLE, E8M0: FLOAT}.get(s, s)  # the scale's type decides
    return Config("QL", opset, v, x, s, zp, out, prec, sat, y, P, prec or promoted(x, s))


def dq_config(opset, x, s, zp, out):
    v = version_of(opset)
    return Config("DQ", opset, v, x, s, zp, out, 0, 1, dq_output_type(v, s, out), 0, 0)


def ql_configs(opset, rng):
    """Every type combination of QuantizeLinear at this opset."""
    v = version_of(opset)
    out = []
    for x in ql_x_types(v):
        for s in ql_scale_types(v, x):
            for prec in [0, FLOAT, FLOAT16, BF16] if v >= 23 else [0]:
                for y in quantized_types(v):
                    sats = [1, 0] if y in FLOAT8 else [rng.randrange(2) if v >= 19 else 1]
                    for sat in sats:
                        # with a zero point (output_dtype also given, equal, at random)
                        both = v >= 21 and rng.randrange(2)
                        out.append(ql_config(opset, x, s, y, y if both else 0, prec, sat))
                        # without: output_dtype (21+), or the default UINT8
                        if v >= 21:
                            out.append(ql_config(opset, x, s, 0, y, prec, sat))
                        if y == UINT8:
                            out.append(ql_config(opset, x, s, 0, 0, prec, sat))
    return out


def dq_configs(opset):
    v = version_of(opset)
    out = []
    for x in quantized_types(v) + [INT32]:
        for s in dq_scale_types(v):
            for o in [0, FLOAT, FLOAT16, BF16] if v >= 23 else [0]:
                if dq_output_type(v, s, o) is None:
                    continue  # E8M0 without output_dtype: a rejection case
                for zp in (0, x):
                    out.append(dq_config(opset, x, s, zp, o))
    return out


# ----------------------------------------------------------------------------------
# The oracle (tensorcast's rules) and the model of onnx.reference 1.23
# ----------------------------------------------------------------------------------

# The reference's deviations (in the order classify() tries them). Evaluating with none
# of them is the oracle; with all of them, the model of the reference.
QL_QUIRKS = ("wrap", "div", "f64cast", "zpignore", "gennan", "conv")
DQ_QUIRKS = ("f32", "zpignore", "gennan")
NO_QUIRKS = frozenset()
# The models of the reference: all its deviations (DequantizeLinear: either NaN of NaN * NaN).
MODELS = {
    "QL": [frozenset(QL_QUIRKS)],
    "DQ": [frozenset(DQ_QUIRKS), frozenset(DQ_QUIRKS) | {"nanx"}],
}


def platform_facts():
    """What this machine's numpy does where C leaves it open: the sign of the default
    NaN (0/0) and float -> int32 of NaN, +-Inf and out-of-range values (x86: INT32_MIN
    for all; Arm: saturation, NaN -> 0)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zero = np.zeros(1, np.float32)
        nan_sign = int((zero / zero).view(np.uint32)[0] >> 31)
        conv = {}
        for t in (FLOAT, DOUBLE, FLOAT16, BF16):
            big = 65504.0 if t == FLOAT16 else 3e9
            a = np.array([np.nan, np.inf, -np.inf, big, -big], np.float64).astype(NP_DTYPE[t])
            r = np.rint(a).astype(np.int32).tolist()
            conv[t] = {"nan": r[0], "inf": r[1], "-inf": r[2]}
    return nan_sign, conv


DEFAULT_NAN_SIGN, TO_INT32 = platform_facts()


def ref_int32(t, q):
    """np.rint(q).astype(np.int32) of a quotient of type t, on this machine."""
    c = TO_INT32[t]
    if q[0] == "nan":
        return c["nan"]
    if q[0] == "inf":
        return c["-inf" if q[1] else "inf"]
    r = rne_int(signed(q))
    if r > 2**31 - 1:
        return c["inf"]
    if r < -(2**31):
        return c["-inf"]
    return r


# (type, precision) pairs where every value of the type is exact in the precision.
EXACT_IN = (
    {(t, t) for t in (FLOAT, FLOAT16, BF16)}
    | {
        (FLOAT16, FLOAT),
        (BF16, FLOAT),
        (E8M0, FLOAT),
        (E8M0, BF16),
    }
    | {(t, DOUBLE) for t in (FLOAT, FLOAT16, BF16, INT32, E8M0)}
)


def to_precision(p, src, v, conv):
    """x or the scale rounded to the division's type. conv: ml_dtypes converts INT32 to
    BFLOAT16 through float32 (two roundings)."""
    if (src, p) in EXACT_IN:
        return v
    if conv and p == BF16 and src == INT32:
        v = round_to(FLOAT, v)
    return round_to(p, v)


@lru_cache(maxsize=1 << 18)
def ql_eval(c, xc, sc, zc, quirks):
    """QuantizeLinear of one element: the y code."""
    t = c.T if "div" in quirks else c.P
    a = to_precision(t, c.x, decode(c.x, xc), "conv" in quirks)
    b = to_precision(t, c.s, decode(c.s, sc), "conv" in quirks)
    # A NaN made by 0/0 or Inf/Inf: tensorcast's is 0x7FC00000, the reference's the platform's.
    q = round_to(t, divide(a, b, DEFAULT_NAN_SIGN if "gennan" in quirks else 0))
    if c.y in INT_RANGE:
        lo, hi = INT_RANGE[c.y]
        z = int(signed(decode(c.zp, zc))) if c.zp else 0
        if "wrap" in quirks:
            # rint, then int32 (out of range: the platform's result), += zp in int32, clip
            n = (ref_int32(t, q) + z + 2**31) % 2**32 - 2**31
            n = min(max(n, lo), hi)
        elif q[0] == "nan":
            n = z
        elif q[0] == "inf":
            n = lo if q[1] else hi
        else:
            # round half to even, saturate to [lo - zp, hi - zp], add zp: no wrap
            n = min(max(rne_int(signed(q)), lo - z), hi - z) + z
        return n & ((1 << BITS[c.y]) - 1)
    # float y: Cast(quotient + zero point) with Cast's rules; the zero point is +-0 and is
    # added as IEEE arithmetic does (-0 + +0 = +0). The reference ignores a float8 one.
    if c.zp and not ("zpignore" in quirks and c.y in FLOAT8):
        q = add_signed_zero(q, decode(c.zp, zc))
    if "f64cast" in quirks and t == DOUBLE:
        q = round_to(FLOAT, q)
    return encode(c.y, q, c.sat)


@lru_cache(maxsize=1 << 18)
def dq_eval(c, xc, sc, zc, quirks):
    """DequantizeLinear of one element: the y code."""
    f32 = "f32" in quirks
    d = decode(c.x, xc)
    if c.x in INT_RANGE:
        if f32 and c.x == INT32:
            d = round_to(FLOAT, d)  # x.astype(float32)
        if c.zp:
            d = num(signed(d) - signed(decode(c.zp, zc)))  # exact (float32 / float64 there)
    elif c.zp and not ("zpignore" in quirks and c.x in FLOAT8 | {FLOAT4}):
        # a float zero point (+-0) is subtracted as IEEE arithmetic does (-0 - -0 = +0);
        # the reference ignores float8 and FLOAT4E2M1 ones
        d = sub_signed_zero(d, decode(c.zp, zc))
    # (x - zp) * scale exactly; Inf * 0: tensorcast's NaN is 0x7FC00000. numpy's product of
    # two NaNs is one or the other, depending on the loop ("nanx": x's).
    gen = "gennan" in quirks
    y = multiply(d, decode(c.s, sc), DEFAULT_NAN_SIGN if gen else 0, gen and "nanx" not in quirks)
    if f32:
        # the reference's product type, then astype (BFLOAT16 from float64 via float32)
        m = DOUBLE if (c.x == INT32 and c.zp) else FLOAT
        y = round_to(m, y)
        if m == DOUBLE and c.y == BF16:
            y = round_to(FLOAT, y)
    return encode(c.y, y)


def is_nan_code(t, code):
    return t in FORMATS and decode(t, code)[0] == "nan"


def same(t, a, b):
    """Equal codes; FLOAT / FLOAT16 / BFLOAT16 outputs: any two NaNs of one sign."""
    if a == b:
        return True
    if t in (FLOAT, FLOAT16, BF16) and is_nan_code(t, a) and is_nan_code(t, b):
        return decode(t, a)[1] == decode(t, b)[1]
    return False


# Categories of the elements that differ: each is one deviation of the reference, and the
# rule of docs/semantics.md section 12 that tensorcast follows there.
CAT_WRAP = "QL integer y: the reference wraps NaN, Inf and huge quotients through int32"
CAT_DIV = "QL: the reference divides in numpy's promoted type, not the scale's"
CAT_CONV = "QL BFLOAT16 precision: INT32 to BFLOAT16 rounded once, the reference via FLOAT"
CAT_F64CAST = "QL float y of a DOUBLE quotient: the reference rounds it via FLOAT"
CAT_ZPIGNORE = "float8 / FLOAT4E2M1 zero point (+-0): the reference ignores it (-0 stays)"
CAT_GENNAN_QL = "QL 0/0, Inf/Inf: tensorcast +NaN, the reference the platform's default NaN"
CAT_GENNAN_DQ = "DQ Inf * 0 and NaN * NaN: tensorcast's NaN rule, the reference numpy's"
CAT_DQROUND = "DQ: the reference rounds INT32 x and the product to FLOAT first"
UNEXPLAINED = "UNEXPLAINED"

QUIRK_CATEGORY = {
    ("QL", "wrap"): CAT_WRAP,
    ("QL", "div"): CAT_DIV,
    ("QL", "conv"): CAT_CONV,
    ("QL", "f64cast"): CAT_F64CAST,
    ("QL", "zpignore"): CAT_ZPIGNORE,
    ("QL", "gennan"): CAT_GENNAN_QL,
    ("DQ", "f32"): CAT_DQROUND,
    ("DQ", "zpignore"): CAT_ZPIGNORE,
    ("DQ", "gennan"): CAT_GENNAN_DQ,
}

# Call-level categories: the reference computes where tensorcast rejects, or raises
# where tensorcast computes.
CAT_REJ_TYPE = "rejected: a type outside the version (the reference never checks types)"
CAT_REJ_ATTR = "rejected: an opset outside 10..28, an attribute the version lacks, block_size < 0"
CAT_REJ_PREC = "rejected: precision other than FLOAT, FLOAT16, BFLOAT16"
CAT_REJ_FZP = "rejected: a nonzero float zero point (the reference ignores, adds or raises)"
CAT_REJ_ZPTYPE = "rejected: DQ float8 / FLOAT4E2M1 x with a zero point of another type"
CAT_REJ_SHAPE = "rejected: a scale / zero-point shape or block_size outside the schema"
CAT_REJ_E8M0 = "rejected: DQ FLOAT8E8M0 scale without output_dtype"
CAT_REF_RAISES = "UNDOCUMENTED the reference raises where tensorcast computes"
CAT_REF_EMPTY = "the reference raises on an empty tensor (DQ float8 zp: min() of nothing)"

CATEGORY_DOC = {
    CAT_WRAP: "12.3.2, 12.6: integer outputs saturate, NaN -> the zero point",
    CAT_DIV: "12.3.1, 12.6: the division runs in the scale's type or `precision`",
    CAT_CONV: "12.3.1, 12.6: x and the scale rounded once to the precision",
    CAT_F64CAST: "12.3.3 and 5: Cast rounds a DOUBLE once",
    CAT_ZPIGNORE: "12.3.3, 12.4, 12.6: a +-0 zero point is added / subtracted",
    CAT_GENNAN_QL: "12.3.4: 0 / 0 and Inf / Inf give 0x7FC00000",
    CAT_GENNAN_DQ: "12.4: x's NaN, else the scale's; Inf * 0 gives 0x7FC00000",
    CAT_DQROUND: "12.4, 12.6: the exact (x - zero point) * scale rounded once",
    CAT_REJ_TYPE: "12.1, 12.6: UNSUPPORTED",
    CAT_REJ_ATTR: "12, 12.1: opsets 10..28, absent attributes keep their defaults",
    CAT_REJ_PREC: "12.1, 12.6",
    CAT_REJ_FZP: "12.3.3, 12.4, 12.6: a float zero point must be +-0",
    CAT_REJ_ZPTYPE: "12.1: a zero point has x's type",
    CAT_REJ_SHAPE: "12.2, 12.6",
    CAT_REJ_E8M0: "12.1: a FLOAT8E8M0 scale requires output_dtype",
    CAT_REF_RAISES: "-",
    CAT_REF_EMPTY: "y is empty: nothing to compare",
    UNEXPLAINED: "-",
}
DOCUMENTED = {
    CAT_WRAP,
    CAT_DIV,
    CAT_CONV,
    CAT_F64CAST,
    CAT_ZPIGNORE,
    CAT_GENNAN_QL,
    CAT_GENNAN_DQ,
    CAT_DQROUND,
    CAT_REJ_TYPE,
    CAT_REJ_ATTR,
    CAT_REJ_PREC,
    CAT_REJ_FZP,
    CAT_REJ_ZPTYPE,
    CAT_REJ_SHAPE,
    CAT_REJ_E8M0,
    CAT_REF_EMPTY,
}
ELEMENT_CATEGORIES = [
    CAT_WRAP,
    CAT_DIV,
    CAT_CONV,
    CAT_F64CAST,
    CAT_ZPIGNORE,
    CAT_GENNAN_QL,
    CAT_GENNAN_DQ,
    CAT_DQROUND,
    UNEXPLAINED,
]
CALL_CATEGORIES = [
    CAT_REJ_TYPE,
    CAT_REJ_ATTR,
    CAT_REJ_PREC,
    CAT_REJ_FZP,
    CAT_REJ_ZPTYPE,
    CAT_REJ_SHAPE,
    CAT_REJ_E8M0,
    CAT_REF_EMPTY,
    CAT_REF_RAISES,
]


def classify(c, xc, sc, zc, ref_code, tc_code):
    """-> (category, note) for an element where the reference and tensorcast differ."""
    ev, quirks = (ql_eval, QL_QUIRKS) if c.op == "QL" else (dq_eval, DQ_QUIRKS)
    oracle = ev(c, xc, sc, zc, NO_QUIRKS)
    models = [ev(c, xc, sc, zc, m) for m in MODELS[c.op]]
    model = next((m for m in models if same(c.y, ref_code, m)), models[0])
    note = "oracle %s, model of the reference %s" % (fmt(c.y, oracle), fmt(c.y, model))
    if not same(c.y, tc_code, oracle):
        return UNEXPLAINED, note + "; tensorcast differs from the oracle"
    if not same(c.y, ref_code, model):
        return UNEXPLAINED, note + "; the model does not explain the reference"
    for q in quirks:  # the first deviation that alone changes the result
        if not same(c.y, ev(c, xc, sc, zc, frozenset([q])), oracle):
            return QUIRK_CATEGORY[(c.op, q)], note
    acc = set()
    for q in quirks:  # else the first whose addition does
        acc.add(q)
        if not same(c.y, ev(c, xc, sc, zc, frozenset(acc)), oracle):
            return QUIRK_CATEGORY[(c.op, q)], note
    return UNEXPLAINED, note


def check_match(c, xc, sc, zc, ref_code, tc_code):
    """An element where the reference and tensorcast agree: the oracle must give the
    result and so must the model (else the oracle, the model or both sides are wrong).
    -> (None, "") or (UNEXPLAINED, note)."""
    ev = ql_eval if c.op == "QL" else dq_eval
    oracle = ev(c, xc, sc, zc, NO_QUIRKS)
    models = [ev(c, xc, sc, zc, m) for m in MODELS[c.op]]
    model = next((m for m in models if same(c.y, ref_code, m)), models[0])
    if same(c.y, tc_code, oracle) and same(c.y, ref_code, model):
        return None, ""
    return UNEXPLAINED, "a matching element: oracle %s, model of the reference %s" % (
        fmt(c.y, oracle),
        fmt(c.y, model),
    )


def fmt(t, code):
    if code is None:
        return "None"
    return "%#0*x (%s)" % ((BITS[t] + 3) // 4 + 2, int(code), value_str(decode(t, code)))


# ----------------------------------------------------------------------------------
# onnx.reference
# ----------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def evaluator(op_name, opset, types, attrs):
    names = ["x", "s", "z"][: len(types)]
    node = helper.make_node(op_name, names, ["y"], **dict(attrs))
    inputs = [helper.make_tensor_value_info(n, t, None) for n, t in zip(names, types)]
    out = [helper.make_tensor_value_info("y", onnx.TensorProto.UNDEFINED, None)]
    graph = helper.make_graph([node], "g", inputs, out)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model)


def run_reference(op, opset, feeds, attrs):
    """feeds: [(type, array)] for x, the scale and the zero point (omitted when None).
    -> (array, None) or (None, error text)."""
    op_name = "QuantizeLinear" if op == "QL" else "DequantizeLinear"
    if op == "DQ" and 10 <= opset < 19:
        opset = 19  # no DequantizeLinear before 19 in onnx.reference: version 19 stands in
    feeds = [f for f in feeds if f is not None]
    types = tuple(t for t, _ in feeds)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            ev = evaluator(op_name, opset, types, tuple(sorted(attrs.items())))
            y = ev.run(None, {n: a for n, (_, a) in zip("xsz", feeds)})[0]
            return y, None
        except Exception as e:  # noqa: BLE001 - the reference's failure is data here
            return None, "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0][:140])


def reference_attrs(c, axis, block_size):
    """The node's attributes (those of its version only)."""
    a = {}
    if c.v >= 13:
        a["axis"] = axis
    if block_size:
        a["block_size"] = block_size
    if c.out:
        a["output_dtype"] = c.out
    if c.op == "QL" and c.v >= 19:
        a["saturate"] = c.sat
    if c.prec:
        a["precision"] = c.prec
    return a


# ----------------------------------------------------------------------------------
# tensorcast through its C API
# ----------------------------------------------------------------------------------


class TcError(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int),
        ("elements_written", ctypes.c_size_t),
        ("message_length", ctypes.c_size_t),
        ("message", ctypes.c_void_p),
        ("message_capacity", ctypes.c_size_t),
    ]


class TcTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("type", ctypes.c_int32),
        ("shape", ctypes.c_void_p),
        ("rank", ctypes.c_size_t),
    ]


class TcQuantizeOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("opset", ctypes.c_int),
        ("axis", ctypes.c_int64),
        ("block_size", ctypes.c_int64),
        ("output_dtype", ctypes.c_int32),
        ("saturate", ctypes.c_int),
        ("precision", ctypes.c_int32),
        ("runner", ctypes.c_void_p),
    ]


class Tensor:
    """A tensor argument: type, shape and its storage (None: a NULL data pointer).
    shape_null passes a NULL shape pointer with the rank of `shape`."""

    def __init__(self, t, shape, raw, shape_null=False):
        self.t, self.shape, self.raw, self.shape_null = t, tuple(shape), raw, shape_null


class Shim:
    """tc_quantize_linear / tc_dequantize_linear and their output-type queries. Every call
    is checked against tensorcast_c.h's contracts: tc_error (code = the status, message
    NUL-terminated and message_length long, empty on success only, elements_written 0),
    nothing written on error, nothing past y's storage, zero padding bits in a packed last
    byte, the inputs untouched. A breach is returned as status -1 with what it was."""

    GUARD = 64

    def __init__(self, path):
        self.lib = L = ctypes.CDLL(path)
        vp, i32 = ctypes.c_void_p, ctypes.c_int32
        for fn in (L.tc_quantize_linear, L.tc_dequantize_linear):
            fn.argtypes = [vp, vp, vp, vp, i32, vp, vp]
            fn.restype = ctypes.c_int
        for fn in (L.tc_quantize_linear_output_type, L.tc_dequantize_linear_output_type):
            fn.argtypes = [vp, i32, vp, vp]
            fn.restype = ctypes.c_int
        L.tc_thread_pool_create.argtypes = [ctypes.c_size_t]
        L.tc_thread_pool_create.restype = vp
        L.tc_thread_pool_runner.argtypes = [vp]
        L.tc_thread_pool_runner.restype = vp
        L.tc_thread_pool_destroy.argtypes = [vp]
        L.tc_thread_pool_destroy.restype = None
        L.tc_active_target.argtypes = []
        L.tc_active_target.restype = ctypes.c_char_p

    def target(self):
        return self.lib.tc_active_target().decode()

    @staticmethod
    def options(opset, axis=1, block_size=0, output_dtype=0, saturate=1, precision=0, **kw):
        o = TcQuantizeOptions(
            ctypes.sizeof(TcQuantizeOptions),
            opset,
            axis,
            block_size,
            output_dtype,
            saturate,
            precision,
            kw.get("runner"),
        )
        if "struct_size" in kw:
            o.struct_size = kw["struct_size"]
        return o

    @staticmethod
    def _error():
        buf = ctypes.create_string_buffer(b"\xa5" * 1024, 1024)
        return TcError(-1, 0xA5A5, 0xA5A5, ctypes.addressof(buf), 1024), buf

    @staticmethod
    def _error_problem(rc, err, buf):
        if err.code != rc:
            return "tc_error.code %d, the call returned %d" % (err.code, rc)
        if len(buf.value) != min(err.message_length, len(buf) - 1):
            return "message of %d bytes, message_length %d" % (len(buf.value), err.message_length)
        if (rc == 0) != (err.message_length == 0):
            return "status %d with message %r" % (rc, buf.value)
        if err.elements_written != 0:
            return "elements_written %d" % err.elements_written
        return None

    def call(self, op, x, s, z, y_type, opts, y_bytes=None, y_at=None):
        """-> (rc, message, y storage or None). y_at: ("x"|"s"|"z", byte offset) puts y
        inside that input's buffer (overlap); y_bytes: the y buffer's size."""
        keep, before = [], []

        def tensor(t):
            if t is None:
                return None, None
            shape = np.array(t.shape, np.int64)
            data = None
            if t.raw is not None:
                data = ctypes.create_string_buffer(t.raw, max(1, len(t.raw)))
                before.append((data, data.raw))
            tt = TcTensor(
                ctypes.addressof(data) if data is not None else None,
                t.t,
                None if t.shape_null or not len(shape) else shape.ctypes.data,
                len(shape),
            )
            keep.extend([shape, data, tt])
            return ctypes.addressof(tt), data

        px, dx = tensor(x)
        ps, ds = tensor(s)
        pz, dz = tensor(z)
        n = int(np.prod(x.shape)) if x is not None else 0
        nbytes = storage_bytes(y_type, n) if y_bytes is None else y_bytes
        if y_at is None:
            ybuf = ctypes.create_string_buffer(b"\xa5" * (nbytes + self.GUARD), nbytes + self.GUARD)
            py = ctypes.addressof(ybuf)
        else:
            host = {"x": dx, "s": ds, "z": dz}[y_at[0]]
            ybuf, py = None, ctypes.addressof(host) + y_at[1]
        err, ebuf = self._error()
        fn = self.lib.tc_quantize_linear if op == "QL" else self.lib.tc_dequantize_linear
        rc = fn(px, ps, pz, py, y_type, ctypes.addressof(opts), ctypes.addressof(err))
        msg = ebuf.value.decode(errors="replace")
        problem = self._error_problem(rc, err, ebuf)
        if problem is None and any(b.raw != r for b, r in before):
            problem = "an input buffer was written"
        if problem is None and ybuf is not None:
            raw = ybuf.raw
            if rc != 0 and raw != b"\xa5" * len(raw):
                problem = "status %d, but y was written" % rc
            elif rc == 0 and raw[nbytes:] != b"\xa5" * self.GUARD:
                problem = "wrote past y's %d bytes" % nbytes
            elif rc == 0 and y_type in PACKED and (n * BITS[y_type]) % 8:
                if raw[nbytes - 1] >> ((n * BITS[y_type]) % 8):
                    problem = "padding bits of y's last byte: %#04x" % raw[nbytes - 1]
        if problem:
            return -1, "%s (status %s: %r)" % (problem, STATUS.get(rc, rc), msg), None
        return rc, msg, (ybuf.raw[:nbytes] if rc == 0 and ybuf is not None else None)

    def output_type(self, op, opts, arg_type):
        err, buf = self._error()
        y = ctypes.c_int32(-7)
        fn = (
            self.lib.tc_quantize_linear_output_type
            if op == "QL"
            else self.lib.tc_dequantize_linear_output_type
        )
        rc = fn(ctypes.addressof(opts), arg_type, ctypes.addressof(y), ctypes.addressof(err))
        problem = self._error_problem(rc, err, buf)
        if problem:
            return -1, problem, None
        return rc, buf.value.decode(errors="replace"), y.value


# ----------------------------------------------------------------------------------
# Inputs: layouts, scales, zero points and x, random and adversarial
# ----------------------------------------------------------------------------------

Layout = collections.namedtuple(
    "Layout", ["kind", "x_shape", "s_shape", "z_shape", "axis", "block_size", "sidx"]
)


def layout_kinds(v):
    k = ["tensor0", "tensor1"]
    if v >= 13:
        k += ["axis", "axis_neg"]
    if v >= 21:
        k += ["block_first", "block_last", "block_mid"]
    return k


def scale_index(shape, ax, block):
    """The scale element of every x element (row-major) along axis ax; block 0: per axis."""
    n = int(np.prod(shape))
    if n == 0:
        return np.zeros(0, np.int64)
    e = np.arange(n, dtype=np.int64)
    inner = int(np.prod(shape[ax + 1 :]))
    d = shape[ax]
    i, row = e % inner, e // inner
    a, o = row % d, row // d
    if block == 0:
        return a
    return (o * (-(-d // block)) + a // block) * inner + i


def codes_to_f64(t, codes):
    with np.errstate(all="ignore"):
        return to_np(t, codes, (-1,)).astype(np.float64)


def f64_to_codes(t, v):
    """Float64 values -> codes of x's type (test inputs; no oracle role)."""
    v = np.asarray(v, np.float64)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if t == INT32:
            r = np.rint(np.nan_to_num(v, nan=0.0, posinf=2**31 - 1, neginf=-(2**31)))
            return np.clip(r, -(2**31), 2**31 - 1).astype(np.int64).astype(np.int32).view(np.uint32)
        return v.astype(NP_DTYPE[t]).view(code_dtype(t))


@lru_cache(maxsize=None)
def positive_values(t):
    """The finite positive values of a small float format, sorted (from decode())."""
    vals = set()
    for code in range(1 << (BITS[t] - 1)):
        v = decode(t, code)
        if v[0] == "num" and v[2] > 0:
            vals.add(v[2])
    return np.array([float(v) for v in sorted(vals)])


def int32_near_ties(g, n):
    """INT32 values at and next to the ties of FLOAT16, BFLOAT16 and FLOAT rounding, and
    near 2^24 and 2^31."""
    p = g.choice([11, 8, 24], n)  # significant bits of FLOAT16, BFLOAT16, FLOAT
    e = np.where(p == 11, g.integers(11, 16, n), g.integers(np.maximum(p, 9), 31, n))
    k = g.integers(0, 2**62, n) % (1 << np.maximum(p - 1, 1))
    base = ((1 << (p - 1)) + k) * 2 + 1  # odd: a tie between two p-bit values
    x = base << np.maximum(e - p, 0) >> 1
    x = x + g.integers(-2, 3, n)
    extra = np.array([2**24 - 1, 2**24, 2**24 + 1, 2**24 + 3, 2**25 + 1, 65519, 65520, 2**31 - 1])
    x = np.where(g.random(n) < 0.15, g.choice(extra, n), x)
    x = np.where(g.random(n) < 0.3, -x, x)
    return np.clip(x, -(2**31), 2**31 - 1)


def special_x(t):
    """Adversarial x values of QuantizeLinear's x types, as codes."""
    if t == INT32:
        v = [0, 1, -1, 2**31 - 1, -(2**31), 2**24 + 1, -(2**24 + 1), 2**24 + 2**16 + 1]
        v += [65519, 65520, -65520, 2147483520, 3 * 2**29 + 1]
        return np.array(v, np.int64).astype(np.int32).view(np.uint32)
    v = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 3e9, -3e9, 1e30, -1e30, 65504.0]
    v += [65520.0, -65520.0, 16777217.0, 2147483520.0, -2147483648.0, 2.0**31, 1e-40, -1e-45]
    v += [6e-8, -3e38, 448.0, 464.0, 57344.0, 61440.0, 7.5, 28.0, 6.0, 5.0, 0.25, 0.5]
    codes = f64_to_codes(t, v)
    if t == FLOAT:  # NaNs with payloads
        codes = np.concatenate([codes, np.array([0x7F800001, 0xFFC00123, 0x7FA00000], np.uint32)])
    return codes


class Inputs:
    """Random and adversarial inputs (numpy; no oracle role)."""

    def __init__(self, seed):
        self.g = np.random.default_rng(seed)

    def layout(self, v, kind, big=False):
        g = self.g
        r = int(g.integers(3, 5)) if kind == "block_mid" else int(g.integers(1, 5))
        if big:
            dims = {1: [int(g.integers(2000, 4000))], 2: [3, int(g.integers(1030, 1500))]}.get(
                r, [2] * (r - 2) + [int(g.integers(3, 40)), int(g.integers(30, 70))]
            )
        else:
            lims = {1: [(8, 120)], 2: [(1, 10), (4, 24)], 3: [(1, 5), (2, 9), (2, 9)]}
            lims = lims.get(r, [(1, 4), (1, 5), (2, 6), (2, 7)])
            dims = [int(g.integers(a, b)) for a, b in lims]
        if not big and g.random() < 0.05:
            dims[int(g.integers(0, r))] = 0  # an empty tensor
        n = int(np.prod(dims))
        if kind.startswith("tensor"):
            s_shape = () if kind == "tensor0" else (1,)
            z_shape = ((), (1,))[int(g.integers(0, 2))]
            axis = int(g.integers(-6, 7)) if v >= 13 else 1  # read only for per axis, blocked
            return Layout(kind, tuple(dims), s_shape, z_shape, axis, 0, np.zeros(n, np.int64))
        if kind.startswith("axis"):
            ax = int(g.integers(0, r))
            s_shape = (dims[ax],)
            axis = ax - r if kind == "axis_neg" else ax
            sidx = scale_index(dims, ax, 0)
            return Layout(kind, tuple(dims), s_shape, s_shape, axis, 0, sidx)
        ax = {"block_first": 0, "block_last": r - 1}.get(kind, int(g.integers(1, max(2, r - 1))))
        d = dims[ax]
        partial = [b for b in range(2, d) if d % b]
        if partial and g.random() < 0.6:
            block = int(g.choice(partial))  # the last block is partial
        else:
            block = int(g.integers(1, max(d, 1) + 4)) if d else int(g.integers(1, 5))
            block = min(block, max(d, 1)) if g.random() < 0.8 else block
        s_shape = list(dims)
        s_shape[ax] = -(-d // block)
        axis = ax - r if g.random() < 0.3 else ax
        sidx = scale_index(dims, ax, block)
        return Layout(kind, tuple(dims), tuple(s_shape), tuple(s_shape), axis, block, sidx)

    def scales(self, t, n, special=0.12):
        g = self.g
        if t == E8M0:
            c = g.integers(0x76, 0x89, n)
            sp = g.choice([0x00, 0x01, 0xFE, 0xFF, 0x7F, 0x60, 0x9F], n)
            return np.where(g.random(n) < special, sp, c).astype(np.uint8)
        sign = np.where(g.random(n) < 0.1, -1.0, 1.0)
        if t == INT32:
            kind = g.integers(0, 3, n)
            mag = np.where(
                kind == 0,
                g.integers(1, 16, n),
                np.where(kind == 1, g.integers(16, 3000, n), 2 ** g.integers(10, 31, n) - 1),
            )
            sp = g.choice([0, 1, -1, 2**31 - 1, -(2**31)], n)
            v = np.where(g.random(n) < special, sp, sign * mag)
            # next to the ties of FLOAT16 / BFLOAT16 / FLOAT rounding, and one away from a
            # BFLOAT16 tie above 2^25, where rounding through FLOAT first makes it the tie
            v = np.where(g.random(n) < special, int32_near_ties(g, n), v)
            e = g.integers(25, 31, n)
            tie = ((g.integers(128, 256, n) * 2 + 1) << (e - 8)) + g.choice([-1, 1], n)
            v = np.where(g.random(n) < special, tie * sign, v)
            return f64_to_codes(INT32, v)
        kind = g.integers(0, 10, n)
        nice = g.choice([1, 3, 5, 7, 9, 11, 13, 15], n) * np.exp2(g.integers(-7, 7, n))
        rand = np.exp2(g.uniform(-10, 10, n))
        large = np.exp2(g.uniform(10, 24, n))
        mag = np.where(kind < 5, nice, np.where(kind < 9, rand, large))
        codes = f64_to_codes(t, sign * mag)
        info = ml_dtypes.finfo(NP_DTYPE[t])
        sp = f64_to_codes(
            t,
            [
                0.0,
                -0.0,
                float(info.smallest_subnormal),
                float(info.smallest_subnormal) * 5,
                float(info.max),
                -float(info.max),
                np.inf,
                -np.inf,
                np.nan,
                float(info.smallest_normal),
                -0.5,
            ],
        )
        return np.where(g.random(n) < special, g.choice(sp, n), codes).astype(code_dtype(t))

    def zero_points(self, t, n):
        g = self.g
        if not t:
            return None
        if t in INT_RANGE:
            lo, hi = INT_RANGE[t]
            v = np.where(g.random(n) < 0.2, g.choice([lo, hi, 0], n), g.integers(lo, hi + 1, n))
            return (v & ((1 << BITS[t]) - 1)).astype(code_dtype(t))
        # float zero points are zero: +0 or -0 (the FNUZ formats have one zero)
        neg = 0 if t in (E4M3FNUZ, E5M2FNUZ) else 1 << (BITS[t] - 1)
        return np.where(g.random(n) < 0.5, neg, 0).astype(code_dtype(t))

    def ql_x(self, c, s_codes, z_codes, sidx):
        g = self.g
        n = len(sidx)
        s64 = codes_to_f64(c.s, s_codes)[sidx] if n else np.zeros(0)
        if c.y in INT_RANGE:
            lo, hi = INT_RANGE[c.y]
            z = codes_to_f64(c.zp, z_codes)[sidx] if c.zp and n else np.zeros(n)
            kind = g.choice(6, n, p=[0.22, 0.22, 0.2, 0.2, 0.1, 0.06])
            k = g.integers(lo - 2, hi + 3, n) - z
            eps = np.exp2(-g.integers(4, 41, n).astype(np.float64)) * g.choice([-1, 1], n)
            bound = g.choice([lo, hi], n) - z
            step = g.choice([-1, -0.5, -0.25, 0, 0.25, 0.5, 1, 0.5 - 2**-20, -0.5 + 2**-20], n)
            q = np.select(
                [kind == 0, kind == 1, kind == 2, kind == 3, kind == 4],
                [
                    g.uniform(lo - 3, hi + 4, n) - z,
                    k + 0.5,
                    k + 0.5 + eps,
                    bound + step,
                    g.integers(-6, 7, n) / 2.0,
                ],
                g.choice([-1, 1], n) * np.exp2(g.uniform(0, 40, n)),
            )
        else:
            vals = positive_values(c.y)
            top = 2 * vals[-1] - vals[-2]  # the next step past MAX (the overflow tie's end)
            grid = np.concatenate([[0.0], vals, [top]])
            mids = (grid[1:] + grid[:-1]) / 2
            kind = g.integers(0, 6, n)
            mid = g.choice(mids, n)
            eps = np.exp2(-g.integers(3, 41, n).astype(np.float64)) * g.choice([-1, 1], n)
            extreme = g.choice(
                [vals[-1], mids[-1], top, 2 * vals[-1], 1e6, mids[-1] * 1.0000001], n
            )
            q = np.select(
                [kind == 0, kind == 1, kind == 2, kind == 3, kind == 4],
                [
                    g.choice(vals, n),
                    mid,
                    mid * (1 + eps),
                    extreme,
                    np.exp2(g.uniform(np.log2(vals[0]) - 3, np.log2(vals[-1]) + 2, n)),
                ],
                g.uniform(0, vals[0], n),
            ) * g.choice([-1, 1], n)
        with np.errstate(all="ignore"):
            x64 = q * s64
            bad = ~np.isfinite(x64) | (s64 == 0)
            x64[bad] = g.choice([-1, 1], int(bad.sum())) * np.exp2(
                g.uniform(-6, 10, int(bad.sum()))
            )
        codes = f64_to_codes(c.x, x64)
        if c.x == INT32:
            m = g.random(n) < 0.1
            codes[m] = f64_to_codes(INT32, int32_near_ties(g, int(m.sum())))
            if c.s == INT32 and c.y not in INT_RANGE:
                # q = x / s next to a tie of y's format by less than FLOAT's half step:
                # rounding the DOUBLE quotient through FLOAT makes it a tie
                m = g.random(n) < 0.15
                sv = s64[m]
                ok = np.isfinite(sv) & (np.abs(sv) >= 2**16)
                t = np.rint(mid[m] * np.abs(sv)) + g.integers(-1, 2, int(m.sum()))
                t = np.where(ok & (np.abs(t) < 2**31), t * np.sign(sv), 0)
                codes[m] = np.where(ok, f64_to_codes(INT32, t), codes[m])
        m = g.random(n) < 0.07
        codes[m] = g.choice(special_x(c.x), int(m.sum()))
        m = g.random(n) < 0.04
        codes[m] = g.integers(0, 2 ** BITS[c.x], int(m.sum()), dtype=np.uint64).astype(codes.dtype)
        if c.x == INT32 and c.s == FLOAT and c.y in INT_RANGE and n:
            self.hunt_ql_division(c, codes, s64)
        return codes

    def hunt_ql_division(self, c, codes, s64):
        """INT32 x / FLOAT scale: the reference divides in float64, tensorcast in float32.
        Puts some x where the two round to different integers."""
        g = self.g
        lo, hi = INT_RANGE[c.y]
        pos = g.choice(len(codes), min(len(codes), 6), replace=False)
        for p in pos:
            s = s64[p]
            if not np.isfinite(s) or s == 0 or abs(s) < 2**-20:
                continue
            k = g.integers(lo - 2, hi + 2, 512) + 0.5
            x = np.rint(k * s) + g.integers(-64, 65, 512)
            x = x[np.abs(x) < 2**31]
            with np.errstate(all="ignore"):
                r64 = np.rint(x / s)
                r32 = np.rint(x.astype(np.float32) / np.float32(s)).astype(np.float64)
            hit = x[r64 != r32]
            if len(hit):
                codes[p] = f64_to_codes(INT32, hit[:1])[0]

    def dq_x(self, c, n):
        g = self.g
        if c.x != INT32:
            return g.integers(0, 2 ** BITS[c.x], n).astype(code_dtype(c.x))
        kind = g.integers(0, 4, n)
        v = np.select(
            [kind == 0, kind == 1, kind == 2],
            [
                g.integers(-300, 300, n),
                g.integers(-(2**31), 2**31, n),
                int32_near_ties(g, n),
            ],
            g.choice([-(2**31), 2**31 - 1, 0, 2**24 + 1, -(2**24) - 1], n),
        )
        return f64_to_codes(INT32, v)

    def hunt_dq_rounding(self, c, codes, s_codes, z_codes, sidx):
        """FLOAT16 / BFLOAT16 output: puts some x where rounding (x - zp) * scale to float32
        first (the reference) and rounding it once differ."""
        g = self.g
        if c.y not in (FLOAT16, BF16) or c.x not in INTS or not len(codes):
            return
        s64 = codes_to_f64(c.s, s_codes)
        z64 = codes_to_f64(c.zp, z_codes) if c.zp else np.zeros(len(s_codes))
        for p in g.choice(len(codes), min(len(codes), 8), replace=False):
            s, z = s64[sidx[p]], z64[sidx[p]]
            if not np.isfinite(s) or s == 0:
                continue
            cand = self.dq_x(c, 2048) if c.x == INT32 else np.arange(2 ** BITS[c.x])
            d = codes_to_f64(c.x, cand) - z
            with np.errstate(all="ignore"):
                exact = d * s  # exact for 16-bit x; near enough for INT32 (inputs only)
                via = exact.astype(np.float32).astype(NP_DTYPE[c.y]).astype(np.float64)
                if c.y == FLOAT16:
                    once = exact.astype(np.float16).astype(np.float64)
                else:
                    m, e = np.frexp(exact)
                    once = np.ldexp(np.rint(np.ldexp(m, 8)), e - 8)
            hit = np.nonzero((via != once) & np.isfinite(via) & np.isfinite(once))[0]
            if len(hit):
                codes[p] = cand[hit[int(g.integers(0, len(hit)))]]


# ----------------------------------------------------------------------------------
# One configuration: tensorcast and the reference on the same inputs
# ----------------------------------------------------------------------------------


def nan_sign_codes(t, codes):
    """-> (is NaN, sign) per code of a FLOAT / FLOAT16 / BFLOAT16 array."""
    eb, mb = FORMATS[t][:2]
    codes = codes.astype(np.uint64)
    exp = (codes >> np.uint64(mb)) & np.uint64((1 << eb) - 1)
    man = codes & np.uint64((1 << mb) - 1)
    return (exp == np.uint64((1 << eb) - 1)) & (man != 0), codes >> np.uint64(eb + mb)


def differing(t, a, b):
    """Indices where the codes differ (FLOAT / FLOAT16 / BFLOAT16: NaNs by their sign)."""
    diff = a.astype(np.uint64) != b.astype(np.uint64)
    if t in (FLOAT, FLOAT16, BF16) and diff.any():
        na, sa = nan_sign_codes(t, a)
        nb, sb = nan_sign_codes(t, b)
        diff &= ~(na & nb & (sa == sb))
    return np.nonzero(diff)[0]


def label(c, lay=None):
    op = "QuantizeLinear" if c.op == "QL" else "DequantizeLinear"
    parts = ["%s-%d (opset %d)" % (op, c.v, c.opset), "x %s" % NAME[c.x], "scale %s" % NAME[c.s]]
    parts.append("zp %s" % NAME[c.zp] if c.zp else "no zp")
    if c.out:
        parts.append("output_dtype %s" % NAME[c.out])
    if c.prec:
        parts.append("precision %s" % NAME[c.prec])
    if c.op == "QL":
        parts.append("saturate %d" % c.sat)
    parts.append("-> %s" % NAME[c.y])
    if lay is not None:
        parts.append(
            "[%s x%s s%s zp%s axis %d block %d]"
            % (
                lay.kind,
                list(lay.x_shape),
                list(lay.s_shape),
                list(lay.z_shape),
                lay.axis,
                lay.block_size,
            )
        )
    return ", ".join(parts)


class Report:
    def __init__(self, examples):
        self.examples = examples
        self.configs = self.elements = self.matches = self.sampled = 0
        self.passed = self.failed = 0
        self.cat_elems = collections.Counter()
        self.cat_configs = collections.Counter()
        self.call_cats = collections.Counter()
        self.failures = []
        self.both_reject = 0
        self.layouts = collections.Counter()
        self.runner_calls = self.runner_elements = 0

    def fail(self, what, lines):
        self.failed += 1
        self.failures.append((what, lines))

    def finish(self, what, local, lines):
        for cat, k in local.items():
            self.cat_elems[cat] += k
            self.cat_configs[cat] += 1
        bad = sum(k for cat, k in local.items() if cat not in DOCUMENTED)
        if bad:
            lines.insert(0, "%d elements unexplained or undocumented" % bad)
        if bad or lines:
            self.fail(what, lines)
        else:
            self.passed += 1


def example(c, i, x, s, z, r, t, note):
    zp = " zp %s" % fmt(c.zp, z) if c.zp else ""
    return "element %d: x %s, scale %s%s: reference %s, tensorcast %s; %s" % (
        i,
        fmt(c.x, x),
        fmt(c.s, s),
        zp,
        r if isinstance(r, str) else fmt(c.y, r),
        fmt(c.y, t),
        note,
    )


def config_inputs(inp, c, kind, big):
    lay = inp.layout(c.v, kind, big)
    n_s = int(np.prod(lay.s_shape))
    special = 0.12 if kind.startswith("tensor") else 0.08
    s_codes = inp.scales(c.s, n_s, special)
    z_codes = inp.zero_points(c.zp, n_s)
    if c.op == "QL":
        x_codes = inp.ql_x(c, s_codes, z_codes, lay.sidx)
    else:
        x_codes = inp.dq_x(c, len(lay.sidx))
        inp.hunt_dq_rounding(c, x_codes, s_codes, z_codes, lay.sidx)
    return lay, x_codes, s_codes, z_codes


def call_tensorcast(shim, c, lay, x_codes, s_codes, z_codes, runner=None, null_empty=False):
    def tensor(t, shape, codes):
        raw = storage(t, codes)
        return Tensor(t, shape, None if null_empty and not len(codes) else raw)

    tx = tensor(c.x, lay.x_shape, x_codes)
    ts = tensor(c.s, lay.s_shape, s_codes)
    tz = tensor(c.zp, lay.z_shape, z_codes) if c.zp else None
    opts = Shim.options(
        c.opset,
        axis=lay.axis,
        block_size=lay.block_size,
        output_dtype=c.out,
        saturate=c.sat,
        precision=c.prec,
        runner=runner,
    )
    rc, msg, raw = shim.call(c.op, tx, ts, tz, c.y, opts)
    if rc != 0:
        return rc, msg, None
    n = len(x_codes)
    if c.y in PACKED:
        return 0, "", unpack(raw, BITS[c.y], n)
    return 0, "", np.frombuffer(raw, code_dtype(c.y)).copy()


def call_reference(c, lay, x_codes, s_codes, z_codes):
    feeds = [
        (c.x, to_np(c.x, x_codes, lay.x_shape)),
        (c.s, to_np(c.s, s_codes, lay.s_shape)),
        (c.zp, to_np(c.zp, z_codes, lay.z_shape)) if c.zp else None,
    ]
    y, err = run_reference(c.op, c.opset, feeds, reference_attrs(c, lay.axis, lay.block_size))
    if err:
        return None, err
    if y.dtype != np.dtype(NP_DTYPE[c.y]) or y.shape != lay.x_shape:
        return None, "reference output %s %s, expected %s %s" % (
            y.dtype,
            y.shape,
            np.dtype(NP_DTYPE[c.y]),
            lay.x_shape,
        )
    return from_np(c.y, y), None


def run_config(shim, inp, report, c, kind, args, big=False, data=None, runner=None):
    """Runs one configuration; returns the per-category counts."""
    lay, x_codes, s_codes, z_codes = data or config_inputs(inp, c, kind, big)
    what = label(c, lay)
    n = len(x_codes)
    report.configs += 1
    report.elements += n
    report.layouts[lay.kind] += 1
    local, lines = collections.Counter(), []
    rc, msg, tc = call_tensorcast(
        shim, c, lay, x_codes, s_codes, z_codes, runner, null_empty=inp.g.random() < 0.5
    )
    if rc != 0:
        report.fail(what, ["tensorcast rejected a valid call: %s: %s" % (STATUS.get(rc, rc), msg)])
        return local
    if runner is not None:
        rc1, msg1, tc1 = call_tensorcast(shim, c, lay, x_codes, s_codes, z_codes)
        if rc1 != 0 or not np.array_equal(tc1, tc):
            lines.append("with a thread-pool runner the result differs from one thread's")
    ref, err = call_reference(c, lay, x_codes, s_codes, z_codes)
    sz = z_codes if c.zp else None

    def args_of(i):
        j = lay.sidx[i]
        return int(x_codes[i]), int(s_codes[j]), int(sz[j]) if sz is not None else 0

    if err is not None and n == 0:
        local[CAT_REF_EMPTY] += 1  # nothing to compare
        report.finish(what, local, lines)
        return local
    if err is not None:
        # The reference raises: every element must be the oracle's.
        local[CAT_REF_RAISES] += n
        ev = ql_eval if c.op == "QL" else dq_eval
        lines.append("the reference raised: %s" % err)
        for i in range(n):
            xc, sc, zc = args_of(i)
            want = ev(c, xc, sc, zc, NO_QUIRKS)
            if not same(c.y, int(tc[i]), want):
                local[UNEXPLAINED] += 1
                if len(lines) < args.examples + 1:
                    lines.append(
                        example(
                            c, i, xc, sc, zc, "raised", int(tc[i]), "oracle %s" % fmt(c.y, want)
                        )
                    )
        report.finish(what, local, lines)
        return local
    mism = differing(c.y, ref, tc)
    report.matches += n - len(mism)
    shown = 0
    for i in mism:
        xc, sc, zc = args_of(i)
        cat, note = classify(c, xc, sc, zc, int(ref[i]), int(tc[i]))
        local[cat] += 1
        if cat not in DOCUMENTED and shown < args.examples:
            shown += 1
            lines.append(
                "[%s] %s" % (cat, example(c, i, xc, sc, zc, int(ref[i]), int(tc[i]), note))
            )
    # A sample of the matching elements: the oracle must give tensorcast's result and the
    # model the reference's (else the oracle or the model is wrong).
    # The sample: a share of the matching elements, and one element of each of up to 12
    # scales (of every scale, three times, where INT32 meets a BFLOAT16 precision).
    matched = np.setdiff1d(np.arange(n), mism)
    k = min(len(matched), max(1, int(len(matched) * args.sample)))
    pick = [inp.g.permutation(matched)[:k]]
    bf16_int32 = c.op == "QL" and c.P == BF16 and INT32 in (c.x, c.s)
    for _ in range(3 if bf16_int32 else 1):
        order = inp.g.permutation(matched)
        first = order[np.unique(lay.sidx[order], return_index=True)[1]] if k else order
        pick.append(first if bf16_int32 else inp.g.permutation(first)[:12])
    for i in np.unique(np.concatenate(pick)).astype(np.int64):
        xc, sc, zc = args_of(i)
        report.sampled += 1
        cat, note = check_match(c, xc, sc, zc, int(ref[i]), int(tc[i]))
        if cat is not None:
            local[cat] += 1
            if shown < args.examples and cat not in DOCUMENTED:
                shown += 1
                lines.append(example(c, i, xc, sc, zc, int(ref[i]), int(tc[i]), note))
    report.finish(what, local, lines)
    if args.verbose:
        print("%s: %d elements, %s" % (what, n, dict(local)))
    return local


# ----------------------------------------------------------------------------------
# Calls that tensorcast must reject
# ----------------------------------------------------------------------------------


def codes_of(t, values):
    """Codes of simple values in type t (exact for the values used here)."""
    values = list(values)
    if t in INT_RANGE or t == INT64:
        return np.array([int(v) & ((1 << BITS[t]) - 1) for v in values], code_dtype(t))
    if t == E8M0:
        return np.array([127 + floor_log2(Fraction(v)) for v in values], np.uint8)
    if t in (FLOAT, DOUBLE, FLOAT16, BF16):
        return f64_to_codes(t, values)
    return np.array([encode(t, num(Fraction(v))) for v in values], code_dtype(t))


class Case:
    """A call tensorcast must reject with status `expect` and a message naming `arg`.
    `cat`: the category counted when onnx.reference computes a result for the same node.
    Extras: xs, ss, zs (the shapes of x, the scale, the zero point; zs defaults to ss),
    s_vals, z_vals, z_codes, y (the y_type passed), ref (False: no reference counterpart),
    msg (a text the message must hold) and tc (changes to tensorcast's call only:
    "x.raw", "s.t", ... fields of a Tensor, "x" / "s" for the tensor itself, y_null, y_at,
    struct_size)."""

    def __init__(self, name, op, opset, x, s, zp, attrs, expect, arg, cat, extra=None):
        e = extra or {}
        self.name, self.op, self.opset, self.x, self.s, self.zp = name, op, opset, x, s, zp
        self.attrs, self.expect, self.arg, self.cat = attrs, expect, arg, cat
        self.ref, self.tc, self.msg_has = e.get("ref", True), e.get("tc", {}), e.get("msg")
        self.x_shape, self.s_shape = e.get("xs", (2, 6)), e.get("ss", ())
        self.z_shape = e.get("zs", self.s_shape)
        n, ns, nz = (int(np.prod(sh)) for sh in (self.x_shape, self.s_shape, self.z_shape))
        if op == "QL" or x in (FLOAT, DOUBLE, FLOAT16, BF16):
            self.x_codes = codes_of(x, [(i % 9) - 4 for i in range(n)])
        else:
            lo = INT_RANGE[x][0] if x in INT_RANGE else 0
            self.x_codes = codes_of(x, [lo + (i % 3) for i in range(n)])
        self.s_codes = codes_of(s, e.get("s_vals", [2] * ns))
        self.z_codes = None
        if zp:
            self.z_codes = e.get("z_codes", codes_of(zp, e.get("z_vals", [0] * nz)))
        self.y = e.get("y")


def rejection_cases():
    """The calls tensorcast must reject, each as (name, op, opset, x, scale, zero point,
    attributes, status, the argument the message names, category, extras)."""
    # fmt: off
    QL, DQ, BAD, UNS = "QL", "DQ", INVALID, UNSUPPORTED
    T, A, P, F = CAT_REJ_TYPE, CAT_REJ_ATTR, CAT_REJ_PREC, CAT_REJ_FZP
    Z, S = CAT_REJ_ZPTYPE, CAT_REJ_SHAPE
    F32, F16, U8, I8 = FLOAT, FLOAT16, UINT8, INT8
    blk = {"xs": (2, 5), "ss": (2, 2)}
    rows = [
        # opsets outside 10..28
        ("QL opset 9", QL, 9, F32, F32, 0, {}, UNS, "opset", A, {"y": U8}),
        ("QL opset 29", QL, 29, F32, F32, 0, {}, UNS, "opset", A, {"y": U8}),
        ("DQ opset 9", DQ, 9, U8, F32, 0, {}, UNS, "opset", A, {"y": F32}),
        ("DQ opset 29", DQ, 29, U8, F32, 0, {}, UNS, "opset", A, {"y": F32}),
        # attributes a version lacks, block_size < 0
        ("QL-10 axis", QL, 10, F32, F32, U8, {"axis": 0}, BAD, "axis", A),
        ("QL-11 axis", QL, 11, F32, F32, U8, {"axis": -1}, BAD, "axis", A),
        ("DQ-12 axis", DQ, 12, U8, F32, U8, {"axis": 0}, BAD, "axis", A, {"y": F32}),
        ("QL-13 block_size", QL, 13, F32, F32, U8, {"block_size": 3}, BAD, "block_size", A, blk),
        ("QL-20 block_size", QL, 20, F32, F32, U8, {"block_size": 3}, BAD, "block_size", A, blk),
        ("DQ-13 block_size", DQ, 13, U8, F32, 0, {"block_size": 3}, BAD, "block_size", A, blk),
        ("DQ-19 block_size", DQ, 19, U8, F32, U8, {"block_size": 3}, BAD, "block_size", A, blk),
        ("QL-19 output_dtype", QL, 19, F32, F32, 0, {"output_dtype": I8}, BAD, "output_dtype", A),
        ("QL-20 output_dtype", QL, 20, F32, F32, 0, {"output_dtype": U8}, BAD, "output_dtype", A),
        ("DQ-22 output_dtype", DQ, 22, U8, F32, 0, {"output_dtype": F32}, BAD, "output_dtype", A),
        ("QL-13 saturate", QL, 13, F32, F32, I8, {"saturate": 0}, BAD, "saturate", A),
        ("QL-18 saturate", QL, 18, F32, F32, 0, {"saturate": 0}, BAD, "saturate", A),
        ("QL-22 precision", QL, 22, F32, F32, I8, {"precision": F32}, BAD, "precision", A),
        ("DQ-28 saturate", DQ, 28, I8, F32, 0, {"saturate": 0}, BAD, "saturate", A),
        ("DQ-28 precision", DQ, 28, I8, F32, 0, {"precision": F32}, BAD, "precision", A),
        ("QL-21 block_size -2, scalar scale", QL, 21, F32, F32, I8, {"block_size": -2}, BAD,
         "block_size", A),
        ("QL-28 block_size -3, blocked scale", QL, 28, F32, F32, I8, {"block_size": -3}, BAD,
         "block_size", A, blk),
        ("DQ-25 block_size -1", DQ, 25, I8, F32, 0, {"block_size": -1}, BAD, "block_size", A),
        ("QL-28 precision 99", QL, 28, F32, F32, I8, {"precision": 99}, BAD, "precision", P),
        # output_dtype against the zero point
        ("QL-21 output_dtype INT8, zp UINT8", QL, 21, F32, F32, U8, {"output_dtype": I8}, BAD,
         "output_dtype", T),
        ("QL-28 output_dtype 99", QL, 28, F32, F32, 0, {"output_dtype": 99}, BAD, "output_dtype",
         T, {"ref": False, "y": U8}),
        # FLOAT8E8M0 scale without output_dtype (D17)
        ("DQ-24 E8M0 scale, no output_dtype", DQ, 24, I8, E8M0, 0, {}, BAD, "x_scale",
         CAT_REJ_E8M0),
        ("DQ-28 E8M0 scale, no output_dtype", DQ, 28, INT4, E8M0, INT4, {}, BAD, "x_scale",
         CAT_REJ_E8M0, {"y": F16}),
        # shapes: QuantizeLinear-10 takes a scalar scale
        ("QL-10 1-D scale", QL, 10, F32, F32, U8, {}, BAD, "y_scale", S, {"ss": (6,)}),
        ("QL-12 1-D scale", QL, 12, INT32, F32, I8, {}, BAD, "y_scale", S, {"ss": (6,)}),
        ("DQ-10 1-D scale", DQ, 10, U8, F32, U8, {}, BAD, "x_scale", S, {"ss": (6,)}),
    ]
    # precision: FLOAT, FLOAT16 or BFLOAT16 only (the reference casts to anything, D7)
    for p in (INT32, I8, U8, DOUBLE, E4M3FN, E8M0, INT4):
        rows.append(("QL-23 precision %s" % NAME[p], QL, 23, F32, F32, I8, {"precision": p}, BAD,
                     "precision", P))
    # types outside the version (UNSUPPORTED; the reference never checks types)
    for opset, x, s in ((13, F16, F32), (10, BF16, F32), (28, DOUBLE, F32), (28, I8, F32),
                        (28, U8, F32), (21, INT64, INT64)):
        rows.append(("QL-%d x %s" % (opset, NAME[x]), QL, opset, x, s, U8, {}, UNS, "x", T))
    for opset, x, s in ((13, F32, F16), (19, F32, F16), (21, F32, BF16), (21, F16, F32),
                        (21, INT32, F32), (23, F32, E8M0), (28, F32, DOUBLE), (28, F32, I8),
                        (28, F32, U8), (13, INT32, INT32)):
        rows.append(("QL-%d x %s scale %s" % (opset, NAME[x], NAME[s]), QL, opset, x, s, U8,
                     {}, UNS, "y_scale", T))
    for opset, zp in ((13, E4M3FN), (19, INT16), (20, UINT4), (21, FLOAT4), (23, INT2),
                      (24, UINT2), (25, F6E2M3), (27, F6E3M2), (28, INT32), (28, F32),
                      (28, E8M0), (28, F16)):
        rows.append(("QL-%d zp %s" % (opset, NAME[zp]), QL, opset, F32, F32, zp, {}, UNS,
                     "y_zero_point", T))
    for opset, o in ((21, FLOAT4), (22, INT2), (25, F6E3M2), (28, INT32), (28, F32),
                     (28, E8M0), (28, BF16)):
        rows.append(("QL-%d output_dtype %s" % (opset, NAME[o]), QL, opset, F32, F32, 0,
                     {"output_dtype": o}, UNS, "output_dtype", T, {"y": o}))
    for opset, x in ((13, E4M3FN), (18, E5M2), (19, INT16), (20, UINT16), (21, FLOAT4),
                     (22, FLOAT4), (23, INT2), (24, UINT2), (25, F6E2M3), (27, F6E3M2),
                     (28, F32), (28, INT64), (28, F16)):
        rows.append(("DQ-%d x %s" % (opset, NAME[x]), DQ, opset, x, F32, 0, {}, UNS, "x", T))
    for opset, s in ((13, F16), (18, BF16), (19, E8M0), (23, E8M0), (28, INT32),
                     (28, DOUBLE), (21, U8)):
        o = {"output_dtype": F32} if opset >= 23 else {}
        rows.append(("DQ-%d scale %s" % (opset, NAME[s]), DQ, opset, I8, s, 0, o, UNS,
                     "x_scale", T, {"y": F32}))
    for o in (I8, DOUBLE, E4M3FN, E8M0, INT32):
        rows.append(("DQ-23 output_dtype %s" % NAME[o], DQ, 23, I8, F32, 0, {"output_dtype": o},
                     UNS, "output_dtype", T, {"y": o}))
    # the zero point's type must be x's (the reference ignores it for float8 and FLOAT4E2M1)
    for opset, x, zp in ((21, U8, I8), (13, I8, U8), (28, INT32, I8), (23, FLOAT4, I8),
                         (25, FLOAT4, UINT4), (19, E4M3FN, I8), (21, E5M2, E4M3FN),
                         (28, F6E2M3, F6E3M2), (28, INT4, UINT4)):
        rows.append(("DQ-%d x %s zp %s" % (opset, NAME[x], NAME[zp]), DQ, opset, x, F32, zp,
                     {}, BAD, "x_zero_point", Z))
    # shapes outside the schema, for both operators
    for op in (QL, DQ):
        x = F32 if op == QL else U8
        sa, za = ("y_scale", "y_zero_point") if op == QL else ("x_scale", "x_zero_point")
        for name, opset, attrs, arg, ex in (
            ("per-axis scale longer than D (D18)", 21, {"axis": 1}, sa, {"xs": (2, 1),
                                                                         "ss": (3,)}),
            ("per-axis scale of another length", 28, {"axis": 1}, sa, {"ss": (5,)}),
            ("rank-1 x, axis 1 (D19)", 21, {}, "axis", {"xs": (6,), "ss": (6,)}),
            ("axis 2 of rank 2", 23, {"axis": 2}, "axis", {"ss": (6,)}),
            ("axis -3 of rank 2", 23, {"axis": -3}, "axis", {"ss": (2,)}),
            ("scale (1,1), block_size 0 (D20)", 21, {}, sa, {"ss": (1, 1)}),
            ("scale (1,1) at 19", 19, {}, sa, {"ss": (1, 1)}),
            ("scale (2,6), block_size 0", 25, {}, sa, {"ss": (2, 6)}),
            ("block_size 5 above the range (D21)", 21, {"axis": 1, "block_size": 5},
             "block_size", blk),
            ("block_size 6 above the range (D21)", 22, {"axis": 1, "block_size": 6},
             "block_size", blk),
            ("block_size 100 above the range", 28, {"axis": -1, "block_size": 100},
             "block_size", blk),
            ("block_size 1 below the range", 21, {"axis": 1, "block_size": 1}, "block_size",
             blk),
            ("block_size 2 below the range", 24, {"axis": 1, "block_size": 2}, "block_size",
             blk),
            ("blocked scale (2,0)", 28, {"axis": 1, "block_size": 3}, "block_size",
             {"xs": (2, 5), "ss": (2, 0)}),
            ("blocked scale of other dims (D22)", 21, {"axis": 1, "block_size": 3}, sa,
             {"xs": (2, 5), "ss": (1, 2)}),
            ("blocked scale of rank 1", 21, {"axis": 1, "block_size": 3}, sa,
             {"xs": (2, 5), "ss": (2,)}),
            ("blocked, axis 2", 24, {"axis": 2, "block_size": 3}, "axis", blk),
            ("per-axis scale, scalar zp (D23)", 21, {"axis": 1}, za, {"ss": (6,), "zs": ()}),
            ("per-axis scale, zp (3,)", 21, {"axis": 1}, za, {"ss": (6,), "zs": (3,)}),
            ("blocked scale, zp (2,1)", 21, {"axis": 1, "block_size": 3}, za,
             {"xs": (2, 5), "ss": (2, 2), "zs": (2, 1)}),
            ("scalar scale, zp (1,1)", 23, {}, za, {"zs": (1, 1)}),
            ("scalar scale, zp (2,)", 23, {}, za, {"zs": (2,)}),
        ):
            rows.append(("%s-%d %s" % (op, opset, name), op, opset, x, F32, U8, attrs, BAD, arg,
                         S, dict(ex, y=U8 if op == QL else F32)))
    # float zero points must be zero
    for opset, zp, val in ((19, E4M3FN, 1.0), (21, E5M2, -0.5), (23, E4M3FNUZ, 2.0),
                           (23, FLOAT4, 1.0), (25, FLOAT4, -6.0), (28, F6E2M3, 0.125),
                           (28, F6E3M2, -28.0)):
        rows.append(("QL-%d zp %s %g" % (opset, NAME[zp], val), QL, opset, F32, F32, zp, {}, BAD,
                     "y_zero_point", F, {"z_vals": [val]}))
    for zp in (E4M3FNUZ, E5M2FNUZ):
        rows.append(("QL-21 zp %s NaN 0x80" % NAME[zp], QL, 21, F32, F32, zp, {}, BAD,
                     "y_zero_point", F, {"z_codes": np.array([0x80], np.uint8)}))
    for opset, x, val in ((19, E4M3FN, 0.5), (21, E4M3FN, 1.0), (21, E5M2, -0.5),
                          (23, FLOAT4, 1.0), (28, F6E3M2, 0.25), (28, F6E2M3, -7.5)):
        rows.append(("DQ-%d zp %s %g" % (opset, NAME[x], val), DQ, opset, x, F32, x, {}, BAD,
                     "x_zero_point", F, {"z_vals": [val]}))
    rows.append(("DQ-21 zp FLOAT8E4M3FN NaN", DQ, 21, E4M3FN, F32, E4M3FN, {}, BAD,
                 "x_zero_point", F, {"z_codes": np.array([0x7F], np.uint8)}))
    rows.append(("DQ-28 per-axis zp FLOAT4E2M1, element 2 nonzero", DQ, 28, FLOAT4, F32,
                 FLOAT4, {"axis": 1}, BAD, "x_zero_point", F,
                 {"ss": (6,), "z_codes": np.array([0, 8, 1, 0, 0, 0], np.uint8),
                  "msg": "element 2"}))
    # the y_type argument, unknown codes, buffers: tensorcast only
    for name, op, x, zp, y in (("QL y_type INT8 for UINT8", QL, F32, U8, I8),
                               ("QL y_type 99", QL, F32, 0, 99),
                               ("DQ y_type FLOAT16 for FLOAT", DQ, I8, 0, F16)):
        rows.append((name, op, 28, x, F32, zp, {}, BAD, "y", None, {"y": y, "ref": False}))
    rows.append(("DQ-13 y_type FLOAT16", DQ, 13, I8, F32, 0, {}, BAD, "y", None,
                 {"y": F16, "ref": False}))
    for op in (QL, DQ):
        x, zp, y = (F32, U8, U8) if op == QL else (I8, I8, F32)
        sa, za = ("y_scale", "y_zero_point") if op == QL else ("x_scale", "x_zero_point")
        for name, status, arg, tc, ex in (
            ("x type 99", BAD, "x", {"x.t": 99}, {}),
            ("scale type 0", BAD, sa, {"s.t": 0}, {}),
            ("zp type 99", BAD, za, {"z.t": 99}, {}),
            ("x data NULL", BAD, "x", {"x.raw": None}, {}),
            ("scale data NULL", BAD, sa, {"s.raw": None}, {}),
            ("zp data NULL", BAD, za, {"z.raw": None}, {}),
            ("y NULL", BAD, "y", {"y_null": True}, {}),
            ("x shape NULL", BAD, "x", {"x.shape_null": True}, {}),
            ("x dimension -1", BAD, "x", {"x.shape": (2, -1)}, {}),
            ("scale dimension -2", BAD, sa, {"s.shape": (-2,)}, {"ss": (6,)}),
            ("x tensor NULL", BAD, "x", {"x": None}, {}),
            ("scale tensor NULL", BAD, "scale", {"s": None}, {}),
            ("y overlaps x", BAD, "x", {"y_at": ("x", 0)}, {}),
            ("y overlaps the scale", BAD, sa, {"y_at": ("s", 0)}, {}),
            ("y overlaps the zero point", BAD, za, {"y_at": ("z", 0)}, {}),
            ("y overlaps the end of x", BAD, "x", {"y_at": ("x", 11 * BITS[x] // 8)}, {}),
            # 2^62 elements: x's storage (FLOAT) or y's (FLOAT from INT8) exceeds size_t
            ("x of 2^62 elements", OVERFLOW, "x" if op == QL else "y",
             {"x.shape": (2**31, 2**31)}, {}),
            ("x of 2^64 elements", OVERFLOW, "x", {"x.shape": (2**32, 2**32)}, {}),
            ("options struct_size too large", BAD, "options",
             {"struct_size": ctypes.sizeof(TcQuantizeOptions) + 8}, {}),
        ):
            rows.append(("%s %s" % (op, name), op, 28, x, F32, zp, {}, status, arg, None,
                         dict(ex, tc=tc, y=y, ref=False)))
    # fmt: on
    return [Case(*r) for r in rows]


def names_argument(msg, arg):
    return re.search(r"(?<![A-Za-z_])%s(?![A-Za-z_])" % re.escape(arg), msg) is not None


def run_case(shim, report, case, verbose=False):
    what = "reject: %s" % case.name
    xt = Tensor(case.x, case.x_shape, storage(case.x, case.x_codes))
    st = Tensor(case.s, case.s_shape, storage(case.s, case.s_codes))
    zt = Tensor(case.zp, case.z_shape, storage(case.zp, case.z_codes)) if case.zp else None
    tensors = {"x": xt, "s": st, "z": zt}
    kw = {}
    for key, val in case.tc.items():
        if "." in key:
            name, field = key.split(".")
            setattr(tensors[name], field, val)
        elif key in tensors:
            tensors[key] = val
        else:
            kw[key] = val
    a = dict(case.attrs)
    if "struct_size" in kw:
        a["struct_size"] = kw.pop("struct_size")
    opts = Shim.options(case.opset, **a)
    a.pop("struct_size", None)
    y = case.y
    if y is None:
        y = (case.zp or case.attrs.get("output_dtype") or UINT8) if case.op == "QL" else FLOAT
    # x's real size for the y buffer (the changed shapes may be huge or negative)
    y_bytes = storage_bytes(y, len(case.x_codes)) if y in BITS else 16
    if kw.get("y_null"):
        rc, msg, _ = shim_call_null_y(shim, case.op, tensors, y, opts)
    else:
        rc, msg, _ = shim.call(
            case.op,
            tensors["x"],
            tensors["s"],
            tensors["z"],
            y,
            opts,
            y_bytes=y_bytes,
            y_at=kw.get("y_at"),
        )
    lines = []
    if rc != case.expect:
        lines.append("status %s (%s), expected %s" % (STATUS.get(rc, rc), msg, STATUS[case.expect]))
    elif not names_argument(msg, case.arg):
        lines.append("message %r does not name %s" % (msg, case.arg))
    elif case.msg_has and case.msg_has not in msg:
        lines.append("message %r does not say %r" % (msg, case.msg_has))
    if verbose and not case.ref:
        print("%s: %s (%s)" % (what, STATUS.get(rc, rc), msg))
    if case.ref:
        feeds = [
            (case.x, to_np(case.x, case.x_codes, case.x_shape)),
            (case.s, to_np(case.s, case.s_codes, case.s_shape)),
        ]
        if case.zp:
            feeds.append((case.zp, to_np(case.zp, case.z_codes, case.z_shape)))
        ref, err = run_reference(case.op, case.opset, feeds, a)
        if verbose:
            print(
                "%s: %s (%s); reference: %s"
                % (what, STATUS.get(rc, rc), msg, err or "computes [%s]" % case.cat)
            )
        if err is None:
            if case.cat is None:
                lines.append("the reference computes a result, and no category says why")
            else:
                report.call_cats[case.cat] += 1
        else:
            report.both_reject += 1
    if lines:
        report.fail(what, lines)
    else:
        report.passed += 1


def shim_call_null_y(shim, op, tensors, y, opts):
    """The call with a NULL y (the Shim always passes a buffer)."""
    keep = []

    def ptr(t):
        if t is None:
            return None
        shape = np.array(t.shape, np.int64)
        data = ctypes.create_string_buffer(t.raw, max(1, len(t.raw)))
        tt = TcTensor(
            ctypes.addressof(data), t.t, shape.ctypes.data if len(shape) else None, len(shape)
        )
        keep.extend([shape, data, tt])
        return ctypes.addressof(tt)

    err, buf = Shim._error()
    fn = shim.lib.tc_quantize_linear if op == "QL" else shim.lib.tc_dequantize_linear
    rc = fn(
        ptr(tensors["x"]),
        ptr(tensors["s"]),
        ptr(tensors["z"]),
        None,
        y,
        ctypes.addressof(opts),
        ctypes.addressof(err),
    )
    problem = Shim._error_problem(rc, err, buf)
    if problem:
        return -1, problem, None
    return rc, buf.value.decode(errors="replace"), None


def expected_output_type(op, opset, arg_type, output_dtype):
    """-> (status, y type or None, the argument the error names) by the schema's rules."""
    if opset < 10 or opset > 28:
        return UNSUPPORTED, None, "opset"
    v = version_of(opset)
    known = 0 < output_dtype <= 28 or output_dtype == 0
    if op == "QL":
        if output_dtype and v < 21:
            return INVALID, None, "output_dtype"
        allowed = quantized_types(v)
        if output_dtype and output_dtype not in allowed:
            return (UNSUPPORTED if known else INVALID), None, "output_dtype"
        if arg_type:
            if arg_type not in allowed:
                return (UNSUPPORTED if 0 < arg_type <= 28 else INVALID), None, "y_zero_point"
            if output_dtype and output_dtype != arg_type:
                return INVALID, None, "output_dtype"
            return OK, arg_type, ""
        return OK, output_dtype or UINT8, ""
    if output_dtype and v < 23:
        return INVALID, None, "output_dtype"
    if arg_type not in dq_scale_types(v):
        return (UNSUPPORTED if 0 < arg_type <= 28 else INVALID), None, "x_scale"
    if output_dtype and output_dtype not in (FLOAT, FLOAT16, BF16):
        return (UNSUPPORTED if known else INVALID), None, "output_dtype"
    y = dq_output_type(v, arg_type, output_dtype)
    return (OK, y, "") if y else (INVALID, None, "x_scale")


def check_output_types(shim, report):
    """tc_quantize_linear_output_type / tc_dequantize_linear_output_type versus the rules,
    for every opset 9..29 and type code."""
    codes = [0] + list(range(1, 29)) + [99]
    checked = 0
    for op in ("QL", "DQ"):
        for opset in range(9, 30):
            combos = [(t, 0) for t in codes if op == "QL" or t]
            combos += [(0 if op == "QL" else FLOAT, o) for o in codes if o]
            combos += [(t, t) for t in (UINT8, INT4, FLOAT4, F6E2M3)] if op == "QL" else []
            combos += [(UINT8, INT8)] if op == "QL" else [(E8M0, FLOAT16), (BF16, FLOAT)]
            for t, o in combos:
                want = expected_output_type(op, opset, t, o)
                rc, msg, y = shim.output_type(op, Shim.options(opset, output_dtype=o), t)
                checked += 1
                ok = rc == want[0] and (rc != OK or y == want[1])
                if ok and rc != OK and not names_argument(msg, want[2]):
                    ok = False
                if not ok:
                    report.fail(
                        "%s output type, opset %d, type %d, output_dtype %d" % (op, opset, t, o),
                        [
                            "status %s (%s), y %s; expected %s, y %s, naming %s"
                            % (STATUS.get(rc, rc), msg, y, STATUS[want[0]], want[1], want[2])
                        ],
                    )
    return checked


# ----------------------------------------------------------------------------------
# Self-check of the oracle's parts where the reference is trusted, and the driver
# ----------------------------------------------------------------------------------


def self_check(g):
    """The decoders, encoders and packers of this file against onnx / ml_dtypes / numpy,
    where those implement the same rule; a disagreement stops the run (the test, not
    the library, would be wrong)."""
    problems = []
    for t in list(FORMATS) + [E8M0]:
        if t == DOUBLE:
            continue
        codes = np.arange(1 << BITS[t]) if BITS[t] <= 16 else g.integers(0, 2**32, 5000)
        theirs = codes_to_f64(t, codes.astype(code_dtype(t)))
        for c, th in zip(codes.tolist(), theirs.tolist()):
            v = decode(t, c)
            if v[0] == "nan":
                ok = math.isnan(th) and (
                    t in (E8M0, E4M3FNUZ, E5M2FNUZ) or math.copysign(1, th) == (-1 if v[1] else 1)
                )
            elif v[0] == "inf":
                ok = th == (-math.inf if v[1] else math.inf)
            else:
                ok = float(signed(v)) == th and math.copysign(1, th) == (-1 if v[1] else 1)
            if not ok:
                problems.append("decode %s %#x: %s, ml_dtypes %r" % (NAME[t], c, value_str(v), th))
    # float32 -> every float type by ml_dtypes / numpy: one rounding, the same rules
    x = g.integers(0, 2**32, 6000, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([x, np.exp2(g.uniform(-140, 20, 6000)).astype(np.float32).view(np.uint32)])
    x = x[np.isfinite(x.view(np.float32))]
    for t in (FLOAT16, BF16, E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, FLOAT4, F6E2M3, F6E3M2):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = from_np(t, x.view(np.float32).astype(NP_DTYPE[t]))
        for c, th in zip(x[:1500].tolist(), theirs[:1500].tolist()):
            sat = t not in FLOAT8  # astype of ml_dtypes float8: overflow as saturate=0
            mine = encode(t, decode(FLOAT, c), sat)
            if mine != th:
                problems.append(
                    "encode FLOAT %#x -> %s: %#x, ml_dtypes %#x" % (c, NAME[t], mine, th)
                )
    d = g.integers(0, 2**64, 3000, dtype=np.uint64)
    d = d[np.isfinite(d.view(np.float64))]
    for t in (FLOAT, FLOAT16):
        with np.errstate(all="ignore"):
            theirs = from_np(t, d.view(np.float64).astype(NP_DTYPE[t]))
        for c, th in zip(d.tolist(), theirs.tolist()):
            if encode(t, decode(DOUBLE, c)) != th:
                problems.append("encode DOUBLE %#x -> %s" % (c, NAME[t]))
    # packing versus onnx.numpy_helper (from_array writes raw_data packed)
    for n in range(0, 13):
        for t in sorted(PACKED):
            codes = g.integers(0, 1 << BITS[t], n).astype(np.uint8)
            raw = onnx.numpy_helper.from_array(to_np(t, codes, (n,))).raw_data
            if raw != pack(codes, BITS[t]).tobytes() or not np.array_equal(
                unpack(raw, BITS[t], n), codes
            ):
                problems.append("pack %s %s: onnx raw_data %s" % (NAME[t], codes, raw.hex()))
    return problems


def parse_opsets(text):
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return [o for o in out if 10 <= o <= 28]


def run_with_runner(shim, inp, report):
    """Calls large enough (>= 1 MiB) to be cut into tasks: with a thread-pool runner the
    result must be one thread's, and a sample of its elements the oracle's."""
    pool = shim.lib.tc_thread_pool_create(2)
    runner = shim.lib.tc_thread_pool_runner(pool)
    try:
        for c, shape, s_shape, axis, block in (
            (ql_config(28, FLOAT, FLOAT, 0, INT4, 0, 1), (3, 100003), (3, 1429), 1, 70),
            (ql_config(25, FLOAT16, FLOAT16, UINT8, 0, 0, 1), (250007,), (), 1, 0),
            (ql_config(23, FLOAT, FLOAT16, 0, E4M3FN, 0, 1), (5, 60013), (5,), 0, 0),
            (dq_config(23, INT8, FLOAT, INT8, FLOAT16), (7, 50001), (7,), 0, 0),
            (dq_config(28, UINT4, BF16, 0, FLOAT), (5, 3, 30011), (5, 3, 5), -1, 6003),
        ):
            kind = "block_last" if block else ("axis" if s_shape else "tensor0")
            sidx = np.zeros(int(np.prod(shape)), np.int64)
            if s_shape:
                sidx = scale_index(shape, axis % len(shape), block)
            lay = Layout(kind, shape, s_shape, s_shape, axis, block, sidx)
            n_s = int(np.prod(s_shape))
            s_codes = inp.scales(c.s, n_s, 0.02)
            z_codes = inp.zero_points(c.zp, n_s)
            if c.op == "QL":
                x_codes = inp.ql_x(c, s_codes, z_codes, sidx)
            else:
                x_codes = inp.dq_x(c, len(sidx))
            what = "thread-pool runner: %s" % label(c, lay)
            rc, msg, multi = call_tensorcast(shim, c, lay, x_codes, s_codes, z_codes, runner)
            rc1, msg1, one = call_tensorcast(shim, c, lay, x_codes, s_codes, z_codes)
            lines = []
            if rc or rc1:
                lines.append("status %s / %s: %s %s" % (rc, rc1, msg, msg1))
            elif not np.array_equal(multi, one):
                k = int(np.count_nonzero(multi != one))
                lines.append("%d of %d elements differ from one thread's result" % (k, len(one)))
            else:
                ev = ql_eval if c.op == "QL" else dq_eval
                for i in inp.g.choice(len(one), 2000, replace=False):
                    j = sidx[i]
                    zc = int(z_codes[j]) if c.zp else 0
                    want = ev(c, int(x_codes[i]), int(s_codes[j]), zc, NO_QUIRKS)
                    if not same(c.y, int(one[i]), want) and len(lines) < 5:
                        lines.append(
                            "element %d: tensorcast %s, oracle %s"
                            % (i, fmt(c.y, int(one[i])), fmt(c.y, want))
                        )
            report.runner_calls += 1
            report.runner_elements += len(one) if one is not None else 0
            if lines:
                report.fail(what, lines)
            else:
                report.passed += 1
    finally:
        shim.lib.tc_thread_pool_destroy(pool)


def print_report(report, t0, checked_types):
    shown = 0
    for what, lines in report.failures:
        if shown >= 40:
            break
        shown += 1
        print("FAIL %s" % what)
        for line in lines[:12]:
            print("    " + line)
    if len(report.failures) > shown:
        print("... and %d more failures" % (len(report.failures) - shown))
    print()
    print(
        "%d configurations, %d elements; %d match the reference bit for bit; layouts %s"
        % (report.configs, report.elements, report.matches, dict(sorted(report.layouts.items())))
    )
    print("%d matching elements sampled against the oracle and the model" % report.sampled)
    print(
        "%d calls of %d elements with a thread-pool runner: one thread's result"
        % (report.runner_calls, report.runner_elements)
    )
    print()
    print("%10s %8s  %s" % ("elements", "configs", "category of the elements that differ"))
    print("%20s[the rule of docs/semantics.md section 12]" % "")
    for cat in ELEMENT_CATEGORIES:
        print(
            "%10d %8d  %s%s\n%20s[%s]"
            % (
                report.cat_elems[cat],
                report.cat_configs[cat],
                cat,
                "  FAILS" if report.cat_elems[cat] and cat not in DOCUMENTED else "",
                "",
                CATEGORY_DOC[cat],
            )
        )
    print()
    print("%10s  %s" % ("calls", "calls that tensorcast rejects or the reference does not run"))
    print("%10d  rejected by both" % report.both_reject)
    for cat in CALL_CATEGORIES:
        k = report.call_cats[cat] + report.cat_configs.get(cat, 0)
        print("%10d  %s%s" % (k, cat, "  FAILS" if k and cat not in DOCUMENTED else ""))
    print("%10d  output-type queries checked" % checked_types)
    print()
    print("run time %.1fs" % (time.time() - t0))
    print("%d passed, %d failed" % (report.passed, report.failed))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=20260822)
    ap.add_argument(
        "--quick", action="store_true", help="a quarter of the combinations, no runner calls"
    )
    ap.add_argument("--opsets", default="10-28", help="e.g. 21,23-25")
    ap.add_argument("--op", choices=["QL", "DQ"], default=None)
    ap.add_argument("--examples", type=int, default=6, help="examples per failure")
    ap.add_argument(
        "--sample",
        type=float,
        default=0.03,
        help="share of the matching elements checked against the oracle",
    )
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    t0 = time.time()
    path = os.environ.get("TENSORCAST_C_LIB")
    if not path or not os.path.exists(path):
        print("TENSORCAST_C_LIB is not set to the libtensorcast_c library (got %r)" % path)
        print("0 passed, 1 failed")
        return 1
    shim = Shim(path)
    print(
        "tensorcast C API %s (target %s); onnx %s, ml_dtypes %s, numpy %s, %s; seed %d"
        % (
            path,
            shim.target(),
            onnx.__version__,
            ml_dtypes.__version__,
            np.__version__,
            platform.machine(),
            args.seed,
        )
    )
    problems = self_check(np.random.default_rng(args.seed + 1))
    if problems:
        print(
            "ORACLE SELF-CHECK FAILED (this file's decoders / encoders / packers disagree "
            "with onnx, ml_dtypes or numpy where they implement the same rule):"
        )
        for p in problems[:20]:
            print("  " + p)
        print("0 passed, 1 failed")
        return 1
    print("self-check passed (%.1fs)" % (time.time() - t0))

    rng = random.Random(args.seed)
    inp = Inputs(args.seed)
    report = Report(args.examples)
    for opset in parse_opsets(args.opsets):
        v = version_of(opset)
        share = (1.0 if opset == v else 0.12) * (0.25 if args.quick else 1.0)
        for op in ("QL", "DQ"):
            if args.op and op != args.op:
                continue
            cfgs = ql_configs(opset, rng) if op == "QL" else dq_configs(opset)
            picked = [c for c in cfgs if rng.random() < share] or [rng.choice(cfgs)]
            kinds = layout_kinds(v)
            start = rng.randrange(len(kinds))
            for i, c in enumerate(picked):
                kind = kinds[(start + i) % len(kinds)]
                run_config(shim, inp, report, c, kind, args, big=rng.random() < 0.01)
    if not args.quick:
        run_with_runner(shim, inp, report)
    for case in rejection_cases():
        run_case(shim, report, case, args.verbose)
    checked = check_output_types(shim, report)
    print_report(report, t0, checked)
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
