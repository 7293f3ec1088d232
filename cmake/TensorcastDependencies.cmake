# Dependencies: find_package of Debian 12 packages only. Nothing is downloaded.
#   libhwy-dev                       -> hwy::hwy            (library)
#   libgtest-dev libgmock-dev        -> GTest::gtest        (tests)
#   libbenchmark-dev                 -> benchmark::benchmark (bench)
#   libonnx-dev libprotobuf-dev      -> onnx_proto          (conformance runner, CLI .pb files)
include_guard(GLOBAL)

find_package(hwy 1.0.3 REQUIRED CONFIG)
find_package(Threads REQUIRED)

if((TENSORCAST_BUILD_TESTS AND TENSORCAST_HOST_TESTS) OR TENSORCAST_BUILD_TOOLS)
  find_package(Protobuf REQUIRED)
  find_package(ONNX CONFIG REQUIRED)  # target onnx_proto
endif()
if(TENSORCAST_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(TENSORCAST_BUILD_TESTS AND TENSORCAST_HOST_TESTS)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
endif()
if(TENSORCAST_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED CONFIG)
endif()
