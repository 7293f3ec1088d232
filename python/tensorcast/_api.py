"""The public functions (re-exported by the package `tensorcast`): argument checks, the
fast path of cast, and the choice between numpy and Arrow inputs."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from . import _tensorcast as _ext
from ._arrow import _arrow_code, _cast_arrow, _is_arrow
from ._errors import _raise
from ._numpy import _as_array, _cast_numpy, _check_mask, _new_array
from ._stats import CastStats, _stats_arg
from ._storage import _CACHE_MIN_BYTES, _pack_flat, _unpack_into
from ._types import (
    _BITS,
    _CODE_OF_TYPE,
    _DTYPE,
    _PACKED_NAMES,
    _PACKED_NUMPY_NAMES,
    _PLAIN_SOURCE,
    _PLAIN_TARGET,
    _ROW,
    _STRING,
    _UNPACKED_AS,
    TypeLike,
    _code_of_dtype,
    _storage_bytes,
    _type_cache,
    _type_code,
)

_ROUND_MODES = {"up": 0, "down": 1, "nearest": 2}


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


def cast(
    x: Any,
    to: TypeLike,
    *,
    saturate: bool = True,
    round_mode: str = "up",
    out: Optional[np.ndarray] = None,
    packed: bool = False,
    threads: Optional[int] = None,
    stats_out: Optional[CastStats] = None,
    errors: str = "raise",
    mask_out: Optional[np.ndarray] = None,
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
    packed: sub-byte targets (INT4, UINT4, FLOAT4E2M1, INT2, UINT2, FLOAT6E2M3, FLOAT6E3M2)
    as ONNX packed bytes (1-D uint8) instead of one ml_dtypes element per byte.
    threads: None = the package's pool (tc.set_num_threads) for large calls; 1 = this
    thread only; n = a pool of n threads.
    stats_out: a tensorcast.CastStats to fill in with the conversion's statistics (NaN /
    Inf inputs, inputs outside the target's range, flushed, amax, squared error and signal;
    one more pass; numeric pairs of numpy inputs; docs/semantics.md section 14).
    errors: "raise" (a text that is not a number raises CastError) or "null" (SQL's
    TRY_CAST: it becomes a null, its value slot 0). An Arrow result carries the nulls in its
    validity (with x's nulls); a numpy result needs mask_out. Numbers are never errors.
    mask_out: with errors="null" and a numpy result, a bool array of x's shape, set True
    where the element is null (not a number, or null in x) and False elsewhere.

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
    if errors != "raise" or mask_out is not None:
        return _cast_errors_null(
            x, dst, sat, rm, out, packed, nthreads, stats_out, errors, mask_out
        )
    if stats_out is not None:
        return _cast_with_stats(x, dst, sat, rm, out, packed, nthreads, stats_out)
    if type(x) is np.ndarray and not packed:
        # Fast path: a native numeric array into a numeric type of one byte or more, C order.
        src = _PLAIN_SOURCE.get(x.dtype)
        if src is not None and dst in _PLAIN_TARGET:
            if out is None:
                res = _new_array(x.shape, _DTYPE[dst])
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


def _cast_errors_null(
    x: Any,
    dst: int,
    sat: bool,
    rm: int,
    out: Any,
    packed: bool,
    threads: int,
    stats_out: Any,
    errors: Any,
    mask_out: Any,
) -> Any:
    if errors not in ("raise", "null"):
        raise ValueError(f"errors must be 'raise' or 'null', not {errors!r}")
    if errors == "raise":
        raise ValueError("mask_out: it is written by errors='null' only")
    if stats_out is not None:
        raise ValueError("stats_out: statistics are not computed with errors='null'")
    arrow = x if _is_arrow(x) else (None if isinstance(x, np.ndarray) else _arrow_of(x))
    if arrow is not None:
        return _cast_arrow(arrow, dst, sat, rm, out, packed, threads, mask_out, True)
    arr = x if isinstance(x, np.ndarray) else _as_array(x)
    if mask_out is None:
        raise ValueError(
            "errors='null' with a numpy result needs mask_out= (a bool array of x's shape, "
            "set True where the element is null)"
        )
    mask = _check_mask(mask_out, arr.shape)
    return _cast_numpy(arr, dst, sat, rm, out, packed, threads, None, mask)


def _cast_with_stats(
    x: Any, dst: int, sat: bool, rm: int, out: Any, packed: bool, threads: int, stats_out: Any
) -> Any:
    stats = _stats_arg(stats_out)
    if _is_arrow(x):
        raise TypeError("stats_out: statistics are computed for numpy inputs, not Arrow arrays")
    arr = x if isinstance(x, np.ndarray) else _as_array(x)
    if arr.dtype.kind in "UST" or arr.dtype == object or dst == _STRING:
        raise ValueError("stats_out: statistics are computed for numeric pairs, not STRING")
    return _cast_numpy(arr, dst, sat, rm, out, packed, threads, stats)


def _arrow_of(x: Any) -> Any:
    """x as a pyarrow Array / ChunkedArray when it is an Arrow PyCapsule object that is not
    also an array in numpy's sense, else None. An object that is an array in both worlds (a
    pandas Series has __array__ and __arrow_c_stream__) is read as numpy, which its users
    expect."""
    stream = hasattr(x, "__arrow_c_stream__") and not (
        hasattr(x, "__array__") or hasattr(x, "__dlpack__")
    )
    if not (hasattr(x, "__arrow_c_array__") or stream):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        raise TypeError(
            "x: Arrow PyCapsule objects (__arrow_c_array__, __arrow_c_stream__) need pyarrow "
            "installed"
        ) from None
    return pa.array(x) if hasattr(x, "__arrow_c_array__") else pa.chunked_array(x)


def _cast_any(x: Any, dst: int, sat: bool, rm: int, out: Any, packed: bool, threads: int) -> Any:
    # Arrow arrays give Arrow results.
    if _is_arrow(x):
        return _cast_arrow(x, dst, sat, rm, out, packed, threads)
    arr = _arrow_of(x)
    if arr is not None:
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
    pyarrow) whose values and shape are not used, or anything `to` of cast() accepts.
    CastLike (opsets 15-25) does not accept the types added to Cast later (FLOAT6E2M3,
    FLOAT6E3M2: Cast-28), as x's or like's type: TypeError; cast() takes them."""
    if isinstance(like, np.ndarray):
        code = _code_of_dtype(like.dtype, "like") if like.dtype.kind not in "UST" else _STRING
    elif _is_arrow(like):
        import pyarrow as pa

        code = _arrow_code(pa, like.type)
    else:
        code = _type_code(like, "like")
    _check_cast_like(code, "like")
    if isinstance(x, np.ndarray):
        src = _CODE_OF_TYPE.get(x.dtype.type)
        if src is not None:
            _check_cast_like(src, "x")
    return cast(
        x, code, saturate=saturate, round_mode=round_mode, out=out, packed=packed, threads=threads
    )


# The last opset of ONNX CastLike (it exists at opsets 15-25).
_CAST_LIKE_LAST_OPSET = 25


def _check_cast_like(code: int, what: str) -> None:
    since = _ROW[code].cast_since
    if since > _CAST_LIKE_LAST_OPSET:
        raise TypeError(
            f"{what}: CastLike (opsets 15-{_CAST_LIKE_LAST_OPSET}) does not accept "
            f"{_ext.type_name(code)}, a type of Cast from opset {since}: use cast()"
        )


def split(
    x: Any,
    split: Optional[Sequence[int]] = None,
    *,
    axis: int = 0,
    num_outputs: Optional[int] = None,
    out: Optional[Sequence[np.ndarray]] = None,
    threads: Optional[int] = None,
) -> List[np.ndarray]:
    """ONNX Split (opset 18): x cut along `axis` into parts of the sizes `split` (ONNX sizes
    that sum to the axis length, not numpy's cut indices), or into `num_outputs` parts of
    ceil(d / num_outputs) elements, the last non-empty part taking the rest. Returns a list
    of new C-contiguous arrays of x's dtype, or with `out` (a sequence of one numpy array per
    part, of the part's shape and x's dtype in native byte order, writable, not overlapping x
    or one another) writes the parts there and returns them as a list."""
    # The short path (small native C-contiguous arrays of an ONNX type, sizes and options of
    # plain ints): sizes, np.empty parts and the copy in one extension call. Anything it does
    # not take, or an error, goes the full way.
    if (
        out is None
        and type(x) is np.ndarray
        and type(axis) is int
        and (threads is None or (type(threads) is int and threads >= 1))
        and (num_outputs is None or (type(num_outputs) is int and num_outputs >= 0))
        and (split is None or type(split) is list)
        and x.ndim
        and x.nbytes < _CACHE_MIN_BYTES
        and x.dtype.isnative
        and x.flags.c_contiguous
    ):
        code = _SPLIT_CODE.get(x.dtype.type)
        if code is not None:
            try:
                parts = _ext.split_new(
                    x,
                    code,
                    list(x.shape),
                    axis,
                    split,
                    -1 if num_outputs is None else num_outputs,
                    x.dtype,
                    0 if threads is None else threads,
                )
            except (TypeError, RuntimeError):
                parts = None
            if type(parts) is list:
                return parts
            # An error: the full path below reads the sizes as ints (int(s)) and reports it.
    if type(x) is not np.ndarray:
        x = _as_array(x)
    nthreads = 0 if threads is None else _threads(threads)
    if x.ndim == 0:
        raise ValueError("split: x has rank 0")
    if split is not None:
        split = [int(s) for s in split]
    if num_outputs is not None and (
        isinstance(num_outputs, bool) or not isinstance(num_outputs, int)
    ):
        raise TypeError(f"num_outputs must be an integer, not {num_outputs!r}")
    shape = list(x.shape)
    sizes = _ext.split_sizes(shape, int(axis), split, -1 if num_outputs is None else num_outputs)
    if isinstance(sizes, tuple):
        _raise(sizes)
    if num_outputs is not None and num_outputs < 0:
        raise ValueError(f"split: num_outputs must be >= 1, not {num_outputs}")
    a = int(axis) + x.ndim if int(axis) < 0 else int(axis)
    dtype = x.dtype if x.dtype.isnative else x.dtype.newbyteorder("=")
    head, tail = tuple(shape[:a]), tuple(shape[a + 1 :])
    part_shapes = [head + (size,) + tail for size in sizes]
    if out is None:
        # Bytes per index along the axis: parts below the output cache's threshold come
        # straight from np.empty (the cheapest call for small parts).
        step = x.nbytes // shape[a] if shape[a] else 0
        outputs = [
            np.empty(ps, dtype) if step * size < _CACHE_MIN_BYTES else _new_array(ps, dtype)
            for ps, size in zip(part_shapes, sizes)
        ]
        targets = outputs
    else:
        outputs = _split_out(out, part_shapes, dtype, x)
        # Parts the library cannot write in place (not C-contiguous) go through a new array.
        targets = [o if o.flags.c_contiguous else np.empty(o.shape, dtype) for o in outputs]
    code = _CODE_OF_TYPE.get(x.dtype.type)
    src = None
    if code is not None and code != _STRING:
        src = (
            x
            if x.flags.c_contiguous and x.dtype.isnative
            else np.ascontiguousarray(x if x.dtype.isnative else x.astype(dtype))
        )
    if out is not None and src is not x:
        # The extension checks the outs against the buffer it reads; here that is a copy
        # (or numpy does the work), so they are checked against x itself, and when numpy
        # does the work, against one another.
        for i, o in enumerate(outputs):
            if o.size and _overlap(o, x):
                raise ValueError(f"split: out[{i}] shares memory with x")
            for j in range(i if src is None else 0):
                if o.size and outputs[j].size and _overlap(o, outputs[j]):
                    raise ValueError(f"split: out[{i}] shares memory with out[{j}]")
    if src is None:
        # Texts, objects and dtypes ONNX does not have: numpy copies (Split moves elements).
        bounds = np.cumsum(sizes)[:-1]
        for o, part in zip(targets, np.split(x, bounds, axis=a)):
            o[...] = part
    else:
        # The library's Split takes every type (complex included); unpacked sub-byte elements
        # are one byte each here, so they move as UINT8.
        err = _ext.split(
            src, _UNPACKED_AS[code] if code in _BITS else code, shape, a, sizes, targets, nthreads
        )
        if err is not None:
            _raise(err)
    if out is not None:
        for o, t in zip(outputs, targets):
            if o is not t:
                o[...] = t
    return outputs


# The type code the library's Split moves each numpy scalar type as (unpacked sub-byte
# elements are one byte each: UINT8); STRING and types ONNX lacks are numpy's to split.
_SPLIT_CODE = {
    t: (_UNPACKED_AS[c] if c in _BITS else c) for t, c in _CODE_OF_TYPE.items() if c != _STRING
}

# numpy >= 1.25 has np.exceptions; older numpy has np.TooHardError.
_TOO_HARD = getattr(getattr(np, "exceptions", np), "TooHardError", Exception)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether a and b share an element (exactly for the views users make: interleaved
    column blocks of one array do not overlap); too hard to decide counts as overlapping."""
    if not np.may_share_memory(a, b):
        return False
    try:
        return bool(np.shares_memory(a, b, max_work=100_000))
    except _TOO_HARD:
        return True


def _split_out(
    out: Any, part_shapes: List[tuple], dtype: np.dtype, x: np.ndarray
) -> List[np.ndarray]:
    """split's out= checked: one numpy array per part, of its shape and dtype, writable, not
    overlapping x or one another (C-contiguous outs: checked by the extension from their
    buffers). TypeError for a type or dtype, ValueError otherwise."""
    if isinstance(out, np.ndarray) or not isinstance(out, (list, tuple)):
        raise TypeError(
            f"split: out must be a list or tuple of numpy arrays, not {type(out).__name__}"
        )
    if len(out) != len(part_shapes):
        raise ValueError(
            f"split: out has {len(out)} arrays, the split has {len(part_shapes)} parts"
        )
    outputs = []
    for i, (o, part_shape) in enumerate(zip(out, part_shapes)):
        if not isinstance(o, np.ndarray):
            raise TypeError(f"split: out[{i}] must be a numpy array, not {type(o).__name__}")
        if o.dtype != dtype:
            raise TypeError(f"split: out[{i}] has dtype {o.dtype}, the parts have dtype {dtype}")
        if o.shape != part_shape:
            raise ValueError(
                f"split: out[{i}] has shape {o.shape}, part {i} has shape {part_shape}"
            )
        if not o.flags.writeable:
            raise ValueError(f"split: out[{i}] is read-only")
        if not o.flags.c_contiguous and o.size:
            if _overlap(o, x):
                raise ValueError(f"split: out[{i}] shares memory with x")
            for j in range(len(out)):
                if j != i and out[j].size and _overlap(o, out[j]):
                    raise ValueError(f"split: out[{i}] shares memory with out[{j}]")
        outputs.append(o)
    return outputs


def pack(x: Any) -> np.ndarray:
    """An ml_dtypes int4 / uint4 / int2 / uint2 / float4_e2m1fn / float6_e2m3fn /
    float6_e3m2fn array (one element per byte) -> the ONNX packed bytes of its elements in C
    order (1-D uint8; element i in bits [i * bits, (i + 1) * bits) of the little-endian bit
    stream, zero padding)."""
    x = _as_array(x)
    code = _CODE_OF_TYPE.get(x.dtype.type)
    if code not in _BITS:
        raise TypeError(f"pack: x must be an ml_dtypes {_PACKED_NUMPY_NAMES} array, not {x.dtype}")
    return _pack_flat(np.ascontiguousarray(x).reshape(-1), code)


def unpack(buf: Any, dtype: TypeLike, count: int) -> np.ndarray:
    """ONNX packed bytes -> a 1-D ml_dtypes array of `count` elements of `dtype` (INT4,
    UINT4, FLOAT4E2M1, INT2, UINT2, FLOAT6E2M3, FLOAT6E3M2 in any spelling cast()
    accepts)."""
    code = _type_code(dtype, "dtype")
    if code not in _BITS:
        raise TypeError(
            f"unpack: dtype must be a packed type ({_PACKED_NAMES}), not {_ext.type_name(code)}"
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


def set_output_cache(max_bytes: int) -> None:
    """Sets how many bytes of freed results the package keeps mapped for its next results
    (default 256 MiB; 0: none, each large result is fresh memory). Results of 4 MiB and more
    are placed in cached blocks: a call whose result fits a block freed before writes into
    pages already mapped instead of faulting in and zeroing new ones (docs/python.md,
    "Allocating calls"). Lowering the limit unmaps the blocks past it at once."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError(f"set_output_cache: max_bytes must be an integer >= 0, not {max_bytes!r}")
    _ext.set_output_cache(max_bytes)


# Public names of the package `tensorcast`, which re-exports them: pickle sends them by that
# reference (docs/distributed.md), and help() names it.
for _public in (
    cast,
    cast_like,
    split,
    pack,
    unpack,
    set_num_threads,
    get_num_threads,
    set_output_cache,
):
    _public.__module__ = "tensorcast"
del _public
