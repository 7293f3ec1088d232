#!/usr/bin/env python3
"""Hostile-file and failure tests of the tensorcast program's file handling.

Each test states a rule of the program (tools/file_util.h, `tensorcast --help`):
- a failed command leaves every existing file exactly as it was and no temporary file;
- nothing is allocated for a shape before the file is known to hold its data;
- a non-regular input is refused as "not a regular file" without blocking; "-" is standard
  input or output with --format;
- every message names the file or argument and the cause;
- an existing output keeps its permissions, a symbolic link is followed, a read-only file
  is refused.

Usage: cli_hostile_test.py TENSORCAST WORKDIR. Needs only the Python standard library.
"""

import json
import math
import os
import signal
import stat
import struct
import subprocess
import sys
import time

import cli_files
from cli_files import Skipped, check, f32_npy, npy_bytes, run_tests, tensor_proto

CLI = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])


def write(name, data):
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def read(path):
    with open(path, "rb") as f:
        return f.read()


def run(*args, env=None, stdin=None, timeout=60):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [CLI, *args], cwd=WORK, env=full_env, input=stdin, capture_output=True, timeout=timeout
    )


def leftovers():
    return cli_files.leftovers(WORK)


def expect_error(proc, code, *fragments):
    cli_files.expect_error_in(WORK, proc, code, *fragments)


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


# 1. A failed split keeps the user's old outputs.
@test
def split_failing_on_a_directory_keeps_the_old_outputs():
    src = write("in.npy", f32_npy([1, 2, 3, 4]))
    write("s_0.npy", b"OLD\n")
    os.mkdir(os.path.join(WORK, "s_1.npy"))
    expect_error(run("split", "--num-outputs", "2", src, "s"), 1, "s_1.npy")
    check(read(os.path.join(WORK, "s_0.npy")) == b"OLD\n", "s_0.npy was changed")


@test
def split_failing_on_a_read_only_output_keeps_every_file():
    src = write("in.npy", f32_npy([1, 2, 3, 4]))
    write("r_0.npy", b"OLD0\n")
    ro = write("r_1.npy", b"OLD1\n")
    os.chmod(ro, 0o444)
    expect_error(run("split", "--num-outputs", "2", src, "r"), 1, "r_1.npy", "read-only")
    check(read(os.path.join(WORK, "r_0.npy")) == b"OLD0\n", "r_0.npy was changed")
    check(read(ro) == b"OLD1\n", "r_1.npy was changed")


@test
def split_failing_part_way_through_the_renames_restores_the_old_files():
    src = write("in.npy", f32_npy([1, 2, 3, 4, 5, 6]))
    for case, existing in (("m", [0, 1, 2]), ("n", [0])):
        for i in existing:
            write(f"{case}_{i}.npy", f"OLD{i}\n".encode())
        proc = run(
            "split", "--num-outputs", "3", src, case, env={"TENSORCAST_TEST_FAULT": "commit:2:eio"}
        )
        expect_error(proc, 1, f"{case}_2.npy", "unchanged")
        for i in range(3):
            path = os.path.join(WORK, f"{case}_{i}.npy")
            if i in existing:
                check(read(path) == f"OLD{i}\n".encode(), f"{path} was not restored")
            else:
                check(not os.path.exists(path), f"{path} was left behind")


# 2. An exception while writing leaves no temporary file.
@test
def out_of_memory_while_writing_leaves_no_temporary_file():
    src = write("in.npy", f32_npy([1, 2, 3, 4]))
    write("o_0.npy", b"OLD\n")
    proc = run(
        "split", "--num-outputs", "2", src, "o", env={"TENSORCAST_TEST_FAULT": "stage:1:enomem"}
    )
    expect_error(proc, 1, "out of memory while writing", "o_")
    check(read(os.path.join(WORK, "o_0.npy")) == b"OLD\n", "o_0.npy was changed")
    check(not os.path.exists(os.path.join(WORK, "o_1.npy")), "o_1.npy was written")


# 3. A dtype of itemsize 0 is refused before anything is allocated.
@test
def npy_with_itemsize_zero_is_refused():
    for descr in ("<U0", "|S0", "|V0"):
        path = write("u0.npy", npy_bytes(descr, [100000000], b""))
        expect_error(run("cast", "--to", "FLOAT", path, "u0_out.npy"), 1, "u0.npy")
        check(not os.path.exists(os.path.join(WORK, "u0_out.npy")), "an output appeared")


@test
def npy_shape_larger_than_the_data_is_refused():
    path = write("short.npy", npy_bytes("<f4", [1 << 40], b"\0" * 16))
    expect_error(run("cast", "--to", "DOUBLE", path, "short_out.npy"), 1, "short.npy")


# 4. A .pb over 2 GiB is refused before it is read.
@test
def pb_over_two_gib_is_refused_without_reading_it():
    path = os.path.join(WORK, "huge.pb")
    with open(path, "wb") as f:
        f.truncate((2 << 30) + 1)  # sparse: no disk space used
    start = time.monotonic()
    proc = run("cast", "--to", "FLOAT16", path, "huge_out.pb")
    elapsed = time.monotonic() - start
    os.unlink(path)
    expect_error(proc, 1, "huge.pb", "limit")
    check(elapsed < 10, f"took {elapsed:.1f} s: the file was read")


# 5. Non-regular inputs: refused without blocking; "-" reads standard input.
@test
def fifo_input_is_refused_without_blocking():
    path = os.path.join(WORK, "fifo.npy")
    os.mkfifo(path)
    try:
        proc = run("cast", "--to", "FLOAT", path, "fifo_out.npy", timeout=20)
    finally:
        os.unlink(path)
    expect_error(proc, 1, "fifo.npy", "not a regular file")


@test
def standard_input_and_output_with_format():
    data = f32_npy([1.0, 2.5, -3.0])
    proc = run("cast", "--to", "FLOAT16", "--format", "npy", "-", "-", stdin=data)
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr!r}")
    expected = npy_bytes("<f2", [3], struct.pack("<3e", 1.0, 2.5, -3.0))
    check(proc.stdout == expected, f"stdout {proc.stdout!r}")
    expect_error(run("cast", "--to", "FLOAT16", "-", "x.npy", stdin=data), 2, "--format")


@test
def directory_input_is_refused():
    os.mkdir(os.path.join(WORK, "dir.npy"))
    expect_error(run("cast", "--to", "FLOAT", "dir.npy", "d_out.npy"), 1, "dir.npy")


# 6. Messages.
@test
def pb_byte_count_overflow_says_too_large():
    path = write("overflow.pb", tensor_proto([1 << 62], 1, raw=b""))
    proc = run("cast", "--to", "FLOAT16", path, "overflow_out.pb")
    expect_error(proc, 1, "overflow.pb", "too large")
    check(b"18446744073709551615" not in proc.stderr, "the sentinel was printed")


@test
def long_output_names_work():
    src = write("in.npy", f32_npy([1, 2, 3, 4]))
    prefix = "p" * 245  # outputs of 251 bytes: the temporary names must fit as well
    proc = run("split", "--num-outputs", "1", src, prefix)
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr!r}")
    check(os.path.exists(os.path.join(WORK, prefix + "_0.npy")), "output missing")
    check(not leftovers(), f"temporary files left: {leftovers()}")


@test
def out_of_memory_names_the_step_and_the_file():
    # 32M floats (128 MiB) -> DOUBLE needs 256 MiB more: over a 320 MiB address-space limit.
    if os.environ.get("TENSORCAST_UNDER_ASAN"):
        raise Skipped("AddressSanitizer reserves more address space than the limit allows")
    count = 1 << 25
    src = write("big.npy", npy_bytes("<f4", [count], b"\x00\x00\x00\x3f" * count))
    limit = 'ulimit -v 327680; exec "$0" "$@"'
    proc = subprocess.run(
        ["sh", "-c", limit, CLI, "cast", "--to", "DOUBLE", src, "big_out.npy"],
        cwd=WORK,
        capture_output=True,
        timeout=120,
    )
    expect_error(proc, 1, "out of memory while", "DOUBLE")
    check(not os.path.exists(os.path.join(WORK, "big_out.npy")), "an output appeared")


# 7. Replacing keeps permissions, follows links, refuses read-only files.
@test
def replaced_output_keeps_its_permissions():
    src = write("in.npy", f32_npy([1, 2]))
    out = write("perm.npy", b"OLD\n")
    os.chmod(out, 0o600)
    proc = run("cast", "--to", "FLOAT16", src, out)
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr!r}")
    check(stat.S_IMODE(os.stat(out).st_mode) == 0o600, oct(os.stat(out).st_mode))


@test
def symlinked_output_is_written_through():
    src = write("in.npy", f32_npy([1, 2]))
    real = write("real.npy", b"OLD\n")
    link = os.path.join(WORK, "link.npy")
    os.symlink("real.npy", link)
    proc = run("cast", "--to", "FLOAT16", src, link)
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr!r}")
    check(os.path.islink(link), "the link was replaced")
    check(read(real).startswith(b"\x93NUMPY"), "the link's target was not written")


@test
def read_only_output_is_refused():
    src = write("in.npy", f32_npy([1, 2]))
    out = write("ro.npy", b"OLD\n")
    os.chmod(out, 0o444)
    expect_error(run("cast", "--to", "FLOAT16", src, out), 1, "ro.npy", "read-only")
    check(read(out) == b"OLD\n", "the read-only file was changed")


# 8. Signals remove temporary files (and restore replaced ones).
@test
def signals_leave_no_temporary_file_and_restore_old_outputs():
    src = write("in.npy", f32_npy([1, 2, 3, 4, 5, 6]))
    for point in ("stage:1", "commit:1"):
        for sig in (signal.SIGINT, signal.SIGTERM):
            write("g_0.npy", b"OLD0\n")
            write("g_1.npy", b"OLD1\n")
            proc = run(
                "split",
                "--num-outputs",
                "3",
                src,
                "g",
                env={"TENSORCAST_TEST_FAULT": f"{point}:{int(sig)}"},
            )
            check(proc.returncode == -sig, f"{point} {sig!r}: exit {proc.returncode}")
            check(not leftovers(), f"{point} {sig!r}: left {leftovers()}")
            check(read(os.path.join(WORK, "g_0.npy")) == b"OLD0\n", f"{point}: g_0 changed")
            check(read(os.path.join(WORK, "g_1.npy")) == b"OLD1\n", f"{point}: g_1 changed")
            check(not os.path.exists(os.path.join(WORK, "g_2.npy")), f"{point}: g_2 exists")


@test
def file_size_limit_leaves_no_temporary_file():
    src = write("in.npy", f32_npy([0.25] * 65536))
    limit = 'ulimit -f 64; exec "$0" "$@"'  # 64 KiB: the DOUBLE output needs 512 KiB
    proc = subprocess.run(
        ["sh", "-c", limit, CLI, "cast", "--to", "DOUBLE", src, "fsz.npy"],
        cwd=WORK,
        capture_output=True,
        timeout=60,
    )
    check(proc.returncode != 0, "the write did not fail")
    check(not leftovers(), f"temporary files left: {leftovers()}")
    check(not os.path.exists(os.path.join(WORK, "fsz.npy")), "a partial output appeared")


# 9. Strings with a trailing NUL cannot go to .npy.
@test
def string_with_trailing_nul_is_refused_by_npy_and_kept_by_pb():
    path = write("nul.pb", tensor_proto([2], 8, strings=[b"ab\0", b"c"]))
    expect_error(run("cast", "--to", "STRING", path, "nul_out.npy"), 1, "NUL", "element 0")
    proc = run("cast", "--to", "STRING", path, "nul_out.pb")
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr!r}")
    check(b"ab\0" in read(os.path.join(WORK, "nul_out.pb")), "the NUL byte was lost")


# 10. Output counts that could not exist are refused, naming the argument.
@test
def absurd_output_counts_are_refused():
    src = write("in.npy", f32_npy([1, 2, 3, 4]))
    start = time.monotonic()
    expect_error(run("split", "--num-outputs", "1000000000", src, "z"), 2, "--num-outputs")
    expect_error(run("split", "--num-outputs", "2000", src, "z"), 2, "--num-outputs", "axis")
    expect_error(run("split", "--sizes", ",".join(["0"] * 1100 + ["4"]), src, "z"), 2, "--sizes")
    check(time.monotonic() - start < 20, "refusing took too long")
    check(not any(n.startswith("z_") for n in os.listdir(WORK)), "outputs appeared")


# 13. Hostile .safetensors headers: each is refused with a message that names the file and
# the rule broken, exit 1, and the old output is kept.
def safetensors_bytes(header, data=b"", length=None):
    """A .safetensors file: the 8-byte length (or `length`), the header (a dict made JSON
    here, or bytes as given) and the data."""
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def f32_entry(shape, begin):
    n = 4 * math.prod(shape)
    return {"dtype": "F32", "shape": shape, "data_offsets": [begin, begin + n]}


def expect_refused(name, data, *fragments):
    src = write(name, data)
    old = write("old.safetensors", b"old output")
    proc = run("cast", "--to", "bfloat16", src, "old.safetensors")
    expect_error(proc, 1, f"'{src}' is not a valid .safetensors file", *fragments)
    check(read(old) == b"old output", "the old output changed")


@test
def safetensors_hostile_headers_are_refused():
    two = {"a": f32_entry([2], 0), "b": f32_entry([2], 8)}
    cases = [
        ("short", b"\x05\x00\x00", "fewer than the 8"),
        (
            "past_end",
            safetensors_bytes(two, bytes(16), length=len(json.dumps(two)) + 17),
            "runs past the end of the file",
        ),
        (
            "past_limit",
            safetensors_bytes(b"{}", length=100_000_001),
            "above the safetensors limit of 100000000",
        ),
        (
            "data_past_end",
            safetensors_bytes({"a": f32_entry([4], 0)}, bytes(8)),
            "the tensors end at data byte 16, but the file holds 8 bytes",
        ),
        (
            "overlap",
            safetensors_bytes({"a": f32_entry([2], 0), "b": f32_entry([2], 4)}, bytes(12)),
            "tensor 'b' begins at data byte 4",
            "overlap",
        ),
        (
            "gap",
            safetensors_bytes({"a": f32_entry([2], 0), "b": f32_entry([2], 12)}, bytes(20)),
            "tensor 'b' begins at data byte 12",
            "gap",
        ),
        (
            "wrong_size",
            safetensors_bytes(
                {"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, bytes(8)
            ),
            "tensor 'a': data_offsets [0, 8] hold 8 bytes, but F32 [3] takes 12",
        ),
        (
            "reversed",
            safetensors_bytes({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}}),
            "end before they begin",
        ),
        (
            "unknown_dtype",
            safetensors_bytes({"a": {"dtype": "F12", "shape": [1], "data_offsets": [0, 2]}}),
            "tensor 'a' has the unknown dtype 'F12'",
        ),
        (
            "odd_f4",
            safetensors_bytes({"a": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}}),
            "3 F4 elements do not fill whole bytes",
        ),
        (
            "non_utf8_name",
            safetensors_bytes(b'{"a\xff": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]}}'),
            "invalid JSON",
            "UTF-8",
        ),
        (
            "duplicate",
            safetensors_bytes(
                b'{"a": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]},'
                b' "a": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]}}'
            ),
            "tensor 'a' appears twice",
        ),
        (
            "negative_dim",
            safetensors_bytes({"a": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 0]}}),
            "tensor 'a' has a shape holding a negative number",
        ),
        (
            "huge_shape",
            safetensors_bytes(
                {"a": {"dtype": "F32", "shape": [2**62, 8], "data_offsets": [0, 4]}}, bytes(4)
            ),
            "tensor 'a': shape [4611686018427387904, 8]",
        ),
        (
            "no_offsets",
            safetensors_bytes({"a": {"dtype": "U8", "shape": [1]}}, bytes(1)),
            "tensor 'a' has no data_offsets",
        ),
        (
            "metadata_number",
            safetensors_bytes({"__metadata__": {"k": 1}}),
            "\"__metadata__\" key 'k' is a number, not a string",
        ),
        ("not_object", safetensors_bytes(b"[1, 2]"), "is an array, not a JSON object"),
        ("truncated_json", safetensors_bytes(b'{"a": {"dtype"'), "invalid JSON"),
        (
            "deep_rank",
            safetensors_bytes({"a": {"dtype": "U8", "shape": [1] * 65, "data_offsets": [0, 1]}}),
            "more than 64 dimensions",
        ),
    ]
    for name, data, *fragments in cases:
        expect_refused(name + ".safetensors", data, *fragments)


@test
def safetensors_entries_out_of_offset_order_are_read():
    # JSON order is free: the offsets alone place the tensors (b first, then a).
    data = struct.pack("<2f", 1.5, -2.0) + struct.pack("<f", 3.0)
    src = write(
        "order.safetensors",
        safetensors_bytes({"a": f32_entry([1], 8), "b": f32_entry([2], 0)}, data),
    )
    proc = run("cast", "--to", "float16", src, "out.safetensors")
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr!r}")
    out = read(os.path.join(WORK, "out.safetensors"))
    (n,) = struct.unpack("<Q", out[:8])
    header = json.loads(out[8 : 8 + n])
    check(header["b"]["data_offsets"] == [0, 4] and header["a"]["data_offsets"] == [4, 6], "order")
    check(out[8 + n :] == struct.pack("<3e", 1.5, -2.0, 3.0), "values")


@test
def safetensors_headers_of_100_mb_are_read_in_bounded_memory():
    # A 100,000,000-byte header, the safetensors limit: an ignored key holding 25 million
    # nested arrays, then one real tensor; accepted, in memory linear in the header's size,
    # far below a tree of its values. One byte more is refused before anything is read.
    depth = 25_000_000
    head = b'{"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2], "x": '
    tail = b"}}"
    pad = 100_000_000 - len(head) - len(tail) - 2 * depth
    text = head + b"[" * depth + b"]" * depth + b" " * pad + tail
    check(len(text) == 100_000_000, "header size")
    src = write("big.safetensors", safetensors_bytes(text, b"\x01\x02"))
    child = subprocess.Popen(
        [CLI, "cast", "--to", "FLOAT", src, "out.safetensors"],
        cwd=WORK,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(child.pid, 0)
    err = child.stderr.read().decode(errors="replace")
    child.stderr.close()
    check(os.waitstatus_to_exitcode(status) == 0, f"exit status {status}: {err!r}")
    # The text, and nlohmann-json's copy of the current token (a run of structural characters
    # counts as one): about 3x the header. A tree of its 50 million values would take
    # gigabytes. ASan adds its shadow memory and quarantine.
    limit_kb = 700_000 if os.environ.get("TENSORCAST_UNDER_ASAN") else 400_000
    check(usage.ru_maxrss < limit_kb, f"peak memory {usage.ru_maxrss} KiB for a 100 MB header")
    expect_refused(
        "bigger.safetensors",
        safetensors_bytes(text + b" ", b"\x01\x02"),
        "above the safetensors limit",
    )


@test
def safetensors_failing_writes_keep_the_old_output():
    data = safetensors_bytes({"w": f32_entry([2, 2], 0)}, struct.pack("<4f", 1, 2, 3, 4))
    src = write("in.safetensors", data)
    old = write("out.safetensors", b"old output")
    for action, code in (("eio", 1), ("enomem", 1)):
        proc = run(
            "cast",
            "--to",
            "bfloat16",
            src,
            "out.safetensors",
            env={"TENSORCAST_TEST_FAULT": f"stage:0:{action}"},
        )
        expect_error(proc, code)
        check(read(old) == b"old output", f"{action}: the old output changed")
    for sig in (signal.SIGTERM, signal.SIGBUS):
        proc = run(
            "cast",
            "--to",
            "bfloat16",
            src,
            "out.safetensors",
            env={"TENSORCAST_TEST_FAULT": f"stage:0:{int(sig)}"},
        )
        check(proc.returncode == -sig, f"{sig.name}: exit {proc.returncode}")
        check(read(old) == b"old output", f"{sig.name}: the old output changed")
    check(not leftovers(), f"temporary files left: {leftovers()}")


def main():
    return run_tests(TESTS, WORK)


if __name__ == "__main__":
    sys.exit(main())
