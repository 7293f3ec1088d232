"""stats_out= (tensorcast.CastStats) against the definitions of docs/semantics.md section 14,
recomputed here in plain Python floats (doubles, no fused multiply-add) in the order the
library promises: per chunk of 4096 elements, the chunks in order. The codes and scales the
sums are taken over are the library's own (test_block_scale.py checks them against its
oracles); what this file checks is the statistics' arithmetic and counts."""

import math

import ml_dtypes
import numpy as np
import pytest
import tensorcast as tc

# The edges of saturation: M + half the step at M; whether the tie there rounds away from M
# (M's code odd). E4M3FN 448 = 1.110b * 2^8 (step 32, code 0x7E even); E5M2 57344 (step
# 8192, odd); E2M3 7.5 (step 0.5, odd); E3M2 28 (step 4, odd); E2M1 6 (step 2, odd).
EDGES = {
    "mxfp8_e4m3": (464.0, False),
    "mxfp8_e5m2": (61440.0, True),
    "mxfp6_e2m3": (7.75, True),
    "mxfp6_e3m2": (30.0, True),
    "mxfp4": (7.0, True),
}


def expected(x, y, q, hi, hi_tie, lo, lo_tie):
    """x: the inputs (float64 values), y: their dequantized values (nan for a NaN block),
    q: x / scale (nan when the scale is not a finite non-zero number)."""
    r = dict(count=len(x), nan_count=0, inf_count=0, saturated=0, flushed=0, error_count=0)
    amax = 0.0
    err_total = 0.0
    sig_total = 0.0
    for c in range(0, len(x), 4096):
        err = 0.0
        sig = 0.0
        for i in range(c, min(len(x), c + 4096)):
            v = float(x[i])
            if math.isnan(v):
                r["nan_count"] += 1
                continue
            if math.isinf(v):
                r["inf_count"] += 1
                continue
            amax = max(amax, abs(v))
            qi = float(q[i])
            if not math.isnan(qi) and (
                qi > hi or (qi == hi and hi_tie) or qi < lo or (qi == lo and lo_tie)
            ):
                r["saturated"] += 1
            yi = float(y[i])
            if v != 0 and yi == 0:
                r["flushed"] += 1
            if math.isfinite(yi):
                d = yi - v
                err += d * d
                sig += v * v
                r["error_count"] += 1
        err_total += err
        sig_total += sig
    r["amax"] = amax
    r["sum_squared_error"] = err_total
    r["sum_squared_signal"] = sig_total
    return r


def check(st, want):
    for key, value in want.items():
        assert getattr(st, key) == value, (key, getattr(st, key), value)


def inputs(rng, n, specials=True):
    x = rng.standard_normal(n).astype(np.float32) * np.float32(3.0)
    x[::97] = 0.0
    x[1::89] = np.float32(1e-30)
    if specials:
        x[5] = np.nan
        x[700] = -np.inf
    return x


@pytest.mark.parametrize("fmt", sorted(EDGES))
def test_quantize_mx_statistics(fmt):
    rng = np.random.default_rng(3)
    x = inputs(rng, 9 * 1024).reshape(9, 1024)
    st = tc.CastStats()
    codes, scales = tc.quantize_mx(x, fmt, stats_out=st, threads=1)
    s = np.repeat(scales.astype(np.float64), 32, axis=1).reshape(-1)
    y = codes.astype(np.float64).reshape(-1) * s
    q = x.astype(np.float64).reshape(-1) / s
    hi, tie = EDGES[fmt]
    want = expected(x.reshape(-1), y, q, hi, tie, -hi, tie)
    check(st, want)
    assert want["saturated"] > 0 and want["flushed"] > 0 and want["nan_count"] == 1
    # Threads: the same numbers.
    many = tc.CastStats()
    tc.quantize_mx(np.tile(x, (64, 1)), fmt, stats_out=many, threads=2)
    one = tc.CastStats()
    tc.quantize_mx(np.tile(x, (64, 1)), fmt, stats_out=one, threads=1)
    assert repr(many) == repr(one) and many.sum_squared_error == one.sum_squared_error


def test_quantize_absmax_and_nvfp4_statistics():
    rng = np.random.default_rng(4)
    x = inputs(rng, 4 * 500).reshape(4, 500)
    st = tc.CastStats()
    codes, scales = tc.quantize_absmax(x, "int8", axis=0, stats_out=st)
    s = np.repeat(scales.astype(np.float64), 500)
    y = codes.astype(np.float64).reshape(-1) * s
    check(
        st,
        expected(
            x.reshape(-1), y, x.astype(np.float64).reshape(-1) / s, 127.5, True, -128.5, False
        ),
    )
    st = tc.CastStats()
    codes, scales, g = tc.quantize_nvfp4(x[:, :496], stats_out=st)
    S = (scales.astype(np.float64) * np.float64(g)).astype(np.float32).astype(np.float64)
    s = np.repeat(S, 16, axis=1).reshape(-1)
    y = codes.astype(np.float64).reshape(-1) * s
    q = x[:, :496].astype(np.float64).reshape(-1) / s
    check(st, expected(x[:, :496].reshape(-1), y, q, 7.0, True, -7.0, True))


def test_cast_statistics():
    rng = np.random.default_rng(5)
    x = inputs(rng, 10000)
    x[10:20] = [464, 464.00003, -500, 1e6, 448, -448, 1e-10, -1e-10, 65520, 3e38]
    st = tc.CastStats()
    y = tc.cast(x, "float8e4m3fn", stats_out=st, threads=1)
    yd = y.astype(np.float64)
    # E4M3FN: beyond 464 is outside the range (the tie 464 goes to 448).
    want = expected(x, yd, x.astype(np.float64), 464.0, False, -464.0, False)
    check(st, want)
    assert want["saturated"] >= 5
    assert st.rmse == math.sqrt(st.sum_squared_error / st.error_count)
    assert st.sqnr_db == 10 * math.log10(st.sum_squared_signal / st.sum_squared_error)
    # A sub-byte target through the package's packing: FLOAT4E2M1 saturates from 7.
    st4 = tc.CastStats()
    y4 = tc.cast(x, ml_dtypes.float4_e2m1fn, stats_out=st4)
    check(st4, expected(x, y4.astype(np.float64), x.astype(np.float64), 7.0, True, -7.0, True))


def test_stats_out_errors():
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError, match="stats_out"):
        tc.cast(x, "float16", stats_out={})
    with pytest.raises(ValueError, match="STRING"):
        tc.cast(x, "string", stats_out=tc.CastStats())
    with pytest.raises(ValueError, match="STRING"):
        tc.cast(np.array(["1.5"]), "float32", stats_out=tc.CastStats())
    st = tc.CastStats()
    assert st.count == 0 and st.rmse == 0.0 and st.sqnr_db == math.inf
    assert "CastStats(count=0" in repr(st)
    assert "CastStats" in tc.__all__
