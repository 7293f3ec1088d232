"""Shared setup of the Python package's tests.

Nothing here is global: no autouse fixture, no marker (pyproject.toml registers `ray` for
test_distributed.py), no change of the package's thread count. The oracles of the tests are
numpy, ml_dtypes, onnx.reference and the rules of docs/semantics.md; never tensorcast's own
output.
"""

import numpy as np
import pytest


def pytest_report_header(config):
    parts = ["numpy %s" % np.__version__]
    for name in ("ml_dtypes", "onnx", "pyarrow", "tensorcast"):
        try:
            mod = __import__(name)
            parts.append("%s %s" % (name, getattr(mod, "__version__", "?")))
        except Exception as e:  # noqa: BLE001 - a header, the tests themselves fail
            parts.append("%s: not importable (%s)" % (name, type(e).__name__))
    return "oracles and package: " + ", ".join(parts)


@pytest.fixture
def string_dtype():
    """The dtype of a STRING result: numpy's StringDType on numpy 2, object on numpy 1."""
    if int(np.__version__.split(".")[0]) >= 2:
        return np.dtypes.StringDType()
    return np.dtype(object)
