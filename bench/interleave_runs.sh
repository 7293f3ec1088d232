#!/usr/bin/env bash
# Runs two builds of a Google Benchmark program alternately (before, after, before, ...),
# REPS times each, writing OUTDIR/before_K.json and OUTDIR/after_K.json, then compares them
# with bench/compare_runs.py (rows that moved beyond 5% in every repetition).
#   bench/interleave_runs.sh BEFORE_BINARY AFTER_BINARY REPS OUTDIR [benchmark args...]
# Example (kernel_bench, the 8 KiB and 64 MiB rows):
#   bench/interleave_runs.sh old/kernel_bench build/bench/kernel_bench 3 /tmp/ba \
#       --benchmark_filter='/(8KiB|64MiB)' --large_min_time=0.05
# Run it on an otherwise idle machine: a build on the other core is noise.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 BEFORE AFTER REPS OUTDIR [benchmark args...]" >&2; exit 2; }
before=$1 after=$2 reps=$3 out=$4
shift 4
mkdir -p "$out"
# The CPU model, recorded in every JSON file (compare_runs.py names it).
cpu=$(awk -F': ' '/^model name/ {m=$2} /^cpu family/ {f=$2} /^model\t/ {n=$2}
      END {printf "%s (family %s model %s)", m, f, n}' /proc/cpuinfo)
for ((k = 1; k <= reps; ++k)); do
  for which in before after; do
    bin=$before
    [ "$which" = after ] && bin=$after
    echo "$(date +%T) $which $k" >&2
    "$bin" "$@" --benchmark_context=cpu_model="$cpu" --benchmark_format=json --benchmark_out="$out/${which}_$k.json" >/dev/null
  done
done
befores=() afters=()
for ((k = 1; k <= reps; ++k)); do
  befores+=("$out/before_$k.json")
  afters+=("$out/after_$k.json")
done
exec python3 "$(dirname "${BASH_SOURCE[0]}")/compare_runs.py" --before "${befores[@]}" \
  --after "${afters[@]}" --markdown "$out/comparison.markdown"
