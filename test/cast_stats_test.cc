// Cast statistics (CastOptions::stats, tensorcast/stats.h) against their definitions,
// recomputed here: the out-of-range thresholds come from the formats' tables
// (docs/semantics.md section 5: E4M3FN overflows above 464, FLOAT16 from 65520, FLOAT4E2M1
// saturates from 7, integers outside their range after truncation), the output values from
// the Cast itself (whose bits the other tests check), the sums in long double differences
// and double squares, per chunk of 4096 elements in order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tensorcast/cast.h"
#include "tensorcast/runner.h"
#include "tensorcast/stats.h"

namespace tensorcast {
namespace {

using T = DataType;

// Every element of a buffer of `type` as long double (exact), through a Cast to DOUBLE or,
// for 64-bit integers, read directly.
std::vector<long double> Decode(const void* p, T type, size_t n) {
  std::vector<long double> out(n);
  if (type == T::kInt64) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<const int64_t*>(p)[i];
    return out;
  }
  std::vector<double> d(n);
  EXPECT_TRUE(Cast(p, type, d.data(), T::kDouble, n).ok());
  for (size_t i = 0; i < n; ++i) out[i] = d[i];
  return out;
}

CastStats Expected(const std::vector<long double>& x, const std::vector<long double>& y,
                   const std::function<bool(long double)>& outside) {
  CastStats r;
  r.count = x.size();
  long double amax = 0;
  for (size_t c = 0; c < x.size(); c += 4096) {
    double err = 0, sig = 0;
    for (size_t i = c; i < std::min(x.size(), c + 4096); ++i) {
      const long double v = x[i];
      if (std::isnan(v)) {
        ++r.nan_count;
        continue;
      }
      if (std::isinf(v)) {
        ++r.inf_count;
        continue;
      }
      amax = std::max(amax, std::fabs(v));
      if (outside(v)) ++r.saturated;
      if (v != 0 && y[i] == 0) ++r.flushed;
      if (std::isfinite(y[i])) {
        const double d = static_cast<double>(y[i] - v);
        const double vd = static_cast<double>(v);
        err += d * d;
        sig += vd * vd;
        ++r.error_count;
      }
    }
    r.sum_squared_error += err;
    r.sum_squared_signal += sig;
  }
  r.amax = static_cast<double>(amax);
  return r;
}

void ExpectSame(const CastStats& got, const CastStats& want, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.nan_count, want.nan_count);
  EXPECT_EQ(got.inf_count, want.inf_count);
  EXPECT_EQ(got.saturated, want.saturated);
  EXPECT_EQ(got.flushed, want.flushed);
  EXPECT_EQ(got.error_count, want.error_count);
  EXPECT_EQ(got.amax, want.amax);
  EXPECT_EQ(got.sum_squared_error, want.sum_squared_error);
  EXPECT_EQ(got.sum_squared_signal, want.sum_squared_signal);
}

// Floats with NaN, +-Inf, zeros, tiny and huge values and the thresholds themselves.
std::vector<float> Floats(size_t n, std::mt19937& rng) {
  std::vector<float> x(n);
  const float edges[] = {464.0f, 464.00003f, 448.0f, 65504.0f, 65520.0f, 65519.996f,
                         7.0f,   6.99999f,   127.9f, 128.0f,   -128.9f,  -129.0f,
                         1e-10f, 1e30f,      0.0f,   -0.0f};
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (size_t i = 0; i < n; ++i) {
    const int kind = static_cast<int>(rng() % 8);
    if (kind == 0) {
      x[i] = edges[rng() % (sizeof edges / sizeof edges[0])] * (rng() & 1 ? -1.0f : 1.0f);
    } else if (kind == 1) {
      x[i] = rng() % 3 == 0 ? NAN : rng() & 1 ? INFINITY : -INFINITY;
    } else {
      x[i] = std::ldexp(u(rng), static_cast<int>(rng() % 40) - 20);
    }
  }
  return x;
}

TEST(CastStats, MatchTheirDefinitions) {
  std::mt19937 rng(21);
  const size_t n = 10000;
  const std::vector<float> xf = Floats(n, rng);
  std::vector<long double> x(xf.begin(), xf.end());
  struct Case {
    T dst;
    std::function<bool(long double)> outside;
  };
  const Case cases[] = {
      {T::kFloat8E4M3FN, [](long double v) { return std::fabs(v) > 464; }},
      {T::kFloat8E5M2, [](long double v) { return std::fabs(v) >= 61440; }},
      {T::kFloat16, [](long double v) { return std::fabs(v) >= 65520; }},
      {T::kFloat4E2M1, [](long double v) { return std::fabs(v) >= 7; }},
      {T::kInt8,
       [](long double v) {
         const long double t = std::trunc(v);
         return t < -128 || t > 127;
       }},
      {T::kInt4,
       [](long double v) {
         const long double t = std::trunc(v);
         return t < -8 || t > 7;
       }},
      {T::kBfloat16, [](long double v) { return std::fabs(v) >= 0x1.FFp127L; }},
  };
  for (const Case& c : cases) {
    for (bool saturate : {true, false}) {
      std::vector<uint8_t> y(StorageBytes(c.dst, n));
      CastStats got;
      CastOptions o;
      o.saturate = saturate;
      o.stats = &got;
      ASSERT_TRUE(Cast(xf.data(), T::kFloat, y.data(), c.dst, n, o).ok());
      ExpectSame(got, Expected(x, Decode(y.data(), c.dst, n), c.outside),
                 std::string("FLOAT -> ") + DataTypeName(c.dst) + (saturate ? "" : " no saturate"));
    }
  }
  // Integer sources: INT32 -> INT8 (outside [-128, 127] wraps), INT64 -> FLOAT (exact errors
  // beyond 2^53: 2^60 + 1 -> 2^60 is an error of exactly 1).
  std::vector<int32_t> xi(n);
  for (auto& v : xi) v = static_cast<int32_t>(rng()) >> (rng() % 32);
  std::vector<int8_t> yi(n);
  CastStats got;
  CastOptions o;
  o.stats = &got;
  ASSERT_TRUE(Cast(xi.data(), T::kInt32, yi.data(), T::kInt8, n, o).ok());
  ExpectSame(
      got,
      Expected(std::vector<long double>(xi.begin(), xi.end()), Decode(yi.data(), T::kInt8, n),
               [](long double v) { return v < -128 || v > 127; }),
      "INT32 -> INT8");
  const std::vector<int64_t> big = {(int64_t{1} << 60) + 1, -(int64_t{1} << 62) - 3, 5};
  std::vector<float> yb(3);
  ASSERT_TRUE(Cast(big.data(), T::kInt64, yb.data(), T::kFloat, 3, o).ok());
  EXPECT_EQ(got.sum_squared_error, 1.0 + 9.0);
  EXPECT_EQ(got.saturated, 0u);
}

TEST(CastStats, ThreadsGiveTheBitsOfOneThread) {
  std::mt19937 rng(22);
  const size_t n = 300000;  // 1.5 MB moved: above the parallel threshold (1 MiB)
  const std::vector<float> x = Floats(n, rng);
  std::vector<uint8_t> y(n);
  CastStats one, many;
  CastOptions o;
  o.stats = &one;
  ASSERT_TRUE(Cast(x.data(), T::kFloat, y.data(), T::kFloat8E4M3FN, n, o).ok());
  ThreadPool pool(3);
  o.stats = &many;
  o.runner = pool.runner();
  ASSERT_TRUE(Cast(x.data(), T::kFloat, y.data(), T::kFloat8E4M3FN, n, o).ok());
  ExpectSame(many, one, "threads");
  EXPECT_GT(one.saturated, 0u);
  EXPECT_GT(one.flushed, 0u);
}

TEST(CastStats, RefusedForStringsAndInPlace) {
  std::vector<std::string> s = {"1.5"};
  float f = 0;
  CastStats st;
  CastOptions o;
  o.stats = &st;
  const Status a = Cast(s.data(), T::kString, &f, T::kFloat, 1, o);
  EXPECT_EQ(a.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.message(),
            "stats: statistics are computed for numeric pairs, not STRING (8) -> FLOAT (1)");
  const Status b = Cast(&f, T::kFloat, &f, T::kFloat, 1, o);
  EXPECT_EQ(b.code(), StatusCode::kInvalidArgument);
  // Empty: zeros.
  st.count = 99;
  EXPECT_TRUE(Cast(&f, T::kFloat, nullptr, T::kFloat16, 0, o).ok());
  EXPECT_EQ(st.count, 0u);
}

}  // namespace
}  // namespace tensorcast
