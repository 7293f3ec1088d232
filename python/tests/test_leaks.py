"""No reference or memory leaks over 10,000 calls of each kind.

For each kind of call (numeric, sub-byte, packed, strings in and out, CastError raised,
TypeError raised, out=, cast_like, split, pyarrow, quantize_linear / dequantize_linear,
block-scaled quantization): after a warm-up, 10,000 calls must
leave unchanged the reference counts of every object passed in, the number of objects the
garbage collector tracks (+- a small constant), the memory tracemalloc sees (Python and
numpy allocations) and the process's resident memory (the C++ side) within small bounds.
A leak of one object or one small allocation per call would exceed each bound many times.
"""

import gc
import tracemalloc

import ml_dtypes
import numpy as np
import pyarrow as pa
import pytest
import tensorcast as tc
from leak_check import assert_no_leaks

DT = tc.DataType
CALLS = 10_000

X = np.linspace(-500, 500, 64, dtype=np.float32)
X_STRIDED = np.linspace(-5, 5, 128)[::-2]
TEXTS = np.array(["1.5", " -2 ", "inf", "1e-5", "nan"] * 8, dtype=np.dtypes.StringDType())
BAD_TEXTS = np.array(["1", "2", "x"] * 4, dtype=object).reshape(3, 4)
OUT16 = np.empty(64, np.float16)
OUT_STRIDED = np.empty(128, np.float64)[::2]
LIKE = np.zeros(3, ml_dtypes.bfloat16)
TO = np.dtype(ml_dtypes.float8_e4m3fn)
INT4 = np.array([1, -2, 3, -4, 5], ml_dtypes.int4)
FP6 = np.array([1, -2, 3, -4, 5, 0.5, 7.5], ml_dtypes.float6_e2m3fn)
ARROW = pa.array(np.arange(40, dtype=np.float64), mask=np.arange(40) % 3 == 0)
ARROW_TEXTS = pa.array(["1", None, "2.5", "x"][:3] * 10)
MATRIX = np.arange(60, dtype=np.int32).reshape(6, 10)
Q_SCALE = np.linspace(0.5, 2, 10, dtype=np.float32)
Q_BLOCK = np.full((6, 4), 0.25, np.float16)
Q_ZP = np.arange(10, dtype=np.int8)
Q_INT4 = np.arange(60).reshape(6, 10).astype(ml_dtypes.int4)
Q_OUT = np.empty((6, 10), np.float32)
MX_X = np.linspace(-5, 5, 96, dtype=np.float32).reshape(3, 32)
MX_CODES, MX_SCALES = tc.quantize_mx(MX_X, "mxfp8_e5m2")
MX_SCALES_OUT = np.empty((2, 32), ml_dtypes.float8_e8m0fnu)
NV_CODES, NV_SCALES, NV_G = tc.quantize_nvfp4(MX_X)


def bad_cast():
    try:
        tc.cast(BAD_TEXTS, DT.FLOAT)
    except tc.CastError as e:
        assert e.index == 2
        return
    raise AssertionError("no CastError")


def bad_zero_point():
    try:
        tc.quantize_linear(X, np.float32(1), np.array(1, ml_dtypes.float8_e4m3fn))
    except ValueError:
        return
    raise AssertionError("no ValueError")


def bad_block_axis():
    try:
        tc.quantize_mx(MX_X, "mxfp4", axis=2)
    except ValueError:
        return
    raise AssertionError("no ValueError")


def bad_type():
    try:
        tc.cast(X, np.complex64)
    except TypeError:
        return
    raise AssertionError("no TypeError")


CALLS_OF = {
    "numeric": (lambda: tc.cast(X, TO), [X, TO]),
    "numeric_strided": (lambda: tc.cast(X_STRIDED, DT.FLOAT16), [X_STRIDED]),
    "sub_byte": (lambda: tc.cast(X, DT.INT4), [X]),
    "packed": (lambda: tc.cast(X, DT.INT2, packed=True), [X]),
    "pack_unpack": (lambda: tc.unpack(tc.pack(INT4), DT.INT4, 5), [INT4]),
    "float6": (lambda: tc.unpack(tc.pack(FP6), DT.FLOAT6E2M3, 7), [FP6]),
    "float6_cast": (lambda: tc.cast(FP6, DT.FLOAT6E3M2, packed=True), [FP6]),
    "strings_in": (lambda: tc.cast(TEXTS, DT.DOUBLE), [TEXTS]),
    "strings_out": (lambda: tc.cast(X, DT.STRING), [X]),
    "cast_error": (bad_cast, [BAD_TEXTS]),
    "type_error": (bad_type, [X]),
    "out": (lambda: tc.cast(X, DT.FLOAT16, out=OUT16), [X, OUT16]),
    "out_strided": (lambda: tc.cast(X, DT.DOUBLE, out=OUT_STRIDED), [X, OUT_STRIDED]),
    "cast_like": (lambda: tc.cast_like(X, LIKE, round_mode="down"), [X, LIKE]),
    "split": (lambda: tc.split(MATRIX, [3, 7], axis=1), [MATRIX]),
    "arrow": (lambda: tc.cast(ARROW, DT.INT16), [ARROW]),
    "arrow_strings": (lambda: tc.cast(ARROW_TEXTS, DT.FLOAT), [ARROW_TEXTS]),
    "quantize": (lambda: tc.quantize_linear(MATRIX.astype(np.float32), Q_SCALE, Q_ZP), [Q_SCALE]),
    "quantize_packed": (
        lambda: tc.quantize_linear(X, 0.5, output_dtype=DT.INT4, packed=True, threads=1),
        [X],
    ),
    "quantize_error": (bad_zero_point, [X]),
    "dequantize": (
        lambda: tc.dequantize_linear(Q_INT4, Q_BLOCK, block_size=3, output_dtype="float"),
        [Q_INT4, Q_BLOCK],
    ),
    "dequantize_out": (lambda: tc.dequantize_linear(MATRIX, Q_SCALE, out=Q_OUT), [MATRIX, Q_OUT]),
    "quantize_mx": (
        lambda: tc.quantize_mx(
            MX_X, "mxfp6_e3m2", axis=0, block_size=2, packed=True, scales_out=MX_SCALES_OUT
        ),
        [MX_X, MX_SCALES_OUT],
    ),
    "dequantize_mx": (
        lambda: tc.dequantize_mx(MX_CODES, MX_SCALES, "mxfp8_e5m2", output_dtype="bfloat16"),
        [MX_CODES, MX_SCALES],
    ),
    "quantize_nvfp4": (lambda: tc.quantize_nvfp4(MX_X, global_scale=NV_G), [MX_X, NV_G]),
    "dequantize_nvfp4": (
        lambda: tc.dequantize_nvfp4(NV_CODES, NV_SCALES, NV_G),
        [NV_CODES, NV_SCALES, NV_G],
    ),
    "quantize_absmax": (lambda: tc.quantize_absmax(MX_X, "int8", axis=1), [MX_X]),
    "block_scale_error": (bad_block_axis, [MX_X]),
}


@pytest.mark.parametrize("kind", list(CALLS_OF))
def test_no_leaks_over_10000_calls(kind):
    fn, args = CALLS_OF[kind]
    assert_no_leaks(fn, args, CALLS)


def test_leak_check_can_fail():
    # The bounds above catch a leak of one small object per call.
    kept = []
    gc.collect()
    objects = len(gc.get_objects())
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        for i in range(CALLS):
            kept.append(np.zeros(1) if i % 2 else [i])
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(gc.get_objects()) - objects >= 200
    assert current - base >= 64 * 1024
