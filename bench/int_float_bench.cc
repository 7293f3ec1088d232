// int <-> float throughput (int_float family): INT8/INT32/INT64/UINT64 -> FLOAT/DOUBLE and
// back, FLOAT -> FLOAT16 for scale, at a 16 KiB (L1) and a 64 MiB (memory) source, next to
// memcpy of the same bytes (read + written: memcpy of (source + target bytes) / 2).
// Each benchmark is repeated and reports the minimum (the machine is shared):
//
//   build-*/bench/int_float_bench --benchmark_repetitions=5
//   (time / elements = ns per element; memcpy/N is the row to compare with)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <tensorcast/tensorcast.h>

namespace {

using tensorcast::DataType;

// Integers: random bits. Floats: uniform in [-1000, 1000] (in range of most targets).
std::vector<unsigned char> Source(DataType type, size_t count) {
  std::vector<unsigned char> v(tensorcast::StorageBytes(type, count));
  std::mt19937_64 rng(7);
  if (type == DataType::kFloat || type == DataType::kDouble) {
    std::uniform_real_distribution<double> u(-1000.0, 1000.0);
    for (size_t i = 0; i < count; ++i) {
      if (type == DataType::kFloat) {
        const float f = static_cast<float>(u(rng));
        std::memcpy(&v[i * 4], &f, 4);
      } else {
        const double d = u(rng);
        std::memcpy(&v[i * 8], &d, 8);
      }
    }
  } else {
    for (auto& b : v) b = static_cast<unsigned char>(rng());
  }
  return v;
}

void BM_Cast(benchmark::State& state, DataType from, DataType to, size_t src_bytes) {
  const size_t count = src_bytes * 8 / static_cast<size_t>(tensorcast::BitWidth(from));
  const std::vector<unsigned char> src = Source(from, count);
  std::vector<unsigned char> dst(tensorcast::StorageBytes(to, count), 0);
  for (auto _ : state) {
    const tensorcast::Status s = tensorcast::Cast(src.data(), from, dst.data(), to, count);
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(src.size() + dst.size()));
  state.counters["elements"] = static_cast<double>(count);
}

void BM_Memcpy(benchmark::State& state, size_t bytes) {
  std::vector<unsigned char> src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(2 * bytes));
}

std::string SizeName(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + "MiB"
                                    : std::to_string(bytes >> 10) + "KiB";
}

double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

const bool kRegistered = [] {
  const std::pair<DataType, DataType> kPairs[] = {
      {DataType::kInt32, DataType::kFloat},  {DataType::kFloat, DataType::kInt32},
      {DataType::kInt64, DataType::kDouble}, {DataType::kDouble, DataType::kInt64},
      {DataType::kInt8, DataType::kFloat},   {DataType::kFloat, DataType::kInt8},
      {DataType::kInt64, DataType::kFloat},  {DataType::kUint64, DataType::kFloat},
      {DataType::kFloat, DataType::kUint32}, {DataType::kDouble, DataType::kUint64},
      {DataType::kFloat, DataType::kFloat16}};
  std::vector<size_t> memcpy_sizes;
  for (const auto& [from, to] : kPairs) {
    for (size_t bytes : {size_t{16} << 10, size_t{64} << 20}) {
      const std::string name = std::string("Cast/") + tensorcast::DataTypeName(from) + "->" +
                               tensorcast::DataTypeName(to) + "/" + SizeName(bytes);
      benchmark::RegisterBenchmark(name.c_str(), BM_Cast, from, to, bytes)
          ->ComputeStatistics("min", Min);
      const size_t count = bytes * 8 / static_cast<size_t>(tensorcast::BitWidth(from));
      memcpy_sizes.push_back((bytes + tensorcast::StorageBytes(to, count)) / 2);
    }
  }
  std::sort(memcpy_sizes.begin(), memcpy_sizes.end());
  memcpy_sizes.erase(std::unique(memcpy_sizes.begin(), memcpy_sizes.end()), memcpy_sizes.end());
  for (size_t bytes : memcpy_sizes) {
    benchmark::RegisterBenchmark(("memcpy/" + std::to_string(bytes)).c_str(), BM_Memcpy, bytes)
        ->ComputeStatistics("min", Min);
  }
  return true;
}();

}  // namespace
