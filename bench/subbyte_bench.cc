// subbyte family throughput (lib/kernels/subbyte_cast-inl.h): FLOAT, FLOAT16, INT8 <->
// INT4, UINT4, INT2, UINT2, FLOAT4E2M1, next to FLOAT -> FLOAT16 (the F16C yardstick of
// the hardware-conversion yardstick) and memcpy of the same bytes, for 4096 elements (16 KiB of
// FLOAT: L1) and 16M elements (64 MiB of FLOAT: memory); sizes are in elements so that ns/elem
// compares directly across rows. Kernels are called through the registry row (best target, no
// per-call table search). Counters: ns per element; bytes_per_second counts bytes read + written
// (memcpy too). Inputs: N(0, 1) x 4 (so that every code of the 4- and 2-bit types occurs).
//
//   build-*/bench/subbyte_bench --benchmark_filter='INT4|memcpy'
#include <benchmark/benchmark.h>

#include "bench/bench_util.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lib/dispatch/kernel_table.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;

constexpr size_t kElements[] = {size_t{4096}, size_t{16} << 20};

std::string SizeName(size_t elements) {
  return elements >= (size_t{1} << 20) ? std::to_string(elements >> 20) + "M"
                                       : std::to_string(elements);
}

// `count` float32 values N(0, 1) x 4 (bench_util.h).
std::vector<float> Sample(size_t count) { return tensorcast_bench::NormalSample(count, 4.0); }

void BM_Kernel(benchmark::State& state, DataType from, DataType to, size_t count) {
  const tensorcast::dispatch::CastKernel kernel = tensorcast::dispatch::FindKernel(from, to);
  if (kernel == nullptr) {
    state.SkipWithError("no kernel for the pair");
    return;
  }
  const size_t src_bytes = tensorcast::StorageBytes(from, count);
  const size_t dst_bytes = tensorcast::StorageBytes(to, count);
  std::vector<unsigned char> src(src_bytes), dst(dst_bytes, 0);
  const std::vector<float> floats = Sample(count);
  if (!tensorcast::Cast(floats.data(), DataType::kFloat, src.data(), from, count).ok()) {
    state.SkipWithError("preparing the input");
    return;
  }
  const CastOptions o;
  for (auto _ : state) {
    kernel(src.data(), dst.data(), count, o);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(tensorcast::ActiveTargetName());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(src_bytes + dst_bytes));
  state.counters["ns/elem"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(count),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// memcpy of `bytes` (= the source + destination bytes of a cast row, split in half).
void BM_Memcpy(benchmark::State& state, size_t bytes) {
  std::vector<unsigned char> src(bytes / 2, 1), dst(bytes / 2, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes / 2);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes / 2 * 2));
}

const bool kRegistered = [] {
  const DataType kSub[] = {DataType::kInt4, DataType::kUint4, DataType::kInt2, DataType::kUint2,
                           DataType::kFloat4E2M1};
  std::vector<std::pair<DataType, DataType>> pairs = {{DataType::kFloat, DataType::kFloat16}};
  for (DataType wide : {DataType::kFloat, DataType::kFloat16, DataType::kInt8}) {
    for (DataType t : kSub) {
      if (wide == DataType::kInt8 && t == DataType::kFloat4E2M1) continue;
      pairs.emplace_back(wide, t);
      pairs.emplace_back(t, wide);
    }
  }
  for (size_t count : kElements) {
    std::set<size_t> totals;
    for (const auto& [from, to] : pairs) {
      totals.insert(tensorcast::StorageBytes(from, count) + tensorcast::StorageBytes(to, count));
      const std::string name = std::string(tensorcast::DataTypeName(from)) + "->" +
                               tensorcast::DataTypeName(to) + "/" + SizeName(count);
      benchmark::RegisterBenchmark(name.c_str(), BM_Kernel, from, to, count);
    }
    for (size_t total : totals) {
      benchmark::RegisterBenchmark(("memcpy/" + std::to_string(total) + "B").c_str(), BM_Memcpy,
                                   total);
    }
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
