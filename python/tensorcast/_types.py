"""Element types: the DataType enum, the tables of every type and the resolution of a type
argument to its ONNX code.

The tables are built at import from the library's type facts table (lib/type_facts.h,
exported by the extension as _ext.type_facts()): a type's bits, packing, kind and numpy /
ml_dtypes dtype are read from its row, never written out here. DataType is the one
hand-written list (static type checkers read it); a test checks it against the rows.
"""

from __future__ import annotations

import enum
from typing import Any, Dict, FrozenSet, NamedTuple, Union

import ml_dtypes
import numpy as np

from . import _tensorcast as _ext


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
    FLOAT6E2M3 = 27
    FLOAT6E3M2 = 28


# A public name of the package `tensorcast`, which re-exports it: pickle refers to it there.
DataType.__module__ = "tensorcast"

TypeLike = Union[DataType, int, str, np.dtype, type]


class TypeRow(NamedTuple):
    """One row of the library's type facts table (the columns of lib/type_facts.h)."""

    code: int
    name: str
    bits: int  # 0 for STRING
    kind: str  # float, signed_int, unsigned_int, bool, string, complex, undefined
    exponent_bits: int
    mantissa_bits: int
    exponent_bias: int
    has_inf: bool
    has_nan: bool
    nan_style: str  # none, ieee, fn, fnuz, e8m0
    packed: bool
    cast_since: int
    numpy_name: str  # None only in the row of code 0, which _ROWS leaves out


# Every ONNX element type (code 0, UNDEFINED, is not one), in code order.
_ROWS = tuple(TypeRow(**row) for row in _ext.type_facts() if row["kind"] != "undefined")
_ROW = {row.code: row for row in _ROWS}
_CODE_OF_NAME = {row.name: row.code for row in _ROWS}
_MIN_CODE = min(_ROW)
_MAX_CODE = max(_ROW)


def _codes(kind: str) -> FrozenSet[int]:
    return frozenset(row.code for row in _ROWS if row.kind == kind)


(_STRING,) = _codes("string")
(_BOOL,) = _codes("bool")
_COMPLEX = _codes("complex")  # storage only: Cast refuses them, Split moves them
_NUMPY2 = int(np.__version__.split(".")[0]) >= 2


def _numpy_dtype(name: str) -> np.dtype[Any]:
    """The dtype of a row's numpy name: ml_dtypes' type of that name, else numpy's."""
    return np.dtype(getattr(ml_dtypes, name, name))


# ONNX code -> the numpy / ml_dtypes dtype of a result (sub-byte types unpacked). STRING
# results have _STRING_DTYPE instead.
_DTYPE: Dict[int, np.dtype[Any]] = {
    row.code: _numpy_dtype(row.numpy_name) for row in _ROWS if row.code != _STRING
}
# Scalar type -> ONNX code. Keyed by the type, never by dtype.str: ml_dtypes types share
# strings ('<V1', and '<f1' for float8_e5m2). numpy's text types and object (STRING's numpy
# name) are STRING.
_CODE_OF_TYPE = {dt.type: code for code, dt in _DTYPE.items()}
_CODE_OF_TYPE[np.str_] = _STRING
_CODE_OF_TYPE[np.bytes_] = _STRING
_CODE_OF_TYPE[_numpy_dtype(_ROW[_STRING].numpy_name).type] = _STRING
if _NUMPY2:
    _STRING_DTYPE: Any = np.dtypes.StringDType()
    _CODE_OF_TYPE[type(_STRING_DTYPE).type] = _STRING  # str
else:  # pragma: no cover (numpy 1)
    _STRING_DTYPE = np.dtype(object)

# Packed types: bits per element. An unpacked ml_dtypes byte holds the element's code in
# its low bits (ml_dtypes writes the high bits as zero), so packing and unpacking move
# codes: UINT8 <-> the unsigned integer of the packed type's width (UINT4, UINT2; integer
# narrowing keeps the low bits). The 6-bit types (FLOAT6E2M3, FLOAT6E3M2) have no such
# integer: the extension's pack6 / unpack6 move their codes (_storage), and _PACKED_AS
# leaves them out.
_BITS = {row.code: row.bits for row in _ROWS if row.packed}
_UNSIGNED_OF_BITS = {row.bits: row.code for row in _ROWS if row.kind == "unsigned_int"}
_UNPACKED_AS = {code: _UNSIGNED_OF_BITS[8] for code in _BITS}
_PACKED_AS = {
    code: _UNSIGNED_OF_BITS[bits] for code, bits in _BITS.items() if bits in _UNSIGNED_OF_BITS
}
# The unsigned type of each itemsize, to set bit patterns (the all-zero code of a null slot).
_BITS_VIEW = {
    bits // 8: _DTYPE[code] for bits, code in sorted(_UNSIGNED_OF_BITS.items()) if bits >= 8
}

_KIND_ORDER = {"signed_int": 0, "unsigned_int": 1, "float": 2}
_PACKED_ROWS = [_ROW[code] for code in _BITS]
# The packed types as error messages list them. ONNX names: wider first, then signed,
# unsigned, float ("INT4, UINT4, FLOAT4E2M1, INT2, UINT2"). ml_dtypes names: integers
# first, wider first, signed first ("int4, uint4, int2, uint2 or float4_e2m1fn").
_PACKED_NAMES = ", ".join(
    row.name for row in sorted(_PACKED_ROWS, key=lambda r: (-r.bits, _KIND_ORDER[r.kind]))
)
_packed_numpy_names = [
    row.numpy_name
    for row in sorted(_PACKED_ROWS, key=lambda r: (r.kind == "float", -r.bits, _KIND_ORDER[r.kind]))
]
_PACKED_NUMPY_NAMES = ", ".join(_packed_numpy_names[:-1]) + " or " + _packed_numpy_names[-1]

# Native dtypes of one byte or more (the fast path of cast) -> ONNX code, and the targets
# whose numpy dtype holds the library's storage as is.
_PLAIN_SOURCE = {
    dt: code for code, dt in _DTYPE.items() if code not in _COMPLEX and code not in _BITS
}
_PLAIN_TARGET = frozenset(_PLAIN_SOURCE.values())

_type_cache: dict = {}


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
        if code in _COMPLEX:
            raise TypeError(f"{what}: Cast does not accept complex types ({_ext.type_name(code)})")
        if code not in _ROW:
            raise ValueError(
                f"{what}: {code} is not an ONNX element type code ({_MIN_CODE}-{_MAX_CODE})"
            )
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
    if code in _COMPLEX:
        raise TypeError(f"{what}: Cast does not accept complex types ({dt})")
    return code


def _storage_bytes(code: int, count: int) -> int:
    bits = _BITS.get(code)
    if bits is not None:
        return (count * bits + 7) // 8
    return count * _DTYPE[code].itemsize
