#!/usr/bin/env python3
"""FLOAT6E2M3 and FLOAT6E3M2 (codes 27, 28) in the tensorcast program's files.

Rules tested (docs/cli.md, "Inputs"):
- .pb raw_data is packed four elements in three bytes, element i in bits [6i, 6i + 6) of
  the little-endian bit stream, ceil(6n / 8) bytes, as onnx 1.23 writes it; int32_data holds
  one element per value (its low 6 bits), as onnx stores it; tensorcast writes raw_data.
- raw_data of the wrong length and int32_data with too few or too many values are refused
  with a message naming the file, the field and both counts.
- .npy cannot hold the FLOAT6 types: writing one is a usage error suggesting .pb, and a
  '<V1' file (how numpy saves an ml_dtypes array) is refused as untyped.
- Split cuts packed 6-bit tensors at any element, also inside a three-byte group.
Element counts 1, 3, 5 and 7 (partial groups) and 4, 8 (whole groups) are used.

Expected bytes and values come from the byte formulas written here (packing, decoding,
the saturation and NaN rule) and, when the differential test's virtual environment has
onnx >= 1.23 and ml_dtypes, from onnx (numpy_helper.from_array / to_array,
helper.make_tensor) and ml_dtypes as well; the formulas are first checked against onnx
there. Never from tensorcast's own output.

Usage: cli_fp6_test.py TENSORCAST WORKDIR [VENV_PYTHON]. With VENV_PYTHON (a Python that
can import onnx and ml_dtypes) the test runs itself under that Python; without it, or
when it cannot import them, it uses the byte formulas only and says so.
"""

import os
import random
import re
import struct
import subprocess
import sys

from cli_files import check, npy_bytes, parse_tensor_proto, read_npy, run_tests, tensor_proto

CLI = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
VENV_PYTHON = sys.argv[3] if len(sys.argv) > 3 else None
REEXEC_MARK = "TENSORCAST_FP6_TEST_REEXEC"


def reexec_in_venv():
    """Runs this script under VENV_PYTHON when that Python has onnx and ml_dtypes."""
    if not VENV_PYTHON or os.environ.get(REEXEC_MARK) or not os.path.exists(VENV_PYTHON):
        return
    probe = subprocess.run(
        [VENV_PYTHON, "-c", "import onnx, onnx.numpy_helper, ml_dtypes, numpy"],
        capture_output=True,
    )
    if probe.returncode != 0:
        return
    env = dict(os.environ)
    env[REEXEC_MARK] = "1"
    sys.stdout.flush()
    os.execve(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__), *sys.argv[1:]], env)


reexec_in_venv()

try:
    import ml_dtypes
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    HAVE_ONNX = hasattr(onnx.TensorProto, "FLOAT6E2M3") and hasattr(ml_dtypes, "float6_e2m3fn")
except ImportError:
    HAVE_ONNX = False

FLOAT6E2M3, FLOAT6E3M2 = 27, 28
NAMES = {FLOAT6E2M3: "FLOAT6E2M3", FLOAT6E3M2: "FLOAT6E3M2"}
# (exponent bits, mantissa bits, bias) of each type; largest 7.5 and 28.
LAYOUT = {FLOAT6E2M3: (2, 3, 1), FLOAT6E3M2: (3, 2, 3)}
MAX_CODE = 0x1F  # S.111.11 / S.11.111: the largest magnitude of both types
COUNTS = [1, 3, 5, 7, 4, 8]


# ---- the byte formulas ----------------------------------------------------------------


def pack6(codes):
    """ONNX packing, group by group: byte0 = e0 | e1 << 6; byte1 = e1 >> 2 | e2 << 4;
    byte2 = e2 >> 4 | e3 << 2 (low 8 bits each); trimmed to ceil(6n / 8) bytes."""
    n = len(codes)
    padded = [c & 0x3F for c in codes] + [0] * (-n % 4)
    out = bytearray()
    for g in range(0, len(padded), 4):
        e0, e1, e2, e3 = padded[g : g + 4]
        out += bytes(
            [(e0 | e1 << 6) & 0xFF, (e1 >> 2 | e2 << 4) & 0xFF, (e2 >> 4 | e3 << 2) & 0xFF]
        )
    return bytes(out[: (6 * n + 7) // 8])


def pack6_stream(codes):
    """The same packing as one little-endian integer: element i at bit 6i."""
    n = len(codes)
    value = sum((c & 0x3F) << (6 * i) for i, c in enumerate(codes))
    return value.to_bytes((6 * n + 7) // 8, "little")


def unpack6(data, n):
    value = int.from_bytes(data, "little")
    return [(value >> (6 * i)) & 0x3F for i in range(n)]


def decode6(t, code):
    """Value of a 6-bit code: sign, then exponent and mantissa; subnormal when e == 0."""
    eb, mb, bias = LAYOUT[t]
    sign = -1.0 if code >> 5 & 1 else 1.0
    e = (code >> mb) & ((1 << eb) - 1)
    m = code & ((1 << mb) - 1)
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - mb)
    return sign * (1 + m / 2.0**mb) * 2.0 ** (e - bias)


# ---- files, written and read by hand --------------------------------------------------


def path_of(name):
    return os.path.join(WORK, name)


def write(name, data):
    with open(path_of(name), "wb") as f:
        f.write(data)
    return path_of(name)


def read(name):
    with open(path_of(name), "rb") as f:
        return f.read()


def run(*args):
    return subprocess.run([CLI, *args], cwd=WORK, capture_output=True, timeout=120)


def expect_ok(proc):
    check(proc.returncode == 0, "exit %d: %r" % (proc.returncode, proc.stderr))


def expect_error(proc, code, *fragments):
    err = proc.stderr.decode(errors="replace")
    check(proc.returncode == code, f"exit {proc.returncode}, expected {code}; stderr: {err!r}")
    check(err.count("tensorcast: error:") == 1, f"one error line expected, got {err!r}")
    for frag in fragments:
        check(frag in err, f"{frag!r} not in {err!r}")


def check_pb(name, t, dims, codes, what):
    """The .pb `name` holds `codes` of type t, shape dims, as packed raw_data."""
    data = read(name)
    p = parse_tensor_proto(data)
    check(p["data_type"] == t, "%s: data_type %s, expected %d" % (what, p["data_type"], t))
    check(p["dims"] == list(dims), "%s: dims %s, expected %s" % (what, p["dims"], dims))
    want = pack6(codes)
    check(p["raw_data"] is not None, "%s: no raw_data" % what)
    check(
        p["raw_data"] == want,
        "%s: raw_data %s, expected %s (codes %s)"
        % (what, p["raw_data"].hex(), want.hex(), [hex(c) for c in codes]),
    )
    if HAVE_ONNX:
        tp = onnx.TensorProto()
        tp.ParseFromString(data)
        got = numpy_helper.to_array(tp).reshape(-1).view(np.uint8).tolist()
        check(got == list(codes), "%s: onnx reads %s, expected %s" % (what, got, codes))


def ml_dtype(t):
    return ml_dtypes.float6_e2m3fn if t == FLOAT6E2M3 else ml_dtypes.float6_e3m2fn


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


RNG = random.Random(20260827)


def sample_codes(n):
    """n codes including the extremes (+-0, +-max, smallest subnormals) and random ones."""
    special = [0x00, 0x20, 0x1F, 0x3F, 0x01, 0x21, 0x08, 0x2A]
    return [
        special[i] if i < len(special) and RNG.random() < 0.6 else RNG.randrange(64)
        for i in range(n)
    ]


# ---- the tests ------------------------------------------------------------------------


@test
def byte_formulas_agree_with_each_other_and_onnx():
    for n in range(0, 13):
        for _ in range(20):
            codes = [RNG.randrange(64) for _ in range(n)]
            check(pack6(codes) == pack6_stream(codes), "pack6 and pack6_stream differ: %s" % codes)
            check(unpack6(pack6(codes), n) == codes, "unpack6 does not invert pack6")
            if HAVE_ONNX:
                for t in NAMES:
                    arr = np.array(codes, np.uint8).view(ml_dtype(t))
                    tp = numpy_helper.from_array(arr)
                    check(
                        tp.raw_data == pack6(codes),
                        "onnx packs %s as %s" % (codes, tp.raw_data.hex()),
                    )
    for t in NAMES:
        vals = [decode6(t, c) for c in range(64)]
        check(max(vals) == (7.5 if t == FLOAT6E2M3 else 28.0), "largest value %s" % max(vals))
        if HAVE_ONNX:
            ml = np.arange(64, dtype=np.uint8).view(ml_dtype(t)).astype(np.float64).tolist()
            for c in range(64):
                check(
                    ml[c] == vals[c] and np.signbit(ml[c]) == (vals[c] < 0 or c == 0x20),
                    "%s %#x: decode6 %r, ml_dtypes %r" % (NAMES[t], c, vals[c], ml[c]),
                )


@test
def raw_data_round_trip_keeps_bytes():
    for t, name in NAMES.items():
        for n in COUNTS:
            codes = sample_codes(n)
            if HAVE_ONNX:
                tp = numpy_helper.from_array(np.array(codes, np.uint8).view(ml_dtype(t)), "x")
                data = tp.SerializeToString()
            else:
                data = tensor_proto([n], t, raw=pack6(codes), name=b"x")
            src = write("raw_%s_%d.pb" % (name, n), data)
            expect_ok(run("cast", "--to", name, src, "raw_out.pb"))
            check_pb("raw_out.pb", t, [n], codes, "%s n=%d same-type cast" % (name, n))
            check(parse_tensor_proto(read("raw_out.pb"))["name"] == b"x", "the name was lost")


@test
def int32_data_one_element_per_value():
    for t, name in NAMES.items():
        for n in COUNTS:
            codes = sample_codes(n)
            if HAVE_ONNX:
                tp = helper.make_tensor("x", t, [n], np.array(codes, np.uint8).view(ml_dtype(t)))
                check(not tp.HasField("raw_data"), "make_tensor wrote raw_data")
                check(list(tp.int32_data) == codes, "onnx int32_data %s" % list(tp.int32_data))
                data = tp.SerializeToString()
            else:
                data = tensor_proto([n], t, int32=codes)
            src = write("i32_%s_%d.pb" % (name, n), data)
            expect_ok(run("cast", "--to", name, src, "i32_out.pb"))
            check_pb("i32_out.pb", t, [n], codes, "%s n=%d from int32_data" % (name, n))
        # Only the low 6 bits of each value count (onnx.numpy_helper masks with 0x3F).
        noisy = [0x40 | 0x15, 0x1000 | 0x2A, -1, 0x7FFFFFC0 | 0x01, 0x80 | 0x20]
        want = [v & 0x3F for v in noisy]
        src = write("noisy_%s.pb" % name, tensor_proto([len(noisy)], t, int32=noisy))
        if HAVE_ONNX:
            tp = onnx.TensorProto()
            tp.ParseFromString(read("noisy_%s.pb" % name))
            got = numpy_helper.to_array(tp).view(np.uint8).tolist()
            check(got == want, "onnx reads the noisy int32_data as %s, not %s" % (got, want))
        expect_ok(run("cast", "--to", name, src, "noisy_out.pb"))
        check_pb("noisy_out.pb", t, [len(noisy)], want, "%s int32_data high bits" % name)


@test
def to_float_gives_the_decoded_values():
    for t, name in NAMES.items():
        for n in COUNTS + [64]:
            codes = list(range(64)) if n == 64 else sample_codes(n)
            src = write("f_%s_%d.pb" % (name, n), tensor_proto([n], t, raw=pack6(codes)))
            expect_ok(run("cast", "--to", "FLOAT", src, "f_out.npy"))
            descr, shape, payload = read_npy(read("f_out.npy"))
            check(descr == "<f4" and shape == [n], "descr %s shape %s" % (descr, shape))
            got = list(struct.unpack("<%df" % n, payload))
            want = [decode6(t, c) for c in codes]
            if HAVE_ONNX:
                ml = np.array(codes, np.uint8).view(ml_dtype(t)).astype(np.float32).tolist()
                check(ml == want, "ml_dtypes decodes %s as %s, formula %s" % (codes, ml, want))
            for c, g, w in zip(codes, got, want):
                same_sign = (struct.pack("<f", g)[3] >> 7) == (c >> 5)
                check(g == w and same_sign, "%s %#x -> FLOAT %r, expected %r" % (name, c, g, w))


@test
def from_float_packs_exact_values_and_odd_counts():
    for t, name in NAMES.items():
        for n in COUNTS:
            codes = sample_codes(n)
            vals = [decode6(t, c) for c in codes]
            src = write(
                "ff_%s_%d.npy" % (name, n), npy_bytes("<f4", [n], struct.pack("<%df" % n, *vals))
            )
            expect_ok(run("cast", "--to", name, src, "ff_out.pb"))
            check_pb("ff_out.pb", t, [n], codes, "FLOAT -> %s n=%d" % (name, n))
        # 2-D with an odd element count: shape [3, 5] (15 elements, 12 bytes).
        codes = sample_codes(15)
        vals = [decode6(t, c) for c in codes]
        src = write("ff2.npy", npy_bytes("<f4", [3, 5], struct.pack("<15f", *vals)))
        expect_ok(run("cast", "--to", name, src, "ff2_out.pb"))
        check_pb("ff2_out.pb", t, [3, 5], codes, "FLOAT [3, 5] -> %s" % name)


@test
def saturation_and_nan_rule():
    # +-Inf and values beyond the largest give +-largest whatever --saturate says; a
    # positive NaN gives code 0x20 (-0), a negative NaN 0x00 (as FLOAT4E2M1, ml_dtypes).
    bits = [0x42C80000, 0xC2C80000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F7FFFFF]
    payload = struct.pack("<%dI" % len(bits), *bits)
    want = [MAX_CODE, 0x20 | MAX_CODE, MAX_CODE, 0x20 | MAX_CODE, 0x20, 0x00, MAX_CODE]
    src = write("sat.npy", npy_bytes("<f4", [len(bits)], payload))
    for t, name in NAMES.items():
        if HAVE_ONNX:
            x = np.frombuffer(payload, np.float32)
            with np.errstate(all="ignore"):
                ml = x.astype(ml_dtype(t)).view(np.uint8).tolist()
            check(ml == want, "ml_dtypes gives %s, the rule %s" % (ml, want))
        for sat in ("0", "1"):
            expect_ok(run("cast", "--to", name, "--saturate", sat, src, "sat_out.pb"))
            check_pb("sat_out.pb", t, [len(bits)], want, "%s saturate=%s" % (name, sat))


@test
def float6_to_float6_matches_ml_dtypes():
    if not HAVE_ONNX:
        print("    (skipped: needs ml_dtypes for the expected rounding)")
        return
    for t, name in NAMES.items():
        u = FLOAT6E3M2 if t == FLOAT6E2M3 else FLOAT6E2M3
        for n in COUNTS + [64]:
            codes = list(range(64)) if n == 64 else sample_codes(n)
            want = (
                np.array(codes, np.uint8)
                .view(ml_dtype(t))
                .astype(ml_dtype(u))
                .view(np.uint8)
                .tolist()
            )
            src = write("x_%s_%d.pb" % (name, n), tensor_proto([n], t, raw=pack6(codes)))
            expect_ok(run("cast", "--to", NAMES[u], src, "x_out.pb"))
            check_pb("x_out.pb", u, [n], want, "%s -> %s n=%d" % (name, NAMES[u], n))


@test
def padding_bits_are_ignored_and_written_as_zero():
    for t, name in NAMES.items():
        for n in (1, 2, 3, 5, 6, 7):
            codes = sample_codes(n)
            raw = bytearray(pack6(codes))
            used = 6 * n % 8
            check(used != 0, "n=%d has no padding bits" % n)
            raw[-1] |= 0xFF & ~((1 << used) - 1)  # set every padding bit
            src = write("pad_%s_%d.pb" % (name, n), tensor_proto([n], t, raw=bytes(raw)))
            if HAVE_ONNX:
                tp = onnx.TensorProto()
                tp.ParseFromString(read("pad_%s_%d.pb" % (name, n)))
                got = numpy_helper.to_array(tp).view(np.uint8).tolist()
                check(got == codes, "onnx reads %s, expected %s" % (got, codes))
            expect_ok(run("cast", "--to", name, src, "pad_out.pb"))
            check_pb("pad_out.pb", t, [n], codes, "%s n=%d padding" % (name, n))
            expect_ok(run("split", "--num-outputs", "1", src, "pad_split"))
            check_pb("pad_split_0.pb", t, [n], codes, "%s n=%d padding, split" % (name, n))


@test
def split_inside_a_three_byte_group():
    # Boundaries at elements 1, 2, 3, 5, 6, 7: bit offsets 6, 12, 18, 30, 36, 42 fall inside
    # a byte; at element 4 the group ends on a byte boundary.
    cases = [
        ([7], ["--sizes", "1,2,4"], [(0, 1), (1, 3), (3, 7)]),
        ([5], ["--sizes", "2,3"], [(0, 2), (2, 5)]),
        ([7], ["--num-outputs", "2"], [(0, 4), (4, 7)]),
        ([3], ["--sizes", "1,1,1"], [(0, 1), (1, 2), (2, 3)]),
        ([8], ["--sizes", "3,2,3"], [(0, 3), (3, 5), (5, 8)]),
    ]
    for t, name in NAMES.items():
        for dims, args, pieces in cases:
            n = dims[0]
            codes = sample_codes(n)
            src = write("sp_%s.pb" % name, tensor_proto(dims, t, raw=pack6(codes)))
            for f in os.listdir(WORK):
                if f.startswith("sp_out_"):
                    os.remove(path_of(f))
            expect_ok(run("split", *args, src, "sp_out"))
            for i, (a, b) in enumerate(pieces):
                check_pb(
                    "sp_out_%d.pb" % i,
                    t,
                    [b - a],
                    codes[a:b],
                    "%s split %s piece %d" % (name, args, i),
                )
        # 2-D: [3, 5] along axis 1 into 2 and 3 columns; each output row-major [3, k].
        codes = sample_codes(15)
        src = write("sp2.pb", tensor_proto([3, 5], t, raw=pack6(codes)))
        expect_ok(run("split", "--axis", "1", "--sizes", "2,3", src, "sp2_out"))
        rows = [codes[5 * r : 5 * r + 5] for r in range(3)]
        check_pb(
            "sp2_out_0.pb", t, [3, 2], sum((r[:2] for r in rows), []), "%s [3,5] piece 0" % name
        )
        check_pb(
            "sp2_out_1.pb", t, [3, 3], sum((r[2:] for r in rows), []), "%s [3,5] piece 1" % name
        )


@test
def wrong_lengths_are_refused():
    for t, name in NAMES.items():
        for n in (1, 3, 5, 7):
            good = (6 * n + 7) // 8
            for size in (good - 1, good + 1, n):
                if size == good or size < 0:
                    continue
                src = write("bad_raw.pb", tensor_proto([n], t, raw=b"\x15" * size))
                expect_error(
                    run("cast", "--to", "FLOAT", src, "bad_out.npy"),
                    1,
                    "bad_raw.pb",
                    "raw_data has %d bytes, %d expected for shape [%d] of %s"
                    % (size, good, n, name),
                )
                check(not os.path.exists(path_of("bad_out.npy")), "an output appeared")
            # int32_data: one value per element, so n - 1 or n + 1 values are wrong, and
            # so is the packed byte count that the 4-/2-bit types would use.
            for have in sorted({n - 1, n + 1, good} - {n, 0}):
                src = write("bad_i32.pb", tensor_proto([n], t, int32=[1] * have))
                expect_error(
                    run("cast", "--to", "FLOAT", src, "bad_out.npy"),
                    1,
                    "bad_i32.pb",
                    "int32_data has %d values, %d expected for shape [%d] of %s"
                    % (have, n, n, name),
                )
            src = write("no_data.pb", tensor_proto([n], t))
            expect_error(
                run("split", "--num-outputs", "1", src, "nd"),
                1,
                "no_data.pb",
                "no data",
                "int32_data",
            )
            check(not os.path.exists(path_of("nd_0.pb")), "a split output appeared")


@test
def npy_refuses_float6():
    src = write("ok.pb", tensor_proto([3], FLOAT6E2M3, raw=pack6([1, 2, 3])))
    for name in NAMES.values():
        expect_error(
            run("cast", "--to", name, src, "o.npy"),
            2,
            "numpy has no dtype for " + name,
            "o.npy",
            ".pb",
        )
        check(not os.path.exists(path_of("o.npy")), "an .npy output appeared")
    expect_error(
        run("split", "--num-outputs", "3", "--format", "npy", src, "so"), 2, "FLOAT6E2M3", ".pb"
    )
    # What numpy writes for an ml_dtypes float6 array: '<V1'.
    if HAVE_ONNX:
        import io

        buf = io.BytesIO()
        np.save(buf, np.zeros(3, ml_dtypes.float6_e2m3fn))
        data = buf.getvalue()
        check(b"'<V1'" in data, "numpy no longer saves float6 as '<V1': %r" % data[:80])
    else:
        data = npy_bytes("<V1", [3], b"\0\0\0")
    path = write("v1.npy", data)
    expect_error(
        run("cast", "--to", "FLOAT", path, "v1_out.pb"), 1, "v1.npy", "'<V1'", "untyped", ".pb"
    )


@test
def types_lists_the_float6_rows():
    proc = run("types")
    expect_ok(proc)
    out = proc.stdout.decode()
    for code, name in ((27, "FLOAT6E2M3"), (28, "FLOAT6E3M2")):
        row = re.search(r"^\s*%d\s+%s\s+6\s+(.*)$" % (code, name), out, re.M)
        check(row is not None, "no row for %d %s in:\n%s" % (code, name, out))
        check("packed 4 in 3 bytes" in row.group(1), "storage of %s: %r" % (name, row.group(1)))
        check("not castable" not in row.group(1), "%s listed as not castable" % name)
        pairs = re.search(r"^%s\s+([x.!\s]+)$" % name, out, re.M)
        check(pairs is not None and pairs.group(1).split().count("x") == 26, "pairs of %s" % name)


def main():
    print(
        "expected values from the byte formulas%s"
        % (
            " and onnx %s / ml_dtypes %s (%s)"
            % (onnx.__version__, ml_dtypes.__version__, sys.executable)
            if HAVE_ONNX
            else " only (onnx >= 1.23 with ml_dtypes is not importable here)"
        )
    )
    return run_tests(TESTS, WORK)


if __name__ == "__main__":
    sys.exit(main())
