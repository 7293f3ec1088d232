# Options, language level and warning flags of tensorcast.
include_guard(GLOBAL)

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
# A top-level build without a build type is a Release build; as a subproject, the parent
# project's choice stands.
if(PROJECT_IS_TOP_LEVEL AND NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

option(BUILD_SHARED_LIBS "Build tensorcast as a shared library" OFF)
# A cross build (cmake/aarch64-linux-gnu.cmake) builds the library and the GoogleTest
# suites, which ctest runs under qemu; the tools need libonnx for the target and the
# benchmarks mean nothing under qemu, so both default to OFF there.
set(_tensorcast_native ON)
if(CMAKE_CROSSCOMPILING)
  set(_tensorcast_native OFF)
endif()
set(_tensorcast_native_top OFF)
if(PROJECT_IS_TOP_LEVEL AND _tensorcast_native)
  set(_tensorcast_native_top ON)
endif()
option(TENSORCAST_BUILD_TESTS "Build the tests" ${PROJECT_IS_TOP_LEVEL})
option(TENSORCAST_BUILD_TOOLS "Build the tensorcast command-line program" ${_tensorcast_native_top})
option(TENSORCAST_BUILD_BENCHMARKS "Build the Google Benchmark programs" ${_tensorcast_native_top})
option(TENSORCAST_HOST_TESTS
       "Also build the tests that run on the build machine only: ONNX conformance runner, 2^32 sweep, Python differential test"
       ${_tensorcast_native})
# The Python package (python/, built by `pip install .`): nanobind extension + stubs.
option(TENSORCAST_BUILD_PYTHON "Build the Python extension module (needs nanobind; see pyproject.toml)" OFF)
option(TENSORCAST_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
option(TENSORCAST_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
option(TENSORCAST_TSAN "Build with ThreadSanitizer" OFF)
option(TENSORCAST_FUZZ "Build the libFuzzer targets of test/fuzz (clang; preset fuzz)" OFF)
option(TENSORCAST_INSTALL "Generate the install rules (cmake --install)" ${PROJECT_IS_TOP_LEVEL})
# Tests force every compiled target, the scalar fallback included; without tests, Highway's
# default set (the targets worth dispatching to) is compiled.
option(TENSORCAST_COMPILE_ALL_ATTAINABLE
       "Compile every attainable Highway target (incl. the scalar fallback) so tests can force each"
       ${TENSORCAST_BUILD_TESTS})
# Highway targets left out of the build, as HWY_DISABLED_TARGETS (e.g. "HWY_SSSE3|HWY_AVX3").
# The fuzz preset uses it with -march=haswell to compile two targets only: clang 14 takes
# minutes per kernel TU for its EMU128 fallback under the sanitizers.
set(TENSORCAST_HWY_DISABLED_TARGETS "" CACHE STRING
    "Highway targets not to compile (HWY_DISABLED_TARGETS), e.g. HWY_SSSE3|HWY_AVX3")
# The ONNX node-test data is not part of the repository; by default it is looked up next to
# the checkout. The conformance test reports "skipped" when the folder is absent.
set(TENSORCAST_ONNX_NODE_TESTS "${PROJECT_SOURCE_DIR}/../shared/onnx-node-tests" CACHE PATH
    "Folder of ONNX conformance data (test_cast_*, test_castlike_*, legacy-v1.18.0)")

# Warning set for every target of the project.
add_library(tensorcast_warnings INTERFACE)
target_compile_options(tensorcast_warnings INTERFACE -Wall -Wextra -Wshadow
  $<$<BOOL:${TENSORCAST_WARNINGS_AS_ERRORS}>:-Werror>)

if(TENSORCAST_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
if(TENSORCAST_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
