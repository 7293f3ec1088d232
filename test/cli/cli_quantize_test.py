#!/usr/bin/env python3
"""`tensorcast quantize` and `tensorcast dequantize` (ONNX QuantizeLinear /
DequantizeLinear, opsets 10-28) on .npy and .pb files.

Rules tested (docs/cli.md, "quantize and dequantize"; docs/semantics.md section 12):
- QuantizeLinear: a = x and b = scale rounded to the precision P (the scale's type, or
  --precision; DOUBLE for an INT32 scale), q = a / b correctly rounded in P; integer
  outputs round q half to even, saturate to [lo - zp, hi - zp] and add zp (NaN -> zp);
  float outputs are Cast(q + zp) (the zero point +-0; float8 with or without saturation,
  FLOAT4E2M1 and FLOAT6 always saturating); 0 / 0 and Inf / Inf give the positive NaN.
- DequantizeLinear: (x - zp) * scale exact, rounded once to y's type; Inf * 0 is the
  positive NaN.
- Granularity from the scale's shape: per tensor, per axis (1-D), blocked (--block-size).
- A number --scale is FLOAT, or x's type at opsets 19-22; a number --zero-point has
  --output-dtype's type (else UINT8) for quantize, x's type for dequantize.
- Packed outputs (INT4, UINT4, INT2, UINT2, FLOAT4E2M1, FLOAT6*) in .pb raw_data; .npy
  refuses the types numpy lacks with cast's message; errors exit 1 (files, the node) or 2
  (the command line) with one message line, and leave no output and no temporary file.

Expected values are computed here from those rules with exact rational arithmetic
(fractions), never taken from tensorcast's output. When the differential test's virtual
environment (VENV_PYTHON) has numpy, ml_dtypes and onnx, the formulas are also checked
against numpy (astype, rint), ml_dtypes, and onnx.reference where the rules agree.

Usage: cli_quantize_test.py TENSORCAST WORKDIR [VENV_PYTHON].
"""

import math
import os
import random
import struct
import subprocess
import sys
from fractions import Fraction

from cli_files import (
    Skipped,
    check,
    npy_bytes,
    parse_tensor_proto,
    read_npy,
    run_tests,
    tensor_proto,
)

CLI = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
VENV_PYTHON = sys.argv[3] if len(sys.argv) > 3 else None
REEXEC_MARK = "TENSORCAST_QUANTIZE_TEST_REEXEC"
MARKERS = (".tensorcast-tmp-", ".tensorcast-old-")


def reexec_in_venv():
    """Runs this script under VENV_PYTHON when that Python has numpy, ml_dtypes and onnx."""
    if not VENV_PYTHON or os.environ.get(REEXEC_MARK) or not os.path.exists(VENV_PYTHON):
        return
    probe = subprocess.run(
        [VENV_PYTHON, "-c", "import onnx.reference, ml_dtypes, numpy"], capture_output=True
    )
    if probe.returncode != 0:
        return
    env = dict(os.environ)
    env[REEXEC_MARK] = "1"
    sys.stdout.flush()
    os.execve(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]], env)


reexec_in_venv()

try:
    import ml_dtypes
    import numpy as np
    import onnx
    from onnx import helper
    from onnx.reference import ReferenceEvaluator

    HAVE_NUMPY = True
except ImportError:
    HAVE_NUMPY = False

# ---- types ------------------------------------------------------------------------------

CODE = {
    "FLOAT": 1,
    "UINT8": 2,
    "INT8": 3,
    "UINT16": 4,
    "INT16": 5,
    "INT32": 6,
    "FLOAT16": 10,
    "DOUBLE": 11,
    "BFLOAT16": 16,
    "FLOAT8E4M3FN": 17,
    "FLOAT8E4M3FNUZ": 18,
    "FLOAT8E5M2": 19,
    "FLOAT8E5M2FNUZ": 20,
    "UINT4": 21,
    "INT4": 22,
    "FLOAT4E2M1": 23,
    "FLOAT8E8M0": 24,
    "UINT2": 25,
    "INT2": 26,
    "FLOAT6E2M3": 27,
    "FLOAT6E3M2": 28,
}
# Integer types: (bits, signed).
INTS = {
    "UINT8": (8, False),
    "INT8": (8, True),
    "UINT16": (16, False),
    "INT16": (16, True),
    "INT32": (32, True),
    "UINT4": (4, False),
    "INT4": (4, True),
    "UINT2": (2, False),
    "INT2": (2, True),
}
# IEEE types: (significand bits p, smallest normal exponent, largest exponent).
IEEE = {
    "FLOAT": (24, -126, 127),
    "FLOAT16": (11, -14, 15),
    "BFLOAT16": (8, -126, 127),
    "DOUBLE": (53, -1022, 1023),
}
# Small float types: (exponent bits, mantissa bits, bias, largest finite value).
SMALL = {
    "FLOAT8E4M3FN": (4, 3, 7, 448.0),
    "FLOAT8E4M3FNUZ": (4, 3, 8, 240.0),
    "FLOAT8E5M2": (5, 2, 15, 57344.0),
    "FLOAT8E5M2FNUZ": (5, 2, 16, 57344.0),
    "FLOAT4E2M1": (2, 1, 1, 6.0),
    "FLOAT6E2M3": (2, 3, 1, 7.5),
    "FLOAT6E3M2": (3, 2, 3, 28.0),
}
NPY_DESCR = {
    "FLOAT": ("<f4", "f"),
    "FLOAT16": ("<f2", "e"),
    "DOUBLE": ("<f8", "d"),
    "UINT8": ("|u1", "B"),
    "INT8": ("|i1", "b"),
    "UINT16": ("<u2", "H"),
    "INT16": ("<i2", "h"),
    "INT32": ("<i4", "i"),
}


def bits_of(t):
    if t in INTS:
        return INTS[t][0]
    if t in SMALL:
        e, m, _, _ = SMALL[t]
        return 1 + e + m
    return {"FLOAT": 32, "FLOAT16": 16, "BFLOAT16": 16, "DOUBLE": 64, "FLOAT8E8M0": 8}[t]


def int_range(t):
    bits, signed = INTS[t]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


# ---- exact rounding -------------------------------------------------------------------


def sign_bit(v):
    return math.copysign(1.0, v) < 0


def round_binary(v, p, emin, emax=None):
    """The real v (float or Fraction, finite) rounded to nearest even with p significand
    bits, gradual underflow below 2^emin; a rounded magnitude above the largest finite
    value (emax given) is +-Inf. Zero keeps the sign of v when v is a float."""
    f = Fraction(v)
    if f == 0:
        return v if isinstance(v, float) else 0.0
    neg = f < 0
    f = abs(f)
    e = f.numerator.bit_length() - f.denominator.bit_length()
    if Fraction(2) ** e > f:
        e -= 1
    e = max(e, emin)
    ulp = Fraction(2) ** (e - (p - 1))
    n, r = divmod(f, ulp)
    n = int(n)
    if r > ulp / 2 or (r == ulp / 2 and n % 2 == 1):
        n += 1
    res = n * ulp
    if emax is not None and res > (2 - Fraction(2) ** (1 - p)) * Fraction(2) ** emax:
        return -math.inf if neg else math.inf
    out = float(res)
    return -out if neg else out


def round_to(t, v):
    """v rounded once to the IEEE type t (NaN and Inf kept)."""
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return v
    p, emin, emax = IEEE[t]
    return round_binary(v, p, emin, emax)


def f32(v):
    return round_to("FLOAT", v)


def f16(v):
    return round_to("FLOAT16", v)


def decode_small(t, code):
    """The value of a small float code (NaN for the NaN codes, Inf for E5M2's)."""
    ebits, mbits, bias, _ = SMALL[t]
    bits = 1 + ebits + mbits
    sign = code >> (bits - 1) & 1
    mag = code & ((1 << (bits - 1)) - 1)
    fnuz = t.endswith("FNUZ")
    if fnuz and code == 0x80:
        return math.nan
    if t == "FLOAT8E4M3FN" and mag == 0x7F:
        return math.nan
    e = mag >> mbits
    m = mag & ((1 << mbits) - 1)
    if t == "FLOAT8E5M2" and e == 31:
        return math.nan if m else (-math.inf if sign else math.inf)
    if e == 0:
        v = m * 2.0 ** (1 - bias - mbits)
    else:
        v = (1 + m / 2.0**mbits) * 2.0 ** (e - bias)
    return -v if sign else v


def encode_small(t, v, saturate=True):
    """Cast of the real v to a small float type (docs/semantics.md 5.2, 5.4, 5.4a)."""
    ebits, mbits, bias, vmax = SMALL[t]
    bits = 1 + ebits + mbits
    top = 1 << (bits - 1)
    fnuz = t.endswith("FNUZ")
    always = t in ("FLOAT4E2M1", "FLOAT6E2M3", "FLOAT6E3M2")
    sat = saturate or always
    neg = sign_bit(v)
    if math.isnan(v):
        if t == "FLOAT8E4M3FN":
            return 0xFF if neg else 0x7F
        if t == "FLOAT8E5M2":
            return 0xFE if neg else 0x7E
        if fnuz:
            return 0x80
        return 0 if neg else top  # FLOAT4E2M1, FLOAT6: the opposite sign's zero
    table = {}
    for c in range(top):
        d = decode_small(t, c)
        if not math.isnan(d) and not math.isinf(d):
            table[d] = c
    max_code = table[vmax]

    def overflow():
        if sat:
            return max_code | (top if neg else 0)
        if t == "FLOAT8E4M3FN":
            return 0xFF if neg else 0x7F
        if t == "FLOAT8E5M2":
            return 0xFC if neg else 0x7C
        return 0x80  # FNUZ

    if math.isinf(v):
        return overflow()
    r = round_binary(abs(v), mbits + 1, 1 - bias)
    if r > vmax:
        return overflow()
    code = table[r]
    if neg and not (fnuz and code == 0):
        code |= top
    return code


def rne(q):
    """q (a finite float) rounded half to even, as an int."""
    return round(q)


def quotient(a, b, precision):
    """a / b correctly rounded in `precision` (a and b already in it)."""
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if b == 0:
        if a == 0:
            return math.nan
        return -math.inf if sign_bit(a) != sign_bit(b) else math.inf
    if math.isinf(a):
        if math.isinf(b):
            return math.nan
        return -math.inf if sign_bit(a) != sign_bit(b) else math.inf
    if math.isinf(b) or a == 0:
        return -0.0 if sign_bit(a) != sign_bit(b) else 0.0
    return round_to(precision, Fraction(a) / Fraction(b))


def quantize_value(x, scale, zp, y_type, precision, saturate=True):
    """QuantizeLinear of one element: the code (integer or small-float bits) of y."""
    q = quotient(round_to(precision, x), round_to(precision, scale), precision)
    if y_type in INTS:
        z = zp or 0
        if math.isnan(q):
            return z
        lo, hi = int_range(y_type)
        if math.isinf(q):
            return lo if q < 0 else hi
        r = rne(q)
        return lo if r < lo - z else hi if r > hi - z else r + z
    if y_type in ("FLOAT6E2M3", "FLOAT6E3M2", "FLOAT4E2M1"):
        saturate = True
    if zp is not None and not math.isnan(q):
        q = q + float(zp)  # a float zero point is +-0: IEEE addition decides a zero's sign
    return encode_small(y_type, q, saturate)


def dequantize_value(x, scale, zp, y_type):
    """DequantizeLinear of one element: the value of y (NaN for NaN)."""
    if math.isnan(x) or math.isnan(scale):
        return math.nan
    d = x - (zp or 0)
    if (math.isinf(d) and scale == 0) or (math.isinf(scale) and d == 0):
        return math.nan
    neg = sign_bit(float(d)) != sign_bit(scale)
    if math.isinf(d) or math.isinf(scale):
        return -math.inf if neg else math.inf
    if d == 0 or scale == 0:
        return -0.0 if neg else 0.0
    return round_to(y_type, Fraction(d) * Fraction(scale))


# ---- element codes and files -------------------------------------------------------


def to_code(t, v):
    """The bits of value v (already exact in type t) as an unsigned integer."""
    if t in INTS:
        return v & ((1 << INTS[t][0]) - 1)
    if t == "FLOAT":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    if t == "FLOAT16":
        return struct.unpack("<H", struct.pack("<e", v))[0]
    if t == "BFLOAT16":
        return struct.unpack("<I", struct.pack("<f", v))[0] >> 16
    if t == "DOUBLE":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    if t == "FLOAT8E8M0":
        return int(math.log2(v)) + 127
    return encode_small(t, v)


def from_code(t, c):
    if t in INTS:
        bits, signed = INTS[t]
        return c - (1 << bits) if signed and c >> (bits - 1) else c
    if t == "FLOAT":
        return struct.unpack("<f", struct.pack("<I", c))[0]
    if t == "FLOAT16":
        return struct.unpack("<e", struct.pack("<H", c))[0]
    if t == "BFLOAT16":
        return struct.unpack("<f", struct.pack("<I", c << 16))[0]
    if t == "DOUBLE":
        return struct.unpack("<d", struct.pack("<Q", c))[0]
    if t == "FLOAT8E8M0":
        return math.nan if c == 0xFF else 2.0 ** (c - 127)
    return decode_small(t, c)


def pack(t, codes):
    """StorageBytes of the codes: element i at bits [i * bits, (i + 1) * bits) of the
    little-endian stream (so 4-bit types low nibble first), padding zero."""
    bits = bits_of(t)
    value = 0
    for i, c in enumerate(codes):
        value |= (c & ((1 << bits) - 1)) << (bits * i)
    return value.to_bytes((bits * len(codes) + 7) // 8, "little")


def unpack(t, data, n):
    bits = bits_of(t)
    value = int.from_bytes(data, "little")
    return [(value >> (bits * i)) & ((1 << bits) - 1) for i in range(n)]


def path_of(name):
    return os.path.join(WORK, name)


def write(name, data):
    with open(path_of(name), "wb") as f:
        f.write(data)
    return name


def read(name):
    with open(path_of(name), "rb") as f:
        return f.read()


def write_tensor(name, t, shape, values):
    """A .npy (types numpy has) or .pb (raw_data) of `values` (exact in t)."""
    codes = [to_code(t, v) for v in values]
    if name.endswith(".npy"):
        descr, _ = NPY_DESCR[t]
        return write(name, npy_bytes(descr, shape, pack(t, codes)))
    return write(name, tensor_proto(shape, CODE[t], raw=pack(t, codes)))


def read_codes(name, t, shape):
    """The element codes of an output file, checking its type and shape."""
    n = math.prod(shape)
    data = read(name)
    if name.endswith(".npy"):
        descr, got_shape, payload = read_npy(data)
        check(descr == NPY_DESCR[t][0], f"{name}: descr {descr}, expected {NPY_DESCR[t][0]}")
        check(got_shape == list(shape), f"{name}: shape {got_shape}, expected {shape}")
    else:
        p = parse_tensor_proto(data)
        check(p["data_type"] == CODE[t], f"{name}: data_type {p['data_type']}, expected {t}")
        check(p["dims"] == list(shape), f"{name}: dims {p['dims']}, expected {shape}")
        payload = p["raw_data"] or b""
    want_bytes = (bits_of(t) * n + 7) // 8
    check(len(payload) == want_bytes, f"{name}: {len(payload)} bytes, expected {want_bytes}")
    if bits_of(t) % 8 and n * bits_of(t) % 8:
        check(payload[-1] >> (n * bits_of(t) % 8) == 0, f"{name}: padding bits not zero")
    return unpack(t, payload, n)


def run(*args, stdin=None):
    return subprocess.run([CLI, *args], cwd=WORK, input=stdin, capture_output=True, timeout=120)


def leftovers():
    return sorted(n for n in os.listdir(WORK) if any(m in n for m in MARKERS))


def expect_ok(proc):
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode == 0, f"exit {proc.returncode}: {err!r}")
    check(err == "", f"stderr on success: {err!r}")


def expect_error(proc, code, *fragments):
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode == code, f"exit {proc.returncode}, expected {code}; stderr: {err!r}")
    check(err.count("tensorcast: error:") == 1, f"one error line expected, got {err!r}")
    check(err.endswith("\n") and err.count("\n") == 1, f"one line expected: {err!r}")
    for frag in fragments:
        check(frag in err, f"{frag!r} not in {err!r}")
    check(proc.stdout == b"", f"stdout on failure: {proc.stdout!r}")
    check(not leftovers(), f"temporary files left: {leftovers()}")


def same(t, got_code, want_value):
    """The output code equals the value (NaN: any NaN code of t)."""
    if isinstance(want_value, float) and math.isnan(want_value):
        return math.isnan(from_code(t, got_code))
    return got_code == to_code(t, want_value)


def check_quantized(name, y_type, shape, want_codes, what):
    got = read_codes(name, y_type, shape)
    want = [c & ((1 << bits_of(y_type)) - 1) for c in want_codes]
    bad = [(i, hex(g), hex(w)) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    check(not bad, f"{what}: (index, got, expected) {bad[:8]}")


def check_dequantized(name, y_type, shape, want_values, what):
    got = read_codes(name, y_type, shape)
    bad = [
        (i, hex(g), w) for i, (g, w) in enumerate(zip(got, want_values)) if not same(y_type, g, w)
    ]
    check(not bad, f"{what}: (index, got, expected) {bad[:8]}")


def scale_index(shape, axis, i, block=0):
    """The scale index of element i: per axis (block 0) or blocked along `axis`."""
    axis %= len(shape)
    inner = math.prod(shape[axis + 1 :])
    dim = shape[axis]
    a = i // inner % dim
    if not block:
        return a
    o = i // inner // dim
    blocks = -(-dim // block)
    return (o * blocks + a // block) * inner + i % inner


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


RNG = random.Random(20260901)


def random_f32(n, spread=8.0):
    return [f32(RNG.uniform(-spread, spread)) for _ in range(n)]


# Values that exercise ties, saturation and the specials.
EDGE_X = [0.0, -0.0, 1.0, -1.0, 2.5, 3.5, -2.5, 0.5, 1.5, 127.49, 300.0, -7.0, 1e-30]
EDGE_X += [math.inf, -math.inf, math.nan, 255.5, 511.0, -129.0, 0.24999999]
EDGE_X = [f32(v) for v in EDGE_X]

# ---- the tests ------------------------------------------------------------------------


@test
def per_tensor_uint8_npy_round_trip():
    n = len(EDGE_X)
    write_tensor("x.npy", "FLOAT", [n], EDGE_X)
    expect_ok(run("quantize", "x.npy", "y.npy", "--scale", "0.5", "--zero-point", "3"))
    want = [quantize_value(x, 0.5, 3, "UINT8", "FLOAT") for x in EDGE_X]
    check(want[EDGE_X.index(2.5) :][:2] == [8, 10], "2.5 / 0.5 + 3 and 3.5 / 0.5 + 3")
    check_quantized("y.npy", "UINT8", [n], want, "FLOAT -> UINT8 per tensor")
    # Back: the zero point number has x's type (UINT8).
    expect_ok(run("dequantize", "y.npy", "d.npy", "--scale", "0.5", "--zero-point", "3"))
    back = [dequantize_value(q, 0.5, 3, "FLOAT") for q in want]
    check_dequantized("d.npy", "FLOAT", [n], back, "UINT8 -> FLOAT per tensor")
    # Without a zero point: UINT8 with zero point 0; scale 1e-3 rounds to FLOAT first.
    expect_ok(run("quantize", "x.npy", "y0.npy", "--scale=1e-3"))
    want = [quantize_value(x, f32(Fraction(1, 1000)), None, "UINT8", "FLOAT") for x in EDGE_X]
    check_quantized("y0.npy", "UINT8", [n], want, "FLOAT -> UINT8, scale 1e-3")


@test
def per_axis_int8_pb_and_negative_axis():
    shape = [2, 3, 4]
    x = random_f32(24, 40.0)
    x[5] = math.nan
    scale = [f32(0.25), f32(0.3), f32(2.0)]
    zp = [0, -5, 100]
    write_tensor("x.pb", "FLOAT", shape, x)
    write_tensor("s.npy", "FLOAT", [3], scale)
    write_tensor("z.pb", "INT8", [3], zp)
    want = []
    for i, v in enumerate(x):
        k = scale_index(shape, 1, i)
        want.append(quantize_value(v, scale[k], zp[k], "INT8", "FLOAT"))
    for axis in ("1", "-2"):
        out = "y%s.pb" % axis
        expect_ok(
            run("quantize", "--axis", axis, "--scale", "s.npy", "--zero-point", "z.pb", "x.pb", out)
        )
        check_quantized(out, "INT8", shape, want, "FLOAT -> INT8 per axis " + axis)
    expect_ok(run("dequantize", "y1.pb", "d.npy", "--scale", "s.npy", "--zero-point", "z.pb"))
    back = []
    for i, q in enumerate(want):
        k = scale_index(shape, 1, i)
        back.append(dequantize_value(q, scale[k], zp[k], "FLOAT"))
    check_dequantized("d.npy", "FLOAT", shape, back, "INT8 -> FLOAT per axis")
    # Axis 0 with the same scale is a shape mismatch (2 indices, 3 scales).
    expect_error(
        run("quantize", "--axis", "0", "--scale", "s.npy", "x.pb", "bad.pb"),
        1,
        "cannot quantize 'x.pb' (FLOAT [2, 3, 4])",
        "INVALID_ARGUMENT",
        "y_scale: 3 values for dimension 0 of x, which has 2",
    )


@test
def blocked_int4_packed_in_pb():
    # [3, 5] blocked along axis 1 by 2: blocks of 2, 2, 1 -> scale [3, 3].
    shape, block = [3, 5], 2
    x = random_f32(15, 12.0)
    scale = [f32(v) for v in (0.5, 1.0, 0.75, 2.0, 0.25, 1.5, 3.0, 0.125, 1.0)]
    zp = [0, 1, -2, 3, -8, 7, 2, 0, -1]
    write_tensor("x.npy", "FLOAT", shape, x)
    write_tensor("s.npy", "FLOAT", [3, 3], scale)
    write_tensor("z.pb", "INT4", [3, 3], zp)
    want = []
    for i, v in enumerate(x):
        k = scale_index(shape, 1, i, block)
        want.append(quantize_value(v, scale[k], zp[k], "INT4", "FLOAT"))
    expect_ok(
        run(
            "quantize",
            "x.npy",
            "y.pb",
            "--scale",
            "s.npy",
            "--zero-point",
            "z.pb",
            "--block-size",
            "2",
        )
    )
    # 15 elements: 8 bytes, the last high nibble zero (read_codes checks the padding).
    check_quantized("y.pb", "INT4", shape, want, "FLOAT -> INT4 blocked")
    expect_ok(
        run(
            "dequantize",
            "y.pb",
            "d.npy",
            "--scale",
            "s.npy",
            "--zero-point",
            "z.pb",
            "--block-size=2",
            "--axis=-1",
        )
    )
    back = []
    for i, q in enumerate(want):
        k = scale_index(shape, 1, i, block)
        back.append(dequantize_value(q, scale[k], zp[k], "FLOAT"))
    check_dequantized("d.npy", "FLOAT", shape, back, "INT4 -> FLOAT blocked")
    # Along axis 0: [5, 2] by 3 -> scale [2, 2]; UINT4 from --output-dtype, no zero point.
    shape = [5, 2]
    write_tensor("x0.pb", "FLOAT", shape, [abs(v) for v in x[:10]])
    scale0 = [f32(0.5), f32(0.75), f32(1.25), f32(0.1)]
    write_tensor("s0.pb", "FLOAT", [2, 2], scale0)
    expect_ok(
        run(
            "quantize",
            "x0.pb",
            "y0.pb",
            "--scale",
            "s0.pb",
            "--axis",
            "0",
            "--block-size",
            "3",
            "--output-dtype",
            "uint4",
        )
    )
    want = [
        quantize_value(abs(v), scale0[scale_index(shape, 0, i, 3)], None, "UINT4", "FLOAT")
        for i, v in enumerate(x[:10])
    ]
    check_quantized("y0.pb", "UINT4", shape, want, "FLOAT -> UINT4 blocked along axis 0")
    # Block sizes that do not make the scale's 3 blocks of 5: the message gives the range.
    for bad in ("1", "3", "5"):
        expect_error(
            run(
                "quantize",
                "x.npy",
                "yb.pb",
                "--scale",
                "s.npy",
                "--block-size",
                bad,
                "--output-dtype",
                "INT4",
            ),
            1,
            "block_size: %s makes" % bad,
            "block_size must be in [2, 2]",
        )
    expect_error(
        run("quantize", "x.npy", "yb.pb", "--scale", "s.npy", "--block-size", "-2"),
        2,
        "--block-size takes an integer >= 0, not '-2'",
    )
    expect_error(
        run("quantize", "x.npy", "yb.pb", "--scale", "s.npy", "--block-size", "2", "--opset", "19"),
        2,
        "block_size: QuantizeLinear-19 has no such attribute (from opset 21)",
    )
    check(not os.path.exists(path_of("yb.pb")), "a failed command wrote its output")


@test
def float4_output_packed_and_back():
    x = [f32(v) for v in (0.0, 0.12, 0.13, 0.5, 0.75, 1.24, 2.6, 3.0, 100.0, -100.0, -0.0)]
    x += [math.nan, -math.inf, f32(-0.2)]
    n = len(x)
    write_tensor("x.npy", "FLOAT", [n], x)
    expect_ok(run("quantize", "x.npy", "y.pb", "--scale", "0.5", "--output-dtype", "FLOAT4E2M1"))
    want = [quantize_value(v, 0.5, None, "FLOAT4E2M1", "FLOAT") for v in x]
    # The ladder of docs/semantics.md 5.4 on x / 0.5.
    check(want[:9] == [0x0, 0x0, 0x1, 0x2, 0x3, 0x4, 0x7, 0x7, 0x7], "the FLOAT4 ladder")
    check(want[9:] == [0xF, 0x8, 0x8, 0xF, 0x9], "FLOAT4 signs, NaN and -Inf")
    check_quantized("y.pb", "FLOAT4E2M1", [n], want, "FLOAT -> FLOAT4E2M1")
    expect_ok(run("dequantize", "y.pb", "d.npy", "--scale", "0.5"))
    back = [dequantize_value(decode_small("FLOAT4E2M1", c), 0.5, None, "FLOAT") for c in want]
    check_dequantized("d.npy", "FLOAT", [n], back, "FLOAT4E2M1 -> FLOAT")
    expect_error(
        run(
            "quantize",
            "x.npy",
            "y21.pb",
            "--scale",
            "0.5",
            "--output-dtype",
            "FLOAT4E2M1",
            "--opset",
            "21",
        ),
        2,
        "output_dtype: FLOAT4E2M1 (23) is not a type of QuantizeLinear-21",
    )


@test
def float8_outputs_with_and_without_saturation():
    x = [f32(v) for v in (1.0, 0.3, 500.0, 464.0, -1e6, 0.001, -0.0, 60000.0, 1e-9, 250.0)]
    x += [math.inf, -math.inf, math.nan]
    n = len(x)
    write_tensor("x.npy", "FLOAT", [n], x)
    for t in ("FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ"):
        for sat in (True, False):
            args = ["quantize", "x.npy", "y.pb", "--scale", "1", "--output-dtype", t]
            expect_ok(run(*args, *([] if sat else ["--no-saturate"])))
            want = [quantize_value(v, 1.0, None, t, "FLOAT", sat) for v in x]
            check_quantized("y.pb", t, [n], want, f"FLOAT -> {t} saturate={sat}")
            if t == "FLOAT8E4M3FN":  # docs/semantics.md 5.2
                check(want[3] == 0x7E and want[2] == (0x7E if sat else 0x7F), "E4M3FN 464, 500")
    # A float8 zero point must be zero; -0 is a zero.
    for zp, ok in (("0", True), ("-0", True), ("0.5", False)):
        args = ["quantize", "x.npy", "z.pb", "--scale", "2", "--zero-point", zp]
        proc = run(*args, "--output-dtype", "FLOAT8E4M3FN")
        if ok:
            expect_ok(proc)
            want = [quantize_value(v, 2.0, float(zp), "FLOAT8E4M3FN", "FLOAT") for v in x]
            # -0 / 2 is -0: plus a +0 zero point +0 (0x00), plus -0 -0 (0x80).
            check(want[x.index(0.0, 6)] == (0x80 if zp == "-0" else 0x00), "the sign of -0 + zp")
            check_quantized("z.pb", "FLOAT8E4M3FN", [n], want, "E4M3FN with zero point " + zp)
        else:
            expect_error(proc, 1, "y_zero_point: element 0 is the nonzero code 0x30")
    expect_error(
        run("quantize", "x.npy", "y13.pb", "--scale", "1", "--no-saturate", "--opset", "13"),
        2,
        "saturate: QuantizeLinear-13 has no such attribute (from opset 19)",
    )


@test
def float6_and_two_bit_outputs():
    x = random_f32(13, 40.0) + [math.nan, f32(-0.01)]
    n = len(x)
    write_tensor("x.pb", "FLOAT", [n], x)
    for t, opset in (("FLOAT6E2M3", "28"), ("FLOAT6E3M2", "28"), ("INT2", "25"), ("UINT2", "25")):
        for scale in ("1", "4.5"):
            args = ["x.pb", "y.pb", "--scale", scale, "--output-dtype", t, "--opset", opset]
            expect_ok(run("quantize", *args))
            want = [quantize_value(v, float(scale), None, t, "FLOAT") for v in x]
            check_quantized("y.pb", t, [n], want, f"FLOAT -> {t} scale {scale}")
            expect_ok(run("dequantize", "y.pb", "d.npy", "--scale", scale))
            vals = [from_code(t, c & ((1 << bits_of(t)) - 1)) for c in want]
            back = [dequantize_value(v, float(scale), None, "FLOAT") for v in vals]
            check_dequantized("d.npy", "FLOAT", [n], back, f"{t} -> FLOAT")
        older = "25" if t.startswith("FLOAT6") else "24"
        expect_error(
            run("quantize", "x.pb", "o.pb", "--scale", "1", "--output-dtype", t, "--opset", older),
            2,
            f"output_dtype: {t} ({CODE[t]}) is not a type of QuantizeLinear-{older}",
        )
    # INT16 / UINT16 with zero points from numbers typed by --output-dtype.
    for t, zp in (("INT16", "-300"), ("UINT16", "40000")):
        args = ["x.pb", "y.npy", "--scale", "0.001", "--zero-point", zp, "--output-dtype", t]
        expect_ok(run("quantize", *args))
        want = [quantize_value(v, f32(Fraction(1, 1000)), int(zp), t, "FLOAT") for v in x]
        check_quantized("y.npy", t, [n], want, f"FLOAT -> {t}")


@test
def number_scale_takes_x_type_at_opsets_19_to_22():
    # FLOAT16 x: at opsets 19 and 21 the scale 0.1 is FLOAT16 (0.0999755859375) and the
    # division is in FLOAT16; at 23+ the number is a FLOAT scale and divides in FLOAT.
    x = [f16(Fraction(k, 20)) for k in range(-20, 100)]
    n = len(x)
    write_tensor("x.npy", "FLOAT16", [n], x)
    s16, s32 = f16(Fraction(1, 10)), f32(Fraction(1, 10))
    check(s16 == 0.0999755859375, "FLOAT16 0.1")
    want16 = [quantize_value(v, s16, None, "UINT8", "FLOAT16") for v in x]
    want32 = [quantize_value(v, s32, None, "UINT8", "FLOAT") for v in x]
    check(want16 != want32, "the values do not tell the two rules apart")
    for opset, want in (("19", want16), ("21", want16), ("22", want16), ("23", want32)):
        expect_ok(run("quantize", "x.npy", "y.npy", "--scale", "0.1", "--opset", opset))
        check_quantized("y.npy", "UINT8", [n], want, "FLOAT16 x, --scale 0.1, opset " + opset)
    # BFLOAT16 x (.pb) at opset 21: the scale is BFLOAT16 too.
    xb = [round_to("BFLOAT16", v * 0.3) for v in range(-20, 21)]
    write_tensor("xb.pb", "BFLOAT16", [len(xb)], xb)
    sb = round_to("BFLOAT16", Fraction(3, 10))
    expect_ok(
        run(
            "quantize",
            "xb.pb",
            "yb.pb",
            "--scale",
            "0.3",
            "--zero-point",
            "-3",
            "--output-dtype",
            "INT8",
            "--opset",
            "21",
        )
    )
    want = [quantize_value(v, sb, -3, "INT8", "BFLOAT16") for v in xb]
    check_quantized("yb.pb", "INT8", [len(xb)], want, "BFLOAT16 x, opset 21")
    # A FLOAT16 scale file with FLOAT x at opset 21: one type for both, refused.
    write_tensor("x32.npy", "FLOAT", [2], [1.0, 2.0])
    write_tensor("s16.npy", "FLOAT16", [], [0.5])
    expect_error(
        run("quantize", "x32.npy", "y.npy", "--scale", "s16.npy", "--opset", "21"),
        1,
        "UNSUPPORTED",
        "y_scale: FLOAT16 (10) differs from x's type FLOAT (1) (QuantizeLinear-21 takes one "
        "type for both)",
    )


@test
def precision_option():
    x = [f32(Fraction(k, 20)) for k in range(-300, 300)] + random_f32(60, 30.0)
    n = len(x)
    write_tensor("x.npy", "FLOAT", [n], x)
    s = f32(Fraction(1, 10))
    base = [quantize_value(v, s, None, "INT8", "FLOAT") for v in x]
    for p in ("FLOAT16", "BFLOAT16", "FLOAT"):
        args = ["x.npy", "y.npy", "--scale", "0.1", "--output-dtype", "INT8", "--precision", p]
        expect_ok(run("quantize", *args))
        want = [quantize_value(v, s, None, "INT8", p) for v in x]
        if p != "FLOAT":
            check(want != base, f"the values do not tell {p} from FLOAT")
        check_quantized("y.npy", "INT8", [n], want, "--precision " + p)
    expect_error(
        run("quantize", "x.npy", "y.npy", "--scale", "0.1", "--precision", "INT8"),
        2,
        "precision: INT8 (3) is not a precision of the division (FLOAT, FLOAT16, BFLOAT16)",
    )
    expect_error(
        run(
            "quantize", "x.npy", "y.npy", "--scale", "0.1", "--precision", "FLOAT", "--opset", "21"
        ),
        2,
        "precision: QuantizeLinear-21 has no such attribute (from opset 23)",
    )
    expect_error(
        run("dequantize", "x.npy", "y.npy", "--scale", "0.1", "--precision", "FLOAT"),
        2,
        "dequantize: unknown option '--precision'",
    )


@test
def int32_inputs():
    x = [0, 1, 5, 7, -5, -7, 16777217, -16777219, 2**31 - 1, -(2**31), 255 * 2 + 1, 1000]
    n = len(x)
    write_tensor("x.npy", "INT32", [n], x)
    # Opset 21: the number scale is INT32 and the division is in DOUBLE.
    expect_ok(
        run("quantize", "x.npy", "y.npy", "--scale", "2", "--zero-point", "5", "--opset", "21")
    )
    want = [quantize_value(float(v), 2.0, 5, "UINT8", "DOUBLE") for v in x]
    check(want[2:4] == [7, 9], "5 / 2 and 7 / 2 round half to even")
    check_quantized("y.npy", "UINT8", [n], want, "INT32 x, INT32 scale")
    expect_error(
        run("quantize", "x.npy", "y2.npy", "--scale", "0.5", "--opset", "21"),
        2,
        "--scale '0.5' must be a whole number (INT32)",
    )
    # Opset 23: the number is a FLOAT scale, and x is rounded to FLOAT (precision P).
    big = [16777217, 16777219, -16777219, 3 * 2**20 + 1, 5000001]
    write_tensor("x16.npy", "INT32", [5], big)
    expect_ok(run("quantize", "x16.npy", "y16.npy", "--scale", "300", "--output-dtype", "INT16"))
    want = [quantize_value(f32(v), 300.0, None, "INT16", "FLOAT") for v in big]
    check_quantized("y16.npy", "INT16", [5], want, "INT32 x, FLOAT scale, opset 28")
    # Dequantize INT32 with an INT32 zero point: exact difference, one rounding to FLOAT.
    expect_ok(run("dequantize", "x.npy", "d.npy", "--scale", "1.5", "--zero-point", "-5"))
    back = [dequantize_value(v, 1.5, -5, "FLOAT") for v in x]
    check_dequantized("d.npy", "FLOAT", [n], back, "INT32 -> FLOAT")


@test
def dequantize_output_types():
    codes = [0x00, 0x01, 0x38, 0x40, 0x7E, 0x7F, 0xFF, 0xB8, 0x80, 0x5A]
    n = len(codes)
    write("x8.pb", tensor_proto([n], CODE["FLOAT8E4M3FN"], raw=bytes(codes)))  # NaN: 7F, FF
    xs = [decode_small("FLOAT8E4M3FN", c) for c in codes]
    # FLOAT scale: FLOAT output, the NaN of x quiet with its sign.
    expect_ok(run("dequantize", "x8.pb", "d.npy", "--scale", "0.1"))
    s = f32(Fraction(1, 10))
    want = [dequantize_value(v, s, None, "FLOAT") for v in xs]
    check_dequantized("d.npy", "FLOAT", [n], want, "E4M3FN -> FLOAT")
    got = read_codes("d.npy", "FLOAT", [n])
    check(got[5] == 0x7FC00000 and got[6] == 0xFFC00000, "NaN bits %s" % [hex(g) for g in got])
    # --output-dtype FLOAT16 (23+): the exact product rounded once to FLOAT16.
    expect_ok(run("dequantize", "x8.pb", "h.npy", "--scale", "0.1", "--output-dtype", "float16"))
    want = [dequantize_value(v, s, None, "FLOAT16") for v in xs]
    check_dequantized("h.npy", "FLOAT16", [n], want, "E4M3FN -> FLOAT16")
    # A FLOAT16 scale file at opset 19: y is FLOAT16 (the scale's type); at 13: refused.
    write_tensor("s16.npy", "FLOAT16", [], [f16(Fraction(1, 3))])
    expect_ok(run("dequantize", "x8.pb", "h19.npy", "--scale", "s16.npy", "--opset", "19"))
    want = [dequantize_value(v, f16(Fraction(1, 3)), None, "FLOAT16") for v in xs]
    check_dequantized("h19.npy", "FLOAT16", [n], want, "E4M3FN -> FLOAT16 at opset 19")
    write_tensor("u8.npy", "UINT8", [4], [0, 1, 128, 255])
    expect_error(
        run("dequantize", "u8.npy", "h13.npy", "--scale", "s16.npy", "--opset", "13"),
        1,
        "UNSUPPORTED: DequantizeLinear: x_scale: FLOAT16 (10) is not a type of "
        "DequantizeLinear-13 (FLOAT)",
    )
    # FLOAT8E8M0 per-axis scale (24+) needs --output-dtype.
    write("e8.pb", tensor_proto([4], CODE["FLOAT8E8M0"], raw=bytes([127, 120, 130, 0xFF])))
    write_tensor("x2.npy", "INT8", [2, 4], [1, -2, 3, -4, 127, -128, 0, 9])
    write_tensor("z4.pb", "INT8", [4], [1, -1, 0, 127])
    expect_ok(
        run(
            "dequantize",
            "x2.npy",
            "b.pb",
            "--scale",
            "e8.pb",
            "--output-dtype",
            "BFLOAT16",
            "--zero-point",
            "z4.pb",
        )
    )
    scales = [from_code("FLOAT8E8M0", c) for c in (127, 120, 130, 0xFF)]
    want = [
        dequantize_value(v, scales[i % 4], [1, -1, 0, 127][i % 4], "BFLOAT16")
        for i, v in enumerate([1, -2, 3, -4, 127, -128, 0, 9])
    ]
    check_dequantized("b.pb", "BFLOAT16", [2, 4], want, "INT8 -> BFLOAT16, E8M0 scale")
    expect_error(
        run("dequantize", "x2.npy", "b2.pb", "--scale", "e8.pb"),
        1,
        "x_scale: a FLOAT8E8M0 scale needs output_dtype",
    )
    expect_error(
        run(
            "dequantize",
            "x2.npy",
            "b3.pb",
            "--scale",
            "e8.pb",
            "--output-dtype",
            "FLOAT",
            "--opset",
            "23",
        ),
        1,
        "x_scale: FLOAT8E8M0 (24) is not a type of DequantizeLinear-23",
    )
    # The zero point of dequantize has x's type: a file of another type is refused.
    write_tensor("z8u.npy", "UINT8", [], [1])
    expect_error(
        run("dequantize", "x2.npy", "b4.npy", "--scale", "2", "--zero-point", "z8u.npy"),
        1,
        "x_zero_point: UINT8 (2) differs from x's type INT8 (3)",
    )
    expect_error(
        run("dequantize", "x2.npy", "b5.npy", "--scale", "2", "--zero-point", "200"),
        2,
        "--zero-point '200' is outside the range of INT8, [-128, 127]",
    )


@test
def nan_and_infinity_rules():
    # docs/semantics.md 12.3 / 12.4: 0 / 0 and Inf / Inf give the positive quiet NaN, Inf * 0
    # too; infinite products stay infinite. Repeated 40 times: the SIMD body and the tail.
    reps = 40
    x = [0.0, math.inf, -math.inf, 1.0, -1.0, math.nan] * reps
    write_tensor("x.npy", "FLOAT", [len(x)], x)
    cases = (
        ("0", [], [0x7F, 0x7E, 0xFE, 0x7E, 0xFE, 0x7F]),
        ("inf", [], [0x00, 0x7F, 0x7F, 0x00, 0x80, 0x7F]),
        ("0", ["--precision", "FLOAT16"], [0x7F, 0x7E, 0xFE, 0x7E, 0xFE, 0x7F]),
        ("inf", ["--precision", "BFLOAT16"], [0x00, 0x7F, 0x7F, 0x00, 0x80, 0x7F]),
    )
    for scale, extra, codes in cases:
        expect_ok(
            run(
                "quantize",
                "x.npy",
                "y.pb",
                "--scale",
                scale,
                "--output-dtype",
                "FLOAT8E4M3FN",
                *extra,
            )
        )
        want = [quantize_value(v, float(scale), None, "FLOAT8E4M3FN", "FLOAT") for v in x]
        check(want == codes * reps, f"the formulas for scale {scale}: {want[:6]}")
        check_quantized("y.pb", "FLOAT8E4M3FN", [len(x)], want, f"scale {scale} {extra}")
    # The exact scalar path (an INT32 scale divides in DOUBLE): 0 / 0 too.
    write_tensor("xi.npy", "INT32", [3 * reps], [0, 1, -1] * reps)
    write_tensor("s0.npy", "INT32", [], [0])
    expect_ok(
        run("quantize", "xi.npy", "yi.pb", "--scale", "s0.npy", "--output-dtype", "FLOAT8E4M3FN")
    )
    check_quantized("yi.pb", "FLOAT8E4M3FN", [3 * reps], [0x7F, 0x7E, 0xFE] * reps, "INT32 / 0")
    # DequantizeLinear: E5M2 +Inf, -Inf, 0, 1.
    write(
        "x8.pb",
        tensor_proto([4 * reps], CODE["FLOAT8E5M2"], raw=bytes([0x7C, 0xFC, 0, 0x3C]) * reps),
    )
    cases = (
        ("0", "FLOAT", [0x7FC00000, 0x7FC00000, 0, 0]),
        ("-0.5", "FLOAT", [0xFF800000, 0x7F800000, 0x80000000, 0xBF000000]),
        ("-0.5", "FLOAT16", [0xFC00, 0x7C00, 0x8000, 0xB800]),
        ("-0.5", "BFLOAT16", [0xFF80, 0x7F80, 0x8000, 0xBF00]),
        ("0", "BFLOAT16", [0x7FC0, 0x7FC0, 0, 0]),
    )
    for scale, t, codes in cases:
        expect_ok(run("dequantize", "x8.pb", "d.pb", "--scale", scale, "--output-dtype", t))
        got = read_codes("d.pb", t, [4 * reps])
        check(got == codes * reps, f"E5M2 * {scale} -> {t}: {[hex(g) for g in got[:4]]}")
        vals = [decode_small("FLOAT8E5M2", c) for c in (0x7C, 0xFC, 0, 0x3C)]
        want = [dequantize_value(v, float(scale), None, t) for v in vals]
        check_dequantized("d.pb", t, [4 * reps], want * reps, f"the formulas, {scale} {t}")


@test
def numpy_cannot_hold_the_output_type():
    write_tensor("x.npy", "FLOAT", [3], [1.0, 2.0, 3.0])
    write("exists.npy", b"OLD")  # an existing output stays as it was
    for t in (
        "INT4",
        "UINT4",
        "INT2",
        "FLOAT8E4M3FN",
        "FLOAT8E5M2FNUZ",
        "FLOAT4E2M1",
        "FLOAT6E3M2",
    ):
        expect_error(
            run("quantize", "x.npy", "exists.npy", "--scale", "1", "--output-dtype", t),
            2,
            f"numpy has no dtype for {t}, so it cannot be written to 'exists.npy'; "
            "write a .pb (onnx.TensorProto) file instead",
        )
    check(read("exists.npy") == b"OLD", "the old output was changed")
    # The type comes from a zero point file: found after reading, still a usage error.
    write("z.pb", tensor_proto([], CODE["INT4"], raw=bytes([1])))
    expect_error(
        run("quantize", "x.npy", "o.npy", "--scale", "1", "--zero-point", "z.pb"),
        2,
        "numpy has no dtype for INT4",
    )
    expect_error(
        run("dequantize", "x.npy", "o.npy", "--scale", "1", "--output-dtype", "BFLOAT16"),
        2,
        "numpy has no dtype for BFLOAT16",
    )
    check(not os.path.exists(path_of("o.npy")), "o.npy was written")


@test
def command_line_errors():
    write_tensor("x.npy", "FLOAT", [2, 3], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    write_tensor("s3.npy", "FLOAT", [3], [1.0, 2.0, 3.0])
    write_tensor("s23.npy", "FLOAT", [2, 3], [1.0] * 6)
    write("trunc.npy", npy_bytes("<f4", [3], b"\0" * 5))
    write("corrupt.pb", b"\xff\xff\xff\xff")
    write_tensor("sz.pb", "FLOAT", [0], [])
    write_tensor("z2.npy", "UINT8", [2], [1, 2])
    write_tensor("xi8.npy", "INT8", [2], [1, 2])
    write("exists.npy", b"OLD")
    cases = [
        # (arguments, exit status, fragments)
        (["x.npy", "o.npy"], 2, ["quantize needs --scale NUMBER|FILE"]),
        (["x.npy", "--scale", "1"], 2, ["quantize needs an input and an output file (got 1"]),
        (["x.npy", "o.npy", "p.npy", "--scale", "1"], 2, ["(got 3 file names)"]),
        (["x.npy", "o.npy", "--scale"], 2, ["option --scale needs a value"]),
        (["x.npy", "o.npy", "--scale", "abc"], 2, ["--scale takes a number or a .npy or .pb"]),
        (["x.npy", "o.npy", "--scale", "0x10"], 2, ["not '0x10'"]),
        (["x.npy", "o.npy", "--scale", "1", "--zero-point", "z"], 2, ["--zero-point takes"]),
        (["x.npy", "o.npy", "--scale", "1", "--zero-point", "1.5"], 2, ["whole number"]),
        (["x.npy", "o.npy", "--scale", "1", "--zero-point", "-1"], 2, ["[0, 255]"]),
        (
            ["x.npy", "o.npy", "--scale", "1", "--zero-point", "99999999999999999999"],
            2,
            ["outside the range of UINT8"],
        ),
        (["x.npy", "o.npy", "--scale", "missing.npy"], 1, ["missing.npy"]),
        (["x.npy", "o.npy", "--scale", "trunc.npy"], 1, ["trunc.npy", "truncated"]),
        (["x.npy", "o.npy", "--scale", "corrupt.pb"], 1, ["corrupt.pb"]),
        (["x.npy", "o.npy", "--scale", "sz.pb"], 1, ["y_scale: 0 values for dimension 1"]),
        (
            ["x.npy", "o.npy", "--scale", "s23.npy"],
            1,
            ["y_scale: shape [2,3] is neither a scalar nor 1-D, and block_size is 0"],
        ),
        (["x.npy", "o.npy", "--scale", "s3.npy", "--axis", "0"], 1, ["3 values for dimension 0"]),
        (
            ["x.npy", "o.npy", "--scale", "s3.npy", "--axis", "2"],
            1,
            ["axis: 2 is outside [-2, 1] for x of rank 2"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "s3.npy", "--zero-point", "z2.npy"],
            1,
            ["y_zero_point: shape [2] differs from y_scale's [3]"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "s3.npy", "--zero-point", "4"],
            1,
            ["y_zero_point: shape [] differs from y_scale's [3]"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "s3.npy", "--opset", "10"],
            1,
            ["QuantizeLinear-10 takes a scalar scale"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "1", "--axis", "0", "--opset", "11"],
            2,
            ["axis: QuantizeLinear-10 has no such attribute (from opset 13)"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "1", "--output-dtype", "INT8", "--opset", "19"],
            2,
            ["output_dtype: QuantizeLinear-19 has no such attribute (from opset 21)"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "1", "--output-dtype", "FLOAT9"],
            2,
            ["--output-dtype: unknown data type", "`tensorcast types` lists the types"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "1", "--output-dtype", "FLOAT"],
            2,
            ["output_dtype: FLOAT (1) is not a type of QuantizeLinear-28"],
        ),
        (
            ["x.npy", "o.npy", "--scale", "1", "--output-dtype", "INT8", "--zero-point", "z2.npy"],
            1,
            ["output_dtype: INT8 (3) differs from the type of y_zero_point, UINT8 (2)"],
        ),
        (["x.npy", "o.npy", "--scale", "1", "--precision", "nope"], 2, ["--precision: unknown"]),
        (["x.npy", "o.npy", "--scale", "1", "--opset", "9"], 2, ["from 10 to 28, not '9'"]),
        (["x.npy", "o.npy", "--scale", "1", "--opset", "29"], 2, ["from 10 to 28, not '29'"]),
        (["x.npy", "o.npy", "--scale", "1", "--opset", "4294967309"], 2, ["from 10 to 28"]),
        (["x.npy", "o.npy", "--scale", "1", "--axis", "one"], 2, ["--axis takes an integer"]),
        (["x.npy", "o.npy", "--scale", "1", "--block-size", "x"], 2, ["--block-size takes"]),
        (["x.npy", "o.npy", "--scale", "1", "--threads", "0"], 2, ["--threads takes"]),
        (["x.npy", "o.npy", "--scale", "1", "--no-saturate=1"], 2, ["takes no value"]),
        (
            ["x.npy", "o.npy", "--scale", "1", "--saturate", "0"],
            2,
            ["quantize: unknown option '--saturate'"],
        ),
        (["x.npy", "o.txt", "--scale", "1"], 2, ["unsupported file extension in 'o.txt'"]),
        (["x.npy", "-", "--scale", "1"], 2, ["needs --format npy or --format pb"]),
        (
            ["xi8.npy", "o.npy", "--scale", "1"],
            1,
            ["x: INT8 (3) is not a type of QuantizeLinear-28 (FLOAT, INT32, FLOAT16, BFLOAT16)"],
        ),
        (["missing.npy", "o.npy", "--scale", "1"], 1, ["missing.npy"]),
        (["x.npy", "exists.npy", "--scale", "s3.npy", "--axis", "0"], 1, ["y_scale"]),
    ]
    for args, code, fragments in cases:
        proc = run("quantize", *args)
        try:
            expect_error(proc, code, *fragments)
        except Exception as e:
            raise type(e)(f"quantize {' '.join(args)}: {e}") from e
        check(not os.path.exists(path_of("o.npy")), f"quantize {args} wrote o.npy")
    check(read("exists.npy") == b"OLD", "a failed command changed the existing output")
    expect_error(run("dequantize", "x.npy", "o.npy"), 2, "dequantize needs --scale")
    expect_error(
        run("dequantize", "x.npy", "o.npy", "--scale", "1"),
        1,
        "x: FLOAT (1) is not a type of DequantizeLinear-28",
    )
    expect_error(run("frobnicate"), 2, "unknown command 'frobnicate'")


@test
def standard_input_and_output():
    x = [f32(v) for v in (0.1, -3.7, 250.0, 2.5)]
    data = npy_bytes("<f4", [4], struct.pack("<4f", *x))
    proc = run(
        "quantize",
        "-",
        "-",
        "--format",
        "pb",
        "--scale",
        "0.5",
        "--zero-point",
        "-1",
        "--output-dtype",
        "INT8",
        stdin=tensor_proto([4], 1, raw=struct.pack("<4f", *x)),
    )
    expect_ok(proc)
    p = parse_tensor_proto(proc.stdout)
    want = [quantize_value(v, 0.5, -1, "INT8", "FLOAT") for v in x]
    check(p["data_type"] == CODE["INT8"] and p["dims"] == [4], "stdout tensor %r" % p)
    check(list(struct.unpack("<4b", p["raw_data"])) == want, "stdout values")
    proc = run("quantize", "-", "y.npy", "--format", "npy", "--scale", "0.5", stdin=data)
    expect_ok(proc)
    check(proc.stdout == b"", "output on stdout")
    check_quantized(
        "y.npy",
        "UINT8",
        [4],
        [quantize_value(v, 0.5, 0, "UINT8", "FLOAT") for v in x],
        "from standard input",
    )


@test
def threads_give_the_same_bits_and_names_are_kept():
    n = 400_000  # 1.6 MB of FLOAT in, 0.4 MB out: the parallel path
    rng = random.Random(7)
    vals = [rng.uniform(-300.0, 300.0) for _ in range(n)]
    payload = struct.pack("<%df" % n, *vals)
    x = list(struct.unpack("<%df" % n, payload))
    write("x.pb", tensor_proto([400, 1000], 1, raw=payload, name=b"activations"))
    scale = [f32(0.5 + i / 1000.0) for i in range(1000)]
    write_tensor("s.npy", "FLOAT", [1000], scale)
    outs = {}
    for threads in ("1", "3"):
        out = "y%s.pb" % threads
        expect_ok(
            run(
                "quantize",
                "x.pb",
                out,
                "--scale",
                "s.npy",
                "--output-dtype",
                "INT8",
                "--threads",
                threads,
            )
        )
        outs[threads] = read(out)
    check(outs["1"] == outs["3"], "--threads 3 differs from --threads 1")
    p = parse_tensor_proto(outs["3"])
    check(p["name"] == b"activations", "the tensor name was not kept: %r" % p["name"])
    got = struct.unpack("<%db" % n, p["raw_data"])
    for i in range(0, n, 997):
        w = quantize_value(x[i], scale[i % 1000], None, "INT8", "FLOAT")
        check(got[i] == w, f"element {i}: {got[i]}, expected {w}")
    for threads in ("1", "2"):
        out = "d%s.pb" % threads
        expect_ok(run("dequantize", "y1.pb", out, "--scale", "s.npy", "--threads", threads))
    check(read("d1.pb") == read("d2.pb"), "dequantize --threads 2 differs")


@test
def empty_and_scalar_tensors():
    write_tensor("e.npy", "FLOAT", [0, 3], [])
    expect_ok(run("quantize", "e.npy", "y.pb", "--scale", "1", "--output-dtype", "INT4"))
    check_quantized("y.pb", "INT4", [0, 3], [], "empty")
    write_tensor("s.npy", "FLOAT", [], [f32(-7.75)])
    expect_ok(run("quantize", "s.npy", "y.npy", "--scale", "-0.5", "--zero-point", "10"))
    check_quantized(
        "y.npy",
        "UINT8",
        [],
        [quantize_value(f32(-7.75), -0.5, 10, "UINT8", "FLOAT")],
        "scalar, negative scale",
    )


@test
def help_lists_the_commands():
    proc = run("--help")
    expect_ok(proc)
    out = proc.stdout.decode()
    for frag in ("  quantize --scale S", "  dequantize --scale S", "--no-saturate", "--precision"):
        check(frag in out, f"{frag!r} not in --help")
    for line in out.splitlines():
        check(len(line) <= 92, f"help line too long: {line!r}")


@test
def formulas_agree_with_numpy_and_ml_dtypes():
    if not HAVE_NUMPY:
        raise Skipped("numpy and ml_dtypes are not importable here")
    rng = random.Random(3)
    doubles = [rng.uniform(-1e5, 1e5) * 2.0 ** rng.randint(-40, 10) for _ in range(3000)]
    for t, dt in (("FLOAT", np.float32), ("FLOAT16", np.float16), ("BFLOAT16", ml_dtypes.bfloat16)):
        got = [round_to(t, v) for v in doubles]
        with np.errstate(over="ignore"):
            want = np.array(doubles, np.float64).astype(dt).astype(np.float64).tolist()
        if t == "BFLOAT16":  # ml_dtypes rounds through float32: compare float32 sources
            srcs = [f32(v) for v in doubles]
            got = [round_to(t, v) for v in srcs]
            want = np.array(srcs, np.float32).astype(dt).astype(np.float64).tolist()
        bad = [(d, g, w) for d, g, w in zip(doubles, got, want) if g != w]
        check(not bad, f"{t} rounding differs from numpy: {bad[:3]}")
    qs = [k / 4 for k in range(-4000, 4000)]
    check([rne(q) for q in qs] == np.rint(qs).astype(int).tolist(), "rne differs from np.rint")
    a = np.array([f32(v) for v in doubles], np.float32)
    b = np.array([f32(rng.uniform(0.01, 10.0)) for _ in doubles], np.float32)
    mine = [quotient(float(u), float(v), "FLOAT") for u, v in zip(a, b)]
    check(mine == (a / b).astype(np.float64).tolist(), "float32 division differs from numpy")
    for t, dt in (
        ("FLOAT8E4M3FN", ml_dtypes.float8_e4m3fn),
        ("FLOAT8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz),
        ("FLOAT8E5M2", ml_dtypes.float8_e5m2),
        ("FLOAT8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz),
        ("FLOAT4E2M1", ml_dtypes.float4_e2m1fn),
        ("FLOAT6E2M3", ml_dtypes.float6_e2m3fn),
        ("FLOAT6E3M2", ml_dtypes.float6_e3m2fn),
    ):
        vmax = SMALL[t][3]
        vals = [f32(v) for v in np.linspace(-vmax, vmax, 4001).tolist()] + [0.0, -0.0]
        got = [encode_small(t, v) for v in vals]
        want = np.array(vals, np.float32).astype(dt).view(np.uint8).tolist()
        bad = [(v, hex(g), hex(w)) for v, g, w in zip(vals, got, want) if g != w]
        check(not bad, f"{t} encoding differs from ml_dtypes: {bad[:3]}")
        for c in range(1 << bits_of(t)):
            d = decode_small(t, c)
            m = float(np.array([c], np.uint8).view(dt).astype(np.float64)[0])
            check((math.isnan(d) and math.isnan(m)) or d == m, f"{t} decodes {c:#x}: {d} {m}")


@test
def onnx_reference_agrees_where_the_rules_agree():
    if not HAVE_NUMPY:
        raise Skipped("onnx is not importable here")
    # Finite FLOAT x and scales, integer outputs, no saturation of huge values: the cases
    # where onnx.reference and the documented rules agree (docs/semantics.md section 12).
    shape = [3, 4, 5]
    x = np.array(random_f32(60, 50.0), np.float32).reshape(shape)
    scale = np.array([0.5, 0.25, 1.5, 0.3], np.float32)
    zp = np.array([1, -2, 0, 7], np.int8)
    write("x.npy", npy_bytes("<f4", shape, x.tobytes()))
    write("s.npy", npy_bytes("<f4", [4], scale.tobytes()))
    write("z.npy", npy_bytes("|i1", [4], zp.tobytes()))

    def ref(op, inputs, **attrs):
        names = ["x", "s", "z"][: len(inputs)]
        node = helper.make_node(op, names, ["y"], **attrs)
        graph = helper.make_graph(
            [node],
            "g",
            [helper.make_tensor_value_info(n, onnx.TensorProto.UNDEFINED, None) for n in names],
            [helper.make_tensor_value_info("y", onnx.TensorProto.UNDEFINED, None)],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))[0]

    expect_ok(
        run(
            "quantize",
            "x.npy",
            "y.npy",
            "--scale",
            "s.npy",
            "--zero-point",
            "z.npy",
            "--opset",
            "21",
        )
    )
    want = ref("QuantizeLinear", [x, scale, zp], axis=1)
    got = read_codes("y.npy", "INT8", shape)
    check(got == [c & 0xFF for c in want.astype(np.int64).reshape(-1).tolist()], "QL vs onnx")
    mine = [
        quantize_value(float(v), float(scale[i // 5 % 4]), int(zp[i // 5 % 4]), "INT8", "FLOAT")
        for i, v in enumerate(x.reshape(-1).tolist())
    ]
    check(mine == want.reshape(-1).tolist(), "the formulas differ from onnx.reference")
    expect_ok(
        run(
            "dequantize",
            "y.npy",
            "d.npy",
            "--scale",
            "s.npy",
            "--zero-point",
            "z.npy",
            "--opset",
            "21",
        )
    )
    want = ref("DequantizeLinear", [want, scale, zp], axis=1)
    got = read_codes("d.npy", "FLOAT", shape)
    check(got == want.view(np.uint32).reshape(-1).tolist(), "DQ vs onnx")


def main():
    print(
        "expected values from the rules (fractions)%s"
        % (
            " and numpy %s / ml_dtypes %s / onnx %s (%s)"
            % (np.__version__, ml_dtypes.__version__, onnx.__version__, sys.executable)
            if HAVE_NUMPY
            else " only (numpy, ml_dtypes and onnx are not importable here)"
        )
    )
    return run_tests(TESTS, WORK)


if __name__ == "__main__":
    sys.exit(main())
