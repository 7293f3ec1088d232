#!/usr/bin/env bash
# One entry point for users and CI on Debian 12 (bookworm):
#   scripts/dev.sh report [IN]   install what is missing, build, run `tensorcast report`
#   scripts/dev.sh test          install what is missing, build, run the whole test suite in
#                                stages, timing each: the native suite (release), the aarch64
#                                suite under qemu (test-aarch64), the ASan + UBSan suite
#                                (test-asan), the ThreadSanitizer test (test-tsan), the Python
#                                package (test-python), then the libFuzzer targets, sharing
#                                TENSORCAST_FUZZ_SECONDS (default 180; fuzz). CI runs exactly
#                                this. TENSORCAST_SKIP_AARCH64=1, TENSORCAST_SKIP_SANITIZERS=1,
#                                TENSORCAST_SKIP_PYTHON=1 and TENSORCAST_SKIP_FUZZ=1 skip those
#                                stages (for a quick local run; CI skips nothing).
#   scripts/dev.sh test-aarch64  install the arm64 cross toolchain, qemu-user and the arm64
#                                libraries if missing, cross-build (build-aarch64) and run the
#                                GoogleTest suites under qemu, 2 at a time (test/CMakeLists.txt,
#                                TENSORCAST_QEMU_RUNS): kernel tests on NEON + SCALAR
#                                (neoverse-n1), SVE2_128 + SVE (128-bit), SVE_256 + SVE
#                                (256-bit), SVE2 (512-bit), one process per CPU; the unit
#                                tests once (256-bit CPU), their Split tests on every CPU.
#                                About 6 min of tests plus the cross build on 2 cores.
#   scripts/dev.sh test-asan     ASan + UBSan build (preset asan) and its tests: unit, kernel,
#                                Split, C API and CLI, on SSE4, AVX2 and the portable targets
#                                (16- and 32-byte vectors and the fallbacks; the fuzz stage
#                                runs AVX3_DL's 64-byte vectors under ASan where the CPU has it)
#   scripts/dev.sh test-tsan     ThreadSanitizer build (preset tsan: AVX2 and the portable
#                                targets only; races do not depend on the SIMD target) of the
#                                concurrency test
#   scripts/dev.sh test-python   the Python package: `pip install .` into the virtual
#                                environment build/py-venv (created if missing; the build
#                                requirements scikit-build-core and nanobind come from PyPI),
#                                the test tools (pytest, mypy, onnx, pyarrow, dask, distributed;
#                                numpy < 2.3 for the string-spelling oracle; ray[data] unless
#                                TENSORCAST_SKIP_RAY=1, which also skips the tests marked
#                                `ray`), then pytest over python/tests; the extension is
#                                built for AVX2 and the portable targets only
#   scripts/dev.sh fuzz [S]      the libFuzzer targets (preset fuzz, clang) on their seed
#                                corpora, S seconds in all (default 300) shared equally (six
#                                targets: 50 s each); prints the execution counts
#   scripts/dev.sh build         install what is missing, build only
#   scripts/dev.sh format-check  clang-format (14, .clang-format) --dry-run --Werror over every
#                                C/C++ file git tracks, then ruff format --check and ruff check
#                                over the Python files (CI runs it); `format` rewrites them
#   scripts/dev.sh peers [ARGS]  build libtensorcast_c.so, install onnxruntime, onnx, ml_dtypes,
#                                numpy, pyarrow and matplotlib from PyPI into build/peers-venv if
#                                missing, and the Python package (pip install .), run
#                                bench/peers.py ARGS (writes
#                                bench/results/peers.{md,png})
# Missing Debian packages are installed with apt-get (as root, or through sudo).
# Python packages for the differential test (onnx, ml_dtypes, numpy) go into a
# virtual environment under build/pyenv, installed from PyPI on first use.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

packages=(cmake g++ make ccache pkgconf libhwy-dev libgtest-dev libgmock-dev libbenchmark-dev
          libonnx-dev libprotobuf-dev nlohmann-json3-dev python3 python3-venv)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "scripts/dev.sh: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# aarch64 cross build (cmake/aarch64-linux-gnu.cmake, preset aarch64), Debian multiarch.
aarch64_packages=(cmake make crossbuild-essential-arm64 qemu-user libhwy-dev:arm64 libgtest-dev:arm64
                  libgmock-dev:arm64)

install_aarch64_missing() {
  local missing=()
  for p in "${aarch64_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "scripts/dev.sh: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
  $sudo apt-get update -qq -o DPkg::Lock::Timeout=600
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=600 "${missing[@]}" >/dev/null
}

test_aarch64() {
  install_aarch64_missing
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake --preset aarch64 "${launcher[@]}" >/dev/null
  cmake --build --preset aarch64
  ctest --preset aarch64 "$@"
}

build() {
  install_missing
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake --preset release "${launcher[@]}" >/dev/null
  cmake --build --preset release
}

launcher_args() {
  command -v ccache >/dev/null && echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache"
}

test_asan() {
  install_missing
  # shellcheck disable=SC2046
  cmake --preset asan $(launcher_args) >/dev/null
  cmake --build --preset asan
  ctest --preset asan "$@"
}

test_tsan() {
  install_missing
  # shellcheck disable=SC2046
  cmake --preset tsan $(launcher_args) >/dev/null
  cmake --build --preset tsan
  ctest --preset tsan "$@"
}

fuzz() {
  # The stage's budget, shared equally: adding a target does not lengthen the stage.
  local total=${1:-300} names=(parse_text cast split quantize npy pb safetensors)
  local seconds=$(( total / ${#names[@]} ))
  [ "$seconds" -ge 1 ] || seconds=1
  packages=(clang libclang-rt-14-dev)
  install_missing
  # shellcheck disable=SC2046
  cmake --preset fuzz $(launcher_args) >/dev/null
  cmake --build --preset fuzz
  local name work log runs
  for name in "${names[@]}"; do
    work=build-fuzz/corpus/$name
    mkdir -p "$work"
    log=build-fuzz/fuzz_$name.log
    # -malloc_limit_mb: no allocation may exceed 64 MiB for inputs of at most 4 KiB.
    if ! build-fuzz/test/fuzz/fuzz_$name -max_total_time="$seconds" -max_len=4096 \
         -malloc_limit_mb=64 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build-fuzz/ \
         "$work" test/fuzz/corpus/$name >"$log" 2>&1; then
      tail -40 "$log" >&2
      echo "fuzz_$name: FAILED (crash inputs: build-fuzz/crash-*, log: $log)" >&2
      return 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz_$name: ${runs:-?} executions in $seconds s, no failure"
  done
}

# Runs "$@" as the stage NAME ($1), prints its time and records it for the summary.
stage_times=()
stage() {
  local name=$1 start
  shift
  start=$(date +%s)
  echo "=== stage $name" >&2
  "$@"
  stage_times+=("$name $(( $(date +%s) - start )) s")
  echo "=== stage $name passed in $(( $(date +%s) - start )) s" >&2
}

test_all() {
  stage release build
  stage release-tests ctest --preset release "$@"
  [ "${TENSORCAST_SKIP_AARCH64:-0}" = 1 ] || stage aarch64 test_aarch64
  if [ "${TENSORCAST_SKIP_SANITIZERS:-0}" != 1 ]; then
    stage asan test_asan
    stage tsan test_tsan
  fi
  [ "${TENSORCAST_SKIP_PYTHON:-0}" = 1 ] || stage python test_python
  [ "${TENSORCAST_SKIP_FUZZ:-0}" = 1 ] || stage fuzz fuzz "${TENSORCAST_FUZZ_SECONDS:-180}"
  echo "stage times:"
  printf '  %s\n' "${stage_times[@]}"
}

# The Python package and its tests. The venv gets the package as users get it (`pip install
# .`, isolated build); CMAKE_ARGS passes ccache to the extension's CMake build.
python_test_packages="numpy>=1.24,<2.3 ml_dtypes>=0.5.4 onnx>=1.23 pyarrow pytest mypy dask[array] distributed"

test_python() {
  packages=(cmake g++ make ccache pkgconf libhwy-dev python3 python3-dev python3-venv)
  install_missing
  local venv=build/py-venv
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$venv"
    python3 -m venv "$venv"
  fi
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $python_test_packages
  local marks=(-m "not ray") engines=dask
  if [ "${TENSORCAST_SKIP_RAY:-0}" != 1 ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check "ray[data]"
    marks=()
    engines=dask,ray
  fi
  # The package as users build it, except for the Highway targets: AVX2 and the portable
  # fallbacks only (the native stages prove every target's kernels bit for bit; these tests
  # prove the bindings), which saves two thirds of the extension's compile time.
  CMAKE_ARGS="$(launcher_args) -DTENSORCAST_COMPILE_ALL_ATTAINABLE=OFF -DTENSORCAST_HWY_DISABLED_TARGETS=HWY_AVX3|HWY_AVX3_DL|HWY_SSE4|HWY_SSSE3" \
    "$venv/bin/pip" install --quiet --disable-pip-version-check .
  # The engines installed above must run: their tests fail rather than skip without them.
  TENSORCAST_REQUIRE_ENGINES=$engines \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -rs "${marks[@]}" python/tests "$@"
  # numpy 1.x at run time: the extension is built against numpy 2's headers (for
  # StringDType) and must keep its other paths on numpy 1, where there is no StringDType
  # (and no pyarrow release that supports it: the paths without pyarrow run too).
  local venv1=build/py-venv-numpy1
  if [ ! -x "$venv1/bin/python" ] || ! "$venv1/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$venv1"
    python3 -m venv "$venv1"
  fi
  "$venv1/bin/pip" install --quiet --disable-pip-version-check "numpy>=1.24,<2" "ml_dtypes>=0.5.4" pytest
  CMAKE_ARGS="$(launcher_args) -DTENSORCAST_COMPILE_ALL_ATTAINABLE=OFF -DTENSORCAST_HWY_DISABLED_TARGETS=HWY_AVX3|HWY_AVX3_DL|HWY_SSE4|HWY_SSSE3" \
    "$venv1/bin/pip" install --quiet --disable-pip-version-check .
  "$venv1/bin/python" -m pytest -q -p no:cacheprovider -rs python/tests/test_strings.py \
    python/tests/test_types.py python/tests/test_output_cache.py python/tests/test_stringdtype.py
}

# The C/C++ files that clang-format checks: every tracked *.h, *.cc, *.c and *.inc.
format_files() { git ls-files '*.h' '*.cc' '*.c' '*.inc'; }

format_check() {
  if ! command -v clang-format >/dev/null; then
    packages=(clang-format)
    install_missing
  fi
  format_files | xargs clang-format --dry-run --Werror
  echo "clang-format: $(format_files | wc -l) files match .clang-format"
  local ruff
  ruff=$(ruff_path)
  "$ruff" format --check .
  "$ruff" check .
}

# Python style: ruff, pinned (its formatting changes between versions), from PyPI into a
# venv of its own (build/lint-venv); the rules are pyproject.toml's [tool.ruff]. Prints the
# path of the ruff executable.
ruff_path() {
  local ruff_version=0.17.6 lint=build/lint-venv
  if [[ "$("$lint/bin/ruff" --version 2>/dev/null)" != "ruff $ruff_version" ]]; then
    packages=(python3 python3-venv)
    install_missing >&2
    rm -rf "$lint"
    python3 -m venv "$lint" >&2
    "$lint/bin/pip" install --quiet --disable-pip-version-check "ruff==$ruff_version" >&2
  fi
  echo "$lint/bin/ruff"
}

# Peer benchmark: tensorcast (C API via ctypes) vs ONNX Runtime, pyarrow, ml_dtypes and numpy.
peers() {
  install_missing
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake --preset release "${launcher[@]}" >/dev/null
  cmake --build --preset release --target tensorcast_c
  local pip_packages="onnxruntime onnx>=1.23 ml_dtypes>=0.5.4 numpy>=1.24,<2.3 pyarrow matplotlib"
  # The venv is made (and the peers installed) by python-env.sh; the package goes in after.
  TENSORCAST_PIP_PACKAGES=$pip_packages scripts/python-env.sh build/peers-venv /dev/null
  CMAKE_ARGS="$(launcher_args)" build/peers-venv/bin/pip install --quiet --disable-pip-version-check .
  exec build/peers-venv/bin/python bench/peers.py --lib build/lib/libtensorcast_c.so "$@"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  build) build ;;
  report) build; exec build/tools/tensorcast report "$@" ;;
  test) test_all "$@" ;;
  test-aarch64) test_aarch64 "$@" ;;
  format-check) format_check ;;
  test-asan) test_asan "$@" ;;
  test-tsan) test_tsan "$@" ;;
  test-python) test_python "$@" ;;
  fuzz) fuzz "$@" ;;
  format) format_files | xargs clang-format -i && "$(ruff_path)" format . && "$(ruff_path)" check --fix . ;;
  peers) peers "$@" ;;
  *) echo "usage: scripts/dev.sh report [IN] | test [ctest args] | test-aarch64 [ctest args] | test-asan | test-tsan | test-python [pytest args] | fuzz [total seconds] | build | format-check | format | peers [args]" >&2
     exit 2 ;;
esac
