"""tensorcast: exact, fast ONNX Cast / CastLike / Split for numpy, ml_dtypes and Arrow arrays.

    import numpy as np, tensorcast as tc
    x = np.linspace(-500, 500, 1_000_000, dtype=np.float32)
    y = tc.cast(x, "float8e4m3fn")            # ml_dtypes.float8_e4m3fn array, saturated
    z = tc.cast(y, np.float32)                 # back, exactly
    parts = tc.split(x, [250_000, 750_000])   # ONNX sizes

Every function here is a plain Python function (picklable by reference, so Dask, Ray and
Spark can ship it to workers); the work runs in the C++ library with the GIL released.
The rules of every value are the library's: ONNX Cast-25, one rounding, numpy's str()
spelling for numbers written as text (docs/semantics.md).
"""

from __future__ import annotations

import enum
from typing import Any, List, Optional, Sequence, Union

import ml_dtypes
import numpy as np

from . import _tensorcast as _ext

__all__ = [
    "CastError",
    "DataType",
    "cast",
    "cast_like",
    "get_num_threads",
    "pack",
    "set_num_threads",
    "split",
    "unpack",
]

__version__: str = _ext.VERSION


class DataType(enum.IntEnum):
    """ONNX element types (onnx.TensorProto.DataType codes)."""

    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16
    FLOAT8E4M3FN = 17
    FLOAT8E4M3FNUZ = 18
    FLOAT8E5M2 = 19
    FLOAT8E5M2FNUZ = 20
    UINT4 = 21
    INT4 = 22
    FLOAT4E2M1 = 23
    FLOAT8E8M0 = 24
    UINT2 = 25
    INT2 = 26


class CastError(ValueError):
    """A text that is not a number (Cast from STRING). `index` is the element's position in
    C order of the input (np.unravel_index(index, x.shape) for an N-d array); `text` is the
    element's text."""

    def __init__(self, message: str, index: int, text: Optional[str]) -> None:
        super().__init__(message)
        self.index = index
        self.text = text


# ---------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------

_STRING = 8
_NUMPY2 = int(np.__version__.split(".")[0]) >= 2

# ONNX code -> the numpy / ml_dtypes dtype of a result (sub-byte types unpacked).
_DTYPE = {
    1: np.dtype(np.float32),
    2: np.dtype(np.uint8),
    3: np.dtype(np.int8),
    4: np.dtype(np.uint16),
    5: np.dtype(np.int16),
    6: np.dtype(np.int32),
    7: np.dtype(np.int64),
    9: np.dtype(np.bool_),
    10: np.dtype(np.float16),
    11: np.dtype(np.float64),
    12: np.dtype(np.uint32),
    13: np.dtype(np.uint64),
    14: np.dtype(np.complex64),
    15: np.dtype(np.complex128),
    16: np.dtype(ml_dtypes.bfloat16),
    17: np.dtype(ml_dtypes.float8_e4m3fn),
    18: np.dtype(ml_dtypes.float8_e4m3fnuz),
    19: np.dtype(ml_dtypes.float8_e5m2),
    20: np.dtype(ml_dtypes.float8_e5m2fnuz),
    21: np.dtype(ml_dtypes.uint4),
    22: np.dtype(ml_dtypes.int4),
    23: np.dtype(ml_dtypes.float4_e2m1fn),
    24: np.dtype(ml_dtypes.float8_e8m0fnu),
    25: np.dtype(ml_dtypes.uint2),
    26: np.dtype(ml_dtypes.int2),
}
# Scalar type -> ONNX code. Keyed by the type, never by dtype.str: ml_dtypes types share
# strings ('<V1', and '<f1' for float8_e5m2).
_CODE_OF_TYPE = {dt.type: code for code, dt in _DTYPE.items()}
_CODE_OF_TYPE[np.str_] = _STRING
_CODE_OF_TYPE[np.bytes_] = _STRING
_CODE_OF_TYPE[np.object_] = _STRING
if _NUMPY2:
    _STRING_DTYPE: Any = np.dtypes.StringDType()
    _CODE_OF_TYPE[type(_STRING_DTYPE).type] = _STRING  # str
else:  # pragma: no cover (numpy 1)
    _STRING_DTYPE = np.dtype(object)

# Packed types: bits per element. An unpacked ml_dtypes byte holds the element's code in
# its low bits (ml_dtypes writes the high bits as zero and ignores them when reading), so
# packing and unpacking move codes: UINT8 <-> UINT4 / UINT2 (integer narrowing keeps the low
# bits).
_BITS = {21: 4, 22: 4, 23: 4, 25: 2, 26: 2}
_UNPACKED_AS = {21: 2, 22: 2, 23: 2, 25: 2, 26: 2}  # UINT8
_PACKED_AS = {21: 21, 22: 21, 23: 21, 25: 25, 26: 25}  # UINT4, UINT2
# The unsigned type of each itemsize, to set bit patterns (the all-zero code of a null slot).
_BITS_VIEW = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}

# Native dtypes of one byte or more (the fast path of cast) -> ONNX code, and the targets
# whose numpy dtype holds the library's storage as is.
_PLAIN_SOURCE = {
    dt: code for code, dt in _DTYPE.items() if code not in (14, 15, 21, 22, 23, 25, 26)
}
_PLAIN_TARGET = frozenset(_PLAIN_SOURCE.values())

_ROUND_MODES = {"up": 0, "down": 1, "nearest": 2}
_type_cache: dict = {}

TypeLike = Union[DataType, int, str, np.dtype, type]


def _type_code(to: Any, what: str = "to") -> int:
    """The ONNX code of a type argument, or TypeError / ValueError."""
    try:
        return _type_cache[to]
    except (KeyError, TypeError):
        pass
    code = _resolve_type(to, what)
    try:
        _type_cache[to] = code
    except TypeError:
        pass
    return code


def _resolve_type(to: Any, what: str) -> int:
    if isinstance(to, bool):
        raise TypeError(f"{what}: {to!r} is not a type")
    if isinstance(to, int):  # DataType and ONNX codes
        code = int(to)
        if code in (14, 15):
            raise TypeError(f"{what}: Cast does not accept complex types ({_ext.type_name(code)})")
        if not 1 <= code <= 26:
            raise ValueError(f"{what}: {code} is not an ONNX element type code (1-26)")
        return code
    if isinstance(to, str):
        code = _ext.parse_type(to)
        if code == 0:
            try:
                dt = np.dtype(to)
            except TypeError:
                raise ValueError(f"{what}: unknown type name {to!r}") from None
            return _code_of_dtype(dt, what)
        return _resolve_type(code, what)
    if isinstance(to, (np.dtype, type)) or hasattr(to, "dtype"):
        try:
            dt = np.dtype(to)
        except TypeError:
            raise TypeError(f"{what}: {to!r} is not a type") from None
        return _code_of_dtype(dt, what)
    raise TypeError(f"{what}: {to!r} is not a type (DataType, ONNX code or name, numpy dtype)")


def _code_of_dtype(dt: np.dtype, what: str = "x") -> int:
    code = _CODE_OF_TYPE.get(dt.type)
    if code is None:
        raise TypeError(f"{what}: numpy dtype {dt} has no ONNX element type")
    if code in (14, 15):
        raise TypeError(f"{what}: Cast does not accept complex types ({dt})")
    return code


def _round_mode(round_mode: str) -> int:
    try:
        return _ROUND_MODES[round_mode]
    except (KeyError, TypeError):
        raise ValueError(
            f"round_mode must be 'up', 'down' or 'nearest', not {round_mode!r}"
        ) from None


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be None or an integer >= 1, not {threads!r}")
    return threads


def _raise(err: tuple, texts: Any = None) -> None:
    code, message, index = err
    if code == 3:  # PARSE_ERROR: a text that is not a number
        text = None
        if texts is not None:
            try:
                t = texts[index]
                text = t.decode("utf-8", "backslashreplace") if isinstance(t, bytes) else str(t)
            except Exception:  # the message names the text in any case
                text = None
        raise CastError(message, index, text)
    if code == 2:  # UNSUPPORTED
        raise TypeError(message)
    if code == 5 and "memory" in message:
        raise MemoryError(message)
    raise ValueError(message)


def _storage_bytes(code: int, count: int) -> int:
    bits = _BITS.get(code)
    if bits is not None:
        return (count * bits + 7) // 8
    return count * _DTYPE[code].itemsize


# ---------------------------------------------------------------------------------------
# numpy
# ---------------------------------------------------------------------------------------


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
    err = _ext.cast(x, _UNPACKED_AS[code], packed, _PACKED_AS[code], n, True, 0, threads)
    if err is not None:
        _raise(err)
    return packed


def _unpack_into(packed: np.ndarray, code: int, out_flat: np.ndarray, threads: int = 0) -> None:
    n = out_flat.shape[0]
    err = _ext.cast(packed, _PACKED_AS[code], out_flat, _UNPACKED_AS[code], n, True, 0, threads)
    if err is not None:
        _raise(err)


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


def _parse_texts(
    x: np.ndarray, target: np.ndarray, dst: int, sat: bool, rm: int, threads: int
) -> None:
    """Texts of a numpy array (str_, bytes_, StringDType, object of str/bytes) -> numbers.

    str_ and bytes_ arrays are read from their buffer (trailing NULs are padding, as numpy
    defines them). A StringDType text is read whole, NUL characters included (numpy's
    conversions to fixed width and its string functions drop trailing NULs, so neither is
    used): through pyarrow's conversion when pyarrow is installed and the array is not tiny,
    else as Python str."""
    n = x.size
    kind = x.dtype.kind
    texts: Any = x.reshape(-1)
    if kind in "SU":
        fixed = x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))
        fixed = np.ascontiguousarray(fixed)
        width = fixed.dtype.itemsize // (4 if kind == "U" else 1)
        err = _ext.cast_from_fixed_strings(fixed, kind, width, n, target, dst, sat, rm, threads)
    else:
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
            offsets, width, data, validity = _arrow_string_buffers(pa, arr)
            err = _ext.cast_from_arrow_strings(
                offsets, width, data, validity, arr.offset, n, target, dst, False, sat, rm, threads
            )
        else:
            if kind == "T":
                texts = texts.astype(object)
            texts = texts.tolist()  # bytes elements are parsed as UTF-8 text
            err = _ext.cast_from_strings(texts, target, dst, sat, rm, threads)
    if err is not None:
        _raise(err, texts)


def _texts(x: np.ndarray) -> list:
    return x.reshape(-1).tolist()


def _new_strings(texts: list, shape: tuple) -> np.ndarray:
    if _NUMPY2:
        return np.array(texts, dtype=_STRING_DTYPE).reshape(shape)
    out = np.empty(len(texts), dtype=object)  # pragma: no cover (numpy 1)
    out[:] = texts
    return out.reshape(shape)


def _check_out(out: Any, shape: tuple, dtype: np.dtype) -> np.ndarray:
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}, the result has shape {shape}")
    if dtype == _STRING_DTYPE:
        if out.dtype.kind not in "TO":
            raise TypeError(f"out has dtype {out.dtype}, the result is STRING ({dtype})")
    elif out.dtype != dtype:
        raise TypeError(f"out has dtype {out.dtype}, the result has dtype {dtype}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    return out


def _cast_numpy(
    x: np.ndarray, dst: int, sat: bool, rm: int, out: Any, packed: bool, threads: int
) -> np.ndarray:
    src = _CODE_OF_TYPE.get(x.dtype.type)
    if src is None or src in (14, 15):
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
                f"packed=True needs a packed target type (INT4, UINT4, FLOAT4E2M1, INT2, UINT2), not {_ext.type_name(dst)}"
            )
        res_shape: tuple = (_storage_bytes(dst, n),)
        res_dtype = np.dtype(np.uint8)
    else:
        res_shape = shape
        res_dtype = _STRING_DTYPE if dst == _STRING else _DTYPE[dst]
    direct = None
    if out is not None:
        _check_out(out, res_shape, res_dtype)
        if out.flags.c_contiguous and dst != _STRING and not np.may_share_memory(out, x):
            direct = out
    result = (
        direct
        if direct is not None
        else (None if dst == _STRING else np.empty(res_shape, res_dtype))
    )

    if dst == _STRING:
        if src == _STRING:
            if not x.dtype.isnative:
                x = x.astype(x.dtype.newbyteorder("="))
            if x.dtype.kind == "S":
                result = _new_strings([t.decode("utf-8") for t in _texts(x)], shape)
            elif _NUMPY2:
                result = x.astype(_STRING_DTYPE)
            else:  # pragma: no cover (numpy 1)
                result = _new_strings(_texts(x), shape)
        else:
            fixed = np.empty((n,), "S32")  # no number's text is longer than 32 bytes
            err = _ext.cast_to_fixed_strings(_flat_source(x, src, threads), src, n, fixed, threads)
            if err is not None:
                _raise(err)
            if _NUMPY2:
                result = fixed.astype(_STRING_DTYPE).reshape(shape)
            else:  # pragma: no cover (numpy 1)
                result = fixed.astype("U32").astype(object).reshape(shape)
    else:
        flat_out = result.reshape(-1)
        if dst in _BITS and not packed:
            target = np.empty(_storage_bytes(dst, n), np.uint8)
        else:
            target = flat_out
        if src == _STRING:
            _parse_texts(x, target, dst, sat, rm, threads)
        else:
            flat = _flat_source(x, src, threads)
            if np.may_share_memory(flat, target):
                flat = flat.copy()
            err = _ext.cast(flat, src, target, dst, n, sat, rm, threads)
            if err is not None:
                _raise(err)
        if dst in _BITS and not packed:
            _unpack_into(target, dst, flat_out, threads)

    if out is not None and direct is None:
        out[...] = result
        return out
    return result


# ---------------------------------------------------------------------------------------
# Arrow
# ---------------------------------------------------------------------------------------

_ARROW_NUMERIC = {
    "int8": 3,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "uint8": 2,
    "uint16": 4,
    "uint32": 12,
    "uint64": 13,
    "halffloat": 10,
    "float": 1,
    "double": 11,
    "bool": 9,
}


def _is_arrow(x: Any) -> bool:
    return type(x).__module__.startswith("pyarrow")


def _arrow_type(pa: Any, code: int) -> Any:
    return {
        1: pa.float32(),
        2: pa.uint8(),
        3: pa.int8(),
        4: pa.uint16(),
        5: pa.int16(),
        6: pa.int32(),
        7: pa.int64(),
        8: pa.string(),
        9: pa.bool_(),
        10: pa.float16(),
        11: pa.float64(),
        12: pa.uint32(),
        13: pa.uint64(),
    }.get(code)


def _arrow_code(pa: Any, t: Any) -> int:
    if pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view":
        return _STRING
    code = _ARROW_NUMERIC.get(str(t))
    if code is None:
        raise TypeError(f"x: Arrow type {t} has no ONNX element type")
    return code


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


def _arrow_valid_mask(arr: Any) -> Optional[np.ndarray]:
    """A bool array of the elements present, or None when none is null."""
    if arr.null_count == 0:
        return None
    return np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _cast_arrow(
    arr: Any, dst: int, sat: bool, rm: int, out: Any, packed: bool, threads: int
) -> Any:
    import pyarrow as pa

    if packed and dst not in _BITS:
        raise ValueError(
            f"packed=True needs a packed target type (INT4, UINT4, FLOAT4E2M1, INT2, UINT2), not {_ext.type_name(dst)}"
        )
    if isinstance(arr, pa.ChunkedArray):
        if out is not None:
            raise ValueError("out= is not supported for a pyarrow ChunkedArray")
        parts = []
        base = 0
        for chunk in arr.chunks:
            try:
                # packed=True packs all elements together, after the chunks are joined.
                parts.append(_cast_arrow(chunk, dst, sat, rm, None, False, threads))
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

    if src == _STRING and dst == _STRING:
        if pa_type is None:
            return _cast_numpy(
                np.asarray(arr.to_numpy(zero_copy_only=False), dtype=object),
                dst,
                sat,
                rm,
                out,
                packed,
                threads,
            )
        return arr
    if src == _STRING:
        offsets, width, data, validity = _arrow_string_buffers(pa, arr)
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
            pa_type is not None and valid is None and dst != 9 and n > 0
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
            offsets, width, data, validity, arr.offset, n, target, dst, True, sat, rm, threads
        )
        if err is not None:
            code, message, index = err
            if code == 3:
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
    else:
        if src == 9:  # Arrow booleans are bits
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
                return _cast_numpy(np_in, dst, sat, rm, out, packed, threads)
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
                    return out
                return packed_values
    if pa_type is None:
        return values
    if valid is None:
        return pa.array(values, type=pa_type)
    return pa.array(values, type=pa_type, mask=~valid)


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


# ---------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------


def cast(
    x: Any,
    to: TypeLike,
    *,
    saturate: bool = True,
    round_mode: str = "up",
    out: Optional[np.ndarray] = None,
    packed: bool = False,
    threads: Optional[int] = None,
) -> Any:
    """ONNX Cast of `x` to the element type `to`.

    x: a numpy array (any numeric or ml_dtypes dtype, any strides, any byte order; str_,
    bytes_, object-of-str or StringDType for STRING), a pyarrow Array or ChunkedArray, an
    object with __arrow_c_array__ (through pyarrow), __dlpack__ or the buffer protocol.
    to: a DataType, an ONNX code, an ONNX name ("float8e4m3fn", "tensor(bfloat16)"), or a
    numpy / ml_dtypes dtype or type. Names are read as ONNX first: "float" is FLOAT (float32).
    saturate: float8 targets clamp out-of-range values to +-max (True) or give NaN/Inf.
    round_mode: "up", "down" or "nearest" for FLOAT8E8M0 targets.
    out: a numpy array of the result's shape and dtype to write into (no allocation when
    both x and out are C-contiguous); it is returned.
    packed: sub-byte targets (INT4, UINT4, FLOAT4E2M1, INT2, UINT2) as ONNX packed bytes
    (1-D uint8) instead of one ml_dtypes element per byte.
    threads: None = the package's pool (tc.set_num_threads) for large calls; 1 = this
    thread only; n = a pool of n threads.

    Returns a numpy array of x's shape with the numpy / ml_dtypes dtype of `to` (STRING:
    StringDType); for pyarrow input, a pyarrow array with x's validity (null slots 0), or
    numpy for types Arrow does not have. Raises TypeError / ValueError for bad arguments and
    CastError for a text that is not a number.
    """
    try:
        dst = _type_cache[to]
    except (KeyError, TypeError):
        dst = _type_code(to)
    rm = _ROUND_MODES.get(round_mode) if type(round_mode) is str else None
    if rm is None:
        rm = _round_mode(round_mode)
    nthreads = 0 if threads is None else _threads(threads)
    sat = True if saturate else False
    if type(x) is np.ndarray and not packed:
        # Fast path: a native numeric array into a numeric type of one byte or more, C order.
        src = _PLAIN_SOURCE.get(x.dtype)
        if src is not None and dst in _PLAIN_TARGET:
            if out is None:
                res = np.empty(x.shape, _DTYPE[dst])
                err = _ext.cast(x, src, res, dst, x.size, sat, rm, nthreads)
                if err is None:
                    return res
            elif type(out) is np.ndarray and out.shape == x.shape and out.dtype == _DTYPE[dst]:
                err = _ext.cast(x, src, out, dst, x.size, sat, rm, nthreads)
                if err is None:
                    return out
            else:
                err = (-1,)
            if err[0] != -1:  # -1: not C-contiguous, read-only or overlapping: the general path
                _raise(err)
        return _cast_numpy(x, dst, sat, rm, out, packed, nthreads)
    if isinstance(x, np.ndarray):
        return _cast_numpy(x, dst, sat, rm, out, packed, nthreads)
    return _cast_any(x, dst, sat, rm, out, packed, nthreads)


def _cast_any(x: Any, dst: int, sat: bool, rm: int, out: Any, packed: bool, threads: int) -> Any:
    # Arrow arrays give Arrow results. An object that is an array in both worlds (a pandas
    # Series has __array__ and __arrow_c_stream__) is read as numpy, which its users expect.
    if _is_arrow(x):
        return _cast_arrow(x, dst, sat, rm, out, packed, threads)
    stream = hasattr(x, "__arrow_c_stream__") and not (
        hasattr(x, "__array__") or hasattr(x, "__dlpack__")
    )
    if hasattr(x, "__arrow_c_array__") or stream:
        try:
            import pyarrow as pa
        except ImportError:
            raise TypeError(
                "x: Arrow PyCapsule objects (__arrow_c_array__, __arrow_c_stream__) need pyarrow "
                "installed"
            ) from None
        arr = pa.array(x) if hasattr(x, "__arrow_c_array__") else pa.chunked_array(x)
        return _cast_arrow(arr, dst, sat, rm, out, packed, threads)
    return _cast_numpy(_as_array(x), dst, sat, rm, out, packed, threads)


def cast_like(
    x: Any,
    like: Any,
    *,
    saturate: bool = True,
    round_mode: str = "up",
    out: Optional[np.ndarray] = None,
    packed: bool = False,
    threads: Optional[int] = None,
) -> Any:
    """ONNX CastLike: cast(x, the element type of `like`). `like` is an array (numpy,
    pyarrow) whose values and shape are not used, or anything `to` of cast() accepts."""
    if isinstance(like, np.ndarray):
        code = _code_of_dtype(like.dtype, "like") if like.dtype.kind not in "UST" else _STRING
    elif _is_arrow(like):
        import pyarrow as pa

        code = _arrow_code(pa, like.type)
    else:
        code = _type_code(like, "like")
    return cast(
        x, code, saturate=saturate, round_mode=round_mode, out=out, packed=packed, threads=threads
    )


def split(
    x: Any,
    split: Optional[Sequence[int]] = None,
    *,
    axis: int = 0,
    num_outputs: Optional[int] = None,
    threads: Optional[int] = None,
) -> List[np.ndarray]:
    """ONNX Split (opset 18): x cut along `axis` into parts of the sizes `split` (ONNX sizes
    that sum to the axis length, not numpy's cut indices), or into `num_outputs` parts of
    ceil(d / num_outputs) elements, the last non-empty part taking the rest. Returns a list
    of new C-contiguous arrays of x's dtype."""
    x = _as_array(x)
    nthreads = _threads(threads)
    if x.ndim == 0:
        raise ValueError("split: x has rank 0")
    if split is not None:
        split = [int(s) for s in split]
    if num_outputs is not None and (
        isinstance(num_outputs, bool) or not isinstance(num_outputs, int)
    ):
        raise TypeError(f"num_outputs must be an integer, not {num_outputs!r}")
    shape = [int(d) for d in x.shape]
    sizes = _ext.split_sizes(shape, int(axis), split, -1 if num_outputs is None else num_outputs)
    if isinstance(sizes, tuple):
        _raise(sizes)
    if num_outputs is not None and num_outputs < 0:
        raise ValueError(f"split: num_outputs must be >= 1, not {num_outputs}")
    a = int(axis) + x.ndim if int(axis) < 0 else int(axis)
    outputs = []
    for size in sizes:
        part_shape = list(shape)
        part_shape[a] = size
        outputs.append(
            np.empty(part_shape, x.dtype if x.dtype.isnative else x.dtype.newbyteorder("="))
        )
    code = _CODE_OF_TYPE.get(x.dtype.type)
    if code is None or code == _STRING:
        # Texts, objects and dtypes ONNX does not have: numpy copies (Split moves elements).
        bounds = np.cumsum(sizes)[:-1]
        for o, part in zip(outputs, np.split(x, bounds, axis=a)):
            o[...] = part
        return outputs
    src = np.ascontiguousarray(x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("=")))
    # The library's Split takes every type (complex included); unpacked sub-byte elements
    # are one byte each here, so they move as UINT8.
    err = _ext.split(
        src, _UNPACKED_AS[code] if code in _BITS else code, shape, a, sizes, outputs, nthreads
    )
    if err is not None:
        _raise(err)
    return outputs


def pack(x: Any) -> np.ndarray:
    """An ml_dtypes int4 / uint4 / int2 / uint2 / float4_e2m1fn array (one element per
    byte) -> the ONNX packed bytes of its elements in C order (1-D uint8; element 0 in the
    lowest bits, zero padding)."""
    x = _as_array(x)
    code = _CODE_OF_TYPE.get(x.dtype.type)
    if code not in _BITS:
        raise TypeError(
            f"pack: x must be an ml_dtypes int4, uint4, int2, uint2 or float4_e2m1fn array, not {x.dtype}"
        )
    return _pack_flat(np.ascontiguousarray(x).reshape(-1), code)


def unpack(buf: Any, dtype: TypeLike, count: int) -> np.ndarray:
    """ONNX packed bytes -> a 1-D ml_dtypes array of `count` elements of `dtype` (INT4,
    UINT4, FLOAT4E2M1, INT2, UINT2 in any spelling cast() accepts)."""
    code = _type_code(dtype, "dtype")
    if code not in _BITS:
        raise TypeError(
            f"unpack: dtype must be a packed type (INT4, UINT4, FLOAT4E2M1, INT2, UINT2), not {_ext.type_name(code)}"
        )
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ValueError(f"unpack: count must be an integer >= 0, not {count!r}")
    count = int(count)
    raw = (
        np.frombuffer(buf, np.uint8)
        if not isinstance(buf, np.ndarray)
        else np.ascontiguousarray(buf).reshape(-1).view(np.uint8)
    )
    need = _storage_bytes(code, count)
    if raw.shape[0] < need:
        raise ValueError(
            f"unpack: {count} elements of {_ext.type_name(code)} need {need} bytes, buf has {raw.shape[0]}"
        )
    out = np.empty((count,), _DTYPE[code])
    _unpack_into(raw, code, out)
    return out


def set_num_threads(n: int) -> None:
    """Sizes the package's pool (threads in total, the caller included); threads=None
    calls use it. The default is min(CPUs in this process's affinity, OMP_NUM_THREADS)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads: n must be an integer >= 1, not {n!r}")
    _ext.set_num_threads(n)


def get_num_threads() -> int:
    """The number of threads calls with threads=None may use."""
    return int(_ext.get_num_threads())
