"""Typed use of the public API, checked by `mypy --strict` (test_typing.py). Not a test
module: pytest does not collect it (its name does not start with test_) and it is never
imported, only type-checked."""

from typing import Any, List, Optional

import ml_dtypes
import numpy as np
import numpy.typing as npt
import tensorcast as tc

Array = npt.NDArray[Any]


def use_cast() -> None:
    x: npt.NDArray[np.float32] = np.linspace(-1, 1, 16, dtype=np.float32)
    a: Array = tc.cast(x, tc.DataType.FLOAT16)
    b = tc.cast(x, "float8e4m3fn", saturate=False, round_mode="nearest", threads=2)
    c = tc.cast(x, np.float16)
    d = tc.cast(x, ml_dtypes.bfloat16, out=np.empty(16, ml_dtypes.bfloat16))
    e = tc.cast(x, 22, packed=True)
    f = tc.cast(x, np.dtype(np.int8))
    g = tc.cast_like(x, np.zeros(1, np.float16))
    h = tc.cast_like(x, "bfloat16", saturate=True, round_mode="up", threads=None)
    mask = np.empty(3, dtype=bool)
    y = tc.cast(np.array(["1", "x", "2"]), "float32", errors="null", mask_out=mask)
    print(a, b, c, d, e, f, g, h, y)


def use_split() -> List[Array]:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    parts: List[Array] = tc.split(x, [1, 3], axis=1)
    more = tc.split(x, num_outputs=2, axis=-2, threads=1)
    return parts + more


def use_quantize() -> Array:
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)
    s = np.full(2, 0.01, np.float32)
    q: Array = tc.quantize_linear(x, s, np.zeros(2, np.int8), axis=0)
    b = tc.quantize_linear(
        x,
        np.full((2, 2), 0.01, np.float16),
        axis=-1,
        block_size=4,
        output_dtype=tc.DataType.INT4,
        saturate=True,
        precision="float",
        packed=True,
        out=np.empty(8, np.uint8),
        threads=2,
    )
    f = tc.quantize_linear(x, 0.5, output_dtype=ml_dtypes.float8_e4m3fn, saturate=False, opset=21)
    y: Array = tc.dequantize_linear(q, s, np.zeros(2, np.int8), axis=0, threads=None)
    z = tc.dequantize_linear(
        tc.quantize_linear(x, 0.5, output_dtype="uint4"),
        np.float32(0.5),
        block_size=0,
        output_dtype=np.float16,
        opset=28,
        packed=False,
        out=np.empty((2, 8), np.float16),
    )
    print(b, f, z)
    return y


def use_block_scale() -> Array:
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32)
    codes: Array
    scales: Array
    codes, scales = tc.quantize_mx(x, "mxfp8_e4m3")
    p, s2 = tc.quantize_mx(
        x,
        "mxfp4",
        axis=0,
        block_size=2,
        scale_rule="rceil",
        packed=True,
        out=np.empty(32, np.uint8),
        scales_out=np.empty((1, 32), ml_dtypes.float8_e8m0fnu),
        stats_out=None,
        threads=2,
    )
    y: Array = tc.dequantize_mx(codes, scales, "mxfp8_e4m3", axis=-1, block_size=32)
    y16 = tc.dequantize_mx(
        codes, scales, "mxfp8_e4m3", output_dtype=np.float16, packed=False, out=None, threads=1
    )
    n, ns, g = tc.quantize_nvfp4(x, axis=1, global_scale=0.5, threads=None)
    g32: np.float32 = g
    z: Array = tc.dequantize_nvfp4(n, ns, g32, axis=-1, output_dtype="bfloat16")
    q, qs = tc.quantize_absmax(x, "int8", axis=0, out=np.empty((2, 32), np.int8))
    f8, f8s = tc.quantize_absmax(x, ml_dtypes.float8_e4m3fn)
    st = tc.CastStats()
    tc.quantize_mx(x, "mxfp4", stats_out=st)
    tc.cast(x, "float8e4m3fn", stats_out=st)
    rmse: float = st.rmse
    db: float = st.sqnr_db
    saturated: int = st.saturated
    print(p, s2, y16, z, q, qs, f8, f8s, rmse, db, saturated, st.sum_squared_error)
    return y


def use_pack() -> int:
    x = np.array([1, -2, 3], ml_dtypes.int4)
    p: Array = tc.pack(x)
    u: Array = tc.unpack(p, tc.DataType.INT4, 3)
    u2 = tc.unpack(p.tobytes(), ml_dtypes.int4, 3)
    return int(u.size + u2.size)


def use_misc() -> str:
    tc.set_num_threads(2)
    n: int = tc.get_num_threads()
    code: int = tc.DataType.FLOAT8E4M3FN
    member: tc.DataType = tc.DataType(17)
    v: str = tc.__version__
    return "%d %d %s %s" % (n, code, member.name, v)


def use_error() -> Optional[str]:
    try:
        tc.cast(np.array(["1", "x"]), tc.DataType.FLOAT)
    except tc.CastError as err:
        i: int = err.index
        t: Optional[str] = err.text
        msg: str = str(err)
        ve: ValueError = err
        return "%d %s %s %s" % (i, t, msg, ve)
    return None
