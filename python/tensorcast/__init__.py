"""tensorcast: exact, fast ONNX Cast / CastLike / Split / QuantizeLinear / DequantizeLinear for
numpy, ml_dtypes and Arrow arrays.

    import numpy as np, tensorcast as tc
    x = np.linspace(-500, 500, 1_000_000, dtype=np.float32)
    y = tc.cast(x, "float8e4m3fn")            # ml_dtypes.float8_e4m3fn array, saturated
    z = tc.cast(y, np.float32)                 # back, exactly
    parts = tc.split(x, [250_000, 750_000])   # ONNX sizes
    q = tc.quantize_linear(x, np.float32(4.0), np.int8(0))   # int8, x / 4 rounded
    w = tc.dequantize_linear(q, np.float32(4.0), np.int8(0))  # float32
    c, s = tc.quantize_mx(x, "mxfp8_e4m3")     # float8_e4m3fn codes, float8_e8m0fnu scales

Every function here is a plain Python function (picklable by reference, so Dask, Ray and
Spark can ship it to workers); the work runs in the C++ library with the GIL released.
The rules of every value are the library's: ONNX Cast-28, one rounding, numpy's str()
spelling for numbers written as text (docs/semantics.md).
"""

# The modules: _types (DataType and the type tables, built from the library's type facts),
# _numpy, _strings and _arrow (the inputs of each kind), _storage (flat and packed buffers),
# _errors (CastError), _api (the public functions), _quantize (QuantizeLinear and
# DequantizeLinear), _block_scale (MX, NVFP4 and absmax quantization).
from . import _tensorcast as _ext
from ._api import (
    cast,
    cast_like,
    get_num_threads,
    pack,
    set_num_threads,
    set_output_cache,
    split,
    unpack,
)
from ._block_scale import (
    dequantize_mx,
    dequantize_nvfp4,
    quantize_absmax,
    quantize_mx,
    quantize_nvfp4,
)
from ._errors import CastError
from ._quantize import dequantize_linear, quantize_linear
from ._stats import CastStats
from ._types import DataType
from ._types import TypeLike as TypeLike

__all__ = [
    "CastError",
    "CastStats",
    "DataType",
    "cast",
    "cast_like",
    "dequantize_linear",
    "dequantize_mx",
    "dequantize_nvfp4",
    "get_num_threads",
    "pack",
    "quantize_absmax",
    "quantize_linear",
    "quantize_mx",
    "quantize_nvfp4",
    "set_num_threads",
    "set_output_cache",
    "split",
    "unpack",
]

__version__: str = _ext.VERSION
