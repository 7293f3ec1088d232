"""Helpers shared by the tensorcast program's file tests (cli_hostile_test.py,
cli_fp6_test.py): .npy and onnx TensorProto files written by hand, checks, and the loop
that runs a list of test functions in a fresh work directory each."""

import os
import shutil
import struct


class Failure(Exception):
    pass


class Skipped(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def npy_bytes(descr, shape, payload):
    """A version 1.0 .npy file: the header dict padded to a multiple of 64 bytes."""
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ") + ")"
    if len(shape) > 1:
        shape_text = shape_text.replace(", )", ")")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + payload


def f32_npy(values, shape=None):
    shape = shape or [len(values)]
    return npy_bytes("<f4", shape, struct.pack(f"<{len(values)}f", *values))


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def tensor_proto(dims, data_type, raw=None, int32=None, strings=None, name=None):
    """An onnx.TensorProto encoded by hand, fields in number order: dims (1), data_type (2),
    int32_data (5, packed; negative values sign-extended), string_data (6), name (8),
    raw_data (9)."""
    out = b"".join(b"\x08" + varint(d) for d in dims) + b"\x10" + varint(data_type)
    if int32 is not None:
        body = b"".join(varint(v & 0xFFFFFFFFFFFFFFFF) for v in int32)
        out += b"\x2a" + varint(len(body)) + body
    for s in strings or []:
        out += b"\x32" + varint(len(s)) + s
    if name is not None:
        out += b"\x42" + varint(len(name)) + name
    if raw is not None:
        out += b"\x4a" + varint(len(raw)) + raw
    return out


def run_tests(tests, work):
    """Runs each test function in a fresh `work` directory; prints one line per test and
    "N passed, M failed[, K skipped]". Returns the exit status: 1 when any failed."""
    passed = failed = skipped = 0
    for fn in tests:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        try:
            fn()
            passed += 1
            print(f"[  PASSED  ] {fn.__name__}")
        except Skipped as e:
            skipped += 1
            print(f"[  SKIPPED ] {fn.__name__}: {e}")
        except Exception as e:  # a failing check or an unexpected error
            failed += 1
            print(f"[  FAILED  ] {fn.__name__}: {type(e).__name__}: {e}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0
