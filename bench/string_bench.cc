// Strings <-> numbers through Arrow's string layout (tensorcast/strings.h), one thread,
// 1M elements (--elements=E), ns per element:
//
//   FromText/DST   1M texts -> DST. The texts: doubles N(0, 1) x 10^U{-8..8} in their
//                  shortest round-trip spelling (19-20 bytes on average; FLOAT, FLOAT16,
//                  BFLOAT16, the float8 formats, FLOAT4E2M1, FLOAT8E8M0: the float32
//                  value's shortest spelling, 11 bytes); integer targets: decimal integers
//                  of 1-12 digits. x_float: the FromText/FLOAT time of the same run over
//                  this row's time (the strings issue asks the narrow formats for >= 1/1.5).
//   ToText/SRC     1M values -> texts (capacity for every text at its longest).
//   Threads/...    FromText/DOUBLE and ToText/DOUBLE on a ThreadPool (--threads=N, default
//                  the CPUs this process may use) with x_1thread, the one-thread time of
//                  the same row over the pool's.
//   Copy/TEXT      memcpy of the same text bytes: the floor that no parser goes below.
//   TryCast/DST/valid  TryCastFromArrowStrings (errors="null") over FromText/DST's texts,
//                  with x_raise: CastFromArrowStrings' time of the same run over this one's.
//   TryCast/DST/bad    the same over a column of texts that are not numbers (words,
//                  spreadsheet errors, malformed numbers: 1-20 bytes), every one a null,
//                  with x_valid: the valid column's time over this one's (the issue asks
//                  an all-bad column for >= 1/2).
//
// The same data as bench/peers.py's string pairs, where pyarrow runs next to tensorcast.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::DataType;

size_t g_elements = size_t{1} << 20;

// A column of texts in Arrow's layout.
struct Column {
  std::vector<int32_t> offsets{0};
  std::string data;
  void Add(const char* begin, const char* end) {
    data.append(begin, end);
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
};

std::vector<double> Values(size_t count) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> exponent(-8, 8);
  std::vector<double> v(count);
  for (double& x : v) x = normal(rng) * std::pow(10.0, exponent(rng));
  return v;
}

const Column& DoubleTexts() {
  static const Column c = [] {
    Column col;
    char buf[64];
    for (double x : Values(g_elements)) col.Add(buf, std::to_chars(buf, buf + 64, x).ptr);
    return col;
  }();
  return c;
}

const Column& FloatTexts() {
  static const Column c = [] {
    Column col;
    char buf[64];
    for (double x : Values(g_elements)) {
      col.Add(buf, std::to_chars(buf, buf + 64, static_cast<float>(x)).ptr);
    }
    return col;
  }();
  return c;
}

const Column& IntegerTexts() {
  static const Column c = [] {
    Column col;
    char buf[64];
    std::mt19937_64 rng(2);
    for (size_t i = 0; i < g_elements; ++i) {
      const auto digits = static_cast<int>(rng() % 12);
      const auto v =
          static_cast<int64_t>(rng() % static_cast<uint64_t>(std::pow(10.0, digits + 1)));
      col.Add(buf, std::to_chars(buf, buf + 64, (rng() & 1) != 0 ? v : -v).ptr);
    }
    return col;
  }();
  return c;
}

bool IsFloat(DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBfloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kFloat4E2M1: return true;
    default: return false;
  }
}

const Column& TextsFor(DataType t) {
  if (t == DataType::kDouble) return DoubleTexts();
  if (IsFloat(t)) return FloatTexts();
  return IntegerTexts();
}

double ParseSeconds(const Column& c, DataType t, std::vector<uint8_t>* out) {
  tensorcast::ArrowStrings a;
  a.offsets = c.offsets.data();
  a.data = c.data.data();
  const size_t n = c.offsets.size() - 1;
  const auto start = std::chrono::steady_clock::now();
  const tensorcast::Status s = tensorcast::CastFromArrowStrings(a, out->data(), t, n);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return -1;
  return secs;
}

void BM_FromText(benchmark::State& state, DataType t) {
  const Column& c = TextsFor(t);
  const size_t n = c.offsets.size() - 1;
  std::vector<uint8_t> out(tensorcast::StorageBytes(t, n) + 8);
  std::vector<uint8_t> f32(tensorcast::StorageBytes(DataType::kFloat, n));
  double best = 1e30, best_float = 1e30;
  for (auto _ : state) {
    const double secs = ParseSeconds(c, t, &out);
    if (secs < 0) {
      state.SkipWithError("parse failed");
      return;
    }
    state.SetIterationTime(secs);
    best = std::min(best, secs);
  }
  if (IsFloat(t) && t != DataType::kDouble && t != DataType::kFloat) {
    for (int r = 0; r < 5; ++r)
      best_float = std::min(best_float, ParseSeconds(c, DataType::kFloat, &f32));
    state.counters["x_float"] = best_float / best;
  }
  state.counters["ns_per_element"] = best / static_cast<double>(n) * 1e9;
  state.counters["text_bytes"] = static_cast<double>(c.data.size()) / static_cast<double>(n);
}

void BM_ToText(benchmark::State& state, DataType t) {
  const std::vector<double> v = Values(g_elements);
  std::vector<uint8_t> src(tensorcast::StorageBytes(t, v.size()));
  if (!tensorcast::Cast(v.data(), DataType::kDouble, src.data(), t, v.size()).ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  std::vector<int64_t> offsets(v.size() + 1);
  std::string data(v.size() * 48, '\0');
  double best = 1e30;
  for (auto _ : state) {
    tensorcast::ArrowStringsOut out;
    out.offsets = offsets.data();
    out.offset_width = 8;
    out.data = data.data();
    out.data_capacity = data.size();
    const auto start = std::chrono::steady_clock::now();
    const tensorcast::Status s = tensorcast::CastToArrowStrings(src.data(), t, &out, v.size());
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      return;
    }
    state.SetIterationTime(secs);
    best = std::min(best, secs);
  }
  state.counters["ns_per_element"] = best / static_cast<double>(v.size()) * 1e9;
}

// FromText/DOUBLE and ToText/DOUBLE on a ThreadPool of --threads=N threads (default: the
// CPUs this process may use) against one thread, in the same row (x_1thread).
size_t g_threads = 0;

void BM_Threads(benchmark::State& state, bool to_text) {
  tensorcast::ThreadPool pool(g_threads);
  tensorcast::CastOptions parallel;
  parallel.runner = pool.runner();
  const Column& c = DoubleTexts();
  const size_t n = c.offsets.size() - 1;
  std::vector<double> values(n);
  std::vector<int64_t> offsets(n + 1);
  std::string data(n * 48, '\0');
  tensorcast::ArrowStrings in;
  in.offsets = c.offsets.data();
  in.data = c.data.data();
  const auto run = [&](const tensorcast::CastOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    tensorcast::Status s;
    if (to_text) {
      tensorcast::ArrowStringsOut out;
      out.offsets = offsets.data();
      out.offset_width = 8;
      out.data = data.data();
      out.data_capacity = data.size();
      s = tensorcast::CastToArrowStrings(values.data(), DataType::kDouble, &out, n, o);
    } else {
      s = tensorcast::CastFromArrowStrings(in, values.data(), DataType::kDouble, n, o);
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return s.ok() ? secs : -1.0;
  };
  // The values: the texts parsed (ToText formats them back).
  if (!tensorcast::CastFromArrowStrings(in, values.data(), DataType::kDouble, n).ok() ||
      run(tensorcast::CastOptions()) < 0) {
    state.SkipWithError("cast failed");
    return;
  }
  double best = 1e30, best_one = 1e30;
  for (auto _ : state) {
    const double secs = run(parallel);
    state.SetIterationTime(secs);
    best = std::min(best, secs);
    best_one = std::min(best_one, run(tensorcast::CastOptions()));
  }
  state.counters["ns_per_element"] = best / static_cast<double>(n) * 1e9;
  state.counters["x_1thread"] = best_one / best;
  state.SetLabel(std::to_string(pool.num_threads()) + " threads");
}

void BM_CopyText(benchmark::State& state) {
  const Column& c = DoubleTexts();
  std::string copy(c.data.size(), '\0');
  double best = 1e30;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(copy.data(), c.data.data(), c.data.size());
    benchmark::ClobberMemory();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(secs);
    best = std::min(best, secs);
  }
  state.counters["ns_per_element"] = best / static_cast<double>(c.offsets.size() - 1) * 1e9;
}

const Column& BadTexts() {
  static const Column c = [] {
    static const char* const kBad[] = {"n/a",   "NULL", "#VALUE!", "abc",   "1.2.3", "",    "--5",
                                       "1e",    "0x1F", "12,5",    "one",   "1 000", "-",   ".e5",
                                       "$3.50", "12%",  "TRUE1",   "1e1e1", "NaN%",  "3..1"};
    Column col;
    std::mt19937_64 rng(3);
    for (size_t i = 0; i < g_elements; ++i) {
      std::string t = kBad[rng() % std::size(kBad)];
      if (rng() % 4 == 0) t += std::to_string(rng() % 100000) + "x";  // longer ones
      col.Add(t.data(), t.data() + t.size());
    }
    return col;
  }();
  return c;
}

// Seconds of one cast of c to t: TryCastFromArrowStrings (try), else CastFromArrowStrings;
// -1 when it fails or, for a try, when `bad` disagrees with its error count.
double TrySeconds(const Column& c, DataType t, bool try_cast, bool bad, std::vector<uint8_t>* out,
                  std::vector<uint8_t>* validity) {
  tensorcast::ArrowStrings a;
  a.offsets = c.offsets.data();
  a.data = c.data.data();
  const size_t n = c.offsets.size() - 1;
  tensorcast::TryCastNulls nulls;
  nulls.validity = validity->data();
  const auto start = std::chrono::steady_clock::now();
  const tensorcast::Status s =
      try_cast ? tensorcast::TryCastFromArrowStrings(a, out->data(), t, n, &nulls)
               : tensorcast::CastFromArrowStrings(a, out->data(), t, n);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok() || (try_cast && nulls.error_count != (bad ? n : 0))) return -1;
  return secs;
}

void BM_TryCast(benchmark::State& state, DataType t, bool bad) {
  const Column& valid = TextsFor(t);
  const Column& c = bad ? BadTexts() : valid;
  const size_t n = c.offsets.size() - 1;
  std::vector<uint8_t> out(tensorcast::StorageBytes(t, n) + 8);
  std::vector<uint8_t> validity((n + 7) / 8);
  double best = 1e30, other = 1e30;
  for (auto _ : state) {
    const double secs = TrySeconds(c, t, true, bad, &out, &validity);
    if (secs < 0) {
      state.SkipWithError("try cast failed or miscounted");
      return;
    }
    state.SetIterationTime(secs);
    best = std::min(best, secs);
  }
  for (int r = 0; r < 5; ++r) {
    // bad: the try cast of the valid column; valid: the raising cast of the same column.
    other = std::min(other, TrySeconds(valid, t, bad, false, &out, &validity));
  }
  state.counters[bad ? "x_valid" : "x_raise"] = other / best;
  state.counters["ns_per_element"] = best / static_cast<double>(n) * 1e9;
  state.counters["text_bytes"] = static_cast<double>(c.data.size()) / static_cast<double>(n);
}

void Register() {
  const DataType from[] = {
      DataType::kDouble,     DataType::kFloat,          DataType::kFloat16,
      DataType::kBfloat16,   DataType::kFloat8E4M3FN,   DataType::kFloat8E4M3FNUZ,
      DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ, DataType::kFloat8E8M0,
      DataType::kFloat4E2M1, DataType::kInt64,          DataType::kInt32,
      DataType::kInt16,      DataType::kUint8};
  for (DataType t : from) {
    benchmark::RegisterBenchmark((std::string("FromText/") + tensorcast::DataTypeName(t)).c_str(),
                                 BM_FromText, t)
        ->UseManualTime()
        ->Iterations(5)
        ->Unit(benchmark::kMillisecond);
  }
  for (DataType t : {DataType::kDouble, DataType::kFloat, DataType::kInt64, DataType::kInt32}) {
    benchmark::RegisterBenchmark((std::string("ToText/") + tensorcast::DataTypeName(t)).c_str(),
                                 BM_ToText, t)
        ->UseManualTime()
        ->Iterations(5)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("Threads/FromText/DOUBLE", BM_Threads, false)
      ->UseManualTime()
      ->Iterations(5)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("Threads/ToText/DOUBLE", BM_Threads, true)
      ->UseManualTime()
      ->Iterations(5)
      ->Unit(benchmark::kMillisecond);
  for (DataType t : {DataType::kDouble, DataType::kFloat, DataType::kInt64}) {
    for (bool bad : {false, true}) {
      benchmark::RegisterBenchmark(
          (std::string("TryCast/") + tensorcast::DataTypeName(t) + (bad ? "/bad" : "/valid"))
              .c_str(),
          BM_TryCast, t, bad)
          ->UseManualTime()
          ->Iterations(5)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RegisterBenchmark("Copy/TEXT", BM_CopyText)
      ->UseManualTime()
      ->Iterations(5)
      ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--elements=", 11) == 0) g_elements = std::stoull(argv[i] + 11);
    if (std::strncmp(argv[i], "--threads=", 10) == 0) g_threads = std::stoull(argv[i] + 10);
  }
  Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
