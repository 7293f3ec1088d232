"""Large string arrays take the same paths as small ones: pyarrow converts big StringDType
arrays in chunks, and the package must read every chunk."""

import numpy as np
import pytest
import tensorcast as tc

pytest.importorskip("pyarrow")


def test_a_million_texts_round_trip_exactly():
    rng = np.random.default_rng(7)
    n = 1 << 20
    x = rng.standard_normal(n) * 10.0 ** rng.integers(-30, 31, n)
    texts = tc.cast(x, "string")
    assert texts.dtype.kind == "T" and texts.shape == (n,)
    # Shortest round-trip spelling: parsing gives back every double, bit for bit.
    back = tc.cast(texts, np.float64, threads=1)
    assert np.array_equal(back.view(np.uint64), x.view(np.uint64))
    # A bad text far into the array is found, with its index.
    texts[n - 3] = "1.5x"
    with pytest.raises(tc.CastError) as e:
        tc.cast(texts, np.float64)
    assert e.value.index == n - 3 and e.value.text == "1.5x"
