"""Helpers shared by the tensorcast program's file tests (cli_hostile_test.py,
cli_fp6_test.py, cli_quantize_test.py): .npy and onnx TensorProto files written and read
by hand, checks, and the loop that runs a list of test functions in a fresh work
directory each."""

import os
import re
import shutil
import struct

# The markers of the program's temporary and backup files (tools/file_util.h).
MARKERS = (".tensorcast-tmp-", ".tensorcast-old-")


class Failure(Exception):
    pass


class Skipped(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def leftovers(work):
    """The temporary and backup files left in `work`."""
    return sorted(n for n in os.listdir(work) if any(m in n for m in MARKERS))


def expect_error_in(work, proc, code, *fragments):
    """The run failed with exit `code`, one error line holding every fragment, and left no
    temporary file in `work`."""
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode == code, f"exit {proc.returncode}, expected {code}; stderr: {err!r}")
    check(err.count("tensorcast: error:") == 1, f"one error line expected, got {err!r}")
    for frag in fragments:
        check(frag in err, f"{frag!r} not in {err!r}")
    check(not leftovers(work), f"temporary files left: {leftovers(work)}")


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


def read_varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def parse_tensor_proto(buf):
    """-> dict with dims, data_type, raw_data (or None), int32_data, name."""
    t = {"dims": [], "data_type": None, "raw_data": None, "int32_data": [], "name": b""}
    i = 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = read_varint(buf, i)
            if field == 1:
                t["dims"].append(v)
            elif field == 2:
                t["data_type"] = v
            elif field == 5:
                t["int32_data"].append(v)
        elif wire == 2:
            ln, i = read_varint(buf, i)
            body = buf[i : i + ln]
            i += ln
            if field in (1, 5):
                j, vals = 0, []
                while j < len(body):
                    v, j = read_varint(body, j)
                    vals.append(v)
                t["dims" if field == 1 else "int32_data"] += vals
            elif field == 8:
                t["name"] = body
            elif field == 9:
                t["raw_data"] = body
        elif wire == 5:
            i += 4
        elif wire == 1:
            i += 8
        else:
            raise ValueError("unexpected wire type %d" % wire)
    return t


def read_npy(data):
    """-> (descr, shape, payload) of a version 1.0 .npy."""
    check(data[:8] == b"\x93NUMPY\x01\x00", "not a .npy 1.0 file: %r" % data[:8])
    (hlen,) = struct.unpack("<H", data[8:10])
    header = data[10 : 10 + hlen].decode()
    descr = re.search(r"'descr': '([^']*)'", header).group(1)
    shape = [
        int(x) for x in re.findall(r"\d+", re.search(r"'shape': \(([^)]*)\)", header).group(1))
    ]
    return descr, shape, data[10 + hlen :]


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
