// Cast and Split on a ThreadPool of N threads (--threads=N, default: the CPUs this
// process may use) against one thread, in the same run:
//
//   Parallel/SRC->DST/ooc   every numeric pair out of cache: source + destination of at
//                           least 1 GiB and four times the last-level cache (bench_util.h
//                           OutOfCacheTrafficBytes; /NM with --elements=N Mi), through
//                           the public Cast with the pool as runner. Counters:
//                           x_1thread  one-thread time / N-thread time (the speed-up);
//                           x_limitN   N-thread traffic limit time / N-thread time, the
//                                      limit being bench_util.h TrafficLimit (the fastest
//                                      variant) run on N contiguous parts at once through
//                                      the same pool;
//                           x_limit1   one-thread traffic limit time / one-thread time
//                                      (the one-thread x_limit at this element count);
//                           target_met 1 when x_1thread >= 0.9 N or x_limitN >= 0.9.
//   Parallel/STRING rows    FLOAT / DOUBLE <-> STRING at 4M elements (--string_elements=E):
//                           tens of ns per element, so 64M would take seconds a call.
//   Split/...               Split of a [8192, 8192] FLOAT tensor into 4 along either axis
//                           on the pool; x_memcpyN = N-thread memcpy of the same bytes
//                           (N contiguous parts at once) time / split time.
//   Handoff/SRC->DST/B      below the library's parallel size: a call cut by hand into
//                           N tasks on the pool against one call on one thread, for total
//                           traffic B (source + destination bytes): where threads start
//                           to pay (lib/tuning.h kParallelMinBytes).
//   Inline/FLOAT->FLOAT16/B calls of at most 64 KiB with the pool as runner against
//                           without one (x_no_runner = time without / time with; the
//                           library runs them inline, so about 1); x_control: the same
//                           comparison of two identical calls without a runner (the noise
//                           floor of the ratio).
//
// Each ratio comes from interleaved batches of both sides (bench_util.h
// InterleavedSpeedup), so that drift of a shared machine hits both alike.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "lib/cache_info.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;
using tensorcast_bench::AlignedBuffer;
using tensorcast_bench::InterleavedSpeedup;

size_t g_threads = 0;
size_t g_elements = 0;  // 0: the out-of-cache count of each pair (ElementsOf)
size_t g_string_elements = size_t{4} << 20;
int g_reps = 3;

tensorcast::ThreadPool& Pool() {
  static tensorcast::ThreadPool pool(g_threads);
  return pool;
}

// Runs f(i) for i in [0, n) on the pool.
template <typename F>
void OnPool(size_t n, F& f) {
  const tensorcast::Runner* r = Pool().runner();
  r->run(
      r->opaque, n, [](void* ctx, size_t i) { (*static_cast<F*>(ctx))(i); }, &f);
}

// A valid source: N(0, 1) for FLOAT / DOUBLE, random bytes otherwise (BOOL: 0 or 1).
void FillSource(DataType type, uint8_t* p, size_t bytes) {
  std::mt19937_64 rng(42);
  if (type == DataType::kFloat || type == DataType::kDouble) {
    const std::vector<float> tile = tensorcast_bench::NormalSample(65536, 1.0);
    const size_t width = type == DataType::kFloat ? 4 : 8;
    for (size_t i = 0; i < bytes / width; ++i) {
      if (width == 4) {
        std::memcpy(p + 4 * i, &tile[i % tile.size()], 4);
      } else {
        const double d = tile[i % tile.size()];
        std::memcpy(p + 8 * i, &d, 8);
      }
    }
    return;
  }
  for (size_t i = 0; i + 8 <= bytes; i += 8) {
    uint64_t v = rng();
    if (type == DataType::kBool) v &= 0x0101010101010101ull;
    std::memcpy(p + i, &v, 8);
  }
}

size_t Bits(DataType t) { return static_cast<size_t>(tensorcast::BitWidth(t)); }

// TrafficLimit of `count` elements on n contiguous parts at once (part sizes multiples
// of 512 elements, so every part starts on a line of both buffers).
void LimitOnPool(tensorcast_bench::TrafficLimitVariant v, const uint8_t* in, uint8_t* out,
                 size_t count, size_t in_bits, size_t out_bits, size_t n) {
  const size_t part = (count / n + 511) / 512 * 512;
  auto task = [&](size_t i) {
    const size_t first = i * part;
    if (first >= count) return;
    const size_t c = std::min(part, count - first);
    tensorcast_bench::TrafficLimit(v, in + first * in_bits / 8, out + first * out_bits / 8, c,
                                   in_bits, out_bits);
  };
  OnPool(n, task);
}

// Elements of the Parallel rows of a pair: --elements, else OutOfCacheTrafficBytes of
// source + destination, a multiple of 512.
size_t ElementsOf(DataType src, DataType dst) {
  if (g_elements != 0) return g_elements;
  const size_t traffic = tensorcast_bench::OutOfCacheTrafficBytes(
      tensorcast::cache_info::SystemCacheSizes().llc_bytes);
  return traffic * 8 / (Bits(src) + Bits(dst)) / 512 * 512;
}

void BM_Parallel(benchmark::State& state, DataType src, DataType dst) {
  const size_t count = ElementsOf(src, dst);
  AlignedBuffer in(tensorcast::StorageBytes(src, count), 0);
  FillSource(src, in.data(), in.size());
  AlignedBuffer out(tensorcast::StorageBytes(dst, count), 0);
  CastOptions parallel;
  parallel.runner = Pool().runner();
  const CastOptions serial;
  bool ok = true;
  const auto cast_n = [&] {
    ok &= tensorcast::Cast(in.data(), src, out.data(), dst, count, parallel).ok();
    benchmark::ClobberMemory();
  };
  const auto cast_1 = [&] {
    ok &= tensorcast::Cast(in.data(), src, out.data(), dst, count, serial).ok();
    benchmark::ClobberMemory();
  };
  const size_t n = Pool().num_threads();
  const auto limit_n = [&](tensorcast_bench::TrafficLimitVariant v) {
    LimitOnPool(v, in.data(), out.data(), count, Bits(src), Bits(dst), n);
    benchmark::ClobberMemory();
  };
  const auto limit_1 = [&](tensorcast_bench::TrafficLimitVariant v) {
    tensorcast_bench::TrafficLimit(v, in.data(), out.data(), count, Bits(src), Bits(dst));
    benchmark::ClobberMemory();
  };
  for (auto _ : state) cast_n();
  const size_t bytes = in.size() + out.size();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  const double x1 = InterleavedSpeedup(cast_n, cast_1, 1, g_reps);
  const double xl = tensorcast_bench::InterleavedLimitSpeedup(cast_n, limit_n, 1, g_reps);
  state.counters["x_1thread"] = x1;
  state.counters["x_limitN"] = xl;
  state.counters["x_limit1"] =
      tensorcast_bench::InterleavedLimitSpeedup(cast_1, limit_1, 1, g_reps);
  state.counters["target_met"] = x1 >= 0.9 * static_cast<double>(n) || xl >= 0.9;
  if (!ok) state.SkipWithError("Cast failed");
  state.SetLabel(std::to_string(n) + " threads " + tensorcast::ActiveTargetName());
}

void BM_ParallelString(benchmark::State& state, DataType num, bool to_string) {
  const size_t count = g_string_elements;
  AlignedBuffer values(tensorcast::StorageBytes(num, count), 0);
  FillSource(num, values.data(), values.size());
  std::vector<std::string> text(count);
  bool ok = tensorcast::Cast(values.data(), num, text.data(), DataType::kString, count).ok();
  CastOptions parallel;
  parallel.runner = Pool().runner();
  const CastOptions serial;
  const auto run = [&](const CastOptions& o) {
    if (to_string) {
      ok &= tensorcast::Cast(values.data(), num, text.data(), DataType::kString, count, o).ok();
    } else {
      ok &= tensorcast::Cast(text.data(), DataType::kString, values.data(), num, count, o).ok();
    }
    benchmark::ClobberMemory();
  };
  const auto cast_n = [&] { run(parallel); };
  const auto cast_1 = [&] { run(serial); };
  for (auto _ : state) cast_n();
  const double x1 = InterleavedSpeedup(cast_n, cast_1, 1, g_reps);
  state.counters["x_1thread"] = x1;
  state.counters["target_met"] = x1 >= 0.9 * static_cast<double>(Pool().num_threads());
  state.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(count) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
  if (!ok) state.SkipWithError("Cast failed");
  state.SetLabel(std::to_string(Pool().num_threads()) + " threads");
}

void BM_Split(benchmark::State& state, int64_t axis) {
  const int64_t shape[2] = {8192, 8192};
  const size_t total = 8192 * 8192, bytes = total * 4;
  AlignedBuffer in(bytes, 1);
  const int64_t sizes[4] = {2048, 2048, 2048, 2048};
  std::vector<std::unique_ptr<AlignedBuffer>> outs;
  void* ptrs[4];
  for (int i = 0; i < 4; ++i) {
    outs.push_back(std::make_unique<AlignedBuffer>(bytes / 4, 0));
    ptrs[i] = outs.back()->data();
  }
  bool ok = true;
  const auto split_n = [&] {
    ok &= tensorcast::Split(in.data(), DataType::kFloat, shape, 2, axis, sizes, 4, ptrs,
                            Pool().runner())
              .ok();
    benchmark::ClobberMemory();
  };
  AlignedBuffer copy(bytes, 2);
  const size_t n = Pool().num_threads();
  const auto memcpy_n = [&] {
    const size_t part = (bytes / n + 63) / 64 * 64;
    auto task = [&](size_t i) {
      const size_t first = std::min(bytes, i * part);
      std::memcpy(copy.data() + first, in.data() + first, std::min(part, bytes - first));
    };
    OnPool(n, task);
    benchmark::ClobberMemory();
  };
  for (auto _ : state) split_n();
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * bytes));
  state.counters["x_memcpyN"] = InterleavedSpeedup(split_n, memcpy_n, 1, g_reps);
  if (!ok) state.SkipWithError("Split failed");
  state.SetLabel(std::to_string(n) + " threads");
}

// One call cut into N tasks by hand (as the library cuts a large one) vs one call.
void BM_Handoff(benchmark::State& state, DataType src, DataType dst, size_t traffic) {
  const size_t count = traffic * 8 / (Bits(src) + Bits(dst)) / 512 * 512;
  AlignedBuffer in(tensorcast::StorageBytes(src, count), 0);
  FillSource(src, in.data(), in.size());
  AlignedBuffer out(tensorcast::StorageBytes(dst, count), 0);
  const size_t n = Pool().num_threads();
  const size_t part = (count / n + 511) / 512 * 512;
  const auto split_n = [&] {
    auto task = [&](size_t i) {
      const size_t first = std::min(count, i * part);
      (void)tensorcast::Cast(in.data() + first * Bits(src) / 8, src,
                             out.data() + first * Bits(dst) / 8, dst,
                             std::min(part, count - first));
    };
    OnPool(n, task);
    benchmark::ClobberMemory();
  };
  const auto one = [&] {
    (void)tensorcast::Cast(in.data(), src, out.data(), dst, count);
    benchmark::ClobberMemory();
  };
  for (auto _ : state) split_n();
  state.counters["x_1thread"] =
      InterleavedSpeedup(split_n, one, tensorcast_bench::BatchCalls(traffic), 7);
  state.SetLabel(std::to_string(n) + " threads");
}

// A small call with the pool as runner vs without one.
void BM_Inline(benchmark::State& state, size_t traffic) {
  const size_t count = traffic / 6;
  AlignedBuffer in(4 * count, 0), out(2 * count, 0);
  FillSource(DataType::kFloat, in.data(), in.size());
  CastOptions with;
  with.runner = Pool().runner();
  const auto cast_with = [&] {
    (void)tensorcast::Cast(in.data(), DataType::kFloat, out.data(), DataType::kFloat16, count,
                           with);
    benchmark::ClobberMemory();
  };
  const auto cast_without = [&] {
    (void)tensorcast::Cast(in.data(), DataType::kFloat, out.data(), DataType::kFloat16, count);
    benchmark::ClobberMemory();
  };
  const CastOptions none;
  const auto cast_none = [&] {  // the same call as cast_without: the noise floor
    (void)tensorcast::Cast(in.data(), DataType::kFloat, out.data(), DataType::kFloat16, count,
                           none);
    benchmark::ClobberMemory();
  };
  for (auto _ : state) cast_with();
  const size_t batch = tensorcast_bench::BatchCalls(traffic);
  state.counters["x_no_runner"] = InterleavedSpeedup(cast_with, cast_without, batch, 15);
  state.counters["x_control"] = InterleavedSpeedup(cast_none, cast_without, batch, 15);
}

std::string Size(size_t b) {
  return b >= (size_t{1} << 20) ? std::to_string(b >> 20) + "MiB" : std::to_string(b >> 10) + "KiB";
}

void RegisterAll() {
  std::vector<DataType> types;
  for (int code = 1; code <= tensorcast::kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (tensorcast::IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  const double min_time = 0.05;
  for (size_t b : {size_t{4} << 10, size_t{16} << 10, size_t{64} << 10}) {
    benchmark::RegisterBenchmark(("Inline/FLOAT->FLOAT16/" + Size(b)).c_str(), BM_Inline, b)
        ->MinTime(0.1)
        ->UseRealTime();
  }
  const std::pair<DataType, DataType> handoff[] = {{DataType::kFloat, DataType::kFloat16},
                                                   {DataType::kFloat, DataType::kFloat8E4M3FN},
                                                   {DataType::kInt8, DataType::kFloat}};
  for (const auto& p : handoff) {
    for (size_t b = size_t{64} << 10; b <= (size_t{64} << 20); b *= 2) {
      benchmark::RegisterBenchmark((std::string("Handoff/") + tensorcast::DataTypeName(p.first) +
                                    "->" + tensorcast::DataTypeName(p.second) + "/" + Size(b))
                                       .c_str(),
                                   BM_Handoff, p.first, p.second, b)
          ->MinTime(0.1)
          ->UseRealTime();
    }
  }
  for (int64_t axis : {0, 1}) {
    benchmark::RegisterBenchmark(("Split/FLOAT[8192,8192]/4/axis" + std::to_string(axis)).c_str(),
                                 BM_Split, axis)
        ->MinTime(min_time)
        ->UseRealTime();
  }
  for (DataType num : {DataType::kFloat, DataType::kDouble}) {
    for (bool to_string : {true, false}) {
      const std::string name =
          std::string("Parallel/") +
          (to_string ? std::string(tensorcast::DataTypeName(num)) + "->STRING"
                     : std::string("STRING->") + tensorcast::DataTypeName(num));
      benchmark::RegisterBenchmark(name.c_str(), BM_ParallelString, num, to_string)
          ->MinTime(min_time)
          ->UseRealTime();
    }
  }
  for (DataType s : types) {
    for (DataType d : types) {
      if (s == d) continue;
      const std::string name =
          std::string("Parallel/") + tensorcast::DataTypeName(s) + "->" +
          tensorcast::DataTypeName(d) + "/" +
          (g_elements == 0 ? std::string("ooc") : std::to_string(g_elements >> 20) + "M");
      benchmark::RegisterBenchmark(name.c_str(), BM_Parallel, s, d)
          ->MinTime(min_time)
          ->UseRealTime();
    }
  }
}

bool TakeFlag(const std::string& arg, const char* name, size_t* value) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = std::stoull(arg.substr(prefix.size()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // --threads=N (default: tensorcast::DefaultThreadCount()), --elements=E (numeric rows,
  // a multiple of 512; default: the out-of-cache count of each pair), --string_elements=E (default
  // 4Mi), --reps=R (batches per side of each ratio, default 3).
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    size_t reps = 0;
    if (TakeFlag(arg, "threads", &g_threads) || TakeFlag(arg, "elements", &g_elements) ||
        TakeFlag(arg, "string_elements", &g_string_elements)) {
      continue;
    }
    if (TakeFlag(arg, "reps", &reps)) {
      g_reps = static_cast<int>(reps);
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
  g_elements = g_elements / 512 * 512;
  benchmark::AddCustomContext("threads", std::to_string(Pool().num_threads()));
  benchmark::AddCustomContext("active_target", tensorcast::ActiveTargetName());
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
