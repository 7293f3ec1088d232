// Every registry row of lib/dispatch/cast_pairs.inc, and every pair the blocked
// two-step hub serves, on the best Highway target (--target=NAME forces another one), at
//   8KiB, 256KiB   source bytes: L1- and L2-resident;
//   64MiB          source bytes: the older out-of-cache size, kept for comparison with
//                  earlier results (a large L3 holds much of it);
//   ooc            out of cache: source + destination of at least 1 GiB and at least four
//                  times the last-level cache (read from sysfs; bench_util.h
//                  OutOfCacheTrafficBytes), the size every out-of-cache claim uses;
// each with both buffers 64-byte aligned, and at 8KiB, 256KiB and ooc also with both
// buffers 16 bytes past a 64-byte boundary (rows ending in /off16), as numpy's arrays are.
// Each benchmark reports bytes/s counting bytes read + written and `x_memcpy`: its speed
// relative to memcpy of the same number of bytes (read + written), measured inside the
// row in interleaved batches (memcpy's out-of-cache rate drifts +-25% between processes
// on a shared VM), and, out of cache, `x_limit`: its speed relative to the fastest kernel
// with no arithmetic that moves the same bytes (bench_util.h TrafficLimit, on 64-byte
// aligned buffers). Buffers are reused from row to row (bench_util.h ReusedBuffer).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "hwy/targets.h"
#include "lib/cache_info.h"
#include "lib/dispatch/route_plan.h"
#include "lib/tuning.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;
using tensorcast_bench::InterleavedSpeedup;
using tensorcast_bench::ReusedBuffer;

std::vector<uint8_t> RandomSource(DataType type, size_t count) {
  std::vector<uint8_t> v(tensorcast::StorageBytes(type, count));
  std::mt19937 rng(42);
  if (type == DataType::kFloat || type == DataType::kDouble) {
    // Realistic values (N(0,1)), not random bit patterns (which are mostly huge or NaN).
    std::normal_distribution<double> nd;
    for (size_t i = 0; i < count; ++i) {
      if (type == DataType::kFloat) {
        const float f = static_cast<float>(nd(rng));
        std::memcpy(&v[i * 4], &f, 4);
      } else {
        const double d = nd(rng);
        std::memcpy(&v[i * 8], &d, 8);
      }
    }
  } else {
    for (auto& b : v) b = static_cast<uint8_t>(rng());
  }
  return v;
}

// Writes `count` random values of `type` to `out`: RandomSource(type, count) up to 1M
// elements, beyond that RandomSource(type, 1M) repeated (generating a few hundred million
// normal values takes longer than all the rows that use them). The last source is kept:
// rows are registered source-major, so consecutive rows reuse it.
void FillSource(DataType type, size_t count, uint8_t* out) {
  constexpr size_t kTile = size_t{1} << 20;
  static DataType cached_type = DataType::kUndefined;
  static size_t cached_count = 0;
  static std::vector<uint8_t> cached;
  const size_t n = std::min(count, kTile);
  if (type != cached_type || n != cached_count) {
    cached = RandomSource(type, n);
    cached_type = type;
    cached_count = n;
  }
  const size_t bytes = tensorcast::StorageBytes(type, count);
  for (size_t at = 0; at < bytes; at += cached.size()) {
    std::memcpy(out + at, cached.data(), std::min(cached.size(), bytes - at));
  }
}

// Minimum time of the out-of-cache rows (--large_min_time=S; 0.5 s by default).
double g_large_min_time = 0.5;
// Interleaved batches behind x_memcpy and x_limit (--reps=K; 5 by default).
int g_reps = 5;

// Elements of the ooc rows of a pair: OutOfCacheTrafficBytes() of source + destination,
// a multiple of 512 elements (whole lines for TrafficLimit).
size_t OutOfCacheCount(DataType src, DataType dst) {
  const size_t traffic = tensorcast_bench::OutOfCacheTrafficBytes(
      tensorcast::cache_info::SystemCacheSizes().llc_bytes);
  const size_t bits = static_cast<size_t>(tensorcast::BitWidth(src) + tensorcast::BitWidth(dst));
  return traffic * 8 / bits / 512 * 512;
}

// `count` elements of src -> dst; `offset`: both buffers that many bytes past a 64-byte
// boundary.
void BM_Cast(benchmark::State& state, DataType src, DataType dst, size_t count, size_t offset,
             bool hub) {
  ReusedBuffer in(0, tensorcast::StorageBytes(src, count), 0, offset);
  FillSource(src, count, in.data());
  ReusedBuffer out(1, tensorcast::StorageBytes(dst, count), 0, offset);
  const CastOptions options;
  const auto cast_once = [&] {
    const bool ok =
        tensorcast::dispatch::CastWithPlan(in.data(), src, out.data(), dst, count, options);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  };
  for (auto _ : state) cast_once();
  const size_t bytes = in.size() + out.size();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  // x_memcpy = t_memcpy / t_cast for memcpy of the same bytes (read + written: a copy of
  // half of them), from interleaved batches of both (bench_util.h InterleavedSpeedup).
  const size_t copy_bytes = (bytes + 1) / 2;
  ReusedBuffer copy_src(2, copy_bytes, 1), copy_dst(3, copy_bytes, 2);
  const auto memcpy_once = [&] {
    std::memcpy(copy_dst.data(), copy_src.data(), copy_bytes);
    benchmark::DoNotOptimize(copy_dst.data());
    benchmark::ClobberMemory();
  };
  state.counters["x_memcpy"] =
      InterleavedSpeedup(cast_once, memcpy_once, tensorcast_bench::BatchCalls(bytes), g_reps);
  // x_limit = t_limit / t_cast out of cache, where t_limit is the time of the fastest
  // kernel with no arithmetic that moves the same bytes (bench_util.h TrafficLimit, on the
  // buffers' 64-byte aligned bases), interleaved likewise.
  if (in.size() >= (size_t{1} << 20) && count % 512 == 0) {
    const auto limit_once = [&](tensorcast_bench::TrafficLimitVariant v) {
      tensorcast_bench::TrafficLimit(v, in.base(), out.base(), count,
                                     static_cast<size_t>(tensorcast::BitWidth(src)),
                                     static_cast<size_t>(tensorcast::BitWidth(dst)));
      benchmark::DoNotOptimize(out.base());
      benchmark::ClobberMemory();
    };
    state.counters["x_limit"] = tensorcast_bench::InterleavedLimitSpeedup(
        cast_once, limit_once, tensorcast_bench::BatchCalls(bytes), g_reps);
  }
  state.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(count) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
  state.SetLabel(std::string(hub ? "hub " : "") + tensorcast::ActiveTargetName());
}

void RegisterAll() {
  struct Size {
    const char* name;
    size_t src_bytes;  // 0: the ooc size
    bool offset_row;   // also a row with both buffers at offset 16
  };
  const Size sizes[] = {{"8KiB", 8u << 10, true},
                        {"256KiB", 256u << 10, true},
                        {"64MiB", 64u << 20, false},
                        {"ooc", 0, true}};
  std::vector<DataType> types;
  for (int code = 1; code <= tensorcast::kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (tensorcast::IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  size_t n = 0;
  const tensorcast::dispatch::KernelRow* rows = tensorcast::dispatch::KernelRows(&n);
  for (DataType s : types) {
    for (DataType d : types) {
      if (s == d) continue;
      bool direct = false;
      for (size_t r = 0; r < n; ++r) direct |= rows[r].src == s && rows[r].dst == d;
      // Probe whether the kernel path serves the pair at all (one element).
      uint64_t one_in = 0, one_out = 0;
      if (!tensorcast::dispatch::CastWithPlan(&one_in, s, &one_out, d, 1, CastOptions{})) continue;
      for (const Size& size : sizes) {
        const size_t count =
            size.src_bytes == 0 ? OutOfCacheCount(s, d)
                                : size.src_bytes * 8 / static_cast<size_t>(tensorcast::BitWidth(s));
        for (size_t offset : {size_t{0}, size_t{16}}) {
          if (offset != 0 && !size.offset_row) continue;
          const std::string name = std::string("Cast/") + tensorcast::DataTypeName(s) + "->" +
                                   tensorcast::DataTypeName(d) + "/" + size.name +
                                   (offset != 0 ? "/off16" : "");
          const bool large = size.src_bytes == 0 || size.src_bytes >= (1u << 20);
          benchmark::RegisterBenchmark(name.c_str(), BM_Cast, s, d, count, offset, !direct)
              ->MinTime(large ? g_large_min_time : 0.1)
              ->UseRealTime();
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --target=AVX2 (any Highway target name) benchmarks that target instead of the best;
  // --large_min_time=S sets the minimum time of the 64MiB and ooc rows (default 0.5 s);
  // --reps=K: interleaved batches behind x_memcpy and x_limit (default 5);
  // --stream_bytes=B: outputs of B bytes and more use non-temporal stores (default: each
  // kernel loop's own threshold, 4 or 8 MiB; a huge B turns streaming off).
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--large_min_time=", 0) == 0) {
      g_large_min_time = std::stod(arg.substr(17));
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      --i;
      continue;
    }
    if (arg.rfind("--reps=", 0) == 0) {
      g_reps = std::max(1, std::stoi(arg.substr(7)));
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      --i;
      continue;
    }
    if (arg.rfind("--stream_bytes=", 0) == 0) {
      tensorcast::tuning::SetStreamBytesForTest(std::stoull(arg.substr(15)));
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      --i;
      continue;
    }
    if (arg.rfind("--target=", 0) == 0) {
      for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
        if (arg.substr(9) == hwy::TargetName(t)) hwy::SetSupportedTargetsForTest(t);
      }
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      --i;
    }
  }
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
