// QuantizeLinear / DequantizeLinear on the best Highway target, one thread:
//   FLOAT -> INT8, FLOAT8E4M3FN, INT4, FLOAT4E2M1 (QuantizeLinear) and back to FLOAT
//   (DequantizeLinear), with a FLOAT scale
//     per tensor;
//     blocked, block 32 along the last axis (x as [rows, 4096] out of cache, [64, 64] and
//     [1, 4096] in);
//     blocked, block 32 along axis 0 (QuantizeLinear);
//   at 16 KiB of FLOAT (L1-resident: `in`) and out of cache (`ooc`: x + y of at least
//   1 GiB and four times the last-level cache, bench_util.h OutOfCacheTrafficBytes).
// Counters: bytes/s of x + scales + y; x_memcpy (memcpy of the same bytes, interleaved);
// out of cache x_limit (the traffic limit of the same bytes: x, the scales and y, with no
// arithmetic; bench_util.h TrafficLimit); in cache x_cast: t_cast / t_this for the Cast of
// the same pair (the "within 2x the time of the Cast" is x_cast >= 0.5).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "lib/cache_info.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::DataType;
using tensorcast_bench::ReusedBuffer;

enum class Layout { kPerTensor, kBlockLast, kBlockAxis0 };

const char* LayoutName(Layout l) {
  switch (l) {
    case Layout::kPerTensor: return "per_tensor";
    case Layout::kBlockLast: return "block32_last";
    default: return "block32_axis0";
  }
}

int g_reps = 5;

void BM_Qdq(benchmark::State& state, bool quantize, DataType q_type, Layout layout, size_t rows,
            size_t cols) {
  const size_t count = rows * cols;
  const DataType x_type = quantize ? DataType::kFloat : q_type;
  const DataType y_type = quantize ? q_type : DataType::kFloat;
  // x, then room for the traffic limit to read the scales' bytes after it (at most one bit
  // per element: a FLOAT scale per block of 32).
  const size_t x_bytes = tensorcast::StorageBytes(x_type, count);
  ReusedBuffer in(0, x_bytes + count / 8 + 64, 0, 0);
  ReusedBuffer out(1, tensorcast::StorageBytes(y_type, count), 0, 0);
  std::mt19937 rng(7);
  if (quantize) {
    std::normal_distribution<float> nd(0.0f, 4.0f);
    std::vector<float> tile(1 << 16);
    for (float& f : tile) f = nd(rng);
    for (size_t at = 0; at < count; at += tile.size()) {
      const size_t n = std::min(tile.size(), count - at);
      std::memcpy(in.data() + at * 4, tile.data(), n * 4);
    }
  } else {
    for (size_t i = 0; i < x_bytes; ++i) in.data()[i] = static_cast<uint8_t>(rng() & 0x77);
  }
  const int64_t shape[2] = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
  int64_t s_shape[2] = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
  tensorcast::QuantizeAttributes attrs;
  attrs.output_dtype = quantize ? q_type : DataType::kUndefined;
  size_t s_rank = 0;
  if (layout == Layout::kBlockLast) {
    s_shape[1] = static_cast<int64_t>((cols + 31) / 32);
    s_rank = 2;
    attrs.block_size = 32;
    attrs.axis = 1;
  } else if (layout == Layout::kBlockAxis0) {
    s_shape[0] = static_cast<int64_t>((rows + 31) / 32);
    s_rank = 2;
    attrs.block_size = 32;
    attrs.axis = 0;
  }
  const size_t s_count = s_rank == 0 ? 1 : static_cast<size_t>(s_shape[0] * s_shape[1]);
  std::vector<float> scales(s_count);
  std::uniform_real_distribution<float> sd(0.01f, 1.0f);
  for (float& s : scales) s = sd(rng);
  tensorcast::TensorView x{in.data(), x_type, shape, 2};
  tensorcast::TensorView s{scales.data(), DataType::kFloat, s_shape, s_rank};
  const auto run_once = [&] {
    const tensorcast::Status st =
        quantize ? tensorcast::QuantizeLinear(x, s, nullptr, out.data(), y_type, attrs)
                 : tensorcast::DequantizeLinear(x, s, nullptr, out.data(), y_type, attrs);
    if (!st.ok()) std::abort();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  };
  for (auto _ : state) run_once();
  const size_t scale_bytes = s_count * 4;
  const size_t bytes = x_bytes + out.size() + scale_bytes;
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  const size_t copy_bytes = (bytes + 1) / 2;
  ReusedBuffer copy_src(2, copy_bytes, 1), copy_dst(3, copy_bytes, 2);
  const auto memcpy_once = [&] {
    std::memcpy(copy_dst.data(), copy_src.data(), copy_bytes);
    benchmark::DoNotOptimize(copy_dst.data());
    benchmark::ClobberMemory();
  };
  const size_t batch = tensorcast_bench::BatchCalls(bytes);
  state.counters["x_memcpy"] =
      tensorcast_bench::InterleavedSpeedup(run_once, memcpy_once, batch, g_reps);
  if (x_bytes >= (size_t{1} << 20) && count % 512 == 0) {
    // The scales are read too: 32 bits per scale, spread over the elements they cover
    // (1 bit per element for a FLOAT scale per 32; 0 per tensor).
    const size_t scale_bits = scale_bytes * 8 / count;
    const size_t x_bits = static_cast<size_t>(tensorcast::BitWidth(x_type));
    const size_t y_bits = static_cast<size_t>(tensorcast::BitWidth(y_type));
    const auto limit_once = [&](tensorcast_bench::TrafficLimitVariant v) {
      tensorcast_bench::TrafficLimit(v, in.base(), out.base(), count, x_bits + scale_bits, y_bits);
      benchmark::DoNotOptimize(out.base());
      benchmark::ClobberMemory();
    };
    state.counters["x_limit"] =
        tensorcast_bench::InterleavedLimitSpeedup(run_once, limit_once, batch, g_reps);
  } else {
    const auto cast_once = [&] {
      const tensorcast::Status st = tensorcast::Cast(in.data(), x_type, out.data(), y_type, count);
      if (!st.ok()) std::abort();
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    };
    state.counters["x_cast"] =
        tensorcast_bench::InterleavedSpeedup(run_once, cast_once, batch, g_reps);
  }
  state.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(count) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
  state.SetLabel(tensorcast::ActiveTargetName());
}

void RegisterAll() {
  const size_t traffic = tensorcast_bench::OutOfCacheTrafficBytes(
      tensorcast::cache_info::SystemCacheSizes().llc_bytes);
  for (DataType q :
       {DataType::kInt8, DataType::kFloat8E4M3FN, DataType::kInt4, DataType::kFloat4E2M1}) {
    const size_t bits = static_cast<size_t>(32 + tensorcast::BitWidth(q));
    const size_t ooc_rows = traffic * 8 / bits / 4096 / 32 * 32;
    for (bool quantize : {true, false}) {
      for (Layout l : {Layout::kPerTensor, Layout::kBlockLast, Layout::kBlockAxis0}) {
        if (!quantize && l == Layout::kBlockAxis0) continue;
        const std::string base =
            std::string(quantize ? "QuantizeLinear/FLOAT->" : "DequantizeLinear/") +
            tensorcast::DataTypeName(q) + (quantize ? "" : "->FLOAT") + "/" + LayoutName(l);
        benchmark::RegisterBenchmark((base + "/in").c_str(), BM_Qdq, quantize, q, l, 64, 64)
            ->MinTime(0.1)
            ->UseRealTime();
        if (l == Layout::kBlockLast) {  // the same bytes as one row: the per-row cost apart
          benchmark::RegisterBenchmark((base + "/in_1x4096").c_str(), BM_Qdq, quantize, q, l, 1,
                                       4096)
              ->MinTime(0.1)
              ->UseRealTime();
        }
        benchmark::RegisterBenchmark((base + "/ooc").c_str(), BM_Qdq, quantize, q, l, ooc_rows,
                                     4096)
            ->MinTime(0.5)
            ->UseRealTime();
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --reps=K: interleaved batches behind the ratios; --target=NAME: that Highway target.
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--reps=", 7) == 0) g_reps = std::atoi(argv[i] + 7);
    tensorcast_bench::ForceTargetFlag(argv[i]);
  }
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
