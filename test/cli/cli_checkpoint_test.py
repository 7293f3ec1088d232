#!/usr/bin/env python3
"""`tensorcast cast` and `tensorcast quantize --format` on .safetensors checkpoints
(docs/checkpoints.md).

Rules tested:
- The output loads with the safetensors package (its Rust reader checks the header, the
  dtypes and that the tensors tile the data); tensors keep their names and file order,
  the input's metadata is kept.
- cast: the selected tensors (every value float tensor, or --include / --exclude) become
  the target type, the others are copied byte for byte; values are ml_dtypes' astype
  (round to nearest even), an independent oracle.
- quantize --format F: the selected tensors (2-D FLOAT / FLOAT16 / BFLOAT16, or the
  patterns) become codes under their own name and scales under NAME_scale (NVFP4: the
  tensor scale under NAME_scale_2), bit for bit what the library's quantizer gives for the
  same tensor (the C API through ctypes), with the format in the metadata.
- Errors exit 2 (command line) or 1 (files) with one message line and leave no output.

Usage: cli_checkpoint_test.py TENSORCAST LIBTENSORCAST_C WORKDIR (run under the
differential test's virtual environment: scripts/python-env.sh gives it numpy, ml_dtypes
and safetensors).
"""

import ctypes
import json
import os
import subprocess
import sys

import cli_files
import ml_dtypes
import numpy as np
from cli_files import check, run_tests, tensor_proto
from safetensors import deserialize
from safetensors.numpy import save_file

CLI = os.path.abspath(sys.argv[1])
LIB = ctypes.CDLL(os.path.abspath(sys.argv[2]))
WORK = os.path.abspath(sys.argv[3])

# ONNX type codes, and the safetensors dtypes the output must carry.
FLOAT, INT8, FLOAT16, BFLOAT16 = 1, 3, 10, 16
E4M3FN, E5M2, E8M0, E2M1, E2M3, E3M2 = 17, 19, 24, 23, 27, 28
FORMATS = {  # --format: (C API format code or absmax code type, codes dtype, scales dtype)
    "mxfp8_e4m3": (1, "F8_E4M3", "F8_E8M0"),
    "mxfp8_e5m2": (2, "F8_E5M2", "F8_E8M0"),
    "mxfp6_e2m3": (3, "F6_E2M3", "F8_E8M0"),
    "mxfp6_e3m2": (4, "F6_E3M2", "F8_E8M0"),
    "mxfp4": (5, "F4", "F8_E8M0"),
    "nvfp4": (6, "F4", "F8_E4M3"),
    "int8_absmax": (INT8, "I8", "F32"),
    "fp8_absmax": (E4M3FN, "F8_E4M3", "F32"),
}
CODE_BITS = {"F8_E4M3": 8, "F8_E5M2": 8, "F6_E2M3": 6, "F6_E3M2": 6, "F4": 4, "I8": 8}


class TcTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("type", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("rank", ctypes.c_size_t),
    ]


class TcBlockScaleOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("axis", ctypes.c_int64),
        ("block_size", ctypes.c_int64),
        ("scale_rule", ctypes.c_int32),
        ("runner", ctypes.c_void_p),
        ("stats", ctypes.c_void_p),
    ]


def library_quantize(fmt, x, axis=None, per_tensor=False):
    """What the library's quantizer gives for x: (codes bytes, scales bytes, global bytes)."""
    code, codes_dtype, _ = FORMATS[fmt]
    x = np.ascontiguousarray(x)
    xtype = {np.float32: FLOAT, np.float16: FLOAT16}.get(x.dtype.type, BFLOAT16)
    shape = (ctypes.c_int64 * x.ndim)(*x.shape)
    view = TcTensor(x.ctypes.data, xtype, shape, x.ndim)
    codes = ctypes.create_string_buffer(x.size * CODE_BITS[codes_dtype] // 8)
    if fmt.endswith("_absmax"):
        axis = 0 if axis is None else axis
        scales = (ctypes.c_float * (1 if per_tensor else x.shape[axis]))()
        rc = LIB.tc_quantize_absmax(
            ctypes.byref(view),
            code,
            int(not per_tensor),
            ctypes.c_int64(axis),
            codes,
            scales,
            None,
            None,
            None,
        )
        check(rc == 0, f"tc_quantize_absmax: {rc}")
        return codes.raw, bytes(scales), b""
    options = TcBlockScaleOptions(
        ctypes.sizeof(TcBlockScaleOptions), -1 if axis is None else axis, 0, 0, None, None
    )
    count = ctypes.c_size_t()
    rc = LIB.tc_block_scale_count(
        shape, ctypes.c_size_t(x.ndim), code, ctypes.byref(options), ctypes.byref(count), None
    )
    check(rc == 0, f"tc_block_scale_count: {rc}")
    scales = ctypes.create_string_buffer(count.value)
    if fmt == "nvfp4":
        g = ctypes.c_float()
        rc = LIB.tc_quantize_nvfp4(
            ctypes.byref(view), codes, scales, ctypes.byref(g), 0, ctypes.byref(options), None
        )
        check(rc == 0, f"tc_quantize_nvfp4: {rc}")
        return codes.raw, scales.raw, bytes(g)
    rc = LIB.tc_quantize_mx(ctypes.byref(view), code, codes, scales, ctypes.byref(options), None)
    check(rc == 0, f"tc_quantize_mx: {rc}")
    return codes.raw, scales.raw, b""


def path(name):
    return os.path.join(WORK, name)


def run(*args, env=None):
    return subprocess.run([CLI, *args], cwd=WORK, capture_output=True, timeout=120, env=env)


def ok(proc):
    check(proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr.decode(errors='replace')}")
    return proc


def leftovers():
    return cli_files.leftovers(WORK)


def expect_error(proc, code, *fragments):
    cli_files.expect_error_in(WORK, proc, code, *fragments)


def load(name):
    """-> (ordered [(name, dtype, shape, bytes)], metadata) through the safetensors package."""
    with open(path(name), "rb") as f:
        blob = f.read()
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8 : 8 + n])
    tensors = {k: v for k, v in deserialize(blob)}
    order = sorted(
        (k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"]
    )
    out = [
        (k, tensors[k]["dtype"], list(tensors[k]["shape"]), bytes(tensors[k]["data"]))
        for k in order
    ]
    return out, header.get("__metadata__", {})


def sample(seed=1):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((64, 96)) * np.exp(rng.uniform(-6, 6, (64, 1)))).astype(np.float32)
    w[3, 5] = 0.0
    w[7, :32] = 0.0  # an all-zero block
    return {
        "embed.weight": rng.standard_normal((40, 64)).astype(np.float32),
        "layer.0.weight": w,
        "layer.0.bias": rng.standard_normal(64).astype(np.float32),
        "layer.1.weight": rng.standard_normal((33, 72)).astype(np.float16),
        "position_ids": np.arange(12, dtype=np.int64).reshape(1, 12),
        "mask": (rng.uniform(size=(5,)) > 0.5),
    }


TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


@test
def cast_to_bfloat16_and_back():
    x = sample()
    save_file(x, path("in.safetensors"), metadata={"format": "pt", "note": "kept"})
    ok(run("cast", "--to", "bfloat16", "in.safetensors", "bf16.safetensors"))
    tensors, metadata = load("bf16.safetensors")
    check(metadata == {"format": "pt", "note": "kept"}, f"metadata {metadata}")
    names_in = [k for k, *_ in load_input_order("in.safetensors")]
    check([k for k, *_ in tensors] == names_in, "the tensors' order changed")
    for name, dtype, shape, data in tensors:
        src = x[name]
        check(shape == list(src.shape), f"{name}: shape {shape}")
        if src.dtype.kind == "f":
            check(dtype == "BF16", f"{name}: dtype {dtype}")
            want = src.astype(ml_dtypes.bfloat16).tobytes()
            check(data == want, f"{name}: bits differ from ml_dtypes")
        else:
            check(data == src.tobytes(), f"{name}: not copied as it was")
    ok(run("cast", "--to", "FLOAT", "bf16.safetensors", "back.safetensors"))
    for name, dtype, _, data in load("back.safetensors")[0]:
        if x[name].dtype.kind == "f":
            want = x[name].astype(ml_dtypes.bfloat16).astype(np.float32).tobytes()
            check(dtype == "F32" and data == want, f"{name}: FLOAT from BFLOAT16")


def load_input_order(name):
    return load(name)[0]


@test
def cast_patterns_select_tensors():
    x = sample()
    save_file(x, path("in.safetensors"))
    ok(
        run(
            "cast",
            "--to",
            "float8e4m3fn",
            "--include",
            "layer.*",
            "--exclude",
            "*.bias",
            "in.safetensors",
            "out.safetensors",
        )
    )
    dtypes = {k: d for k, d, *_ in load("out.safetensors")[0]}
    check(dtypes["layer.0.weight"] == "F8_E4M3", "layer.0.weight")
    check(dtypes["layer.1.weight"] == "F8_E4M3", "layer.1.weight")
    check(dtypes["layer.0.bias"] == "F32", "an excluded tensor was cast")
    check(dtypes["embed.weight"] == "F32", "a tensor not included was cast")
    data = {k: b for k, _, _, b in load("out.safetensors")[0]}
    want = x["layer.1.weight"].astype(ml_dtypes.float8_e4m3fn).tobytes()
    check(data["layer.1.weight"] == want, "FLOAT16 -> FLOAT8E4M3FN differs from ml_dtypes")


@test
def quantize_every_format_equals_the_library_quantizers():
    x = sample()
    save_file(x, path("in.safetensors"), metadata={"format": "pt"})
    for fmt, (_, codes_dtype, scales_dtype) in FORMATS.items():
        out = f"{fmt}.safetensors"
        ok(run("quantize", "--format", fmt, "--threads", "2", "in.safetensors", out))
        tensors, metadata = load(out)
        by_name = {k: (d, s, b) for k, d, s, b in tensors}
        q = json.loads(metadata["tensorcast.quantization"])
        check(q["format"] == fmt and metadata["format"] == "pt", f"{fmt}: metadata {metadata}")
        # The default: 2-D FLOAT / FLOAT16 / BFLOAT16 tensors only.
        want_names = ["embed.weight", "layer.0.weight", "layer.1.weight"]
        check(q["tensors"] == want_names, f"{fmt}: quantized {q['tensors']}")
        for name in want_names:
            codes, scales, g = library_quantize(fmt, x[name])
            check(by_name[name][0] == codes_dtype, f"{fmt} {name}: codes dtype")
            check(by_name[name][1] == list(x[name].shape), f"{fmt} {name}: codes shape")
            check(by_name[name][2] == codes, f"{fmt} {name}: codes differ from the library's")
            check(by_name[name + "_scale"][0] == scales_dtype, f"{fmt} {name}: scales dtype")
            check(by_name[name + "_scale"][2] == scales, f"{fmt} {name}: scales differ")
            if fmt == "nvfp4":
                check(by_name[name + "_scale_2"][:2] == ("F32", []), f"{name}: tensor scale")
                check(by_name[name + "_scale_2"][2] == g, f"{name}: tensor scale differs")
        for name in ("layer.0.bias", "position_ids", "mask"):
            check(by_name[name][2] == x[name].tobytes(), f"{fmt} {name}: not copied")
        # Block scales: x's shape with ceil(D / block) along the last axis.
        if not fmt.endswith("_absmax"):
            block = 16 if fmt == "nvfp4" else 32
            check(by_name["layer.1.weight_scale"][1] == [33, -(-72 // block)], "scale shape")
        else:
            check(by_name["layer.1.weight_scale"][1] == [33], "per-channel scale shape")


@test
def quantize_options_reach_the_quantizer():
    x = sample()
    save_file(x, path("in.safetensors"))
    ok(
        run(
            "quantize",
            "--format",
            "mxfp8_e4m3",
            "--axis",
            "0",
            "--include",
            "layer.0.weight",
            "in.safetensors",
            "a.safetensors",
        )
    )
    by_name = {k: (d, s, b) for k, d, s, b in load("a.safetensors")[0]}
    codes, scales, _ = library_quantize("mxfp8_e4m3", x["layer.0.weight"], axis=0)
    check(
        by_name["layer.0.weight"][2] == codes and by_name["layer.0.weight_scale"][2] == scales,
        "axis 0",
    )
    check(by_name["layer.0.weight_scale"][1] == [2, 96], "axis-0 scale shape")
    check("embed.weight_scale" not in by_name, "--include did not select")
    ok(
        run(
            "quantize", "--format", "int8_absmax", "--per-tensor", "in.safetensors", "b.safetensors"
        )
    )
    by_name = {k: (d, s, b) for k, d, s, b in load("b.safetensors")[0]}
    codes, scales, _ = library_quantize("int8_absmax", x["embed.weight"], per_tensor=True)
    check(
        by_name["embed.weight"][2] == codes and by_name["embed.weight_scale"][2] == scales,
        "per tensor",
    )
    check(by_name["embed.weight_scale"][1] == [], "a per-tensor scale is a scalar")


@test
def quantize_reads_npy_and_pb_inputs():
    w = sample()["layer.0.weight"]
    np.save(path("w.npy"), w)
    ok(run("quantize", "--format", "mxfp4", "w.npy", "w.safetensors"))
    by_name = {k: (d, s, b) for k, d, s, b in load("w.safetensors")[0]}
    codes, scales, _ = library_quantize("mxfp4", w)
    check(by_name["w"][2] == codes and by_name["w_scale"][2] == scales, ".npy input")
    # .pb: the TensorProto's name names the output tensors.
    pb = tensor_proto(list(w.shape), FLOAT, raw=w.tobytes(), name=b"proj.weight")
    with open(path("w.pb"), "wb") as f:
        f.write(pb)
    ok(run("quantize", "--format", "nvfp4", "w.pb", "p.safetensors"))
    by_name = {k: (d, s, b) for k, d, s, b in load("p.safetensors")[0]}
    codes, scales, g = library_quantize("nvfp4", w)
    check(by_name["proj.weight"][2] == codes, ".pb input: codes")
    check(by_name["proj.weight_scale"][2] == scales, ".pb input: scales")
    check(by_name["proj.weight_scale_2"][2] == g, ".pb input: tensor scale")


@test
def errors_leave_no_output():
    x = sample()
    save_file(x, path("in.safetensors"))
    expect_error(
        run("quantize", "--format", "mxfp4", "--scale", "2", "in.safetensors", "o.safetensors"),
        2,
        "--scale",
    )
    expect_error(
        run("quantize", "--format", "mxfp5", "in.safetensors", "o.safetensors"), 2, "mxfp8_e4m3"
    )
    expect_error(
        run("quantize", "--format", "mxfp4", "in.safetensors", "o.npy"),
        2,
        "must be a .safetensors file",
    )
    expect_error(
        run("cast", "--to", "INT4", "in.safetensors", "o.safetensors"),
        2,
        "safetensors has no dtype for INT4",
    )
    expect_error(
        run(
            "quantize",
            "--format",
            "mxfp4",
            "--include",
            "position_ids",
            "in.safetensors",
            "o.safetensors",
        ),
        1,
        "tensor 'position_ids' is INT64",
    )
    expect_error(
        run(
            "quantize",
            "--format",
            "mxfp4",
            "--include",
            "layer.0.bias",
            "--axis",
            "1",
            "in.safetensors",
            "o.safetensors",
        ),
        1,
        "has no axis 1",
    )
    save_file({"w": x["layer.0.weight"], "w_scale": x["layer.0.bias"]}, path("clash.safetensors"))
    expect_error(
        run("quantize", "--format", "mxfp4", "clash.safetensors", "o.safetensors"),
        1,
        "'w_scale', a name the checkpoint already has",
    )
    save_file({"w": np.ones((3, 5), np.float32)}, path("odd.safetensors"))
    expect_error(
        run("quantize", "--format", "mxfp4", "odd.safetensors", "o.safetensors"),
        1,
        "15 FLOAT4E2M1 elements do not fill whole bytes",
    )
    check(not os.path.exists(path("o.safetensors")), "an output appeared")


def main():
    return run_tests(TESTS, WORK)


if __name__ == "__main__":
    sys.exit(main())
