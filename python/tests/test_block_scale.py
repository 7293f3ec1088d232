"""tensorcast.quantize_mx / dequantize_mx, quantize_nvfp4 / dequantize_nvfp4 and
quantize_absmax (the library's tensorcast/block_scale.h).

Oracles: numpy written here from the OCP Microscaling Formats (MX) v1.0 specification (the
shared scale 2^e of a block, e = floor(log2(amax)) - emax, elements saturating) and from
the NVFP4 and absmax rules of docs/python.md, every element rounded once, to nearest with
ties to even, from its exact value (rne below: ml_dtypes converts float64 through float32,
two roundings, so it only ever sees values exact in float32 here); onnx.reference's
DequantizeLinear-28 for dequantization. Never tensorcast's own output, except where a test
states that two ways of calling it must agree bit for bit (threads, out=, packed=).
"""

import warnings

import ml_dtypes
import numpy as np
import onnx
import pytest
import tensorcast as tc
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

RNG_SEED = 20261129

# MX formats: the element type and emax, the exponent of its largest value.
MX = {
    "mxfp8_e4m3": (ml_dtypes.float8_e4m3fn, 8),
    "mxfp8_e5m2": (ml_dtypes.float8_e5m2, 15),
    "mxfp6_e2m3": (ml_dtypes.float6_e2m3fn, 2),
    "mxfp6_e3m2": (ml_dtypes.float6_e3m2fn, 4),
    "mxfp4": (ml_dtypes.float4_e2m1fn, 2),
}
# The largest values, from the spec (448, 57344, 7.5, 28, 6), checked against ml_dtypes.
MX_MAX = {"mxfp8_e4m3": 448.0, "mxfp8_e5m2": 57344.0, "mxfp6_e2m3": 7.5, "mxfp6_e3m2": 28.0,
          "mxfp4": 6.0}  # fmt: skip
E8M0 = ml_dtypes.float8_e8m0fnu
E4M3 = ml_dtypes.float8_e4m3fn
E2M1 = ml_dtypes.float4_e2m1fn
BF16 = ml_dtypes.bfloat16
IN_DTYPES = [np.float32, np.float16, BF16]
IN_IDS = ["float32", "float16", "bfloat16"]
# Mantissa bits of the inputs.
IN_MANT = {np.float32: 23, np.float16: 10, BF16: 7}
F32_MAX = float(np.finfo(np.float32).max)

# (x's shape with the blocks' axis last, axis): x is that array with its last axis moved to
# `axis`, C-contiguous. 64 elements along the axis of the 2-D shapes (blocks of 32 tile the
# rows: the one-pass kernel of FLOAT), 70 along the 3-D ones (partial last blocks).
LAYOUTS = [
    ((3, 64), 0),
    ((3, 64), 1),
    ((4, 64), -1),
    ((2, 3, 70), 0),
    ((2, 3, 70), 1),
    ((2, 3, 70), -1),
]
LAYOUT_IDS = ["2d_axis0", "2d_axis1", "2d_axis-1", "3d_axis0", "3d_axis1", "3d_axis-1"]
BLOCK_SIZES = [32, 16, 7, 1]


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def rne(v, dtype, saturate=True):
    """The exact float64 values v rounded once, to nearest with ties to even, to the float
    type `dtype` (ml_dtypes' finfo gives its mantissa bits, smallest normal exponent and
    largest value): beyond the largest value saturate (True) or overflow to infinity."""
    fi = ml_dtypes.finfo(dtype)
    fmax = float(fi.max)
    v = np.asarray(v, np.float64)
    a = np.abs(v)
    with np.errstate(invalid="ignore", over="ignore"):
        _, e = np.frexp(a)  # a = m * 2^e, m in [0.5, 1): floor(log2(a)) = e - 1
        ulp = np.ldexp(1.0, np.maximum(e - 1, fi.minexp) - fi.nmant)
        r = np.round(a / ulp) * ulp  # a / ulp is exact; np.round halves to even
        r = np.where(r > fmax, fmax if saturate else np.inf, r)
    r = np.where(np.isnan(v), np.nan, np.copysign(r, v))
    return r.astype(dtype)  # exact: r is a value of dtype (or NaN, infinity)


def test_oracle_rounding():
    """rne against values worked out by hand from the formats' tables."""
    got = rne([1.0625 + 2.0**-40, 1.0625, 1.1875, 464.0, 463.9, -0.25, 0.25 + 2**-30], E4M3)
    want = [1.125, 1.0, 1.25, 448.0, 448.0, -0.25, 0.25]
    np.testing.assert_array_equal(got.astype(np.float64), want)
    got = rne([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, -1e-30], E2M1)
    np.testing.assert_array_equal(got.astype(np.float64), [0, 1, 1, 2, 2, 4, 4, 6, -0.0])
    assert bits(got)[-1] == 0x8  # -0
    got = rne([65520.0, 65519.9, 2.0**-25, 2.0**-25 + 2.0**-40], np.float16, saturate=False)
    np.testing.assert_array_equal(got.astype(np.float64), [np.inf, 65504.0, 0.0, 2.0**-24])
    for fmt, (dtype, emax) in MX.items():
        assert float(ml_dtypes.finfo(dtype).max) == MX_MAX[fmt]
        assert 2.0**emax <= MX_MAX[fmt] < 2.0 ** (emax + 1)


# --- MX ---------------------------------------------------------------------------------------


def mx_reference(x, fmt, axis, block, rule):
    """OCP MX v1.0: (codes, scales, bad) of x, bad marking the elements of blocks that hold
    a NaN or an infinity (scale NaN; their codes are not compared)."""
    dtype, emax = MX[fmt]
    fmax = MX_MAX[fmt]
    xm = np.moveaxis(x.astype(np.float64), axis, -1)  # exact
    d = xm.shape[-1]
    nb = -(-d // block)
    pad = np.zeros(xm.shape[:-1] + (nb * block - d,))
    blocks = np.concatenate([xm, pad], axis=-1).reshape(xm.shape[:-1] + (nb, block))
    bad = ~np.isfinite(blocks).all(axis=-1)
    amax = np.abs(np.where(bad[..., None], 0.0, blocks)).max(axis=-1)
    _, ex = np.frexp(amax)
    e = (ex - 1) - emax  # floor(log2(amax)) - emax
    if rule == "rceil":  # the smallest e with amax * 2^-e <= fmax: floor's, or one more
        e = e + (np.ldexp(amax, -e) > fmax)
    e = np.where(amax == 0, -127, np.clip(e, -127, 127))
    scale_bits = np.where(bad, 0xFF, e + 127).astype(np.uint8)
    e_el = np.repeat(e, block, axis=-1)[..., :d]
    with np.errstate(invalid="ignore"):
        codes = rne(np.ldexp(xm, -e_el), dtype)  # x * 2^-e is exact in float64
    bad_el = np.repeat(bad, block, axis=-1)[..., :d]
    return (
        np.moveaxis(codes, -1, axis),
        np.moveaxis(scale_bits, -1, axis).view(E8M0),
        np.moveaxis(bad_el, -1, axis),
    )


def element_values(dtype):
    """The finite non-negative values of a float type of at most 8 bits, ascending."""
    v = np.arange(256, dtype=np.uint8)
    bits_n = {ml_dtypes.float6_e2m3fn: 6, ml_dtypes.float6_e3m2fn: 6, E2M1: 4}.get(dtype, 8)
    v = v[v < (1 << bits_n)].view(dtype).astype(np.float64)
    return np.unique(v[np.isfinite(v) & (v >= 0)])


def adversarial(shape_m, block, fmt, in_dtype, rng, specials=True):
    """x with its blocks along the last axis: in each block, values of the element format and
    the ties between them, times a power of two 2^k shared by the block, and one element
    that sets the block's amax to fmax * 2^k, just above it, just below 2^(emax+1) * 2^k,
    2^emax * 2^k or the top tie; whole zero blocks; zeros of both signs, subnormals, values
    near float32's largest, NaN and infinities sprinkled."""
    dtype, emax = MX[fmt]
    fmax = MX_MAX[fmt]
    vals = element_values(dtype)
    pool = np.concatenate([vals, (vals[1:] + vals[:-1]) / 2])
    p = IN_MANT[in_dtype]
    lead = int(np.prod(shape_m[:-1]))
    d = shape_m[-1]
    nb = -(-d // block)
    mag = pool[rng.integers(len(pool), size=(lead, nb, block))]
    drivers = np.array(
        [fmax, fmax + 2.0 ** (emax - p), 2.0 ** (emax + 1) - 2.0 ** (emax - p), 2.0**emax,
         (vals[-1] + vals[-2]) / 2]
    )  # fmt: skip
    which = rng.integers(len(drivers) + 1, size=(lead, nb))
    pos = rng.integers(block, size=(lead, nb))
    li, bi = np.nonzero(which < len(drivers))
    mag[li, bi, pos[li, bi]] = drivers[which[li, bi]]
    if in_dtype is np.float16:
        k = rng.integers(-24, 16 - emax, size=(lead, nb, 1))
    else:
        near = rng.integers(-12, 12, size=(lead, nb, 1))
        far = rng.integers(-140, 128 - emax, size=(lead, nb, 1))
        k = np.where(rng.random((lead, nb, 1)) < 0.6, near, far)
    v = mag * np.ldexp(1.0, k) * rng.choice([-1.0, 1.0], size=mag.shape)
    zero = rng.random((lead, nb)) < 0.05
    v[zero] = rng.choice([0.0, -0.0], size=(int(zero.sum()), block))
    v = v.reshape(lead, nb * block)[:, :d].reshape(shape_m)
    if specials:
        flat = v.reshape(-1)
        some = [0.0, -0.0, 2.0**-149, -(2.0**-149), 2.0**-127, 3 * 2.0**-140, F32_MAX, -F32_MAX,
                2.0**127, 1.5 * 2.0**126]  # fmt: skip
        m = rng.random(flat.size) < 0.02
        flat[m] = rng.choice(some, int(m.sum()))
        m = rng.random(flat.size) < 0.002
        flat[m] = rng.choice([np.nan, np.inf, -np.inf], int(m.sum()))
    with np.errstate(over="ignore"):
        return v.astype(in_dtype)


def layout_input(shape_m, axis, block, fmt, in_dtype, rng, specials=True):
    xm = adversarial(shape_m, block, fmt, in_dtype, rng, specials)
    return np.ascontiguousarray(np.moveaxis(xm, -1, axis))


def check_mx(x, fmt, axis, block, rule):
    codes, scales = tc.quantize_mx(x, fmt, axis=axis, block_size=block, scale_rule=rule)
    want_codes, want_scales, bad = mx_reference(x, fmt, axis, block, rule)
    case = "%s %s axis=%d block=%d x %s %s" % (fmt, rule, axis, block, x.dtype, x.shape)
    assert codes.dtype == MX[fmt][0] and codes.shape == x.shape, case
    assert scales.dtype == E8M0 and scales.shape == want_scales.shape, case
    np.testing.assert_array_equal(bits(scales), bits(want_scales), err_msg=case)
    np.testing.assert_array_equal(bits(codes)[~bad], bits(want_codes)[~bad], err_msg=case)
    if bad.any():  # a block with a NaN or an infinity dequantizes to NaN, all of it
        y = tc.dequantize_mx(codes, scales, fmt, axis=axis, block_size=block)
        assert np.isnan(y[bad]).all(), case
    return codes, scales, bad


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("in_dtype", IN_DTYPES, ids=IN_IDS)
@pytest.mark.parametrize("rule", ["floor", "rceil"])
@pytest.mark.parametrize("fmt", list(MX))
def test_quantize_mx_matches_oracle(fmt, rule, in_dtype, layout):
    shape_m, axis = layout
    rng = np.random.default_rng([RNG_SEED, LAYOUTS.index(layout), IN_DTYPES.index(in_dtype)])
    for block in BLOCK_SIZES:
        x = layout_input(shape_m, axis, block, fmt, in_dtype, rng)
        check_mx(x, fmt, axis, block, rule)


@pytest.mark.parametrize("fmt", list(MX))
def test_quantize_mx_edges(fmt):
    """Whole blocks at the rule's edges, one block per row of 8: amax exactly fmax * 2^k
    (e = k by both rules), just above (floor saturates, rceil takes k + 1), a power of two,
    zero blocks of both signs (scale 2^-127), subnormal amax, float32's largest."""
    dtype, emax = MX[fmt]
    fmax = MX_MAX[fmt]
    rows = []
    for k in (-130, -20, 0, 7, 127 - emax):
        for top in (fmax, fmax * (1 + 2.0**-23), 2.0**emax, 2.0 ** (emax + 1) * (1 - 2.0**-24)):
            rows.append([top, -top / 2, top / 3, 0.0, -0.0, 2.0**-149, top * 0.75, -top])
            rows[-1] = [v * 2.0**k for v in rows[-1]]
    rows.append([0.0] * 8)
    rows.append([-0.0] * 8)
    rows.append([2.0**-149, -(2.0**-148), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    rows.append([F32_MAX, -F32_MAX, 1.0, 2.0**-149, 0.0, 0.0, 0.0, 0.0])
    rows.append([np.nan, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    rows.append([1.0, -np.inf, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    with np.errstate(over="ignore"):
        x = np.array(rows, np.float64).astype(np.float32)
    for rule in ("floor", "rceil"):
        for block in (8, 32):  # one block per row; one partial block per row
            codes, scales, bad = check_mx(x, fmt, -1, block, rule)
            assert bits(scales)[-6:-4].tolist() == [[0], [0]]  # zero blocks: 2^-127
            assert bits(scales)[-2:].tolist() == [[0xFF], [0xFF]]
            y = tc.dequantize_mx(codes, scales, fmt, axis=-1, block_size=block)
            assert np.isnan(y[-2:]).all() and not np.isnan(y[:-2]).any()


def onnx_dequantize(nodes, inputs):
    """onnx.reference's output of a graph (nodes given as (op, inputs, output, attrs))."""
    made = [helper.make_node(op, i, [o], **attrs) for op, i, o, attrs in nodes]
    infos = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
        for n, v in inputs.items()
    ]
    out = helper.make_tensor_value_info(nodes[-1][2], TensorProto.UNDEFINED, None)
    graph = helper.make_graph(made, "g", infos, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(model).run(None, inputs)[0]


def assert_same_nan_aware(got, want, case=""):
    assert got.dtype == want.dtype and got.shape == want.shape, (case, got.dtype, want.dtype)
    g = np.isnan(got.astype(np.float64))
    np.testing.assert_array_equal(g, np.isnan(want.astype(np.float64)), err_msg=case)
    np.testing.assert_array_equal(bits(got)[~g], bits(want)[~g], err_msg=case)


def test_onnx_has_opset_28():
    # The dequantization tests need DequantizeLinear-28 (FLOAT6 codes): onnx >= 1.23.
    assert onnx.defs.onnx_opset_version() >= 28, onnx.__version__


OUTPUTS = [(np.float32, TensorProto.FLOAT), (np.float16, TensorProto.FLOAT16),
           (BF16, TensorProto.BFLOAT16)]  # fmt: skip


@pytest.mark.parametrize("layout", [LAYOUTS[0], LAYOUTS[2], LAYOUTS[4]], ids=lambda v: str(v))
@pytest.mark.parametrize("fmt", list(MX))
def test_dequantize_mx_matches_onnx_reference(fmt, layout):
    """Every code (NaN codes too) with scales from 2^-127 to 2^127 and NaN, into each
    output type: onnx.reference's DequantizeLinear-28, bit for bit (the products of MX codes
    and scales are exact in float32, so its float32 intermediate rounds nothing)."""
    dtype, _ = MX[fmt]
    shape_m, axis = layout
    rng = np.random.default_rng([RNG_SEED, 7, LAYOUTS.index(layout)])
    shape = np.moveaxis(np.empty(shape_m), -1, axis).shape
    n_codes = 256 if dtype in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2) else 64
    if dtype is E2M1:
        n_codes = 16
    for block in (32, 7):
        codes = rng.integers(n_codes, size=shape, dtype=np.uint8).view(dtype)
        sshape = list(shape)
        sshape[axis] = -(-shape[axis] // block)
        scale_bits = rng.integers(256, size=sshape, dtype=np.uint8)
        scale_bits.reshape(-1)[:3] = [0, 254, 255]
        scales = scale_bits.view(E8M0)
        for out_dtype, onnx_type in OUTPUTS:
            got = tc.dequantize_mx(
                codes, scales, fmt, axis=axis, block_size=block, output_dtype=out_dtype
            )
            attrs = {"axis": axis, "block_size": block, "output_dtype": onnx_type}
            want = onnx_dequantize(
                [("DequantizeLinear", ["c", "s"], "y", attrs)], {"c": codes, "s": scales}
            )
            assert_same_nan_aware(got, want.astype(out_dtype), "%s %s" % (block, out_dtype))


def test_quantize_then_dequantize_mx_matches_onnx_reference():
    """The round trip of adversarial x: dequantize_mx of quantize_mx's output is the ONNX
    graph's, and a finite block comes back within half a step of the element format."""
    rng = np.random.default_rng([RNG_SEED, 8])
    for fmt in MX:
        for rule in ("floor", "rceil"):
            x = layout_input((4, 64), 0, 32, fmt, np.float32, rng, specials=False)
            codes, scales = tc.quantize_mx(x, fmt, axis=0, scale_rule=rule)
            got = tc.dequantize_mx(codes, scales, fmt, axis=0)
            attrs = {"axis": 0, "block_size": 32, "output_dtype": TensorProto.FLOAT}
            want = onnx_dequantize(
                [("DequantizeLinear", ["c", "s"], "y", attrs)], {"c": codes, "s": scales}
            )
            assert_same_nan_aware(got, want, fmt)
            if rule == "rceil":  # nothing saturates: within half a step of the top binade
                fi = ml_dtypes.finfo(MX[fmt][0])
                scale = np.repeat(scales.astype(np.float64), 32, axis=0)[: x.shape[0]]
                half_step = np.ldexp(scale, MX[fmt][1] - fi.nmant - 1)
                assert np.all(np.abs(got.astype(np.float64) - x) <= half_step), fmt


# --- NVFP4 ------------------------------------------------------------------------------------


def nvfp4_reference(x, axis, g=None):
    """(codes, scale codes, g, bad): the NVFP4 rules of docs/python.md, from scratch."""
    x64 = x.astype(np.float64)
    finite = np.isfinite(x64)
    if g is None:
        amax_t = np.abs(np.where(finite, x64, 0.0)).max() if x.size else 0.0
        g = np.float32(1.0)
        if amax_t != 0:
            g = max(np.float32(amax_t) / np.float32(2688), np.float32(2.0**-126))
    g = np.float32(g)
    xm = np.moveaxis(x64, axis, -1)
    d = xm.shape[-1]
    nb = -(-d // 16)
    pad = np.zeros(xm.shape[:-1] + (nb * 16 - d,))
    blocks = np.concatenate([xm, pad], axis=-1).reshape(xm.shape[:-1] + (nb, 16))
    bad = ~np.isfinite(blocks).all(axis=-1)
    amax = np.abs(np.where(bad[..., None], 0.0, blocks)).max(axis=-1)
    q = amax / (6.0 * float(g))  # float64: more than enough bits for one rounding to E4M3
    sc = bits(rne(q, E4M3)).copy()  # saturating at 448 (0x7E)
    sc[sc == 0] = 0x01
    sc[bad] = 0x7F
    s_codes = sc.view(E4M3)
    s_float = s_codes.astype(np.float32) * g  # S = fl(E4M3 value * g), float32 product
    s_el = np.repeat(s_float, 16, axis=-1)[..., :d]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        # QuantizeLinear(x, S) with a FLOAT scale: the quotient in float32, then FLOAT4E2M1.
        quotient = xm.astype(np.float32) / s_el
    codes = rne(quotient.astype(np.float64), E2M1)
    bad_el = np.repeat(bad, 16, axis=-1)[..., :d]
    return (
        np.moveaxis(codes, -1, axis),
        np.moveaxis(s_codes, -1, axis),
        g,
        np.moveaxis(bad_el, -1, axis),
    )


def nvfp4_graph(codes, scales, g, axis):
    return onnx_dequantize(
        [
            ("DequantizeLinear", ["sc", "g"], "S", {}),
            ("DequantizeLinear", ["c", "S"], "y", {"axis": axis, "block_size": 16}),
        ],
        {"c": codes, "sc": scales, "g": np.array(g, np.float32)},
    )


@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
@pytest.mark.parametrize("in_dtype", IN_DTYPES, ids=IN_IDS)
def test_nvfp4_matches_oracle_and_onnx_graph(in_dtype, layout):
    shape_m, axis = layout
    rng = np.random.default_rng([RNG_SEED, 9, LAYOUTS.index(layout), IN_DTYPES.index(in_dtype)])
    for given in (None, 0.75, np.float32(3.0e-30), 1e30):
        x = layout_input(shape_m, axis, 16, "mxfp4", in_dtype, rng)
        codes, scales, g = tc.quantize_nvfp4(x, axis=axis, global_scale=given)
        want_codes, want_scales, want_g, bad = nvfp4_reference(
            x, axis, None if given is None else np.float32(given)
        )
        case = "%s %s given=%s" % (x.dtype, axis, given)
        assert type(g) is np.float32 and bits(np.array(g)) == bits(np.array(want_g)), case
        assert codes.dtype == E2M1 and scales.dtype == E4M3, case
        np.testing.assert_array_equal(bits(scales), bits(want_scales), err_msg=case)
        np.testing.assert_array_equal(bits(codes)[~bad], bits(want_codes)[~bad], err_msg=case)
        y = tc.dequantize_nvfp4(codes, scales, g, axis=axis)
        assert np.isnan(y[bad]).all(), case
        assert_same_nan_aware(y, nvfp4_graph(codes, scales, g, axis), case)
        # float16 and bfloat16: the exact product code * S rounded once
        s = np.repeat(np.moveaxis(scales.astype(np.float32) * g, axis, -1), 16, axis=-1)
        s = np.moveaxis(s[..., : shape_m[-1]], -1, axis).astype(np.float64)
        exact = codes.astype(np.float64) * s
        for out_dtype in (np.float16, BF16):
            got = tc.dequantize_nvfp4(codes, scales, g, axis=axis, output_dtype=out_dtype)
            assert_same_nan_aware(got, rne(exact, out_dtype, saturate=False), case)


def test_nvfp4_edges():
    x = np.zeros((3, 16), np.float32)
    codes, scales, g = tc.quantize_nvfp4(x)
    assert g == 1.0 and bits(scales).tolist() == [[1], [1], [1]]  # at least code 0x01
    x[0, 0] = np.nan
    x[1, 3] = -np.inf
    x[2, :] = 2.0**-149
    codes, scales, g = tc.quantize_nvfp4(x)
    assert g == np.float32(2.0**-126)  # max(amax / 2688, 2^-126)
    assert bits(scales).tolist() == [[0x7F], [0x7F], [0x01]]
    y = tc.dequantize_nvfp4(codes, scales, g)
    assert np.isnan(y[:2]).all() and not np.isnan(y[2]).any()
    # The codes are QuantizeLinear(x, S) with a FLOAT scale: the quotient rounded to float32
    # first. g = 1 + 2^-23 and a block of amax 6 give the scale code 1.0, S = g; then
    # x = 0.75 + 2^-24 has x / S = 0.75 - 2^-25 + 2^-48 (exactly), below the FLOAT4E2M1 tie
    # 0.75, but fl32(x / S) = 0.75, which goes to the even code: 1.0 (0x2), not 0.5 (0x1).
    g = np.float32(1 + 2.0**-23)
    x = np.array([[6.0, 0.75 + 2.0**-24] + [0.0] * 14], np.float32)
    codes, scales, g2 = tc.quantize_nvfp4(x, global_scale=g)
    assert g2 == g and bits(scales).tolist() == [[0x38]]  # E4M3 1.0
    assert bits(codes)[0, :2].tolist() == [0x7, 0x2]
    want_codes, want_scales, _, _ = nvfp4_reference(x, -1, g)
    np.testing.assert_array_equal(bits(codes), bits(want_codes))


# --- absmax -----------------------------------------------------------------------------------


def absmax_reference(x, code_type, axis):
    q = np.float32(127 if code_type == "int8" else 448)
    x32 = x.astype(np.float32)
    a = np.abs(np.where(np.isfinite(x32), x32, np.float32(0)))
    if axis is None:
        amax = a.max(keepdims=False) if x.size else np.float32(0)
        amax = np.asarray(amax)
    else:
        amax = np.moveaxis(a, axis, 0).reshape(x.shape[axis], -1).max(axis=1, initial=0)
    with np.errstate(divide="ignore"):
        scale = np.where(amax == 0, np.float32(1), np.maximum(amax / q, np.float32(2.0**-126)))
    scale = scale.astype(np.float32)
    shaped = scale
    if axis is not None:
        shape = [1] * x.ndim
        shape[axis] = x.shape[axis]
        shaped = scale.reshape(shape)
    with np.errstate(invalid="ignore", over="ignore"):
        quotient = x32 / shaped  # float32, as QuantizeLinear with a FLOAT scale
    if code_type == "int8":
        r = np.clip(np.rint(np.where(np.isnan(quotient), 0, quotient)), -128, 127)
        codes = r.astype(np.int8)
    else:
        codes = rne(quotient.astype(np.float64), E4M3)
    return codes, scale


@pytest.mark.parametrize("in_dtype", IN_DTYPES, ids=IN_IDS)
@pytest.mark.parametrize("code_type", ["int8", "float8_e4m3fn"])
def test_quantize_absmax_matches_oracle(code_type, in_dtype):
    rng = np.random.default_rng([RNG_SEED, 10, IN_DTYPES.index(in_dtype)])
    for shape_m, axis in LAYOUTS:
        x = layout_input(shape_m, axis, 7, "mxfp8_e4m3", in_dtype, rng)
        for ax in (None, axis, 0, -1):
            codes, scales = tc.quantize_absmax(x, code_type, axis=ax)
            want_codes, want_scales = absmax_reference(x, code_type, ax)
            case = "%s %s axis=%s" % (x.dtype, x.shape, ax)
            assert scales.dtype == np.float32 and codes.dtype == want_codes.dtype, case
            np.testing.assert_array_equal(bits(scales), bits(want_scales), err_msg=case)
            assert_same_nan_aware(codes, want_codes, case)
    # every channel zero but one; a tensor of zeros (scale 1); a tiny amax (2^-126)
    x = np.zeros((3, 4), np.float32)
    x[1] = [1e-40, -254.0, np.nan, 3.0]
    codes, scales = tc.quantize_absmax(x.astype(in_dtype), code_type, axis=0)
    want_codes, want_scales = absmax_reference(x.astype(in_dtype), code_type, 0)
    np.testing.assert_array_equal(scales, want_scales)
    assert_same_nan_aware(codes, want_codes)
    assert tc.quantize_absmax(np.zeros(5, in_dtype), code_type)[1] == 1.0
    tiny = np.full(4, 2.0**-140, np.float32)
    assert tc.quantize_absmax(tiny, code_type)[1] == np.float32(2.0**-126)


def test_absmax_dequantizes_with_dequantize_linear():
    """docs/python.md: absmax codes come back through dequantize_linear (per tensor: the 0-d
    scale; per channel: axis=k), each value the exact product rounded once to float32."""
    x = layout_input((3, 4, 70), 1, 7, "mxfp8_e4m3", np.float32, np.random.default_rng(7))
    for code_type in ("int8", "float8_e4m3fn"):
        for axis in (None, 0, 1, -1):
            codes, scales = tc.quantize_absmax(x, code_type, axis=axis)
            if axis is None:
                y = tc.dequantize_linear(codes, scales)
                s = scales.astype(np.float64)
            else:
                y = tc.dequantize_linear(codes, scales, axis=axis)
                shape = [1] * x.ndim
                shape[axis] = x.shape[axis]
                s = scales.astype(np.float64).reshape(shape)
            with np.errstate(over="ignore"):  # code 127 * fl(amax / 127) may pass float32's max
                want = (codes.astype(np.float64) * s).astype(np.float32)  # exact, rounded once
            assert_same_nan_aware(y, want, "%s %s" % (code_type, axis))


@pytest.mark.parametrize(
    "spelling",
    ["int8", "INT8", np.int8, np.dtype("int8"), tc.DataType.INT8, 3, "tensor(int8)",
     "float8_e4m3fn", "float8e4m3fn", "FLOAT8E4M3FN", E4M3, tc.DataType.FLOAT8E4M3FN, 17],
)  # fmt: skip
def test_quantize_absmax_type_spellings(spelling):
    x = np.array([1.0, -2.0, 0.5], np.float32)
    codes, _ = tc.quantize_absmax(x, spelling)
    assert codes.dtype in (np.dtype(np.int8), np.dtype(E4M3))


# --- layouts of the results: packed, out=, scales_out=, threads= ------------------------------


@pytest.mark.parametrize("fmt", ["mxfp6_e2m3", "mxfp6_e3m2", "mxfp4"])
def test_packed_codes_are_the_packed_unpacked_codes(fmt):
    x = layout_input((3, 70), 1, 32, fmt, np.float32, np.random.default_rng(1), False)
    codes, scales = tc.quantize_mx(x, fmt, axis=1)
    packed, scales2 = tc.quantize_mx(x, fmt, axis=1, packed=True)
    assert packed.dtype == np.uint8 and packed.shape == (tc.pack(codes).size,)
    np.testing.assert_array_equal(packed, tc.pack(codes))
    np.testing.assert_array_equal(bits(scales), bits(scales2))
    out = np.empty_like(packed)
    assert tc.quantize_mx(x, fmt, axis=1, packed=True, out=out)[0] is out
    np.testing.assert_array_equal(out, packed)
    n_packed, _, _ = tc.quantize_nvfp4(x, packed=True)
    n_codes, _, _ = tc.quantize_nvfp4(x)
    np.testing.assert_array_equal(n_packed, tc.pack(n_codes))


def test_out_and_scales_out():
    x = layout_input((2, 3, 70), 1, 16, "mxfp4", np.float32, np.random.default_rng(2), False)
    codes, scales = tc.quantize_mx(x, "mxfp4", axis=1, block_size=16)
    out = np.empty(x.shape, E2M1)
    sout = np.empty(scales.shape, E8M0)
    c2, s2 = tc.quantize_mx(x, "mxfp4", axis=1, block_size=16, out=out, scales_out=sout)
    assert c2 is out and s2 is sout
    np.testing.assert_array_equal(bits(out), bits(codes))
    np.testing.assert_array_equal(bits(sout), bits(scales))
    # non-contiguous outputs are written through a temporary
    out_t = np.zeros((x.shape[0], x.shape[1], x.shape[2] * 2), E2M1)[:, :, ::2]
    sout_t = np.zeros((scales.shape[0], scales.shape[1], scales.shape[2] * 2), E8M0)[:, :, ::2]
    c3, s3 = tc.quantize_mx(x, "mxfp4", axis=1, block_size=16, out=out_t, scales_out=sout_t)
    assert c3 is out_t and s3 is sout_t
    np.testing.assert_array_equal(bits(out_t), bits(codes))
    np.testing.assert_array_equal(bits(sout_t), bits(scales))
    # nvfp4 and absmax, dequantize
    n, ns, g = tc.quantize_nvfp4(x, axis=1)
    nout = np.empty(x.shape, E2M1)
    nsout = np.empty(ns.shape, E4M3)
    n2, ns2, _ = tc.quantize_nvfp4(x, axis=1, out=nout, scales_out=nsout)
    assert n2 is nout and ns2 is nsout
    np.testing.assert_array_equal(bits(nout), bits(n))
    np.testing.assert_array_equal(bits(nsout), bits(ns))
    yout = np.empty(x.shape, np.float16)
    assert tc.dequantize_nvfp4(n, ns, g, axis=1, output_dtype="float16", out=yout) is yout
    aout = np.empty(x.shape, np.int8)
    assert tc.quantize_absmax(x, "int8", out=aout)[0] is aout
    mout = np.empty(x.shape, BF16)
    y = tc.dequantize_mx(codes, scales, "mxfp4", axis=1, block_size=16, output_dtype=BF16)
    assert (
        tc.dequantize_mx(
            codes, scales, "mxfp4", axis=1, block_size=16, output_dtype="bfloat16", out=mout
        )
        is mout
    )
    np.testing.assert_array_equal(bits(mout), bits(y))


def test_inputs_in_any_layout():
    """A strided or byte-swapped x is read as its values: the same bits as a copy."""
    rng = np.random.default_rng(3)
    x = layout_input((6, 64), 1, 32, "mxfp8_e4m3", np.float32, rng)
    for view in (x[::2], x.T.copy().T, x.astype(">f4")):
        for a, b in zip(
            tc.quantize_mx(view, "mxfp8_e4m3"),
            tc.quantize_mx(np.array(view, np.float32), "mxfp8_e4m3"),
        ):
            np.testing.assert_array_equal(bits(a), bits(b))
    c, s = tc.quantize_mx(x, "mxfp6_e3m2")
    y = tc.dequantize_mx(c, s, "mxfp6_e3m2")
    strided_c = np.zeros((6, 128), c.dtype)
    strided_c[:, ::2] = c
    np.testing.assert_array_equal(
        bits(tc.dequantize_mx(strided_c[:, ::2], s, "mxfp6_e3m2")), bits(y)
    )


def test_docs_python_md_example():
    # the example of docs/python.md, "Block-scaled quantization"
    x = np.array([0.1, -0.5, 3.0, 1000.0] * 8, np.float32)
    codes, scales = tc.quantize_mx(x, "mxfp8_e4m3")
    assert scales.dtype == E8M0 and scales.astype(float).tolist() == [2.0]
    assert codes.dtype == E4M3 and codes[:4].astype(float).tolist() == [
        0.05078125,
        -0.25,
        1.5,
        448.0,
    ]
    y = tc.dequantize_mx(codes, scales, "mxfp8_e4m3")
    assert y.dtype == np.float32 and y[:4].tolist() == [0.1015625, -0.5, 3.0, 896.0]
    codes, scales = tc.quantize_mx(x, "mxfp8_e4m3", scale_rule="rceil")
    assert scales.astype(float).tolist() == [4.0]
    assert tc.dequantize_mx(codes, scales, "mxfp8_e4m3")[3] == 1024.0
    n, ns, g = tc.quantize_nvfp4(x.reshape(2, 16))
    assert (n.dtype, ns.dtype, ns.shape, type(g)) == (E2M1, E4M3, (2, 1), np.float32)
    q, s = tc.quantize_absmax(x.reshape(4, 8), "int8", axis=0)
    assert q.dtype == np.int8 and s.dtype == np.float32 and s.shape == (4,)


def test_input_kinds():
    """float32 / float16 / bfloat16 arrays are taken as they are, whatever carries them
    (a memoryview, an unaligned view); lists and pyarrow arrays are refused with TypeError
    (a list of Python floats is float64: nothing is rounded behind the caller's back)."""
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    codes, scales = tc.quantize_mx(x, "mxfp8_e5m2")
    for same in (memoryview(x), np.frombuffer(b"\0" + x.tobytes(), np.float32, 64, 1)):
        c, s = tc.quantize_mx(same, "mxfp8_e5m2")
        np.testing.assert_array_equal(bits(c), bits(codes))
        np.testing.assert_array_equal(bits(s), bits(scales))
    with pytest.raises(TypeError, match="float64"):
        tc.quantize_mx(x.tolist(), "mxfp8_e5m2")
    c, s = tc.quantize_mx(tc.cast(x.tolist(), "float32"), "mxfp8_e5m2")
    np.testing.assert_array_equal(bits(c), bits(codes))
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(TypeError, match="pyarrow"):
        tc.quantize_mx(pa.array(x), "mxfp8_e5m2")
    with pytest.raises(TypeError, match="pyarrow"):
        tc.quantize_absmax(pa.array(x), "int8")


def test_empty_inputs():
    for shape, axis in (((0,), 0), ((0, 64), -1), ((3, 0), -1), ((3, 0), 0)):
        x = np.zeros(shape, np.float32)
        codes, scales = tc.quantize_mx(x, "mxfp4", axis=axis)
        sshape = list(shape)
        sshape[axis] = -(-shape[axis] // 32)
        assert codes.shape == shape and scales.shape == tuple(sshape)
        assert tc.dequantize_mx(codes, scales, "mxfp4", axis=axis).shape == shape
        n, ns, g = tc.quantize_nvfp4(x, axis=axis)
        assert g == 1.0 and n.shape == shape
        codes, s = tc.quantize_absmax(x, "int8")
        assert codes.shape == shape and s.shape == () and s == 1.0


def test_threads_give_the_same_bits():
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((1000, 1056)) * np.exp2(rng.integers(-20, 20, (1000, 1)))).astype(
        np.float32
    )
    for fmt, axis in (("mxfp8_e4m3", -1), ("mxfp6_e2m3", -1), ("mxfp4", 0)):
        one = tc.quantize_mx(x, fmt, axis=axis, threads=1)
        two = tc.quantize_mx(x, fmt, axis=axis, threads=2)
        for a, b in zip(one, two):
            np.testing.assert_array_equal(bits(a), bits(b))
        y1 = tc.dequantize_mx(*one, fmt, axis=axis, threads=1)
        y2 = tc.dequantize_mx(*one, fmt, axis=axis, threads=2)
        np.testing.assert_array_equal(bits(y1), bits(y2))
    one = tc.quantize_nvfp4(x, threads=1)
    two = tc.quantize_nvfp4(x, threads=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(bits(np.asarray(a)), bits(np.asarray(b)))
    for axis in (None, 1):
        one = tc.quantize_absmax(x, "float8_e4m3fn", axis=axis, threads=1)
        two = tc.quantize_absmax(x, "float8_e4m3fn", axis=axis, threads=2)
        for a, b in zip(one, two):
            np.testing.assert_array_equal(bits(a), bits(b))


# --- errors -----------------------------------------------------------------------------------


X = np.linspace(-3, 3, 128, dtype=np.float32).reshape(2, 64)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: tc.quantize_mx(X, "mxfp9"), ValueError, ["fmt", "mxfp9"]),
        (lambda: tc.quantize_mx(X, "nvfp4"), ValueError, ["fmt", "quantize_nvfp4"]),
        (lambda: tc.quantize_mx(X, 5), TypeError, ["fmt"]),
        (lambda: tc.dequantize_mx(X, X, "MXFP4"), ValueError, ["fmt", "MXFP4"]),
        (lambda: tc.quantize_mx(X, "mxfp4", scale_rule="ceil"), ValueError, ["scale_rule"]),
        (lambda: tc.quantize_mx(X, "mxfp4", axis=2), ValueError, ["axis", "2"]),
        (lambda: tc.quantize_mx(X, "mxfp4", axis=-3), ValueError, ["axis"]),
        (lambda: tc.quantize_mx(X, "mxfp4", axis=0.0), TypeError, ["axis"]),
        (lambda: tc.quantize_mx(X, "mxfp4", block_size=-2), ValueError, ["block_size"]),
        (lambda: tc.quantize_mx(X[0, 0], "mxfp4"), ValueError, ["scalar"]),
        (lambda: tc.quantize_nvfp4(X, axis=5), ValueError, ["axis"]),
        (lambda: tc.quantize_absmax(X, "int8", axis=2), ValueError, ["axis"]),
        (lambda: tc.quantize_absmax(X, "int4"), TypeError, ["dtype", "INT4"]),
        (lambda: tc.quantize_absmax(X, "uint8"), TypeError, ["dtype"]),
        (lambda: tc.quantize_absmax(X, "nonsense"), ValueError, ["dtype"]),
        (lambda: tc.quantize_mx(X.astype(np.float64), "mxfp4"), TypeError, ["float64", "cast"]),
        (lambda: tc.quantize_nvfp4(X.astype(np.float64)), TypeError, ["float64", "float32"]),
        (lambda: tc.quantize_absmax(X.astype(np.int32), "int8"), TypeError, ["int32"]),
        (lambda: tc.quantize_mx([1.0, 2.0], "mxfp4"), TypeError, ["float64", "cast"]),
        (lambda: tc.quantize_mx(X, "mxfp4", stats_out={}), TypeError, ["stats_out", "CastStats"]),
        (lambda: tc.quantize_nvfp4(X, stats_out=[]), TypeError, ["stats_out", "CastStats"]),
        (lambda: tc.quantize_absmax(X, "int8", stats_out=1), TypeError, ["stats_out", "CastStats"]),
        (lambda: tc.quantize_mx(X, "mxfp4", out=np.empty((2, 63), E2M1)), ValueError, ["out"]),
        (lambda: tc.quantize_mx(X, "mxfp4", out=np.empty((2, 64), E4M3)), TypeError, ["out"]),
        (lambda: tc.quantize_mx(X, "mxfp4", out=[0] * 128), TypeError, ["out"]),
        (lambda: tc.quantize_mx(X, "mxfp4", scales_out=np.empty((2, 1), E8M0)), ValueError,
         ["scales_out", "(2, 2)"]),
        (lambda: tc.quantize_mx(X, "mxfp4", scales_out=np.empty((2, 2), np.uint8)), TypeError,
         ["scales_out"]),
        (lambda: tc.quantize_nvfp4(X, scales_out=np.empty((2, 4), E8M0)), TypeError,
         ["scales_out"]),
        (lambda: tc.quantize_mx(X, "mxfp8_e4m3", packed=True), ValueError, ["packed"]),
        (lambda: tc.quantize_mx(X, "mxfp4", packed=True, out=np.empty((2, 64), E2M1)),
         ValueError, ["out"]),
        (lambda: tc.quantize_nvfp4(X, global_scale=0.0), ValueError, ["global_scale"]),
        (lambda: tc.quantize_nvfp4(X, global_scale=np.inf), ValueError, ["global_scale"]),
        (lambda: tc.quantize_nvfp4(X, global_scale=np.float64(1)), TypeError, ["global_scale"]),
        (lambda: tc.quantize_nvfp4(X, global_scale="1"), TypeError, ["global_scale"]),
        (lambda: tc.quantize_mx(X, "mxfp4", threads=0), ValueError, ["threads"]),
    ],
)  # fmt: skip
def test_errors(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value), str(info.value)


def test_read_only_outputs_are_refused():
    ro = np.empty((2, 64), E2M1)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="out is read-only"):
        tc.quantize_mx(X, "mxfp4", out=ro)
    sro = np.empty((2, 2), E8M0)
    sro.setflags(write=False)
    with pytest.raises(ValueError, match="scales_out is read-only"):
        tc.quantize_mx(X, "mxfp4", scales_out=sro)


def test_dequantize_errors():
    codes, scales = tc.quantize_mx(X, "mxfp4")
    n, ns, g = tc.quantize_nvfp4(X)
    cases = [
        (lambda: tc.dequantize_mx(codes, scales, "mxfp6_e2m3"), TypeError, "codes"),
        (lambda: tc.dequantize_mx(codes.view(np.uint8), scales, "mxfp4"), TypeError, "codes"),
        (lambda: tc.dequantize_mx(codes, scales.view(np.uint8), "mxfp4"), TypeError, "scales"),
        (lambda: tc.dequantize_mx(codes, scales[:, :1], "mxfp4"), ValueError, "scales"),
        (lambda: tc.dequantize_mx(codes, scales, "mxfp4", block_size=16), ValueError, "scales"),
        (lambda: tc.dequantize_mx(codes, scales, "mxfp4", axis=2), ValueError, "axis"),
        (lambda: tc.dequantize_mx(codes, scales, "mxfp4", output_dtype="int8"), TypeError,
         "output_dtype"),
        (lambda: tc.dequantize_mx(codes, scales, "mxfp4", output_dtype="float64"), TypeError,
         "output_dtype"),
        (lambda: tc.dequantize_mx(codes, scales, "mxfp4", packed=True), ValueError, "packed"),
        (lambda: tc.dequantize_mx(codes, scales, "mxfp4", out=np.empty((2, 64), np.float16)),
         TypeError, "out"),
        (lambda: tc.dequantize_nvfp4(n, ns, "1"), TypeError, "global_scale"),
        (lambda: tc.dequantize_nvfp4(n, ns.view(np.uint8), g), TypeError, "scales"),
        (lambda: tc.dequantize_nvfp4(n, ns[:, :1], g), ValueError, "scales"),
        (lambda: tc.dequantize_nvfp4(X, ns, g), TypeError, "codes"),
    ]  # fmt: skip
    for call, exc, word in cases:
        with pytest.raises(exc) as info:
            call()
        assert word in str(info.value), str(info.value)


def test_the_gil_is_released_during_the_work():
    # As test_threads.py does for cast: while one Python thread is inside a long call,
    # another keeps running (no gap of the call's length in its timestamps). MX of float16
    # along axis 0 reads x twice (the scales, then the codes), FP6 codes are unpacked.
    import threading
    import time

    x = np.random.default_rng(6).standard_normal((4096, 4096), np.float32).astype(np.float16)

    def call():
        return tc.quantize_mx(x, "mxfp6_e2m3", axis=0, threads=1)

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


def test_functions_pickle_by_reference():
    import pickle

    names = [
        "quantize_mx",
        "dequantize_mx",
        "quantize_nvfp4",
        "dequantize_nvfp4",
        "quantize_absmax",
    ]
    for name in names:
        f = getattr(tc, name)
        assert name in tc.__all__ and f.__module__ == "tensorcast" and f.__doc__
        assert pickle.loads(pickle.dumps(f)) is f
