"""ONNX QuantizeLinear and DequantizeLinear (opsets 10-28, default 28) on numpy and ml_dtypes
arrays: argument checks, the output allocation and the packing of sub-byte tensors around
the library's calls (tensorcast/quantize.h)."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from . import _tensorcast as _ext
from ._api import _threads
from ._errors import _raise
from ._numpy import _as_array, _check_out
from ._storage import _flat_source, _unpack_into
from ._types import (
    _BITS,
    _CODE_OF_NAME,
    _CODE_OF_TYPE,
    _COMPLEX,
    _DTYPE,
    _PACKED_NAMES,
    _ROW,
    _STRING,
    TypeLike,
    _storage_bytes,
    _type_code,
)

# The opsets of the two operators (versions 10, 13, 19, 21, 23, 24, 25 and 28).
_FIRST_OPSET = 10
_LAST_OPSET = 28
_FLOAT = _CODE_OF_NAME["FLOAT"]
# The float types of x that a Python float scale takes as its type.
_FLOATS = frozenset(_CODE_OF_NAME[name] for name in ("FLOAT", "FLOAT16", "BFLOAT16"))


def _int_attribute(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, not {value!r}")
    return int(value)


def _opset(opset: Any) -> int:
    opset = _int_attribute(opset, "opset")
    if not _FIRST_OPSET <= opset <= _LAST_OPSET:
        raise ValueError(
            f"opset: {opset} is outside {_FIRST_OPSET}..{_LAST_OPSET}, the opsets of "
            "QuantizeLinear and DequantizeLinear"
        )
    return opset


def _optional_type(value: Optional[TypeLike], name: str) -> int:
    return 0 if value is None else _type_code(value, name)


def _code_of(a: np.ndarray, name: str) -> int:
    """The ONNX code of an operand's dtype; TypeError for texts, objects, complex and dtypes
    ONNX does not have."""
    code = _CODE_OF_TYPE.get(a.dtype.type)
    if code is None or code == _STRING or code in _COMPLEX:
        raise TypeError(f"{name}: numpy dtype {a.dtype} is not a numeric ONNX element type")
    return code


def _is_python_number(v: Any) -> bool:
    # Exactly int or float: numpy scalars (np.float64 is a subclass of float) keep their
    # dtype, as arrays do.
    return type(v) is int or type(v) is float


def _weak(v: Any, code: int, name: str) -> np.ndarray:
    """A Python int or float as a 0-d array of the ONNX type `code`, or an error if the
    value does not belong to it (an integer type takes ints in its range)."""
    row = _ROW[code]
    if row.kind in ("signed_int", "unsigned_int"):
        if type(v) is not int:
            raise TypeError(f"{name}: {v!r} is not an integer, and the type is {row.name}")
        lo = -(1 << (row.bits - 1)) if row.kind == "signed_int" else 0
        hi = (1 << (row.bits - 1)) - 1 if row.kind == "signed_int" else (1 << row.bits) - 1
        if not lo <= v <= hi:
            raise ValueError(f"{name}: {v} is outside the range of {row.name}, [{lo}, {hi}]")
    return np.array(v, _DTYPE[code])


def _operand(v: Any, name: str) -> Tuple[np.ndarray, int]:
    a = _as_array(v)
    return a, _code_of(a, name)


def _output_type(res: Any) -> int:
    """The code the extension's *_output_type returned, or its error raised."""
    if isinstance(res, tuple):
        _raise(res)
    return int(res)


def _shape(a: np.ndarray) -> List[int]:
    return [int(d) for d in a.shape]


class _Output:
    """One result of a call: `result`, the array returned (the caller's `out` when given), and
    `target`, the flat buffer the library writes (the result itself when it holds the
    library's storage and nothing else is read from it, else a temporary that finish() moves
    into the result: packed sub-byte codes, an `out` that is not C-contiguous or aligned, or
    one that shares memory with an input).

    code: the ONNX type of the result; shape: its shape; packed: ONNX packed bytes (1-D
    uint8) instead of one ml_dtypes element per byte, for the packed types only; name: the
    keyword of `out` in the errors."""

    def __init__(
        self,
        code: int,
        shape: tuple,
        packed: bool,
        out: Any,
        inputs: Tuple[Any, ...],
        name: str = "out",
    ) -> None:
        n = 1
        for d in shape:
            n *= int(d)
        if packed:
            if code not in _BITS:
                raise ValueError(
                    f"packed=True needs a packed output type ({_PACKED_NAMES}), not "
                    f"{_ext.type_name(code)}"
                )
            res_shape: tuple = (_storage_bytes(code, n),)
            res_dtype = np.dtype(np.uint8)
        else:
            res_shape = tuple(shape)
            res_dtype = _DTYPE[code]
        direct = None
        if out is not None:
            _check_out(out, res_shape, res_dtype, name)
            if (
                out.flags.c_contiguous
                and out.flags.aligned
                and not any(a is not None and np.may_share_memory(out, a) for a in inputs)
            ):
                direct = out
        self._code = code
        self._out: Optional[np.ndarray] = out
        self._direct = direct
        self.result = direct if direct is not None else np.empty(res_shape, res_dtype)
        self._flat = self.result.reshape(-1)
        self._unpack = code in _BITS and not packed
        self.target = np.empty(_storage_bytes(code, n), np.uint8) if self._unpack else self._flat

    def finish(self, threads: int) -> np.ndarray:
        """The result, once the library has written `target`."""
        if self._unpack:
            _unpack_into(self.target, self._code, self._flat, threads)
        if self._out is not None and self._direct is None:
            self._out[...] = self.result
            return self._out
        return self.result


def _result(
    y_type: int,
    shape: tuple,
    packed: bool,
    out: Any,
    inputs: Tuple[Any, ...],
    threads: int,
    run: Callable[[np.ndarray], None],
) -> np.ndarray:
    """Allocates y (or takes `out`), calls run(buffer) to fill the library's storage of y,
    and returns the result in the layout asked for."""
    y = _Output(y_type, shape, packed, out, inputs)
    run(y.target)
    return y.finish(threads)


def quantize_linear(
    x: Any,
    scale: Any,
    zero_point: Any = None,
    *,
    axis: int = 1,
    block_size: int = 0,
    output_dtype: Optional[TypeLike] = None,
    saturate: bool = True,
    precision: Optional[TypeLike] = None,
    opset: int = _LAST_OPSET,
    packed: bool = False,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """ONNX QuantizeLinear (opset 28 unless `opset` says otherwise):
    y = saturate(round_half_even(x / scale) + zero_point), or Cast(x / scale) for float
    outputs.

    x: FLOAT, FLOAT16, BFLOAT16 or INT32 (float32, float16, ml_dtypes.bfloat16, int32 array).
    scale: one value (per tensor), a 1-D array of x.shape[axis] values (per axis), or, with
    block_size > 0, an array of x's rank with ceil(x.shape[axis] / block_size) values along
    `axis` (blocked; the last block may be shorter). Its type (FLOAT, FLOAT16, BFLOAT16,
    INT32, FLOAT8E8M0) is the precision of the division unless `precision` (FLOAT, FLOAT16
    or BFLOAT16) is given. A Python float takes x's type if x is a float, else FLOAT.
    zero_point: None, or the scale's shape; its type is y's type (an unpacked ml_dtypes
    array for the sub-byte types). Float zero points must be zero. A Python int or float
    takes the type output_dtype (default UINT8).
    output_dtype: y's type when there is no zero point (default UINT8): INT8, UINT8, INT16,
    UINT16, INT4, UINT4, INT2, UINT2, the float8 types, FLOAT4E2M1, FLOAT6E2M3, FLOAT6E3M2.
    Any spelling cast() takes for `to`.
    saturate: float8 outputs clamp out-of-range values to +-max (True) or give NaN/Inf.
    packed, out, threads: as in cast(); packed=True gives the ONNX packed bytes of a
    sub-byte y.

    Returns a numpy array of x's shape with y's numpy / ml_dtypes dtype. Raises TypeError
    for a type the operator's version does not take and ValueError for other bad arguments
    (shapes, block_size, axis, a nonzero float zero point), naming the argument.
    """
    nthreads = _threads(threads)
    op = _opset(opset)
    ax = _int_attribute(axis, "axis")
    bs = _int_attribute(block_size, "block_size")
    out_code = _optional_type(output_dtype, "output_dtype")
    prec = _optional_type(precision, "precision")
    sat = True if saturate else False
    x, x_code = _operand(x, "x")
    if _is_python_number(scale):
        scale_arr = _weak(scale, x_code if x_code in _FLOATS else _FLOAT, "y_scale")
    else:
        scale_arr = _as_array(scale)
    s_code = _code_of(scale_arr, "y_scale")
    zp_arr: Optional[np.ndarray] = None
    zp_code = 0
    if zero_point is not None:
        if _is_python_number(zero_point):
            # y's type without a zero point (output_dtype checked), which the number takes
            weak = _output_type(_ext.quantize_output_type(op, ax, bs, out_code, sat, prec, 0))
            zp_arr = _weak(zero_point, weak, "y_zero_point")
        else:
            zp_arr = _as_array(zero_point)
        zp_code = _code_of(zp_arr, "y_zero_point")
    y_type = _output_type(_ext.quantize_output_type(op, ax, bs, out_code, sat, prec, zp_code))

    def run(target: np.ndarray) -> None:
        zp_flat = None if zp_arr is None else _flat_source(zp_arr, zp_code, nthreads)
        err = _ext.quantize_linear(
            _flat_source(x, x_code, nthreads),
            x_code,
            _shape(x),
            _flat_source(scale_arr, s_code, nthreads),
            s_code,
            _shape(scale_arr),
            zp_flat,
            zp_code,
            [] if zp_arr is None else _shape(zp_arr),
            target,
            y_type,
            op,
            ax,
            bs,
            out_code,
            sat,
            prec,
            nthreads,
        )
        if isinstance(err, tuple):
            _raise(err)

    return _result(y_type, x.shape, packed, out, (x, scale_arr, zp_arr), nthreads, run)


def dequantize_linear(
    x: Any,
    scale: Any,
    zero_point: Any = None,
    *,
    axis: int = 1,
    block_size: int = 0,
    output_dtype: Optional[TypeLike] = None,
    opset: int = _LAST_OPSET,
    packed: bool = False,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """ONNX DequantizeLinear (opset 28 unless `opset` says otherwise):
    y = (x - zero_point) * scale, computed exactly and rounded once to y's type.

    x: INT8, UINT8, INT16, UINT16, INT32, INT4, UINT4, INT2, UINT2, the float8 types,
    FLOAT4E2M1, FLOAT6E2M3 or FLOAT6E3M2 (numpy / unpacked ml_dtypes arrays).
    scale: per tensor, per axis or blocked as in quantize_linear(); FLOAT, FLOAT16,
    BFLOAT16 or FLOAT8E8M0 (a Python float: FLOAT).
    zero_point: None, or the scale's shape, of x's type (a Python int or float takes it).
    output_dtype: y's type, FLOAT, FLOAT16 or BFLOAT16 (default: the scale's type; a
    FLOAT8E8M0 scale needs it).
    packed: DequantizeLinear's outputs are never packed types; True raises ValueError, as
    cast() does for such a target. out, threads: as in cast().

    Returns a numpy array of x's shape with y's dtype; errors as quantize_linear().
    """
    nthreads = _threads(threads)
    op = _opset(opset)
    ax = _int_attribute(axis, "axis")
    bs = _int_attribute(block_size, "block_size")
    out_code = _optional_type(output_dtype, "output_dtype")
    x, x_code = _operand(x, "x")
    scale_arr = _weak(scale, _FLOAT, "x_scale") if _is_python_number(scale) else _as_array(scale)
    s_code = _code_of(scale_arr, "x_scale")
    zp_arr: Optional[np.ndarray] = None
    zp_code = 0
    if zero_point is not None:
        if _is_python_number(zero_point):
            zp_arr = _weak(zero_point, x_code, "x_zero_point")
        else:
            zp_arr = _as_array(zero_point)
        zp_code = _code_of(zp_arr, "x_zero_point")
    y_type = _output_type(_ext.dequantize_output_type(op, ax, bs, out_code, s_code))

    def run(target: np.ndarray) -> None:
        zp_flat = None if zp_arr is None else _flat_source(zp_arr, zp_code, nthreads)
        err = _ext.dequantize_linear(
            _flat_source(x, x_code, nthreads),
            x_code,
            _shape(x),
            _flat_source(scale_arr, s_code, nthreads),
            s_code,
            _shape(scale_arr),
            zp_flat,
            zp_code,
            [] if zp_arr is None else _shape(zp_arr),
            target,
            y_type,
            op,
            ax,
            bs,
            out_code,
            nthreads,
        )
        if isinstance(err, tuple):
            _raise(err)

    return _result(y_type, x.shape, packed, out, (x, scale_arr, zp_arr), nthreads, run)


for _public in (quantize_linear, dequantize_linear):
    _public.__module__ = "tensorcast"
del _public
