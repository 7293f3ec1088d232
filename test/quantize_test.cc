// QuantizeLinear / DequantizeLinear through the public API: values worked out by hand from
// the ONNX schema's formulas and examples (not from tensorcast's output), and every
// argument error with the argument it names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tensorcast/quantize.h"

namespace tensorcast {
namespace {

using T = DataType;

template <class E>
TensorView View(const std::vector<E>& v, T type, const std::vector<int64_t>& shape) {
  TensorView t;
  t.data = v.data();
  t.type = type;
  t.shape = shape.data();
  t.rank = shape.size();
  return t;
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

uint16_t Half(float f) {  // exact float -> FLOAT16 for the values used here (normal, exact)
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const int exp = static_cast<int>((u >> 23) & 0xFF) - 127 + 15;
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | ((u >> 13) & 0x3FF));
}

float FromHalf(uint16_t h) {
  const int exp = (h >> 10) & 0x1F;
  const float m = static_cast<float>(h & 0x3FF);
  const float v = exp == 0 ? std::ldexp(m, -24) : std::ldexp(1024.0f + m, exp - 25);
  return (h & 0x8000) ? -v : v;
}

// --- Values -------------------------------------------------------------------------------

TEST(QuantizeLinear, SchemaExampleUint8) {
  // ONNX QuantizeLinear example: x / 2 + 128, rounded half to even, saturated to [0, 255].
  const std::vector<float> x = {0, 2, 3, 1000, -254, -1000};
  const std::vector<float> s = {2};
  const std::vector<uint8_t> z = {128};
  const std::vector<int64_t> shape = {6}, scalar = {};
  const TensorView zv = View(z, T::kUint8, scalar);
  std::vector<uint8_t> y(6);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, scalar), &zv, y.data(),
                             T::kUint8)
                  .ok());
  EXPECT_EQ(y, (std::vector<uint8_t>{128, 129, 130, 255, 1, 0}));
}

TEST(QuantizeLinear, TiesToEvenAndSaturation) {
  const std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f,
                                300,  -300, 3e9f, kInf,  -kInf};
  const std::vector<float> s = {1};
  const std::vector<int64_t> shape = {11}, scalar = {};
  QuantizeAttributes a;
  a.output_dtype = T::kInt8;
  std::vector<int8_t> y(11);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, scalar), nullptr,
                             y.data(), T::kInt8, a)
                  .ok());
  EXPECT_EQ(y, (std::vector<int8_t>{0, 2, 2, 0, -2, -2, 127, -128, 127, 127, -128}));
}

TEST(QuantizeLinear, NaNGivesTheZeroPointAndZeroPointSaturates) {
  // round(x / s) is saturated to [lo - zp, hi - zp] before zp is added: no wrap.
  const std::vector<float> x = {kNaN, 2147483520.0f, -1, 1, 0};
  const std::vector<float> s = {1};
  const std::vector<uint8_t> z = {255};
  const std::vector<int64_t> shape = {5}, scalar = {};
  const TensorView zv = View(z, T::kUint8, scalar);
  std::vector<uint8_t> y(5);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, scalar), &zv, y.data(),
                             T::kUint8)
                  .ok());
  EXPECT_EQ(y, (std::vector<uint8_t>{255, 255, 254, 255, 255}));
  // Divided by zero: +-Inf saturate, 0 / 0 is NaN -> the zero point.
  const std::vector<float> x2 = {1, -1, 0};
  const std::vector<float> zero = {0};
  const std::vector<uint8_t> z10 = {10};
  const TensorView z10v = View(z10, T::kUint8, scalar);
  std::vector<uint8_t> y2(3);
  ASSERT_TRUE(QuantizeLinear(View(x2, T::kFloat, {3}), View(zero, T::kFloat, scalar), &z10v,
                             y2.data(), T::kUint8)
                  .ok());
  EXPECT_EQ(y2, (std::vector<uint8_t>{255, 0, 10}));
}

TEST(QuantizeLinear, Int4PerAxisPacked) {
  // axis 0 of [2, 3]: row 0 scale 1, row 1 scale 2; INT4 saturates to [-8, 7].
  const std::vector<float> x = {100, -100, 7.5f, -8.5f, 5, -3};
  const std::vector<float> s = {1, 2};
  const std::vector<int64_t> shape = {2, 3}, s_shape = {2};
  QuantizeAttributes a;
  a.axis = -2;
  a.output_dtype = T::kInt4;
  std::vector<uint8_t> y(3, 0xEE);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, s_shape), nullptr,
                             y.data(), T::kInt4, a)
                  .ok());
  // Row 0: 7, -8, 7 (7.5 -> 8 -> 7). Row 1: -8.5/2 = -4.25 -> -4, 2.5 -> 2, -1.5 -> -2.
  const int codes[6] = {7, -8, 7, -4, 2, -2};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ((y[i / 2] >> (4 * (i % 2))) & 0xF, codes[i] & 0xF) << "element " << i;
  }
}

TEST(QuantizeLinear, Float8SaturateAndNot) {
  const std::vector<float> x = {100000, -100000, 928, 930};
  const std::vector<float> s = {2};
  const std::vector<int64_t> shape = {4}, scalar = {};
  QuantizeAttributes a;
  a.output_dtype = T::kFloat8E4M3FN;
  std::vector<uint8_t> y(4);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, scalar), nullptr,
                             y.data(), T::kFloat8E4M3FN, a)
                  .ok());
  // 50000 -> 448 (0x7E); 464 is the tie between 448 and (NaN) 480: saturates to 448; 465 too.
  EXPECT_EQ(y, (std::vector<uint8_t>{0x7E, 0xFE, 0x7E, 0x7E}));
  a.saturate = false;
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, scalar), nullptr,
                             y.data(), T::kFloat8E4M3FN, a)
                  .ok());
  // Without saturation, beyond 464 is NaN (sign kept); exactly 464 rounds to even (448).
  EXPECT_EQ(y, (std::vector<uint8_t>{0x7F, 0xFF, 0x7E, 0x7F}));
}

TEST(QuantizeLinear, FloatZeroPointDecidesTheSignOfZero) {
  const std::vector<float> x = {-0.0f, 3.0f};
  const std::vector<float> s = {1};
  const std::vector<uint8_t> plus = {0x0}, minus = {0x8};  // FLOAT4E2M1 +0, -0
  const std::vector<int64_t> shape = {2}, scalar = {};
  std::vector<uint8_t> y(1);
  const TensorView zp = View(plus, T::kFloat4E2M1, scalar);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, scalar), &zp, y.data(),
                             T::kFloat4E2M1)
                  .ok());
  EXPECT_EQ(y[0], 0x50);  // +0, then 3.0 = 0x5
  const TensorView zm = View(minus, T::kFloat4E2M1, scalar);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, scalar), &zm, y.data(),
                             T::kFloat4E2M1)
                  .ok());
  EXPECT_EQ(y[0], 0x58);  // -0 + -0 = -0
}

TEST(QuantizeLinear, PrecisionOfTheDivision) {
  // 1000.6 / 1: in FLOAT16 precision x rounds to 1000.5 first and the quotient 1000.5 rounds
  // half to even to 1000; in FLOAT precision 1000.6 rounds to 1001.
  const std::vector<float> x = {1000.6f};
  const std::vector<uint16_t> s16 = {Half(1.0f)};
  const std::vector<int64_t> shape = {1}, scalar = {};
  QuantizeAttributes a;
  a.output_dtype = T::kInt16;
  std::vector<int16_t> y(1);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s16, T::kFloat16, scalar), nullptr,
                             y.data(), T::kInt16, a)
                  .ok());
  EXPECT_EQ(y[0], 1000);
  a.precision = T::kFloat;
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s16, T::kFloat16, scalar), nullptr,
                             y.data(), T::kInt16, a)
                  .ok());
  EXPECT_EQ(y[0], 1001);
  // An INT32 x divided in FLOAT: 22678 / 1.9741459 = 11487.5000... rounds to 11488 once
  // rounded to float32 (11487.5 exactly), then half to even.
  const std::vector<int32_t> xi = {22678};
  const std::vector<float> s = {1.9741459f};
  a.precision = T::kUndefined;
  ASSERT_TRUE(QuantizeLinear(View(xi, T::kInt32, shape), View(s, T::kFloat, scalar), nullptr,
                             y.data(), T::kInt16, a)
                  .ok());
  EXPECT_EQ(y[0], 11488);
}

TEST(QuantizeLinear, BlockedWithPartialLastBlock) {
  // [2, 5] blocked along axis 1 with block 3: scales [[1, 2], [4, 8]]; elements 3, 4 of
  // each row use the second scale.
  const std::vector<float> x = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90};
  const std::vector<float> s = {1, 2, 4, 8};
  const std::vector<int64_t> shape = {2, 5}, s_shape = {2, 2};
  QuantizeAttributes a;
  a.block_size = 3;
  a.output_dtype = T::kUint8;
  std::vector<uint8_t> y(10);
  ASSERT_TRUE(QuantizeLinear(View(x, T::kFloat, shape), View(s, T::kFloat, s_shape), nullptr,
                             y.data(), T::kUint8, a)
                  .ok());
  // 50/4 = 12.5 -> 12; 70/4 = 17.5 -> 18; 90/8 = 11.25 -> 11.
  EXPECT_EQ(y, (std::vector<uint8_t>{0, 10, 20, 15, 20, 12, 15, 18, 10, 11}));
}

TEST(DequantizeLinear, SchemaExampleAndPartialBlock) {
  const std::vector<uint8_t> x = {0, 3, 128, 255};
  const std::vector<float> s = {2};
  const std::vector<uint8_t> z = {128};
  const std::vector<int64_t> shape = {4}, scalar = {};
  const TensorView zv = View(z, T::kUint8, scalar);
  std::vector<float> y(4);
  ASSERT_TRUE(DequantizeLinear(View(x, T::kUint8, shape), View(s, T::kFloat, scalar), &zv, y.data(),
                               T::kFloat)
                  .ok());
  EXPECT_EQ(y, (std::vector<float>{-256, -250, 0, 254}));
  // arange(10) as [2, 5], scales [[1, 2], [4, 8]], axis 1, block 3.
  std::vector<uint8_t> xb(10);
  for (int i = 0; i < 10; ++i) xb[i] = static_cast<uint8_t>(i);
  const std::vector<float> sb = {1, 2, 4, 8};
  QuantizeAttributes a;
  a.block_size = 3;
  std::vector<float> yb(10);
  ASSERT_TRUE(DequantizeLinear(View(xb, T::kUint8, {2, 5}), View(sb, T::kFloat, {2, 2}), nullptr,
                               yb.data(), T::kFloat, a)
                  .ok());
  EXPECT_EQ(yb, (std::vector<float>{0, 1, 2, 6, 8, 20, 24, 28, 64, 72}));
}

TEST(DequantizeLinear, OneRoundingForHalfOutputsAndInt32) {
  // 23997 * 0.348876953125 = 8372.000244...: FLOAT16 has spacing 8 there, so the exact
  // product rounds to 8376 (rounding to float32 first gives 8372, a tie, then 8368).
  const std::vector<int16_t> x = {23997};
  const std::vector<uint16_t> s = {Half(0.348876953125f)};
  const std::vector<int64_t> shape = {1}, scalar = {};
  std::vector<uint16_t> y(1);
  ASSERT_TRUE(DequantizeLinear(View(x, T::kInt16, shape), View(s, T::kFloat16, scalar), nullptr,
                               y.data(), T::kFloat16)
                  .ok());
  EXPECT_EQ(FromHalf(y[0]), 8376.0f);
  // INT32: (16777217 - 1) * 1 = 16777216 and 16777217 * 0.75 = 12582912.75 -> 12582913.
  const std::vector<int32_t> xi = {16777217};
  const std::vector<int32_t> zi = {1};
  const std::vector<float> one = {1}, three_quarters = {0.75f};
  const TensorView zv = View(zi, T::kInt32, scalar);
  std::vector<float> yf(1);
  ASSERT_TRUE(DequantizeLinear(View(xi, T::kInt32, shape), View(one, T::kFloat, scalar), &zv,
                               yf.data(), T::kFloat)
                  .ok());
  EXPECT_EQ(yf[0], 16777216.0f);
  ASSERT_TRUE(DequantizeLinear(View(xi, T::kInt32, shape), View(three_quarters, T::kFloat, scalar),
                               nullptr, yf.data(), T::kFloat)
                  .ok());
  EXPECT_EQ(yf[0], 12582913.0f);
}

TEST(QuantizeLinear, OutputTypes) {
  QuantizeAttributes a;
  T y = T::kUndefined;
  ASSERT_TRUE(QuantizeLinearOutputType(a, T::kUndefined, &y).ok());
  EXPECT_EQ(y, T::kUint8);
  ASSERT_TRUE(QuantizeLinearOutputType(a, T::kInt4, &y).ok());
  EXPECT_EQ(y, T::kInt4);
  a.output_dtype = T::kFloat6E2M3;
  ASSERT_TRUE(QuantizeLinearOutputType(a, T::kUndefined, &y).ok());
  EXPECT_EQ(y, T::kFloat6E2M3);
  a.opset = 25;
  EXPECT_EQ(QuantizeLinearOutputType(a, T::kUndefined, &y).code(), StatusCode::kUnsupported);
  QuantizeAttributes d;
  ASSERT_TRUE(DequantizeLinearOutputType(d, T::kFloat16, &y).ok());
  EXPECT_EQ(y, T::kFloat16);
  d.opset = 13;
  ASSERT_TRUE(DequantizeLinearOutputType(d, T::kFloat, &y).ok());
  EXPECT_EQ(y, T::kFloat);
  EXPECT_EQ(QuantizeLinearVersion(9), 0);
  EXPECT_EQ(QuantizeLinearVersion(11), 10);
  EXPECT_EQ(QuantizeLinearVersion(18), 13);
  EXPECT_EQ(QuantizeLinearVersion(22), 21);
  EXPECT_EQ(QuantizeLinearVersion(27), 25);
  EXPECT_EQ(QuantizeLinearVersion(28), 28);
  EXPECT_EQ(QuantizeLinearVersion(29), 0);
}

// --- Errors -----------------------------------------------------------------------------

struct Call {
  std::vector<float> x = std::vector<float>(12, 1.0f);
  std::vector<int64_t> x_shape = {3, 4};
  std::vector<float> s = {1, 1, 1, 1};
  std::vector<int64_t> s_shape = {4};
  T s_type = T::kFloat;
  std::vector<uint8_t> z;
  std::vector<int64_t> z_shape;
  T z_type = T::kUndefined;
  QuantizeAttributes a;
  T y_type = T::kUint8;
  std::vector<uint8_t> y = std::vector<uint8_t>(64);

  Status Quantize() {
    TensorView xv = View(x, T::kFloat, x_shape);
    TensorView sv = View(s, s_type, s_shape);
    TensorView zv = View(z, z_type, z_shape);
    return QuantizeLinear(xv, sv, z_type == T::kUndefined ? nullptr : &zv, y.data(), y_type, a);
  }
};

void ExpectError(const Status& s, StatusCode code, const std::string& fragment) {
  EXPECT_EQ(s.code(), code) << s.message();
  EXPECT_NE(s.message().find(fragment), std::string::npos)
      << "message \"" << s.message() << "\" lacks \"" << fragment << "\"";
}

TEST(QuantizeLinearErrors, VersionsTypesAndAttributes) {
  {
    Call c;
    c.a.opset = 9;
    ExpectError(c.Quantize(), StatusCode::kUnsupported, "opset 9 is outside 10..28");
  }
  {
    Call c;
    c.a.opset = 19;
    c.a.block_size = 2;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "block_size: QuantizeLinear-19 has no such attribute (from opset 21)");
  }
  {
    Call c;
    c.a.opset = 21;
    c.a.precision = T::kFloat16;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument, "precision: QuantizeLinear-21");
  }
  {
    Call c;
    c.a.precision = T::kInt8;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument, "precision: INT8 (3)");
  }
  {
    Call c;
    c.a.opset = 13;
    c.s_type = T::kFloat16;
    ExpectError(c.Quantize(), StatusCode::kUnsupported,
                "y_scale: FLOAT16 (10) is not a type of QuantizeLinear-13 (FLOAT)");
  }
  {
    Call c;
    c.a.opset = 21;
    c.a.output_dtype = T::kFloat4E2M1;
    c.y_type = T::kFloat4E2M1;
    ExpectError(c.Quantize(), StatusCode::kUnsupported,
                "output_dtype: FLOAT4E2M1 (23) is not a type of QuantizeLinear-21");
  }
  {
    Call c;
    c.a.opset = 23;
    c.s_type = T::kFloat8E8M0;
    ExpectError(c.Quantize(), StatusCode::kUnsupported, "y_scale: FLOAT8E8M0 (24)");
  }
  {
    Call c;
    c.z = {0};
    c.z_shape = {};
    c.z_type = T::kInt8;
    c.a.output_dtype = T::kUint8;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "output_dtype: UINT8 (2) differs from the type of y_zero_point, INT8 (3)");
  }
  {
    Call c;
    c.y_type = T::kInt8;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "y: type INT8 (3) requested, but the node's output is UINT8 (2)");
  }
}

TEST(QuantizeLinearErrors, Shapes) {
  {
    Call c;
    c.s = {1, 1, 1};
    c.s_shape = {3};
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "y_scale: 3 values for dimension 1 of x, which has 4");
  }
  {
    Call c;
    c.a.axis = 2;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument, "axis: 2 is outside [-2, 1]");
  }
  {
    Call c;
    c.s = {1};
    c.s_shape = {1, 1};
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "y_scale: shape [1,1] is neither a scalar nor 1-D, and block_size is 0");
  }
  {
    Call c;  // blocked: D = 4 with 2 scales needs block_size in [2, 3]
    c.s = {1, 1, 1, 1, 1, 1};
    c.s_shape = {3, 2};
    c.a.block_size = 4;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument, "block_size must be in [2, 3]");
    c.a.block_size = 1;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument, "block_size must be in [2, 3]");
    c.a.block_size = 3;
    EXPECT_TRUE(c.Quantize().ok());
  }
  {
    Call c;
    c.s = {1, 1, 1, 1};
    c.s_shape = {2, 2};
    c.a.block_size = 2;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "y_scale: shape [2,2] differs from x's [3,4] in dimension 0");
  }
  {
    Call c;
    c.z = {0, 0, 0};
    c.z_shape = {3};
    c.z_type = T::kUint8;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "y_zero_point: shape [3] differs from y_scale's [4]");
  }
  {
    Call c;
    c.a.opset = 10;
    c.a.axis = 1;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "QuantizeLinear-10 takes a scalar scale, not [4]");
  }
  {
    Call c;
    c.x_shape = {3, -4};
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument, "x: dimension 1 is -4");
  }
}

TEST(QuantizeLinearErrors, ZeroPointsAndBuffers) {
  {
    Call c;  // FLOAT8E4M3FN 1.0 is 0x38
    c.z = {0x00, 0x38, 0x00, 0x00};
    c.z_shape = {4};
    c.z_type = T::kFloat8E4M3FN;
    c.y_type = T::kFloat8E4M3FN;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument,
                "y_zero_point: element 1 is the nonzero code 0x38");
  }
  {
    Call c;  // 0x80 is the NaN of the fnuz formats, not a zero
    c.z = {0x80};
    c.z_shape = {};
    c.s = {1};
    c.s_shape = {};
    c.z_type = T::kFloat8E4M3FNUZ;
    c.y_type = T::kFloat8E4M3FNUZ;
    ExpectError(c.Quantize(), StatusCode::kInvalidArgument, "element 0 is the nonzero code 0x80");
  }
  {
    Call c;
    TensorView xv = View(c.x, T::kFloat, c.x_shape);
    TensorView sv = View(c.s, T::kFloat, c.s_shape);
    // y over the bytes of x.
    ExpectError(QuantizeLinear(xv, sv, nullptr, c.x.data() + 2, T::kUint8, c.a),
                StatusCode::kInvalidArgument, "y: overlaps x");
    ExpectError(QuantizeLinear(xv, sv, nullptr, nullptr, T::kUint8, c.a),
                StatusCode::kInvalidArgument, "y is null with 12 elements");
    xv.data = nullptr;
    ExpectError(QuantizeLinear(xv, sv, nullptr, c.y.data(), T::kUint8, c.a),
                StatusCode::kInvalidArgument, "x: data is null with 12 elements");
  }
}

TEST(DequantizeLinearErrors, TypesAndAttributes) {
  const std::vector<int8_t> x(4, 1);
  const std::vector<float> s = {1};
  const std::vector<uint8_t> e8m0 = {127};
  const std::vector<int64_t> shape = {4}, scalar = {};
  std::vector<float> y(4);
  QuantizeAttributes a;
  ExpectError(DequantizeLinear(View(x, T::kInt8, shape), View(e8m0, T::kFloat8E8M0, scalar),
                               nullptr, y.data(), T::kFloat, a),
              StatusCode::kInvalidArgument, "x_scale: a FLOAT8E8M0 scale needs output_dtype");
  a.output_dtype = T::kFloat;
  EXPECT_TRUE(DequantizeLinear(View(x, T::kInt8, shape), View(e8m0, T::kFloat8E8M0, scalar),
                               nullptr, y.data(), T::kFloat, a)
                  .ok());
  EXPECT_EQ(y, (std::vector<float>{1, 1, 1, 1}));
  a.output_dtype = T::kInt8;
  ExpectError(DequantizeLinear(View(x, T::kInt8, shape), View(s, T::kFloat, scalar), nullptr,
                               y.data(), T::kInt8, a),
              StatusCode::kUnsupported,
              "output_dtype: INT8 (3) is not a type of DequantizeLinear-28");
  QuantizeAttributes b;
  b.saturate = false;
  ExpectError(DequantizeLinear(View(x, T::kInt8, shape), View(s, T::kFloat, scalar), nullptr,
                               y.data(), T::kFloat, b),
              StatusCode::kInvalidArgument, "saturate: DequantizeLinear has no such attribute");
  const std::vector<uint8_t> zu = {0};
  const TensorView zv = View(zu, T::kUint8, scalar);
  ExpectError(DequantizeLinear(View(x, T::kInt8, shape), View(s, T::kFloat, scalar), &zv, y.data(),
                               T::kFloat),
              StatusCode::kInvalidArgument,
              "x_zero_point: UINT8 (2) differs from x's type INT8 (3)");
  QuantizeAttributes c;
  c.opset = 19;
  ExpectError(DequantizeLinear(View(x, T::kInt8, shape), View(s, T::kFloat, scalar), nullptr,
                               y.data(), T::kFloat16, c),
              StatusCode::kInvalidArgument,
              "y: type FLOAT16 (10) requested, but the node's output is FLOAT (1)");
  const std::vector<uint8_t> f4(2, 0);
  ExpectError(DequantizeLinear(View(f4, T::kFloat4E2M1, shape), View(s, T::kFloat, scalar), nullptr,
                               y.data(), T::kFloat, c),
              StatusCode::kUnsupported, "x: FLOAT4E2M1 (23) is not a type of DequantizeLinear-19");
}

}  // namespace
}  // namespace tensorcast
