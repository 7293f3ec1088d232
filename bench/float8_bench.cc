// float8 family throughput (lib/kernels/float8_cast-inl.h): FLOAT and FLOAT16 <-> each
// float8 format, every saturate / round_mode variant of FLOAT -> float8, next to FLOAT ->
// FLOAT16 (the hardware-conversion yardstick) and memcpy of the same byte counts.
// Sizes: "L1" = 4096 elements for every row (16 KiB of FLOAT, 4 KiB of float8), so that
// time per element compares directly; "64MiB" = a 64 MiB source (out of cache).
// Kernels are called through the registry row (best target, no per-call table search).
// Counters: ns/elem; bytes_per_second counts bytes read + written (memcpy too; a memcpy
// row "memcpy/<N>B" copies N/2 bytes). Inputs: N(0, 1) x 0.05, like network weights.
//
//   build-*/bench/float8_bench --benchmark_filter='E4M3FN|memcpy'
#include <benchmark/benchmark.h>

#include "bench/bench_util.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "lib/dispatch/kernel_table.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;
using tensorcast::RoundMode;

constexpr size_t kL1Count = 4096;
constexpr size_t kMemSourceBytes = size_t{64} << 20;

// `count` float32 values N(0, 1) x 0.05 (bench_util.h).
std::vector<float> Sample(size_t count) { return tensorcast_bench::NormalSample(count, 0.05); }

size_t Bytes(DataType type, size_t count) { return tensorcast::StorageBytes(type, count); }

void BM_Kernel(benchmark::State& state, DataType from, DataType to, CastOptions o, size_t count) {
  const tensorcast::dispatch::CastKernel kernel = tensorcast::dispatch::FindKernel(from, to);
  if (kernel == nullptr) {
    state.SkipWithError("no kernel for the pair");
    return;
  }
  std::vector<unsigned char> src(Bytes(from, count)), dst(Bytes(to, count), 0);
  const std::vector<float> floats = Sample(count);
  if (!tensorcast::Cast(floats.data(), DataType::kFloat, src.data(), from, count).ok()) {
    state.SkipWithError("preparing the input");
    return;
  }
  for (auto _ : state) {
    kernel(src.data(), dst.data(), count, o);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(src.size() + dst.size()));
  state.counters["ns/elem"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(count),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// memcpy of `total` / 2 bytes: `total` bytes read + written, like a cast row.
void BM_Memcpy(benchmark::State& state, size_t total) {
  std::vector<unsigned char> src(total / 2, 1), dst(total / 2, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(2 * src.size()));
}

const bool kRegistered = [] {
  struct Row {
    DataType from, to;
    CastOptions o;
    std::string variant;
  };
  std::vector<Row> rows = {{DataType::kFloat, DataType::kFloat16, CastOptions{}, ""}};
  for (DataType t : {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                     DataType::kFloat8E5M2FNUZ}) {
    rows.push_back({DataType::kFloat, t, CastOptions{true, RoundMode::kUp}, "/sat"});
    rows.push_back({DataType::kFloat, t, CastOptions{false, RoundMode::kUp}, "/nosat"});
    rows.push_back({t, DataType::kFloat, CastOptions{}, ""});
    rows.push_back({DataType::kFloat16, t, CastOptions{}, ""});
    rows.push_back({t, DataType::kFloat16, CastOptions{}, ""});
  }
  for (bool sat : {true, false}) {
    for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
      rows.push_back({DataType::kFloat, DataType::kFloat8E8M0, CastOptions{sat, mode},
                      std::string(sat ? "/sat/" : "/nosat/") + tensorcast::RoundModeName(mode)});
    }
  }
  rows.push_back({DataType::kFloat8E8M0, DataType::kFloat, CastOptions{}, ""});
  rows.push_back({DataType::kFloat16, DataType::kFloat8E8M0, CastOptions{}, ""});
  rows.push_back({DataType::kFloat8E8M0, DataType::kFloat16, CastOptions{}, ""});

  std::set<size_t> memcpy_totals;
  for (const bool in_cache : {true, false}) {
    for (const Row& r : rows) {
      const size_t count =
          in_cache ? kL1Count
                   : kMemSourceBytes * 8 / static_cast<size_t>(tensorcast::BitWidth(r.from));
      const std::string name = std::string(tensorcast::DataTypeName(r.from)) + "->" +
                               tensorcast::DataTypeName(r.to) + r.variant +
                               (in_cache ? "/L1" : "/64MiB");
      benchmark::RegisterBenchmark(name.c_str(), BM_Kernel, r.from, r.to, r.o, count);
      memcpy_totals.insert(Bytes(r.from, count) + Bytes(r.to, count));
    }
  }
  for (size_t total : memcpy_totals) {
    benchmark::RegisterBenchmark(("memcpy/" + std::to_string(total) + "B").c_str(), BM_Memcpy,
                                 total);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
