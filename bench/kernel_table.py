#!/usr/bin/env python3
"""Renders kernel_bench JSON output as the markdown table of bench/results/kernels.md.

    build/bench/kernel_bench --benchmark_out=kb.json --benchmark_out_format=json
    python3 bench/kernel_table.py kb.json > bench/results/kernels.md

Per pair: ns/element and x_memcpy (memcpy time of the same bytes read + written over
the cast's time, measured in the same binary; > 1 is faster than memcpy) at the 8 KiB,
256 KiB and 64 MiB source sizes; then the performance targets: pairs below 0.9x memcpy
out of cache, and the in-cache time per element of the low-precision pairs relative to f32 -> f16.
Standard library only.
"""

import json
import platform
import re
import sys

SIZES = ["8KiB", "256KiB", "64MiB"]
SHORT = {
    "FLOAT": "f32",
    "DOUBLE": "f64",
    "FLOAT16": "f16",
    "BFLOAT16": "bf16",
    "FLOAT8E4M3FN": "e4m3fn",
    "FLOAT8E4M3FNUZ": "e4m3fnuz",
    "FLOAT8E5M2": "e5m2",
    "FLOAT8E5M2FNUZ": "e5m2fnuz",
    "FLOAT8E8M0": "e8m0",
    "FLOAT4E2M1": "f4e2m1",
    "INT8": "i8",
    "INT16": "i16",
    "INT32": "i32",
    "INT64": "i64",
    "UINT8": "u8",
    "UINT16": "u16",
    "UINT32": "u32",
    "UINT64": "u64",
    "INT4": "i4",
    "UINT4": "u4",
    "INT2": "i2",
    "UINT2": "u2",
    "BOOL": "bool",
}
# The low-precision pairs whose in-cache time per element is compared with f32 -> f16
# (docs/performance.md states the target).
LOW_PRECISION = [
    ("FLOAT", t)
    for t in (
        "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ",
        "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ",
        "FLOAT8E8M0",
        "INT4",
        "FLOAT4E2M1",
        "BFLOAT16",
    )
]
LOW_PRECISION += [
    (t, "FLOAT")
    for t in (
        "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ",
        "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ",
        "INT4",
        "FLOAT4E2M1",
    )
]


def fmt(x, digits=3):
    if x is None:
        return "-"
    return f"{x:.{digits}g}"


def main():
    data = json.load(open(sys.argv[1]))
    rows = {}  # (src, dst) -> {size: (ns, x, hub, target)}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") not in (None, "median"):
            continue
        m = re.match(r"Cast/(\w+)->(\w+)/(\w+)", b["name"])
        if not m:
            continue
        src, dst, size = m.groups()
        label = b.get("label", "")
        # ns_per_elem is an inverted rate counter: seconds per element in the JSON.
        rows.setdefault((src, dst), {})[size] = (
            b["ns_per_elem"] * 1e9,
            b["x_memcpy"],
            label.startswith("hub"),
            label.split()[-1],
        )
    ctx = data.get("context", {})
    targets = sorted({v[3] for r in rows.values() for v in r.values()})
    out = []
    out.append("## Cast kernels: throughput next to memcpy (one thread)\n")
    out.append(
        f"- Machine: {ctx.get('host_name', platform.node())}, "
        f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz; "
        f"caches: "
        + ", ".join(
            f"L{c['level']} {c['size'] // 1024} KiB"
            for c in ctx.get("caches", [])
            if c.get("type") != "Instruction"
        )
    )
    cpu = "?"
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in open("/proc/cpuinfo")
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    out.append(f"- CPU: {cpu}; date: {ctx.get('date', '?')}; Highway target: {', '.join(targets)}")
    out.append(
        "- ns/el: nanoseconds per element; x: memcpy time of the same bytes (read + "
        "written) over the cast's time, same binary (> 1: faster than memcpy). "
        "Sources: 8 KiB (L1), 256 KiB (L2), 64 MiB (out of cache). "
        "`hub`: the blocked two-step path (no direct kernel).\n"
    )
    out.append("| pair | path | 8 KiB ns/el | x | 256 KiB ns/el | x | 64 MiB ns/el | x |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|")
    for (src, dst), r in sorted(rows.items()):
        hub = any(v[2] for v in r.values())
        cells = []
        for s in SIZES:
            v = r.get(s)
            cells += [fmt(v[0]) if v else "-", fmt(v[1]) if v else "-"]
        out.append(
            f"| {SHORT.get(src, src)} -> {SHORT.get(dst, dst)} | "
            f"{'hub' if hub else 'kernel'} | " + " | ".join(cells) + " |"
        )

    out.append("\n### Out of cache: pairs below 0.9x memcpy at 64 MiB\n")
    slow = [(v["64MiB"][1], k) for k, v in rows.items() if "64MiB" in v and v["64MiB"][1] < 0.9]
    if not slow:
        out.append(f"None: all {len(rows)} pairs reach >= 0.9x memcpy.")
    else:
        out.append(f"{len(slow)} of {len(rows)} pairs:\n")
        for x, (src, dst) in sorted(slow):
            out.append(f"- {SHORT.get(src, src)} -> {SHORT.get(dst, dst)}: {x:.3f}x")
    out.append(
        f"\nMinimum over all pairs at 64 MiB: "
        f"{min(v['64MiB'][1] for v in rows.values() if '64MiB' in v):.3f}x memcpy."
    )

    out.append("\n### In cache: time per element relative to f32 -> f16\n")
    f16 = rows.get(("FLOAT", "FLOAT16"), {})
    out.append("| pair | 8 KiB ratio | 256 KiB ratio |")
    out.append("|---|---:|---:|")
    for src, dst in LOW_PRECISION:
        r = rows.get((src, dst), {})
        cells = []
        for s in SIZES[:2]:
            cells.append(f"{r[s][0] / f16[s][0]:.2f}" if s in r and s in f16 else "-")
        out.append(f"| {SHORT[src]} -> {SHORT[dst]} | " + " | ".join(cells) + " |")
    for s in SIZES[:2]:
        if s in f16:
            out.append(f"\nf32 -> f16 at {s}: {f16[s][0]:.4g} ns/element, {f16[s][1]:.3g}x memcpy.")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
