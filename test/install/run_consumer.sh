#!/usr/bin/env bash
# ctest entry install_consumer: installs the build tree into a temporary prefix inside
# the build directory, then uses it as a user would:
#   1. CMake: configures test/install (find_package(tensorcast 0.1 REQUIRED CONFIG),
#      CMAKE_PREFIX_PATH = the prefix), builds it, runs consumer_cxx and consumer_c;
#   2. pkg-config: compiles main.c with `pkg-config --cflags --libs tensorcast_c` and
#      main.cc with `pkg-config --static --cflags --libs tensorcast`, runs both.
# Any failing step fails the test.
#   run_consumer.sh CMAKE BUILD_DIR CONFIG VERSION C_COMPILER CXX_COMPILER PKG_CONFIG
# PKG_CONFIG empty: step 2 is skipped and the exit code is 77 (ctest: skipped).
set -euo pipefail

cmake=$1 build=$2 config=$3 version=$4 cc=$5 cxx=$6 pkg_config=$7
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$build/install-test
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" --config "$config" >"$work/install.log"

step "CMake consumer"
"$cmake" -S "$here" -B "$work/cmake" -DCMAKE_BUILD_TYPE="$config" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DEXPECTED_VERSION="$version" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
"$cmake" --build "$work/cmake" --config "$config" -j 2
"$work/cmake/consumer_cxx"
"$work/cmake/consumer_c"

step "pkg-config consumer"
if [ -z "$pkg_config" ]; then
  # ctest reports exit code 77 as skipped: install pkgconf (scripts/dev.sh does) to run it.
  echo "install_consumer: pkg-config not found, pkg-config step skipped" >&2
  exit 77
fi
pc=$(find "$prefix" -name tensorcast.pc -print -quit)
[ -n "$pc" ] || { echo "tensorcast.pc not installed" >&2; exit 1; }
[ -f "$(dirname "$pc")/tensorcast_c.pc" ] || { echo "tensorcast_c.pc not installed" >&2; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
# Only the installed modules (and the system's, for libhwy) are seen.
"$pkg_config" --exists --print-errors "tensorcast = $version" "tensorcast_c = $version"
libdir=$("$pkg_config" --variable=libdir tensorcast_c)
# shellcheck disable=SC2046  # word splitting of the flags is intended
"$cc" -std=c99 -Wall -Wextra -Werror -pedantic "$here/main.c" -o "$work/consumer_c_pc" \
  $("$pkg_config" --cflags --libs tensorcast_c) -Wl,-rpath,"$libdir"
# shellcheck disable=SC2046
"$cxx" -std=c++17 -Wall -Wextra -Werror "$here/main.cc" -o "$work/consumer_cxx_pc" \
  $("$pkg_config" --static --cflags --libs tensorcast) -Wl,-rpath,"$libdir"
"$work/consumer_c_pc"
"$work/consumer_cxx_pc"
echo "install_consumer: OK"
