#!/usr/bin/env python3
"""tensorcast next to ONNX Runtime, pyarrow, ml_dtypes and numpy, on the same data, in one run.

    tools/dev.sh peers                 # builds libtensorcast_c.so, installs the peers, runs this
    python3 bench/peers.py --lib build/lib/libtensorcast_c.so [--quick] [--pairs f16,split]

Every implementation runs on one thread on the same seeded input:

  tensorcast   tc_cast / tc_split of the C API (include/tensorcast/tensorcast_c.h) via ctypes,
               into preallocated outputs.
  ORT          ONNX Runtime CPU: a one-node Cast / Split model built in memory (onnx.helper),
               intra_op_num_threads = inter_op_num_threads = 1, sequential execution, input and
               outputs bound to our preallocated buffers with IOBinding (no copies), timed around
               run_with_iobinding. ORT's per-call overhead is the same model on a 1-element
               tensor and is reported in a separate table (it is included in the ns/element).
  pyarrow      `pyarrow.compute.cast(arr, target_type)` of a pyarrow Array built once (not
               timed) from the same input (STRING: `pa.array(list of str, type=pa.string())` of
               the texts tensorcast parses); it allocates its result on every call.
               pa.set_cpu_count(1) and pa.set_io_thread_count(1). Numeric pairs run with
               safe=False: Arrow's default safe=True raises ArrowInvalid on lossy casts (f32 ->
               i8 of a value with a fraction, i64 -> f32 of an integer beyond 2^24). With
               safe=False float -> integer truncates toward zero, and out-of-range values and
               NaN are a C++ static_cast (undefined; on x86 300.0 -> i8 44), where ONNX /
               tensorcast saturate. STRING pairs use the default (a text that does not parse
               raises with either). Types Arrow lacks (bfloat16, float8, float4, int4, e8m0)
               and Split have no pyarrow cell ("-").
  astype       numpy / ml_dtypes `src.astype(dst_dtype)`, as users write it: it allocates its
               result on every call. For Split: `[p.copy() for p in np.split(x, parts, axis)]`.
  copyto       `np.copyto(preallocated, src, casting="unsafe")` (Split: np.copyto of each
               np.split view), i.e. the same conversion without the allocation.
  memcpy       ctypes.memmove of (source bytes + destination bytes) / 2, the definition of
               bench/kernel_bench.cc: a copy that reads + writes as many bytes as the cast.

Times are the median of --samples samples; a sample repeats the call until it lasts at least
--min-sample seconds (after one warm-up call). "x memcpy" is t_memcpy / t_impl (1.0 = as fast
as memcpy of the same bytes), "ORT/tc", "pyarrow/tc" and friends are t_peer / t_tensorcast
(> 1: tensorcast is faster).

ml_dtypes and numpy keep 4-bit types unpacked (one byte per element); tensorcast and ORT use
ONNX's packed layout (two per byte). Each is timed in its native layout; the correctness
cross-check packs ml_dtypes' result first. STRING pairs have their own sizes (--string-sizes,
default 64K and 16M like the others) because every implementation is 100-1000x slower there.

The cross-check counts elements whose bits (STRING: bytes) differ between tensorcast and
ml_dtypes / numpy, between tensorcast and ORT, and between tensorcast and pyarrow (outputs of
the timed runs). Some differences are by definition (README "Differences from the ONNX
reference", docs/semantics.md, section 11): they are reported, never fatal.

Writes OUT/peers.md (tables, machine, date, versions) and OUT/peers.png (bar chart, log-scale
ns/element); prints the markdown to stdout.
"""

import os

# One thread everywhere, before numpy (and its BLAS) is imported.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
             "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import ctypes  # noqa: E402
import datetime  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402

import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
from onnx import TensorProto as TP  # noqa: E402
from onnx import helper  # noqa: E402

# Arrow's CPU and I/O thread pools: one thread, as every other implementation.
pa.set_cpu_count(1)
pa.set_io_thread_count(1)

ROOT = Path(__file__).resolve().parent.parent
SEED = 20240521

# ONNX element type -> (short name, bits per element, numpy / ml_dtypes dtype).
TYPES = {
    TP.FLOAT: ("f32", 32, np.dtype(np.float32)),
    TP.DOUBLE: ("f64", 64, np.dtype(np.float64)),
    TP.FLOAT16: ("f16", 16, np.dtype(np.float16)),
    TP.BFLOAT16: ("bf16", 16, np.dtype(ml_dtypes.bfloat16)),
    TP.INT8: ("i8", 8, np.dtype(np.int8)),
    TP.INT64: ("i64", 64, np.dtype(np.int64)),
    TP.FLOAT8E4M3FN: ("e4m3fn", 8, np.dtype(ml_dtypes.float8_e4m3fn)),
    TP.FLOAT8E4M3FNUZ: ("e4m3fnuz", 8, np.dtype(ml_dtypes.float8_e4m3fnuz)),
    TP.FLOAT8E5M2: ("e5m2", 8, np.dtype(ml_dtypes.float8_e5m2)),
    TP.FLOAT8E5M2FNUZ: ("e5m2fnuz", 8, np.dtype(ml_dtypes.float8_e5m2fnuz)),
    TP.FLOAT8E8M0: ("e8m0", 8, np.dtype(ml_dtypes.float8_e8m0fnu)),
    TP.FLOAT4E2M1: ("f4e2m1", 4, np.dtype(ml_dtypes.float4_e2m1fn)),
    TP.INT4: ("i4", 4, np.dtype(ml_dtypes.int4)),
    TP.STRING: ("string", 0, None),
}

# ONNX element type -> Arrow type, for the types Arrow has (pyarrow.compute.cast converts between
# any two of them). BFLOAT16, the float8 formats, FLOAT4E2M1, FLOAT8E8M0 and the 4- and 2-bit
# integers have no Arrow type: their pairs have no pyarrow cell.
ARROW_TYPES = {
    TP.FLOAT: pa.float32(), TP.DOUBLE: pa.float64(), TP.FLOAT16: pa.float16(),
    TP.INT8: pa.int8(), TP.INT16: pa.int16(), TP.INT32: pa.int32(), TP.INT64: pa.int64(),
    TP.UINT8: pa.uint8(), TP.UINT16: pa.uint16(), TP.UINT32: pa.uint32(),
    TP.UINT64: pa.uint64(), TP.BOOL: pa.bool_(), TP.STRING: pa.string(),
}


def storage_bytes(code, n):
    return (n * TYPES[code][1] + 7) // 8


@dataclass
class Pair:
    src: int
    dst: int
    scale: float = 1.0      # f32 source values: N(0, 1) * scale
    note: str = ""          # known, documented differences (shown under the table)
    axis: int = -1          # Split only
    parts: int = 4

    @property
    def is_split(self):
        return self.axis >= 0

    @property
    def label(self):
        if self.is_split:
            return f"Split f32 axis {self.axis} /{self.parts}"
        return f"{TYPES[self.src][0]} -> {TYPES[self.dst][0]}"

    @property
    def has_string(self):
        return TP.STRING in (self.src, self.dst)

    @property
    def has_arrow(self):
        return not self.is_split and self.src in ARROW_TYPES and self.dst in ARROW_TYPES


F32 = TP.FLOAT
ARROW_FLOAT_TEXT = ("pyarrow writes the shortest round-trip digits too, in its own spelling: `1` "
                    "for `1.0`, positional from 1e-6 on (`0.00001` for `1e-05`), one-digit "
                    "exponents (`3e-7` for `3e-07`), so the few such values differ from pyarrow.")
PAIRS = [
    Pair(F32, TP.FLOAT16),
    Pair(TP.FLOAT16, F32),
    Pair(F32, TP.BFLOAT16),
    Pair(TP.BFLOAT16, F32),
    Pair(TP.DOUBLE, F32),
    Pair(F32, TP.INT8, scale=20.0),
    Pair(TP.INT64, F32),
    Pair(F32, TP.FLOAT8E4M3FN),
    Pair(TP.FLOAT8E4M3FN, F32),
    Pair(F32, TP.FLOAT8E4M3FNUZ),
    Pair(TP.FLOAT8E4M3FNUZ, F32),
    Pair(F32, TP.FLOAT8E5M2),
    Pair(TP.FLOAT8E5M2, F32),
    Pair(F32, TP.FLOAT8E5M2FNUZ),
    Pair(TP.FLOAT8E5M2FNUZ, F32),
    Pair(F32, TP.FLOAT8E8M0,
         note="ONNX's default round_mode is `up` (tensorcast, ORT); ml_dtypes rounds to "
              "nearest, so about half of the values differ from ml_dtypes by definition."),
    Pair(F32, TP.FLOAT4E2M1),
    Pair(TP.FLOAT4E2M1, F32),
    Pair(F32, TP.INT4, scale=1.4,
         note="ONNX: float -> int4 truncates toward zero (tensorcast, ml_dtypes); ORT rounds "
              "(std::roundf), so values with |fraction| >= 0.5 differ from ORT."),
    Pair(TP.INT4, F32),
    Pair(F32, TP.STRING,
         note="ORT formats with printf(\"%.8g\"); tensorcast and numpy use the shortest "
              "round-trip spelling of numpy < 2.3, so most strings differ from ORT's. "
              + ARROW_FLOAT_TEXT),
    Pair(TP.STRING, F32),
    Pair(TP.DOUBLE, TP.STRING,
         note="ORT formats DOUBLE with printf(\"%.8g\") too (0.1 + 0.2 -> `0.3`); tensorcast "
              "and numpy write the shortest round-trip spelling (`0.30000000000000004`), so most "
              "strings differ from ORT's. " + ARROW_FLOAT_TEXT),
    Pair(TP.STRING, TP.DOUBLE),
    Pair(TP.INT64, TP.STRING),
    Pair(TP.STRING, TP.INT64),
    Pair(F32, F32, axis=0),
    Pair(F32, F32, axis=1),
]


# --------------------------------------------------------------------------- timing

def measure(fn, min_sample_s, samples):
    """Median time of one call of fn, in ns."""
    fn()  # warm-up (page faults, lazy initialisation)
    t0 = time.perf_counter_ns()
    fn()
    one = max(time.perf_counter_ns() - t0, 1)
    inner = max(1, int(min_sample_s * 1e9 / one))
    times = []
    for _ in range(samples):
        t0 = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter_ns() - t0) / inner)
    return statistics.median(times)


class Unsupported(Exception):
    """An implementation that does not support a pair ("n/a (<who>: <reason>)")."""


# --------------------------------------------------------------------------- layouts

def pack4(codes_u8):
    """ONNX 4-bit packing: element 2k in the low nibble of byte k, zero padding."""
    c = np.asarray(codes_u8, np.uint8) & 0xF
    if c.size % 2:
        c = np.append(c, np.uint8(0))
    return (c[0::2] | (c[1::2] << 4)).astype(np.uint8)


def unpack4(packed_u8, n):
    out = np.empty(packed_u8.size * 2, np.uint8)
    out[0::2] = packed_u8 & 0xF
    out[1::2] = packed_u8 >> 4
    return out[:n]


def onnx_bytes(arr, code):
    """A numpy / ml_dtypes array in ONNX storage layout (uint8 bytes)."""
    if TYPES[code][1] == 4:
        return pack4(np.ascontiguousarray(arr).view(np.uint8))
    return np.ascontiguousarray(arr).view(np.uint8).reshape(-1)


def element_codes(raw_u8, code, n):
    """Per-element bit patterns of an ONNX-layout buffer, for counting mismatches."""
    bits = TYPES[code][1]
    if bits == 4:
        return unpack4(raw_u8, n)
    return raw_u8[: n * bits // 8].view({8: np.uint8, 16: np.uint16, 32: np.uint32,
                                         64: np.uint64}[bits])


def ptr(a):
    return a.ctypes.data


# --------------------------------------------------------------------------- tensorcast (C API)

class TcError(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("elements_written", ctypes.c_size_t),
                ("message_length", ctypes.c_size_t), ("message", ctypes.c_void_p),
                ("message_capacity", ctypes.c_size_t)]


class TcStringArena(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("capacity", ctypes.c_size_t),
                ("views", ctypes.c_void_p), ("size", ctypes.c_size_t)]


# tc_string_view {const char* data; size_t size;} as a numpy record (same layout).
VIEW_DTYPE = np.dtype([("data", np.uintp), ("size", np.uintp)])
TC_BUFFER_TOO_SMALL = 6


class TcFailed(Exception):
    pass


class Tensorcast:
    """ctypes binding of include/tensorcast/tensorcast_c.h (the functions this benchmark uses)."""

    def __init__(self, path):
        lib = ctypes.CDLL(str(path))
        c = ctypes
        lib.tc_cast.argtypes = [c.c_void_p, c.c_int32, c.c_void_p, c.c_int32, c.c_size_t, c.c_int,
                                c.c_int, c.POINTER(TcError)]
        lib.tc_cast.restype = c.c_int
        lib.tc_split.argtypes = [c.c_void_p, c.c_int32, c.c_void_p, c.c_size_t, c.c_int64,
                                 c.c_void_p, c.c_size_t, c.c_void_p, c.POINTER(TcError)]
        lib.tc_split.restype = c.c_int
        lib.tc_version_string.restype = c.c_char_p
        lib.tc_version_string.argtypes = []
        lib.tc_active_target.restype = c.c_char_p
        lib.tc_active_target.argtypes = []
        lib.tc_storage_bytes.argtypes = [c.c_int32, c.c_size_t, c.POINTER(c.c_size_t),
                                         c.POINTER(TcError)]
        lib.tc_storage_bytes.restype = c.c_int
        self.lib = lib
        self._msg = ctypes.create_string_buffer(512)
        self.err = TcError(0, 0, 0, ctypes.cast(self._msg, ctypes.c_void_p).value, 512)
        self.eref = ctypes.byref(self.err)

    def version(self):
        return self.lib.tc_version_string().decode()

    def active_target(self):
        return self.lib.tc_active_target().decode()

    def storage_bytes(self, code, n):
        out = ctypes.c_size_t()
        if self.lib.tc_storage_bytes(code, n, ctypes.byref(out), self.eref):
            raise TcFailed(self._msg.value.decode())
        return out.value

    def _fail(self, what):
        return TcFailed(f"{what}: {self._msg.value.decode(errors='replace')}")

    def cast_fn(self, src, dst, native, src_bytes, n):
        """(call, result): call() runs tc_cast once (saturate=1, round_mode=up: the ONNX
        defaults); result() returns the output in ONNX layout (bytes of a list for STRING)."""
        cast, eref = self.lib.tc_cast, self.eref
        keep = []
        if src == TP.STRING:
            enc = native.astype(np.bytes_)        # fixed-width ASCII, one buffer
            lengths = np.char.str_len(enc)
            views = np.empty(n, VIEW_DTYPE)
            views["data"] = ptr(enc) + np.arange(n, dtype=np.uintp) * np.uintp(enc.itemsize)
            views["size"] = lengths
            keep += [enc, views]
            src_ptr = ptr(views)
        else:
            src_ptr = ptr(src_bytes)
        if dst == TP.STRING:
            out_views = np.zeros(n, VIEW_DTYPE)
            # An arena with room for every text at its longest (32 bytes and the NUL, the
            # bound of tensorcast_c.h), as a caller that does not know the sizes gives it:
            # tensorcast then formats in one pass (an arena of exactly the size a query
            # returned costs a measuring pass more).
            buf = np.zeros(max(n * 33, 1), np.uint8)
            arena = TcStringArena(None, 0, ptr(out_views), 0)
            arena.data, arena.capacity = ptr(buf), buf.size
            keep += [out_views, arena, buf]
            dst_ptr = ctypes.addressof(arena)
        else:
            buf = np.zeros(self.storage_bytes(dst, n), np.uint8)
            dst_ptr = ptr(buf)

        def call():
            if cast(src_ptr, src, dst_ptr, dst, n, 1, 0, eref):
                raise self._fail(f"tc_cast {src} -> {dst}")

        def result():
            _ = keep
            if dst != TP.STRING:
                return buf
            raw = buf.tobytes()
            offs = (out_views["data"] - np.uintp(ptr(buf))).tolist()
            return [raw[o:o + s] for o, s in zip(offs, out_views["size"].tolist())]
        call()
        return call, result

    def split_fn(self, x, axis, outs):
        shape = np.array(x.shape, np.int64)
        sizes = np.array([o.shape[axis] for o in outs], np.int64)
        outputs = (ctypes.c_void_p * len(outs))(*[ptr(o) for o in outs])
        split, eref = self.lib.tc_split, self.eref
        args = (ptr(x), TP.FLOAT, ptr(shape), x.ndim, axis, ptr(sizes), len(outs),
                ctypes.addressof(outputs), eref)
        keep = (shape, sizes, outputs)

        def call():
            _ = keep
            if split(*args):
                raise self._fail("tc_split")
        call()
        return call


# --------------------------------------------------------------------------- ONNX Runtime

ORT_OPSETS = (25, 24, 23, 21)


def ort_session(node_fn, in_type, out_types, opset_candidates=ORT_OPSETS):
    """A one-node model; tries the newest opset first. Raises Unsupported with ORT's reason."""
    last = None
    for opset in opset_candidates:
        node, in_shape, out_shape = node_fn(opset)
        x = helper.make_tensor_value_info("x", in_type, in_shape)
        ys = [helper.make_tensor_value_info(f"y{i}", t, out_shape) for i, t in enumerate(out_types)]
        graph = helper.make_graph([node], "peer", [x], ys)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="tensorcast-peers")
        model.ir_version = 11 if opset >= 24 else 10
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.log_severity_level = 3
        try:
            return ort.InferenceSession(model.SerializeToString(), so,
                                        providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001  (ORT raises several exception types)
            last = last or e  # the newest opset's reason (older ones may lack the type)
    msg = str(last).splitlines()[0]
    if "NOT_IMPLEMENTED" in msg:
        msg = "no CPU kernel (NOT_IMPLEMENTED)"
    raise Unsupported(f"ORT: {msg[:120]}")


def ort_cast_session(src, dst):
    return ort_session(lambda opset: (helper.make_node("Cast", ["x"], ["y0"], to=dst), [None],
                                      [None]), src, [dst])


def ort_split_session(axis, parts):
    return ort_session(lambda opset: (helper.make_node("Split", ["x"], [f"y{i}" for i in range(parts)],
                                                       axis=axis, num_outputs=parts),
                                      [None, None], [None, None]),
                       F32, [F32] * parts, opset_candidates=(18,))


def ort_cast_fn(src, dst, native, src_bytes, n):
    """(call, result) for ORT's Cast on our buffers, bound with IOBinding (no copies).
    STRING tensors are ORT-owned std::string arrays: a STRING output is allocated by ORT on
    every run; a STRING input cannot be bound from Python (ORT: "Only binding non-string
    Tensors is currently supported"), so string -> x runs sess.run(), which also converts the
    numpy str array into std::strings on every call (and allocates the output)."""
    sess = ort_cast_session(src, dst)
    if src == TP.STRING:
        feed = {"x": native}
        last = []

        def call():
            last[:] = sess.run(["y0"], feed)

        def result():
            return np.ascontiguousarray(last[0]).view(np.uint8).reshape(-1)
        call()
        return call, result
    io = sess.io_binding()
    io.bind_input("x", "cpu", 0, src, [n], ptr(src_bytes))
    if dst == TP.STRING:
        io.bind_output("y0", "cpu")
        dst_buf = None
    else:
        dst_buf = np.zeros(storage_bytes(dst, n), np.uint8)
        io.bind_output("y0", "cpu", 0, dst, [n], ptr(dst_buf))

    def call():
        sess.run_with_iobinding(io)

    def result():
        if dst == TP.STRING:
            # (io.copy_outputs_to_cpu() crashes on string outputs in ORT 1.31.)
            return [v.encode() for v in io.get_outputs()[0].numpy().reshape(-1).tolist()]
        return dst_buf
    call()
    return call, result


# --------------------------------------------------------------------------- pyarrow

def pyarrow_cast_fn(src, dst, native):
    """(call, result) for pyarrow.compute.cast of a pyarrow Array built here from the same input
    (not timed; STRING: from the list of Python str); call() allocates the result array, as
    compute.cast does; result() returns it in ONNX layout (bytes of a list for STRING).
    Numeric -> numeric casts run with safe=False (Arrow's default safe=True raises on lossy
    casts); STRING pairs with the default. Raises Unsupported with Arrow's reason."""
    if src == TP.STRING:
        arr = pa.array(native.tolist(), type=pa.string())
    else:
        arr = pa.array(native, type=ARROW_TYPES[src])
    target = ARROW_TYPES[dst]
    safe = TP.STRING in (src, dst)  # numeric -> numeric: safe=False
    cast = pc.cast

    def call():
        return cast(arr, target, safe=safe)

    def result():
        out = call()
        if dst == TP.STRING:
            return [v.encode() for v in out.to_pylist()]
        return onnx_bytes(out.to_numpy(zero_copy_only=False), dst)
    try:
        call()
    except pa.ArrowException as e:
        raise Unsupported(f"pyarrow: {str(e).splitlines()[0][:120]}") from None
    return call, result


# --------------------------------------------------------------------------- data

_BASE = {}


def base_normal(n):
    """N(0, 1) float32 values, the same for every pair of a size (seeded)."""
    if n not in _BASE:
        _BASE[n] = np.random.default_rng(SEED).standard_normal(n, dtype=np.float32)
    return _BASE[n]


def make_source(pair, n):
    """(native array for numpy / ml_dtypes, ONNX-layout uint8 bytes or None for STRING)."""
    f = base_normal(n) * np.float32(pair.scale)
    if pair.dst == TP.FLOAT8E8M0:
        f = np.abs(f)  # scales are positive; ml_dtypes gives NaN for negative inputs
    if pair.is_split:
        side = int(round(n ** 0.5))
        x = f[: side * side].reshape(side, side).copy()
        return x, x.view(np.uint8).reshape(-1)
    if pair.src == F32:
        return f, f.view(np.uint8)
    if pair.src == TP.DOUBLE:
        d = np.random.default_rng(SEED + 1).standard_normal(n)
        return d, d.view(np.uint8)
    if pair.src == TP.INT64:
        i = np.random.default_rng(SEED + 2).integers(-(1 << 40), 1 << 40, n, dtype=np.int64)
        return i, i.view(np.uint8)
    if pair.src == TP.STRING:
        # numpy's spelling (as a pipeline reading text would see) of the values a DOUBLE or INT64
        # source has when that is the destination, else of the f32 values.
        if pair.dst in (TP.DOUBLE, TP.INT64):
            f = make_source(Pair(pair.dst, TP.STRING), n)[0]
        return f.astype(str), None
    native = f.astype(TYPES[pair.src][2])
    return native, onnx_bytes(native, pair.src)


# --------------------------------------------------------------------------- one pair

@dataclass
class Row:
    pair: Pair
    n: int
    ns: dict = field(default_factory=dict)        # impl -> ns per call, or Unsupported text
    mismatch: dict = field(default_factory=dict)  # peer -> (count, n) or text
    memcpy_bytes: int = 0


def fmt_mismatch(v):
    if isinstance(v, str):
        return v
    count, n = v
    if count == 0:
        return "0"
    return f"{count} ({100.0 * count / n:.3g}%)"


def run_cast(pair, n, tc, args):
    row = Row(pair, n)
    native, src_bytes = make_source(pair, n)
    t = lambda fn: measure(fn, args.min_sample, args.samples)  # noqa: E731
    dst_dtype = TYPES[pair.dst][2]

    # numpy / ml_dtypes: the reference output for the cross-check.
    if pair.dst == TP.STRING:
        ref = native.astype(str)
    else:
        ref = native.astype(dst_dtype)
    row.ns["astype"] = t(lambda: native.astype(dst_dtype if pair.dst != TP.STRING else str))
    out_np = np.empty(n, ref.dtype)
    row.ns["copyto"] = t(lambda: np.copyto(out_np, native, casting="unsafe"))

    # tensorcast
    tc_out = None
    if tc is not None:
        try:
            fn, get = tc.cast_fn(pair.src, pair.dst, native, src_bytes, n)
            row.ns["tensorcast"] = t(fn)
            tc_out = get()
        except TcFailed as e:  # reported, not fatal: the run still shows the peers
            row.ns["tensorcast"] = f"n/a (tensorcast: {e})"

    # ONNX Runtime
    ort_out = None
    try:
        fn, get = ort_cast_fn(pair.src, pair.dst, native, src_bytes, n)
        row.ns["ORT"] = t(fn)
        ort_out = get()
    except Unsupported as e:
        row.ns["ORT"] = f"n/a ({e})"

    # pyarrow (no cell where Arrow lacks the source or destination type)
    pa_out = None
    if pair.has_arrow:
        try:
            fn, get = pyarrow_cast_fn(pair.src, pair.dst, native)
            row.ns["pyarrow"] = t(fn)
            pa_out = get()
        except Unsupported as e:
            row.ns["pyarrow"] = f"n/a ({e})"

    # memcpy of (source + destination bytes) / 2
    if pair.dst == TP.STRING:
        dst_nbytes = sum(len(s) for s in ref.tolist())
        src_nbytes = src_bytes.size
    elif pair.src == TP.STRING:
        src_nbytes = sum(len(s) for s in native.tolist())
        dst_nbytes = storage_bytes(pair.dst, n)
    else:
        src_nbytes, dst_nbytes = src_bytes.size, storage_bytes(pair.dst, n)
    row.memcpy_bytes = (src_nbytes + dst_nbytes) // 2
    row.ns["memcpy"] = memcpy_time(row.memcpy_bytes, t)

    # cross-check
    if tc_out is not None:
        if pair.dst == TP.STRING:
            want = [s.encode() for s in ref.tolist()]
            row.mismatch["ml_dtypes"] = (sum(a != b for a, b in zip(tc_out, want)), n)
            if ort_out is not None:
                row.mismatch["ORT"] = (sum(a != b for a, b in zip(tc_out, ort_out)), n)
            if pa_out is not None:
                row.mismatch["pyarrow"] = (sum(a != b for a, b in zip(tc_out, pa_out)), n)
        else:
            mine = element_codes(tc_out, pair.dst, n)
            theirs = element_codes(onnx_bytes(ref, pair.dst), pair.dst, n)
            row.mismatch["ml_dtypes"] = (int(np.count_nonzero(mine != theirs)), n)
            if ort_out is not None:
                other = element_codes(ort_out, pair.dst, n)
                row.mismatch["ORT"] = (int(np.count_nonzero(mine != other)), n)
            if pa_out is not None:
                other = element_codes(pa_out, pair.dst, n)
                row.mismatch["pyarrow"] = (int(np.count_nonzero(mine != other)), n)
    return row


_MEMCPY = {}


def memcpy_time(nbytes, t):
    if nbytes not in _MEMCPY:
        a = np.ones(nbytes, np.uint8)
        b = np.zeros(nbytes, np.uint8)
        pa, pb = ptr(a), ptr(b)
        _MEMCPY[nbytes] = t(lambda: ctypes.memmove(pb, pa, nbytes))
    return _MEMCPY[nbytes]


def run_split(pair, n, tc, args):
    row = Row(pair, n)
    x, _ = make_source(pair, n)
    n = x.size
    row.n = n
    t = lambda fn: measure(fn, args.min_sample, args.samples)  # noqa: E731
    views = np.split(x, pair.parts, axis=pair.axis)
    ref = [np.ascontiguousarray(v) for v in views]

    row.ns["astype"] = t(lambda: [p.copy() for p in np.split(x, pair.parts, axis=pair.axis)])
    outs_np = [np.empty_like(r) for r in ref]

    def copyto():
        for o, p in zip(outs_np, np.split(x, pair.parts, axis=pair.axis)):
            np.copyto(o, p)
    row.ns["copyto"] = t(copyto)

    tc_outs = None
    if tc is not None:
        tc_outs = [np.zeros_like(r) for r in ref]
        fn = tc.split_fn(x, pair.axis, tc_outs)
        row.ns["tensorcast"] = t(fn)

    ort_outs = None
    try:
        sess = ort_split_session(pair.axis, pair.parts)
        ort_outs = [np.zeros_like(r) for r in ref]
        io = sess.io_binding()
        io.bind_input("x", "cpu", 0, F32, list(x.shape), ptr(x))
        for i, o in enumerate(ort_outs):
            io.bind_output(f"y{i}", "cpu", 0, F32, list(o.shape), ptr(o))
        row.ns["ORT"] = t(lambda: sess.run_with_iobinding(io))
    except Unsupported as e:
        row.ns["ORT"] = f"n/a ({e})"

    row.memcpy_bytes = x.nbytes  # reads x.nbytes, writes x.nbytes
    row.ns["memcpy"] = memcpy_time(row.memcpy_bytes, t)

    if tc_outs is not None:
        bad = sum(int(np.count_nonzero(a.view(np.uint32) != b.view(np.uint32)))
                  for a, b in zip(tc_outs, ref))
        row.mismatch["ml_dtypes"] = (bad, n)
        if ort_outs is not None:
            bad = sum(int(np.count_nonzero(a.view(np.uint32) != b.view(np.uint32)))
                      for a, b in zip(tc_outs, ort_outs))
            row.mismatch["ORT"] = (bad, n)
    return row


def overhead_row(pair, tc, args):
    """Per-call cost on a 1-element tensor (same model / entry point)."""
    t = lambda fn: measure(fn, args.min_sample, args.samples)  # noqa: E731
    res = {}
    if pair.is_split:
        x = np.ones((pair.parts, pair.parts), np.float32)
        outs = [np.empty_like(v) for v in np.split(x, pair.parts, axis=pair.axis)]
        if tc is not None:
            res["tensorcast"] = t(tc.split_fn(x, pair.axis, outs))
        try:
            sess = ort_split_session(pair.axis, pair.parts)
            io = sess.io_binding()
            io.bind_input("x", "cpu", 0, F32, list(x.shape), ptr(x))
            for i, o in enumerate(outs):
                io.bind_output(f"y{i}", "cpu", 0, F32, list(o.shape), ptr(o))
            res["ORT"] = t(lambda: sess.run_with_iobinding(io))
        except Unsupported as e:
            res["ORT"] = f"n/a ({e})"
        res["astype"] = t(lambda: [p.copy() for p in np.split(x, pair.parts, axis=pair.axis)])
        return res
    native, src_bytes = make_source(pair, 1)
    dst_dtype = TYPES[pair.dst][2] if pair.dst != TP.STRING else str
    if tc is not None:
        try:
            fn, _ = tc.cast_fn(pair.src, pair.dst, native, src_bytes, 1)
            res["tensorcast"] = t(fn)
        except TcFailed as e:
            res["tensorcast"] = f"n/a (tensorcast: {e})"
    try:
        res["ORT"] = t(ort_cast_fn(pair.src, pair.dst, native, src_bytes, 1)[0])
    except Unsupported as e:
        res["ORT"] = f"n/a ({e})"
    if pair.has_arrow:
        try:
            res["pyarrow"] = t(pyarrow_cast_fn(pair.src, pair.dst, native)[0])
        except Unsupported as e:
            res["pyarrow"] = f"n/a ({e})"
    res["astype"] = t(lambda: native.astype(dst_dtype))
    return res


# --------------------------------------------------------------------------- report

IMPLS = ["tensorcast", "ORT", "pyarrow", "astype", "copyto", "memcpy"]
PEERS = ["ORT", "pyarrow", "astype", "copyto"]
# Cross-checked peers: Row.mismatch key -> column title.
CHECKED = {"ml_dtypes": "ml_dtypes/numpy", "ORT": "ORT", "pyarrow": "pyarrow"}


def num(v, digits=3):
    if isinstance(v, str):
        return v
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}g}"


def machine():
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def versions(tc):
    out = [f"Python {platform.python_version()}"]
    for pkg in ("numpy", "ml_dtypes", "onnx", "onnxruntime", "pyarrow", "matplotlib"):
        try:
            out.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            out.append(f"{pkg} (not installed)")
    if tc is not None:
        out.insert(0, f"tensorcast {tc.version()} (Highway target {tc.active_target()})")
    return ", ".join(out)


def render(rows, overheads, tc, args, elapsed):
    lines = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines.append("## tensorcast vs ONNX Runtime, pyarrow, ml_dtypes and numpy (one thread)")
    lines.append("")
    lines.append(f"- Machine: {machine()}")
    lines.append(f"- Date: {now}; run took {elapsed:.0f} s")
    lines.append(f"- Versions: {versions(tc)}")
    lines.append(f"- Command: `{' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}`")
    lines.append("- ns/element: median of " f"{args.samples} samples (each >= {args.min_sample * 1e3:.0f} ms)."
                 " x memcpy = t_memcpy / t (memcpy of (src + dst bytes) / 2, same run);"
                 " peer/tc = t_peer / t_tensorcast (> 1: tensorcast faster)."
                 " astype and pyarrow (compute.cast) allocate their result (as users call"
                 " them), copyto writes a preallocated array; tensorcast and ORT (IOBinding)"
                 " write preallocated buffers.")
    lines.append("- Mismatches: elements whose bits differ from tensorcast's output.")
    lines.append("")
    head = (["pair", "elements"] + [f"{i} ns/el" for i in IMPLS]
            + ["tc x memcpy"] + [f"{p} x memcpy" for p in PEERS]
            + [f"{p}/tc" for p in PEERS] + [f"mismatch vs {c}" for c in CHECKED.values()])
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    footnotes = {}

    def cell_ns(row, impl):
        v = row.ns.get(impl)
        if v is None:
            return "-"
        if isinstance(v, str):
            key = v
            if key not in footnotes:
                footnotes[key] = len(footnotes) + 1
            return f"n/a [{footnotes[key]}]"
        return num(v / row.n)

    for row in rows:
        ns = row.ns
        cells = [row.pair.label, f"{row.n:,}"]
        cells += [cell_ns(row, i) for i in IMPLS]
        mem = ns.get("memcpy")
        for impl in ["tensorcast"] + PEERS:
            v = ns.get(impl)
            cells.append(num(mem / v, 3) if isinstance(v, float) and isinstance(mem, float) else "-")
        tcv = ns.get("tensorcast")
        for impl in PEERS:
            v = ns.get(impl)
            cells.append(num(v / tcv, 3) if isinstance(v, float) and isinstance(tcv, float) else "-")
        for peer in CHECKED:
            cells.append(fmt_mismatch(row.mismatch[peer]) if peer in row.mismatch else "-")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for text, i in footnotes.items():
        lines.append(f"[{i}] {text}")
    if footnotes:
        lines.append("")
    notes = []
    for p in PAIRS:
        if p.note and any(r.pair is p for r in rows):
            notes.append(f"- {p.label}: {p.note}")
    if notes:
        lines.append("Known differences (by definition, not errors):")
        lines.append("")
        lines += notes
        lines.append("- i4 / f4e2m1: astype / copyto work on ml_dtypes' unpacked layout (1 byte per "
                     "element); tensorcast and ORT on ONNX's packed layout (2 per byte).")
        lines.append("- STRING pairs run at --string-sizes elements (default 64K and 16M). "
                     "ORT's Python binding cannot bind a string input: string -> x runs "
                     "`sess.run`, which converts the numpy str array to std::strings and "
                     "allocates the output on every call. x -> string: ORT allocates its "
                     "string output per run; tensorcast writes a caller arena with room for "
                     "every text at its longest (33 bytes per element), which it fills in one "
                     "pass.")
        lines.append("")
    if any("pyarrow" in r.ns for r in rows):
        lines.append("pyarrow:")
        lines.append("")
        lines.append("- `pyarrow.compute.cast(arr, target_type)` of a pyarrow Array built once "
                     "from the same input (not timed; STRING inputs: `pa.array(list of str, "
                     "type=pa.string())` of the texts tensorcast parses); `pa.set_cpu_count(1)`, "
                     "`pa.set_io_thread_count(1)`. `-`: Arrow has no bfloat16, float8, float4, "
                     "int4 or e8m0 type, and no Split.")
        lines.append("- Numeric pairs run with `safe=False`: Arrow's default `safe=True` refuses "
                     "lossy casts with ArrowInvalid (f32 -> i8 of a value with a fraction: "
                     "\"was truncated\"; i64 -> f32 of an integer beyond 2^24: \"not in "
                     "range\"). With `safe=False` float -> integer truncates toward zero like "
                     "ONNX, but out-of-range values and NaN are a C++ static_cast (undefined; on "
                     "x86 300.0 -> i8 44, NaN -> 0) where tensorcast saturates (docs/semantics.md)"
                     "; the inputs here stay in range. STRING pairs use the default `safe=True` "
                     "(a text that does not parse raises either way).")
        lines.append("")
    lines.append("### Per-call overhead (1-element tensor, µs per call)")
    lines.append("")
    lines.append("| pair | tensorcast (ctypes) | ORT (run_with_iobinding) | pyarrow (compute.cast) "
                 "| astype |")
    lines.append("|---|---:|---:|---:|---:|")
    for label, res in overheads:
        cells = [label]
        for impl in ("tensorcast", "ORT", "pyarrow", "astype"):
            v = res.get(impl)
            cells.append("-" if v is None else (v if isinstance(v, str) else num(v / 1e3)))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


def chart(rows, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    str_sizes = sorted({r.n for r in rows if r.pair.has_string})
    # A run of string pairs only (--pairs string) charts them by their own sizes.
    sizes = sorted({r.n for r in rows if not r.pair.has_string}) or str_sizes
    groups = []
    for i, size in enumerate(sizes):
        sel = [r for r in rows if (r.n == size and not r.pair.has_string)
               or (r.pair.has_string and i < len(str_sizes) and r.n == str_sizes[i])]
        groups.append((size, sel))
    colors = {"tensorcast": "#1f77b4", "ORT": "#d62728", "pyarrow": "#ff7f0e",
              "astype": "#2ca02c", "copyto": "#98df8a", "memcpy": "#7f7f7f"}
    fig, axes = plt.subplots(len(groups), 1, figsize=(18, 5.5 * len(groups)), squeeze=False)
    for ax, (size, sel) in zip(axes[:, 0], groups):
        width = 0.8 / len(IMPLS)
        for k, impl in enumerate(IMPLS):
            xs, ys = [], []
            for j, r in enumerate(sel):
                v = r.ns.get(impl)
                x = j + (k - (len(IMPLS) - 1) / 2) * width
                if isinstance(v, float):
                    xs.append(x)
                    ys.append(v / r.n)
                elif isinstance(v, str):
                    ax.annotate("n/a", (x, 0), xycoords=("data", "axes fraction"),
                                xytext=(0, 3), textcoords="offset points", rotation=90,
                                ha="center", va="bottom", fontsize=7, color=colors[impl])
            ax.bar(xs, ys, width, label=impl, color=colors[impl])
        ax.set_yscale("log")
        ax.set_ylabel("ns / element (log)")
        labels = [r.pair.label + (f"\n({r.n // 1024}K)" if r.pair.has_string else "") for r in sel]
        ax.set_xticks(range(len(sel)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_title(f"{size:,} elements ({size // 1024}K), one thread")
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(ncol=len(IMPLS), fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --------------------------------------------------------------------------- main

def default_lib():
    for cand in ("build/lib/libtensorcast_c.so", "build/libtensorcast_c.so"):
        if (ROOT / cand).exists():
            return ROOT / cand
    return ROOT / "build/lib/libtensorcast_c.so"


def parse_sizes(text):
    out = []
    for s in text.split(","):
        s = s.strip().upper()
        mult = 1
        if s.endswith("K"):
            mult, s = 1 << 10, s[:-1]
        elif s.endswith("M"):
            mult, s = 1 << 20, s[:-1]
        out.append(int(s) * mult)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", type=Path, default=None,
                    help="libtensorcast_c.so (default: build/lib/libtensorcast_c.so)")
    ap.add_argument("--no-tensorcast", action="store_true",
                    help="peers only (no C library needed)")
    ap.add_argument("--sizes", default="64K,16M", help="element counts (default 64K,16M)")
    ap.add_argument("--string-sizes", default="64K,16M",
                    help="element counts of the STRING pairs (default 64K,16M, as the other pairs;"
                         " 16M strings take a few minutes and ~4 GB)")
    ap.add_argument("--pairs", default="",
                    help="comma-separated substrings of pair labels to run (default: all)")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--min-sample", type=float, default=0.02, help="seconds per sample")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 4K and 64K elements, 3 samples of 5 ms")
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results",
                    help="directory for peers.md and peers.png (default bench/results)")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.string_sizes = "4K,64K", "4K,16K"
        args.samples, args.min_sample = 3, 0.005

    tc = None
    if not args.no_tensorcast:
        lib = args.lib or default_lib()
        try:
            tc = Tensorcast(lib)
        except OSError as e:
            sys.exit(f"peers.py: cannot load {lib}: {e}\n"
                     "  build it (tools/dev.sh peers does) or pass --lib PATH / --no-tensorcast")

    sizes, str_sizes = parse_sizes(args.sizes), parse_sizes(args.string_sizes)
    wanted = [w.strip().lower() for w in args.pairs.split(",") if w.strip()]
    pairs = [p for p in PAIRS if not wanted or any(w in p.label.lower() for w in wanted)]
    start = time.perf_counter()
    rows, overheads = [], []
    for i, size in enumerate(sizes):
        for p in pairs:
            if p.has_string:
                if i >= len(str_sizes):
                    continue
                n = str_sizes[i]
            else:
                n = size
            t0 = time.perf_counter()
            row = (run_split if p.is_split else run_cast)(p, n, tc, args)
            rows.append(row)
            short = "  ".join(f"{k} {num(v / row.n) if isinstance(v, float) else 'n/a'}"
                              for k, v in row.ns.items())
            print(f"[{time.perf_counter() - start:6.1f}s] {p.label:24s} {row.n:>9,}  {short}  "
                  f"({time.perf_counter() - t0:.1f}s)", file=sys.stderr, flush=True)
    for p in pairs:
        overheads.append((p.label, overhead_row(p, tc, args)))
    elapsed = time.perf_counter() - start

    text = render(rows, overheads, tc, args, elapsed)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "peers.md").write_text(text)
    png = args.out / "peers.png"
    chart(rows, png, f"{machine()}; {datetime.date.today()}; {versions(tc)}")
    print(text)
    print(f"wrote {args.out / 'peers.md'} and {png}", file=sys.stderr)


if __name__ == "__main__":
    main()
