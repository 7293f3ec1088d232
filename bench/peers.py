#!/usr/bin/env python3
"""tensorcast next to ONNX Runtime, pyarrow, ml_dtypes and numpy, on the same data, in one run.

    scripts/dev.sh peers [ARGS]     # builds libtensorcast_c.so, installs the peers and the
                                  # package into build/peers-venv, runs this with
                                  # --lib build/lib/libtensorcast_c.so ARGS
    build/peers-venv/bin/python bench/peers.py [--lib build/lib/libtensorcast_c.so] [--quick]
        [--pairs f16,split] [--out DIR]
    scripts/dev.sh peers --pairs qdq          # the QuantizeLinear / DequantizeLinear rows only
    scripts/dev.sh peers --pairs mx           # the block-scaled rows (MX, NVFP4, absmax) only

tensorcast is called through its Python package (`import tensorcast as tc`, pip install .),
which must be importable by the Python running this. Every implementation runs on one
thread on the same seeded input:

  tensorcast   the main column: the package with a preallocated result,
               `tc.cast(x, to, out=preallocated, threads=1)`. Packed targets (i4, f4e2m1):
               `packed=True` into a preallocated uint8 buffer, ONNX's layout (two elements per
               byte), the layout ORT and the C API write. STRING: x and out are numpy
               StringDType arrays. Split: `tc.split(x, sizes, axis=axis, threads=1)`, which
               allocates its parts (the package has no out= for Split).
  tc alloc     `tc.cast(x, to, threads=1)`, the package's allocating call, as astype is
               called; its result is the package's default, so packed targets come back
               unpacked (ml_dtypes, one element per byte), the layout astype returns. Split:
               the tensorcast column's call, shown again (it allocates).
  tc Arrow     `tc.cast(arrow_array, to, threads=1)` of the pyarrow Array pyarrow casts, for
               the pairs pyarrow has: an Arrow array in, an Arrow array out (STRING: Arrow
               utf8), the call that compares with pyarrow.compute.cast.
  C API        only with --lib: tc_cast / tc_split of include/tensorcast/tensorcast_c.h via
               ctypes into preallocated buffers in ONNX's layout. STRING input: views of one
               fixed-width bytes buffer; STRING output: an arena with room for every text at
               its longest (33 bytes per element, the bound of tensorcast_c.h), which
               tensorcast fills in one pass. "tc/C API" (the tensorcast column over this
               one) is the cost of the package's Python layer on the same data; the package's
               target is <= 1.05 at 16M elements for numeric pairs.
  ORT          ONNX Runtime CPU: a one-node Cast / Split model built in memory (onnx.helper),
               intra_op_num_threads = inter_op_num_threads = 1, sequential execution, input and
               outputs bound to preallocated buffers with IOBinding (no copies), timed around
               run_with_iobinding. Its per-call overhead is in the ns/element (see the
               overhead table).
  pyarrow      `pyarrow.compute.cast(arr, target_type)` of a pyarrow Array built once (not
               timed) from the same input (STRING: from the StringDType array); it allocates
               its result on every call. pa.set_cpu_count(1) and pa.set_io_thread_count(1).
               Numeric pairs run with safe=False: Arrow's default safe=True raises
               ArrowInvalid on lossy casts (f32 -> i8 of a value with a fraction, i64 -> f32
               of an integer beyond 2^24). With safe=False float -> integer truncates toward
               zero, and out-of-range values and NaN are a C++ static_cast (undefined; on x86
               300.0 -> i8 44), where ONNX / tensorcast saturate. STRING pairs use the default
               (a text that does not parse raises with either). Types Arrow lacks (bfloat16,
               float8, float4, int4, e8m0) and Split have no pyarrow cell ("-").
  astype       numpy / ml_dtypes `x.astype(dst_dtype)`, as users write it: it allocates its
               result on every call (STRING: StringDType). Split:
               `[p.copy() for p in np.split(x, parts, axis)]`.
  copyto       `np.copyto(preallocated, x, casting="unsafe")` (Split: np.copyto of each
               np.split view), i.e. the same conversion without the allocation.
  memcpy       ctypes.memmove of (source bytes + destination bytes) / 2, the definition of
               bench/kernel_bench.cc: a copy that reads + writes as many bytes as the cast.

Times are the median of --samples samples; a sample repeats the call until it lasts at least
--min-sample seconds (after one warm-up call). "x memcpy" is t_memcpy / t_impl (1.0 = as fast
as memcpy of the same bytes). Ratios compare calls that do the same work, t_peer / t_tc
(> 1: tensorcast is faster): ORT/tc and copyto/tc against the tensorcast column (all write
preallocated buffers), astype/tc alloc (both allocate and return the same layout),
pyarrow/tc Arrow (both take and allocate an Arrow array).

Layouts: ml_dtypes keeps 4-bit types unpacked (one byte per element), ONNX packs two per
byte. Packed targets: see the tensorcast and tc alloc columns; copyto writes the unpacked
layout. Packed sources (i4 -> f32, f4e2m1 -> f32): the package takes the unpacked ml_dtypes
array astype reads and packs it before the cast (it has no packed-input form), while the C
API and ORT read the packed bytes, so tc/C API there includes a packing pass. STRING pairs
have their own sizes (--string-sizes, default 64K and 16M like the others) because every
implementation is 100-1000x slower there.

The cross-check counts elements whose bits (STRING: texts) differ from the tensorcast
column's output: ml_dtypes / numpy (astype), ORT, pyarrow, and the other tensorcast calls
(tc alloc, tc Arrow, C API: one library, so any difference is a bug and is named). Some
differences from the peers are by definition (README "Differences from the ONNX
reference", docs/semantics.md, section 11): they are reported, never fatal.

The per-call overhead table times one call on tiny arrays (--overhead-sizes, default 1, 16
and 1024 elements) for a few pairs (--overhead-pairs): every implementation above except
memcpy, each called as in the main table.

QuantizeLinear / DequantizeLinear rows (QDQ, their own table and chart panels; `--pairs qdq`
selects them all, label substrings such as `ql`, `dq i4`, `block` some): x is the same
seeded N(0, 1) FLOAT data as a [n / 4096, 4096] tensor (at least one row).
  rows         QL FLOAT -> INT8 and UINT8 (with zero points: the scale's shape, INT8
               U{-4..4}, UINT8 128 + U{-4..4}), FLOAT8E4M3FN, INT4 and FLOAT4E2M1 (no zero
               point; the node's output_dtype), each per tensor, per axis (axis 0: a scale
               per row; axis 1: a scale per column) and blocked (block_size 32 along the
               last axis); DQ of the same types back to FLOAT, per tensor and blocked.
               Scales: per tensor 4 / qmax (qmax 127, 127, 448, 7, 6: the few |x| > 4
               saturate); per axis and blocked max|x| of the slice / qmax. DQ's input is
               numpy's QL of x (float types clipped to +-qmax first).
  C API        tc_quantize_linear / tc_dequantize_linear (opset 28, the library's default)
               via ctypes (argtypes set, pointers as c_void_p) into a preallocated buffer in
               ONNX's layout (INT4 / FLOAT4E2M1 packed two per byte). The reference of the
               QDQ cross-check. Without --lib its cells say so.
  package      only when the installed package has tc.quantize_linear (it is newer than
               this script): `tc.quantize_linear(x, s, zp, axis=, block_size=,
               output_dtype=, out=preallocated, threads=1)` (packed=True into uint8 bytes for
               4-bit types) and `tc.dequantize_linear(q, s, zp, ..., out=, threads=1)` (q
               unpacked: the package has no packed input). Otherwise the column is left out.
  ORT          a one-node QuantizeLinear / DequantizeLinear model at the newest opset ORT
               takes (ORT_OPSETS: 25; 26-27 would run the same QuantizeLinear-25), x, scale
               and zero point as graph inputs, all bound with IOBinding to our buffers (ONNX's
               packed layout for 4-bit types). ONNX Runtime 1.32's CPU provider runs every
               blocked row here (INT8, UINT8, FLOAT8E4M3FN, INT4; QL and DQ) and every
               per-axis one; it has no FLOAT4E2M1 kernel at any granularity: NOT_IMPLEMENTED
               (at opsets 23-25; 21 lacks the type) shows as "-" in the QDQ table.
  numpy        the operator written out as users write it (allocating): integers
               `np.clip(np.rint(x / s) + zp, lo, hi).astype(dtype)`, float8 / float4
               `(x / s).astype(ml_dtypes type)` (ml_dtypes' own overflow rule: FLOAT8E4M3FN
               gives NaN from |x / s| >= 464 where ONNX saturates to 448; counted, not
               hidden), DQ `(q.astype(np.float32) - zp) * s` (no zero point: no +/- zp);
               per-axis and blocked scales broadcast through reshaped views (blocked: x as
               [rows, 128, 32], s as [rows, 128, 1]). ml_dtypes' unpacked 4-bit layout.
  memcpy       of (x + scale + zero point + y bytes) / 2.
The QDQ cross-check counts elements whose bits differ from the C API's output (ORT, numpy,
the package). The per-call overhead table has Cast and Split pairs only.

Block-scaled rows ("MX", quantization with the scales computed, include/tensorcast/
block_scale.h; their own table and chart panels; `--pairs mx` selects them all, label
substrings `mxfp`, `nvfp4`, `absmax` some; a run without --pairs has them, as it has the QDQ
rows): x is the QDQ rows' [n / 4096, 4096] FLOAT tensor, blocks along the last axis.
  rows         MXFP8 e4m3: FLOAT8E4M3FN codes + one FLOAT8E8M0 scale per 32 elements, the
               OCP MX v1.0 floor rule (e = floor(log2(amax)) - 8, clamped to [-127, 127]);
               MXFP4 e2m1: FLOAT4E2M1 codes (emax 2) + E8M0 scales the same way; NVFP4 e2m1:
               FLOAT4E2M1 codes + one FLOAT8E4M3FN scale per 16 elements + the computed FLOAT
               tensor scale g; absmax i8: INT8 codes + one FLOAT scale per tensor.
  C API        tc_quantize_mx (TC_FORMAT_MXFP8_E4M3 / TC_FORMAT_MXFP4, TC_SCALE_FLOOR, block
               32) / tc_quantize_nvfp4 (g computed) / tc_quantize_absmax (INT8, per tensor)
               via ctypes, NULL runner (one thread), into preallocated codes (FLOAT4E2M1
               packed two per byte) and scales. The reference of the cross-check; a library
               without these functions says so in its cells, and without --lib they say
               "pass --lib".
  package      only when the installed package has tc.quantize_mx (newer than this
               script): `tc.quantize_mx(x, "mxfp8_e4m3" | "mxfp4", block_size=32,
               out=, scales_out=, threads=1)` (MXFP4 packed=True into uint8 bytes),
               `tc.quantize_nvfp4(x, packed=True, out=, scales_out=, threads=1)`,
               `tc.quantize_absmax(x, INT8, out=, threads=1)`; scales_out ml_dtypes
               float8_e8m0fnu (MX) / float8_e4m3fn (NVFP4). Otherwise the column is left out.
  ORT          QuantizeLinear with the scales PRECOMPUTED (the C API's, numpy's without
               --lib; once, outside the timing: its time is the codes alone, not the
               scales), x and the scales graph inputs bound with IOBinding, output_dtype the
               codes' type, blocked rows axis 1 and block_size 32 / 16. MX rows try the E8M0
               scale codes first (FLOAT8E8M0 scale input, precision FLOAT, opset 25), then
               the same scales decoded to FLOAT (2^e, exact; opsets ORT_OPSETS); NVFP4 binds
               the FLOAT block scales S = E4M3 value * g its codes are QuantizeLinear of;
               absmax the FLOAT scale. ONNX Runtime 1.32's CPU provider: no kernel with a
               FLOAT8E8M0 scale (NOT_IMPLEMENTED), so MXFP8 runs with FLOAT scales; no
               FLOAT4E2M1 output at all (NOT_IMPLEMENTED, as in the QDQ rows), so MXFP4 and
               NVFP4 show "-"; absmax i8 runs. The "ORT scales" column names the scale input
               ORT took.
  numpy        the rules written out as users write them (vectorized numpy + ml_dtypes,
               allocating; codes unpacked, one per byte). MX: x as [rows, 128, 32],
               amax = np.abs(x).max(-1, keepdims=True), e = np.clip(np.floor(np.log2(amax))
               - emax, -127, 127) (log2(0) = -inf clips to -127), scale = np.exp2(e),
               codes = np.clip(x / scale, -M, M).astype(float8_e4m3fn | float4_e2m1fn),
               scales (e + 127).astype(uint8). NVFP4: g = max(np.abs(x).max() / 2688,
               2^-126) (1 for an all-zero x), s = np.clip(amax_b / (6 * g), 2^-9,
               448).astype(float8_e4m3fn), codes = np.clip(x / (s * g), -6, 6).astype(
               float4_e2m1fn). absmax: s = max(np.abs(x).max() / 127, 2^-126),
               np.clip(np.rint(x / s), -128, 127).astype(int8). Where numpy's bits differ
               from the library's by construction: np.log2 in float32 rounds up to k for
               float32 amax a few ulps below 2^k (k <= -2 or k >= 3: e one too large;
               practically never with 32 N(0, 1) values); NVFP4's block scale rounds three
               times in numpy (6 * g, the float32 quotient, E4M3) where the library rounds
               the exact quotient once: a float32 quotient on an E4M3 midpoint (168.0
               between 160 and 176) from an exact one just off it goes the other way (3 of
               the 1,048,576 block scales at 16M elements, and 10 codes of their blocks);
               NaN or infinity (none in this data): numpy's scale of a NaN block is
               `(NaN + 127).astype(uint8)` (0 on x86), of an infinite block 0xFE, where the
               library writes the NaN scale 0xFF, and np.abs(x).max() takes them into
               NVFP4's / absmax's tensor scale, which the library leaves them out of.
  memcpy       of (x + codes (packed) + scales (+ g) bytes) / 2.
The MX cross-check counts elements whose bits differ from the C API's output, per part
(codes, scales, NVFP4's tensor scale; ORT: the codes, its scales being an input), in the
table and one line per row under it; reported, never fatal.

Writes peers.md (tables, machine, date, versions) and peers.png (bar chart, log-scale
ns/element) into the --out directory (default bench/results); prints the markdown to stdout.
"""

import os

# One thread everywhere, before numpy (and its BLAS) is imported.
for _var in (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "BLIS_NUM_THREADS",
):
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
# --string-magnitudes K: the values behind the STRING pairs are N(0, 1) x 10^U{-K..K} (0: N(0, 1)).
STRING_MAGNITUDES = 0

# The numpy dtype of texts: StringDType (numpy >= 2), as the package returns them; object
# arrays of str on numpy 1.
STRING_DTYPE = getattr(getattr(np, "dtypes", None), "StringDType", lambda: np.dtype(object))()

# ONNX element type -> (short name, bits per element, numpy / ml_dtypes dtype).
TYPES = {
    TP.FLOAT: ("f32", 32, np.dtype(np.float32)),
    TP.DOUBLE: ("f64", 64, np.dtype(np.float64)),
    TP.FLOAT16: ("f16", 16, np.dtype(np.float16)),
    TP.BFLOAT16: ("bf16", 16, np.dtype(ml_dtypes.bfloat16)),
    TP.INT8: ("i8", 8, np.dtype(np.int8)),
    TP.UINT8: ("u8", 8, np.dtype(np.uint8)),
    TP.INT64: ("i64", 64, np.dtype(np.int64)),
    TP.FLOAT8E4M3FN: ("e4m3fn", 8, np.dtype(ml_dtypes.float8_e4m3fn)),
    TP.FLOAT8E4M3FNUZ: ("e4m3fnuz", 8, np.dtype(ml_dtypes.float8_e4m3fnuz)),
    TP.FLOAT8E5M2: ("e5m2", 8, np.dtype(ml_dtypes.float8_e5m2)),
    TP.FLOAT8E5M2FNUZ: ("e5m2fnuz", 8, np.dtype(ml_dtypes.float8_e5m2fnuz)),
    TP.FLOAT8E8M0: ("e8m0", 8, np.dtype(ml_dtypes.float8_e8m0fnu)),
    TP.FLOAT4E2M1: ("f4e2m1", 4, np.dtype(ml_dtypes.float4_e2m1fn)),
    TP.INT4: ("i4", 4, np.dtype(ml_dtypes.int4)),
    TP.STRING: ("string", 0, STRING_DTYPE),
}

# ONNX element type -> Arrow type, for the types Arrow has (pyarrow.compute.cast converts between
# any two of them). BFLOAT16, the float8 formats, FLOAT4E2M1, FLOAT8E8M0 and the 4- and 2-bit
# integers have no Arrow type: their pairs have no pyarrow cell.
ARROW_TYPES = {
    TP.FLOAT: pa.float32(),
    TP.DOUBLE: pa.float64(),
    TP.FLOAT16: pa.float16(),
    TP.INT8: pa.int8(),
    TP.INT16: pa.int16(),
    TP.INT32: pa.int32(),
    TP.INT64: pa.int64(),
    TP.UINT8: pa.uint8(),
    TP.UINT16: pa.uint16(),
    TP.UINT32: pa.uint32(),
    TP.UINT64: pa.uint64(),
    TP.BOOL: pa.bool_(),
    TP.STRING: pa.string(),
}


def storage_bytes(code, n):
    return (n * TYPES[code][1] + 7) // 8


def is_packed(code):
    return TYPES[code][1] == 4


@dataclass
class Pair:
    src: int
    dst: int
    scale: float = 1.0  # f32 source values: N(0, 1) * scale
    note: str = ""  # known, documented differences (shown under the table)
    axis: int = -1  # Split only
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
ARROW_FLOAT_TEXT = (
    "pyarrow writes the shortest round-trip digits too, in its own spelling: `1` "
    "for `1.0`, positional from 1e-6 on (`0.00001` for `1e-05`), one-digit "
    "exponents (`3e-7` for `3e-07`), so the few such values differ from pyarrow."
)
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
    Pair(
        F32,
        TP.FLOAT8E8M0,
        note="ONNX's default round_mode is `up` (tensorcast, ORT); ml_dtypes rounds to "
        "nearest, so about half of the values differ from ml_dtypes by definition.",
    ),
    Pair(F32, TP.FLOAT4E2M1),
    Pair(TP.FLOAT4E2M1, F32),
    Pair(
        F32,
        TP.INT4,
        scale=1.4,
        note="ONNX: float -> int4 truncates toward zero (tensorcast, ml_dtypes); ORT rounds "
        "(std::roundf), so values with |fraction| >= 0.5 differ from ORT.",
    ),
    Pair(TP.INT4, F32),
    Pair(
        F32,
        TP.STRING,
        note='ORT formats with printf("%.8g"); tensorcast and numpy use the shortest '
        "round-trip spelling of numpy < 2.3, so most strings differ from ORT's. "
        + ARROW_FLOAT_TEXT,
    ),
    Pair(TP.STRING, F32),
    Pair(
        TP.DOUBLE,
        TP.STRING,
        note='ORT formats DOUBLE with printf("%.8g") too (0.1 + 0.2 -> `0.3`); tensorcast '
        "and numpy write the shortest round-trip spelling (`0.30000000000000004`), so most "
        "strings differ from ORT's. " + ARROW_FLOAT_TEXT,
    ),
    Pair(TP.STRING, TP.DOUBLE),
    Pair(TP.INT64, TP.STRING),
    Pair(TP.STRING, TP.INT64),
    Pair(F32, F32, axis=0),
    Pair(F32, F32, axis=1),
]
# Pairs of the per-call overhead table (labels), unless --overhead-pairs says otherwise.
OVERHEAD_PAIRS = "f32 -> f16,f32 -> e4m3fn,f32 -> string,string -> f32,Split f32 axis 0 /4"

# --------------------------------------------------------------------------- QDQ rows

QDQ_COLS = 4096  # x is a [max(1, n // 4096), 4096] FLOAT tensor
QDQ_BLOCK = 32  # blocked rows: blocks of 32 along the last axis (axis 1)
# Quantized type -> (zero point: None = no zero point input (y's type from the node's
# output_dtype), else the centre the zero points are drawn around (+-4); the |q| a scale maps
# the largest |x| of its slice to).
QDQ_TYPES = {
    TP.INT8: (0, 127),
    TP.UINT8: (128, 127),
    TP.FLOAT8E4M3FN: (None, 448.0),
    TP.INT4: (None, 7),
    TP.FLOAT4E2M1: (None, 6.0),
}
INT_RANGES = {TP.INT8: (-128, 127), TP.UINT8: (0, 255), TP.INT4: (-8, 7)}
QDQ_TENSOR_RANGE = 4.0  # per tensor: the scale maps |x| = 4 (4 sigma) to the largest |q|
QDQ_GRANULARITY = {"tensor": "per tensor", "axis": "axis {axis}", "block": f"block {QDQ_BLOCK}"}


@dataclass
class QdqPair:
    """A QuantizeLinear (FLOAT -> qtype) or DequantizeLinear (qtype -> FLOAT) row."""

    op: str  # "QL" or "DQ"
    qtype: int
    gran: str  # "tensor", "axis" (per axis) or "block" (blocked, QDQ_BLOCK along axis 1)
    axis: int = 1
    group = "qdq"  # `--pairs qdq` selects every QDQ row (class attributes, not fields)
    is_split = False
    has_string = False
    has_arrow = False

    @property
    def label(self):
        gran = QDQ_GRANULARITY[self.gran].format(axis=self.axis)
        return f"{self.op} {TYPES[self.qtype][0]} {gran}"

    @property
    def src(self):
        return F32 if self.op == "QL" else self.qtype

    @property
    def dst(self):
        return self.qtype if self.op == "QL" else F32


def qdq_pairs():
    out = []
    for t in QDQ_TYPES:
        out += [
            QdqPair("QL", t, "tensor"),
            QdqPair("QL", t, "axis", axis=0),
            QdqPair("QL", t, "axis", axis=1),
            QdqPair("QL", t, "block"),
        ]
    for t in QDQ_TYPES:
        out += [QdqPair("DQ", t, "tensor"), QdqPair("DQ", t, "block")]
    return out


QDQ_PAIRS = qdq_pairs()
# Notes under the QDQ table: (label prefix, text), shown when a row's label starts with the
# prefix (differences by definition and gaps of the peers).
QDQ_NOTES = [
    (
        "QL e4m3fn",
        "QL e4m3fn: ONNX QuantizeLinear saturates float8 outputs (saturate=1: tensorcast "
        "and ORT give +-448, 0x7E / 0xFE); ml_dtypes' astype gives NaN (0x7F / 0xFF) from "
        "|x / s| >= 464 on, so the per-tensor row's few |x| > 4.14 differ from numpy by "
        "definition (per-axis and blocked scales map max|x| to 448: none there).",
    ),
]


# --------------------------------------------------------------------------- MX rows

# Block-scaled quantization with the scales computed (include/tensorcast/block_scale.h): x is
# the QDQ rows' [max(1, n // 4096), 4096] FLOAT tensor, blocks along the last axis.
TC_SCALE_FLOOR = 0  # tc_block_scale_options.scale_rule: the OCP MX v1.0 rule
E4M3_MIN = 2.0**-9  # FLOAT8E4M3FN's smallest subnormal (NVFP4's smallest block scale, 0x01)
FLOAT_MIN = 2.0**-126  # the floor of computed FLOAT scales (NVFP4 tensor scale, absmax)


@dataclass(frozen=True)
class MxSpec:
    label: str
    fmt: int  # TC_FORMAT_* of tensorcast_c.h (0: absmax, which takes a code type)
    name: str  # the format's name (tc_block_format_name), the package's fmt argument
    code_type: int  # the codes' ONNX type
    scale_type: int  # the scales' ONNX type: FLOAT8E8M0 (MX), FLOAT8E4M3FN (NVFP4), FLOAT
    block: int  # elements per scale along the last axis; 0: one scale per tensor
    emax: int  # MX: the exponent of the element format's largest value
    qmax: float  # the element format's largest value


MX_SPECS = {
    "mxfp8_e4m3": MxSpec(
        "MXFP8 e4m3", 1, "mxfp8_e4m3", TP.FLOAT8E4M3FN, TP.FLOAT8E8M0, 32, 8, 448.0
    ),
    "mxfp4": MxSpec("MXFP4 e2m1", 5, "mxfp4", TP.FLOAT4E2M1, TP.FLOAT8E8M0, 32, 2, 6.0),
    "nvfp4": MxSpec("NVFP4 e2m1", 6, "nvfp4", TP.FLOAT4E2M1, TP.FLOAT8E4M3FN, 16, 0, 6.0),
    "absmax": MxSpec("absmax i8", 0, "absmax", TP.INT8, F32, 0, 0, 127.0),
}


@dataclass
class MxPair:
    """A block-scaled quantization row: FLOAT -> codes and their computed scales."""

    kind: str  # a key of MX_SPECS
    group = "mx"  # `--pairs mx` selects every MX row (class attributes, not fields)
    is_split = False
    has_string = False
    has_arrow = False

    @property
    def spec(self):
        return MX_SPECS[self.kind]

    @property
    def label(self):
        return self.spec.label

    @property
    def src(self):
        return F32

    @property
    def dst(self):
        return self.spec.code_type


MX_PAIRS = [MxPair(k) for k in MX_SPECS]
# Notes under the MX table: (label prefix, text), shown when a row's label starts with the
# prefix (differences by definition and gaps of the peers).
MX_NOTES = [
    (
        "MXFP",
        "MXFP8 / MXFP4, numpy: `np.floor(np.log2(amax))` in float32 rounds log2 up to the "
        "integer k for the few float32 amax a few ulps below 2^k with k <= -2 or k >= 3 "
        "(amax just below 0.25, 8, 16, ...), giving e one too large (scale code + 1, codes one bit "
        "coarser) where the library takes amax's exponent bits; a block of 32 N(0, 1) values "
        "practically never has such an amax, so 0 is expected here. A block holding a NaN "
        "(numpy: scale `(NaN + 127).astype(uint8)`, undefined, 0 on x86) or an infinity "
        "(numpy: e clipped to 127, code 0xFE, and its finite elements 0) differs from the "
        "library's NaN scale 0xFF; the data here has neither.",
    ),
    (
        "NVFP4",
        "NVFP4, numpy: the block scale is `(amax_b / (6 * g))` in float32 (two roundings: "
        "6 * g, then the quotient) cast to E4M3FN (a third), where the library rounds the "
        "exact quotient once; they differ only when the float32 quotient lands on an E4M3 "
        "rounding boundary the exact one misses (rare; then the scale code differs by one "
        "and its block's codes may too): e.g. a float32 quotient of exactly 168.0, the "
        "midpoint of 160 and 176 (ties to even: 160), from an exact 168.0000028 (176). "
        "numpy's tensor scale is `np.abs(x).max()`, which "
        "a NaN or an infinity would poison (the library leaves them out); none here.",
    ),
    (
        "absmax",
        "absmax i8, numpy: `np.clip(np.rint(x / s), -128, 127).astype(np.int8)` is ONNX's "
        "QuantizeLinear exactly (NaN aside: undefined in numpy's astype, 0 in the library).",
    ),
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
    """An implementation that does not support a pair, or failed on it: reported as
    "n/a (<who>: <reason>)", never fatal."""


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
    if is_packed(code):
        return pack4(np.ascontiguousarray(arr).view(np.uint8).reshape(-1))
    return np.ascontiguousarray(arr).view(np.uint8).reshape(-1)


def element_codes(raw_u8, code, n):
    """Per-element bit patterns of an ONNX-layout buffer, for counting mismatches."""
    bits = TYPES[code][1]
    if bits == 4:
        return unpack4(raw_u8, n)
    return raw_u8[: n * bits // 8].view(
        {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    )


def as_texts(x):
    """Texts (a numpy array of any string dtype, a pyarrow array, a list of str) as a 1-D
    STRING_DTYPE array: the form STRING outputs are compared in."""
    if isinstance(x, (pa.Array, pa.ChunkedArray)):
        x = x.to_numpy(zero_copy_only=False)
    return np.asarray(x, dtype=STRING_DTYPE).reshape(-1)


def fixed_width(texts, kind):
    """A text array as a fixed-width numpy array of kind "U" (str) or "S" (ASCII bytes)."""
    width = max((len(s) for s in texts.tolist()), default=1)
    return texts.astype(f"{kind}{max(width, 1)}")


def text_bytes(texts):
    return sum(len(s) for s in texts.tolist())  # the texts are ASCII


def comparable(arr, code):
    """A numpy result in the form outputs are compared in: ONNX-layout bytes (STRING: texts)."""
    return as_texts(arr) if code == TP.STRING else onnx_bytes(arr, code)


def arrow_comparable(arr, code):
    if code == TP.STRING:
        return as_texts(arr)
    return onnx_bytes(arr.to_numpy(zero_copy_only=False), code)


def ptr(a):
    return a.ctypes.data


# --------------------------------------------------------------------------- tensorcast (package)


class Package:
    """tensorcast through its Python package, called as users call it, on one thread."""

    def __init__(self, module):
        self.tc = module
        # Every call passes threads=1; a pool of one covers any internal step that takes the
        # package's default pool.
        module.set_num_threads(1)

    def version(self):
        return self.tc.__version__

    def active_target(self):
        return self.tc._tensorcast.active_target()  # the package has no public accessor

    @staticmethod
    def _checked(call):
        """call, after one run; an error of the package becomes Unsupported."""
        try:
            call()
        except (TypeError, ValueError, MemoryError) as e:
            raise Unsupported(f"tensorcast: {str(e).splitlines()[0][:120]}") from None
        return call

    def cast_out_fn(self, pair, native, n):
        """(call, result) of `tc.cast(x, to, out=preallocated, threads=1)`; packed targets
        with packed=True (ONNX layout). result() gives the output in comparable form."""
        cast, dst = self.tc.cast, pair.dst
        if is_packed(dst):
            out = np.empty(storage_bytes(dst, n), np.uint8)
            call = self._checked(lambda: cast(native, dst, out=out, packed=True, threads=1))
            return call, lambda: out
        out = np.empty(n, TYPES[dst][2])
        call = self._checked(lambda: cast(native, dst, out=out, threads=1))
        return call, lambda: comparable(out, dst)

    def cast_alloc_fn(self, pair, native):
        """(call, result) of `tc.cast(x, to, threads=1)`: the default (unpacked) result."""
        cast, dst = self.tc.cast, pair.dst
        call = self._checked(lambda: cast(native, dst, threads=1))
        return call, lambda: comparable(call(), dst)

    def cast_arrow_fn(self, pair, arr):
        """(call, result) of `tc.cast(arrow_array, to, threads=1)`: an Arrow array out."""
        cast, dst = self.tc.cast, pair.dst
        call = self._checked(lambda: cast(arr, dst, threads=1))
        return call, lambda: arrow_comparable(call(), dst)

    def split_fn(self, x, axis, sizes):
        """(call, result) of `tc.split(x, sizes, axis=axis, threads=1)` (it allocates)."""
        split = self.tc.split
        call = self._checked(lambda: split(x, sizes, axis=axis, threads=1))
        return call, call

    def has_qdq(self):
        return hasattr(self.tc, "quantize_linear") and hasattr(self.tc, "dequantize_linear")

    def qdq_fn(self, pair, case):
        """(call, result) of `tc.quantize_linear(x, scale, zero_point, ..., out=preallocated,
        threads=1)` (packed targets: packed=True into uint8 bytes, ONNX's layout) or
        `tc.dequantize_linear(q, scale, zero_point, ..., out=preallocated, threads=1)` (q:
        the unpacked ml_dtypes array numpy reads; the package has no packed input)."""
        kw = {"threads": 1}
        if pair.gran != "tensor":
            kw["axis"] = pair.axis
        if pair.gran == "block":
            kw["block_size"] = QDQ_BLOCK
        if pair.op == "QL":
            fn, args = self.tc.quantize_linear, (case.x, case.scale, case.zp)
            if case.zp is None:
                kw["output_dtype"] = pair.qtype
            if is_packed(pair.qtype):
                out = np.empty(storage_bytes(pair.qtype, case.x.size), np.uint8)
                kw["packed"] = True
            else:
                out = np.empty(case.x.shape, TYPES[pair.qtype][2])
        else:
            fn, args = self.tc.dequantize_linear, (case.q, case.scale, case.zp)
            out = np.empty(case.x.shape, np.float32)
        call = self._checked(lambda: fn(*args, out=out, **kw))
        if kw.get("packed"):
            return call, lambda: out
        return call, lambda: onnx_bytes(out, pair.dst)

    def has_mx(self):
        return hasattr(self.tc, "quantize_mx")

    def mx_fn(self, pair, case):
        """(call, result) of the package's block-scaled quantization into preallocated
        buffers, threads=1: `tc.quantize_mx(x, fmt, block_size=, out=, scales_out=, threads=1)`
        (MXFP4: packed=True into uint8 bytes, ONNX's layout), `tc.quantize_nvfp4(x,
        packed=True, out=, scales_out=, threads=1)` (the tensor scale computed) and
        `tc.quantize_absmax(x, INT8, out=, threads=1)` (per tensor). result() gives mx_parts."""
        spec, x, n = pair.spec, case.x, case.x.size
        name = {"nvfp4": "quantize_nvfp4", "absmax": "quantize_absmax"}.get(pair.kind)
        fn = getattr(self.tc, name or "quantize_mx", None)
        if fn is None:
            raise Unsupported(f"tensorcast: the package has no {name}")
        kw = {"threads": 1}
        if is_packed(spec.code_type):
            kw["out"] = np.empty(storage_bytes(spec.code_type, n), np.uint8)
            kw["packed"] = True
        else:
            kw["out"] = np.empty(x.shape, TYPES[spec.code_type][2])
        if pair.kind == "absmax":
            call = self._checked(lambda: fn(x, spec.code_type, **kw))
            return call, lambda: mx_parts(pair, n, kw["out"], call()[1])
        kw["scales_out"] = np.empty(case.scale_shape, TYPES[spec.scale_type][2])
        if pair.kind == "nvfp4":
            call = self._checked(lambda: fn(x, **kw))
            return call, lambda: mx_parts(pair, n, kw["out"], kw["scales_out"], call()[2])
        args = (x, spec.name)
        call = self._checked(lambda: fn(*args, block_size=spec.block, **kw))
        return call, lambda: mx_parts(pair, n, kw["out"], kw["scales_out"])


# --------------------------------------------------------------------------- tensorcast (C API)


class TcError(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_int),
        ("elements_written", ctypes.c_size_t),
        ("message_length", ctypes.c_size_t),
        ("message", ctypes.c_void_p),
        ("message_capacity", ctypes.c_size_t),
    ]


class TcStringArena(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("capacity", ctypes.c_size_t),
        ("views", ctypes.c_void_p),
        ("size", ctypes.c_size_t),
    ]


class TcTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("type", ctypes.c_int32),
        ("shape", ctypes.c_void_p),
        ("rank", ctypes.c_size_t),
    ]


class TcQuantizeOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("opset", ctypes.c_int),
        ("axis", ctypes.c_int64),
        ("block_size", ctypes.c_int64),
        ("output_dtype", ctypes.c_int32),
        ("saturate", ctypes.c_int),
        ("precision", ctypes.c_int32),
        ("runner", ctypes.c_void_p),
    ]


class TcBlockScaleOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("axis", ctypes.c_int64),
        ("block_size", ctypes.c_int64),
        ("scale_rule", ctypes.c_int32),
        ("runner", ctypes.c_void_p),
    ]


def quantize_options(**fields):
    """TC_QUANTIZE_OPTIONS_INIT ({sizeof, 28, 1, 0, 0, 1, 0, NULL}) with `fields` set."""
    opts = TcQuantizeOptions(ctypes.sizeof(TcQuantizeOptions), 28, 1, 0, 0, 1, 0, None)
    for name, value in fields.items():
        setattr(opts, name, value)
    return opts


# tc_string_view {const char* data; size_t size;} as a numpy record (same layout).
VIEW_DTYPE = np.dtype([("data", np.uintp), ("size", np.uintp)])


class CApi:
    """ctypes binding of include/tensorcast/tensorcast_c.h (the functions this benchmark uses)."""

    def __init__(self, path):
        lib = ctypes.CDLL(str(path))
        c = ctypes
        lib.tc_cast.argtypes = [
            c.c_void_p,
            c.c_int32,
            c.c_void_p,
            c.c_int32,
            c.c_size_t,
            c.c_int,
            c.c_int,
            c.POINTER(TcError),
        ]
        lib.tc_cast.restype = c.c_int
        lib.tc_split.argtypes = [
            c.c_void_p,
            c.c_int32,
            c.c_void_p,
            c.c_size_t,
            c.c_int64,
            c.c_void_p,
            c.c_size_t,
            c.c_void_p,
            c.POINTER(TcError),
        ]
        lib.tc_split.restype = c.c_int
        # tc_quantize_linear / tc_dequantize_linear (x, scale, zero_point: const tc_tensor*;
        # y; y_type; options; err), absent from libraries before QuantizeLinear.
        self.has_qdq = hasattr(lib, "tc_quantize_linear") and hasattr(lib, "tc_dequantize_linear")
        if self.has_qdq:
            for fn in (lib.tc_quantize_linear, lib.tc_dequantize_linear):
                fn.argtypes = [
                    c.c_void_p,
                    c.c_void_p,
                    c.c_void_p,
                    c.c_void_p,
                    c.c_int32,
                    c.c_void_p,
                    c.POINTER(TcError),
                ]
                fn.restype = c.c_int
        # Block-scaled quantization (tc_quantize_mx, tc_quantize_nvfp4, tc_quantize_absmax),
        # absent from libraries before it; each is looked up when its row runs.
        if hasattr(lib, "tc_quantize_mx"):
            lib.tc_quantize_mx.argtypes = [
                c.c_void_p,  # const tc_tensor* x
                c.c_int32,  # format
                c.c_void_p,  # codes
                c.c_void_p,  # scales
                c.c_void_p,  # const tc_block_scale_options*
                c.POINTER(TcError),
            ]
            lib.tc_quantize_mx.restype = c.c_int
        if hasattr(lib, "tc_quantize_nvfp4"):
            lib.tc_quantize_nvfp4.argtypes = [
                c.c_void_p,  # x
                c.c_void_p,  # codes
                c.c_void_p,  # scales
                c.c_void_p,  # float* global_scale
                c.c_int,  # global_scale_given
                c.c_void_p,  # options
                c.POINTER(TcError),
            ]
            lib.tc_quantize_nvfp4.restype = c.c_int
        if hasattr(lib, "tc_quantize_absmax"):
            lib.tc_quantize_absmax.argtypes = [
                c.c_void_p,  # x
                c.c_int32,  # code_type
                c.c_int,  # per_channel
                c.c_int64,  # axis
                c.c_void_p,  # codes
                c.c_void_p,  # float* scales
                c.c_void_p,  # const tc_runner* (NULL: the calling thread)
                c.c_void_p,  # tc_cast_stats* (NULL: none)
                c.POINTER(TcError),
            ]
            lib.tc_quantize_absmax.restype = c.c_int
        lib.tc_version_string.restype = c.c_char_p
        lib.tc_version_string.argtypes = []
        lib.tc_active_target.restype = c.c_char_p
        lib.tc_active_target.argtypes = []
        self.lib = lib
        self._msg = ctypes.create_string_buffer(512)
        self.err = TcError(0, 0, 0, ctypes.cast(self._msg, ctypes.c_void_p).value, 512)
        self.eref = ctypes.byref(self.err)

    def version(self):
        return self.lib.tc_version_string().decode()

    def active_target(self):
        return self.lib.tc_active_target().decode()

    def _fail(self, what):
        return Unsupported(f"C API: {what}: {self._msg.value.decode(errors='replace')}")

    def cast_fn(self, src, dst, native, src_bytes, n):
        """(call, result): call() runs tc_cast once (saturate=1, round_mode=up: the ONNX
        defaults); result() gives the output in comparable form."""
        cast, eref = self.lib.tc_cast, self.eref
        keep = []
        if src == TP.STRING:
            enc = fixed_width(native, "S")  # one buffer of ASCII texts
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
            buf = np.zeros(storage_bytes(dst, n), np.uint8)
            dst_ptr = ptr(buf)

        keep += [src_bytes, buf]

        def call():
            _ = keep
            if cast(src_ptr, src, dst_ptr, dst, n, 1, 0, eref):
                raise self._fail(f"tc_cast {src} -> {dst}")

        def result():
            if dst != TP.STRING:
                return buf
            raw = buf.tobytes()
            offs = (out_views["data"] - np.uintp(ptr(buf))).tolist()
            return as_texts(
                [raw[o : o + s].decode() for o, s in zip(offs, out_views["size"].tolist())]
            )

        call()
        return call, result

    def split_fn(self, x, axis, outs):
        shape = np.array(x.shape, np.int64)
        sizes = np.array([o.shape[axis] for o in outs], np.int64)
        outputs = (ctypes.c_void_p * len(outs))(*[ptr(o) for o in outs])
        split, eref = self.lib.tc_split, self.eref
        args = (
            ptr(x),
            TP.FLOAT,
            ptr(shape),
            x.ndim,
            axis,
            ptr(sizes),
            len(outs),
            ctypes.addressof(outputs),
            eref,
        )
        keep = (x, shape, sizes, outputs, outs)

        def call():
            _ = keep
            if split(*args):
                raise self._fail("tc_split")

        call()
        return call, lambda: outs

    def qdq_fn(self, pair, case):
        """(call, result): tc_quantize_linear / tc_dequantize_linear (opset 28, the C API's
        default) from the ONNX-layout input into a preallocated ONNX-layout output."""
        if not self.has_qdq:
            raise Unsupported("C API: this libtensorcast_c has no tc_quantize_linear")
        keep = [case]

        def tensor(data, code, shape):
            dims = np.array(shape, np.int64)
            t = TcTensor(ptr(data), code, ptr(dims) if dims.size else None, dims.size)
            keep.extend((data, dims, t))
            return ctypes.addressof(t)

        x = tensor(case.src_bytes, pair.src, case.x.shape)
        scale = tensor(case.scale, F32, case.scale.shape)
        zp = None
        if case.zp is not None:
            zp = tensor(onnx_bytes(case.zp, pair.qtype), pair.qtype, case.zp.shape)
        fields = {}
        if pair.gran != "tensor":
            fields["axis"] = pair.axis
        if pair.gran == "block":
            fields["block_size"] = QDQ_BLOCK
        if pair.op == "QL" and case.zp is None:
            fields["output_dtype"] = pair.qtype
        opts = quantize_options(**fields)
        out = np.zeros(storage_bytes(pair.dst, case.x.size), np.uint8)
        keep += [opts, out]
        fn = self.lib.tc_quantize_linear if pair.op == "QL" else self.lib.tc_dequantize_linear
        args = (x, scale, zp, ptr(out), pair.dst, ctypes.addressof(opts), self.eref)

        def call():
            _ = keep
            if fn(*args):
                raise self._fail(pair.label)

        call()
        return call, lambda: out

    def mx_fn(self, pair, case):
        """(call, result): tc_quantize_mx (floor rule, block 32) / tc_quantize_nvfp4 (tensor
        scale computed) / tc_quantize_absmax (INT8, per tensor) with a NULL runner (the
        calling thread) into preallocated buffers: codes in ONNX's layout (FLOAT4E2M1 packed),
        scales as the library writes them. result() gives mx_parts."""
        spec, n = pair.spec, case.x.size
        name = {"nvfp4": "tc_quantize_nvfp4", "absmax": "tc_quantize_absmax"}.get(
            pair.kind, "tc_quantize_mx"
        )
        if not hasattr(self.lib, name):
            raise Unsupported(f"C API: this libtensorcast_c has no {name}")
        fn = getattr(self.lib, name)
        dims = np.array(case.x.shape, np.int64)
        x = TcTensor(ptr(case.x), F32, ptr(dims), dims.size)
        codes = np.zeros(storage_bytes(spec.code_type, n), np.uint8)
        opts = TcBlockScaleOptions(ctypes.sizeof(TcBlockScaleOptions), -1, spec.block, 0, None)
        g = None
        if pair.kind == "absmax":
            scales = np.zeros(1, np.float32)
            args = (ctypes.addressof(x), spec.code_type, 0, 0, ptr(codes), ptr(scales), None, None)
        else:
            scales = np.zeros(case.scale_shape, np.uint8)
            if pair.kind == "nvfp4":
                g = np.zeros(1, np.float32)
                args = (ctypes.addressof(x), ptr(codes), ptr(scales), ptr(g), 0)
            else:
                args = (ctypes.addressof(x), spec.fmt, ptr(codes), ptr(scales))
            args += (ctypes.addressof(opts),)
        args += (self.eref,)
        keep = (case, dims, x, codes, scales, g, opts)

        def call():
            _ = keep
            if fn(*args):
                raise self._fail(f"{name} ({pair.label})")

        call()
        return call, lambda: mx_parts(pair, n, codes, scales, g)


# --------------------------------------------------------------------------- ONNX Runtime

ORT_OPSETS = (25, 24, 23, 21)


def ort_session(node_fn, in_type, out_types, opset_candidates=ORT_OPSETS, extra_inputs=()):
    """A one-node model; tries the newest opset first. Raises Unsupported with ORT's reason.
    extra_inputs: (name, type, shape) of graph inputs after x (QuantizeLinear's scale and
    zero point)."""
    last = None
    for opset in opset_candidates:
        node, in_shape, out_shape = node_fn(opset)
        x = helper.make_tensor_value_info("x", in_type, in_shape)
        extra = [helper.make_tensor_value_info(nm, t, shp) for nm, t, shp in extra_inputs]
        ys = [helper.make_tensor_value_info(f"y{i}", t, out_shape) for i, t in enumerate(out_types)]
        graph = helper.make_graph([node], "peer", [x, *extra], ys)
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="tensorcast-peers"
        )
        model.ir_version = 11 if opset >= 24 else 10
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.log_severity_level = 3
        try:
            return ort.InferenceSession(
                model.SerializeToString(), so, providers=["CPUExecutionProvider"]
            )
        except Exception as e:  # noqa: BLE001  (ORT raises several exception types)
            last = last or e  # the newest opset's reason (older ones may lack the type)
    msg = str(last).splitlines()[0]
    if "NOT_IMPLEMENTED" in msg:
        msg = "no CPU kernel (NOT_IMPLEMENTED)"
    raise Unsupported(f"ORT: {msg[:120]}")


def ort_cast_session(src, dst):
    return ort_session(
        lambda opset: (helper.make_node("Cast", ["x"], ["y0"], to=dst), [None], [None]), src, [dst]
    )


def ort_split_session(axis, parts):
    return ort_session(
        lambda opset: (
            helper.make_node(
                "Split", ["x"], [f"y{i}" for i in range(parts)], axis=axis, num_outputs=parts
            ),
            [None, None],
            [None, None],
        ),
        F32,
        [F32] * parts,
        opset_candidates=(18,),
    )


def ort_cast_fn(src, dst, native, src_bytes, n):
    """(call, result) for ORT's Cast on our buffers, bound with IOBinding (no copies).
    STRING tensors are ORT-owned std::string arrays: a STRING output is allocated by ORT on
    every run; a STRING input cannot be bound from Python (ORT: "Only binding non-string
    Tensors is currently supported"), so string -> x runs sess.run() on a fixed-width str
    array (built once), which converts it into std::strings on every call (and allocates
    the output)."""
    sess = ort_cast_session(src, dst)
    if src == TP.STRING:
        feed = {"x": fixed_width(native, "U")}
        last = []

        def call():
            last[:] = sess.run(["y0"], feed)

        def result():
            return onnx_bytes(last[0].reshape(-1), dst)

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

    keep = (src_bytes, dst_buf)

    def call():
        _ = keep
        sess.run_with_iobinding(io)

    def result():
        if dst == TP.STRING:
            # (io.copy_outputs_to_cpu() crashes on string outputs in ORT 1.31.)
            return as_texts(io.get_outputs()[0].numpy())
        return dst_buf

    call()
    return call, result


def ort_split_fn(pair, x, outs):
    sess = ort_split_session(pair.axis, pair.parts)
    io = sess.io_binding()
    io.bind_input("x", "cpu", 0, F32, list(x.shape), ptr(x))
    for i, o in enumerate(outs):
        io.bind_output(f"y{i}", "cpu", 0, F32, list(o.shape), ptr(o))
    keep = (x, outs)

    def call():
        _ = keep
        sess.run_with_iobinding(io)

    call()
    return call, lambda: outs


def ort_qdq_fn(pair, case):
    """(call, result) for ORT's QuantizeLinear / DequantizeLinear: a one-node model (x, scale
    and the zero point as graph inputs), all bound with IOBinding to our buffers in ONNX's
    layout (packed types packed). The newest opset ORT takes (ORT_OPSETS); an error of the
    first run (a kernel ORT lacks for the attributes) becomes Unsupported too."""
    op = "QuantizeLinear" if pair.op == "QL" else "DequantizeLinear"
    attrs = {}
    if pair.gran != "tensor":
        attrs["axis"] = pair.axis
    if pair.gran == "block":
        attrs["block_size"] = QDQ_BLOCK
    if pair.op == "QL" and case.zp is None:
        attrs["output_dtype"] = pair.qtype
    names = ["x", "s"] + ([] if case.zp is None else ["z"])
    extra = [("s", F32, list(case.scale.shape))]
    if case.zp is not None:
        extra.append(("z", pair.qtype, list(case.zp.shape)))
    shape = list(case.x.shape)
    sess = ort_session(
        lambda opset: (helper.make_node(op, names, ["y0"], **attrs), shape, shape),
        pair.src,
        [pair.dst],
        extra_inputs=extra,
    )
    io = sess.io_binding()
    io.bind_input("x", "cpu", 0, pair.src, shape, ptr(case.src_bytes))
    io.bind_input("s", "cpu", 0, F32, list(case.scale.shape), ptr(case.scale))
    zp = None
    if case.zp is not None:
        zp = onnx_bytes(case.zp, pair.qtype)
        io.bind_input("z", "cpu", 0, pair.qtype, list(case.zp.shape), ptr(zp))
    out = np.zeros(storage_bytes(pair.dst, case.x.size), np.uint8)
    io.bind_output("y0", "cpu", 0, pair.dst, shape, ptr(out))
    keep = (case, zp, out)

    def call():
        _ = keep
        sess.run_with_iobinding(io)

    try:
        call()
    except Exception as e:  # noqa: BLE001  (ORT raises several exception types)
        msg = str(e).splitlines()[0]
        if "NOT_IMPLEMENTED" in msg:
            msg = "no CPU kernel (NOT_IMPLEMENTED)"
        raise Unsupported(f"ORT: {msg[:120]}") from None
    return call, lambda: out


def ort_mx_fn(pair, case, ref):
    """(call, result) for ORT's QuantizeLinear fed with precomputed scales (`ref`: the
    mx_parts of the C API's output, else numpy's; computed once, not timed): a one-node
    model, x and the scales as graph inputs bound with IOBinding, output_dtype the codes'
    type (blocked rows: axis 1, block_size of the format). MX rows try the E8M0 scale codes
    first (FLOAT8E8M0 scale, precision FLOAT, opset 25), then the same scales decoded to
    FLOAT (2^e, exact); NVFP4 binds S = fl(E4M3 value * g), the FLOAT block scales its codes
    are QuantizeLinear of; absmax the FLOAT scale. case.ort_scales records the scale input
    ORT took. result() gives the codes only (the scales are ORT's input)."""
    spec, shape = pair.spec, list(case.x.shape)
    attrs = {"output_dtype": spec.code_type}
    if spec.block:
        attrs.update(axis=1, block_size=spec.block)
    if spec.scale_type == F32:
        sshape, floats = [], ref["scales"].view(np.float32).reshape(())
    else:
        codes = ref["scales"].view(TYPES[spec.scale_type][2]).reshape(case.scale_shape)
        floats = codes.astype(np.float32)  # E8M0 2^e / E4M3 values, exact in FLOAT
        if pair.kind == "nvfp4":
            floats = floats * ref["tensor scale"].view(np.float32)[0]
        sshape = list(case.scale_shape)
    floats = np.ascontiguousarray(floats, np.float32)
    # (scale type, buffer, extra attributes, opsets) in the order tried
    tries = [(F32, floats, {}, ORT_OPSETS)]
    if spec.scale_type == TP.FLOAT8E8M0:
        e8m0 = np.ascontiguousarray(ref["scales"]).reshape(case.scale_shape)
        tries.insert(0, (TP.FLOAT8E8M0, e8m0, {"precision": F32}, (25,)))
    refused, scale_name = [], {F32: "FLOAT", TP.FLOAT8E8M0: "FLOAT8E8M0"}
    for stype, sbuf, extra_attrs, opsets in tries:
        node_attrs = {**attrs, **extra_attrs}
        try:
            sess = ort_session(
                lambda opset, a=node_attrs: (
                    helper.make_node("QuantizeLinear", ["x", "s"], ["y0"], **a),
                    shape,
                    shape,
                ),
                F32,
                [spec.code_type],
                opset_candidates=opsets,
                extra_inputs=[("s", stype, sshape)],
            )
            io = sess.io_binding()
            io.bind_input("x", "cpu", 0, F32, shape, ptr(case.x))
            io.bind_input("s", "cpu", 0, stype, sshape, ptr(sbuf))
            out = np.zeros(storage_bytes(spec.code_type, case.x.size), np.uint8)
            io.bind_output("y0", "cpu", 0, spec.code_type, shape, ptr(out))
            keep = (case, sbuf, out)

            def call(io=io, sess=sess, keep=keep):
                _ = keep
                sess.run_with_iobinding(io)

            call()
        except Exception as e:  # noqa: BLE001  (ORT raises several exception types)
            msg = str(e).splitlines()[0].removeprefix("ORT: ")
            if "NOT_IMPLEMENTED" in msg:
                msg = "no CPU kernel (NOT_IMPLEMENTED)"
            refused.append(f"{scale_name[stype]} scales: {msg[:120]}")
            continue
        case.ort_scales = "; ".join([scale_name[stype]] + [f"refused {r}" for r in refused])
        return call, lambda out=out: mx_parts(pair, case.x.size, out)
    case.ort_scales = "; ".join(f"refused {r}" for r in refused)
    raise Unsupported(f"ORT: {refused[-1]}")


# --------------------------------------------------------------------------- pyarrow


def arrow_input(pair, native):
    """The pyarrow Array of the same input (STRING: utf8 of the same texts)."""
    return pa.array(native, type=ARROW_TYPES[pair.src])


def pyarrow_cast_fn(pair, arr):
    """(call, result) for pyarrow.compute.cast of the pyarrow Array `arr`; call() allocates
    the result array, as compute.cast does. Numeric -> numeric casts run with safe=False
    (Arrow's default safe=True raises on lossy casts); STRING pairs with the default.
    Raises Unsupported with Arrow's reason."""
    target = ARROW_TYPES[pair.dst]
    safe = pair.has_string  # numeric -> numeric: safe=False
    cast = pc.cast

    def call():
        return cast(arr, target, safe=safe)

    try:
        call()
    except pa.ArrowException as e:
        raise Unsupported(f"pyarrow: {str(e).splitlines()[0][:120]}") from None
    return call, lambda: arrow_comparable(call(), pair.dst)


# --------------------------------------------------------------------------- data

_BASE = {}


def base_normal(n):
    """N(0, 1) float32 values, the same for every pair of a size (seeded)."""
    if n not in _BASE:
        _BASE[n] = np.random.default_rng(SEED).standard_normal(n, dtype=np.float32)
    return _BASE[n]


def magnitudes(n):
    """10^U{-K..K} for K = STRING_MAGNITUDES (seeded): mixed magnitudes, as text columns hold."""
    k = np.random.default_rng(SEED + 3).integers(-STRING_MAGNITUDES, STRING_MAGNITUDES + 1, n)
    return 10.0**k


def make_source(pair, n):
    """(native array for numpy / ml_dtypes and the package, ONNX-layout uint8 bytes or None
    for STRING). Split: a square 2-D f32 array of about n elements (at least parts x parts)."""
    if pair.is_split:
        side = max(pair.parts, int(round(n**0.5)))
        x = np.random.default_rng(SEED).standard_normal((side, side), dtype=np.float32)
        return x, x.view(np.uint8).reshape(-1)
    f = base_normal(n) * np.float32(pair.scale)
    if pair.has_string and STRING_MAGNITUDES:
        f = f * magnitudes(n).astype(np.float32)
    if pair.dst == TP.FLOAT8E8M0:
        f = np.abs(f)  # scales are positive; ml_dtypes gives NaN for negative inputs
    if pair.src == F32:
        return f, f.view(np.uint8)
    if pair.src == TP.DOUBLE:
        d = np.random.default_rng(SEED + 1).standard_normal(n)
        if pair.has_string and STRING_MAGNITUDES:
            d = d * magnitudes(n)
        return d, d.view(np.uint8)
    if pair.src == TP.INT64:
        i = np.random.default_rng(SEED + 2).integers(-(1 << 40), 1 << 40, n, dtype=np.int64)
        return i, i.view(np.uint8)
    if pair.src == TP.STRING:
        # numpy's spelling (as a pipeline reading text would see) of the values a DOUBLE or INT64
        # source has when that is the destination, else of the f32 values.
        if pair.dst in (TP.DOUBLE, TP.INT64):
            f = make_source(Pair(pair.dst, TP.STRING), n)[0]
        return f.astype(STRING_DTYPE), None
    native = f.astype(TYPES[pair.src][2])
    return native, onnx_bytes(native, pair.src)


# --------------------------------------------------------------------------- implementations

# Every maker returns (call, result): call() runs the implementation once and holds every
# buffer it reads or writes (raw pointers are bound into ctypes and ORT); result() gives
# its output in comparable form (Cast: ONNX-layout bytes, STRING texts; Split: the parts), or
# result is None for an implementation that is timed but not cross-checked (copyto: the same
# conversion as astype). A maker raises Unsupported when the implementation cannot run the
# pair. Makers run in the order of the dict; the tensorcast column comes first, so every
# later output is compared with it.


def cast_makers(pair, native, src_bytes, n, pkg, capi):
    src, dst = pair.src, pair.dst
    arr = arrow_input(pair, native) if pair.has_arrow else None
    dst_dtype = TYPES[dst][2]
    makers = {}
    if pkg is not None:
        makers["tensorcast"] = lambda: pkg.cast_out_fn(pair, native, n)
        makers["tc alloc"] = lambda: pkg.cast_alloc_fn(pair, native)
        if arr is not None:
            makers["tc Arrow"] = lambda: pkg.cast_arrow_fn(pair, arr)
    if capi is not None:
        makers["C API"] = lambda: capi.cast_fn(src, dst, native, src_bytes, n)
    makers["ORT"] = lambda: ort_cast_fn(src, dst, native, src_bytes, n)
    if arr is not None:
        makers["pyarrow"] = lambda: pyarrow_cast_fn(pair, arr)

    def astype():
        call = lambda: native.astype(dst_dtype)  # noqa: E731
        return call, lambda: comparable(call(), dst)

    makers["astype"] = astype

    def copyto():
        out = np.empty(n, dst_dtype)
        return lambda: np.copyto(out, native, casting="unsafe"), None

    makers["copyto"] = copyto
    return makers


def split_makers(pair, x, pkg, capi):
    axis, parts = pair.axis, pair.parts
    shapes = [v.shape for v in np.split(x, parts, axis=axis)]
    sizes = [s[axis] for s in shapes]
    makers = {}
    if pkg is not None:
        makers["tensorcast"] = lambda: pkg.split_fn(x, axis, sizes)
    if capi is not None:
        makers["C API"] = lambda: capi.split_fn(x, axis, [np.zeros(s, x.dtype) for s in shapes])
    makers["ORT"] = lambda: ort_split_fn(pair, x, [np.zeros(s, x.dtype) for s in shapes])

    def astype():
        call = lambda: [p.copy() for p in np.split(x, parts, axis=axis)]  # noqa: E731
        return call, call

    makers["astype"] = astype

    def copyto():
        outs = [np.empty(s, x.dtype) for s in shapes]

        def call():
            for o, p in zip(outs, np.split(x, parts, axis=axis)):
                np.copyto(o, p)

        return call, None

    makers["copyto"] = copyto
    return makers


@dataclass
class QdqCase:
    """The inputs of a QDQ row, numpy side (x, scale, zp, q) and ONNX layout (src_bytes)."""

    x: np.ndarray  # FLOAT, [rows, QDQ_COLS]
    scale: np.ndarray  # FLOAT, the scale's shape (0-d per tensor)
    zp: object  # None, or the zero points: qtype's numpy dtype, the scale's shape
    q: object  # DequantizeLinear: its input, qtype's numpy / ml_dtypes dtype (unpacked)
    src_bytes: np.ndarray  # the operator's input in ONNX's layout (x, or q packed)

    def memcpy_bytes(self, pair):
        """(input bytes + scale + zero point + output bytes) / 2."""
        zp = 0 if self.zp is None else storage_bytes(pair.qtype, self.zp.size)
        out = storage_bytes(pair.dst, self.x.size)
        return (self.src_bytes.size + self.scale.nbytes + zp + out) // 2


def qdq_x_view(pair, a):
    """x or q ([rows, cols]) shaped to broadcast with qdq_p_view's scales: [rows, cols / B,
    B] for blocked rows."""
    return a.reshape(a.shape[0], -1, QDQ_BLOCK) if pair.gran == "block" else a


def qdq_p_view(pair, p):
    """A scale or zero point shaped to broadcast with qdq_x_view's x."""
    if p is None or pair.gran == "tensor" or (pair.gran == "axis" and pair.axis == 1):
        return p
    return p[:, :, None] if pair.gran == "block" else p[:, None]


def qdq_case(pair, n):
    """x: the seeded N(0, 1) values as [max(1, n // 4096), 4096]. Scales: per tensor
    4 / qmax (the few |x| > 4 saturate); per axis and blocked max|x| of the slice / qmax.
    Zero points (INT8, UINT8): centre + U{-4..4}, seeded. DequantizeLinear's q: numpy's
    QuantizeLinear of x (float types clipped to +-qmax first)."""
    rows = max(1, n // QDQ_COLS)
    x = base_normal(rows * QDQ_COLS).reshape(rows, QDQ_COLS)
    centre, qmax = QDQ_TYPES[pair.qtype]
    if pair.gran == "tensor":
        amax = np.float32(QDQ_TENSOR_RANGE)
    elif pair.gran == "axis":
        amax = np.abs(x).max(axis=1 - pair.axis)
    else:
        amax = np.abs(qdq_x_view(pair, x)).max(axis=2)
    scale = np.asarray(np.maximum(amax / np.float32(qmax), np.float32(1e-30)), np.float32)
    zp = None
    if centre is not None:
        offsets = np.random.default_rng(SEED + 4).integers(-4, 5, scale.shape)
        zp = np.asarray(centre + offsets).astype(TYPES[pair.qtype][2])
    if pair.op == "QL":
        return QdqCase(x, scale, zp, None, x.view(np.uint8).reshape(-1))
    xv, sv, zv = qdq_x_view(pair, x), qdq_p_view(pair, scale), qdq_p_view(pair, zp)
    dtype = TYPES[pair.qtype][2]
    if pair.qtype in INT_RANGES:
        r = np.rint(xv / sv) + (0 if zv is None else zv)
        q = np.clip(r, *INT_RANGES[pair.qtype]).astype(dtype)
    else:
        q = np.clip(xv / sv, -qmax, qmax).astype(dtype)
    q = q.reshape(x.shape)
    return QdqCase(x, scale, zp, q, onnx_bytes(q, pair.qtype))


def numpy_qdq_fn(pair, case):
    """(call, result) of the operator written out in numpy, as users write it (allocating):
    QL integers `np.clip(np.rint(x / s) + zp, lo, hi).astype(dtype)`; QL float8 / float4
    `(x / s).astype(ml_dtypes type)`; DQ `(q.astype(np.float32) - zp) * s`. Per-axis and
    blocked scales broadcast through reshaped views (blocked: x as [rows, cols / 32, 32],
    the scales as [rows, cols / 32, 1]); no zero point: no `+ zp` / `- zp`."""
    dtype = TYPES[pair.qtype][2]
    sv, zv = qdq_p_view(pair, case.scale), qdq_p_view(pair, case.zp)
    if pair.op == "QL":
        xv = qdq_x_view(pair, case.x)
        if pair.qtype in INT_RANGES:
            lo, hi = INT_RANGES[pair.qtype]
            if zv is None:
                call = lambda: np.clip(np.rint(xv / sv), lo, hi).astype(dtype)  # noqa: E731
            else:
                call = lambda: np.clip(np.rint(xv / sv) + zv, lo, hi).astype(dtype)  # noqa: E731
        else:
            call = lambda: (xv / sv).astype(dtype)  # noqa: E731
    else:
        qv = qdq_x_view(pair, case.q)
        if zv is None:
            call = lambda: qv.astype(np.float32) * sv  # noqa: E731
        else:
            call = lambda: (qv.astype(np.float32) - zv) * sv  # noqa: E731
    return call, lambda: comparable(call().reshape(-1), pair.dst)


def qdq_makers(pair, case, pkg, capi):
    """The C API first (the reference of the cross-check), then the package when it has
    quantize_linear, ORT, numpy."""
    makers = {}
    if capi is not None:
        makers["C API"] = lambda: capi.qdq_fn(pair, case)
    elif pkg is not None:

        def no_capi():
            raise Unsupported("C API: pass --lib build/lib/libtensorcast_c.so")

        makers["C API"] = no_capi
    if pkg is not None and pkg.has_qdq():
        makers["tensorcast"] = lambda: pkg.qdq_fn(pair, case)
    makers["ORT"] = lambda: ort_qdq_fn(pair, case)
    makers["numpy"] = lambda: numpy_qdq_fn(pair, case)
    return makers


@dataclass
class MxCase:
    """The input of an MX row: x, FLOAT [rows, QDQ_COLS], and the shape of its scales."""

    x: np.ndarray
    scale_shape: tuple  # [rows, 4096 / block] (per tensor: ())
    ort_scales: str = ""  # the scale input ORT took (set by ort_mx_fn)

    def memcpy_bytes(self, pair):
        """(x bytes + codes bytes (ONNX's layout) + scales bytes) / 2."""
        spec = pair.spec
        codes = storage_bytes(spec.code_type, self.x.size)
        scales = int(np.prod(self.scale_shape)) * TYPES[spec.scale_type][1] // 8
        if pair.kind == "nvfp4":
            scales += 4  # the FLOAT tensor scale
        return (self.x.nbytes + codes + scales) // 2


def mx_case(pair, n):
    """x: the seeded N(0, 1) values as [max(1, n // 4096), 4096] (the QDQ rows' x)."""
    rows = max(1, n // QDQ_COLS)
    x = base_normal(rows * QDQ_COLS).reshape(rows, QDQ_COLS)
    block = pair.spec.block
    scale_shape = (rows, -(-QDQ_COLS // block)) if block else ()
    return MxCase(x, scale_shape)


def mx_parts(pair, n, codes, scales=None, g=None):
    """An MX row's output in comparable form: {"codes": per-element codes (uint8; FLOAT4E2M1
    unpacked from ONNX's layout), "scales": the scales' bits (uint8 E8M0 / E4M3 codes, uint32
    FLOAT), "tensor scale": NVFP4's FLOAT g (uint32 bits)}; parts given as None are left
    out. codes: ONNX-layout bytes (uint8) or a numpy / ml_dtypes array of the codes' type."""
    code = pair.spec.code_type
    codes = np.ascontiguousarray(codes)
    if not (codes.dtype == np.uint8 and codes.size == storage_bytes(code, n)):
        codes = onnx_bytes(codes, code)
    parts = {"codes": element_codes(codes.reshape(-1), code, n)}
    if scales is not None:
        if pair.spec.scale_type == F32:
            parts["scales"] = np.asarray(scales, np.float32).reshape(-1).view(np.uint32)
        else:
            parts["scales"] = np.ascontiguousarray(scales).reshape(-1).view(np.uint8)
    if g is not None:
        parts["tensor scale"] = np.asarray(g, np.float32).reshape(-1).view(np.uint32)
    return parts


def mx_diff(a, b):
    """{part: (elements whose bits differ, elements)} over the parts both outputs have."""
    return {k: (int(np.count_nonzero(a[k] != b[k])), int(a[k].size)) for k in a if k in b}


def numpy_mx(x, emax, qmax, dtype, block=32):
    """The OCP MX floor rule written out as users write it (allocating): codes (dtype, x's
    shape) and E8M0 scale codes (uint8, [..., blocks]). np.clip maps log2(0) = -inf (an
    all-zero block) to e = -127."""
    xb = x.reshape(*x.shape[:-1], -1, block)
    amax = np.abs(xb).max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore"):
        e = np.clip(np.floor(np.log2(amax)) - emax, -127, 127)
    scale = np.exp2(e).astype(np.float32)
    codes = np.clip(xb / scale, -qmax, qmax).astype(dtype)
    return codes.reshape(x.shape), (e + 127).astype(np.uint8)[..., 0]


def numpy_nvfp4(x, block=16):
    """NVFP4 written out (allocating): codes (float4_e2m1fn, unpacked), E4M3 block scales,
    the FLOAT tensor scale g."""
    amax_t = np.abs(x).max()
    g = np.float32(1) if amax_t == 0 else np.maximum(amax_t / np.float32(6 * 448), FLOAT_MIN)
    g = np.float32(g)
    xb = x.reshape(*x.shape[:-1], -1, block)
    amax = np.abs(xb).max(axis=-1, keepdims=True)
    s = np.clip(amax / (6 * g), E4M3_MIN, 448).astype(ml_dtypes.float8_e4m3fn)
    big_s = s.astype(np.float32) * g
    codes = np.clip(xb / big_s, -6, 6).astype(ml_dtypes.float4_e2m1fn)
    return codes.reshape(x.shape), s[..., 0], g


def numpy_absmax_i8(x):
    """absmax INT8 per tensor written out (allocating): codes (int8) and the FLOAT scale."""
    amax = np.abs(x).max()
    scale = np.float32(1) if amax == 0 else np.maximum(amax / np.float32(127), FLOAT_MIN)
    scale = np.float32(scale)
    return np.clip(np.rint(x / scale), -128, 127).astype(np.int8), scale


def numpy_mx_fn(pair, case):
    """(call, result) of numpy_mx / numpy_nvfp4 / numpy_absmax_i8 on the row's x."""
    spec, x, n = pair.spec, case.x, case.x.size
    if pair.kind == "nvfp4":
        call = lambda: numpy_nvfp4(x, spec.block)  # noqa: E731
    elif pair.kind == "absmax":
        call = lambda: numpy_absmax_i8(x)  # noqa: E731
    else:
        dtype = TYPES[spec.code_type][2]
        call = lambda: numpy_mx(x, spec.emax, spec.qmax, dtype, spec.block)  # noqa: E731
    return call, lambda: mx_parts(pair, n, *call())


def mx_makers(pair, case, pkg, capi):
    """The C API first (the reference of the cross-check), then the package when it has
    quantize_mx, ORT (fed with the C API's scales, else numpy's), numpy."""
    makers = {}
    if capi is not None:
        makers["C API"] = lambda: capi.mx_fn(pair, case)
    elif pkg is not None:

        def no_capi():
            raise Unsupported("C API: pass --lib build/lib/libtensorcast_c.so")

        makers["C API"] = no_capi
    if pkg is not None and pkg.has_mx():
        makers["tensorcast"] = lambda: pkg.mx_fn(pair, case)

    def ort():
        ref = None
        if capi is not None:
            try:
                ref = capi.mx_fn(pair, case)[1]()
            except Unsupported:
                pass
        if ref is None:
            ref = numpy_mx_fn(pair, case)[1]()
        return ort_mx_fn(pair, case, ref)

    makers["ORT"] = ort
    makers["numpy"] = lambda: numpy_mx_fn(pair, case)
    return makers


def makers_of(pair, n, pkg, capi):
    """(makers, native input, ONNX-layout source bytes, element count) of a pair at ~n.
    QDQ rows: the QdqCase as the native input."""
    if isinstance(pair, QdqPair):
        case = qdq_case(pair, n)
        return qdq_makers(pair, case, pkg, capi), case, case.src_bytes, case.x.size
    if isinstance(pair, MxPair):
        case = mx_case(pair, n)
        return mx_makers(pair, case, pkg, capi), case, case.x.view(np.uint8), case.x.size
    native, src_bytes = make_source(pair, n)
    if pair.is_split:
        return split_makers(pair, native, pkg, capi), native, src_bytes, native.size
    return cast_makers(pair, native, src_bytes, n, pkg, capi), native, src_bytes, n


def count_diff(pair, a, b, n):
    """Elements whose bits (STRING: texts) differ between two comparable outputs."""
    if pair.is_split:
        return sum(
            int(np.count_nonzero(p.view(np.uint32) != q.view(np.uint32))) for p, q in zip(a, b)
        )
    if pair.dst == TP.STRING:
        return int(np.count_nonzero(a != b))
    return int(np.count_nonzero(element_codes(a, pair.dst, n) != element_codes(b, pair.dst, n)))


# --------------------------------------------------------------------------- one pair

# Cross-checked implementation -> Row.mismatch key. The other tensorcast calls share one key.
CHECK_KEY = {
    "astype": "ml_dtypes",
    "ORT": "ORT",
    "pyarrow": "pyarrow",
    "tc alloc": "tc variants",
    "tc Arrow": "tc variants",
    "C API": "tc variants",
    "tensorcast": "tc variants",  # QDQ rows: the package against the C API
    "numpy": "numpy",  # QDQ rows: the operator written out in numpy / ml_dtypes
}


@dataclass
class Row:
    pair: Pair
    n: int
    ns: dict = field(default_factory=dict)  # impl -> ns per call, or Unsupported text
    mismatch: dict = field(
        default_factory=dict
    )  # peer -> (count, n); "tc variants" -> {impl: count}
    memcpy_bytes: int = 0
    info: str = ""  # MX rows: the scale input ORT took


def fmt_mismatch(v, n):
    if isinstance(v, dict):  # tc variants: only the calls that differ are named
        bad = [f"{impl} {fmt_mismatch((c, n), n)}" for impl, c in v.items() if c]
        return "; ".join(bad) if bad else "0"
    count, n = v
    if count == 0:
        return "0"
    return f"{count} ({100.0 * count / n:.3g}%)"


def run_row(pair, n, pkg, capi, args):
    """Times every implementation of a pair at n elements and cross-checks their outputs."""
    t = lambda fn: measure(fn, args.min_sample, args.samples)  # noqa: E731
    makers, native, src_bytes, n = makers_of(pair, n, pkg, capi)
    row = Row(pair, n)
    main = ref = None
    # The output the others are compared with: the package's; QDQ rows: the C API's (the
    # package may lack quantize_linear), else the package's.
    main_impls = ("C API", "tensorcast") if isinstance(pair, (QdqPair, MxPair)) else ("tensorcast",)
    for impl, make in makers.items():
        try:
            call, result = make()
        except Unsupported as e:  # reported, not fatal: the run still shows the others
            row.ns[impl] = f"n/a ({e})"
            continue
        row.ns[impl] = t(call)
        if result is None:
            continue
        out = result()
        del call, result  # the implementation's buffers go before the next one's
        if main is None and impl in main_impls:
            main = out
            continue
        if impl == "astype":
            ref = out
        if main is None:
            continue
        if isinstance(pair, MxPair):  # {part: (count, elements)} (codes, scales, g)
            row.mismatch[CHECK_KEY[impl]] = mx_diff(main, out)
            continue
        count = count_diff(pair, main, out, n)
        if CHECK_KEY[impl] == "tc variants":
            row.mismatch.setdefault("tc variants", {})[impl] = count
        else:
            row.mismatch[CHECK_KEY[impl]] = (count, n)
    if pair.is_split and "tensorcast" in row.ns:
        row.ns["tc alloc"] = row.ns["tensorcast"]  # tc.split allocates: one call, both columns

    # memcpy of (source + destination bytes) / 2
    if isinstance(pair, MxPair):
        row.memcpy_bytes = native.memcpy_bytes(pair)
        row.info = native.ort_scales
    elif isinstance(pair, QdqPair):
        row.memcpy_bytes = native.memcpy_bytes(pair)
    elif pair.is_split:
        row.memcpy_bytes = native.nbytes  # reads x.nbytes, writes x.nbytes
    else:
        src_nbytes = text_bytes(native) if pair.src == TP.STRING else src_bytes.size
        dst_nbytes = text_bytes(ref) if pair.dst == TP.STRING else storage_bytes(pair.dst, n)
        row.memcpy_bytes = (src_nbytes + dst_nbytes) // 2
    row.ns["memcpy"] = memcpy_time(row.memcpy_bytes, t)
    return row


_MEMCPY = {}


def memcpy_time(nbytes, t):
    if nbytes not in _MEMCPY:
        a = np.ones(nbytes, np.uint8)
        b = np.zeros(nbytes, np.uint8)
        pa_, pb = ptr(a), ptr(b)
        _MEMCPY[nbytes] = t(lambda: ctypes.memmove(pb, pa_, nbytes))
    return _MEMCPY[nbytes]


def overhead_rows(pair, pkg, capi, args):
    """Per-call cost on tiny arrays: [(element count, {impl: ns per call or text})], each
    implementation called as in the main table."""
    t = lambda fn: measure(fn, args.min_sample, args.samples)  # noqa: E731
    out = []
    for size in args.overhead_sizes:
        makers, _, _, n = makers_of(pair, size, pkg, capi)
        if any(n == m for m, _ in out):  # Split: sizes below parts x parts give the same array
            continue
        res = {}
        for impl, make in makers.items():
            try:
                res[impl] = t(make()[0])
            except Unsupported as e:
                res[impl] = f"n/a ({e})"
        if pair.is_split and "tensorcast" in res:
            res["tc alloc"] = res["tensorcast"]
        out.append((n, res))
    return out


# --------------------------------------------------------------------------- report

IMPLS = [
    "tensorcast",
    "tc alloc",
    "tc Arrow",
    "C API",
    "ORT",
    "pyarrow",
    "astype",
    "copyto",
    "memcpy",
]
MEMCPY_RATIOS = ["tensorcast", "ORT", "pyarrow", "astype", "copyto"]
# (column title, numerator, denominator): t_numerator / t_denominator, calls doing the same work.
RATIOS = [
    ("tc/C API", "tensorcast", "C API"),
    ("ORT/tc", "ORT", "tensorcast"),
    ("pyarrow/tc Arrow", "pyarrow", "tc Arrow"),
    ("astype/tc alloc", "astype", "tc alloc"),
    ("copyto/tc", "copyto", "tensorcast"),
]
# Cross-checked outputs: Row.mismatch key -> column title.
CHECKED = {
    "ml_dtypes": "ml_dtypes/numpy",
    "ORT": "ORT",
    "pyarrow": "pyarrow",
    "tc variants": "other tc calls",
}
# Per-call overhead table: impl -> column title.
OVERHEAD_IMPLS = {
    "tensorcast": "tensorcast (out=)",
    "tc alloc": "tc alloc",
    "tc Arrow": "tc Arrow",
    "C API": "C API (ctypes)",
    "astype": "astype",
    "copyto": "copyto",
    "pyarrow": "pyarrow (compute.cast)",
    "ORT": "ORT (run_with_iobinding)",
}


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


def versions(pkg, capi):
    out = [f"Python {platform.python_version()}"]
    for name in ("numpy", "ml_dtypes", "onnx", "onnxruntime", "pyarrow", "matplotlib"):
        try:
            out.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            out.append(f"{name} (not installed)")
    tc = []
    if pkg is not None:
        tc.append(f"tensorcast package {pkg.version()} (Highway target {pkg.active_target()})")
    if capi is not None:
        tc.append(f"C API {capi.version()} (Highway target {capi.active_target()})")
    return ", ".join(tc + out)


def shown(rows, names):
    """The implementations of `names` that have a cell in some row (no --lib: no C API)."""
    return [i for i in names if any(i in r.ns for r in rows)]


def package_vs_capi(rows):
    """A line on tc/C API at the largest numeric size, or None without both columns."""
    sel = [
        r
        for r in rows
        if not r.pair.has_string
        and isinstance(r.ns.get("tensorcast"), float)
        and isinstance(r.ns.get("C API"), float)
    ]
    if not sel:
        return None
    size = max(r.n for r in sel)
    ratios = sorted((r.ns["tensorcast"] / r.ns["C API"], r.pair.label) for r in sel if r.n == size)
    worst = ratios[-1]
    return (
        f"- Package (out=) / C API at {size:,} elements, numeric pairs: median "
        f"{num(statistics.median(v for v, _ in ratios))}, highest {num(worst[0])} "
        f"({worst[1]})."
    )


def render(rows, overheads, pkg, capi, args, elapsed):
    qdq_rows = [r for r in rows if isinstance(r.pair, QdqPair)]
    mx_rows = [r for r in rows if isinstance(r.pair, MxPair)]
    rows = [r for r in rows if not isinstance(r.pair, (QdqPair, MxPair))]
    lines = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines.append("## tensorcast vs ONNX Runtime, pyarrow, ml_dtypes and numpy (one thread)")
    lines.append("")
    lines.append(f"- Machine: {machine()}")
    lines.append(f"- Date: {now}; run took {elapsed:.0f} s")
    lines.append(f"- Versions: {versions(pkg, capi)}")
    lines.append(f"- Command: `{' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}`")
    if rows:
        lines += render_cast(rows, args)
    else:
        lines.append("")
    if qdq_rows:
        lines += render_qdq(qdq_rows, args)
    if mx_rows:
        lines += render_mx(mx_rows, args)
    if overheads:
        lines += render_overhead(overheads)
    return "\n".join(lines)


def render_cast(rows, args):
    """The Cast and Split table with its notes."""
    lines = []
    lines.append(
        "- ns/element: median of "
        f"{args.samples} samples (each >= {args.min_sample * 1e3:.0f} ms)."
        " x memcpy = t_memcpy / t (memcpy of (src + dst bytes) / 2, same run)."
        " tensorcast = the package, `tc.cast(x, to, out=preallocated, threads=1)`"
        " (packed targets: packed=True; Split: `tc.split`, which allocates);"
        " tc alloc = `tc.cast(x, to, threads=1)` (allocates; packed targets come back"
        " unpacked, as astype's); tc Arrow = `tc.cast(pyarrow_array, to, threads=1)`;"
        " C API = tc_cast / tc_split via ctypes. astype and pyarrow (compute.cast)"
        " allocate their result, copyto and ORT (IOBinding) write preallocated buffers."
    )
    lines.append(
        "- Ratios: t_peer / t_tc of calls doing the same work (> 1: tensorcast faster):"
        " ORT and copyto against tensorcast, astype against tc alloc, pyarrow against"
        " tc Arrow. tc/C API = t_tensorcast / t_C API, the cost of the package's Python"
        " layer (> 1: the package is slower)."
    )
    lines.append(
        "- Mismatches: elements whose bits (STRING: texts) differ from the tensorcast"
        ' column\'s output; "other tc calls" names any of tc alloc, tc Arrow and the'
        " C API that differs (one library: a difference there is a bug)."
    )
    line = package_vs_capi(rows)
    if line:
        lines.append(line)
    lines.append("")
    impls = shown(rows, IMPLS)
    mem_ratios = [i for i in MEMCPY_RATIOS if i in impls]
    ratios = [r for r in RATIOS if r[1] in impls and r[2] in impls]
    checked = [k for k in CHECKED if any(k in r.mismatch for r in rows)]
    head = (
        ["pair", "elements"]
        + [f"{i} ns/el" for i in impls]
        + [f"{'tc' if i == 'tensorcast' else i} x memcpy" for i in mem_ratios]
        + [title for title, _, _ in ratios]
        + [f"mismatch vs {CHECKED[k]}" for k in checked]
    )
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    footnotes = {}

    def footnote(text):
        if text not in footnotes:
            footnotes[text] = len(footnotes) + 1
        return f"n/a [{footnotes[text]}]"

    def cell_ns(row, impl):
        v = row.ns.get(impl)
        if v is None:
            return "-"
        if isinstance(v, str):
            return footnote(v)
        return num(v / row.n)

    def ratio(a, b):
        return num(a / b, 3) if isinstance(a, float) and isinstance(b, float) else "-"

    for row in rows:
        ns = row.ns
        cells = [row.pair.label, f"{row.n:,}"]
        cells += [cell_ns(row, i) for i in impls]
        cells += [ratio(ns.get("memcpy"), ns.get(i)) for i in mem_ratios]
        cells += [ratio(ns.get(a), ns.get(b)) for _, a, b in ratios]
        cells += [
            fmt_mismatch(row.mismatch[k], row.n) if k in row.mismatch else "-" for k in checked
        ]
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
        lines.append("")
    lines.append("Layouts and inputs:")
    lines.append("")
    lines.append(
        "- i4 / f4e2m1 targets: tensorcast (packed=True), the C API and ORT write ONNX's "
        "packed layout (two elements per byte); tc alloc, astype and copyto ml_dtypes' "
        "unpacked layout (one per byte). i4 / f4e2m1 sources: the package takes the "
        "unpacked ml_dtypes array astype reads and packs it before the cast (it has no "
        "packed-input form); the C API and ORT read the packed bytes."
    )
    lines.append(
        "- STRING pairs run at --string-sizes elements (default 64K and 16M). numpy "
        "side: StringDType arrays (the package's input and output, astype's and "
        "copyto's). The C API reads views of one fixed-width bytes buffer and writes a "
        "caller arena with room for every text at its longest (33 bytes per element), "
        "which it fills in one pass. ORT's Python binding cannot bind a string input: "
        "string -> x runs `sess.run` on a fixed-width str array, which converts it to "
        "std::strings and allocates the output on every call; x -> string: ORT "
        "allocates its string output per run."
    )
    lines.append(
        "- Split: the package has no out= for Split; `tc.split` allocates its parts "
        "and its one timing fills both the tensorcast and tc alloc columns."
    )
    lines.append("")
    if any("pyarrow" in r.ns for r in rows):
        lines.append("pyarrow:")
        lines.append("")
        lines.append(
            "- `pyarrow.compute.cast(arr, target_type)` and tc Arrow (`tc.cast(arr, to, "
            "threads=1)`) of one pyarrow Array built once from the same input (not "
            "timed; STRING inputs: utf8 of the StringDType texts); both return a new "
            "Arrow array. `pa.set_cpu_count(1)`, `pa.set_io_thread_count(1)`. `-`: "
            "Arrow has no bfloat16, float8, float4, int4 or e8m0 type, and no Split."
        )
        lines.append(
            "- Numeric pairs run with `safe=False`: Arrow's default `safe=True` refuses "
            "lossy casts with ArrowInvalid (f32 -> i8 of a value with a fraction: "
            '"was truncated"; i64 -> f32 of an integer beyond 2^24: "not in '
            'range"). With `safe=False` float -> integer truncates toward zero like '
            "ONNX, but out-of-range values and NaN are a C++ static_cast (undefined; on "
            "x86 300.0 -> i8 44, NaN -> 0) where tensorcast saturates (docs/semantics.md)"
            "; the inputs here stay in range. STRING pairs use the default `safe=True` "
            "(a text that does not parse raises either way)."
        )
        lines.append("")
    return lines


# The QDQ table: implementations (C API first: the reference), their column titles.
QDQ_IMPLS = {
    "C API": "C API",
    "tensorcast": "package",
    "ORT": "ORT",
    "numpy": "numpy",
    "memcpy": "memcpy",
}
QDQ_MEMCPY_RATIOS = ["C API", "tensorcast", "ORT", "numpy"]
QDQ_RATIOS = [
    ("ORT/C API", "ORT", "C API"),
    ("numpy/C API", "numpy", "C API"),
    ("package/C API", "tensorcast", "C API"),
]
QDQ_CHECKED = {"ORT": "ORT", "numpy": "numpy", "tc variants": "package"}


def render_qdq(rows, args):
    """The QuantizeLinear / DequantizeLinear table with its notes."""
    lines = ["### QuantizeLinear / DequantizeLinear (one thread)", ""]
    lines.append(
        "- x: the seeded N(0, 1) FLOAT values as a [n / 4096, 4096] tensor. QL: FLOAT -> "
        "the type, DQ: the type -> FLOAT. Scales (FLOAT): per tensor 4 / qmax (qmax: 127 "
        "INT8 and UINT8, 7 INT4, 448 FLOAT8E4M3FN, 6 FLOAT4E2M1; the few |x| > 4 "
        "saturate); axis 0: one per row, axis 1: one per column, block 32: one per 32 "
        "consecutive elements of a row (block_size 32 on the last axis), each max|x| of "
        "its slice / qmax. Zero points (the scale's shape, seeded): INT8 U{-4..4}, UINT8 "
        "128 + U{-4..4}; INT4, FLOAT8E4M3FN and FLOAT4E2M1 have none (y's type from the "
        "node's output_dtype). DQ's input: numpy's QL of x (float types clipped to +-qmax)."
    )
    lines.append(
        f"- ns/element: median of {args.samples} samples (each >= "
        f"{args.min_sample * 1e3:.0f} ms). C API = tc_quantize_linear / "
        "tc_dequantize_linear (opset 28) via ctypes into a preallocated buffer; package = "
        "`tc.quantize_linear(x, s, zp, ..., out=preallocated, threads=1)` / "
        "`tc.dequantize_linear(q, s, zp, ..., out=preallocated, threads=1)` (only when the "
        "installed package has them); ORT = a one-node model at the newest opset its CPU "
        "provider takes (QuantizeLinear-25 / DequantizeLinear-25; opsets 26-27 run the "
        "same), x, scale and zero point as graph inputs, everything bound with IOBinding; "
        "numpy = the operator written out, allocating: QL `np.clip(np.rint(x / s) + zp, "
        "lo, hi).astype(dtype)` (no zero point: no `+ zp`), float8 / float4 `(x / "
        "s).astype(ml_dtypes type)`, DQ `(q.astype(np.float32) - zp) * s`; per-axis and "
        "blocked scales broadcast through reshaped views (blocked: x as [rows, 128, 32], "
        "s as [rows, 128, 1])."
    )
    lines.append(
        "- Layouts: INT4 / FLOAT4E2M1 are packed two per byte (ONNX's layout) for the C "
        "API, the package's QL (packed=True) and ORT; numpy reads and writes ml_dtypes' "
        "unpacked layout (one per byte), as does the package's DQ input. x memcpy = "
        "t_memcpy / t, memcpy of (x + scale + zero point + y bytes) / 2."
    )
    lines.append(
        "- Ratios t_peer / t_C API (> 1: tensorcast faster). Mismatches: elements whose "
        "bits differ from the C API's output (package: one library, a difference is a bug)."
    )
    lines.append("")
    impls = shown(rows, list(QDQ_IMPLS))
    mem_ratios = [i for i in QDQ_MEMCPY_RATIOS if i in impls]
    ratios = [r for r in QDQ_RATIOS if r[1] in impls and r[2] in impls]
    checked = [k for k in QDQ_CHECKED if any(k in r.mismatch for r in rows)]
    head = (
        ["row", "elements"]
        + [f"{QDQ_IMPLS[i]} ns/el" for i in impls]
        + [f"{QDQ_IMPLS[i]} x memcpy" for i in mem_ratios]
        + [title for title, _, _ in ratios]
        + [f"mismatch vs {QDQ_CHECKED[k]}" for k in checked]
    )
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    footnotes = {}

    def cell_ns(row, impl):
        v = row.ns.get(impl)
        if v is None or (impl == "ORT" and isinstance(v, str) and "NOT_IMPLEMENTED" in v):
            return "-"  # ORT without a kernel: "-", explained under the table
        if isinstance(v, str):
            footnotes.setdefault(v, len(footnotes) + 1)
            return f"n/a [q{footnotes[v]}]"
        return num(v / row.n)

    def ratio(a, b):
        return num(a / b, 3) if isinstance(a, float) and isinstance(b, float) else "-"

    for row in rows:
        ns = row.ns
        cells = [row.pair.label, f"{row.n:,}"]
        cells += [cell_ns(row, i) for i in impls]
        cells += [ratio(ns.get("memcpy"), ns.get(i)) for i in mem_ratios]
        cells += [ratio(ns.get(a), ns.get(b)) for _, a, b in ratios]
        cells += [
            fmt_mismatch(row.mismatch[k], row.n) if k in row.mismatch else "-" for k in checked
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for text, i in footnotes.items():
        lines.append(f"[q{i}] {text}")
    if footnotes:
        lines.append("")
    notes = [
        f"- {text}"
        for prefix, text in QDQ_NOTES
        if any(r.pair.label.startswith(prefix) for r in rows)
    ]
    missing = [
        r.pair.label
        for r in rows
        if isinstance(r.ns.get("ORT"), str) and "NOT_IMPLEMENTED" in r.ns["ORT"]
    ]
    if missing:
        notes.append(
            "- ORT `-`: its CPU provider has no kernel for the node (NOT_IMPLEMENTED; opsets "
            f"tried newest first: {', '.join(map(str, ORT_OPSETS))}): "
            + ", ".join(dict.fromkeys(missing))
            + "."
        )
    if notes:
        lines.append("Known differences and gaps (by definition, not errors):")
        lines.append("")
        lines += notes
        lines.append("")
    return lines


# The MX table: implementations (C API first: the reference), their column titles.
MX_IMPLS = QDQ_IMPLS
MX_MEMCPY_RATIOS = QDQ_MEMCPY_RATIOS
MX_RATIOS = [
    ("numpy/C API", "numpy", "C API"),
    ("ORT/C API", "ORT", "C API"),
    ("package/C API", "tensorcast", "C API"),
]
MX_CHECKED = QDQ_CHECKED


def fmt_mx_mismatch(parts):
    """{part: (count, elements)} -> "0", or the parts that differ with their share."""
    bad = [f"{k} {c} ({100.0 * c / m:.3g}%)" for k, (c, m) in parts.items() if c]
    return "; ".join(bad) if bad else "0"


def render_mx(rows, args):
    """The block-scaled quantization table (MX, NVFP4, absmax), its cross-check lines and
    notes."""
    lines = ["### Block-scaled quantization with the scales computed (one thread)", ""]
    lines.append(
        "- x: the seeded N(0, 1) FLOAT values as a [n / 4096, 4096] tensor (the QDQ rows' "
        "x), blocks along the last axis. MXFP8 e4m3: FLOAT8E4M3FN codes and one FLOAT8E8M0 "
        "scale per 32 elements, floor rule (OCP MX v1.0: e = floor(log2(amax)) - 8); MXFP4 "
        "e2m1: FLOAT4E2M1 codes (emax 2) and E8M0 scales likewise; NVFP4 e2m1: FLOAT4E2M1 "
        "codes, one FLOAT8E4M3FN scale per 16 elements and a computed FLOAT tensor scale; "
        "absmax i8: INT8 codes, one FLOAT scale per tensor (amax / 127)."
    )
    lines.append(
        f"- ns/element: median of {args.samples} samples (each >= "
        f"{args.min_sample * 1e3:.0f} ms). C API = tc_quantize_mx / tc_quantize_nvfp4 / "
        "tc_quantize_absmax via ctypes (NULL runner: one thread) into preallocated codes and "
        "scales (FLOAT4E2M1 packed two per byte); package = `tc.quantize_mx(x, fmt, "
        "block_size=, out=, scales_out=, threads=1)` / `tc.quantize_nvfp4` / "
        "`tc.quantize_absmax` into preallocated buffers (only when the installed package "
        "has quantize_mx); numpy = the rule written out with numpy + ml_dtypes as users "
        "write it, allocating (codes unpacked, one per byte). C API, package and numpy "
        "compute the scales and the codes."
    )
    lines.append(
        "- ORT = QuantizeLinear (opset 25; blocked: axis 1, block_size 32 / 16; "
        "output_dtype the codes' type) with the scales PRECOMPUTED, outside the timing (the "
        "C API's, numpy's without --lib): its time is the codes only, not the scales. MX: "
        "E8M0 scale input tried first (precision FLOAT), then the scales decoded to FLOAT "
        "(2^e, exact); NVFP4: the FLOAT block scales S = E4M3 value * g; absmax: the FLOAT "
        "scale. Column `ORT scales`: the scale input ORT took (and what it refused). `-`: "
        "no CPU kernel (see below)."
    )
    lines.append(
        "- x memcpy = t_memcpy / t, memcpy of (x + codes + scales bytes) / 2 (codes in "
        "ONNX's packed layout). Ratios t_peer / t_C API (> 1: tensorcast faster). "
        "Mismatches: elements whose bits differ from the C API's output, per part (codes, "
        "scales, NVFP4's tensor scale; ORT: codes only, its scales being the C API's); "
        "package: one library, a difference is a bug."
    )
    lines.append("")
    impls = shown(rows, list(MX_IMPLS))
    mem_ratios = [i for i in MX_MEMCPY_RATIOS if i in impls]
    ratios = [r for r in MX_RATIOS if r[1] in impls and r[2] in impls]
    checked = [k for k in MX_CHECKED if any(k in r.mismatch for r in rows)]
    head = (
        ["row", "elements"]
        + [f"{MX_IMPLS[i]} ns/el" for i in impls]
        + [f"{MX_IMPLS[i]} x memcpy" for i in mem_ratios]
        + [title for title, _, _ in ratios]
        + ["ORT scales"]
        + [f"mismatch vs {MX_CHECKED[k]}" for k in checked]
    )
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    footnotes = {}

    def no_kernel(row):
        v = row.ns.get("ORT")
        return isinstance(v, str) and "NOT_IMPLEMENTED" in v

    def cell_ns(row, impl):
        v = row.ns.get(impl)
        if v is None or (impl == "ORT" and no_kernel(row)):
            return "-"  # ORT without a kernel: "-", explained under the table
        if isinstance(v, str):
            footnotes.setdefault(v, len(footnotes) + 1)
            return f"n/a [m{footnotes[v]}]"
        return num(v / row.n)

    def ratio(a, b):
        return num(a / b, 3) if isinstance(a, float) and isinstance(b, float) else "-"

    for row in rows:
        ns = row.ns
        cells = [row.pair.label, f"{row.n:,}"]
        cells += [cell_ns(row, i) for i in impls]
        cells += [ratio(ns.get("memcpy"), ns.get(i)) for i in mem_ratios]
        cells += [ratio(ns.get(a), ns.get(b)) for _, a, b in ratios]
        cells.append("-" if no_kernel(row) else (row.info.split(";")[0] or "-"))
        cells += [fmt_mx_mismatch(row.mismatch[k]) if k in row.mismatch else "-" for k in checked]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for text, i in footnotes.items():
        lines.append(f"[m{i}] {text}")
    if footnotes:
        lines.append("")
    lines.append("Cross-check (elements whose bits differ from the C API's / elements):")
    lines.append("")
    for row in rows:
        checks = []
        for k in checked:
            if k in row.mismatch:
                parts = ", ".join(
                    f"{part} {c:,} / {m:,}" for part, (c, m) in row.mismatch[k].items()
                )
                checks.append(f"{MX_CHECKED[k]}: {parts}")
        if "C API" not in row.ns or isinstance(row.ns["C API"], str):
            checks = ["no C API output to compare with"]
        lines.append(f"- {row.pair.label}, {row.n:,} elements: " + ("; ".join(checks) or "-"))
    lines.append("")
    notes = [
        f"- {text}"
        for prefix, text in MX_NOTES
        if any(r.pair.label.startswith(prefix) for r in rows)
    ]
    refused = {}
    for r in rows:
        for part in r.info.split("; "):
            if part.startswith("refused "):
                refused.setdefault(part[len("refused ") :], []).append(r.pair.label)
    for reason, labels in refused.items():
        notes.append(
            f"- ORT refused {reason} (QuantizeLinear; FLOAT8E8M0 scales tried at opset 25 "
            f"with precision FLOAT, FLOAT scales at opsets {', '.join(map(str, ORT_OPSETS))}"
            "): " + ", ".join(dict.fromkeys(labels)) + "."
        )
    if notes:
        lines.append("Known differences and gaps (by definition, not errors):")
        lines.append("")
        lines += notes
        lines.append("")
    return lines


def render_overhead(overheads):
    """The per-call overhead table: [(pair label, [(n, {impl: ns})])]."""
    impls = [
        i for i in OVERHEAD_IMPLS if any(i in res for _, sized in overheads for _, res in sized)
    ]
    lines = ["### Per-call overhead (µs per call, small arrays)", ""]
    lines.append(
        "Each implementation called as in the table above, on arrays of the sizes "
        "shown (Split: square f32 arrays of at least 4 x 4). string -> x: ORT runs "
        "`sess.run` (a string input cannot be bound)."
    )
    lines.append("")
    lines.append("| pair | elements | " + " | ".join(OVERHEAD_IMPLS[i] for i in impls) + " |")
    lines.append("|---|---:|" + "---:|" * len(impls))
    for label, sized in overheads:
        for n, res in sized:
            cells = [label, f"{n:,}"]
            for impl in impls:
                v = res.get(impl)
                cells.append("-" if v is None else (v if isinstance(v, str) else num(v / 1e3)))
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def chart(rows, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qdq_rows = [r for r in rows if isinstance(r.pair, QdqPair)]
    mx_rows = [r for r in rows if isinstance(r.pair, MxPair)]
    rows = [r for r in rows if not isinstance(r.pair, (QdqPair, MxPair))]
    str_sizes = sorted({r.n for r in rows if r.pair.has_string})
    # A run of string pairs only (--pairs string) charts them by their own sizes.
    sizes = sorted({r.n for r in rows if not r.pair.has_string}) or str_sizes
    groups = []
    for i, size in enumerate(sizes):
        sel = [
            r
            for r in rows
            if (r.n == size and not r.pair.has_string)
            or (r.pair.has_string and i < len(str_sizes) and r.n == str_sizes[i])
        ]
        groups.append((f"{size:,} elements ({size // 1024}K), one thread", sel, shown(rows, IMPLS)))
    for size in sorted({r.n for r in qdq_rows}):
        sel = [r for r in qdq_rows if r.n == size]
        panel = (
            f"QuantizeLinear / DequantizeLinear, {size:,} elements ({size // 1024}K), one thread"
        )
        groups.append((panel, sel, shown(qdq_rows, list(QDQ_IMPLS))))
    for size in sorted({r.n for r in mx_rows}):
        sel = [r for r in mx_rows if r.n == size]
        panel = (
            "Block-scaled quantization, scales computed (MX, NVFP4, absmax), "
            f"{size:,} elements ({size // 1024}K), one thread"
        )
        groups.append((panel, sel, shown(mx_rows, list(MX_IMPLS))))
    colors = {
        "tensorcast": "#1f77b4",
        "tc alloc": "#aec7e8",
        "tc Arrow": "#17becf",
        "C API": "#9467bd",
        "ORT": "#d62728",
        "pyarrow": "#ff7f0e",
        "astype": "#2ca02c",
        "copyto": "#98df8a",
        "numpy": "#2ca02c",
        "memcpy": "#7f7f7f",
    }
    fig, axes = plt.subplots(len(groups), 1, figsize=(22, 5.5 * len(groups)), squeeze=False)
    for ax, (group_title, sel, impls) in zip(axes[:, 0], groups):
        width = 0.85 / len(impls)
        for k, impl in enumerate(impls):
            xs, ys = [], []
            for j, r in enumerate(sel):
                v = r.ns.get(impl)
                x = j + (k - (len(impls) - 1) / 2) * width
                if isinstance(v, float):
                    xs.append(x)
                    ys.append(v / r.n)
                elif isinstance(v, str):
                    ax.annotate(
                        "n/a",
                        (x, 0),
                        xycoords=("data", "axes fraction"),
                        xytext=(0, 3),
                        textcoords="offset points",
                        rotation=90,
                        ha="center",
                        va="bottom",
                        fontsize=7,
                        color=colors[impl],
                    )
            ax.bar(xs, ys, width, label=impl, color=colors[impl])
        ax.set_yscale("log")
        ax.set_ylabel("ns / element (log)")
        labels = [r.pair.label + (f"\n({r.n // 1024}K)" if r.pair.has_string else "") for r in sel]
        ax.set_xticks(range(len(sel)))
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
        ax.set_title(group_title)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(ncol=len(impls), fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --------------------------------------------------------------------------- main


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
    ap.add_argument(
        "--lib",
        type=Path,
        default=None,
        help="libtensorcast_c.so: adds the C API (ctypes) column (default: none)",
    )
    ap.add_argument(
        "--no-tensorcast",
        action="store_true",
        help="peers only (neither the package nor the C API)",
    )
    ap.add_argument("--sizes", default="64K,16M", help="element counts (default 64K,16M)")
    ap.add_argument(
        "--string-sizes",
        default="64K,16M",
        help="element counts of the STRING pairs (default 64K,16M, as the other pairs;"
        " 16M strings take a few minutes and several GB)",
    )
    ap.add_argument(
        "--string-magnitudes",
        type=int,
        default=0,
        metavar="K",
        help="values behind the STRING pairs: N(0, 1) x 10^U{-K..K} (default 0: N(0, 1))",
    )
    ap.add_argument(
        "--pairs",
        default="",
        help="comma-separated substrings of pair labels to run (default: all); 'qdq': "
        "every QuantizeLinear / DequantizeLinear row ('ql', 'dq', 'ql i8', 'block 32': "
        "substrings of their labels, e.g. 'QL i8 block 32'); 'mx': every block-scaled "
        "row ('mxfp', 'nvfp4', 'absmax': substrings of 'MXFP8 e4m3', 'MXFP4 e2m1', "
        "'NVFP4 e2m1', 'absmax i8')",
    )
    ap.add_argument(
        "--overhead-pairs",
        default=OVERHEAD_PAIRS,
        help="comma-separated labels of the pairs (among those run) in the per-call "
        f"overhead table, 'all', or '' for no table (default: {OVERHEAD_PAIRS})",
    )
    ap.add_argument(
        "--overhead-sizes",
        default="1,16,1024",
        help="element counts of the per-call overhead table (default 1,16,1024)",
    )
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--min-sample", type=float, default=0.02, help="seconds per sample")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: 4K and 64K elements (strings 4K and 16K), 3 samples of 5 ms",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=ROOT / "bench/results",
        help="directory for peers.md and peers.png (default bench/results)",
    )
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.string_sizes = "4K,64K", "4K,16K"
        args.samples, args.min_sample = 3, 0.005
    args.overhead_sizes = parse_sizes(args.overhead_sizes)

    pkg = capi = None
    if not args.no_tensorcast:
        try:
            import tensorcast
        except ImportError as e:
            sys.exit(
                f"peers.py: cannot import the tensorcast package ({e})\n"
                "  install it (pip install .; scripts/dev.sh peers does) or pass --no-tensorcast"
            )
        pkg = Package(tensorcast)
        if args.lib is not None:
            try:
                capi = CApi(args.lib)
            except OSError as e:
                sys.exit(
                    f"peers.py: cannot load {args.lib}: {e}\n"
                    "  build it (scripts/dev.sh peers does) or leave out --lib"
                )

    global STRING_MAGNITUDES
    STRING_MAGNITUDES = args.string_magnitudes
    sizes, str_sizes = parse_sizes(args.sizes), parse_sizes(args.string_sizes)
    wanted = [w.strip().lower() for w in args.pairs.split(",") if w.strip()]
    pairs = [
        p
        for p in PAIRS + QDQ_PAIRS + MX_PAIRS
        if not wanted or any(w in p.label.lower() or w == getattr(p, "group", None) for w in wanted)
    ]
    overhead_labels = {w.strip().lower() for w in args.overhead_pairs.split(",") if w.strip()}
    overhead_pairs = [  # Cast and Split only
        p
        for p in pairs
        if not isinstance(p, (QdqPair, MxPair))
        and ("all" in overhead_labels or p.label.lower() in overhead_labels)
    ]
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
            row = run_row(p, n, pkg, capi, args)
            rows.append(row)
            short = "  ".join(
                f"{k} {num(v / row.n) if isinstance(v, float) else 'n/a'}"
                for k, v in row.ns.items()
            )
            print(
                f"[{time.perf_counter() - start:6.1f}s] {p.label:24s} {row.n:>9,}  {short}  "
                f"({time.perf_counter() - t0:.1f}s)",
                file=sys.stderr,
                flush=True,
            )
    for p in overhead_pairs:
        overheads.append((p.label, overhead_rows(p, pkg, capi, args)))
    elapsed = time.perf_counter() - start

    text = render(rows, overheads, pkg, capi, args, elapsed)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "peers.md").write_text(text)
    png = args.out / "peers.png"
    chart(rows, png, f"{machine()}; {datetime.date.today()}; {versions(pkg, capi)}")
    print(text)
    print(f"wrote {args.out / 'peers.md'} and {png}", file=sys.stderr)


if __name__ == "__main__":
    main()
