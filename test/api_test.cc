// Public API contract: data type codes and names, sizes, opset checks, options, the
// Status contract and every argument error (never a crash, never a silent partial
// result: an invalid call returns an error and writes nothing). Also a sweep of every
// castable pair x saturate x round_mode x count 0..9 that checks the call succeeds and
// never writes outside StorageBytes(dst). Expected values come from
// include/tensorcast/*.h, docs/semantics.md and the ONNX specification (onnx.proto's
// TensorProto.DataType codes, the packing of 4-/2-bit types, the Cast schema's opsets);
// "ref: TOPIC" marks what the ONNX specification and reference implementation say.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tensorcast/tensorcast.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using DT = DataType;
using Bytes = std::vector<uint8_t>;

constexpr uint8_t kFill = 0xA5;  // initial content of buffers that must stay unwritten

CastOptions Opt(bool saturate, RoundMode mode) {
  CastOptions o;
  o.saturate = saturate;
  o.round_mode = mode;
  return o;
}

// ref: ONNX data type codes: every TensorProto.DataType code with its name and bit width
// (data_type.h).
struct TypeRow {
  DT type;
  int code;
  const char* name;
  int bits;
};
const TypeRow kTypes[] = {
    {DT::kUndefined, 0, "UNDEFINED", 0},
    {DT::kFloat, 1, "FLOAT", 32},
    {DT::kUint8, 2, "UINT8", 8},
    {DT::kInt8, 3, "INT8", 8},
    {DT::kUint16, 4, "UINT16", 16},
    {DT::kInt16, 5, "INT16", 16},
    {DT::kInt32, 6, "INT32", 32},
    {DT::kInt64, 7, "INT64", 64},
    {DT::kString, 8, "STRING", 0},
    {DT::kBool, 9, "BOOL", 8},
    {DT::kFloat16, 10, "FLOAT16", 16},
    {DT::kDouble, 11, "DOUBLE", 64},
    {DT::kUint32, 12, "UINT32", 32},
    {DT::kUint64, 13, "UINT64", 64},
    {DT::kComplex64, 14, "COMPLEX64", 64},
    {DT::kComplex128, 15, "COMPLEX128", 128},
    {DT::kBfloat16, 16, "BFLOAT16", 16},
    {DT::kFloat8E4M3FN, 17, "FLOAT8E4M3FN", 8},
    {DT::kFloat8E4M3FNUZ, 18, "FLOAT8E4M3FNUZ", 8},
    {DT::kFloat8E5M2, 19, "FLOAT8E5M2", 8},
    {DT::kFloat8E5M2FNUZ, 20, "FLOAT8E5M2FNUZ", 8},
    {DT::kUint4, 21, "UINT4", 4},
    {DT::kInt4, 22, "INT4", 4},
    {DT::kFloat4E2M1, 23, "FLOAT4E2M1", 4},
    {DT::kFloat8E8M0, 24, "FLOAT8E8M0", 8},
    {DT::kUint2, 25, "UINT2", 2},
    {DT::kInt2, 26, "INT2", 2},
    {DT::kFloat6E2M3, 27, "FLOAT6E2M3", 6},
    {DT::kFloat6E3M2, 28, "FLOAT6E3M2", 6},
};

// The 26 types Cast accepts: 1..28 without the two complex types.
std::vector<DT> CastableTypes() {
  std::vector<DT> v;
  for (int c = 1; c <= 28; ++c) {
    if (c != 14 && c != 15) v.push_back(static_cast<DT>(c));
  }
  return v;
}

std::string Lower(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return s;
}

// ---------------------------------------------------------------------------------------
// Data types
// ---------------------------------------------------------------------------------------

TEST(DataTypes, CodesNamesWidths) {
  EXPECT_EQ(kMaxDataTypeCode, 28);
  for (const TypeRow& r : kTypes) {
    EXPECT_EQ(static_cast<int>(r.type), r.code) << r.name;
    EXPECT_STREQ(DataTypeName(r.type), r.name) << r.code;
    EXPECT_EQ(BitWidth(r.type), r.bits) << r.name;
    EXPECT_EQ(IsValidDataType(r.type), r.code != 0) << r.name;
    EXPECT_EQ(IsCastable(r.type), r.code != 0 && r.code != 14 && r.code != 15) << r.name;
  }
  for (int code : {-1, 29, 99, 1000, INT32_MIN, INT32_MAX}) {
    const DT t = static_cast<DT>(code);
    EXPECT_STREQ(DataTypeName(t), "INVALID") << code;
    EXPECT_EQ(BitWidth(t), 0) << code;
    EXPECT_FALSE(IsValidDataType(t)) << code;
    EXPECT_FALSE(IsCastable(t)) << code;
  }
}

TEST(DataTypes, ParseAccepted) {
  struct Row {
    const char* text;
    DT want;
  };
  const Row rows[] = {
      {"FLOAT8E4M3FN", DT::kFloat8E4M3FN},
      {"float8e4m3fn", DT::kFloat8E4M3FN},
      {"tensor(float8e4m3fn)", DT::kFloat8E4M3FN},
      {"17", DT::kFloat8E4M3FN},
      {"Float8E8M0", DT::kFloat8E8M0},
      {"FLOAT", DT::kFloat},
      {"1", DT::kFloat},
      {"26", DT::kInt2},
      {"28", DT::kFloat6E3M2},
      {"float6_e2m3fn", DT::kFloat6E2M3},
      {"tensor(float6e3m2)", DT::kFloat6E3M2},
      {" INT4 ", DT::kInt4},
      {"tensor(float16)", DT::kFloat16},
      {"TENSOR(INT64)", DT::kInt64},
      {"float16", DT::kFloat16},
      {"float32", DT::kFloat},  // numpy spellings
      {"float64", DT::kDouble},
      {"bool_", DT::kBool},
      {"bool", DT::kBool},
      {"string", DT::kString},
      {"bfloat16", DT::kBfloat16},
      {"COMPLEX64", DT::kComplex64},  // a valid type (Cast rejects it, not the parser)
  };
  for (const Row& r : rows) {
    DT out = DT::kUndefined;
    const Status s = ParseDataType(r.text, &out);
    EXPECT_TRUE(s.ok()) << '"' << r.text << "\": " << s.message();
    EXPECT_EQ(out, r.want) << '"' << r.text << '"';
  }
  // Every name, in upper and lower case, in tensor(...) and as its code.
  for (const TypeRow& r : kTypes) {
    if (r.code == 0) continue;
    for (const std::string& text : {std::string(r.name), Lower(r.name),
                                    "tensor(" + Lower(r.name) + ")", std::to_string(r.code)}) {
      DT out = DT::kUndefined;
      EXPECT_TRUE(ParseDataType(text, &out).ok()) << text;
      EXPECT_EQ(out, r.type) << text;
    }
  }
}

TEST(DataTypes, ParseRejected) {
  for (const char* text :
       {"0", "foo", "29", "99", "-1", "", " ", "UNDEFINED", "undefined", "tensor()", "tensor(foo)",
        "tensor(0)", "FLOAT8", "1.0", "0x11", "FLOAT 16", "tensor(float"}) {
    DT out = DT::kUndefined;
    const Status s = ParseDataType(text, &out);
    EXPECT_FALSE(s.ok()) << '"' << text << '"';
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << '"' << text << '"';
    EXPECT_FALSE(s.message().empty());
  }
}

// data_type.h: ceil(count * BitWidth / 8), count * sizeof(std::string) for STRING; ONNX
// packing (4-bit: ceil(N/2) bytes, 2-bit: ceil(N/4)).
TEST(DataTypes, StorageBytes) {
  struct Row {
    DT type;
    size_t count;
    size_t bytes;
  };
  const Row rows[] = {
      {DT::kFloat, 0, 0},
      {DT::kFloat, 3, 12},
      {DT::kUint8, 5, 5},
      {DT::kBool, 5, 5},
      {DT::kFloat16, 3, 6},
      {DT::kBfloat16, 1, 2},
      {DT::kDouble, 2, 16},
      {DT::kInt64, 1, 8},
      {DT::kComplex64, 2, 16},
      {DT::kComplex128, 1, 16},
      {DT::kFloat8E8M0, 7, 7},
      {DT::kInt4, 0, 0},
      {DT::kInt4, 1, 1},
      {DT::kInt4, 2, 1},
      {DT::kInt4, 3, 2},
      {DT::kUint4, 25, 13},
      {DT::kFloat4E2M1, 15, 8},
      {DT::kInt2, 1, 1},
      {DT::kInt2, 4, 1},
      {DT::kInt2, 5, 2},
      {DT::kUint2, 7, 2},
      {DT::kString, 0, 0},
      {DT::kString, 3, 3 * sizeof(std::string)},
      // Near SIZE_MAX without overflow.
      {DT::kUint8, SIZE_MAX, SIZE_MAX},
      {DT::kUint16, SIZE_MAX / 2, SIZE_MAX - 1},
      {DT::kInt4, SIZE_MAX, SIZE_MAX / 2 + 1},
      {DT::kInt2, SIZE_MAX, SIZE_MAX / 4 + 1},
      {DT::kFloat, SIZE_MAX / 4, SIZE_MAX - 3},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(StorageBytes(r.type, r.count), r.bytes) << DataTypeName(r.type) << " " << r.count;
    size_t bytes = 12345;
    const Status s = CheckedStorageBytes(r.type, r.count, &bytes);
    EXPECT_TRUE(s.ok()) << DataTypeName(r.type) << " " << r.count << ": " << s.message();
    EXPECT_EQ(bytes, r.bytes) << DataTypeName(r.type) << " " << r.count;
  }
}

TEST(DataTypes, StorageBytesOverflowAndInvalid) {
  struct Row {
    DT type;
    size_t count;
  };
  const Row overflow[] = {
      {DT::kUint16, SIZE_MAX / 2 + 1},
      {DT::kFloat, SIZE_MAX / 4 + 1},
      {DT::kDouble, SIZE_MAX / 8 + 1},
      {DT::kComplex128, SIZE_MAX / 16 + 1},
      {DT::kString, SIZE_MAX / sizeof(std::string) + 1},
      {DT::kInt64, SIZE_MAX},
  };
  for (const Row& r : overflow) {
    EXPECT_EQ(StorageBytes(r.type, r.count), SIZE_MAX) << DataTypeName(r.type);
    size_t bytes = 0;
    const Status s = CheckedStorageBytes(r.type, r.count, &bytes);
    EXPECT_EQ(s.code(), StatusCode::kOverflow) << DataTypeName(r.type);
    EXPECT_NE(s.message().find(std::to_string(r.count)), std::string::npos)
        << "the overflowing count should be named: " << s.message();
  }
  for (int code : {0, -1, 29, 99}) {
    const DT t = static_cast<DT>(code);
    EXPECT_EQ(StorageBytes(t, 0), SIZE_MAX) << code;
    EXPECT_EQ(StorageBytes(t, 1), SIZE_MAX) << code;
    size_t bytes = 0;
    const Status s = CheckedStorageBytes(t, 1, &bytes);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << code;  // not kOverflow
    EXPECT_FALSE(s.message().empty());
  }
}

// ---------------------------------------------------------------------------------------
// Opsets, options, Status
// ---------------------------------------------------------------------------------------

// cast.h: Cast 1/6: numeric + bool; 9: + STRING; 13: + BFLOAT16; 19: + four float8 types;
// 21: + INT4/UINT4; 23: + FLOAT4E2M1; 24: + FLOAT8E8M0; 25: + INT2/UINT2; 28: + FLOAT6E2M3,
// FLOAT6E3M2. CastLike from 15 to 25 (ref: Cast and CastLike schema opsets, onnx 1.23).
// Checked for every opset 1..29 and every pair.
int SinceOpset(DT t) {
  switch (t) {
    case DT::kString: return 9;
    case DT::kBfloat16: return 13;
    case DT::kFloat8E4M3FN:
    case DT::kFloat8E4M3FNUZ:
    case DT::kFloat8E5M2:
    case DT::kFloat8E5M2FNUZ: return 19;
    case DT::kUint4:
    case DT::kInt4: return 21;
    case DT::kFloat4E2M1: return 23;
    case DT::kFloat8E8M0: return 24;
    case DT::kUint2:
    case DT::kInt2: return 25;
    case DT::kFloat6E2M3:
    case DT::kFloat6E3M2: return 28;
    default: return 1;
  }
}

TEST(Opset, EveryOpsetEveryPair) {
  const std::vector<DT> types = CastableTypes();
  for (int opset = 1; opset <= 29; ++opset) {
    for (DT from : types) {
      for (DT to : types) {
        const bool cast_ok = opset <= 28 && opset >= SinceOpset(from) && opset >= SinceOpset(to);
        EXPECT_EQ(CheckCastOpset(opset, from, to).ok(), cast_ok)
            << "Cast-" << opset << " " << DataTypeName(from) << " -> " << DataTypeName(to);
        EXPECT_EQ(CheckCastOpset(opset, from, to, true).ok(), cast_ok && opset >= 15 && opset <= 25)
            << "CastLike-" << opset << " " << DataTypeName(from) << " -> " << DataTypeName(to);
      }
    }
  }
}

// CastLike's newest opset (25) lists no FLOAT6 type: CastLike refuses them, naming the
// argument, and writes nothing; Cast converts the same pair.
TEST(Opset, CastLikeRefusesTheFloat6Types) {
  const float src[3] = {1.0f, -2.5f, 7.5f};
  for (DT f6 : {DT::kFloat6E2M3, DT::kFloat6E3M2}) {
    uint8_t dst[3] = {0xA5, 0xA5, 0xA5};
    Status s = CastLike(src, DT::kFloat, dst, f6, 3);
    EXPECT_EQ(s.code(), StatusCode::kUnsupported) << DataTypeName(f6);
    EXPECT_NE(s.message().find("like type: " + std::string(DataTypeName(f6))), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find("CastLike (opsets 15-25)"), std::string::npos) << s.message();
    EXPECT_EQ(dst[0], 0xA5);
    s = CastLike(dst, f6, const_cast<float*>(src), DT::kFloat, 1);
    EXPECT_EQ(s.code(), StatusCode::kUnsupported);
    EXPECT_NE(s.message().find("source type"), std::string::npos) << s.message();
    EXPECT_TRUE(Cast(src, DT::kFloat, dst, f6, 3).ok());
    EXPECT_TRUE(CheckCastOpset(28, DT::kFloat, f6).ok());
    EXPECT_FALSE(CheckCastOpset(25, DT::kFloat, f6, true).ok());
  }
}

TEST(Opset, Rejections) {
  // Spot checks named in cast.h / ref: Cast schema opsets.
  EXPECT_TRUE(CheckCastOpset(1, DT::kFloat, DT::kInt8).ok());
  EXPECT_FALSE(CheckCastOpset(1, DT::kFloat, DT::kString).ok());
  EXPECT_TRUE(CheckCastOpset(9, DT::kString, DT::kFloat).ok());
  EXPECT_FALSE(CheckCastOpset(12, DT::kBfloat16, DT::kFloat).ok());
  EXPECT_FALSE(CheckCastOpset(18, DT::kFloat, DT::kFloat8E4M3FN).ok());
  EXPECT_FALSE(CheckCastOpset(14, DT::kFloat, DT::kInt8, true).ok());
  EXPECT_TRUE(CheckCastOpset(15, DT::kFloat, DT::kBfloat16, true).ok());
  EXPECT_FALSE(CheckCastOpset(15, DT::kFloat, DT::kFloat8E4M3FN, true).ok());
  // Complex, unknown and undefined types, and impossible opsets.
  for (bool like : {false, true}) {
    EXPECT_FALSE(CheckCastOpset(25, DT::kComplex64, DT::kFloat, like).ok());
    EXPECT_FALSE(CheckCastOpset(25, DT::kFloat, DT::kComplex128, like).ok());
    EXPECT_FALSE(CheckCastOpset(25, DT::kUndefined, DT::kFloat, like).ok());
    EXPECT_FALSE(CheckCastOpset(25, DT::kFloat, static_cast<DT>(99), like).ok());
    EXPECT_FALSE(CheckCastOpset(0, DT::kFloat, DT::kFloat, like).ok());
    EXPECT_FALSE(CheckCastOpset(-1, DT::kFloat, DT::kFloat, like).ok());
  }
  const Status s = CheckCastOpset(20, DT::kFloat, DT::kInt4);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.message().empty());
}

TEST(Options, DefaultsAndRoundMode) {
  const CastOptions o;
  EXPECT_TRUE(o.saturate);                  // Cast-19+ default saturate=1
  EXPECT_EQ(o.round_mode, RoundMode::kUp);  // Cast-24 default "up"
  EXPECT_EQ(static_cast<int>(RoundMode::kUp), 0);
  EXPECT_EQ(static_cast<int>(RoundMode::kDown), 1);
  EXPECT_EQ(static_cast<int>(RoundMode::kNearest), 2);
  struct Row {
    const char* text;
    RoundMode mode;
  };
  for (const Row& r : {Row{"up", RoundMode::kUp}, Row{"down", RoundMode::kDown},
                       Row{"nearest", RoundMode::kNearest}}) {
    RoundMode m = RoundMode::kNearest;
    if (r.mode == RoundMode::kNearest) m = RoundMode::kUp;
    const Status s = ParseRoundMode(r.text, &m);
    EXPECT_TRUE(s.ok()) << r.text;
    EXPECT_EQ(m, r.mode) << r.text;
    EXPECT_STREQ(RoundModeName(r.mode), r.text);
  }
  // "exact spelling".
  for (const char* bad : {"UP", "Up", "", "nearest ", " up", "round", "near", "DOWN", "0"}) {
    RoundMode m = RoundMode::kUp;
    const Status s = ParseRoundMode(bad, &m);
    EXPECT_FALSE(s.ok()) << '"' << bad << '"';
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << '"' << bad << '"';
  }
  EXPECT_NE(RoundModeName(static_cast<RoundMode>(7)), nullptr);
}

TEST(StatusContract, Basics) {
  const Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::kOk);
  EXPECT_TRUE(ok.message().empty());
  EXPECT_EQ(ok.elements_written(), 0u);
  EXPECT_TRUE(Status::Ok().ok());
  const Status e(StatusCode::kParseError, "element 3: \"x\"", 3);
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.code(), StatusCode::kParseError);
  EXPECT_EQ(e.message(), "element 3: \"x\"");
  EXPECT_EQ(e.elements_written(), 3u);
  EXPECT_STREQ(StatusCodeName(StatusCode::kOk), "OK");
  EXPECT_STREQ(StatusCodeName(StatusCode::kInvalidArgument), "INVALID_ARGUMENT");
  EXPECT_STREQ(StatusCodeName(StatusCode::kUnsupported), "UNSUPPORTED");
  EXPECT_STREQ(StatusCodeName(StatusCode::kParseError), "PARSE_ERROR");
  EXPECT_STREQ(StatusCodeName(StatusCode::kOverflow), "OVERFLOW");
  EXPECT_STREQ(StatusCodeName(StatusCode::kInternal), "INTERNAL");
  EXPECT_NE(StatusCodeName(static_cast<StatusCode>(42)), nullptr);
  const char* target = ActiveTargetName();
  ASSERT_NE(target, nullptr);
  EXPECT_GT(std::strlen(target), 0u);
}

// ---------------------------------------------------------------------------------------
// A first call: saturation, NaN and -0 into FLOAT8E4M3FN
// ---------------------------------------------------------------------------------------

TEST(FirstExample, FloatToFloat8E4M3FNSaturatesAndKeepsNaNAndNegativeZero) {
  const float src[] = {1.0f, 448.0f, 1e6f, NAN, -0.0f};
  uint8_t dst[5] = {0, 0, 0, 0, 0};
  const size_t n = 5;
  tensorcast::Status s =
      tensorcast::Cast(src, tensorcast::DataType::kFloat, dst, tensorcast::DataType::kFloat8E4M3FN,
                       n, tensorcast::CastOptions{true, tensorcast::RoundMode::kUp});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(s.message().empty());
  // ref: float8 encodings, float8 special values: 1.0 = 0x38, 448 = 0x7E, 1e6 saturates to 0x7E,
  // NaN = 0x7F, -0 = 0x80.
  const uint8_t want[] = {0x38, 0x7E, 0x7E, 0x7F, 0x80};
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(dst[i], want[i]) << i;
}

// The example of README.md's API section, with the values its comment states:
// 0.1 = 1.6 * 2^-4 -> exponent 3 (bias 7), mantissa 0.6 * 8 = 4.8 -> 5: 0x1D.
TEST(ReadmeExample, FloatToFloat8E4M3FN) {
  std::vector<float> src = {0.1f, 448.0f, 1e6f, NAN};
  std::vector<uint8_t> dst(src.size());
  tensorcast::Status s = tensorcast::Cast(
      src.data(), tensorcast::DataType::kFloat, dst.data(), tensorcast::DataType::kFloat8E4M3FN,
      src.size(), tensorcast::CastOptions{true, tensorcast::RoundMode::kUp});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(dst, (std::vector<uint8_t>{0x1D, 0x7E, 0x7E, 0x7F}));
}

// ---------------------------------------------------------------------------------------
// Argument errors (sem: errors; cast.h: "returns an error (and writes nothing)")
// ---------------------------------------------------------------------------------------

struct ErrorCase {
  const char* what;
  DT src_type;
  DT dst_type;
  size_t count;
  bool null_src;
  bool null_dst;
  CastOptions options;
  StatusCode code;
  const char* in_message;  // a word the one-line message must contain (or nullptr)
};

const CastOptions kDefault;
const ErrorCase kErrors[] = {
    {"unknown source code 99", static_cast<DT>(99), DT::kFloat, 4, false, false, kDefault,
     StatusCode::kInvalidArgument, "99"},
    {"unknown target code 99", DT::kFloat, static_cast<DT>(99), 4, false, false, kDefault,
     StatusCode::kInvalidArgument, "99"},
    {"source kUndefined", DT::kUndefined, DT::kFloat, 4, false, false, kDefault,
     StatusCode::kInvalidArgument, nullptr},
    {"target kUndefined", DT::kFloat, DT::kUndefined, 4, false, false, kDefault,
     StatusCode::kInvalidArgument, nullptr},
    {"source code -1", static_cast<DT>(-1), DT::kFloat, 4, false, false, kDefault,
     StatusCode::kInvalidArgument, nullptr},
    {"target code 29", DT::kFloat, static_cast<DT>(29), 4, false, false, kDefault,
     StatusCode::kInvalidArgument, "29"},
    {"unknown type with count 0", static_cast<DT>(99), DT::kFloat, 0, false, false, kDefault,
     StatusCode::kInvalidArgument, nullptr},
    {"complex64 source", DT::kComplex64, DT::kFloat, 4, false, false, kDefault,
     StatusCode::kUnsupported, nullptr},
    {"complex128 target", DT::kFloat, DT::kComplex128, 4, false, false, kDefault,
     StatusCode::kUnsupported, nullptr},
    {"complex64 -> complex64", DT::kComplex64, DT::kComplex64, 4, false, false, kDefault,
     StatusCode::kUnsupported, nullptr},
    {"null src", DT::kFloat, DT::kFloat16, 4, true, false, kDefault, StatusCode::kInvalidArgument,
     "src"},
    {"null dst", DT::kFloat, DT::kFloat16, 4, false, true, kDefault, StatusCode::kInvalidArgument,
     "dst"},
    {"null src, string source", DT::kString, DT::kFloat, 1, true, false, kDefault,
     StatusCode::kInvalidArgument, "src"},
    {"null dst, string target", DT::kFloat, DT::kString, 1, false, true, kDefault,
     StatusCode::kInvalidArgument, "dst"},
    {"round_mode 3, e8m0 target", DT::kFloat, DT::kFloat8E8M0, 4, false, false,
     Opt(true, static_cast<RoundMode>(3)), StatusCode::kInvalidArgument, "round_mode"},
    {"round_mode -1, e8m0 target", DT::kFloat, DT::kFloat8E8M0, 4, false, false,
     Opt(false, static_cast<RoundMode>(-1)), StatusCode::kInvalidArgument, "round_mode"},
    {"round_mode 3, float target", DT::kFloat, DT::kFloat16, 4, false, false,
     Opt(true, static_cast<RoundMode>(3)), StatusCode::kInvalidArgument, "round_mode"},
    // Byte counts that overflow size_t (the buffers are small: nothing may be touched).
    {"target bytes overflow", DT::kUint8, DT::kDouble, SIZE_MAX / 4, false, false, kDefault,
     StatusCode::kOverflow, nullptr},
    {"source bytes overflow", DT::kFloat, DT::kInt4, SIZE_MAX / 2, false, false, kDefault,
     StatusCode::kOverflow, nullptr},
    {"count SIZE_MAX", DT::kInt64, DT::kUint8, SIZE_MAX, false, false, kDefault,
     StatusCode::kOverflow, nullptr},
    {"string bytes overflow", DT::kString, DT::kUint8, SIZE_MAX / 8, false, false, kDefault,
     StatusCode::kOverflow, nullptr},
};

void ExpectArgumentError(const ErrorCase& e, bool cast_like) {
  const std::string label = std::string(cast_like ? "CastLike: " : "Cast: ") + e.what;
  // Generous real buffers; a string array where a type is STRING.
  std::vector<std::string> src_strings(8, "1");
  std::vector<std::string> dst_strings(8, "sentinel");
  Bytes src(256, 0x01);
  Bytes dst(256, kFill);
  const void* sp = e.null_src                  ? nullptr
                   : e.src_type == DT::kString ? static_cast<const void*>(src_strings.data())
                                               : static_cast<const void*>(src.data());
  void* dp = e.null_dst                  ? nullptr
             : e.dst_type == DT::kString ? static_cast<void*>(dst_strings.data())
                                         : static_cast<void*>(dst.data());
  const Status s = cast_like ? CastLike(sp, e.src_type, dp, e.dst_type, e.count, e.options)
                             : Cast(sp, e.src_type, dp, e.dst_type, e.count, e.options);
  EXPECT_EQ(s.code(), e.code) << label << ": got " << StatusCodeName(s.code()) << " "
                              << s.message();
  EXPECT_FALSE(s.message().empty()) << label;
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << label << ": one line";
  if (e.in_message != nullptr) {
    EXPECT_NE(s.message().find(e.in_message), std::string::npos)
        << label << ": message should name \"" << e.in_message << "\": " << s.message();
  }
  EXPECT_EQ(s.elements_written(), 0u) << label;
  for (size_t i = 0; i < dst.size(); ++i) {
    ASSERT_EQ(dst[i], kFill) << label << ": byte " << i << " written";
  }
  for (const std::string& d : dst_strings) ASSERT_EQ(d, "sentinel") << label;
}

TEST(ArgumentErrors, CastWritesNothing) {
  for (const ErrorCase& e : kErrors) ExpectArgumentError(e, false);
}

TEST(ArgumentErrors, CastLikeWritesNothing) {
  for (const ErrorCase& e : kErrors) ExpectArgumentError(e, true);
}

// Overlapping source and destination are refused before anything is written, except the
// same pointer with the same type (an in-place identity).
TEST(ArgumentErrors, OverlappingBuffersAreRefusedAndNothingIsWritten) {
  alignas(8) uint8_t buf[64];
  for (size_t i = 0; i < sizeof buf; ++i) buf[i] = static_cast<uint8_t>(i);
  uint8_t before[64];
  std::memcpy(before, buf, sizeof buf);
  // FLOAT -> FLOAT16 with the output starting inside the input, and the reverse.
  Status s = Cast(buf, DT::kFloat, buf + 4, DT::kFloat16, 8);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find("overlap"), std::string::npos) << s.message();
  s = Cast(buf + 8, DT::kFloat16, buf, DT::kFloat, 8);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  // The same pointer with different types (same size, so the bytes overlap exactly).
  s = Cast(buf, DT::kInt32, buf, DT::kFloat, 8);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_EQ(std::memcmp(before, buf, sizeof buf), 0) << "a refused Cast wrote";
  // Adjacent buffers do not overlap.
  EXPECT_TRUE(Cast(buf, DT::kFloat, buf + 32, DT::kFloat, 8).ok());
}

// "count 0 with null is OK" for every castable pair, both directions of nullness.
TEST(ArgumentErrors, CountZeroWithNullIsOk) {
  for (DT from : CastableTypes()) {
    for (DT to : CastableTypes()) {
      Bytes buf(8, kFill);
      EXPECT_TRUE(Cast(nullptr, from, nullptr, to, 0).ok())
          << DataTypeName(from) << " -> " << DataTypeName(to);
      const bool like = CheckCastOpset(25, from, to, true).ok();
      EXPECT_EQ(CastLike(nullptr, from, nullptr, to, 0).ok(), like)
          << DataTypeName(from) << " -> " << DataTypeName(to);
      if (from != DT::kString && to != DT::kString) {
        EXPECT_TRUE(Cast(buf.data(), from, nullptr, to, 0).ok());
        EXPECT_TRUE(Cast(nullptr, from, buf.data(), to, 0).ok());
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Sweep: every castable pair x saturate x round_mode x count 0..9
// ---------------------------------------------------------------------------------------

// Valid source elements: any bit pattern for numeric types, 0/1 for bool, zero padding in
// the last byte of packed types, parsable numbers for strings.
Bytes SourceBytes(DT t, size_t count, uint64_t seed) {
  Bytes b(StorageBytes(t, count));
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
  for (uint8_t& x : b) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<uint8_t>(state >> 56);
    if (t == DT::kBool) x &= 1;
  }
  const int bits = BitWidth(t);
  if (bits < 8 && count > 0) {
    const size_t used_bits = (count * static_cast<size_t>(bits)) % 8;
    if (used_bits != 0) b.back() &= static_cast<uint8_t>((1u << used_bits) - 1);
  }
  return b;
}

const char* const kNumberTexts[] = {"0",     "1.5", "-2",  "nan", "inf",  "1e3",
                                    "-0.25", "7",   " 3 ", "100", "-inf", "1e-50"};

TEST(EveryPair, SmallCountsSucceedWithinStorageBytesAndKeepTheSource) {
  const std::vector<DT> types = CastableTypes();
  const RoundMode modes[] = {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest};
  uint64_t seed = 1;
  for (DT from : types) {
    for (DT to : types) {
      for (bool sat : {true, false}) {
        for (RoundMode mode : modes) {
          for (size_t count = 0; count <= 9; ++count, ++seed) {
            const std::string label = std::string(DataTypeName(from)) + " -> " + DataTypeName(to) +
                                      " sat=" + (sat ? "1" : "0") + " mode=" + RoundModeName(mode) +
                                      " count=" + std::to_string(count);
            // Source.
            std::vector<std::string> src_strings;
            Bytes src_bytes;
            const void* src;
            if (from == DT::kString) {
              for (size_t i = 0; i < count; ++i) {
                src_strings.push_back(kNumberTexts[(seed + i) % 12]);
              }
              src = src_strings.data();
            } else {
              src_bytes = SourceBytes(from, count, seed);
              src = src_bytes.data();
            }
            const std::vector<std::string> src_strings_before = src_strings;
            const Bytes src_bytes_before = src_bytes;
            // Destination with guards.
            const CastOptions opt = Opt(sat, mode);
            Status s;
            if (to == DT::kString) {
              std::vector<std::string> dst(count + 2, test::kStringGuard);
              s = Cast(src, from, dst.data(), to, count, opt);
              EXPECT_EQ(dst[count], test::kStringGuard) << label;
              EXPECT_EQ(dst[count + 1], test::kStringGuard) << label;
            } else {
              const size_t n = StorageBytes(to, count);
              test::GuardedBuffer dst(n);
              s = Cast(src, from, dst.data(), to, count, opt);
              ASSERT_TRUE(dst.GuardsIntact()) << label;
              // Packed targets: the padding bits of the last byte are zero (ref: ONNX packing of
              // 4-/2-bit types).
              const int bits = BitWidth(to);
              const size_t used_bits = (count * static_cast<size_t>(bits)) % 8;
              if (bits < 8 && used_bits != 0) {
                EXPECT_EQ(dst[n - 1] >> used_bits, 0) << label << ": padding bits";
              }
            }
            EXPECT_TRUE(s.ok()) << label << ": " << s.message();
            EXPECT_EQ(src_strings, src_strings_before) << label << ": source modified";
            EXPECT_EQ(src_bytes, src_bytes_before) << label << ": source modified";
          }
        }
      }
    }
  }
}

// Element i of a numeric buffer as raw bits (packed types: ref: ONNX packing of 4-/2-bit types bit
// positions).
uint64_t ElementBits(const Bytes& b, DT t, size_t i) {
  const size_t bits = static_cast<size_t>(BitWidth(t));
  if (bits < 8) {  // bits [i * bits, (i + 1) * bits): a 6-bit code may cross a byte
    const size_t bit = i * bits;
    unsigned v = b[bit / 8] >> (bit % 8);
    if (bit % 8 + bits > 8) v |= static_cast<unsigned>(b[bit / 8 + 1]) << (8 - bit % 8);
    return v & ((1u << bits) - 1);
  }
  uint64_t v = 0;
  std::memcpy(&v, b.data() + i * bits / 8, bits / 8);
  return v;
}

// An element's result depends only on its value (docs/semantics.md), so a bulk call
// (which may take a vector path) equals element-by-element calls.
TEST(EveryPair, BulkCastEqualsElementByElementCasts) {
  constexpr size_t kCount = 131;
  const std::vector<DT> types = CastableTypes();
  uint64_t seed = 1000;
  for (DT from : types) {
    for (DT to : types) {
      for (bool sat : {true, false}) {
        for (RoundMode mode : {RoundMode::kUp, RoundMode::kNearest}) {
          ++seed;
          const CastOptions opt = Opt(sat, mode);
          const std::string label = std::string(DataTypeName(from)) + " -> " + DataTypeName(to) +
                                    " sat=" + (sat ? "1" : "0") + " mode=" + RoundModeName(mode);
          std::vector<std::string> src_strings, dst_strings(kCount);
          for (size_t i = 0; i < kCount; ++i) {
            src_strings.push_back(kNumberTexts[(seed + i * 7) % 12]);
          }
          const Bytes src_bytes = SourceBytes(from, kCount, seed);
          const void* src = from == DT::kString ? static_cast<const void*>(src_strings.data())
                                                : static_cast<const void*>(src_bytes.data());
          Bytes bulk(StorageBytes(to, kCount) + 1, kFill);
          void* dst = to == DT::kString ? static_cast<void*>(dst_strings.data())
                                        : static_cast<void*>(bulk.data());
          ASSERT_TRUE(Cast(src, from, dst, to, kCount, opt).ok()) << label;
          for (size_t i = 0; i < kCount; ++i) {
            // One element: its own source buffer.
            std::string one_string;
            Bytes one_src(8, 0);
            const void* s1 = &src_strings[i];
            if (from != DT::kString) {
              const uint64_t v = ElementBits(src_bytes, from, i);
              std::memcpy(one_src.data(), &v, 8);
              s1 = one_src.data();
            }
            Bytes one_dst(8, 0);
            void* d1 = to == DT::kString ? static_cast<void*>(&one_string)
                                         : static_cast<void*>(one_dst.data());
            ASSERT_TRUE(Cast(s1, from, d1, to, 1, opt).ok()) << label;
            if (to == DT::kString) {
              ASSERT_EQ(dst_strings[i], one_string) << label << " element " << i;
            } else {
              ASSERT_EQ(ElementBits(bulk, to, i), ElementBits(one_dst, to, 0))
                  << label << " element " << i;
            }
          }
        }
      }
    }
  }
}

// In place: the same pointer with the same type is allowed (cast.h) and is the identity.
TEST(EveryType, SameTypeCastInPlaceIsTheIdentity) {
  for (DT t : CastableTypes()) {
    for (size_t count : {size_t{1}, size_t{5}, size_t{9}}) {
      if (t == DT::kString) {
        std::vector<std::string> v = {"a", "1.5", "", "x", "y", "z", "7", "8", "9"};
        v.resize(count);
        const std::vector<std::string> before = v;
        EXPECT_TRUE(Cast(v.data(), t, v.data(), t, count).ok());
        EXPECT_EQ(v, before);
        continue;
      }
      Bytes v = SourceBytes(t, count, 77 + count);
      const Bytes before = v;
      const Status s = Cast(v.data(), t, v.data(), t, count);
      EXPECT_TRUE(s.ok()) << DataTypeName(t) << ": " << s.message();
      EXPECT_EQ(v, before) << DataTypeName(t);
    }
  }
}

}  // namespace
}  // namespace tensorcast
