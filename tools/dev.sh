#!/usr/bin/env bash
# One entry point for users and CI on Debian 12 (bookworm):
#   tools/dev.sh report [IN]   install what is missing, build, run `tensorcast report`
#   tools/dev.sh test          install what is missing, build, run the whole test suite
#   tools/dev.sh build         install what is missing, build only
# Missing Debian packages are installed with apt-get (as root, or through sudo).
# Python packages for the differential test (onnx, ml_dtypes, numpy) go into a
# virtual environment under build/pyenv, installed from PyPI on first use.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

packages=(cmake g++ make ccache libhwy-dev libgtest-dev libgmock-dev libbenchmark-dev
          libonnx-dev libprotobuf-dev python3 python3-venv)

install_missing() {
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "tools/dev.sh: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
  install_missing
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake --preset release "${launcher[@]}" >/dev/null
  cmake --build --preset release
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  build) build ;;
  report) build; exec build/tools/tensorcast report "$@" ;;
  test) build; ctest --preset release "$@" ;;
  *) echo "usage: tools/dev.sh report [IN] | test [ctest args] | build" >&2; exit 2 ;;
esac
