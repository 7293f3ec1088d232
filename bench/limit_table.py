#!/usr/bin/env python3
"""The one-thread x_limit table of the 24 headline pairs, at 64 MiB and out of cache.

    python3 bench/limit_table.py [--bench build/bench/kernel_bench] [--cpu N] [--json F]
        [--offset]

Runs kernel_bench on the rows Cast/SRC->DST/64MiB and Cast/SRC->DST/ooc of the headline
pairs (ooc: source + destination of at least 1 GiB and four times the last-level cache;
x_limit against the fastest no-arithmetic kernel of the same bytes, bench_util.h), pinned
to one CPU (taskset, --cpu; default: the last CPU), and prints a Markdown table with the
CPU model. --offset adds the rows with both buffers 16 bytes past a 64-byte boundary.
Takes about two minutes. Standard library only.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HEADLINE = [
    ("FLOAT", "FLOAT16"),
    ("FLOAT16", "FLOAT"),
    ("FLOAT", "BFLOAT16"),
    ("BFLOAT16", "FLOAT"),
    ("DOUBLE", "FLOAT"),
    ("FLOAT", "DOUBLE"),
    ("FLOAT", "INT32"),
    ("INT32", "FLOAT"),
    ("INT64", "FLOAT"),
    ("FLOAT", "INT8"),
    ("UINT8", "FLOAT"),
    ("FLOAT", "FLOAT8E4M3FN"),
    ("FLOAT8E4M3FN", "FLOAT"),
    ("FLOAT", "FLOAT8E5M2"),
    ("FLOAT", "FLOAT8E4M3FNUZ"),
    ("FLOAT", "FLOAT8E8M0"),
    ("FLOAT", "FLOAT4E2M1"),
    ("FLOAT4E2M1", "FLOAT"),
    ("FLOAT", "INT4"),
    ("INT4", "FLOAT"),
    ("FLOAT", "UINT2"),
    ("FLOAT", "BOOL"),
    ("FLOAT16", "FLOAT8E4M3FN"),
    ("BFLOAT16", "FLOAT8E5M2"),
]


def cpu_model():
    model = family = number = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "model name":
                    model = value
                elif key == "cpu family":
                    family = value
                elif key == "model":
                    number = value
    except OSError:
        pass
    return f"{model} (family {family} model {number})"


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--bench", default="build/bench/kernel_bench")
    ap.add_argument("--cpu", type=int, default=os.cpu_count() - 1)
    ap.add_argument("--json", help="keep kernel_bench's JSON output in this file")
    ap.add_argument("--offset", action="store_true", help="also the /off16 rows")
    args = ap.parse_args()
    names = "|".join(f"{s}->{d}" for s, d in HEADLINE)
    sizes = "(64MiB|ooc)(/off16)?/" if args.offset else "(64MiB|ooc)/"
    out = args.json or tempfile.mkstemp(suffix=".json")[1]
    cmd = [
        args.bench,
        f"--benchmark_filter=^Cast/({names})/{sizes}",
        "--large_min_time=0.2",
        "--reps=3",
        "--benchmark_format=json",
        f"--benchmark_out={out}",
    ]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", str(args.cpu)] + cmd
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        rows = {
            b["name"].split("/real_time")[0].split("/min_time")[0]: b
            for b in json.load(f)["benchmarks"]
        }
    if not args.json:
        os.unlink(out)
    cols = ["64MiB", "ooc"] + (["ooc/off16"] if args.offset else [])
    print(
        f"One thread, pinned to CPU {args.cpu}; {cpu_model()}; "
        f"target {next(iter(rows.values()))['label'] if rows else '?'}\n"
    )
    print("| pair | " + " | ".join(f"x_limit {c}" for c in cols) + " | ns/element ooc |")
    print("|---|" + "---:|" * (len(cols) + 1))
    missing = 0
    for s, d in HEADLINE:
        cells = []
        for c in cols:
            b = rows.get(f"Cast/{s}->{d}/{c}")
            cells.append(f"{b['x_limit']:.2f}" if b and "x_limit" in b else "-")
            missing += b is None
        b = rows.get(f"Cast/{s}->{d}/ooc")
        ns = f"{b['ns_per_elem'] * 1e9:.3f}" if b else "-"
        print(f"| {s} -> {d} | " + " | ".join(cells) + f" | {ns} |")
    if missing:
        sys.exit(f"limit_table.py: {missing} rows missing from {args.bench}'s output")


if __name__ == "__main__":
    main()
