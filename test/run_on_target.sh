#!/usr/bin/env bash
# ctest wrapper of the aarch64 cross build (test/CMakeLists.txt): runs one GoogleTest
# binary under qemu on the CPU model given by QEMU_CPU (set per ctest entry) and fails
# unless the intended Highway target really ran:
#   1. with --dispatch TARGET: tensorcast dispatches to TARGET on this CPU (the
#      active_target probe is run under the same emulator and QEMU_CPU);
#   2. the binary exits 0 and passed at least one test. gtest says "Running 0 tests"
#      and exits 0 when --gtest_filter matches nothing (e.g. the CPU lacks the target
#      the filter names), which must not count as a pass;
#   3. with --instance TARGET: at least one test of a hwy::TestWithParamTarget suite
#      instantiated for TARGET (test name ending in /TARGET) passed.
# usage: run_on_target.sh [--dispatch TARGET PROBE] [--instance TARGET] EMULATOR TEST [ARGS...]
set -uo pipefail

expect="" probe="" instance=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dispatch) expect=$2 probe=$3; shift 3 ;;
    --instance) instance=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: $0 [--dispatch TARGET PROBE] [--instance TARGET] EMULATOR TEST [ARGS...]" >&2; exit 2; }
emulator=$1
shift
echo "QEMU_CPU=${QEMU_CPU:-<unset>}: $(basename "$1") ${*:2}"

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
"$emulator" "$@" 2>&1 | tee "$log"
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
if [ -n "$instance" ]; then
  ran=$(grep -c "^\[       OK \] .*/${instance} (" "$log")
  if [ "$ran" -lt 1 ]; then
    echo "FAIL: no test of the $instance instance passed"
    exit 1
  fi
  echo "OK: $passed tests passed, $ran of them on the $instance instance${expect:+, dispatch target $expect}"
else
  echo "OK: $passed tests passed${expect:+ on $expect}"
fi
