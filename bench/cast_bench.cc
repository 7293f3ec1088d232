// Cast throughput: FLOAT -> {FLOAT16, BFLOAT16, FLOAT8E4M3FN, INT4, FLOAT8E8M0} and back,
// for source buffers of 4 KiB (L1), 256 KiB (L2) and 64 MiB (memory), next to memcpy of
// the same source sizes. bytes_per_second counts bytes read + written, for memcpy too,
// so the rows compare directly. Inputs: one 64K-value sample (N(0,1) x 0.05) converted
// to the source type and tiled.
//
//   build-*/bench/cast_bench --benchmark_filter='FLOAT16|memcpy'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <tensorcast/tensorcast.h>

namespace {

using tensorcast::DataType;

constexpr size_t kSourceBytes[] = {size_t{4} << 10, size_t{256} << 10, size_t{64} << 20};

std::string SizeName(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + "MiB"
                                    : std::to_string(bytes >> 10) + "KiB";
}

constexpr size_t kTile = 65536;  // elements of the sample tiled across every buffer

// kTile values like network weights: N(0, 1) x 0.05 from a fixed-seed generator.
const std::vector<float>& SampleTile() {
  static const std::vector<float> tile = [] {
    std::vector<float> v(kTile);
    uint64_t state = 0x5EEDull;
    auto uniform = [&state] {  // SplitMix64 -> (0, 1]
      uint64_t z = (state += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return (static_cast<double>((z ^ (z >> 31)) >> 11) + 1) * 0x1.0p-53;
    };
    for (float& x : v) {
      const double r = std::sqrt(-2.0 * std::log(uniform()));
      x = static_cast<float>(0.05 * r * std::cos(6.283185307179586 * uniform()));
    }
    return v;
  }();
  return tile;
}

// Fills `src` (`count` elements of `type`) with the sample tile converted to `type`.
tensorcast::Status FillSource(DataType type, size_t count, std::vector<unsigned char>* src) {
  const std::vector<float>& floats = SampleTile();
  const size_t tile_count = std::min(count, kTile);
  std::vector<unsigned char> tile(tensorcast::StorageBytes(type, tile_count));
  tensorcast::Status s =
      tensorcast::Cast(floats.data(), DataType::kFloat, tile.data(), type, tile_count);
  if (!s.ok()) return s;
  // kTile elements fill whole bytes of every type, so tiles can be copied byte-wise.
  for (size_t done = 0; done < src->size(); done += tile.size()) {
    std::memcpy(src->data() + done, tile.data(), std::min(tile.size(), src->size() - done));
  }
  return s;
}

// Cast `src_bytes` bytes of `from` into `to`.
void BM_Cast(benchmark::State& state, DataType from, DataType to, size_t src_bytes) {
  const size_t count = src_bytes * 8 / static_cast<size_t>(tensorcast::BitWidth(from));
  const size_t dst_bytes = tensorcast::StorageBytes(to, count);
  std::vector<unsigned char> src(src_bytes), dst(dst_bytes, 0);
  const tensorcast::Status prepared = FillSource(from, count, &src);
  if (!prepared.ok()) {
    state.SkipWithError(("preparing the input: " + prepared.message()).c_str());
    return;
  }
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
                          static_cast<int64_t>(src_bytes + dst_bytes));
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

// Registers FLOAT <-> each type at each size, then memcpy at each size.
const bool kRegistered = [] {
  const DataType kTypes[] = {DataType::kFloat16, DataType::kBfloat16, DataType::kFloat8E4M3FN,
                             DataType::kInt4, DataType::kFloat8E8M0};
  for (DataType t : kTypes) {
    for (const auto& [from, to] :
         {std::pair{DataType::kFloat, t}, std::pair{t, DataType::kFloat}}) {
      for (size_t bytes : kSourceBytes) {
        const std::string name = std::string("Cast/") + tensorcast::DataTypeName(from) + "->" +
                                 tensorcast::DataTypeName(to) + "/" + SizeName(bytes);
        benchmark::RegisterBenchmark(name.c_str(), BM_Cast, from, to, bytes);
      }
    }
  }
  for (size_t bytes : kSourceBytes) {
    benchmark::RegisterBenchmark(("memcpy/" + SizeName(bytes)).c_str(), BM_Memcpy, bytes);
  }
  return true;
}();

}  // namespace
