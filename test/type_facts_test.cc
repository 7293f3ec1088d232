// The type table (lib/type_facts.h) against facts written out here from the ONNX spec
// (onnx.proto codes and names, the Cast operator's type lists per opset), the format
// definitions (IEEE 754, the OCP 8-bit and MX formats, the fnuz variants) and the dtype
// names of numpy and ml_dtypes; and the public C++ and C enums against the same facts.
#include <gtest/gtest.h>

#include <climits>
#include <initializer_list>
#include <iterator>
#include <string>

#include "lib/type_facts.h"
#include "tensorcast/tensorcast.h"
#include "tensorcast/tensorcast_c.h"

namespace tensorcast {
namespace {

using DT = DataType;
using TK = TypeKind;
using NS = NanStyle;

// One element type as onnx.proto, the Cast operator and numpy / ml_dtypes describe it.
struct Expected {
  DT type;
  int code;
  const char* name;
  int bits;
  TK kind;
  int cast_since;  // 0: Cast never accepts it
  const char* numpy;
};

// clang-format off
const Expected kExpected[] = {
  {DT::kUndefined,       0, "UNDEFINED",        0, TK::kUndefined,    0, nullptr},
  {DT::kFloat,           1, "FLOAT",           32, TK::kFloat,        1, "float32"},
  {DT::kUint8,           2, "UINT8",            8, TK::kUnsignedInt,  1, "uint8"},
  {DT::kInt8,            3, "INT8",             8, TK::kSignedInt,    1, "int8"},
  {DT::kUint16,          4, "UINT16",          16, TK::kUnsignedInt,  1, "uint16"},
  {DT::kInt16,           5, "INT16",           16, TK::kSignedInt,    1, "int16"},
  {DT::kInt32,           6, "INT32",           32, TK::kSignedInt,    1, "int32"},
  {DT::kInt64,           7, "INT64",           64, TK::kSignedInt,    1, "int64"},
  {DT::kString,          8, "STRING",           0, TK::kString,       9, "object"},
  {DT::kBool,            9, "BOOL",             8, TK::kBool,         1, "bool"},
  {DT::kFloat16,        10, "FLOAT16",         16, TK::kFloat,        1, "float16"},
  {DT::kDouble,         11, "DOUBLE",          64, TK::kFloat,        1, "float64"},
  {DT::kUint32,         12, "UINT32",          32, TK::kUnsignedInt,  1, "uint32"},
  {DT::kUint64,         13, "UINT64",          64, TK::kUnsignedInt,  1, "uint64"},
  {DT::kComplex64,      14, "COMPLEX64",       64, TK::kComplex,      0, "complex64"},
  {DT::kComplex128,     15, "COMPLEX128",     128, TK::kComplex,      0, "complex128"},
  {DT::kBfloat16,       16, "BFLOAT16",        16, TK::kFloat,       13, "bfloat16"},
  {DT::kFloat8E4M3FN,   17, "FLOAT8E4M3FN",     8, TK::kFloat,       19, "float8_e4m3fn"},
  {DT::kFloat8E4M3FNUZ, 18, "FLOAT8E4M3FNUZ",   8, TK::kFloat,       19, "float8_e4m3fnuz"},
  {DT::kFloat8E5M2,     19, "FLOAT8E5M2",       8, TK::kFloat,       19, "float8_e5m2"},
  {DT::kFloat8E5M2FNUZ, 20, "FLOAT8E5M2FNUZ",   8, TK::kFloat,       19, "float8_e5m2fnuz"},
  {DT::kUint4,          21, "UINT4",            4, TK::kUnsignedInt, 21, "uint4"},
  {DT::kInt4,           22, "INT4",             4, TK::kSignedInt,   21, "int4"},
  {DT::kFloat4E2M1,     23, "FLOAT4E2M1",       4, TK::kFloat,       23, "float4_e2m1fn"},
  {DT::kFloat8E8M0,     24, "FLOAT8E8M0",       8, TK::kFloat,       24, "float8_e8m0fnu"},
  {DT::kUint2,          25, "UINT2",            2, TK::kUnsignedInt, 25, "uint2"},
  {DT::kInt2,           26, "INT2",             2, TK::kSignedInt,   25, "int2"},
  {DT::kFloat6E2M3,     27, "FLOAT6E2M3",       6, TK::kFloat,       28, "float6_e2m3fn"},
  {DT::kFloat6E3M2,     28, "FLOAT6E3M2",       6, TK::kFloat,       28, "float6_e3m2fn"},
};
// clang-format on

// The C constant of each enumerator (tensorcast_c.h).
struct CConstant {
  DT type;
  int c_constant;
};

const CConstant kCConstants[] = {
    {DT::kUndefined, TC_TYPE_UNDEFINED},
    {DT::kFloat, TC_TYPE_FLOAT},
    {DT::kUint8, TC_TYPE_UINT8},
    {DT::kInt8, TC_TYPE_INT8},
    {DT::kUint16, TC_TYPE_UINT16},
    {DT::kInt16, TC_TYPE_INT16},
    {DT::kInt32, TC_TYPE_INT32},
    {DT::kInt64, TC_TYPE_INT64},
    {DT::kString, TC_TYPE_STRING},
    {DT::kBool, TC_TYPE_BOOL},
    {DT::kFloat16, TC_TYPE_FLOAT16},
    {DT::kDouble, TC_TYPE_DOUBLE},
    {DT::kUint32, TC_TYPE_UINT32},
    {DT::kUint64, TC_TYPE_UINT64},
    {DT::kComplex64, TC_TYPE_COMPLEX64},
    {DT::kComplex128, TC_TYPE_COMPLEX128},
    {DT::kBfloat16, TC_TYPE_BFLOAT16},
    {DT::kFloat8E4M3FN, TC_TYPE_FLOAT8E4M3FN},
    {DT::kFloat8E4M3FNUZ, TC_TYPE_FLOAT8E4M3FNUZ},
    {DT::kFloat8E5M2, TC_TYPE_FLOAT8E5M2},
    {DT::kFloat8E5M2FNUZ, TC_TYPE_FLOAT8E5M2FNUZ},
    {DT::kUint4, TC_TYPE_UINT4},
    {DT::kInt4, TC_TYPE_INT4},
    {DT::kFloat4E2M1, TC_TYPE_FLOAT4E2M1},
    {DT::kFloat8E8M0, TC_TYPE_FLOAT8E8M0},
    {DT::kUint2, TC_TYPE_UINT2},
    {DT::kInt2, TC_TYPE_INT2},
    {DT::kFloat6E2M3, TC_TYPE_FLOAT6E2M3},
    {DT::kFloat6E3M2, TC_TYPE_FLOAT6E3M2},
};

// The float formats as IEEE 754, the OCP 8-bit and MX specs and the fnuz variants
// define them: stored exponent and fraction bits, bias, specials.
struct ExpectedFloat {
  DT type;
  int exponent_bits, mantissa_bits, bias;
  bool has_inf, has_nan;
  NS nan_style;
};

// clang-format off
const ExpectedFloat kExpectedFloats[] = {
  {DT::kFloat,          8, 23,  127, true,  true,  NS::kIeee},
  {DT::kDouble,        11, 52, 1023, true,  true,  NS::kIeee},
  {DT::kFloat16,        5, 10,   15, true,  true,  NS::kIeee},
  {DT::kBfloat16,       8,  7,  127, true,  true,  NS::kIeee},
  {DT::kFloat8E4M3FN,   4,  3,    7, false, true,  NS::kFn},
  {DT::kFloat8E4M3FNUZ, 4,  3,    8, false, true,  NS::kFnuz},
  {DT::kFloat8E5M2,     5,  2,   15, true,  true,  NS::kIeee},
  {DT::kFloat8E5M2FNUZ, 5,  2,   16, false, true,  NS::kFnuz},
  {DT::kFloat4E2M1,     2,  1,    1, false, false, NS::kNone},
  {DT::kFloat8E8M0,     8,  0,  127, false, true,  NS::kE8M0},
  {DT::kFloat6E2M3,     2,  3,    1, false, false, NS::kNone},
  {DT::kFloat6E3M2,     3,  2,    3, false, false, NS::kNone},
};
// clang-format on

const ExpectedFloat* FindFloat(DT type) {
  for (const ExpectedFloat& e : kExpectedFloats) {
    if (e.type == type) return &e;
  }
  return nullptr;
}

bool In(DT type, std::initializer_list<DT> set) {
  for (DT t : set) {
    if (t == type) return true;
  }
  return false;
}

TEST(TypeFacts, EveryCodeHasOneEnumeratorAndOneCConstant) {
  EXPECT_EQ(kMaxDataTypeCode, 28);
  EXPECT_EQ(TC_MAX_TYPE_CODE, 28);
  ASSERT_EQ(std::size(kExpected), 29u);
  for (int code = 0; code <= kMaxDataTypeCode; ++code) {
    int rows = 0;
    for (const Expected& e : kExpected) rows += e.code == code;
    EXPECT_EQ(rows, 1) << "code " << code;
  }
  for (const Expected& e : kExpected) EXPECT_EQ(static_cast<int>(e.type), e.code) << e.name;
  ASSERT_EQ(std::size(kCConstants), std::size(kExpected));
  for (size_t i = 0; i < std::size(kCConstants); ++i) {
    EXPECT_EQ(kCConstants[i].type, kExpected[i].type) << i;
    EXPECT_EQ(kCConstants[i].c_constant, kExpected[i].code) << kExpected[i].name;
  }
}

TEST(TypeFacts, RowsMatchTheSpecs) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    const TypeFacts& f = Facts(e.type);
    EXPECT_EQ(f.code, e.code);
    EXPECT_STREQ(f.name, e.name);
    EXPECT_EQ(f.bits, e.bits);
    EXPECT_EQ(f.kind, e.kind);
    EXPECT_EQ(f.packed, e.bits == 6 || e.bits == 4 || e.bits == 2);
    EXPECT_EQ(f.cast_since, e.cast_since);
    if (e.numpy == nullptr) {
      EXPECT_EQ(f.numpy_name, nullptr);
    } else {
      EXPECT_STREQ(f.numpy_name, e.numpy);
    }
    const ExpectedFloat* x = FindFloat(e.type);
    EXPECT_EQ(x != nullptr, e.kind == TK::kFloat);
    const ExpectedFloat none = {e.type, 0, 0, 0, false, false, NS::kNone};
    if (x == nullptr) x = &none;
    EXPECT_EQ(f.exponent_bits, x->exponent_bits);
    EXPECT_EQ(f.mantissa_bits, x->mantissa_bits);
    EXPECT_EQ(f.exponent_bias, x->bias);
    EXPECT_EQ(f.has_inf, x->has_inf);
    EXPECT_EQ(f.has_nan, x->has_nan);
    EXPECT_EQ(f.nan_style, x->nan_style);
  }
}

TEST(TypeFacts, UnknownCodesGetTheSentinelRow) {
  for (int code : {-1, 29, 99, 1000, INT32_MIN, INT32_MAX}) {
    const TypeFacts& f = Facts(static_cast<DT>(code));
    EXPECT_STREQ(f.name, "INVALID") << code;
    EXPECT_EQ(f.kind, TK::kUndefined) << code;
    EXPECT_EQ(f.bits, 0) << code;
    EXPECT_EQ(f.cast_since, 0) << code;
    EXPECT_EQ(f.numpy_name, nullptr) << code;
  }
}

TEST(TypeFacts, PredicatesSelectTheListedTypes) {
  const auto integers = {DT::kInt8,  DT::kUint8,  DT::kInt16, DT::kUint16, DT::kInt32, DT::kUint32,
                         DT::kInt64, DT::kUint64, DT::kInt4,  DT::kUint4,  DT::kInt2,  DT::kUint2};
  const auto signed_integers = {DT::kInt8,  DT::kInt16, DT::kInt32,
                                DT::kInt64, DT::kInt4,  DT::kInt2};
  const auto floats = {DT::kFloat,        DT::kDouble,         DT::kFloat16,    DT::kBfloat16,
                       DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ, DT::kFloat8E5M2, DT::kFloat8E5M2FNUZ,
                       DT::kFloat8E8M0,   DT::kFloat4E2M1,     DT::kFloat6E2M3, DT::kFloat6E3M2};
  const auto sub_byte = {DT::kInt4,  DT::kUint4,      DT::kFloat4E2M1, DT::kInt2,
                         DT::kUint2, DT::kFloat6E2M3, DT::kFloat6E3M2};
  const auto small_codes = {
      DT::kInt8,       DT::kUint8,          DT::kBool,       DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ,
      DT::kFloat8E5M2, DT::kFloat8E5M2FNUZ, DT::kFloat8E8M0, DT::kInt4,         DT::kUint4,
      DT::kFloat4E2M1, DT::kInt2,           DT::kUint2,      DT::kFloat6E2M3,   DT::kFloat6E3M2};
  const auto small_floats = {DT::kFloat16,        DT::kBfloat16,   DT::kFloat8E4M3FN,
                             DT::kFloat8E4M3FNUZ, DT::kFloat8E5M2, DT::kFloat8E5M2FNUZ,
                             DT::kFloat8E8M0,     DT::kFloat4E2M1, DT::kFloat6E2M3,
                             DT::kFloat6E3M2};
  // Every value exact in float32, FLOAT itself excluded.
  const auto exact_in_f32 = {
      DT::kFloat16,        DT::kBfloat16,   DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ, DT::kFloat8E5M2,
      DT::kFloat8E5M2FNUZ, DT::kFloat8E8M0, DT::kFloat4E2M1,   DT::kInt8,           DT::kUint8,
      DT::kInt16,          DT::kUint16,     DT::kInt4,         DT::kUint4,          DT::kInt2,
      DT::kUint2,          DT::kBool,       DT::kFloat6E2M3,   DT::kFloat6E3M2};
  for (int code = -1; code <= kMaxDataTypeCode + 1; ++code) {
    const auto t = static_cast<DT>(code);
    SCOPED_TRACE(DataTypeName(t));
    EXPECT_EQ(IsInteger(t), In(t, integers));
    EXPECT_EQ(IsSignedInteger(t), In(t, signed_integers));
    EXPECT_EQ(IsFloat(t), In(t, floats));
    EXPECT_EQ(IsSubByte(t), In(t, sub_byte));
    EXPECT_EQ(IsSmallCode(t), In(t, small_codes));
    EXPECT_EQ(IsSmallFloat(t), In(t, small_floats));
    EXPECT_EQ(IsExactInFloat32(t), In(t, exact_in_f32));
  }
}

// The public functions read the same facts.
TEST(TypeFacts, PublicFunctionsReportTheSameFacts) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    EXPECT_STREQ(DataTypeName(e.type), e.name);
    EXPECT_EQ(BitWidth(e.type), e.bits);
    EXPECT_EQ(IsValidDataType(e.type), e.code != 0);
    EXPECT_EQ(IsCastable(e.type), e.cast_since != 0);
    if (e.code == 0) continue;
    DT parsed = DT::kUndefined;
    ASSERT_TRUE(ParseDataType(e.numpy, &parsed).ok()) << e.numpy;
    EXPECT_EQ(parsed, e.type) << e.numpy;
  }
}

// Cast of opset N accepts a type exactly from the opset that introduced it.
TEST(TypeFacts, CheckCastOpsetAcceptsEachTypeFromItsFirstOpset) {
  for (const Expected& e : kExpected) {
    if (e.cast_since == 0) continue;
    SCOPED_TRACE(e.name);
    EXPECT_TRUE(CheckCastOpset(e.cast_since, e.type, DT::kFloat).ok());
    EXPECT_TRUE(CheckCastOpset(28, DT::kFloat, e.type).ok());
    if (e.cast_since > 1) {
      const Status s = CheckCastOpset(e.cast_since - 1, DT::kFloat, e.type);
      EXPECT_EQ(s.code(), StatusCode::kUnsupported);
      EXPECT_NE(s.message().find("added in opset " + std::to_string(e.cast_since)),
                std::string::npos)
          << s.message();
    }
  }
}

}  // namespace
}  // namespace tensorcast
