"""numpy inputs: any array (numeric, ml_dtypes, text; any strides and byte order) or object
numpy can read, cast into a new numpy array or into the caller's `out`."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _tensorcast as _ext
from ._errors import _raise
from ._storage import _flat_source, _new_array, _unpack_into
from ._strings import _parse_texts, _strings_of
from ._types import (
    _BITS,
    _CODE_OF_TYPE,
    _COMPLEX,
    _DTYPE,
    _PACKED_NAMES,
    _STRING,
    _STRING_DTYPE,
    _storage_bytes,
)


def _as_array(x: Any) -> np.ndarray:
    """Any accepted input other than Arrow -> a numpy array (no copy when possible)."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (bytes, bytearray)):  # a buffer of uint8, as the buffer protocol says
        return np.frombuffer(x, np.uint8)
    if hasattr(x, "__dlpack__") and not isinstance(x, memoryview):
        try:
            return np.from_dlpack(x)
        except (BufferError, TypeError, RuntimeError):
            pass
    return np.asarray(x)


def _check_out(out: Any, shape: tuple, dtype: np.dtype, name: str = "out") -> np.ndarray:
    """out (named `name` in the errors) as the array to write a result of that shape and dtype
    into: TypeError for another type or dtype, ValueError for another shape or read-only."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, not {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"{name} has shape {out.shape}, the result has shape {shape}")
    if dtype == _STRING_DTYPE:
        if out.dtype.kind not in "TO":
            raise TypeError(f"{name} has dtype {out.dtype}, the result is STRING ({dtype})")
    elif out.dtype != dtype:
        raise TypeError(f"{name} has dtype {out.dtype}, the result has dtype {dtype}")
    if not out.flags.writeable:
        raise ValueError(f"{name} is read-only")
    return out


def _check_mask(mask: Any, shape: tuple) -> np.ndarray:
    """mask_out of errors="null" as the bool array to write: TypeError for another type or
    dtype, ValueError for another shape or read-only."""
    if not isinstance(mask, np.ndarray):
        raise TypeError(f"mask_out must be a numpy bool array, not {type(mask).__name__}")
    if mask.dtype != np.bool_:
        raise TypeError(f"mask_out has dtype {mask.dtype}, it must be bool")
    if mask.shape != shape:
        raise ValueError(f"mask_out has shape {mask.shape}, x has shape {shape}")
    if not mask.flags.writeable:
        raise ValueError("mask_out is read-only")
    return mask


def _cast_numpy(
    x: np.ndarray,
    dst: int,
    sat: bool,
    rm: int,
    out: Any,
    packed: bool,
    threads: int,
    stats: Any = None,
    mask: Optional[np.ndarray] = None,
) -> np.ndarray:
    """x cast to dst into a new array or `out`. mask (errors="null", checked by _check_mask):
    texts that are not numbers become nulls (value 0) and mask is set True there."""
    src = _CODE_OF_TYPE.get(x.dtype.type)
    if src is None or src in _COMPLEX:
        if x.dtype.kind in "US" or (x.dtype.kind == "T"):
            src = _STRING
        else:
            raise TypeError(f"x: numpy dtype {x.dtype} has no ONNX element type")
    n = x.size
    shape = x.shape

    # The result array, or the caller's (written in place when C-contiguous).
    if packed:
        if dst not in _BITS:
            raise ValueError(
                f"packed=True needs a packed target type ({_PACKED_NAMES}), not {_ext.type_name(dst)}"
            )
        res_shape: tuple = (_storage_bytes(dst, n),)
        res_dtype = np.dtype(np.uint8)
    else:
        res_shape = shape
        res_dtype = _STRING_DTYPE if dst == _STRING else _DTYPE[dst]
    direct = None
    if out is not None:
        _check_out(out, res_shape, res_dtype)
    if mask is not None and (
        np.may_share_memory(mask, x) or (out is not None and np.may_share_memory(mask, out))
    ):
        raise ValueError("mask_out shares memory with x or out")
    if out is not None:
        if out.flags.c_contiguous and dst != _STRING and not np.may_share_memory(out, x):
            direct = out
    result = (
        direct
        if direct is not None
        else (None if dst == _STRING else _new_array(res_shape, res_dtype))
    )

    if dst == _STRING:
        into = None
        if (
            out is not None
            and src != _STRING
            and out.dtype.kind == "T"
            and out.flags.c_contiguous
            and not np.may_share_memory(out, x)
        ):
            into = out.reshape(-1)  # a StringDType out written in place
        result = _strings_of(x, src, threads, into)
        if into is not None and result is into:
            direct = out
            result = out
    else:
        flat_out = result.reshape(-1)
        if dst in _BITS and not packed:
            target = _new_array((_storage_bytes(dst, n),), np.dtype(np.uint8))
        else:
            target = flat_out
        if src == _STRING:
            _parse_texts(x, target, dst, sat, rm, threads, mask)
            mask = None  # written
        else:
            flat = _flat_source(x, src, threads)
            if np.may_share_memory(flat, target):
                flat = flat.copy()
            err = _ext.cast(flat, src, target, dst, n, sat, rm, threads, stats)
            if err is not None:
                _raise(err)
        if dst in _BITS and not packed:
            _unpack_into(target, dst, flat_out, threads)

    if mask is not None:
        mask[...] = False  # numbers and texts kept as texts are never null
    if out is not None and direct is None:
        out[...] = result
        return out
    return result
