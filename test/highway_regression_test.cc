// One regression test per Highway 1.0.3 conversion problem that tensorcast works around
// (docs/highway-notes.md), run through the public Cast() on every compiled target
// (test/target_loop.h). The inputs are the ones that expose each problem; the expected
// outputs are worked out by hand from IEEE 754 round-to-nearest-even and tensorcast's
// integer rules (docs/semantics.md: int -> int wraps; float -> int truncates toward zero,
// saturates, and maps NaN to 0), not taken from tensorcast. kernel_test covers the same
// pairs exhaustively (<= 16-bit sources) or with random and boundary inputs; this file
// names each problem so that a Highway upgrade or a kernel rewrite that reintroduces it
// fails here with a readable message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tensorcast/tensorcast.h"
#include "test/target_loop.h"

namespace tensorcast {
namespace {

template <typename To, typename From>
To BitCast(From x) {
  static_assert(sizeof(To) == sizeof(From), "size");
  To y;
  std::memcpy(&y, &x, sizeof(y));
  return y;
}

// Casts `in` (padded to 67 elements by repeating it, so full vectors, partial vectors
// and the scalar tail all see each input) and checks every output against `want`, on
// the active target.
template <typename In, typename Out>
void ExpectCast(DataType from, DataType to, const std::vector<In>& in, const std::vector<Out>& want,
                const char* what) {
  ASSERT_EQ(in.size(), want.size());
  constexpr size_t kCount = 67;
  std::vector<In> src(kCount);
  for (size_t i = 0; i < kCount; ++i) src[i] = in[i % in.size()];
  std::vector<Out> dst(kCount);
  const Status s = Cast(src.data(), from, dst.data(), to, kCount);
  ASSERT_TRUE(s.ok()) << what << ": " << s.message();
  for (size_t i = 0; i < kCount; ++i) {
    const size_t k = i % in.size();
    EXPECT_EQ(dst[i], want[k]) << what << ": input #" << k << " (element " << i << ") on "
                               << ActiveTargetName();
  }
}

constexpr float kF32Inf = std::numeric_limits<float>::infinity();
constexpr double kF64Inf = std::numeric_limits<double>::infinity();

// Highway 1.0.3 DemoteTo(bf16) truncates (bits >> 16) on every target and turns a NaN
// whose payload is only in the low 16 bits into +Inf.
TEST(HighwayRegressionTest, Bf16DemoteRoundsToNearestEvenAndKeepsNaN) {
  test::TargetLoop loop;
  loop.Run([] {
    const std::vector<uint32_t> in = {
        BitCast<uint32_t>(1.01171875f),  // 0x3F818000: tie, odd -> up to 0x3F82
        0x3F808000u,                     // 1.00390625: tie, even -> stays 0x3F80
        0x3F808001u,                     // just above the tie -> 0x3F81
        BitCast<uint32_t>(65504.0f),     // 0x477FE000 -> 0x4780 (truncation: 0x477F)
        0x7F7FFFFFu,                     // FLT_MAX rounds up to +Inf (0x7F80)
        0x80000001u,                     // -min subnormal -> -0
    };
    const std::vector<uint16_t> want = {0x3F82, 0x3F80, 0x3F81, 0x4780, 0x7F80, 0x8000};
    ExpectCast(DataType::kFloat, DataType::kBfloat16, in, want, "f32 -> bf16");

    // NaNs stay NaN with their sign, whatever the payload (quiet bit set or not).
    const std::vector<uint32_t> nans = {0x7F800001u, 0xFF800001u, 0x7FC00000u, 0x7FFFFFFFu};
    std::vector<uint16_t> out(nans.size());
    ASSERT_TRUE(
        Cast(nans.data(), DataType::kFloat, out.data(), DataType::kBfloat16, nans.size()).ok());
    for (size_t i = 0; i < nans.size(); ++i) {
      EXPECT_EQ(out[i] & 0x7F80, 0x7F80)
          << "f32 -> bf16 on " << ActiveTargetName() << ": NaN #" << i << " lost its exponent";
      EXPECT_NE(out[i] & 0x007F, 0)
          << "f32 -> bf16 on " << ActiveTargetName() << ": NaN #" << i << " became an infinity";
      EXPECT_EQ(out[i] >> 15, nans[i] >> 31)
          << "f32 -> bf16 on " << ActiveTargetName() << ": NaN #" << i << " lost its sign";
    }
  });
}

// Without F16C (SSSE3, SSE4, SCALAR) Highway's f32 -> f16 DemoteTo truncates, loses -0,
// gives finite values for overflow, Inf and NaN, and flushes the smallest subnormals.
TEST(HighwayRegressionTest, F16DemoteIsIeeeOnTargetsWithoutF16C) {
  test::TargetLoop loop;
  loop.Run([] {
    const std::vector<float> in = {
        -0.0f,
        65504.0f,    // F16 max
        65519.996f,  // below the overflow tie: F16 max
        65520.0f,    // tie between max and 2^16: rounds to Inf
        1e9f,
        kF32Inf,
        -kF32Inf,
        std::ldexp(0.75f, -24),        // 3/4 of the smallest subnormal -> 0x0001
        std::ldexp(0.5f, -24),         // exact tie with 0 -> 0 (even)
        std::ldexp(-0.75f, -24),       // -> 0x8001
        1.0f + std::ldexp(1.0f, -10),  // 0x3C01 exactly
        1.0f + std::ldexp(1.0f, -11),  // tie, even -> 0x3C00
        1.0f + std::ldexp(3.0f, -11),  // tie, odd -> 0x3C02
        std::ldexp(1.0f, -14),         // smallest normal 0x0400
    };
    const std::vector<uint16_t> want = {0x8000, 0x7BFF, 0x7BFF, 0x7C00, 0x7C00, 0x7C00, 0xFC00,
                                        0x0001, 0x0000, 0x8001, 0x3C01, 0x3C00, 0x3C02, 0x0400};
    ExpectCast(DataType::kFloat, DataType::kFloat16, in, want, "f32 -> f16");

    const std::vector<uint32_t> nan = {0x7FC00000u, 0xFFC00000u};
    std::vector<uint16_t> out(2);
    ASSERT_TRUE(Cast(nan.data(), DataType::kFloat, out.data(), DataType::kFloat16, 2).ok());
    const std::string what = std::string("f32 -> f16 on ") + ActiveTargetName();
    EXPECT_EQ(out[0] & 0x7C00, 0x7C00) << what << ": +NaN lost its exponent";
    EXPECT_NE(out[0] & 0x03FF, 0) << what << ": +NaN became an infinity";
    EXPECT_EQ(out[1] & 0xFC00, 0xFC00) << what << ": -NaN lost its exponent or sign";
    EXPECT_NE(out[1] & 0x03FF, 0) << what << ": -NaN became an infinity";
  });
}

// Without F16C, Highway's f16 -> f32 PromoteTo maps +-Inf to +-65536 and NaNs to finite
// values (exponent 31 is not special-cased).
TEST(HighwayRegressionTest, F16PromoteKeepsInfAndNaNOnTargetsWithoutF16C) {
  test::TargetLoop loop;
  loop.Run([] {
    const std::vector<uint16_t> in = {0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7BFF, 0x0001, 0x8000};
    const std::vector<uint32_t> want = {0x7F800000u,
                                        0xFF800000u,
                                        0x7FC00000u,
                                        0xFFC00000u,  // quiet NaN: payload shifted by 13
                                        BitCast<uint32_t>(65504.0f),
                                        BitCast<uint32_t>(std::ldexp(1.0f, -24)),
                                        0x80000000u};
    ExpectCast(DataType::kFloat16, DataType::kFloat, in, want, "f16 -> f32");
  });
}

// Highway's SCALAR f64 -> f32 DemoteTo clamps +-Inf and overflowing values to +-FLT_MAX.
TEST(HighwayRegressionTest, F64DemoteOverflowsToInfinity) {
  test::TargetLoop loop;
  loop.Run([] {
    const double flt_max = static_cast<double>(std::numeric_limits<float>::max());
    const double tie = std::ldexp(2.0 - std::ldexp(1.0, -24), 127);  // halfway FLT_MAX..2^128
    const std::vector<double> in = {
        kF64Inf, -kF64Inf, 1e300, -1e300, flt_max, tie, std::nextafter(tie, 0.0)};
    const std::vector<uint32_t> want = {0x7F800000u, 0xFF800000u, 0x7F800000u, 0xFF800000u,
                                        0x7F7FFFFFu, 0x7F800000u, 0x7F7FFFFFu};
    ExpectCast(DataType::kDouble, DataType::kFloat, in, want, "f64 -> f32");
  });
}

// x86 conversions give INT_MIN / INT_MAX for NaN (by sign); tensorcast maps NaN to 0 and
// saturates out-of-range values (docs/semantics.md). Also the SCALAR DemoteTo
// f64 -> i32 finding: INT_MIN for x in (-2^31, -(2^31 - 1)).
TEST(HighwayRegressionTest, FloatToIntNaNIsZeroAndRangeSaturates) {
  test::TargetLoop loop;
  loop.Run([] {
    const float qnan = std::numeric_limits<float>::quiet_NaN();
    ExpectCast(DataType::kFloat, DataType::kInt32,
               std::vector<float>{qnan, -qnan, kF32Inf, -kF32Inf, 2147483648.0f, -2147483648.0f,
                                  -2147483904.0f, 1e20f, -1.5f, 2.9f},
               std::vector<int32_t>{0, 0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, INT32_MIN,
                                    INT32_MAX, -1, 2},
               "f32 -> i32");
    const double dnan = std::numeric_limits<double>::quiet_NaN();
    ExpectCast(DataType::kDouble, DataType::kInt64,
               std::vector<double>{dnan, -dnan, kF64Inf, -kF64Inf, 9223372036854775808.0, -1e300,
                                   -9223372036854775808.0, -0.5},
               std::vector<int64_t>{0, 0, INT64_MAX, INT64_MIN, INT64_MAX, INT64_MIN, INT64_MIN, 0},
               "f64 -> i64");
    ExpectCast(DataType::kDouble, DataType::kInt32,
               std::vector<double>{dnan, -dnan, -2147483647.5, -2147483647.25, -2147483648.0,
                                   -2147483648.5, 2147483647.5, 2147483648.0},
               std::vector<int32_t>{0, 0, -2147483647, -2147483647, INT32_MIN, INT32_MIN, INT32_MAX,
                                    INT32_MAX},
               "f64 -> i32");
  });
}

// Highway 1.0.3 DemoteTo(i32 -> u8) on AVX2/AVX3/AVX3_DL gives v - 32768 instead of 255
// for 32768..33022: a float -> uint8 kernel that saturates through int32 would show it.
TEST(HighwayRegressionTest, SaturatingDemoteToUint8Above32767) {
  test::TargetLoop loop;
  loop.Run([] {
    const std::vector<float> in = {32767.0f, 32768.0f, 32769.5f, 33022.0f, 33023.0f,
                                   65535.0f, 255.9f,   -1.5f,    1e9f};
    const std::vector<uint8_t> want = {255, 255, 255, 255, 255, 255, 255, 0, 255};
    ExpectCast(DataType::kFloat, DataType::kUint8, in, want, "f32 -> u8");
    const std::vector<uint16_t> in16 = {0x7800 /* 32768 */, 0x7801 /* 32800 */, 0x7808, 0x5BF8};
    const std::vector<uint8_t> want16 = {255, 255, 255, 255};  // 0x5BF8 = 255.0
    ExpectCast(DataType::kFloat16, DataType::kUint8, in16, want16, "f16 -> u8");
    const std::vector<int8_t> want16s = {127, 127, 127, 127};
    ExpectCast(DataType::kFloat16, DataType::kInt8, in16, want16s, "f16 -> i8");
  });
}

// Highway 1.0.3 TruncateTo on AVX3_DL: u32 -> u8 from 512-bit vectors and every pair
// but u64 -> u32 from 256-bit vectors are wrong. Integer narrowing wraps (static_cast).
TEST(HighwayRegressionTest, IntegerNarrowingWraps) {
  test::TargetLoop loop;
  loop.Run([] {
    const std::vector<int32_t> i32 = {0x12345678, -1,  INT32_MIN, INT32_MAX,
                                      256,        255, -129,      0x00FF00FF};
    std::vector<uint8_t> u8(i32.size());
    std::vector<int16_t> i16(i32.size());
    for (size_t i = 0; i < i32.size(); ++i) {
      u8[i] = static_cast<uint8_t>(i32[i]);
      i16[i] = static_cast<int16_t>(i32[i]);
    }
    ExpectCast(DataType::kInt32, DataType::kUint8, i32, u8, "i32 -> u8");
    ExpectCast(DataType::kInt32, DataType::kInt16, i32, i16, "i32 -> i16");
    const std::vector<uint64_t> u64 = {0x0123456789ABCDEFull, ~0ull, 1ull << 63,
                                       0xFFFF0000FFFFull,     65536, 65535};
    std::vector<uint16_t> u16(u64.size());
    std::vector<int8_t> i8(u64.size());
    std::vector<uint32_t> u32(u64.size());
    for (size_t i = 0; i < u64.size(); ++i) {
      u16[i] = static_cast<uint16_t>(u64[i]);
      i8[i] = static_cast<int8_t>(u64[i]);
      u32[i] = static_cast<uint32_t>(u64[i]);
    }
    ExpectCast(DataType::kUint64, DataType::kUint16, u64, u16, "u64 -> u16");
    ExpectCast(DataType::kUint64, DataType::kInt8, u64, i8, "u64 -> i8");
    ExpectCast(DataType::kUint64, DataType::kUint32, u64, u32, "u64 -> u32");
  });
}

}  // namespace
}  // namespace tensorcast
