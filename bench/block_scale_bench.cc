// Block-scaled quantization on the best Highway target, one thread, FLOAT x as [rows, 4096]:
//   QuantizeMx to each MX format along the last axis (one pass), floor rule, and mxfp8_e4m3
//   / mxfp4 with rceil and along axis 0 (two passes); DequantizeMx back to FLOAT;
//   QuantizeNvfp4 (tensor scale computed: three passes) and QuantizeAbsmax INT8 per tensor
//   (two passes);
//   at [64, 64] (16 KiB of FLOAT, L1-resident: `in`) and out of cache (`ooc`: x + codes of at
//   least 1 GiB and four times the last-level cache, bench_util.h OutOfCacheTrafficBytes).
// Counters: bytes/s of x + codes + scales; x_memcpy (memcpy of the same bytes, interleaved);
// out of cache x_limit (the traffic limit of x and the codes with no arithmetic,
// bench_util.h TrafficLimit; the scales, 1 byte per 32 or 16 elements, are left out of the
// limit, which makes it stricter by under 2%); in cache x_cast: t_cast / t_this for the plain
// Cast of the same pair.
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

using tensorcast::BlockFormat;
using tensorcast::DataType;
using tensorcast_bench::ReusedBuffer;

enum class Op { kQuantizeMx, kDequantizeMx, kNvfp4, kAbsmaxInt8 };

int g_reps = 5;

void BM_Block(benchmark::State& state, Op op, BlockFormat format, tensorcast::ScaleRule rule,
              int64_t axis, size_t rows, size_t cols) {
  const size_t count = rows * cols;
  const DataType code_type =
      op == Op::kAbsmaxInt8 ? DataType::kInt8 : tensorcast::BlockFormatElementType(format);
  const bool quantize = op != Op::kDequantizeMx;
  const DataType x_type = quantize ? DataType::kFloat : code_type;
  const DataType y_type = quantize ? code_type : DataType::kFloat;
  const size_t x_bytes = tensorcast::StorageBytes(x_type, count);
  const size_t y_bytes = tensorcast::StorageBytes(y_type, count);
  ReusedBuffer in(0, x_bytes + 64, 0, 0);
  ReusedBuffer out(1, y_bytes + 64, 0, 0);
  const int64_t shape[2] = {static_cast<int64_t>(rows), static_cast<int64_t>(cols)};
  tensorcast::BlockScaleOptions o;
  o.axis = axis;
  o.scale_rule = rule;
  size_t n_scales = 1;
  if (op != Op::kAbsmaxInt8) {
    if (!tensorcast::BlockScaleCount(shape, 2, o, format, &n_scales).ok()) std::abort();
  }
  std::vector<uint8_t> scales(n_scales * 4);
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
    for (auto& s : scales) s = static_cast<uint8_t>(120 + rng() % 10);
  }
  const tensorcast::TensorView x{in.data(), x_type, shape, 2};
  float g = 0;
  const auto run_once = [&] {
    tensorcast::Status st;
    switch (op) {
      case Op::kQuantizeMx:
        st = tensorcast::QuantizeMx(x, format, out.data(), scales.data(), o);
        break;
      case Op::kDequantizeMx:
        st = tensorcast::DequantizeMx(x, scales.data(), format, out.data(), DataType::kFloat, o);
        break;
      case Op::kNvfp4:
        st = tensorcast::QuantizeNvfp4(x, out.data(), scales.data(), &g, false, o);
        break;
      case Op::kAbsmaxInt8:
        st = tensorcast::QuantizeAbsmax(x, DataType::kInt8, out.data(),
                                        reinterpret_cast<float*>(scales.data()));
        break;
    }
    if (!st.ok()) std::abort();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  };
  for (auto _ : state) run_once();
  const size_t scale_bytes =
      op == Op::kAbsmaxInt8
          ? 4
          : tensorcast::StorageBytes(tensorcast::BlockFormatScaleType(format), n_scales);
  const size_t bytes = x_bytes + y_bytes + scale_bytes;
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
    const size_t x_bits = static_cast<size_t>(tensorcast::BitWidth(x_type));
    const size_t y_bits = static_cast<size_t>(tensorcast::BitWidth(y_type));
    const auto limit_once = [&](tensorcast_bench::TrafficLimitVariant v) {
      tensorcast_bench::TrafficLimit(v, in.base(), out.base(), count, x_bits, y_bits);
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

void Register(const std::string& name, Op op, BlockFormat f, tensorcast::ScaleRule rule,
              int64_t axis, size_t ooc_rows) {
  benchmark::RegisterBenchmark((name + "/in").c_str(), BM_Block, op, f, rule, axis, 64, 64)
      ->MinTime(0.1)
      ->UseRealTime();
  benchmark::RegisterBenchmark((name + "/ooc").c_str(), BM_Block, op, f, rule, axis, ooc_rows, 4096)
      ->MinTime(0.5)
      ->UseRealTime();
}

void RegisterAll() {
  const size_t traffic = tensorcast_bench::OutOfCacheTrafficBytes(
      tensorcast::cache_info::SystemCacheSizes().llc_bytes);
  const auto rows = [&](DataType t) {
    const size_t bits = static_cast<size_t>(32 + tensorcast::BitWidth(t));
    return traffic * 8 / bits / 4096 / 32 * 32;
  };
  using R = tensorcast::ScaleRule;
  for (BlockFormat f : {BlockFormat::kMxfp8E4m3, BlockFormat::kMxfp8E5m2, BlockFormat::kMxfp6E2m3,
                        BlockFormat::kMxfp6E3m2, BlockFormat::kMxfp4}) {
    const std::string name = tensorcast::BlockFormatName(f);
    const size_t r = rows(tensorcast::BlockFormatElementType(f));
    Register("QuantizeMx/" + name + "/floor/last", Op::kQuantizeMx, f, R::kFloor, -1, r);
    if (f == BlockFormat::kMxfp8E4m3 || f == BlockFormat::kMxfp4) {
      Register("QuantizeMx/" + name + "/rceil/last", Op::kQuantizeMx, f, R::kRceil, -1, r);
      Register("QuantizeMx/" + name + "/floor/axis0", Op::kQuantizeMx, f, R::kFloor, 0, r);
      Register("DequantizeMx/" + name + "/last", Op::kDequantizeMx, f, R::kFloor, -1, r);
    }
  }
  Register("QuantizeNvfp4/last", Op::kNvfp4, BlockFormat::kNvfp4, R::kFloor, -1,
           rows(DataType::kFloat4E2M1));
  Register("QuantizeAbsmax/INT8/per_tensor", Op::kAbsmaxInt8, BlockFormat::kMxfp8E4m3, R::kFloor,
           -1, rows(DataType::kInt8));
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
