"""STRING inputs and results of numpy arrays: texts (str_, bytes_, StringDType, object of
str / bytes) parsed into numbers, numbers and texts into STRING results (StringDType on
numpy 2, object on numpy 1), and the buffers of an Arrow utf8 / large_utf8 array, which the
parser reads (for pyarrow arrays and for StringDType texts converted through pyarrow)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _tensorcast as _ext
from ._errors import _raise
from ._storage import _flat_source
from ._types import _NUMPY2, _STRING, _STRING_DTYPE

_pyarrow_module: Any = None


def _pyarrow() -> Any:
    """pyarrow if it can be imported (an optional dependency), else None."""
    global _pyarrow_module
    if _pyarrow_module is None:
        try:
            import pyarrow

            _pyarrow_module = pyarrow
        except ImportError:
            _pyarrow_module = False
    return _pyarrow_module or None


def _arrow_string_buffers(pa: Any, arr: Any) -> tuple:
    """(offsets, offset width, data, validity or None) of a utf8 / large_utf8 Array, as uint8
    arrays over Arrow's buffers (no copy)."""
    bufs = arr.buffers()
    width = 8 if pa.types.is_large_string(arr.type) else 4
    offsets = np.frombuffer(bufs[1], np.uint8) if bufs[1] is not None else np.zeros(width, np.uint8)
    data = (
        np.frombuffer(bufs[2], np.uint8)
        if bufs[2] is not None and bufs[2].size
        else np.zeros(1, np.uint8)
    )
    validity = np.frombuffer(bufs[0], np.uint8) if bufs[0] is not None and arr.null_count else None
    return offsets, width, data, validity


def _parse_texts(
    x: np.ndarray,
    target: np.ndarray,
    dst: int,
    sat: bool,
    rm: int,
    threads: int,
    mask: Optional[np.ndarray] = None,
) -> None:
    """Texts of a numpy array (str_, bytes_, StringDType, object of str/bytes) -> numbers.

    str_ and bytes_ arrays are read from their buffer (trailing NULs are padding, as numpy
    defines them). A StringDType text is read whole, NUL characters included (numpy's
    conversions to fixed width and its string functions drop trailing NULs, so neither is
    used): through pyarrow's conversion when pyarrow is installed and the array is not tiny,
    else as Python str. With `mask` (errors="null"), a text that is not a number, a
    StringDType NA and a missing object element (None, a float NaN, pandas.NA) become
    nulls: value 0, mask True."""
    n = x.size
    kind = x.dtype.kind
    texts: Any = x.reshape(-1)
    validity = None if mask is None else np.empty((n + 7) // 8, np.uint8)
    if kind in "SU":
        fixed = x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))
        fixed = np.ascontiguousarray(fixed)
        width = fixed.dtype.itemsize // (4 if kind == "U" else 1)
        err = _ext.cast_from_fixed_strings(
            fixed, kind, width, n, target, dst, sat, rm, threads, validity
        )
    else:
        if kind == "T" and mask is None:
            # numpy 2's C API reads the texts in place; (-1,): not this path (numpy 1 at
            # run time, or a missing element, which the paths below give its rule).
            err = _ext.stringdtype_parse(texts, target, dst, sat, rm, threads)
            if err is None:
                return
            if err[0] != -1:
                _raise(err, texts)
        arr = None
        # pyarrow's conversion costs about 1.7 us per call and saves about 70 ns per text.
        pa = _pyarrow() if kind == "T" and n >= 64 else None
        if pa is not None:
            try:
                arr = pa.array(texts)
                if isinstance(arr, pa.ChunkedArray):  # pyarrow converts large arrays in chunks
                    arr = arr.combine_chunks()
            except (pa.ArrowException, TypeError, ValueError):
                arr = None
            if not isinstance(arr, pa.Array) or not (
                pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)
            ):
                arr = None
        if arr is not None:
            offsets, width, data, in_validity = _arrow_string_buffers(pa, arr)
            err = _ext.cast_from_arrow_strings(
                offsets,
                width,
                data,
                in_validity,
                arr.offset,
                n,
                target,
                dst,
                False,
                sat,
                rm,
                threads,
                validity,
            )
        else:
            if kind == "T":
                texts = texts.astype(object)
            texts = texts.tolist()  # bytes elements are parsed as UTF-8 text
            if kind == "T" and mask is not None:
                # A StringDType element is a str or the dtype's NA object (None, nan, ...):
                # with errors="null" every NA is a null, which the library reads None as.
                texts = [t if isinstance(t, str) else None for t in texts]
            err = _ext.cast_from_strings(texts, target, dst, sat, rm, threads, validity)
    if err is not None:
        _raise(err, texts)
    if mask is not None:
        bits = np.unpackbits(validity, count=n, bitorder="little")
        np.equal(bits.reshape(mask.shape), 0, out=mask)


def _texts(x: np.ndarray) -> list:
    return x.reshape(-1).tolist()


def _new_strings(texts: list, shape: tuple) -> np.ndarray:
    if _NUMPY2:
        return np.array(texts, dtype=_STRING_DTYPE).reshape(shape)
    out = np.empty(len(texts), dtype=object)  # pragma: no cover (numpy 1)
    out[:] = texts
    return out.reshape(shape)


def _strings_of(x: np.ndarray, src: int, threads: int, into: Any = None) -> np.ndarray:
    """The STRING result of x (ONNX code src; STRING for any text dtype): texts as they are
    (bytes_ read as UTF-8), numbers as the library writes them. Shape of x. `into`: a 1-D
    StringDType array of x.size elements that numbers may be written into (returned then)."""
    n = x.size
    shape = x.shape
    if src == _STRING:
        if not x.dtype.isnative:
            x = x.astype(x.dtype.newbyteorder("="))
        if x.dtype.kind == "S":
            return _new_strings([t.decode("utf-8") for t in _texts(x)], shape)
        if _NUMPY2:
            return x.astype(_STRING_DTYPE)
        return _new_strings(_texts(x), shape)  # pragma: no cover (numpy 1)
    if _NUMPY2:
        # Written straight into the StringDType array through numpy's C API (when the
        # extension has it: (-1,) otherwise).
        res = np.empty((n,), _STRING_DTYPE) if into is None else into
        err = _ext.stringdtype_format(_flat_source(x, src, threads), src, n, res, threads)
        if err is None:
            return res if res is into else res.reshape(shape)
        if err[0] != -1:
            _raise(err)
    fixed = np.empty((n,), "S32")  # no number's text is longer than 32 bytes
    err = _ext.cast_to_fixed_strings(_flat_source(x, src, threads), src, n, fixed, threads)
    if err is not None:
        _raise(err)
    if _NUMPY2:
        return fixed.astype(_STRING_DTYPE).reshape(shape)
    return fixed.astype("U32").astype(object).reshape(shape)  # pragma: no cover (numpy 1)
