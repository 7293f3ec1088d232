#!/usr/bin/env python3
"""Renders parallel_bench JSON output as markdown (bench/results/parallel*.md).

    build/bench/parallel_bench --benchmark_out=pb.json --benchmark_out_format=json
    python3 bench/parallel_table.py pb.json [kernel_bench.json] [--cpu "CPU model"] > bench/results/parallel_zen5.md

Sections: the machine; the hand-off crossover and small calls with a runner; Split and the
string pairs; then every numeric pair at 64M elements with x_limit1 (one thread against
the one-thread traffic limit), x_1thread (N threads against one) and x_limitN (N threads
against the N-thread traffic limit), and the lists of pairs below the targets:
one thread x_limit1 < 0.9, and N threads with x_1thread < 0.9 N and x_limitN < 0.9.
With a kernel_bench JSON of the same build and machine, a pair below 0.9 on one thread
is also given its in-cache (8 KiB) time over its traffic-limit time per element: above
0.9 the pair's own arithmetic is slower than the memory system, so it cannot reach 0.9.
Standard library only.
"""

import json
import re
import sys


def fmt(x, digits=3):
    return "-" if x is None else f"{x:.{digits}g}"


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    args = sys.argv[1:]
    model = ""
    if "--cpu" in args:
        k = args.index("--cpu")
        model = args[k + 1]
        del args[k : k + 2]
    data = load(args[0])
    kernel = load(args[1]) if len(args) > 1 else None
    ctx = data["context"]
    threads = int(ctx.get("threads", "2"))
    out = []
    out.append(f"# parallel_bench: {threads} threads against one\n")
    out.append(
        f"Machine: {model or 'not given (--cpu)'}; "
        f"{ctx.get('num_cpus')} CPUs, Highway target {ctx.get('active_target')}; "
        f"run {ctx.get('date')}.\n"
    )

    pairs, handoff, inline, other = {}, [], [], []
    for b in data["benchmarks"]:
        name = re.sub(r"/min_time:[0-9.]+|/real_time", "", b["name"])
        if name.startswith("Parallel/") and name.count("/") == 2:
            m = re.match(r"Parallel/(\w+)->(\w+)/", name)
            pairs[(m.group(1), m.group(2))] = b
        elif name.startswith("Handoff/"):
            handoff.append((name, b))
        elif name.startswith("Inline/"):
            inline.append((name, b))
        else:
            other.append((name, b))

    if handoff:
        out.append("\n## Hand-off: one call cut into tasks on the pool vs one call, hot buffers\n")
        out.append("| row | time | x_1thread |\n|---|---:|---:|")
        for name, b in handoff:
            out.append(f"| {name} | {b['real_time'] / 1e3:.2f} us | {fmt(b.get('x_1thread'))} |")
    if inline:
        out.append("\n## Small calls with the pool as runner (run inline) vs without\n")
        out.append("| row | time | x_no_runner | x_control |\n|---|---:|---:|---:|")
        for name, b in inline:
            out.append(
                f"| {name} | {b['real_time']:.1f} ns | {fmt(b.get('x_no_runner'))} "
                f"| {fmt(b.get('x_control'))} |"
            )
    if other:
        out.append("\n## Split and strings\n")
        out.append(
            "| row | time | GB/s | x_memcpyN | x_1thread | ns/element |\n"
            "|---|---:|---:|---:|---:|---:|"
        )
        for name, b in other:
            gbs = b.get("bytes_per_second")
            ns = b.get("ns_per_elem")
            out.append(
                f"| {name} | {b['real_time'] / 1e6:.2f} ms | "
                f"{fmt(gbs / 1e9 if gbs else None)} | {fmt(b.get('x_memcpyN'))} | "
                f"{fmt(b.get('x_1thread'))} | {fmt(ns * 1e9 if ns else None)} |"
            )

    in_cache = {}
    if kernel:
        for b in kernel["benchmarks"]:
            m = re.match(r"Cast/(\w+)->(\w+)/8KiB", b["name"])
            if m and b.get("ns_per_elem"):
                in_cache[(m.group(1), m.group(2))] = b["ns_per_elem"] * 1e9

    if pairs:
        out.append(f"\n## Every numeric pair, {threads} threads, 64M elements\n")
        out.append(
            "| pair | GB/s | x_limit1 | x_1thread | x_limitN | target |\n"
            "|---|---:|---:|---:|---:|---|"
        )
        below1, belowN = [], []
        for (s, d), b in pairs.items():
            met = b.get("target_met", 0) >= 1
            out.append(
                f"| {s} -> {d} | {b['bytes_per_second'] / 1e9:.1f} | "
                f"{fmt(b['x_limit1'])} | {fmt(b['x_1thread'])} | {fmt(b['x_limitN'])} | "
                f"{'met' if met else 'NOT met'} |"
            )
            if b["x_limit1"] < 0.9:
                below1.append((s, d, b))
            if not met:
                belowN.append((s, d, b))
        xl1 = sorted(b["x_limit1"] for b in pairs.values())
        out.append(
            f"\nOne thread: {len(pairs) - len(below1)} of {len(pairs)} pairs at x_limit1 "
            f">= 0.9 (median {xl1[len(xl1) // 2]:.3g}). {threads} threads: "
            f"{len(pairs) - len(belowN)} of {len(pairs)} meet x_1thread >= "
            f"{0.9 * threads:.2g} or x_limitN >= 0.9.\n"
        )
        out.append("\n### One thread below x_limit1 0.9\n")
        head = "| pair | x_limit1 |"
        if in_cache:
            head += " in-cache ns/el | limit ns/el | in-cache / limit |"
        out.append(head + "\n|---|---:|" + ("---:|---:|---:|" if in_cache else ""))
        for s, d, b in sorted(below1, key=lambda r: r[2]["x_limit1"]):
            row = f"| {s} -> {d} | {fmt(b['x_limit1'])} |"
            if in_cache:
                # The one-thread limit's time per element: the cast's one-thread time (the
                # N-thread time times x_1thread) times x_limit1.
                elements = int(re.search(r"/(\d+)M", b["name"]).group(1)) << 20
                t1 = b["real_time"] * b["x_1thread"]
                limit_ns = t1 * b["x_limit1"] / elements
                ic = in_cache.get((s, d))
                row += f" {fmt(ic)} | {fmt(limit_ns)} | {fmt(ic / limit_ns if ic else None)} |"
            out.append(row)
        out.append(f"\n### {threads} threads below target\n")
        out.append("| pair | x_1thread | x_limitN |\n|---|---:|---:|")
        for s, d, b in sorted(belowN, key=lambda r: r[2]["x_limitN"]):
            out.append(f"| {s} -> {d} | {fmt(b['x_1thread'])} | {fmt(b['x_limitN'])} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
