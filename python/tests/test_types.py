"""The package's hand-written DataType enum against the library's type facts table
(lib/type_facts.h), which the extension exports as _tensorcast.type_facts() and the
package's type tables are built from. Oracles: the library's rows, numpy and ml_dtypes."""

import ml_dtypes
import numpy as np
import tensorcast as tc
from tensorcast import _tensorcast

COLUMNS = {
    "code",
    "name",
    "bits",
    "kind",
    "exponent_bits",
    "mantissa_bits",
    "exponent_bias",
    "has_inf",
    "has_nan",
    "nan_style",
    "packed",
    "cast_since",
    "numpy_name",
}


def element_rows():
    return [row for row in _tensorcast.type_facts() if row["kind"] != "undefined"]


def test_type_facts_rows_are_the_library_table():
    rows = _tensorcast.type_facts()
    assert [row["code"] for row in rows] == list(range(len(rows)))
    assert all(set(row) == COLUMNS for row in rows)
    assert rows[0]["name"] == "UNDEFINED" and rows[0]["numpy_name"] is None
    for row in rows[1:]:
        assert _tensorcast.type_name(row["code"]) == row["name"]
        assert _tensorcast.parse_type(row["name"]) == row["code"]


def test_every_row_is_a_data_type_member():
    for row in element_rows():
        assert row["name"] in tc.DataType.__members__, row
        assert tc.DataType[row["name"]] == row["code"], row


def test_every_data_type_member_is_a_row():
    codes = {row["name"]: row["code"] for row in element_rows()}
    for member in tc.DataType:
        assert member.name in codes, member
        assert codes[member.name] == member.value, member
    assert len(tc.DataType) == len(codes)


def test_numpy_names_have_the_rows_width():
    for row in element_rows():
        if row["kind"] == "string":
            assert row["numpy_name"] == "object"
            continue
        dt = np.dtype(getattr(ml_dtypes, row["numpy_name"], row["numpy_name"]))
        assert dt.name == row["numpy_name"], row
        # Packed types hold one element per byte in numpy (ml_dtypes).
        assert dt.itemsize == (1 if row["packed"] else row["bits"] // 8), row
