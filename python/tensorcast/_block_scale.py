"""Block-scaled quantization with the scales computed: the OCP Microscaling (MX) formats,
NVFP4 and absmax (tensorcast/block_scale.h), on numpy and ml_dtypes arrays: argument checks,
the outputs (codes, scales) and the packing of sub-byte codes around the library's calls.
The rules of every value are the library's; docs/python.md states them."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _tensorcast as _ext
from ._api import _threads
from ._arrow import _is_arrow
from ._errors import _raise
from ._numpy import _as_array
from ._quantize import _int_attribute, _Output, _result, _shape
from ._stats import CastStats, _stats_arg
from ._storage import _flat_source
from ._types import _CODE_OF_NAME, _CODE_OF_TYPE, _DTYPE, TypeLike, _type_code

# The calls of the extension's block_scale_shape (tensorcast_ext.cc, BlockOp).
_QUANTIZE_MX = 0
_DEQUANTIZE_MX = 1
_QUANTIZE_NVFP4 = 2
_DEQUANTIZE_NVFP4 = 3

# The library's block formats by name: (format code, element type, scale type), from its
# own table (BlockFormatName, BlockFormatElementType, BlockFormatScaleType).
_FORMATS: Dict[str, Tuple[int, int, int]] = {
    row["name"]: (row["code"], row["element"], row["scale"]) for row in _ext.block_formats()
}
_NVFP4 = "nvfp4"
_MX_NAMES = [name for name in _FORMATS if name != _NVFP4]

_SCALE_RULES = {"floor": 0, "rceil": 1}

# The types of x that the library quantizes, and the outputs it dequantizes to.
_INPUT_CODES = tuple(_CODE_OF_NAME[name] for name in ("FLOAT", "FLOAT16", "BFLOAT16"))
_INPUT_NAMES = "float32, float16 or ml_dtypes.bfloat16"
_ABSMAX_CODES = (_CODE_OF_NAME["INT8"], _CODE_OF_NAME["FLOAT8E4M3FN"])


def _float_input(x: Any) -> Tuple[np.ndarray, int]:
    """x as a numpy array of FLOAT, FLOAT16 or BFLOAT16, or TypeError: nothing is converted
    (a float64 array, or a list of Python floats, would be rounded to float32)."""
    if _is_arrow(x):
        raise TypeError(
            "x: block-scaled quantization takes numpy arrays of "
            f"{_INPUT_NAMES}, not a pyarrow array; convert it first, e.g. "
            'tensorcast.cast(x, "float32").to_numpy()'
        )
    a = _as_array(x)
    code = _CODE_OF_TYPE.get(a.dtype.type)
    if code not in _INPUT_CODES:
        raise TypeError(
            f"x: dtype {a.dtype} is not {_INPUT_NAMES}, the inputs of block-scaled "
            'quantization; convert it first, e.g. tensorcast.cast(x, "float32")'
        )
    if not a.flags.aligned:  # the library reads whole floats
        a = np.array(a)
    return a, code


def _mx_format(fmt: Any, name: str = "fmt") -> Tuple[int, int, int]:
    if not isinstance(fmt, str):
        raise TypeError(f"{name} must be a str, one of {', '.join(_MX_NAMES)}, not {fmt!r}")
    info = _FORMATS.get(fmt)
    if info is None or fmt == _NVFP4:
        hint = " (NVFP4 has quantize_nvfp4 / dequantize_nvfp4)" if fmt == _NVFP4 else ""
        raise ValueError(f"{name}: {fmt!r} is not an MX format ({', '.join(_MX_NAMES)}){hint}")
    return info


def _scale_rule(rule: Any) -> int:
    code = _SCALE_RULES.get(rule) if isinstance(rule, str) else None
    if code is None:
        raise ValueError(f"scale_rule must be 'floor' or 'rceil', not {rule!r}")
    return code


def _output_code(output_dtype: TypeLike) -> int:
    code = _type_code(output_dtype, "output_dtype")
    if code not in _INPUT_CODES:
        raise TypeError(
            f"output_dtype: {_ext.type_name(code)} is not FLOAT, FLOAT16 or BFLOAT16 "
            f"({_INPUT_NAMES})"
        )
    return code


def _typed(a: Any, code: int, name: str, what: str) -> np.ndarray:
    """An input array that must have the dtype of the ONNX type `code` (TypeError
    otherwise; `what` says what the array holds)."""
    arr = _as_array(a)
    if arr.dtype != _DTYPE[code]:
        raise TypeError(f"{name}: dtype {arr.dtype} is not {_DTYPE[code]}, {what}")
    return arr


def _scale_shape(
    op: int, code: int, shape: List[int], fmt: int, ax: int, bs: int, rule: int, y_type: int
) -> Tuple[int, ...]:
    res = _ext.block_scale_shape(op, code, shape, fmt, ax, bs, rule, y_type)
    if isinstance(res, tuple):
        _raise(res)
    return tuple(int(d) for d in res)


def _check_scales(
    scales: np.ndarray, shape: Tuple[int, ...], codes: np.ndarray, ax: int, bs: int
) -> None:
    if scales.shape != shape:
        raise ValueError(
            f"scales has shape {scales.shape}; codes of shape {codes.shape} in blocks of {bs} "
            f"along axis {ax} have scales of shape {shape}"
        )


def _quantize_blocks(
    op: int,
    x: Any,
    fmt: Tuple[int, int, int],
    ax: int,
    bs: int,
    rule: int,
    global_scale: Optional[float],
    packed: bool,
    out: Any,
    scales_out: Any,
    threads: int,
    stats: Any,
) -> Tuple[np.ndarray, np.ndarray, Any]:
    """QuantizeMx or QuantizeNvfp4: (codes, scales, the tensor scale or None)."""
    arr, x_code = _float_input(x)
    format_code, element, scale_type = fmt
    scale_shape = _scale_shape(op, x_code, _shape(arr), format_code, ax, bs, rule, 0)
    codes = _Output(element, arr.shape, packed, out, (arr,))
    scales = _Output(scale_type, scale_shape, False, scales_out, (arr, codes.result), "scales_out")
    if op == _QUANTIZE_NVFP4:
        given = global_scale is not None
        res = _ext.quantize_nvfp4(
            _flat_source(arr, x_code, threads),
            x_code,
            _shape(arr),
            codes.target,
            scales.target,
            ax,
            float(global_scale) if given else 0.0,
            given,
            threads,
            stats,
        )
    else:
        res = _ext.quantize_mx(
            _flat_source(arr, x_code, threads),
            x_code,
            _shape(arr),
            format_code,
            codes.target,
            scales.target,
            ax,
            bs,
            rule,
            threads,
            stats,
        )
    if isinstance(res, tuple):
        _raise(res)
    return codes.finish(threads), scales.finish(threads), res


def quantize_mx(
    x: Any,
    fmt: str,
    *,
    axis: int = -1,
    block_size: int = 32,
    scale_rule: str = "floor",
    packed: bool = False,
    out: Optional[np.ndarray] = None,
    scales_out: Optional[np.ndarray] = None,
    stats_out: Optional[CastStats] = None,
    threads: Optional[int] = None,
) -> Tuple[np.ndarray, np.ndarray]:
    """OCP Microscaling (MX) quantization: one power-of-two scale per block of `block_size`
    consecutive elements along `axis`, and the elements divided by it.

    x: a numpy array of float32, float16 or ml_dtypes.bfloat16, read as it is (any other
    dtype, float64 included, and lists raise TypeError: convert with tensorcast.cast first).
    fmt: "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2" or "mxfp4" (codes of
    float8_e4m3fn, float8_e5m2, float6_e2m3fn, float6_e3m2fn, float4_e2m1fn).
    axis: the blocks' axis (negative from the back); block_size: the elements per block
    (the last block of a row may be shorter). scale_rule: "floor" (OCP MX v1.0:
    e = floor(log2(amax)) - emax, elements above the format's largest value saturate) or
    "rceil" (the smallest e with amax * 2^-e <= the largest value: nothing saturates).
    packed: the codes as ONNX packed bytes (1-D uint8; mxfp6 and mxfp4 only) instead of
    one ml_dtypes element per byte. out, scales_out: arrays to write the codes and the
    scales into (their shape and dtype checked). stats_out: a tensorcast.CastStats to fill
    in with the call's statistics (one more pass; docs/semantics.md section 14). threads: as
    in cast().

    Returns (codes, scales): codes of x's shape (or the packed bytes), scales
    float8_e8m0fnu of x's shape with ceil(x.shape[axis] / block_size) along `axis`; a block
    holding a NaN or an infinity gets the NaN scale. ONNX DequantizeLinear-28(codes, scales,
    axis, block_size) gives the dequantized values (dequantize_mx).
    """
    stats = _stats_arg(stats_out)
    nthreads = _threads(threads)
    info = _mx_format(fmt)
    ax = _int_attribute(axis, "axis")
    bs = _int_attribute(block_size, "block_size")
    rule = _scale_rule(scale_rule)
    codes, scales, _ = _quantize_blocks(
        _QUANTIZE_MX, x, info, ax, bs, rule, None, packed, out, scales_out, nthreads, stats
    )
    return codes, scales


def dequantize_mx(
    codes: Any,
    scales: Any,
    fmt: str,
    *,
    axis: int = -1,
    block_size: int = 32,
    output_dtype: TypeLike = "float32",
    packed: bool = False,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """MX dequantization, exactly ONNX DequantizeLinear-28(codes, scales, axis, block_size,
    output_dtype): each code times its block's scale, exact, rounded once to output_dtype.

    codes: the unpacked ml_dtypes array of the format's element type (quantize_mx's codes;
    packed bytes are not an input, as in dequantize_linear: tensorcast.unpack them first).
    scales: float8_e8m0fnu of the codes' shape with ceil(codes.shape[axis] / block_size)
    along `axis`. fmt, axis, block_size: as in quantize_mx. output_dtype: "float32",
    "float16" or "bfloat16" (any spelling cast() takes for `to`). packed: the outputs are
    never packed types; True raises ValueError, as in dequantize_linear. out, threads: as
    in cast().
    """
    nthreads = _threads(threads)
    format_code, element, scale_type = _mx_format(fmt)
    ax = _int_attribute(axis, "axis")
    bs = _int_attribute(block_size, "block_size")
    y_type = _output_code(output_dtype)
    c = _typed(codes, element, "codes", f"the codes of {fmt}")
    s = _typed(scales, scale_type, "scales", f"the scales of {fmt}")
    shape = _scale_shape(_DEQUANTIZE_MX, element, _shape(c), format_code, ax, bs, 0, y_type)
    _check_scales(s, shape, c, ax, bs)

    def run(target: np.ndarray) -> None:
        err = _ext.dequantize_mx(
            _flat_source(c, element, nthreads),
            element,
            _shape(c),
            _flat_source(s, scale_type, nthreads),
            format_code,
            target,
            y_type,
            ax,
            bs,
            nthreads,
        )
        if isinstance(err, tuple):
            _raise(err)

    return _result(y_type, c.shape, packed, out, (c, s), nthreads, run)


def _global_scale(value: Any, name: str = "global_scale") -> float:
    """The tensor scale: a Python float or int (taken as FLOAT, as a Python float scale of
    dequantize_linear is), or one float32 element of a numpy array or scalar."""
    if isinstance(value, bool):
        raise TypeError(f"{name}: {value!r} is not a number")
    if type(value) is int or type(value) is float:
        return float(np.float32(value))
    a = np.asarray(value)
    if a.dtype != np.float32 or a.size != 1:
        raise TypeError(
            f"{name} must be a Python float or one float32 element, not {a.dtype} of shape "
            f"{a.shape}"
        )
    return float(a.reshape(-1)[0])


def quantize_nvfp4(
    x: Any,
    *,
    axis: int = -1,
    global_scale: Optional[Any] = None,
    packed: bool = False,
    out: Optional[np.ndarray] = None,
    scales_out: Optional[np.ndarray] = None,
    stats_out: Optional[CastStats] = None,
    threads: Optional[int] = None,
) -> Tuple[np.ndarray, np.ndarray, np.float32]:
    """NVFP4 quantization: FLOAT4E2M1 codes, one FLOAT8E4M3FN scale per block of 16 along
    `axis` and one float32 scale g for the tensor.

    x: as in quantize_mx. global_scale: None (computed: 1 when the largest finite |x| is 0,
    else max(amax / 2688, 2^-126) in float32) or the tensor scale to use, positive and
    finite (a Python float is taken as float32). packed: the codes as ONNX packed bytes.
    out, scales_out, stats_out, threads: as in quantize_mx.

    Returns (codes, scales, global_scale): float4_e2m1fn codes of x's shape, float8_e4m3fn
    block scales (ceil(x.shape[axis] / 16) along `axis`), g as a numpy float32.
    """
    stats = _stats_arg(stats_out)
    nthreads = _threads(threads)
    ax = _int_attribute(axis, "axis")
    g = None if global_scale is None else _global_scale(global_scale)
    codes, scales, res = _quantize_blocks(
        _QUANTIZE_NVFP4, x, _FORMATS[_NVFP4], ax, 0, 0, g, packed, out, scales_out, nthreads, stats
    )
    return codes, scales, np.float32(res)


def dequantize_nvfp4(
    codes: Any,
    scales: Any,
    global_scale: Any,
    *,
    axis: int = -1,
    output_dtype: TypeLike = "float32",
    packed: bool = False,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """NVFP4 dequantization, exactly the ONNX graph S = DequantizeLinear(scales,
    global_scale); y = DequantizeLinear(codes, S, axis, block_size=16, output_dtype).

    codes: unpacked float4_e2m1fn; scales: float8_e4m3fn of the codes' shape with
    ceil(codes.shape[axis] / 16) along `axis`; global_scale: a Python float or a float32
    scalar. output_dtype, packed, out, threads: as in dequantize_mx.
    """
    nthreads = _threads(threads)
    format_code, element, scale_type = _FORMATS[_NVFP4]
    ax = _int_attribute(axis, "axis")
    y_type = _output_code(output_dtype)
    g = _global_scale(global_scale)
    c = _typed(codes, element, "codes", "the codes of nvfp4")
    s = _typed(scales, scale_type, "scales", "the scales of nvfp4")
    shape = _scale_shape(_DEQUANTIZE_NVFP4, element, _shape(c), format_code, ax, 0, 0, y_type)
    _check_scales(s, shape, c, ax, 16)

    def run(target: np.ndarray) -> None:
        err = _ext.dequantize_nvfp4(
            _flat_source(c, element, nthreads),
            element,
            _shape(c),
            _flat_source(s, scale_type, nthreads),
            g,
            target,
            y_type,
            ax,
            nthreads,
        )
        if isinstance(err, tuple):
            _raise(err)

    return _result(y_type, c.shape, packed, out, (c, s), nthreads, run)


def quantize_absmax(
    x: Any,
    dtype: TypeLike,
    *,
    axis: Optional[int] = None,
    out: Optional[np.ndarray] = None,
    stats_out: Optional[CastStats] = None,
    threads: Optional[int] = None,
) -> Tuple[np.ndarray, np.ndarray]:
    """absmax quantization to INT8 or FLOAT8E4M3FN with float32 scales: the scale is 1 when
    the largest finite |x| is 0, else max(amax / Q, 2^-126) (Q = 127 for int8, 448 for
    float8_e4m3fn), and the codes are QuantizeLinear(x, scale) (int8: NaN -> 0).

    x: as in quantize_mx. dtype: "int8" or "float8_e4m3fn" in any spelling cast() takes for
    `to` (TypeError for another type). axis: None for one scale (shape ()), or the channel
    axis for one scale per index of it (shape (x.shape[axis],)). out: an array to write the
    codes into. stats_out, threads: as in quantize_mx.

    Returns (codes, scales): codes of x's shape and dtype `dtype`, float32 scales.
    """
    stats = _stats_arg(stats_out)
    nthreads = _threads(threads)
    code_type = _type_code(dtype, "dtype")
    if code_type not in _ABSMAX_CODES:
        raise TypeError(
            f"dtype: {_ext.type_name(code_type)} is neither INT8 nor FLOAT8E4M3FN "
            "(int8, float8_e4m3fn)"
        )
    per_channel = axis is not None
    ax = 0 if axis is None else _int_attribute(axis, "axis")
    arr, x_code = _float_input(x)
    count = _ext.absmax_scale_count(x_code, _shape(arr), code_type, per_channel, ax)
    if isinstance(count, tuple):
        _raise(count)
    codes = _Output(code_type, arr.shape, False, out, (arr,))
    scales = np.empty((int(count),) if per_channel else (), np.float32)
    err = _ext.quantize_absmax(
        _flat_source(arr, x_code, nthreads),
        x_code,
        _shape(arr),
        code_type,
        per_channel,
        ax,
        codes.target,
        scales,
        nthreads,
        stats,
    )
    if isinstance(err, tuple):
        _raise(err)
    return codes.finish(nthreads), scales


for _public in (quantize_mx, dequantize_mx, quantize_nvfp4, dequantize_nvfp4, quantize_absmax):
    _public.__module__ = "tensorcast"
del _public
