"""Arrow inputs: pyarrow Arrays and ChunkedArrays, cast into Arrow arrays of the same
validity (null slots hold the all-zero code), or into numpy for the types Arrow does not
have, for packed bytes and for a numpy `out`."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _tensorcast as _ext
from ._errors import _PARSE_ERROR, CastError, _raise
from ._numpy import _cast_numpy, _check_mask, _check_out
from ._storage import _flat_source, _pack_flat, _unpack_into
from ._strings import _arrow_string_buffers
from ._types import (
    _BITS,
    _BITS_VIEW,
    _BOOL,
    _CODE_OF_NAME,
    _DTYPE,
    _PACKED_NAMES,
    _STRING,
    _storage_bytes,
)

# The Arrow type of each ONNX type that Arrow has, by ONNX name: pyarrow's alias of the type,
# which is also its str(). Arrow's other types have no ONNX element type (large_string and
# string_view are STRING too, see _arrow_code).
_ARROW_ALIAS_OF_NAME = {
    "FLOAT": "float",
    "UINT8": "uint8",
    "INT8": "int8",
    "UINT16": "uint16",
    "INT16": "int16",
    "INT32": "int32",
    "INT64": "int64",
    "STRING": "string",
    "BOOL": "bool",
    "FLOAT16": "halffloat",
    "DOUBLE": "double",
    "UINT32": "uint32",
    "UINT64": "uint64",
}
_ARROW_ALIAS = {_CODE_OF_NAME[name]: alias for name, alias in _ARROW_ALIAS_OF_NAME.items()}
_CODE_OF_ARROW = {alias: code for code, alias in _ARROW_ALIAS.items()}


def _is_arrow(x: Any) -> bool:
    return type(x).__module__.startswith("pyarrow")


def _arrow_type(pa: Any, code: int) -> Any:
    alias = _ARROW_ALIAS.get(code)
    return None if alias is None else pa.type_for_alias(alias)


def _arrow_code(pa: Any, t: Any) -> int:
    if pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view":
        return _STRING
    code = _CODE_OF_ARROW.get(str(t))
    if code is None:
        raise TypeError(f"x: Arrow type {t} has no ONNX element type")
    return code


# The numeric Arrow types other than bool (bits), by pyarrow DataType, and back: filled on
# first use (pyarrow is optional).
_NUMERIC_CODE_OF_TYPE: dict = {}
_NUMERIC_TYPE_OF_CODE: dict = {}


def _cast_numeric_arrow(
    pa: Any, arr: Any, dst: int, sat: bool, rm: int, threads: int
) -> Optional[Any]:
    """The short path of an Arrow numeric Array into an Arrow numeric type (not bool): the
    result is written into a buffer of pyarrow's pool and wrapped with arr's validity (null
    slots 0), as the general path does it. None when the pair or array is not such."""
    if not _NUMERIC_CODE_OF_TYPE:
        for code, alias in _ARROW_ALIAS.items():
            if code not in (_BOOL, _STRING):
                t = pa.type_for_alias(alias)
                _NUMERIC_CODE_OF_TYPE[t] = code
                _NUMERIC_TYPE_OF_CODE[code] = t
    src = _NUMERIC_CODE_OF_TYPE.get(arr.type)
    pa_type = _NUMERIC_TYPE_OF_CODE.get(dst)
    n = len(arr)
    if src is None or pa_type is None or n == 0:
        return None
    bufs = arr.buffers()
    dt, out_dt = _DTYPE[src], _DTYPE[dst]
    x = np.frombuffer(bufs[1], dt, count=n, offset=arr.offset * dt.itemsize)
    buf = pa.allocate_buffer(n * out_dt.itemsize)
    res = np.frombuffer(buf, out_dt, count=n)
    err = _ext.cast(x, src, res, dst, n, sat, rm, threads)
    if err is not None:
        _raise(err)
    nulls = arr.null_count
    validity = None
    if nulls:
        off = arr.offset
        err = _ext.zero_nulls(res, out_dt.itemsize, bufs[0], off, n)
        if err is not None:
            _raise(err)
        if off == 0:
            validity = bufs[0]
        else:
            bits = np.unpackbits(np.frombuffer(bufs[0], np.uint8), count=off + n, bitorder="little")
            validity = pa.py_buffer(np.packbits(bits[off:], bitorder="little"))
    return pa.Array.from_buffers(pa_type, n, [validity, buf], null_count=nulls)


def _arrow_valid_mask(arr: Any) -> Optional[np.ndarray]:
    """A bool array of the elements present, or None when none is null."""
    if arr.null_count == 0:
        return None
    return np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _cast_arrow(
    arr: Any,
    dst: int,
    sat: bool,
    rm: int,
    out: Any,
    packed: bool,
    threads: int,
    mask: Any = None,
    nulls: bool = False,
) -> Any:
    """An Arrow array cast to dst: an Arrow array with arr's validity, or numpy (packed, out=,
    or a type Arrow lacks). nulls (errors="null"): texts that are not numbers become nulls;
    a numpy result then needs `mask` (mask_out, set True where the result is null)."""
    import pyarrow as pa

    if out is None and not packed and mask is None and isinstance(arr, pa.Array):
        fast = _cast_numeric_arrow(pa, arr, dst, sat, rm, threads)
        if fast is not None:
            return fast
    if packed and dst not in _BITS:
        raise ValueError(
            f"packed=True needs a packed target type ({_PACKED_NAMES}), not {_ext.type_name(dst)}"
        )
    if isinstance(arr, pa.ChunkedArray):
        if out is not None:
            raise ValueError("out= is not supported for a pyarrow ChunkedArray")
        numpy_result = packed or _arrow_type(pa, dst) is None
        if nulls:
            mask = _null_mask(mask, len(arr), numpy_result, out)
        parts = []
        base = 0
        for chunk in arr.chunks:
            part_mask = None if mask is None else mask[base : base + len(chunk)]
            try:
                # packed=True packs all elements together, after the chunks are joined.
                parts.append(
                    _cast_arrow(chunk, dst, sat, rm, None, False, threads, part_mask, nulls)
                )
            except CastError as e:  # indices count from the start of the ChunkedArray
                message = str(e)
                prefix = f"element {e.index}"
                if message.startswith(prefix):
                    message = f"element {e.index + base}" + message[len(prefix) :]
                raise CastError(message, e.index + base, e.text) from None
            base += len(chunk)
        pa_type = None if packed else _arrow_type(pa, dst)
        if pa_type is not None:
            return pa.chunked_array(parts, type=pa_type)
        joined = np.concatenate(parts) if parts else np.empty((0,), _DTYPE[dst])
        return _pack_flat(joined, dst, threads) if packed else joined
    if not isinstance(arr, pa.Array):
        raise TypeError(f"x: unsupported pyarrow object {type(arr).__name__}")
    src = _arrow_code(pa, arr.type)
    if str(arr.type) == "string_view":
        arr = arr.cast(pa.string())
    n = len(arr)
    valid = _arrow_valid_mask(arr)
    # The Arrow type of the result; None: a numpy result (a target Arrow does not have, packed
    # bytes, or the caller's numpy out=).
    pa_type = None if packed or out is not None else _arrow_type(pa, dst)
    if nulls:  # checked now, written once the result is (no argument error after it)
        mask = _null_mask(mask, n, pa_type is None, out)

    if src == _STRING and dst == _STRING:
        if pa_type is None:
            res = _cast_numpy(
                np.asarray(arr.to_numpy(zero_copy_only=False), dtype=object),
                dst,
                sat,
                rm,
                out,
                packed,
                threads,
            )
            return _fill_mask(mask, valid, res)
        return arr
    if src == _STRING:
        offsets, width, data, validity = _arrow_string_buffers(pa, arr)
        validity_out = np.empty((n + 7) // 8, np.uint8) if nulls else None
        # An Arrow result without nulls is written into a buffer of pyarrow's memory pool and
        # returned as is: the pool reuses its memory where a fresh numpy array of some MiB
        # would be mapped (and page-faulted) anew on every call.
        pool_buffer = None
        if packed:
            res = (
                np.empty(_storage_bytes(dst, n), np.uint8)
                if out is None
                else _check_out(out, (_storage_bytes(dst, n),), np.dtype(np.uint8))
            )
        elif (
            pa_type is not None and valid is None and dst != _BOOL and n > 0 and not nulls
        ):  # Arrow booleans are bits
            pool_buffer = pa.allocate_buffer(n * _DTYPE[dst].itemsize)
            res = np.frombuffer(pool_buffer, _DTYPE[dst], count=n)
        else:
            res = np.empty((n,), _DTYPE[dst]) if out is None else _check_out(out, (n,), _DTYPE[dst])
        work = res if res.flags.c_contiguous else np.empty_like(res)
        if dst in _BITS and not packed:
            target = np.empty(_storage_bytes(dst, n), np.uint8)
        else:
            target = work
        err = _ext.cast_from_arrow_strings(
            offsets,
            width,
            data,
            validity,
            arr.offset,
            n,
            target,
            dst,
            True,
            sat,
            rm,
            threads,
            validity_out,
        )
        if err is not None:
            code, message, index = err
            if code == _PARSE_ERROR:
                text = arr[index].as_py() if index < n else None
                raise CastError(message, index, text)
            _raise(err)
        if dst in _BITS and not packed:
            _unpack_into(target, dst, work.reshape(-1), threads)
        if work is not res:
            res[...] = work
        if pool_buffer is not None:
            return pa.Array.from_buffers(pa_type, n, [None, pool_buffer], null_count=0)
        values = res
        if validity_out is not None:
            if pa_type is not None and dst != _BOOL and values.flags.c_contiguous:
                # The library's validity bitmap and values as the Arrow array's buffers.
                return pa.Array.from_buffers(
                    pa_type, n, [pa.py_buffer(validity_out), pa.py_buffer(values)]
                )
            valid = np.unpackbits(validity_out, count=n, bitorder="little").view(np.bool_)
    else:
        if src == _BOOL:  # Arrow booleans are bits
            np_in = np.asarray(arr.fill_null(False).to_numpy(zero_copy_only=False), dtype=np.bool_)
        else:
            dt = _DTYPE[src]
            data_buf = arr.buffers()[1]
            np_in = (
                np.frombuffer(data_buf, dtype=dt, count=n, offset=arr.offset * dt.itemsize)
                if n
                else np.empty((0,), dt)
            )
        if dst == _STRING:
            if pa_type is None:
                res = _cast_numpy(np_in, dst, sat, rm, out, packed, threads)
                return _fill_mask(mask, valid, res)
            return _numbers_to_arrow_strings(pa, np_in, src, arr, threads)
        if valid is None:
            values = _cast_numpy(np_in, dst, sat, rm, out, packed, threads)
        else:
            # Null slots hold the all-zero code (as a null text with TC_NULL_ZERO), whatever
            # the source slot held: set on the unpacked result, then packed if asked.
            values = _cast_numpy(np_in, dst, sat, rm, None if packed else out, False, threads)
            values.view(_BITS_VIEW[values.dtype.itemsize])[~valid] = 0  # 1-D, as the Arrow array
            if packed:
                packed_values = _pack_flat(values.reshape(-1), dst, threads)
                if out is not None:
                    _check_out(out, packed_values.shape, packed_values.dtype)[...] = packed_values
                    return _fill_mask(mask, valid, out)
                return _fill_mask(mask, valid, packed_values)
    if pa_type is None:
        return _fill_mask(mask, valid, values)
    if valid is None:
        return pa.array(values, type=pa_type)
    return pa.array(values, type=pa_type, mask=~valid)


def _fill_mask(mask: Any, valid: Any, result: Any) -> Any:
    """Writes mask_out (when given) from the result's validity (None: no null); returns
    result."""
    if mask is not None:
        if valid is None:
            mask[...] = False
        else:
            np.logical_not(valid, out=mask)
    return result


def _null_mask(mask: Any, n: int, numpy_result: bool, out: Any) -> Any:
    """mask_out of errors="null" for an Arrow input of n elements: required (and checked) for
    a numpy result, refused for an Arrow one (its validity holds the nulls)."""
    if not numpy_result:
        if mask is not None:
            raise ValueError(
                "mask_out: the result is an Arrow array, whose validity holds the nulls"
            )
        return None
    if mask is None:
        raise ValueError(
            "errors='null' with a numpy result needs mask_out= (a bool array of x's shape, "
            "set True where the element is null)"
        )
    mask = _check_mask(mask, (n,))
    if isinstance(out, np.ndarray) and np.may_share_memory(mask, out):
        raise ValueError("mask_out shares memory with x or out")
    return mask


def _numbers_to_arrow_strings(pa: Any, np_in: np.ndarray, src: int, arr: Any, threads: int) -> Any:
    n = np_in.shape[0]
    valid = _arrow_valid_mask(arr)
    if valid is not None:
        np_in = np_in.copy()
        np_in[~valid] = 0  # null slots hold the text of 0
    flat = _flat_source(np_in, src)
    data = np.empty(n * 33 + 1, np.uint8)
    width = 4 if n * 33 < 2**31 else 8
    offsets = np.empty(n + 1, np.int32 if width == 4 else np.int64)
    used = _ext.cast_to_arrow_strings(flat, src, n, offsets, width, data, threads)
    if isinstance(used, tuple):
        _raise(used)
    pa_type = pa.string() if width == 4 else pa.large_string()
    validity = None
    if valid is not None:
        validity = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(
        pa_type,
        n,
        [validity, pa.py_buffer(offsets), pa.py_buffer(data[:used])],
        null_count=arr.null_count,
    )
