#!/usr/bin/env bash
# ctest wrapper of the aarch64 cross build (test/CMakeLists.txt): runs one GoogleTest
# binary under qemu on the CPU model given by QEMU_CPU (set per ctest entry) and fails
# unless the intended Highway targets really ran:
#   1. with --dispatch TARGET: tensorcast dispatches to TARGET on this CPU (the
#      active_target probe is run under the same emulator and QEMU_CPU), i.e. the CPU
#      model is the intended one;
#   2. the binary exits 0 and passed at least one test. gtest says "Running 0 tests"
#      and exits 0 when --gtest_filter matches nothing, which must not count as a pass;
#   3. with --targets T1,T2,...: the binary runs with TENSORCAST_TEST_TARGETS=T1,T2,...
#      (test/target_loop.h: its kernel tests compare exactly these targets against the
#      reference, and fail if one is not compiled or not supported on this CPU), and
#      every "[ TARGETS  ] Suite.Test: ..." line it prints lists exactly T1 T2 ..., at
#      least one such line.
# usage: run_on_target.sh [--dispatch TARGET PROBE] [--targets LIST] EMULATOR TEST [ARGS...]
set -uo pipefail

expect="" probe="" targets=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dispatch) expect=$2 probe=$3; shift 3 ;;
    --targets) targets=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--dispatch TARGET PROBE] [--targets LIST] EMULATOR TEST [ARGS...]" >&2; exit 2; }
emulator=$1
shift
echo "QEMU_CPU=${QEMU_CPU:-<unset>}: $(basename "$1") ${*:2}${targets:+ (targets $targets)}"

if [ -n "$expect" ]; then
  active=$("$emulator" "$probe") || { echo "FAIL: $(basename "$probe") exited with $?"; exit 1; }
  if [ "$active" != "$expect" ]; then
    echo "FAIL: tensorcast dispatches to $active on QEMU_CPU=${QEMU_CPU:-<unset>}, expected $expect"
    exit 1
  fi
  echo "dispatch target: $active"
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ -n "$targets" ]; then
  TENSORCAST_TEST_TARGETS=$targets "$emulator" "$@" 2>&1 | tee "$log"
else
  "$emulator" "$@" 2>&1 | tee "$log"
fi
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo "FAIL: $(basename "$1") exited with $rc"
  exit 1
fi
passed=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -n 1)
if [ -z "$passed" ] || [ "$passed" -lt 1 ]; then
  echo "FAIL: $(basename "$1") passed ${passed:-no} tests (a filter that matched nothing?)"
  exit 1
fi
if [ -n "$targets" ]; then
  want=" ${targets//,/ }"
  lines=$(grep -c '^\[ TARGETS  \] ' "$log")
  if [ "$lines" -lt 1 ]; then
    echo "FAIL: no test reported the targets it ran on"
    exit 1
  fi
  wrong=$(grep '^\[ TARGETS  \] ' "$log" |
          while IFS= read -r line; do [ "${line#*:}" = "$want" ] || echo "$line"; done)
  if [ -n "$wrong" ]; then
    echo "FAIL: expected every test to run on$want; these did not:"
    echo "$wrong"
    exit 1
  fi
  echo "OK: $passed tests passed; $lines tests compared targets$want${expect:+ (dispatch target $expect)}"
else
  echo "OK: $passed tests passed${expect:+ on $expect}"
fi
