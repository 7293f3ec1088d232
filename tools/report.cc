// `tensorcast report`: throughput and round-trip error of FLOAT -> T -> FLOAT for every
// castable type T on this machine.
//
// For each T: Cast FLOAT -> T and T -> FLOAT, best of 3 runs each (steady_clock), in GB/s
// of bytes read + written; the same rate relative to memcpy of the source buffer on the
// same threads in the same run (read + written, best of 3); the library's statistics of
// FLOAT -> T (RMSE, SQNR, saturated and flushed shares) and the round trip's max relative
// error. Then the same for each block-scaled and absmax format (scales computed).
// All buffers are allocated up front; the per-element loops do not allocate.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <tensorcast/tensorcast.h>

#include "checkpoint.h"
#include "commands.h"
#include "tensor_io.h"
#include "text_table.h"

namespace tensorcast {
namespace cli {
namespace {

constexpr size_t kDefaultCount = size_t{16} << 20;  // 16M float32 values = 64 MiB
constexpr size_t kStringSlice = size_t{1} << 20;    // STRING rows use at most 1M values
constexpr int kRuns = 3;

// ---------------------------------------------------------------------------------------
// Built-in input: a fixed-seed mix shaped like neural-network weights and activations.

constexpr uint64_t kSeed = 0x7E45C0A57ull;
constexpr size_t kBlock = 4096;         // values sharing one scale (a "channel")
constexpr double kSpecialShare = 1e-5;  // +-0, subnormals, +-Inf, NaN
constexpr double kOutlierShare = 1e-4;  // +-1e3 .. 1e6
constexpr double kLaplaceShare = 0.05;  // Laplace(0, 1) x block scale
constexpr double kStudentShare = 0.05;  // Student-t(3) x block scale
// The rest: N(0, 1) x block scale. Half of the blocks are "weights" (scale log-uniform in
// [0.005, 0.1]), half "activations" (log-uniform in [0.5, 8]).

// SplitMix64: small, fast and identical on every platform (unlike std:: distributions).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double LogUniform(double lo, double hi) {
    return std::exp(std::log(lo) + Uniform() * (std::log(hi) - std::log(lo)));
  }
  double Normal() {  // Box-Muller, both values used
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(1.0 - Uniform()));
    const double theta = 2.0 * 3.14159265358979323846 * Uniform();
    spare_ = r * std::sin(theta);
    have_spare_ = true;
    return r * std::cos(theta);
  }
  double Laplace() {
    const double u = Uniform() - 0.5;
    return u < 0 ? std::log1p(2.0 * u) : -std::log1p(-2.0 * u);
  }
  double StudentT3() {
    const double z = Normal();
    const double a = Normal(), b = Normal(), c = Normal();
    return z / std::sqrt((a * a + b * b + c * c) / 3.0);
  }

 private:
  uint64_t state_;
  double spare_ = 0;
  bool have_spare_ = false;
};

void GenerateSample(size_t n, float* out) {
  constexpr float kSpecials[] = {0.0f,
                                 -0.0f,
                                 std::numeric_limits<float>::denorm_min(),
                                 -1.0e-40f,
                                 5.0e-39f,
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN()};
  constexpr size_t kNumSpecials = sizeof(kSpecials) / sizeof(kSpecials[0]);
  Random rng(kSeed);
  size_t next_special = 0;
  double scale = 1.0;
  for (size_t i = 0; i < n; ++i) {
    if (i % kBlock == 0) {
      scale = rng.Uniform() < 0.5 ? rng.LogUniform(0.005, 0.1) : rng.LogUniform(0.5, 8.0);
    }
    double u = rng.Uniform();
    double v;
    if ((u -= kSpecialShare) < 0) {
      v = kSpecials[next_special++ % kNumSpecials];
    } else if ((u -= kOutlierShare) < 0) {
      v = (rng.Uniform() < 0.5 ? -1 : 1) * std::pow(10.0, 3.0 + 3.0 * rng.Uniform());
    } else if ((u -= kLaplaceShare) < 0) {
      v = rng.Laplace() * scale;
    } else if ((u -= kStudentShare) < 0) {
      v = rng.StudentT3() * scale;
    } else {
      v = rng.Normal() * scale;
    }
    out[i] = static_cast<float>(v);
  }
}

std::string SampleDescription() {
  const double normal = 1 - kSpecialShare - kOutlierShare - kLaplaceShare - kStudentShare;
  return Format(
      "built-in sample (seed 0x%llx): %.3f%% N(0,1), %g%% "
      "Laplace, %g%% Student-t(3), each x a per-%zu-block scale (weights "
      "0.005-0.1, activations 0.5-8); %g%% outliers +-1e3..1e6; %g%% specials "
      "(+-0, subnormals, +-Inf, NaN)",
      static_cast<unsigned long long>(kSeed), normal * 100, kLaplaceShare * 100,
      kStudentShare * 100, kBlock, kOutlierShare * 100, kSpecialShare * 100);
}

// ---------------------------------------------------------------------------------------
// Machine

std::string CpuModel() {
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return "unknown CPU";
  char line[512];
  std::string model = "unknown CPU";
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::strncmp(line, "model name", 10) != 0) continue;
    const char* colon = std::strchr(line, ':');
    if (colon == nullptr) continue;
    model = colon + 1;
    model.erase(0, model.find_first_not_of(" \t"));
    model.erase(model.find_last_not_of(" \t\r\n") + 1);
    break;
  }
  std::fclose(f);
  return model;
}

// ---------------------------------------------------------------------------------------
// Timing

using Clock = std::chrono::steady_clock;

// Runs `body` (returning a Status) kRuns times; *seconds is the fastest run.
template <class Body>
Status BestOf(Body body, double* seconds) {
  *seconds = std::numeric_limits<double>::infinity();
  for (int run = 0; run < kRuns; ++run) {
    const Clock::time_point start = Clock::now();
    Status s = body();
    const Clock::time_point stop = Clock::now();
    if (!s.ok()) return s;
    *seconds = std::min(*seconds, std::chrono::duration<double>(stop - start).count());
  }
  *seconds = std::max(*seconds, 1e-9);
  return Status::Ok();
}

// memcpy of `bytes` bytes cut into equal parts that `runner` (null: this thread) runs as
// tasks, as the casts are: the memcpy of the same threads.
struct MemcpyTask {
  unsigned char* dst;
  const unsigned char* src;
  size_t bytes, part;
};

void CopyPart(void* ctx, size_t index) {
  const auto* t = static_cast<const MemcpyTask*>(ctx);
  const size_t begin = index * t->part;
  if (begin < t->bytes)
    std::memcpy(t->dst + begin, t->src + begin, std::min(t->part, t->bytes - begin));
}

void ParallelMemcpy(void* dst, const void* src, size_t bytes, const Runner* runner,
                    size_t threads) {
  constexpr size_t kMinPart = size_t{1} << 20;
  const size_t tasks =
      runner == nullptr ? 1 : std::max<size_t>(1, std::min(4 * threads, bytes / kMinPart));
  MemcpyTask task{static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), bytes,
                  (bytes + tasks - 1) / tasks};
  if (tasks == 1 || runner->run(runner->opaque, tasks, CopyPart, &task) != 0) {
    std::memcpy(dst, src, bytes);
  }
}

// Fastest of kRuns memcpy's of `bytes` bytes from `src` to `dst`, in chunks of at most
// `capacity` bytes (both buffers hold at least that many), on the runner's threads, in
// seconds.
double MemcpySeconds(void* dst, const void* src, size_t capacity, size_t bytes,
                     const Runner* runner, size_t threads) {
  double seconds = 0;
  Status s = BestOf(
      [&] {
        for (size_t done = 0; done < bytes;) {
          const size_t chunk = std::min(capacity, bytes - done);
          ParallelMemcpy(dst, src, chunk, runner, threads);
          done += chunk;
        }
        return Status::Ok();
      },
      &seconds);
  (void)s;
  return seconds;
}

// ---------------------------------------------------------------------------------------
// Round-trip statistics

// The finite values of a type, as float32: [lo, hi]. Unbounded for DOUBLE and STRING.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
};

Status TypeRange(DataType type, Range* range) {
  *range = Range();
  switch (type) {
    case DataType::kDouble:
    case DataType::kString: return Status::Ok();
    case DataType::kInt32: *range = {-0x1p31, 0x1p31 - 1}; return Status::Ok();
    case DataType::kUint32: *range = {0, 0x1p32 - 1}; return Status::Ok();
    case DataType::kInt64: *range = {-0x1p63, 0x1p63}; return Status::Ok();
    case DataType::kUint64: *range = {0, 0x1p64}; return Status::Ok();
    default: break;
  }
  // Types of at most 16 bits: decode every code and take the finite extremes.
  const int bits = BitWidth(type);
  std::vector<unsigned char> codes;
  size_t count;
  if (type == DataType::kBool) {
    codes = {0, 1};
    count = 2;
  } else if (bits == 16) {
    count = 65536;
    codes.resize(2 * count);
    for (size_t i = 0; i < count; ++i) {
      codes[2 * i] = static_cast<unsigned char>(i);
      codes[2 * i + 1] = static_cast<unsigned char>(i >> 8);
    }
  } else if (bits == 6) {  // the 64 codes, packed four in three bytes
    count = 64;
    codes.assign(StorageBytes(type, count), 0);
    for (size_t i = 0; i < count; ++i) {
      const size_t bit = 6 * i;
      const unsigned shift = static_cast<unsigned>(bit % 8);
      codes[bit / 8] = static_cast<unsigned char>(codes[bit / 8] | (i << shift));
      if (shift > 2) {  // the code continues in the next byte
        codes[bit / 8 + 1] = static_cast<unsigned char>(codes[bit / 8 + 1] | (i >> (8 - shift)));
      }
    }
  } else {  // 8, 4 or 2 bits: every byte value holds every code
    codes.resize(256);
    for (size_t i = 0; i < 256; ++i) codes[i] = static_cast<unsigned char>(i);
    count = 256 * 8 / static_cast<size_t>(bits);
  }
  std::vector<float> values(count);
  Status s = Cast(codes.data(), type, values.data(), DataType::kFloat, count);
  if (!s.ok()) return s;
  range->lo = std::numeric_limits<double>::infinity();
  range->hi = -range->lo;
  for (float v : values) {
    if (!std::isfinite(v)) continue;
    range->lo = std::min(range->lo, static_cast<double>(v));
    range->hi = std::max(range->hi, static_cast<double>(v));
  }
  return Status::Ok();
}

struct RoundTrip {
  size_t finite = 0;        // finite inputs
  size_t out_of_range = 0;  // finite inputs outside [lo, hi], or whose round trip is not finite
  size_t flushed = 0;       // non-zero inputs in range that come back as 0
  double max_abs = 0;       // over the other finite inputs
  double max_rel = 0;       // same, non-zero inputs
};

RoundTrip CompareRoundTrip(const float* x, const float* y, size_t n, const Range& range) {
  RoundTrip rt;
  for (size_t i = 0; i < n; ++i) {
    const float xi = x[i], yi = y[i];
    if (!std::isfinite(xi)) continue;
    ++rt.finite;
    if (!std::isfinite(yi) || xi < range.lo || xi > range.hi) {
      ++rt.out_of_range;
      continue;
    }
    if (xi != 0 && yi == 0) {
      ++rt.flushed;
      continue;
    }
    const double err = std::fabs(static_cast<double>(yi) - static_cast<double>(xi));
    rt.max_abs = std::max(rt.max_abs, err);
    if (xi != 0) rt.max_rel = std::max(rt.max_rel, err / std::fabs(static_cast<double>(xi)));
  }
  return rt;
}

// ---------------------------------------------------------------------------------------
// One row per target type

struct Row {
  DataType type = DataType::kUndefined;
  size_t count = 0;  // values measured (STRING: a slice)
  double to_gbs = 0, to_memcpy = 0, from_gbs = 0, from_memcpy = 0;
  RoundTrip rt;
  bool have_stats = false;
  CastStats stats;  // of FLOAT -> T, from the library
};

// Buffers shared by all rows, allocated (and touched) once.
struct Buffers {
  std::vector<float> src;             // the input
  std::vector<unsigned char> mid;     // FLOAT -> T, up to 8 bytes per value
  std::vector<unsigned char> scales;  // block and absmax rows: the scales
  std::vector<float> back;            // T -> FLOAT
  std::vector<std::string> text;      // FLOAT -> STRING, the slice
  const Runner* runner = nullptr;
  size_t threads = 1;
  size_t row = kBlock;  // the format rows' row length (FormatShape)
};

double GBs(size_t bytes, double seconds) { return static_cast<double>(bytes) / seconds / 1e9; }

// The row's rates from its two timings: f_bytes of FLOAT and t_bytes of T moved each way,
// each against memcpy of its source buffer (FLOAT, then T) on the same threads.
void SetRates(Buffers& buf, size_t f_bytes, size_t t_bytes, double to_seconds, double from_seconds,
              Row* row) {
  const size_t capacity = buf.src.size() * sizeof(float);  // back's size; src's, <= mid's
  const double memcpy_f =
      MemcpySeconds(buf.back.data(), buf.src.data(), capacity, f_bytes, buf.runner, buf.threads);
  const double memcpy_t =
      MemcpySeconds(buf.back.data(), buf.mid.data(), capacity, t_bytes, buf.runner, buf.threads);
  row->to_gbs = GBs(f_bytes + t_bytes, to_seconds);
  row->to_memcpy = row->to_gbs / GBs(2 * f_bytes, memcpy_f);
  row->from_gbs = GBs(f_bytes + t_bytes, from_seconds);
  row->from_memcpy = row->from_gbs / GBs(2 * t_bytes, memcpy_t);
}

Status MeasureRow(Buffers& buf, const CastOptions& options, Row* row) {
  const DataType t = row->type;
  const bool is_string = t == DataType::kString;
  const size_t n = is_string ? std::min(buf.src.size(), kStringSlice) : buf.src.size();
  row->count = n;
  Range range;
  Status s = TypeRange(t, &range);
  if (!s.ok()) return s;

  void* mid = is_string ? static_cast<void*>(buf.text.data()) : buf.mid.data();
  double to_seconds = 0, from_seconds = 0;
  s = BestOf([&] { return Cast(buf.src.data(), DataType::kFloat, mid, t, n, options); },
             &to_seconds);
  if (!s.ok()) return s;
  s = BestOf([&] { return Cast(mid, t, buf.back.data(), DataType::kFloat, n, options); },
             &from_seconds);
  if (!s.ok()) return s;
  row->rt = CompareRoundTrip(buf.src.data(), buf.back.data(), n, range);
  if (!is_string) {
    CastOptions with_stats = options;
    with_stats.stats = &row->stats;
    row->have_stats = Cast(buf.src.data(), DataType::kFloat, mid, t, n, with_stats).ok();
  }

  // STRING counts the characters of the text; the others their storage.
  size_t t_bytes = 0;
  if (is_string) {
    for (size_t i = 0; i < n; ++i) t_bytes += buf.text[i].size();
  } else {
    t_bytes = StorageBytes(t, n);
  }
  SetRates(buf, n * sizeof(float), t_bytes, to_seconds, from_seconds, row);
  return Status::Ok();
}

// The shape the format rows see: rows of `row` values (the sample's channels, or a
// checkpoint's rows) when they tile the input and hold a block, else rows of kBlock, else
// one row. Blocks run along the rows;
// absmax has a scale per row.
std::vector<int64_t> FormatShape(size_t n, size_t row) {
  if (row < 32 || n % row != 0) row = n % kBlock == 0 ? kBlock : n;
  return {static_cast<int64_t>(n / row), static_cast<int64_t>(row)};
}

// Bits per value, the scales included.
double FormatBits(const QuantFormat& f, const std::vector<int64_t>& shape) {
  if (f.absmax) return 8.0 + 32.0 / static_cast<double>(shape[1]);
  const double block = static_cast<double>(BlockFormatBlockSize(f.block));
  return BitWidth(BlockFormatElementType(f.block)) + 8.0 / block;
}

// A block-scaled or absmax format, measured as FLOAT -> codes + scales -> FLOAT.
Status MeasureFormat(Buffers& buf, const QuantFormat& f, Row* row) {
  const size_t n = buf.src.size();
  row->count = n;
  const std::vector<int64_t> shape = FormatShape(n, buf.row);
  const TensorView x{buf.src.data(), DataType::kFloat, shape.data(), shape.size()};
  const DataType code_type = QuantFormatCodeType(f);
  const TensorView codes{buf.mid.data(), code_type, shape.data(), shape.size()};
  // Blocks along the rows (axis -1); absmax: a scale per row (axis 0).
  QuantizeChoice choice;
  choice.axis = f.absmax ? 0 : -1;
  choice.runner = buf.runner;
  BlockScaleOptions block_options;
  block_options.runner = buf.runner;
  size_t scale_bytes = static_cast<size_t>(shape[0]) * sizeof(float);
  if (!f.absmax) {
    Status s = BlockScaleCount(shape.data(), shape.size(), block_options, f.block, &scale_bytes);
    if (!s.ok()) return s;
  }
  float global = 0;
  auto* scales_f = reinterpret_cast<float*>(buf.scales.data());
  const auto quantize = [&] {
    return QuantizeWithFormat(f, x, buf.mid.data(), buf.scales.data(), &global, choice);
  };
  const auto dequantize = [&] {
    if (f.absmax) {
      // DequantizeLinear per channel: FLOAT scales along axis 0.
      QuantizeAttributes attrs;
      attrs.axis = 0;
      attrs.runner = buf.runner;
      const int64_t rows = shape[0];
      const TensorView sv{scales_f, DataType::kFloat, &rows, 1};
      return DequantizeLinear(codes, sv, nullptr, buf.back.data(), DataType::kFloat, attrs);
    }
    if (f.block == BlockFormat::kNvfp4) {
      return DequantizeNvfp4(codes, buf.scales.data(), global, buf.back.data(), DataType::kFloat,
                             block_options);
    }
    return DequantizeMx(codes, buf.scales.data(), f.block, buf.back.data(), DataType::kFloat,
                        block_options);
  };
  double to_seconds = 0, from_seconds = 0;
  Status s = BestOf(quantize, &to_seconds);
  if (s.ok()) s = BestOf(dequantize, &from_seconds);
  if (!s.ok()) return s;
  row->rt = CompareRoundTrip(buf.src.data(), buf.back.data(), n, Range());
  choice.stats = &row->stats;
  s = quantize();
  if (!s.ok()) return s;
  row->have_stats = true;

  SetRates(buf, n * sizeof(float), StorageBytes(code_type, n) + scale_bytes, to_seconds,
           from_seconds, row);
  return Status::Ok();
}

// Every castable type except FLOAT: floats first, then integers, bool, string.
std::vector<DataType> TargetTypes() {
  std::vector<DataType> order = {
      DataType::kFloat16,        DataType::kBfloat16,       DataType::kDouble,
      DataType::kFloat8E4M3FN,   DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2,
      DataType::kFloat8E5M2FNUZ, DataType::kFloat8E8M0,     DataType::kFloat4E2M1,
      DataType::kFloat6E2M3,     DataType::kFloat6E3M2,     DataType::kInt8,
      DataType::kInt16,          DataType::kInt32,          DataType::kInt64,
      DataType::kUint8,          DataType::kUint16,         DataType::kUint32,
      DataType::kUint64,         DataType::kInt4,           DataType::kUint4,
      DataType::kInt2,           DataType::kUint2,          DataType::kBool,
      DataType::kString};
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {  // any type added later
    const auto t = static_cast<DataType>(code);
    if (IsCastable(t) && t != DataType::kFloat &&
        std::find(order.begin(), order.end(), t) == order.end()) {
      order.push_back(t);
    }
  }
  return order;
}

std::string Number(double v) { return v == 0 ? "0" : Format("%.3g", v); }

std::string Percent(size_t part, size_t whole) {
  return whole == 0
             ? "-"
             : Format("%.4f", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

// Loads IN as float32 values (converted with tensorcast::Cast), at most `limit` of them.
Status LoadInput(const std::string& path, size_t limit, std::vector<float>* out,
                 std::string* description) {
  Tensor t;
  Status s = ReadTensor(path, &t);
  if (!s.ok()) return s;
  const size_t n = std::min(t.count, limit);
  out->assign(n, 0.0f);
  s = Cast(t.data(), t.type, out->data(), DataType::kFloat, n);
  if (!s.ok()) {
    return Status(s.code(), "cannot convert '" + path + "' from " + DataTypeName(t.type) +
                                " to FLOAT: " + s.message());
  }
  *description =
      Format("'%s', %s %s", path.c_str(), DataTypeName(t.type), ShapeString(t.dims).c_str());
  if (t.type != DataType::kFloat) *description += " converted to FLOAT";
  if (n < t.count) *description += Format(", first %zu of %zu values", n, t.count);
  return Status::Ok();
}

}  // namespace

int RunReport(const std::vector<std::string>& args) {
  std::string input_path;
  size_t count = kDefaultCount;
  bool count_given = false;
  size_t threads = DefaultThreadCount();
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].size() > 1 && args[i][0] == '-') {
      const std::string name = OptionName(args[i]);
      if (name != "--count" && name != "--threads") {
        return Fail(kExitUsage, "report: unknown option '" + name + "' (see tensorcast --help)");
      }
      std::string value;
      if (!OptionValue(args, &i, &value)) return Fail(kExitUsage, name + " needs a value");
      if (name == "--threads") {
        if (int rc = ParseThreads(value, &threads)) return rc;
        continue;
      }
      char* end = nullptr;
      const unsigned long long v = std::strtoull(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || value[0] == '-' || v == 0 || v > SIZE_MAX / 8) {
        return Fail(kExitUsage, "--count takes a positive number of values, not '" + value + "'");
      }
      count = static_cast<size_t>(v);
      count_given = true;
    } else if (input_path.empty()) {
      input_path = args[i];
    } else {
      return Fail(kExitUsage, "report takes at most one input file");
    }
  }
  if (!input_path.empty() && !IsSafetensorsPath(input_path)) {
    FileFormat format;
    Status s = FormatFromPath(input_path, &format);
    if (!s.ok()) return Fail(kExitUsage, s.message() + " (or .safetensors)");
  }

  Buffers buf;
  std::string input;
  if (input_path.empty()) {
    buf.src.resize(count);
    GenerateSample(count, buf.src.data());
    input = SampleDescription();
  } else {
    const size_t limit = count_given ? count : SIZE_MAX;
    Status s = IsSafetensorsPath(input_path)
                   ? ReadCheckpointFloats(input_path, limit, &buf.src, &input, &buf.row)
                   : LoadInput(input_path, limit, &buf.src, &input);
    if (!s.ok()) return Fail(kExitRuntime, s.message());
    if (buf.src.empty()) return Fail(kExitRuntime, "'" + input_path + "' holds no values");
  }
  const size_t n = buf.src.size();
  buf.mid.assign(n * 8, 0);
  buf.scales.assign(n / 16 + 4 * n / std::max<size_t>(buf.row, 1) + 64, 0);
  buf.back.assign(n, 0.0f);
  buf.text.resize(std::min(n, kStringSlice));

  CastOptions options;
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<ThreadPool>(threads);
    options.runner = pool->runner();
  }
  buf.runner = options.runner;
  buf.threads = threads;
  std::printf("tensorcast report: FLOAT -> T -> FLOAT, %zu thread%s, best of %d runs\n", threads,
              threads == 1 ? "" : "s", kRuns);
  std::printf("machine: %s; Highway target: %s; tensorcast %d.%d.%d\n", CpuModel().c_str(),
              ActiveTargetName(), TENSORCAST_VERSION_MAJOR, TENSORCAST_VERSION_MINOR,
              TENSORCAST_VERSION_PATCH);
  std::printf("%s\n", TuningLine().c_str());
  std::printf("input: %zu float32 values (%.1f MiB), %s\n\n", n,
              static_cast<double>(n * sizeof(float)) / (1 << 20), input.c_str());
  std::fflush(stdout);

  TextTable table({{"type / format", TextTable::kLeft},
                   {"bits", TextTable::kRight},
                   {"FLOAT->T GB/s", TextTable::kRight},
                   {"x memcpy", TextTable::kRight},
                   {"T->FLOAT GB/s", TextTable::kRight},
                   {"x memcpy", TextTable::kRight},
                   {"RMSE", TextTable::kRight},
                   {"SQNR dB", TextTable::kRight},
                   {"max rel err", TextTable::kRight},
                   {"saturated %", TextTable::kRight},
                   {"flushed %", TextTable::kRight},
                   {"note", TextTable::kLeft}});
  int failures = 0;
  std::string first_error;
  const auto add = [&](const std::string& name, const std::string& bits, const Row& row,
                       const Status& s, const std::string& note) {
    if (!s.ok()) {
      if (failures++ == 0) {
        first_error = name + " failed: " + StatusCodeName(s.code()) + ": " + s.message();
      }
      table.AddRow({name, bits, "-", "-", "-", "-", "-", "-", "-", "-", "-",
                    std::string("FAILED: ") + s.message()});
      return;
    }
    const CastStats& st = row.stats;
    const bool have = row.have_stats;
    table.AddRow({name, bits, Format("%.2f", row.to_gbs), Format("%.3g", row.to_memcpy),
                  Format("%.2f", row.from_gbs), Format("%.3g", row.from_memcpy),
                  have ? Number(st.Rmse()) : "-",
                  have ? (std::isinf(st.SqnrDb()) ? "inf" : Format("%.1f", st.SqnrDb())) : "-",
                  Number(row.rt.max_rel), have ? Percent(st.saturated, st.count) : "-",
                  have ? Percent(st.flushed, st.count) : "-", note});
  };
  for (DataType t : TargetTypes()) {
    Row row;
    row.type = t;
    Status s = MeasureRow(buf, options, &row);
    std::string note;
    if (t == DataType::kString) {
      note = "text bytes counted";
      if (row.count < n) note += Format("; first %zu values only", row.count);
    }
    add(DataTypeName(t), BitWidth(t) ? std::to_string(BitWidth(t)) : "-", row, s, note);
  }
  const std::vector<int64_t> shape = FormatShape(n, buf.row);
  for (const QuantFormat& f : QuantFormats()) {
    Row row;
    Status s = MeasureFormat(buf, f, &row);
    std::string note = f.absmax ? "a FLOAT scale per row" : "blocks along the rows";
    note += " of " + std::to_string(shape[1]);
    add(f.name, Format("%.3g", FormatBits(f, shape)), row, s, note);
  }
  table.Print(stdout);
  std::printf(
      "\nRows: the plain Cast FLOAT -> T -> FLOAT, then the scaled formats (scales computed:\n"
      "quantize, then dequantize to FLOAT). bits: per value, scales included.\n"
      "GB/s: bytes read + written per second (1 GB = 1e9 bytes). x memcpy: that rate over\n"
      "memcpy's rate on the same %zu thread%s, on the source buffer, measured in the same run.\n"
      "RMSE, SQNR, saturated and flushed: the library's statistics of FLOAT -> T\n"
      "(tensorcast/stats.h): saturated = finite x beyond T's largest magnitude (after the\n"
      "scale), flushed = non-zero x that becomes 0, as shares of all values. max rel err:\n"
      "|y - x| / |x| of the round trip, over finite non-zero x within T's finite range whose\n"
      "y is finite and not flushed. CastOptions defaults: saturate=1, round_mode=up.\n",
      threads, threads == 1 ? "" : "s");
  std::fflush(stdout);
  if (failures > 0) {
    std::string message = first_error;
    if (failures > 1) message += " (and " + std::to_string(failures - 1) + " more types)";
    return Fail(kExitRuntime, message);
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace tensorcast
