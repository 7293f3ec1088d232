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


def random_shape(hostile):
    rank = int(RNG.integers(0, 4))
    dims = [0, 1, 2, 3, 5] + ([-1, 1 << 40, (1 << 63) - 1] if hostile else [])
    return [int(RNG.choice(dims)) for _ in range(rank)]


# 4-bit, 2-bit, 6-bit, 8-bit and 16-bit quantized types
QUANTIZED = [2, 3, 4, 5, 17, 18, 19, 20, 21, 22, 23, 25, 26, 27, 28]
STORAGE_BITS = {
    2: 8,
    3: 8,
    4: 16,
    5: 16,
    6: 32,
    17: 8,
    18: 8,
    19: 8,
    20: 8,
    21: 4,
    22: 4,
    23: 4,
    25: 2,
    26: 2,
    27: 6,
    28: 6,
    1: 32,
    10: 16,
    16: 16,
    24: 8,
}


def storage(code, shape):
    n = int(np.prod(shape)) if all(0 <= d < 64 for d in shape) else 0
    return (n * STORAGE_BITS.get(code, 8) + 7) // 8


@pytest.mark.parametrize("trial", range(300))
@pytest.mark.parametrize("fn", ["quantize_linear", "dequantize_linear"])
def test_quantize_dequantize_random_shapes_and_buffers(fn, trial):
    # Mostly well-formed calls with buffers a few bytes short or long, sometimes shapes
    # that do not match the buffers, unknown and unsupported type codes, bad attributes:
    # an error tuple or success, never a read or write outside the buffers.
    hostile = RNG.random() < 0.25
    q = fn == "quantize_linear"
    floats = [1, 10, 16]
    x_type = int(RNG.choice(floats + [6] if q else QUANTIZED + [6]))
    s_type = int(RNG.choice(floats + [24]))
    zp_type = x_type if not q else int(RNG.choice(QUANTIZED))
    if q:
        y_type = zp_type
    else:
        y_type = s_type if s_type != 24 else 1
    if hostile:
        x_type, s_type, zp_type, y_type = (
            int(RNG.choice([t, t, 0, 8, 99, -1])) for t in (x_type, s_type, zp_type, y_type)
        )
    x_shape = random_shape(hostile)
    axis = int(RNG.integers(-3, 3))
    kind = int(RNG.integers(0, 3))  # per tensor, per axis, blocked
    block = 0
    if kind == 0 or not x_shape:
        s_shape = [] if RNG.integers(0, 2) else [1]
    elif kind == 1:
        s_shape = [x_shape[axis % len(x_shape)]]
    else:
        block = int(RNG.integers(1, 4))
        s_shape = list(x_shape)
        d = x_shape[axis % len(x_shape)]
        s_shape[axis % len(x_shape)] = -(-d // block) if d >= 0 else d
    if hostile and RNG.integers(0, 2):
        s_shape = random_shape(True)
    zp = None
    zp_shape = list(s_shape)
    if RNG.integers(0, 2):
        zp = np.zeros(max(0, storage(zp_type, zp_shape) + int(RNG.integers(-1, 2))), np.uint8)
    x = RNG.integers(
        0, 256, max(0, storage(x_type, x_shape) + int(RNG.integers(-2, 3))), dtype=np.uint8
    )
    s = np.full(max(0, storage(s_type, s_shape) + int(RNG.integers(-1, 2))), 0x3C, np.uint8)
    whole, y = guarded(max(0, storage(y_type, x_shape) + int(RNG.integers(-2, 3))))
    attrs = [
        int(RNG.choice([9, 10, 13, 19, 21, 23, 25, 28, 29])) if hostile else 28,  # opset
        axis,
        block if not hostile else int(RNG.choice([block, -1, 1 << 40])),  # block_size
        int(RNG.choice([0, 0, 1, 3, 22, 99])) if hostile else 0,  # output_dtype
    ]
    if q:
        attrs += [
            bool(RNG.integers(0, 2)),
            int(RNG.choice([0, 0, 1, 10, 3])),
        ]  # saturate, precision
    try:
        r = getattr(ext, fn)(
            x,
            x_type,
            x_shape,
            s,
            s_type,
            s_shape,
            zp,
            zp_type,
            zp_shape,
            y,
            y_type,
            *attrs,
            int(RNG.integers(0, 3)),
        )
    except (TypeError, OverflowError):
        return
    assert result_ok(r), r
    check_guard(whole, y.size)


def test_quantize_dequantize_check_every_buffer():
    x = np.zeros(8, np.float32)
    s = np.ones(1, np.float32)
    y = np.zeros(8, np.uint8)
    args = dict(
        opset=28, axis=1, block_size=0, output_dtype=0, saturate=True, precision=0, threads=1
    )
    assert ext.quantize_linear(x, 1, [8], s, 1, [], None, 0, [], y, 2, **args) is None
    # x holds 8 floats, not 9; the scale 1 float, not 2; y 8 bytes, not 9
    r = ext.quantize_linear(x, 1, [9], s, 1, [], None, 0, [], y, 2, **args)
    assert r[0] != 0 and "x holds 32 bytes" in r[1]
    r = ext.quantize_linear(x, 1, [2, 4], s, 1, [2], None, 0, [], y, 2, **args)
    assert "y_scale holds 4 bytes" in r[1]
    r = ext.quantize_linear(x, 1, [8], s, 1, [], np.zeros(0, np.uint8), 2, [1], y, 2, **args)
    assert "y_zero_point holds 0 bytes" in r[1]
    r = ext.quantize_linear(x, 1, [8], s, 1, [], None, 0, [], y[:7], 2, **args)
    assert "y holds 7 bytes" in r[1]
    # packed types: 9 INT4 elements need 5 bytes
    r = ext.quantize_linear(
        np.zeros(9, np.float32),
        1,
        [9],
        s,
        1,
        [],
        None,
        0,
        [],
        np.zeros(4, np.uint8),
        22,
        **{**args, "output_dtype": 22},
    )
    assert "y holds 4 bytes, 9 elements of INT4 need 5" in r[1]
    ro = np.zeros(8, np.uint8)
    ro.flags.writeable = False
    assert ext.quantize_linear(x, 1, [8], s, 1, [], None, 0, [], ro, 2, **args)[0] == -1
    dq = dict(opset=28, axis=1, block_size=0, output_dtype=0, threads=1)
    r = ext.dequantize_linear(
        np.zeros(3, np.uint8), 22, [7], s, 1, [], None, 0, [], np.zeros(7, np.float32), 1, **dq
    )
    assert "x holds 3 bytes, 7 elements of INT4 need 4" in r[1]


# Block formats: element type and block scale type (tensorcast/block_scale.h).
BLOCK_FORMATS = {1: (17, 24), 2: (19, 24), 3: (27, 24), 4: (28, 24), 5: (23, 24), 6: (23, 17)}


def block_scale_bytes(shape, axis, block):
    """The block scales' bytes of a well-formed call (0 when it is not one)."""
    if not shape or not all(0 <= d < 64 for d in shape) or not -len(shape) <= axis < len(shape):
        return 0
    s = list(shape)
    s[axis] = -(-s[axis] // block) if block > 0 else 0
    return int(np.prod(s)) if np.prod(shape) else 0


@pytest.mark.parametrize("trial", range(200))
@pytest.mark.parametrize(
    "fn", ["quantize_mx", "dequantize_mx", "quantize_nvfp4", "dequantize_nvfp4", "quantize_absmax"]
)
def test_block_scale_random_shapes_and_buffers(fn, trial):
    # As above, for the block-scaled calls: well-formed calls with buffers a few bytes short
    # or long, and hostile shapes, formats, types, axes and block sizes. The scale counts
    # are the extension's own; an error tuple, None or a float, never a write outside.
    hostile = RNG.random() < 0.25
    fmt = int(RNG.integers(1, 7)) if fn.endswith("_mx") else 6
    if hostile and fn.endswith("_mx"):
        fmt = int(RNG.choice([fmt, 0, 6, 7, -1]))
    element, scale_type = BLOCK_FORMATS.get(fmt, (17, 24))
    x_type = int(RNG.choice([1, 10, 16]))
    if hostile:
        x_type = int(RNG.choice([x_type, 0, 8, 11, 99, -1]))
    shape = random_shape(hostile)
    axis = int(RNG.integers(-3, 3))
    block = int(RNG.choice([0, 1, 2, 3, 32])) if fmt != 6 else 0
    if hostile:
        block = int(RNG.choice([block, -1, 1 << 40]))
    n_scales = block_scale_bytes(shape, axis, block or (16 if fmt == 6 else 32))
    threads = int(RNG.integers(0, 3))
    guards = []

    def out(nbytes):
        whole, view = guarded(max(0, nbytes + int(RNG.integers(-2, 3))))
        guards.append((whole, view.size))
        return view

    def inp(code, shape):
        n = max(0, storage(code, shape) + int(RNG.integers(-2, 3)))
        return RNG.integers(0, 256, n, dtype=np.uint8)

    try:
        if fn == "quantize_mx":
            r = ext.quantize_mx(
                inp(x_type, shape), x_type, shape, fmt, out(storage(element, shape)),
                out(n_scales), axis, block, int(RNG.integers(-1, 3)), threads,
            )  # fmt: skip
        elif fn == "dequantize_mx":
            c_type = element if not hostile else int(RNG.choice([element, 1, 23, 0]))
            r = ext.dequantize_mx(
                inp(c_type, shape), c_type, shape, inp(24, [n_scales]), fmt,
                out(storage(x_type, shape)), x_type, axis, block, threads,
            )  # fmt: skip
        elif fn == "quantize_nvfp4":
            g = float(RNG.choice([0.0, 0.5, np.inf, np.nan, 1e30]))
            r = ext.quantize_nvfp4(
                inp(x_type, shape), x_type, shape, out(storage(23, shape)), out(n_scales),
                axis, g, bool(RNG.integers(0, 2)), threads,
            )  # fmt: skip
            assert r is None or isinstance(r, (float, tuple)), r
            r = None if isinstance(r, float) else r
        elif fn == "dequantize_nvfp4":
            c_type = 23 if not hostile else int(RNG.choice([23, 17, 0]))
            r = ext.dequantize_nvfp4(
                inp(c_type, shape), c_type, shape, inp(17, [n_scales]),
                float(RNG.choice([0.5, np.nan])), out(storage(x_type, shape)), x_type, axis,
                threads,
            )  # fmt: skip
        else:
            per_channel = bool(RNG.integers(0, 2))
            code_type = int(RNG.choice([3, 17] + ([2, 0, 99] if hostile else [])))
            n = 1
            if per_channel and shape and -len(shape) <= axis < len(shape):
                n = shape[axis] if 0 <= shape[axis] < 64 else 0
            r = ext.quantize_absmax(
                inp(x_type, shape), x_type, shape, code_type, per_channel, axis,
                out(storage(code_type, shape)), out(4 * n), threads,
            )  # fmt: skip
    except (TypeError, OverflowError):
        return
    assert result_ok(r), r
    for whole, n in guards:
        check_guard(whole, n)


def test_block_scale_check_every_buffer():
    x = np.zeros(64, np.float32)
    codes = np.zeros(64, np.uint8)
    scales = np.zeros(2, np.uint8)
    assert ext.quantize_mx(x, 1, [2, 32], 1, codes, scales, -1, 32, 0, 1) is None
    r = ext.quantize_mx(x, 1, [2, 33], 1, codes, scales, -1, 32, 0, 1)
    assert "x holds 256 bytes" in r[1]
    r = ext.quantize_mx(x, 1, [2, 32], 1, codes[:63], scales, -1, 32, 0, 1)
    assert "codes holds 63 bytes" in r[1]
    r = ext.quantize_mx(x, 1, [2, 32], 1, codes, scales[:1], -1, 32, 0, 1)
    assert "scales holds 1 bytes" in r[1]
    r = ext.quantize_mx(x, 1, [2, 32], 5, codes[:31], scales, -1, 32, 0, 1)
    assert "codes holds 31 bytes, 64 elements of FLOAT4E2M1 need 32" in r[1]
    r = ext.quantize_mx(x, 1, [2, 32], 1, codes, scales, 2, 32, 0, 1)
    assert r[1].startswith("QuantizeMx: axis: 2")
    r = ext.quantize_mx(x, 1, [2, 32], 6, codes, scales, -1, 32, 0, 1)
    assert "QuantizeMx" in r[1] and "format" in r[1]
    y = np.zeros(64, np.float32)
    assert ext.dequantize_mx(codes, 17, [2, 32], scales, 1, y, 1, -1, 32, 1) is None
    r = ext.dequantize_mx(codes, 17, [2, 32], scales[:1], 1, y, 1, -1, 32, 1)
    assert "scales holds 1 bytes" in r[1]
    r = ext.dequantize_mx(codes, 17, [2, 32], scales, 1, y[:63], 1, -1, 32, 1)
    assert "y holds 252 bytes" in r[1]
    g = ext.quantize_nvfp4(x, 1, [4, 16], codes[:32], np.zeros(4, np.uint8), -1, 0.0, False, 1)
    assert g == 1.0
    r = ext.quantize_nvfp4(x, 1, [4, 16], codes[:32], scales, -1, 0.0, False, 1)
    assert "scales holds 2 bytes" in r[1]
    f = np.zeros(2, np.float32)
    assert ext.quantize_absmax(x, 1, [2, 32], 3, True, 0, codes, f, 1) is None
    r = ext.quantize_absmax(x, 1, [2, 32], 3, True, 1, codes, f, 1)
    assert "scales holds 8 bytes" in r[1]
    r = ext.quantize_absmax(x, 1, [2, 32], 3, True, 2, codes, f, 1)
    assert r[1].startswith("QuantizeAbsmax: axis: 2")
    ro = np.zeros(64, np.uint8)
    ro.flags.writeable = False
    assert ext.quantize_mx(x, 1, [2, 32], 1, ro, scales, -1, 32, 0, 1)[0] == -1
    assert ext.block_scale_shape(0, 1, [2, 70], 1, 0, 32, 0, 0) == [1, 70]
    assert ext.block_scale_shape(0, 1, [2, 70], 1, -1, 0, 0, 0) == [2, 3]
    assert ext.block_scale_shape(2, 1, [2, 70], 6, -1, 0, 0, 0) == [2, 5]
    assert ext.block_scale_shape(0, 1, [2, 70], 1, 2, 32, 0, 0)[1].startswith("QuantizeMx")
    assert ext.absmax_scale_count(1, [2, 70], 3, True, -1) == 70
