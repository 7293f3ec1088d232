"""The extension module checks every buffer against the bytes a call needs: random and
hostile arguments give an error tuple or a TypeError (argument conversion), never a crash
(a crash would end the test process) or a write outside the output (guard bytes)."""

import numpy as np
import pytest
from tensorcast import _tensorcast as ext

RNG = np.random.default_rng(11)
BIG = [0, 1, 7, 8, 9, 63, 64, 65, 1 << 20, (1 << 62), (1 << 64) - 1]


def guarded(nbytes):
    """A writable buffer of nbytes followed by 64 guard bytes; returns (whole, view)."""
    whole = np.full(nbytes + 64, 0xA5, np.uint8)
    return whole, whole[:nbytes]


def check_guard(whole, nbytes):
    assert (whole[nbytes:] == 0xA5).all(), "a write past the end of the output"


def result_ok(r):
    # None (success) or (code, message, written) with a library or buffer code
    return (
        r is None or isinstance(r, int) or (isinstance(r, tuple) and r[0] in (-1, 1, 2, 3, 4, 5, 6))
    )


@pytest.mark.parametrize("trial", range(300))
def test_cast_random_arguments(trial):
    src = RNG.integers(0, 256, int(RNG.integers(0, 40)), dtype=np.uint8)
    n_out = int(RNG.integers(0, 40))
    whole, out = guarded(n_out)
    count = int(RNG.choice(BIG + list(range(0, 48))))
    st, dt = int(RNG.integers(-2, 30)), int(RNG.integers(-2, 30))
    try:
        r = ext.cast(
            src,
            st,
            out,
            dt,
            count,
            bool(RNG.integers(0, 2)),
            int(RNG.integers(-1, 4)),
            int(RNG.integers(0, 3)),
        )
    except (TypeError, OverflowError):
        return
    assert result_ok(r), r
    check_guard(whole, n_out)


@pytest.mark.parametrize("trial", range(200))
def test_arrow_strings_random_offsets(trial):
    n = int(RNG.integers(0, 12))
    width = int(RNG.choice([4, 8, 3]))
    offsets = RNG.integers(-5, 40, n + 2).astype(np.int32 if width != 8 else np.int64)
    if RNG.integers(0, 2):
        offsets = np.sort(offsets)
    data = np.frombuffer(b"12.5-3e4nan inf 0x1 7 ", np.uint8)[: int(RNG.integers(0, 23))]
    validity = (
        RNG.integers(0, 256, int(RNG.integers(0, 3)), dtype=np.uint8)
        if RNG.integers(0, 2)
        else None
    )
    whole, out = guarded(int(RNG.integers(0, 80)))
    try:
        r = ext.cast_from_arrow_strings(
            offsets,
            width,
            data,
            validity,
            int(RNG.integers(-1, 3)),
            int(RNG.choice([0, 1, n, n + 1, 1 << 40])),
            out,
            int(RNG.integers(1, 27)),
            bool(RNG.integers(0, 2)),
            True,
            0,
            1,
        )
    except (TypeError, OverflowError):
        return
    assert result_ok(r), r
    check_guard(whole, out.size)


@pytest.mark.parametrize("trial", range(100))
def test_fixed_and_formatted_strings_random_sizes(trial):
    texts = np.frombuffer(b"1.5\x002.25\x00\x00\x00-7\x00\x00\x00\x00\x00", np.uint8)[
        : int(RNG.integers(0, 16))
    ]
    whole, out = guarded(int(RNG.integers(0, 40)))
    try:
        r = ext.cast_from_fixed_strings(
            texts,
            str(RNG.choice(["S", "U", "X"])),
            int(RNG.choice(BIG)),
            int(RNG.choice(BIG)),
            out,
            int(RNG.integers(1, 27)),
            True,
            0,
            1,
        )
    except (TypeError, OverflowError):
        r = None
    assert result_ok(r), r
    check_guard(whole, out.size)
    whole, out = guarded(int(RNG.integers(0, 100)))
    try:
        r = ext.cast_to_fixed_strings(
            RNG.integers(0, 256, 16, dtype=np.uint8),
            int(RNG.integers(0, 27)),
            int(RNG.choice(BIG)),
            out,
            1,
        )
    except (TypeError, OverflowError):
        r = None
    assert result_ok(r), r
    check_guard(whole, out.size)


@pytest.mark.parametrize("trial", range(100))
def test_split_random_shapes(trial):
    rank = int(RNG.integers(0, 4))
    shape = [int(RNG.choice([0, 1, 2, 3, -1, 1 << 40])) for _ in range(rank)]
    sizes = [int(RNG.choice([0, 1, 2, -1, 1 << 40])) for _ in range(int(RNG.integers(0, 4)))]
    src = RNG.integers(0, 256, int(RNG.integers(0, 30)), dtype=np.uint8)
    outs = [guarded(int(RNG.integers(0, 30))) for _ in sizes]
    try:
        r = ext.split(
            src,
            int(RNG.integers(0, 27)),
            shape,
            int(RNG.integers(-4, 4)),
            sizes,
            [o[1] for o in outs],
            1,
        )
    except (TypeError, OverflowError):
        return
    assert result_ok(r), r
    for whole, out in outs:
        check_guard(whole, out.size)


@pytest.mark.parametrize("trial", range(200))
@pytest.mark.parametrize("fn", ["pack6", "unpack6"])
def test_pack6_unpack6_random_sizes(fn, trial):
    # 6-bit codes straddle bytes: every count against buffers of every size near the need
    # (ceil(6 * count / 8) bytes packed, count unpacked).
    src = RNG.integers(0, 256, int(RNG.integers(0, 40)), dtype=np.uint8)
    whole, out = guarded(int(RNG.integers(0, 40)))
    count = int(RNG.choice(BIG + list(range(0, 48))))
    try:
        r = getattr(ext, fn)(src, out, count, int(RNG.integers(0, 3)))
    except (TypeError, OverflowError):
        return
    assert result_ok(r), r
    packed, unpacked = (out.size, src.size) if fn == "pack6" else (src.size, out.size)
    fits = packed >= (6 * count + 7) // 8 and unpacked >= count
    assert (r is None) == fits, (fn, count, src.size, out.size, r)
    check_guard(whole, out.size)


def test_read_only_and_non_contiguous_outputs_are_refused():
    src = np.zeros(4, np.float32)
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    assert ext.cast(src, 1, ro, 1, 4, True, 0, 1)[0] == -1
    assert ext.cast(src, 1, np.zeros(8, np.float32)[::2], 1, 4, True, 0, 1)[0] == -1
    assert ext.cast(src, 1, src[:3], 10, 4, True, 0, 1)[0] == -1  # overlapping, different types
    codes = np.zeros(8, np.uint8)
    ro8 = np.zeros(8, np.uint8)
    ro8.flags.writeable = False
    for fn in (ext.pack6, ext.unpack6):
        assert fn(codes, ro8, 4, 1)[0] == -1
        assert fn(codes, np.zeros(16, np.uint8)[::2], 4, 1)[0] == -1
        assert fn(codes, codes[2:], 4, 1)[0] == -1  # overlapping
