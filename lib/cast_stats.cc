// The statistics of a numeric Cast (tensorcast/stats.h): one pass after the conversion over
// the source and the output, in chunks of 4096 elements whose partial sums are added in
// chunk order (the same bits for any number of threads). Values are compared in long double,
// where every numeric type is exact (INT64 and UINT64 included).
#include "lib/cast_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "lib/block_scale_rules.h"
#include "lib/dispatch/route_plan.h"
#include "lib/parallel.h"
#include "lib/reference/reference_cast.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace cast_stats {
namespace {

using T = DataType;
constexpr size_t kChunk = 4096;

void CastChunk(const void* src, T src_type, void* dst, T dst_type, size_t n,
               const CastOptions& options) {
  CastOptions o = options;
  o.runner = nullptr;
  o.stats = nullptr;
  if (!dispatch::CastWithPlan(src, src_type, dst, dst_type, n, o)) {
    (void)reference::Cast(src, src_type, dst, dst_type, n, o);
  }
}

const void* At(const void* p, T type, size_t e) {
  return static_cast<const unsigned char*>(p) + e * static_cast<size_t>(Facts(type).bits) / 8;
}

// n elements of p from element e as long double (exact): INT64 / UINT64 read directly,
// every other type through an exact Cast to DOUBLE.
void Values(const void* p, T type, size_t e, size_t n, double* scratch, long double* out) {
  if (type == T::kInt64 || type == T::kUint64) {
    for (size_t j = 0; j < n; ++j) {
      if (type == T::kInt64) {
        int64_t v;
        std::memcpy(&v, static_cast<const int64_t*>(p) + e + j, sizeof v);
        out[j] = static_cast<long double>(v);
      } else {
        uint64_t v;
        std::memcpy(&v, static_cast<const uint64_t*>(p) + e + j, sizeof v);
        out[j] = static_cast<long double>(v);
      }
    }
    return;
  }
  CastChunk(At(p, type, e), type, scratch, T::kDouble, n, CastOptions());
  for (size_t j = 0; j < n; ++j) out[j] = scratch[j];
}

// How a target's range is decided for "saturated" (inputs outside it).
enum class RangeRule {
  kNone,         // DOUBLE, BOOL: no finite input is outside
  kOverflow,     // float targets with an overflow code: the non-saturating Cast overflows
  kE8M0,         // the non-saturating Cast gives NaN for a magnitude of at least 1
  kEdges,        // FLOAT4E2M1, FLOAT6: CodeRange (always saturating)
  kIntegerRange  // integers: the (truncated) value outside [min, max]
};

RangeRule RuleOf(T dst) {
  const TypeFacts& f = Facts(dst);
  if (dst == T::kDouble || dst == T::kBool) return RangeRule::kNone;
  if (dst == T::kFloat8E8M0) return RangeRule::kE8M0;
  if (dst == T::kFloat4E2M1 || dst == T::kFloat6E2M3 || dst == T::kFloat6E3M2) {
    return RangeRule::kEdges;
  }
  if (f.kind == TypeKind::kFloat) return RangeRule::kOverflow;
  return RangeRule::kIntegerRange;
}

struct Partial {
  uint64_t nan = 0, inf = 0, saturated = 0, flushed = 0, n = 0;
  long double amax = 0;
  double error = 0, signal = 0;
};

}  // namespace

void Compute(const void* src, T src_type, const void* dst, T dst_type, size_t count,
             const CastOptions& options, CastStats* out) {
  const RangeRule rule = RuleOf(dst_type);
  const TypeFacts& df = Facts(dst_type);
  long double lo = 0, hi = 0;
  if (rule == RangeRule::kIntegerRange) {
    const bool is_signed = df.kind == TypeKind::kSignedInt;
    const long double span = std::ldexp(1.0L, df.bits - (is_signed ? 1 : 0));
    lo = is_signed ? -span : 0;
    hi = span - 1;
  }
  const CodeRange edges = RangeOf(dst_type);
  const bool float_source = Facts(src_type).kind == TypeKind::kFloat;
  const size_t chunks = (count + kChunk - 1) / kChunk;
  std::vector<Partial> parts(chunks);
  auto range = [&](size_t begin, size_t end) {
    std::vector<double> scratch(kChunk);
    std::vector<long double> x(kChunk), y(kChunk), z(kChunk);
    std::vector<uint64_t> raw(kChunk);  // the non-saturating Cast's output (8 bytes each)
    for (size_t c = begin; c < end; ++c) {
      const size_t e0 = c * kChunk, n = std::min(kChunk, count - e0);
      Values(src, src_type, e0, n, scratch.data(), x.data());
      Values(dst, dst_type, e0, n, scratch.data(), y.data());
      if (rule == RangeRule::kOverflow || rule == RangeRule::kE8M0) {
        CastOptions unsaturated = options;
        unsaturated.saturate = false;
        CastChunk(At(src, src_type, e0), src_type, raw.data(), dst_type, n, unsaturated);
        Values(raw.data(), dst_type, 0, n, scratch.data(), z.data());
      }
      Partial& p = parts[c];
      for (size_t j = 0; j < n; ++j) {
        const long double v = x[j];
        if (std::isnan(v)) {
          ++p.nan;
          continue;
        }
        if (std::isinf(v)) {
          ++p.inf;
          continue;
        }
        p.amax = std::max(p.amax, std::fabs(v));
        bool outside = false;
        switch (rule) {
          case RangeRule::kNone: break;
          case RangeRule::kOverflow: outside = !std::isfinite(z[j]); break;
          case RangeRule::kE8M0: outside = std::isnan(z[j]) && std::fabs(v) >= 1; break;
          case RangeRule::kEdges: outside = edges.Saturated(static_cast<double>(v)); break;
          case RangeRule::kIntegerRange: {
            const long double t = float_source ? std::trunc(v) : v;
            outside = t < lo || t > hi;
            break;
          }
        }
        if (outside) ++p.saturated;
        if (v != 0 && y[j] == 0) ++p.flushed;
        if (std::isfinite(y[j])) {
          const double d = static_cast<double>(y[j] - v);
          const double vd = static_cast<double>(v);
          p.error += d * d;
          p.signal += vd * vd;
          ++p.n;
        }
      }
    }
  };
  const size_t bytes = StorageBytes(src_type, count) + StorageBytes(dst_type, count);
  size_t tasks = 1;
  if (options.runner != nullptr && bytes >= tuning::kParallelMinBytes && chunks > 1) {
    tasks = std::min({chunks, tuning::kParallelMaxTasks,
                      std::max<size_t>(1, bytes / tuning::kParallelTaskBytes)});
  }
  auto task = [&](size_t i) { range(chunks * i / tasks, chunks * (i + 1) / tasks); };
  parallel::RunTasks(options.runner, tasks, task);
  CastStats r;
  r.count = count;
  long double amax = 0;
  for (const Partial& p : parts) {  // chunk order
    r.nan_count += p.nan;
    r.inf_count += p.inf;
    r.saturated += p.saturated;
    r.flushed += p.flushed;
    r.error_count += p.n;
    r.sum_squared_error += p.error;
    r.sum_squared_signal += p.signal;
    amax = std::max(amax, p.amax);
  }
  r.amax = static_cast<double>(amax);
  *out = r;
}

}  // namespace cast_stats
}  // namespace tensorcast
