// Every registry row of lib/dispatch/cast_pairs.inc, and every pair the blocked
// two-step hub serves, at an L1-resident, an L2-resident and an out-of-cache size, on
// the best Highway target (--target=NAME forces another one). Each benchmark reports
// bytes/s counting bytes read + written and `x_memcpy`: its speed relative to memcpy of
// the same number of bytes (read + written), measured inside the row in interleaved
// batches (memcpy's 64 MiB rate drifts +-25% between processes on a shared VM), and, out
// of cache, `x_limit`: its speed relative to a kernel with no arithmetic that moves the same
// bytes (bench_util.h TrafficLimit). All buffers are 64-byte aligned.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "hwy/targets.h"
#include "lib/dispatch/route_plan.h"
#include "lib/tuning.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;
using tensorcast_bench::AlignedBuffer;
using tensorcast_bench::InterleavedSpeedup;

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

// The source of the last benchmark: rows are registered source-major, so consecutive
// rows reuse it (64 MiB of N(0, 1) values take longer to generate than to convert).
const std::vector<uint8_t>& CachedSource(DataType type, size_t count) {
  static DataType cached_type = DataType::kUndefined;
  static size_t cached_count = 0;
  static std::vector<uint8_t> cached;
  if (type != cached_type || count != cached_count) {
    cached.clear();
    cached.shrink_to_fit();
    cached = RandomSource(type, count);
    cached_type = type;
    cached_count = count;
  }
  return cached;
}

// Minimum time of the out-of-cache rows (--large_min_time=S; 0.5 s by default).
double g_large_min_time = 0.5;

void BM_Cast(benchmark::State& state, DataType src, DataType dst, size_t src_bytes, bool hub) {
  const size_t count = src_bytes * 8 / static_cast<size_t>(tensorcast::BitWidth(src));
  const std::vector<uint8_t>& source = CachedSource(src, count);
  AlignedBuffer in(source.size(), 0);
  std::memcpy(in.data(), source.data(), source.size());
  AlignedBuffer out(tensorcast::StorageBytes(dst, count), 0);
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
  AlignedBuffer copy_src(copy_bytes, 1), copy_dst(copy_bytes, 2);
  const auto memcpy_once = [&] {
    std::memcpy(copy_dst.data(), copy_src.data(), copy_bytes);
    benchmark::DoNotOptimize(copy_dst.data());
    benchmark::ClobberMemory();
  };
  state.counters["x_memcpy"] =
      InterleavedSpeedup(cast_once, memcpy_once, tensorcast_bench::BatchCalls(bytes));
  // x_limit = t_limit / t_cast out of cache, where t_limit is the time of a kernel with no
  // arithmetic that moves the same bytes (bench_util.h TrafficLimit), interleaved likewise.
  if (src_bytes >= (size_t{1} << 20)) {
    const auto limit_once = [&] {
      tensorcast_bench::TrafficLimit(in.data(), out.data(), count,
                                     static_cast<size_t>(tensorcast::BitWidth(src)),
                                     static_cast<size_t>(tensorcast::BitWidth(dst)));
      benchmark::DoNotOptimize(out.data());
      benchmark::ClobberMemory();
    };
    state.counters["x_limit"] =
        InterleavedSpeedup(cast_once, limit_once, tensorcast_bench::BatchCalls(bytes));
  }
  state.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(count) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
  state.SetLabel(std::string(hub ? "hub " : "") + tensorcast::ActiveTargetName());
}

void RegisterAll() {
  // Source sizes: L1-resident (8 KiB), L2-resident (256 KiB), out of cache (64 MiB).
  const size_t sizes[] = {8u << 10, 256u << 10, 64u << 20};
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
      for (size_t bytes : sizes) {
        const std::string name = std::string("Cast/") + tensorcast::DataTypeName(s) + "->" +
                                 tensorcast::DataTypeName(d) + "/" +
                                 (bytes >= (1u << 20) ? std::to_string(bytes >> 20) + "MiB"
                                                      : std::to_string(bytes >> 10) + "KiB");
        benchmark::RegisterBenchmark(name.c_str(), BM_Cast, s, d, bytes, !direct)
            ->MinTime(bytes >= (1u << 20) ? g_large_min_time : 0.1)
            ->UseRealTime();
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --target=AVX2 (any Highway target name) benchmarks that target instead of the best;
  // --large_min_time=S sets the minimum time of the 64 MiB rows (default 0.5 s);
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
