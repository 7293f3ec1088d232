#!/usr/bin/env python3
"""Compares Google Benchmark JSON runs of two builds of the same benchmark binary.

    bench/compare_runs.py --before b1.json b2.json b3.json --after a1.json a2.json a3.json \
        [--threshold 0.05] [--markdown FILE] [--title TEXT]

Run the two binaries alternately (before, after, before, ...) on an otherwise idle machine,
one JSON file per run. A row "moved" when its speed ratio after/before (before time over
after time) is beyond 1 +- threshold in *every* pairing of repetition k of before with
repetition k of after; single outliers do not count. Rows are grouped by their size
suffix (the last component of the name before the options, e.g. 8KiB or 64MiB).

For out-of-cache rows the memory system drifts between runs, so the script also reports
the ratio of x_memcpy (the row's speed relative to memcpy measured inside the same row),
which cancels that drift, when the benchmark reports it.
"""

import argparse
import json
import statistics
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = b["name"].split("/min_time")[0].split("/real_time")[0]
        rows[name] = b
    return data.get("context", {}), rows


def size_of(name):
    return name.rsplit("/", 1)[-1]


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--before", nargs="+", required=True)
    ap.add_argument("--after", nargs="+", required=True)
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--markdown", help="write the report as Markdown to this file too")
    ap.add_argument("--title", default="Before / after")
    args = ap.parse_args()
    if len(args.before) != len(args.after):
        sys.exit("compare_runs.py: give as many --after runs as --before runs")
    before = [load(p) for p in args.before]
    after = [load(p) for p in args.after]
    names = sorted(set.intersection(*(set(r) for _, r in before + after)))
    if not names:
        sys.exit("compare_runs.py: the runs share no benchmark name")
    ctx = before[0][0]
    lines = [f"# {args.title}", ""]
    lines.append(
        f"CPU: {ctx.get('cpu_model', ctx.get('host_name', '?'))}, "
        f"{ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz; "
        f"{len(args.before)} repetitions, rows: {len(names)}, threshold {args.threshold:.0%}"
    )
    lines.append("")
    t = args.threshold
    sizes = sorted({size_of(n) for n in names})
    moved = {}
    for size in sizes:
        rows = [n for n in names if size_of(n) == size]
        time_ratios, mem_ratios = [], []
        slower, faster = [], []
        mem_slower = mem_faster = 0
        for n in rows:
            r = [b[n]["real_time"] / a[n]["real_time"] for (_, b), (_, a) in zip(before, after)]
            time_ratios.append(statistics.median(r))
            if all(
                "x_memcpy" in b[n] and "x_memcpy" in a[n] for (_, b), (_, a) in zip(before, after)
            ):
                mem_ratios.append(
                    statistics.median(
                        a[n]["x_memcpy"] / b[n]["x_memcpy"] for (_, b), (_, a) in zip(before, after)
                    )
                )
            if all(x < 1 - t for x in r):
                slower.append((n, r))
            elif all(x > 1 + t for x in r):
                faster.append((n, r))
            if mem_ratios and len(mem_ratios) == len(time_ratios):
                m = [a[n]["x_memcpy"] / b[n]["x_memcpy"] for (_, b), (_, a) in zip(before, after)]
                mem_slower += all(x < 1 - t for x in m)
                mem_faster += all(x > 1 + t for x in m)
        line = f"{size}: {len(rows)} rows, median speed after/before {statistics.median(time_ratios):.3f} (time)"
        if mem_ratios:
            line += f", {statistics.median(mem_ratios):.3f} (x_memcpy)"
        line += f"; slower by >{t:.0%} in all: {len(slower)}, faster: {len(faster)}"
        if mem_ratios:
            line += f" (by x_memcpy: {mem_slower} slower, {mem_faster} faster)"
        lines.append(line)
        moved[size] = (slower, faster)
    for size in sizes:
        slower, faster = moved[size]
        for label, group in (("slower", slower), ("faster", faster)):
            if not group:
                continue
            lines += [
                "",
                f"## {size}: {label} in every repetition",
                "",
                "| row | before ns | after ns | speed after/before | x_memcpy after/before |",
                "|---|---|---|---|---|",
            ]
            for n, r in sorted(group, key=lambda x: statistics.median(x[1])):
                bt = " ".join(f"{b[n]['real_time']:.4g}" for _, b in before)
                at = " ".join(f"{a[n]['real_time']:.4g}" for _, a in after)
                xm = " ".join(
                    f"{a[n]['x_memcpy'] / b[n]['x_memcpy']:.2f}"
                    if "x_memcpy" in a[n] and "x_memcpy" in b[n]
                    else "-"
                    for (_, b), (_, a) in zip(before, after)
                )
                lines.append(f"| {n} | {bt} | {at} | {' '.join(f'{x:.2f}' for x in r)} | {xm} |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
