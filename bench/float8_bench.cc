// float8 family throughput (lib/kernels/float8_cast-inl.h): FLOAT and FLOAT16 <-> each
// float8 format, every saturate / round_mode variant of FLOAT -> float8, next to FLOAT ->
// FLOAT16 (the F16C yardstick of issue 3) and memcpy of the same bytes, for a 16 KiB
// (L1) and a 64 MiB (memory) source. Kernels are called through the registry row (best
// target, no per-call table search). Counters: ns per element; bytes_per_second counts
// bytes read + written (memcpy too). Inputs: N(0, 1) x 0.05, like network weights.
//
//   build-*/bench/float8_bench --benchmark_filter='E4M3FN|memcpy'
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/dispatch/cast_kernels.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;
using tensorcast::RoundMode;

constexpr size_t kSourceBytes[] = {size_t{16} << 10, size_t{64} << 20};

std::string SizeName(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + "MiB"
                                    : std::to_string(bytes >> 10) + "KiB";
}

// `count` float32 values N(0, 1) x 0.05 from a fixed-seed generator (65536, tiled).
std::vector<float> Sample(size_t count) {
  std::vector<float> tile(65536);
  uint64_t state = 0x5EEDull;
  auto uniform = [&state] {  // SplitMix64 -> (0, 1]
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (static_cast<double>((z ^ (z >> 31)) >> 11) + 1) * 0x1.0p-53;
  };
  for (float& x : tile) {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    x = static_cast<float>(0.05 * r * std::cos(6.283185307179586 * uniform()));
  }
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = tile[i % tile.size()];
  return v;
}

void BM_Kernel(benchmark::State& state, DataType from, DataType to, CastOptions o,
               size_t src_bytes) {
  const tensorcast::kernels::CastKernel kernel = tensorcast::kernels::FindKernel(from, to);
  if (kernel == nullptr) {
    state.SkipWithError("no kernel for the pair");
    return;
  }
  const size_t count = src_bytes * 8 / static_cast<size_t>(tensorcast::BitWidth(from));
  const size_t dst_bytes = tensorcast::StorageBytes(to, count);
  std::vector<unsigned char> src(src_bytes), dst(dst_bytes, 0);
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
  const DataType kF8[] = {DataType::kFloat8E4M3FN, DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
                          DataType::kFloat8E5M2FNUZ};
  auto name = [](DataType from, DataType to, const std::string& variant, size_t bytes) {
    return std::string(tensorcast::DataTypeName(from)) + "->" + tensorcast::DataTypeName(to) +
           variant + "/" + SizeName(bytes);
  };
  for (size_t bytes : kSourceBytes) {
    benchmark::RegisterBenchmark(name(DataType::kFloat, DataType::kFloat16, "", bytes).c_str(),
                                 BM_Kernel, DataType::kFloat, DataType::kFloat16, CastOptions{},
                                 bytes);
    for (DataType t : kF8) {
      for (bool sat : {true, false}) {
        benchmark::RegisterBenchmark(
            name(DataType::kFloat, t, sat ? "/sat" : "/nosat", bytes).c_str(), BM_Kernel,
            DataType::kFloat, t, CastOptions{sat, RoundMode::kUp}, bytes);
      }
      benchmark::RegisterBenchmark(name(t, DataType::kFloat, "", bytes).c_str(), BM_Kernel, t,
                                   DataType::kFloat, CastOptions{}, bytes);
      benchmark::RegisterBenchmark(name(DataType::kFloat16, t, "", bytes).c_str(), BM_Kernel,
                                   DataType::kFloat16, t, CastOptions{}, bytes);
      benchmark::RegisterBenchmark(name(t, DataType::kFloat16, "", bytes).c_str(), BM_Kernel, t,
                                   DataType::kFloat16, CastOptions{}, bytes);
    }
    for (bool sat : {true, false}) {
      for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
        benchmark::RegisterBenchmark(
            name(DataType::kFloat, DataType::kFloat8E8M0,
                 std::string(sat ? "/sat/" : "/nosat/") + tensorcast::RoundModeName(mode), bytes)
                .c_str(),
            BM_Kernel, DataType::kFloat, DataType::kFloat8E8M0, CastOptions{sat, mode}, bytes);
      }
    }
    benchmark::RegisterBenchmark(name(DataType::kFloat8E8M0, DataType::kFloat, "", bytes).c_str(),
                                 BM_Kernel, DataType::kFloat8E8M0, DataType::kFloat, CastOptions{},
                                 bytes);
    benchmark::RegisterBenchmark(name(DataType::kFloat16, DataType::kFloat8E8M0, "", bytes).c_str(),
                                 BM_Kernel, DataType::kFloat16, DataType::kFloat8E8M0,
                                 CastOptions{}, bytes);
    benchmark::RegisterBenchmark(name(DataType::kFloat8E8M0, DataType::kFloat16, "", bytes).c_str(),
                                 BM_Kernel, DataType::kFloat8E8M0, DataType::kFloat16,
                                 CastOptions{}, bytes);
    // memcpy of the bytes of a FLOAT -> float8 row (5 per element) and of a float8 ->
    // FLOAT row (the same 5), and of FLOAT -> FLOAT16 (6 per element).
    const size_t n = bytes / 4;
    for (size_t total : {5 * n, 6 * n}) {
      benchmark::RegisterBenchmark(
          ("memcpy/" + std::to_string(total) + "B/" + SizeName(bytes)).c_str(), BM_Memcpy, total);
    }
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
