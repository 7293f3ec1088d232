"""The bytes the library reads and writes for a numpy array: one flat, C-ordered buffer in
native byte order, sub-byte types packed (ONNX layout) where numpy holds one ml_dtypes
element per byte."""

from __future__ import annotations

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


def _pack_flat(x: np.ndarray, code: int, threads: int = 0) -> np.ndarray:
    """1-D unpacked ml_dtypes bytes -> ONNX packed bytes."""
    n = x.shape[0]
    packed = np.empty(_storage_bytes(code, n), np.uint8)
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
