"""tensorcast.quantize_linear and tensorcast.dequantize_linear (ONNX QuantizeLinear /
DequantizeLinear, opset 28 unless a test names another).

Oracles: onnx.reference (ReferenceEvaluator of a one-node model) on the cases where its
arithmetic is exact and follows the schema (float32 division, float32 products, zero
points that are zero for float outputs, no NaN / Inf / int32 overflow: the reference's
deviations are in docs/semantics.md section 12), and numpy written out: the quotient in the
division's precision, np.rint, + zero point, np.clip; DequantizeLinear's exact product in
float64 rounded once by hand. Never tensorcast's own output, except where a test states
that two ways of calling it must agree bit for bit (threads, out=, packed).
"""

import pickle
import warnings

import ml_dtypes
import numpy as np
import onnx
import pytest
import tensorcast as tc
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

DT = tc.DataType
RNG = np.random.default_rng(20240528)

# Quantized types: numpy / ml_dtypes dtype, and the integer range (None for float types).
QTYPES = {
    DT.INT8: (np.int8, (-128, 127)),
    DT.UINT8: (np.uint8, (0, 255)),
    DT.INT16: (np.int16, (-32768, 32767)),
    DT.UINT16: (np.uint16, (0, 65535)),
    DT.INT4: (ml_dtypes.int4, (-8, 7)),
    DT.UINT4: (ml_dtypes.uint4, (0, 15)),
    DT.INT2: (ml_dtypes.int2, (-2, 1)),
    DT.UINT2: (ml_dtypes.uint2, (0, 3)),
    DT.FLOAT8E4M3FN: (ml_dtypes.float8_e4m3fn, None),
    DT.FLOAT8E4M3FNUZ: (ml_dtypes.float8_e4m3fnuz, None),
    DT.FLOAT8E5M2: (ml_dtypes.float8_e5m2, None),
    DT.FLOAT8E5M2FNUZ: (ml_dtypes.float8_e5m2fnuz, None),
    DT.FLOAT4E2M1: (ml_dtypes.float4_e2m1fn, None),
    DT.FLOAT6E2M3: (ml_dtypes.float6_e2m3fn, None),
    DT.FLOAT6E3M2: (ml_dtypes.float6_e3m2fn, None),
}
INT_QTYPES = [t for t, (_, r) in QTYPES.items() if r is not None]
FLOAT_QTYPES = [t for t, (_, r) in QTYPES.items() if r is None]
PACKED_BITS = {
    DT.INT4: 4,
    DT.UINT4: 4,
    DT.FLOAT4E2M1: 4,
    DT.INT2: 2,
    DT.UINT2: 2,
    DT.FLOAT6E2M3: 6,
    DT.FLOAT6E3M2: 6,
}
# The largest finite value of each float quantized type.
FLOAT_MAX = {t: float(ml_dtypes.finfo(QTYPES[t][0]).max) for t in FLOAT_QTYPES}

# x of shape (3, 5, 7) and the scale layouts: (axis, block_size, scale shape).
SHAPE = (3, 5, 7)
LAYOUTS = [
    ("per_tensor_0d", 1, 0, ()),
    ("per_tensor_1", 1, 0, (1,)),
    ("per_axis_0", 0, 0, (3,)),
    ("per_axis_1", 1, 0, (5,)),
    ("per_axis_2", 2, 0, (7,)),
    ("per_axis_neg1", -1, 0, (7,)),
    ("per_axis_neg3", -3, 0, (3,)),
    ("blocked_1_b2_partial", 1, 2, (3, 3, 7)),
    ("blocked_1_b3_partial", 1, 3, (3, 2, 7)),
    ("blocked_neg1_b3_partial", -1, 3, (3, 5, 3)),
    ("blocked_0_b2_partial", 0, 2, (2, 5, 7)),
    ("blocked_2_b7_whole", 2, 7, (3, 5, 1)),
    ("blocked_neg2_b1", -2, 1, (3, 5, 7)),
]
LAYOUT_IDS = [layout[0] for layout in LAYOUTS]


def bits(a):
    """The bits of an array (sub-byte ml_dtypes: the byte holding the code)."""
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_same(got, want):
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(bits(got), bits(want))


def assert_same_nan_aware(got, want):
    """Equal bits, except that a NaN need only meet a NaN (its payload may differ)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    keep = ~np.isnan(w)
    np.testing.assert_array_equal(bits(got)[keep], bits(want)[keep])


def reference(op, inputs, opset=28, **attrs):
    """onnx.reference's result of a one-node model (inputs: arrays, None = omitted)."""
    names = ["i%d" % k if v is not None else "" for k, v in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, ["y"], **attrs)
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
        for n, v in zip(names, inputs)
        if n
    ]
    graph = helper.make_graph(
        [node], "g", infos, [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)]
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {n: v for n, v in zip(names, inputs) if n}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(model).run(None, feeds)[0]


def broadcast(v, shape, axis, block_size):
    """A per-tensor, per-axis or blocked scale / zero point as an array of x's shape."""
    v = np.asarray(v)
    if v.size == 1 and block_size == 0:
        return np.broadcast_to(v.reshape(()), shape)
    a = axis % len(shape)
    if block_size == 0:
        dims = [1] * len(shape)
        dims[a] = shape[a]
        return np.broadcast_to(v.reshape(dims), shape)
    return np.repeat(v, block_size, axis=a).take(np.arange(shape[a]), axis=a)


def random_scale(shape, lo=0.05, hi=4.0):
    s = RNG.uniform(lo, hi, shape).astype(np.float32)
    s[RNG.random(shape) < 0.3] *= -1  # negative scales divide as any other
    return s


def random_x(scale_full, t, with_ties=True):
    """float32 x whose quotients cover the type's range and some way beyond (saturation),
    with exact ties k + 0.5 where the scale is a power of two."""
    _, rng = QTYPES[t]
    span = (rng[1] - rng[0] + 1) if rng else 2 * FLOAT_MAX[t]
    q = RNG.uniform(-0.9 * span, 0.9 * span, scale_full.shape)
    if with_ties:
        ties = RNG.random(scale_full.shape) < 0.2
        q[ties] = np.round(q[ties]) + 0.5
    return (q * scale_full).astype(np.float32)


def random_zero_point(t, shape):
    dtype, rng = QTYPES[t]
    if rng is None:
        return np.zeros(shape, dtype)
    return RNG.integers(rng[0], rng[1] + 1, shape).astype(np.int64).astype(dtype)


def numpy_quantize_int(x, s, zp, t, precision=np.float32):
    """np.clip(np.rint(x / s) + zp, lo, hi): the quotient in `precision`."""
    _, (lo, hi) = QTYPES[t]
    q = np.rint((x.astype(precision) / s.astype(precision)).astype(np.float64))
    z = 0.0 if zp is None else zp.astype(np.float64)
    return np.clip(q + z, lo, hi).astype(np.int64).astype(QTYPES[t][0])


def round_once(v, mantissa_bits, min_exponent):
    """float64 values (exact) rounded to nearest even to a binary float of `mantissa_bits`
    significant bits whose smallest quantum is 2**min_exponent; overflow is not handled."""
    _, e = np.frexp(v)
    q = np.maximum(e - mantissa_bits, min_exponent)
    return np.ldexp(np.rint(np.ldexp(v, -q)), q)


def to_float16_once(v):
    with np.errstate(over="ignore"):  # beyond 65520: Inf, as IEEE rounding gives
        return round_once(v, 11, -24).astype(np.float16)


def to_bfloat16_once(v):
    return round_once(v, 8, -133).astype(np.float32).astype(ml_dtypes.bfloat16)


def random_codes(t, shape):
    """Every kind of code of a quantized type, NaN and Inf included (float types)."""
    dtype, rng = QTYPES[t]
    if rng is not None:
        return RNG.integers(rng[0], rng[1] + 1, shape).astype(np.int64).astype(dtype)
    nbits = PACKED_BITS.get(t, 8)
    return RNG.integers(0, 1 << nbits, shape).astype(np.uint8).view(dtype)


# ---------------------------------------------------------------------------------------
# QuantizeLinear against onnx.reference and numpy
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("t", list(QTYPES), ids=lambda t: t.name)
def test_quantize_equals_onnx_reference(t, layout):
    _, axis, block, sshape = layout
    s = random_scale(sshape)
    if RNG.random() < 0.5:  # powers of two: exact ties
        s = np.exp2(np.round(np.log2(np.abs(s)))).astype(np.float32) * np.sign(s)
    full = broadcast(s, SHAPE, axis, block)
    x = random_x(full, t)
    zp = random_zero_point(t, sshape)
    attrs = {"axis": axis} if block == 0 else {"axis": axis, "block_size": block}
    got = tc.quantize_linear(x, s, zp, axis=axis, block_size=block)
    want = reference("QuantizeLinear", [x, s, zp], **attrs)
    assert_same(got, want)
    # without a zero point: the type comes from output_dtype
    got = tc.quantize_linear(x, s, axis=axis, block_size=block, output_dtype=t)
    want = reference("QuantizeLinear", [x, s], output_dtype=int(t), **attrs)
    assert_same(got, want)


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("t", INT_QTYPES, ids=lambda t: t.name)
def test_quantize_equals_numpy_written_out(t, layout):
    _, axis, block, sshape = layout
    s = random_scale(sshape)
    full = broadcast(s, SHAPE, axis, block)
    x = random_x(full, t)
    zp = random_zero_point(t, sshape)
    got = tc.quantize_linear(x, s, zp, axis=axis, block_size=block)
    assert_same(got, numpy_quantize_int(x, full, broadcast(zp, SHAPE, axis, block), t))


BIG_SHAPE = (7, 300, 13)  # 27,300 elements: runs of a scale cross the library's chunks
BIG_LAYOUTS = [
    (0, 0, (7,)),
    (1, 0, (300,)),
    (-1, 0, (13,)),
    (1, 7, (7, 43, 13)),
    (-1, 4, (7, 300, 4)),
    (0, 3, (3, 300, 13)),
]


@pytest.mark.parametrize("layout", BIG_LAYOUTS, ids=str)
@pytest.mark.parametrize("t", [DT.INT8, DT.UINT4, DT.INT2, DT.FLOAT8E4M3FN, DT.FLOAT6E2M3])
def test_larger_tensors_equal_onnx_reference(t, layout):
    axis, block, sshape = layout
    attrs = {"axis": axis} if block == 0 else {"axis": axis, "block_size": block}
    s = random_scale(sshape)
    x = random_x(broadcast(s, BIG_SHAPE, axis, block), t)
    zp = random_zero_point(t, sshape)
    got = tc.quantize_linear(x, s, zp, axis=axis, block_size=block)
    assert_same(got, reference("QuantizeLinear", [x, s, zp], **attrs))
    xq = random_codes(t, BIG_SHAPE)
    got = tc.dequantize_linear(xq, s, zp, axis=axis, block_size=block)
    assert_same_nan_aware(got, reference("DequantizeLinear", [xq, s, zp], **attrs))


@pytest.mark.parametrize("t", FLOAT_QTYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("saturate", [True, False])
def test_quantize_float_outputs_are_a_cast_of_the_quotient(t, saturate):
    dtype = QTYPES[t][0]
    s = random_scale((5,))
    full = broadcast(s, SHAPE, 1, 0)
    x = random_x(full, t)
    x.flat[:4] = np.array([1e30, -1e30, 0.0, 3.0], np.float32)  # overflow both ways
    q = x / full
    with np.errstate(all="ignore"):
        if saturate:  # Cast's saturation: clamp to +-max first (FLOAT4 / FLOAT6 always)
            want = np.clip(q, -FLOAT_MAX[t], FLOAT_MAX[t]).astype(dtype)
        else:
            want = q.astype(dtype)
    got = tc.quantize_linear(x, s, output_dtype=t, saturate=saturate)
    if t in (DT.FLOAT4E2M1, DT.FLOAT6E2M3, DT.FLOAT6E3M2):
        # no Inf, no NaN: always saturated (ml_dtypes saturates too)
        want = np.clip(q, -FLOAT_MAX[t], FLOAT_MAX[t]).astype(dtype)
    assert_same(got, want)
    ref = reference("QuantizeLinear", [x, s], output_dtype=int(t), saturate=int(saturate))
    assert_same(got, ref)


def test_docs_python_md_example():
    # the example of docs/python.md, "QuantizeLinear and DequantizeLinear"
    x = np.array([[0.4, -1.3, 2.6, 300.0], [1.0, 2.0, 3.0, 4.0]], np.float32)
    s = np.array([0.5, 0.25], np.float32)
    q = tc.quantize_linear(x, s, np.zeros(2, np.int8), axis=0)
    assert q.dtype == np.int8 and q.tolist() == [[1, -3, 5, 127], [4, 8, 12, 16]]
    w = tc.dequantize_linear(q, s, np.zeros(2, np.int8), axis=0)
    assert w.dtype == np.float32 and w.tolist() == [[0.5, -1.5, 2.5, 63.5], [1, 2, 3, 4]]
    b = tc.quantize_linear(
        x, np.full((2, 2), 0.5, np.float16), axis=1, block_size=2, output_dtype="int4"
    )
    assert b.dtype == ml_dtypes.int4
    assert b.astype(int).tolist() == [[1, -3, 5, 7], [2, 4, 6, 7]]


def test_quantize_schema_examples():
    # round half to even before the zero point; int4 saturation (qdq_research values)
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5], np.float32)
    assert tc.quantize_linear(x, np.float32(1), np.int8(0)).tolist() == [0, 2, 2, 0, -2, -2]
    got = tc.quantize_linear(
        np.array([100, -100, 7.5, -8.5], np.float32), np.float32(1), output_dtype="int4"
    )
    assert got.dtype == ml_dtypes.int4 and got.astype(int).tolist() == [7, -8, 7, -8]
    got = tc.quantize_linear(np.array([0.5], np.float32), np.float32(1), np.uint8(1))
    assert got.tolist() == [1]
    got = tc.quantize_linear(np.array([1, 2, 3], np.float32), np.float32(-1), np.int8(0))
    assert got.tolist() == [-1, -2, -3]


def test_quantize_special_values():
    # NaN quotient -> the zero point; +-Inf and huge quotients saturate (no int32 wrap:
    # onnx.reference gives 0 / -128 here, docs/semantics.md section 12)
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2147483520.0], np.float32)
    assert tc.quantize_linear(x, np.float32(1), np.uint8(10)).tolist() == [10, 255, 0, 255, 0, 255]
    assert tc.quantize_linear(x, np.float32(1), np.int8(-3)).tolist() == [
        -3,
        127,
        -128,
        127,
        -128,
        127,
    ]
    # division by zero
    got = tc.quantize_linear(np.array([1, -1, 0], np.float32), np.float32(0), np.uint8(10))
    assert got.tolist() == [255, 0, 10]
    # float16 quotient overflowing to Inf
    x16 = np.array([60000, -60000], np.float16)
    assert tc.quantize_linear(x16, np.float16(0.5), np.int16(0)).tolist() == [32767, -32768]


def test_quantize_float_zero_point_adds_as_ieee():
    # A float zero point is +-0 and is added to the quotient as IEEE arithmetic does: only
    # the sign of a zero quotient changes (-0 + +0 = +0, -0 + -0 = -0); without a zero point
    # y is Cast(-0) (docs/semantics.md section 12.3)
    x = np.array([-0.0, 0.0, -1.0], np.float32)
    for t in FLOAT_QTYPES:
        dtype = QTYPES[t][0]
        neg0 = int(bits(np.array(-0.0, np.float32).astype(dtype))[0])
        got = tc.quantize_linear(x, np.float32(1), np.zeros((), dtype))
        assert bits(got)[:2].tolist() == [0, 0], t
        got = tc.quantize_linear(x, np.float32(1), np.array(-0.0, np.float32).astype(dtype))
        assert bits(got)[:2].tolist() == [neg0, 0], t
        got = tc.quantize_linear(x, np.float32(1), output_dtype=t)
        assert bits(got)[:2].tolist() == [neg0, 0], t
        assert float(got[2]) == -1.0


@pytest.mark.parametrize(
    "xt,st",
    [
        (np.float16, np.float16),
        (ml_dtypes.bfloat16, ml_dtypes.bfloat16),
        (np.int32, np.int32),
    ],
    ids=["float16", "bfloat16", "int32"],
)
@pytest.mark.parametrize("t", [DT.INT8, DT.UINT16, DT.INT4, DT.FLOAT8E4M3FN, DT.FLOAT6E3M2])
def test_quantize_other_x_types_equal_onnx_reference(xt, st, t):
    # the scale's type is the precision (numpy divides float16 / bfloat16 pairs correctly
    # rounded, int32 / int32 in float64, as the library's DOUBLE precision for INT32 scales)
    if xt is np.int32:
        s = RNG.integers(1, 9, (5,)).astype(np.int32)
        x = RNG.integers(-3000, 3000, SHAPE).astype(np.int32)
    else:
        # float16: x and the quotients within range (onnx.reference wraps Inf through int32)
        s = random_scale((5,), 1, 4).astype(xt)
        x = random_x(broadcast(s.astype(np.float32), SHAPE, 1, 0), t)
        x = np.clip(x, -60000, 60000).astype(xt)
    zp = random_zero_point(t, (5,))
    got = tc.quantize_linear(x, s, zp)
    assert_same(got, reference("QuantizeLinear", [x, s, zp], axis=1))


@pytest.mark.parametrize("precision", [DT.FLOAT, DT.FLOAT16, DT.BFLOAT16])
@pytest.mark.parametrize(
    "xt,st",
    [
        (np.float32, np.float16),
        (np.float16, np.float32),
        (ml_dtypes.bfloat16, np.float32),
        (np.int32, np.float32),
        (np.float32, ml_dtypes.bfloat16),
    ],
)
def test_quantize_precision_equals_onnx_reference(precision, xt, st):
    # with `precision`, onnx.reference divides x.astype(P) / scale.astype(P): the schema
    x = (RNG.uniform(-3000, 3000, (4, 6))).astype(np.float32).astype(xt)
    s = RNG.uniform(0.5, 8, (6,)).astype(st)
    zp = np.full(6, 7, np.int16)
    got = tc.quantize_linear(x, s, zp, axis=1, precision=precision)
    want = reference("QuantizeLinear", [x, s, zp], axis=1, precision=int(precision))
    assert_same(got, want)
    pt = {DT.FLOAT: np.float32, DT.FLOAT16: np.float16, DT.BFLOAT16: ml_dtypes.bfloat16}
    np_want = numpy_quantize_int(
        x, broadcast(s, x.shape, 1, 0), broadcast(zp, x.shape, 1, 0), DT.INT16, pt[precision]
    )
    assert_same(got, np_want)
    # every spelling of the type
    for spelling in (int(precision), precision.name.lower(), np.dtype(pt[precision])):
        assert_same(tc.quantize_linear(x, s, zp, axis=1, precision=spelling), got)


def test_quantize_precision_is_the_scale_type():
    # the scale's type decides the precision (onnx.reference promotes to float32 here and
    # gives 1001, and divides int32 by float32 in float64: 11487)
    got = tc.quantize_linear(np.array([1000.6], np.float32), np.float16(1), np.int16(0))
    assert got.tolist() == [1000]
    got = tc.quantize_linear(np.array([22678], np.int32), np.float32(1.9741459), np.int16(0))
    want = np.rint(np.float32(22678) / np.float32(1.9741459))
    assert got.tolist() == [int(want)] == [11488]


def test_quantize_e8m0_scale_equals_onnx_reference():
    s = np.array([0.25, 2, 8, 1], np.float32).astype(ml_dtypes.float8_e8m0fnu)
    x = RNG.uniform(-600, 600, (3, 4)).astype(np.float32)
    got = tc.quantize_linear(x, s, np.zeros(4, np.int8), axis=1)
    assert_same(got, reference("QuantizeLinear", [x, s, np.zeros(4, np.int8)], axis=1))
    assert tc.quantize_linear(
        np.array([1, 3, -7], np.float32), np.array(2, ml_dtypes.float8_e8m0fnu), np.int8(0)
    ).tolist() == [0, 2, -4]


# ---------------------------------------------------------------------------------------
# DequantizeLinear against onnx.reference and numpy
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("t", list(QTYPES), ids=lambda t: t.name)
def test_dequantize_equals_onnx_reference(t, layout):
    _, axis, block, sshape = layout
    x = random_codes(t, SHAPE)
    s = random_scale(sshape)
    zp = random_zero_point(t, sshape)
    attrs = {"axis": axis} if block == 0 else {"axis": axis, "block_size": block}
    got = tc.dequantize_linear(x, s, zp, axis=axis, block_size=block)
    assert got.dtype == np.float32
    assert_same_nan_aware(got, reference("DequantizeLinear", [x, s, zp], **attrs))
    got = tc.dequantize_linear(x, s, axis=axis, block_size=block)
    assert_same_nan_aware(got, reference("DequantizeLinear", [x, s], **attrs))


def finite_codes(t, shape):
    x = random_codes(t, shape)
    v = x.astype(np.float64)
    x[~np.isfinite(v)] = np.zeros((), x.dtype)
    return x


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("out_type", [DT.FLOAT16, DT.BFLOAT16, DT.FLOAT])
@pytest.mark.parametrize(
    "t", [DT.INT8, DT.UINT16, DT.INT16, DT.INT4, DT.UINT2, DT.FLOAT8E5M2, DT.FLOAT6E3M2]
)
def test_dequantize_rounds_once_to_the_output_type(t, out_type, layout):
    # (x - zp) * scale is exact in float64 here (at most 17 + 11 significant bits) and
    # rounds once to y's type; onnx.reference rounds to float32 first (docs/semantics.md
    # section 12), so numpy is the oracle
    _, axis, block, sshape = layout
    x = finite_codes(t, SHAPE)
    s = random_scale(sshape, 0.01, 2).astype(np.float16)
    zp = random_zero_point(t, sshape)
    full = broadcast(s, SHAPE, axis, block).astype(np.float64)
    exact = (x.astype(np.float64) - broadcast(zp, SHAPE, axis, block).astype(np.float64)) * full
    want = {
        DT.FLOAT16: to_float16_once,
        DT.BFLOAT16: to_bfloat16_once,
        DT.FLOAT: lambda v: v.astype(np.float32),
    }[out_type](exact)
    got = tc.dequantize_linear(x, s, zp, axis=axis, block_size=block, output_dtype=out_type)
    assert_same(got, want)
    if out_type == DT.FLOAT16:  # the scale's type is the default output type
        assert_same(tc.dequantize_linear(x, s, zp, axis=axis, block_size=block), want)


def test_dequantize_float16_single_rounding_example():
    # exact 8372.000244 -> float16 8376 (onnx.reference: 8368, float32 first)
    got = tc.dequantize_linear(np.array([23997], np.int16), np.float16(0.348876953125))
    assert got.dtype == np.float16 and got.tolist() == [8376.0]
    # bfloat16 output of a float32 scale: 0.1 * k rounded once
    got = tc.dequantize_linear(
        np.array([1, 2, 3], np.int8), np.float32(0.1), output_dtype="bfloat16"
    )
    want = to_bfloat16_once(np.array([1, 2, 3], np.float64) * np.float64(np.float32(0.1)))
    assert_same(got, want)


def test_dequantize_int32_is_exact():
    # onnx.reference converts int32 to float32 first (16777215, 12582912)
    x = np.array([16777217], np.int32)
    assert tc.dequantize_linear(x, np.float32(1), np.int32(1)).tolist() == [16777216.0]
    assert tc.dequantize_linear(x, np.float32(0.75)).tolist() == [12582913.0]
    xs = RNG.integers(-(2**31), 2**31, 1000).astype(np.int32)
    s = np.float16(0.3)
    want = (xs.astype(np.float64) * np.float64(s)).astype(np.float32)
    assert_same(tc.dequantize_linear(xs, s, output_dtype=np.float32), want)


def test_dequantize_e8m0_scale():
    x = RNG.integers(-128, 128, (4, 3)).astype(np.int8)
    s = np.array([0.125, 4, 1024], np.float32).astype(ml_dtypes.float8_e8m0fnu)
    for out in (DT.FLOAT, DT.FLOAT16, DT.BFLOAT16):
        got = tc.dequantize_linear(x, s, axis=1, output_dtype=out)
        want = reference("DequantizeLinear", [x, s], axis=1, output_dtype=int(out))
        assert_same(got, want)  # powers of two: exact
    with pytest.raises(ValueError, match="x_scale.*output_dtype"):
        tc.dequantize_linear(x, s, axis=1)  # onnx.reference returns FLOAT8E8M0


def test_dequantize_onnx_blocked_example():
    x = np.arange(10, dtype=np.uint8).reshape(2, 5)
    s = np.array([[1, 2], [4, 8]], np.float32)
    got = tc.dequantize_linear(x, s, axis=1, block_size=3)
    assert got.tolist() == [[0, 1, 2, 6, 8], [20, 24, 28, 64, 72]]


def test_dequantize_float_zero_points():
    x = np.array([0, 1, 2], np.float32)
    # FLOAT6 and FLOAT4 zero points must be zero (onnx.reference ignores a FLOAT4E2M1 one)
    for t in (DT.FLOAT6E2M3, DT.FLOAT4E2M1, DT.FLOAT8E4M3FN):
        xq = x.astype(QTYPES[t][0])
        got = tc.dequantize_linear(xq, np.float32(2), np.zeros((), QTYPES[t][0]))
        assert got.tolist() == [0, 2, 4]
        with pytest.raises(ValueError, match="x_zero_point: element 0 .* must be zero"):
            tc.dequantize_linear(xq, np.float32(2), np.ones((), QTYPES[t][0]))


# ---------------------------------------------------------------------------------------
# Older opsets
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("opset", [10, 11, 13, 18, 19, 21, 23, 24, 25, 28])
def test_quantize_older_opsets_equal_onnx_reference(opset):
    x = RNG.uniform(-300, 300, (3, 4)).astype(np.float32)
    s = np.float32(1.7)
    zp = np.uint8(100)
    got = tc.quantize_linear(x, s, zp, opset=opset)
    assert_same(got, reference("QuantizeLinear", [x, s, zp], opset=opset))
    if opset >= 13:
        sa = random_scale((3,))
        za = random_zero_point(DT.INT8, (3,))
        got = tc.quantize_linear(x, sa, za, axis=0, opset=opset)
        assert_same(got, reference("QuantizeLinear", [x, sa, za], opset=opset, axis=0))
    if opset >= 21:
        sb = np.abs(random_scale((3, 2)))
        got = tc.quantize_linear(x, sb, axis=1, block_size=3, output_dtype="int4", opset=opset)
        want = reference(
            "QuantizeLinear",
            [x, sb],
            opset=opset,
            axis=1,
            block_size=3,
            output_dtype=TensorProto.INT4,
        )
        assert_same(got, want)


@pytest.mark.parametrize("opset", [19, 21, 23, 25, 28])
def test_dequantize_older_opsets_equal_onnx_reference(opset):
    # onnx.reference has no DequantizeLinear before opset 19
    x = RNG.integers(-128, 128, (3, 4)).astype(np.int8)
    s = random_scale((4,))
    zp = random_zero_point(DT.INT8, (4,))
    got = tc.dequantize_linear(x, s, zp, opset=opset)
    assert_same(got, reference("DequantizeLinear", [x, s, zp], opset=opset, axis=1))


def test_dequantize_opsets_10_to_18_give_float():
    x = np.array([1, 2, 3], np.uint8)
    for opset in (10, 13, 18):
        got = tc.dequantize_linear(x, np.float32(0.5), np.uint8(1), opset=opset)
        assert got.dtype == np.float32 and got.tolist() == [0, 0.5, 1]
    with pytest.raises(TypeError, match="x_scale: FLOAT16"):
        tc.dequantize_linear(x, np.float16(0.5), opset=18)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        # a type of a later version
        (
            lambda: tc.quantize_linear(
                np.ones(2, np.float32), np.float32(1), opset=21, output_dtype="float4e2m1"
            ),
            TypeError,
            "output_dtype: FLOAT4E2M1 .* QuantizeLinear-21",
        ),
        (
            lambda: tc.quantize_linear(
                np.ones(2, np.float32),
                np.float32(1),
                np.zeros(1, ml_dtypes.float6_e2m3fn),
                opset=25,
            ),
            TypeError,
            "y_zero_point: FLOAT6E2M3",
        ),
        (
            lambda: tc.dequantize_linear(np.ones(2, ml_dtypes.int2), np.float32(1), opset=23),
            TypeError,
            "x: INT2",
        ),
        # one type for x and the scale at 19-22
        (
            lambda: tc.quantize_linear(np.ones(2, np.float16), np.float32(1), opset=21),
            TypeError,
            "y_scale: FLOAT .* differs from x's type FLOAT16",
        ),
        (
            lambda: tc.quantize_linear(np.ones(2, np.float16), np.float16(1), opset=13),
            TypeError,
            "x: FLOAT16",
        ),
        # attributes of later versions
        (
            lambda: tc.quantize_linear(
                np.ones((2, 4), np.float32), np.ones((2, 2), np.float32), block_size=2, opset=19
            ),
            ValueError,
            "block_size: QuantizeLinear-19 has no such attribute",
        ),
        (
            lambda: tc.quantize_linear(np.ones(2, np.float32), np.float32(1), axis=0, opset=10),
            ValueError,
            "axis: QuantizeLinear-10 has no such attribute",
        ),
        (
            lambda: tc.quantize_linear(
                np.ones(2, np.float32), np.float32(1), precision="float", opset=21
            ),
            ValueError,
            "precision: QuantizeLinear-21 has no such attribute",
        ),
        (
            lambda: tc.quantize_linear(
                np.ones(2, np.float32), np.float32(1), saturate=False, opset=18
            ),
            ValueError,
            "saturate",
        ),
        (
            lambda: tc.dequantize_linear(
                np.ones(2, np.int8), np.float32(1), output_dtype="float16", opset=21
            ),
            ValueError,
            "output_dtype: DequantizeLinear-21 has no such attribute",
        ),
        (
            lambda: tc.quantize_linear(
                np.ones((2, 3), np.float32), np.ones(3, np.float32), opset=10
            ),
            ValueError,
            r"y_scale: QuantizeLinear-10 takes a scalar scale, not \[3\]",
        ),
    ],
)
def test_older_opset_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


# ---------------------------------------------------------------------------------------
# Layouts: packed outputs, strides, byte order, empty and 0-d tensors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("t", list(PACKED_BITS), ids=lambda t: t.name)
@pytest.mark.parametrize("n", [1, 5, 7, 8, 13])
def test_quantize_packed_output_is_onnx_packing(t, n):
    x = RNG.uniform(-20, 20, n).astype(np.float32)
    s = np.float32(1.5)
    unpacked = tc.quantize_linear(x, s, output_dtype=t)
    assert unpacked.dtype == QTYPES[t][0] and unpacked.shape == (n,)
    packed = tc.quantize_linear(x, s, output_dtype=t, packed=True)
    assert packed.dtype == np.uint8 and packed.shape == ((n * PACKED_BITS[t] + 7) // 8,)
    # onnx.numpy_helper packs ml_dtypes arrays into TensorProto raw_data
    want = np.frombuffer(numpy_helper.from_array(unpacked).raw_data, np.uint8)
    np.testing.assert_array_equal(packed, want)
    assert_same(unpacked, reference("QuantizeLinear", [x, s], output_dtype=int(t)))
    # a 2-D x packs in C order
    x2 = RNG.uniform(-20, 20, (3, n)).astype(np.float32)
    p2 = tc.quantize_linear(x2, s, output_dtype=t, packed=True)
    u2 = tc.quantize_linear(x2, s, output_dtype=t)
    want2 = np.frombuffer(numpy_helper.from_array(u2).raw_data, np.uint8)
    np.testing.assert_array_equal(p2, want2)


def test_packed_needs_a_packed_output_type():
    with pytest.raises(ValueError, match="packed=True needs a packed output type .* not UINT8"):
        tc.quantize_linear(np.ones(3, np.float32), np.float32(1), packed=True)
    with pytest.raises(ValueError, match="packed=True needs a packed output type .* not FLOAT"):
        tc.dequantize_linear(np.ones(3, ml_dtypes.int4), np.float32(1), packed=True)


def test_strided_byte_swapped_and_read_only_inputs():
    base = RNG.uniform(-100, 100, (6, 10)).astype(np.float32)
    s = random_scale((5,))
    zp = random_zero_point(DT.INT8, (5,))
    want = tc.quantize_linear(np.ascontiguousarray(base[::2, ::-2]), s, zp)
    assert_same(tc.quantize_linear(base[::2, ::-2], s, zp), want)
    assert_same(tc.quantize_linear(base[::2, ::-2].astype(">f4"), s.astype(">f4"), zp), want)
    ro = np.ascontiguousarray(base[::2, ::-2])
    ro.setflags(write=False)
    assert_same(tc.quantize_linear(ro, s[::-1][::-1], zp), want)
    # DequantizeLinear: strided sub-byte x and a byte-swapped scale
    xq = random_codes(DT.INT4, (6, 10))
    sd = random_scale((10,))
    want = tc.dequantize_linear(np.ascontiguousarray(xq[:, ::-1]), sd)
    assert_same(tc.dequantize_linear(xq[:, ::-1], sd.astype(">f4")), want)


def test_zero_dim_and_empty_inputs():
    got = tc.quantize_linear(np.array(2.6, np.float32), np.float32(1), np.int8(1))
    assert got.shape == () and got.dtype == np.int8 and int(got) == 4
    got = tc.dequantize_linear(np.array(3, ml_dtypes.int4), np.float32(0.5))
    assert got.shape == () and float(got) == 1.5
    e = tc.quantize_linear(np.zeros((0, 5), np.float32), np.ones(5, np.float32), axis=1)
    assert e.shape == (0, 5) and e.dtype == np.uint8
    e = tc.quantize_linear(
        np.zeros((0, 5), np.float32), np.float32(1), output_dtype="int4", packed=True
    )
    assert e.shape == (0,) and e.dtype == np.uint8
    e = tc.dequantize_linear(np.zeros((4, 0), ml_dtypes.uint2), np.ones(4, np.float16), axis=0)
    assert e.shape == (4, 0) and e.dtype == np.float16


def test_rank1_per_axis_needs_axis_0():
    x = np.array([1, 2, 3], np.float32)
    s = np.array([1, 2, 4], np.float32)
    assert tc.quantize_linear(x, s, axis=0).tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match=r"axis: 1 is outside \[-1, 0\]"):
        tc.quantize_linear(x, s)


# ---------------------------------------------------------------------------------------
# out=, threads=, Python scalars, pickling
# ---------------------------------------------------------------------------------------


def test_out_is_written_and_returned():
    x = RNG.uniform(-50, 50, (4, 6)).astype(np.float32)
    s = random_scale((6,))
    zp = np.full(6, 3, np.int8)
    want = tc.quantize_linear(x, s, zp)
    out = np.empty((4, 6), np.int8)
    assert tc.quantize_linear(x, s, zp, out=out) is out
    assert_same(out, want)
    # a non-contiguous out
    big = np.zeros((4, 12), np.int8)
    view = big[:, ::2]
    assert tc.quantize_linear(x, s, zp, out=view) is view
    assert_same(np.ascontiguousarray(big[:, ::2]), want)
    assert (big[:, 1::2] == 0).all()
    # sub-byte outputs, unpacked and packed
    want4 = tc.quantize_linear(x, s, output_dtype="int4")
    out4 = np.empty((4, 6), ml_dtypes.int4)
    assert tc.quantize_linear(x, s, output_dtype="int4", out=out4) is out4
    assert_same(out4, want4)
    outp = np.empty(12, np.uint8)
    assert tc.quantize_linear(x, s, output_dtype="int4", packed=True, out=outp) is outp
    np.testing.assert_array_equal(outp, tc.quantize_linear(x, s, output_dtype="int4", packed=True))
    # DequantizeLinear
    xq = random_codes(DT.UINT4, (4, 6))
    wantd = tc.dequantize_linear(xq, s, output_dtype="bfloat16")
    outd = np.empty((4, 6), ml_dtypes.bfloat16)
    assert tc.dequantize_linear(xq, s, output_dtype="bfloat16", out=outd) is outd
    assert_same(outd, wantd)


def test_out_overlapping_an_input():
    # y may not overlap the inputs in the library: the package writes through a temporary
    buf = np.arange(8, dtype=np.float32)
    x = buf.view(np.int32)  # shares memory with out below
    out = buf.view(np.float32)
    want = tc.dequantize_linear(x.copy(), np.float32(2))
    assert tc.dequantize_linear(x, np.float32(2), out=out) is out
    assert_same(out, want)


@pytest.mark.parametrize(
    "out,exc,match",
    [
        (np.empty((4, 5), np.int8), ValueError, "out has shape"),
        (np.empty((4, 6), np.uint8), TypeError, "out has dtype uint8, the result has dtype int8"),
        ([0] * 24, TypeError, "out must be a numpy array"),
    ],
)
def test_out_errors(out, exc, match):
    x = np.zeros((4, 6), np.float32)
    with pytest.raises(exc, match=match):
        tc.quantize_linear(x, np.float32(1), np.int8(0), out=out)


def test_out_errors_packed_and_read_only():
    x = np.zeros(5, np.float32)
    with pytest.raises(ValueError, match=r"out has shape \(5,\), the result has shape \(3,\)"):
        tc.quantize_linear(
            x, np.float32(1), output_dtype="int4", packed=True, out=np.empty(5, np.uint8)
        )
    with pytest.raises(TypeError, match="out has dtype int4, the result has dtype uint8"):
        tc.quantize_linear(
            x, np.float32(1), output_dtype="int4", packed=True, out=np.empty(3, ml_dtypes.int4)
        )
    ro = np.empty(5, np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="out is read-only"):
        tc.dequantize_linear(np.zeros(5, np.int8), np.float32(1), out=ro)
    with pytest.raises(TypeError, match="out has dtype float32, the result has dtype float16"):
        tc.dequantize_linear(np.zeros(5, np.int8), np.float16(1), out=np.empty(5, np.float32))


def test_threads_give_identical_bits():
    # x + y well above the library's 1 MiB threshold for tasks
    x = RNG.uniform(-40, 40, (600, 1000)).astype(np.float32)
    x[::97, ::13] = np.nan
    s_axis = random_scale((1000,))
    s_block = np.abs(random_scale((600, 34)))  # blocks of 30, the last one of 10
    zp = random_zero_point(DT.INT4, (600, 34))
    calls = [
        lambda th: tc.quantize_linear(x, s_axis, axis=1, output_dtype="int8", threads=th),
        lambda th: tc.quantize_linear(x, s_block, zp, axis=1, block_size=30, threads=th),
        lambda th: tc.quantize_linear(
            x, s_block, zp, axis=1, block_size=30, packed=True, threads=th
        ),
        lambda th: tc.quantize_linear(x, np.float16(0.3), output_dtype="float6e2m3", threads=th),
        lambda th: tc.quantize_linear(
            x.astype(np.float16), np.float16(0.3), np.int16(-5), threads=th
        ),
    ]
    xq = random_codes(DT.UINT4, (600, 1000))
    zq = np.array(3, ml_dtypes.uint4)
    calls += [
        lambda th: tc.dequantize_linear(xq, s_axis, axis=1, threads=th),
        lambda th: tc.dequantize_linear(xq, np.float32(0.7), zq, threads=th),
        lambda th: tc.dequantize_linear(
            xq,
            s_block.astype(np.float16),
            axis=1,
            block_size=30,
            output_dtype="bfloat16",
            threads=th,
        ),
    ]
    for call in calls:
        one = call(1)
        for th in (2, 3, None):
            np.testing.assert_array_equal(bits(call(th)), bits(one))
    # and the blocked int4 result against numpy
    full = broadcast(s_block, x.shape, 1, 30)
    zfull = broadcast(zp, x.shape, 1, 30)
    want = numpy_quantize_int(np.nan_to_num(x), full, zfull, DT.INT4)
    nan = np.isnan(x)
    want[nan] = zfull[nan]
    assert_same(calls[1](2), want)


def test_python_scalars():
    x = np.array([1.0, 2.6, -3.0], np.float32)
    # a Python float scale takes x's float type; a Python int zero point takes output_dtype
    # (default UINT8)
    assert_same(tc.quantize_linear(x, 0.5, 3), tc.quantize_linear(x, np.float32(0.5), np.uint8(3)))
    assert_same(
        tc.quantize_linear(x, 0.5, -3, output_dtype="int4"),
        tc.quantize_linear(x, np.float32(0.5), np.array(-3, ml_dtypes.int4)),
    )
    x16 = x.astype(np.float16)
    assert_same(
        tc.quantize_linear(x16, 0.1, opset=19), tc.quantize_linear(x16, np.float16(0.1), opset=19)
    )
    xi = np.array([3, 5], np.int32)
    assert_same(tc.quantize_linear(xi, 2), tc.quantize_linear(xi, np.float32(2)))
    xq = np.array([1, 2], np.int8)
    assert_same(
        tc.dequantize_linear(xq, 0.1, 1), tc.dequantize_linear(xq, np.float32(0.1), np.int8(1))
    )
    with pytest.raises(
        ValueError, match=r"y_zero_point: -1 is outside the range of UINT8, \[0, 255\]"
    ):
        tc.quantize_linear(x, 0.5, -1)
    with pytest.raises(ValueError, match=r"y_zero_point: 8 is outside the range of INT4"):
        tc.quantize_linear(x, 0.5, 8, output_dtype="int4")
    with pytest.raises(TypeError, match="y_zero_point: 1.5 is not an integer"):
        tc.quantize_linear(x, 0.5, 1.5)
    with pytest.raises(ValueError, match="x_zero_point: 200 is outside the range of INT8"):
        tc.dequantize_linear(xq, 0.5, 200)
    # numpy scalars keep their dtype: np.float64 is DOUBLE, not a scale type
    with pytest.raises(TypeError, match="y_scale: DOUBLE"):
        tc.quantize_linear(x, np.float64(0.5))
    # the number takes y's type: output_dtype is checked first
    with pytest.raises(TypeError, match="output_dtype: STRING"):
        tc.quantize_linear(x, 0.5, 0, output_dtype="string")
    # a float zero point may be written 0 or 0.0
    got = tc.quantize_linear(x, 1.0, 0.0, output_dtype="float8e4m3fn")
    assert got.dtype == ml_dtypes.float8_e4m3fn


def test_functions_pickle_by_reference():
    for f in (tc.quantize_linear, tc.dequantize_linear):
        assert f.__module__ == "tensorcast"
        assert pickle.loads(pickle.dumps(f)) is f
    assert "quantize_linear" in tc.__all__ and "dequantize_linear" in tc.__all__


# ---------------------------------------------------------------------------------------
# Errors name the argument
# ---------------------------------------------------------------------------------------

X = np.zeros((2, 5), np.float32)
S1 = np.float32(1)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        # bad block sizes
        (
            lambda: tc.quantize_linear(X, np.ones((2, 2), np.float32), block_size=2),
            ValueError,
            r"block_size: 2 makes 3 blocks .* y_scale has 2; block_size must be in \[3, 4\]",
        ),
        (
            lambda: tc.quantize_linear(X, np.ones((2, 2), np.float32), block_size=-1),
            ValueError,
            "block_size: -1 is negative",
        ),
        (
            lambda: tc.dequantize_linear(
                np.zeros((2, 5), np.int8), np.ones((2, 2), np.float32), block_size=5
            ),
            ValueError,
            "block_size: 5 makes 1 blocks",
        ),
        (
            lambda: tc.quantize_linear(X, np.ones((1, 2), np.float32), block_size=3),
            ValueError,
            r"y_scale: shape \[1,2\] differs from x's \[2,5\] in dimension 0",
        ),
        (
            lambda: tc.quantize_linear(X, np.ones((2,), np.float32), block_size=3),
            ValueError,
            "y_scale: rank 1 differs from x's rank 2",
        ),
        (
            lambda: tc.quantize_linear(X, np.ones((2, 1), np.float32)),
            ValueError,
            r"y_scale: shape \[2,1\] is neither a scalar nor 1-D",
        ),
        (
            lambda: tc.quantize_linear(X, np.ones(4, np.float32)),
            ValueError,
            "y_scale: 4 values for dimension 1 of x, which has 5",
        ),
        (
            lambda: tc.quantize_linear(X, np.ones(5, np.float32), axis=2),
            ValueError,
            r"axis: 2 is outside \[-2, 1\]",
        ),
        # zero point type and shape
        (
            lambda: tc.dequantize_linear(np.zeros(3, np.int8), S1, np.uint8(0)),
            ValueError,
            "x_zero_point: UINT8 .* differs from x's type INT8",
        ),
        (
            lambda: tc.quantize_linear(X, S1, np.uint8(0), output_dtype="int8"),
            ValueError,
            "output_dtype: INT8 .* differs from the type of y_zero_point, UINT8",
        ),
        (
            lambda: tc.quantize_linear(X, S1, np.float32(0)),
            TypeError,
            "y_zero_point: FLOAT .* is not a type of QuantizeLinear-28",
        ),
        (
            lambda: tc.quantize_linear(X, np.ones(5, np.float32), np.zeros(4, np.uint8)),
            ValueError,
            r"y_zero_point: shape \[4\] differs from y_scale's \[5\]",
        ),
        # nonzero float zero points
        (
            lambda: tc.quantize_linear(X, S1, np.array(0.5, ml_dtypes.float8_e5m2)),
            ValueError,
            "y_zero_point: element 0 is the nonzero code 0x38; a FLOAT8E5M2 zero point",
        ),
        (
            lambda: tc.quantize_linear(
                X, np.ones(5, np.float32), np.array([0, 0, 0, 1, 0], ml_dtypes.float4_e2m1fn)
            ),
            ValueError,
            "y_zero_point: element 3 is the nonzero code 0x2",
        ),
        (
            lambda: tc.quantize_linear(X, S1, np.array(np.nan, ml_dtypes.float8_e4m3fnuz)),
            ValueError,
            "y_zero_point: element 0 is the nonzero code 0x80",
        ),
        # types
        (
            lambda: tc.quantize_linear(X.astype(np.float64), S1),
            TypeError,
            "x: DOUBLE .* is not a type of QuantizeLinear-28",
        ),
        (lambda: tc.quantize_linear(X, np.float64(1)), TypeError, "y_scale: DOUBLE"),
        (lambda: tc.quantize_linear(X, S1, output_dtype="int32"), TypeError, "output_dtype: INT32"),
        (
            lambda: tc.quantize_linear(X, S1, precision="int8"),
            ValueError,
            "precision: INT8 .* is not a precision of the division",
        ),
        (
            lambda: tc.dequantize_linear(X, S1),
            TypeError,
            "x: FLOAT .* is not a type of DequantizeLinear-28",
        ),
        (
            lambda: tc.dequantize_linear(np.zeros(3, np.int8), S1, output_dtype="int8"),
            TypeError,
            "output_dtype: INT8",
        ),
        (
            lambda: tc.quantize_linear(np.array(["1"]), S1),
            TypeError,
            "x: numpy dtype <U1 is not a numeric ONNX element type",
        ),
        (
            lambda: tc.quantize_linear(X, np.complex64(1)),
            TypeError,
            "y_scale: numpy dtype complex64",
        ),
        (
            lambda: tc.quantize_linear(X, S1, output_dtype="nonsense"),
            ValueError,
            "output_dtype: unknown type name 'nonsense'",
        ),
        (lambda: tc.quantize_linear(X, S1, precision=np.complex128), TypeError, "precision"),
        # plain arguments
        (lambda: tc.quantize_linear(X, S1, opset=29), ValueError, "opset: 29 is outside 10..28"),
        (lambda: tc.dequantize_linear(X, S1, opset=9), ValueError, "opset: 9 is outside"),
        (lambda: tc.quantize_linear(X, S1, axis=1.0), TypeError, "axis must be an integer"),
        (lambda: tc.quantize_linear(X, S1, block_size=True), TypeError, "block_size must be"),
        (lambda: tc.quantize_linear(X, S1, threads=0), ValueError, "threads must be None"),
        (
            lambda: tc.dequantize_linear(np.zeros(2, np.int8), S1, threads=True),
            ValueError,
            "threads must be None",
        ),
    ],
)
def test_errors_name_the_argument(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_errors_write_nothing():
    out = np.full(5, 7, np.uint8)
    zp = np.array([0, 0, 1, 0, 0], ml_dtypes.float8_e4m3fn)
    with pytest.raises(ValueError, match="y_zero_point: element 2"):
        tc.quantize_linear(
            np.zeros(5, np.float32),
            np.ones(5, np.float32),
            zp,
            axis=0,
            out=out.view(ml_dtypes.float8_e4m3fn),
        )
    assert (out == 7).all()


def test_onnx_is_the_version_the_tests_need():
    # the reference of FLOAT6 and INT2 QuantizeLinear / DequantizeLinear (opset 28)
    assert tuple(int(p) for p in onnx.__version__.split(".")[:2]) >= (1, 23)


def test_the_gil_is_released_during_the_work():
    # As test_threads.py does for cast: while one Python thread is inside a long call,
    # another keeps running (no gap of the call's length in its timestamps). An INT32 scale
    # (division in DOUBLE) takes the library's exact scalar path, a slow call.
    import threading
    import time

    x = RNG.standard_normal(1 << 19).astype(np.float32) * 300

    def call():
        return tc.quantize_linear(x, np.int32(3), np.int8(0), threads=1)

    t0 = time.perf_counter()
    call()
    took = time.perf_counter() - t0
    assert took > 0.02, "the call is too short to tell"
    done = threading.Event()
    worker = threading.Thread(target=lambda: (call(), done.set()))
    stamps = [time.perf_counter()]
    worker.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
    worker.join()
    stamps.append(time.perf_counter())
    assert np.diff(stamps).max() < 0.5 * took, (np.diff(stamps).max(), took)
