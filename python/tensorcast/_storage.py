"""The bytes the library reads and writes for a numpy array: one flat, C-ordered buffer in
native byte order, sub-byte types packed (ONNX layout) where numpy holds one ml_dtypes
element per byte."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _tensorcast as _ext
from ._errors import _raise
from ._types import _BITS, _PACKED_AS, _UNPACKED_AS, _storage_bytes


def _flat_source(x: np.ndarray, code: int, threads: int = 0) -> np.ndarray:
    """The bytes the library reads for x: C order, native byte order, packed if sub-byte."""
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    x = x.reshape(-1)
    if code in _BITS:
        return _pack_flat(x, code, threads)
    return x


_CACHE_MIN_BYTES = int(_ext.OUTPUT_CACHE_MIN_BYTES)


def _new_array(shape: Any, dtype: np.dtype) -> np.ndarray:
    """np.empty(shape, dtype), in a block of the package's output cache when it is large
    (docs/python.md, "Allocating calls"): its pages are then mapped already when a freed
    result of a similar size is reused."""
    size = 1
    for d in shape:
        size *= d
    nbytes = size * dtype.itemsize
    # Only plain data: numpy cannot view bytes as references (object, StringDType).
    if nbytes >= _CACHE_MIN_BYTES and not dtype.hasobject and dtype.kind != "T":
        block = _ext.output_block(nbytes)
        if block is not None:
            return block.view(dtype).reshape(shape)
    return np.empty(shape, dtype)


def _pack_flat(x: np.ndarray, code: int, threads: int = 0) -> np.ndarray:
    """1-D unpacked ml_dtypes bytes -> ONNX packed bytes."""
    n = x.shape[0]
    packed = _new_array((_storage_bytes(code, n),), np.dtype(np.uint8))
    if code in _PACKED_AS:
        err = _ext.cast(x, _UNPACKED_AS[code], packed, _PACKED_AS[code], n, True, 0, threads)
    else:  # 6 bits
        err = _ext.pack6(x, packed, n, threads)
    if err is not None:
        _raise(err)
    return packed


def _unpack_into(packed: np.ndarray, code: int, out_flat: np.ndarray, threads: int = 0) -> None:
    n = out_flat.shape[0]
    if code in _PACKED_AS:
        err = _ext.cast(packed, _PACKED_AS[code], out_flat, _UNPACKED_AS[code], n, True, 0, threads)
    else:  # 6 bits
        err = _ext.unpack6(packed, out_flat, n, threads)
    if err is not None:
        _raise(err)
