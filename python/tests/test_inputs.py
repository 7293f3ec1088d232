"""Which result kind an input object gets: Arrow objects give Arrow results, numpy-like ones
numpy results (a pandas Series speaks both protocols and is read as numpy)."""

import numpy as np
import pytest
import tensorcast as tc

pa = pytest.importorskip("pyarrow")


class ArrowArrayOnly:
    """An object with the Arrow PyCapsule array protocol only (as Polars or DuckDB objects)."""

    def __init__(self, arr):
        self._arr = arr

    def __arrow_c_array__(self, requested_schema=None):
        return self._arr.__arrow_c_array__(requested_schema)


class ArrowStreamOnly:
    def __init__(self, arr):
        self._arr = pa.chunked_array([arr])

    def __arrow_c_stream__(self, requested_schema=None):
        return self._arr.__arrow_c_stream__(requested_schema)


def test_arrow_c_array_objects_give_arrow_arrays():
    r = tc.cast(ArrowArrayOnly(pa.array([1.5, None, -2.0], pa.float32())), "float16")
    assert isinstance(r, pa.Array) and r.type == pa.float16()
    assert r.to_pylist() == [1.5, None, -2.0]


def test_arrow_c_stream_objects_give_chunked_arrays():
    r = tc.cast(ArrowStreamOnly(pa.array(["1", "2.5", None])), "double")
    assert isinstance(r, pa.ChunkedArray) and r.to_pylist() == [1.0, 2.5, None]


def test_a_pandas_series_is_read_as_numpy():
    pd = pytest.importorskip("pandas")
    s = pd.Series([1.5, 2.5, 1000.0], dtype="float32")
    r = tc.cast(s, "float8e4m3fn")
    assert isinstance(r, np.ndarray)
    assert r.view(np.uint8).tolist() == [0x3C, 0x42, 0x7E]  # 1.5, 2.5, 448 (saturated)
