// STRING <-> numbers through the public API.
//
// Number -> string: numpy's str() spelling (as the ONNX reference does). String ->
// number: the accepted syntax, correctly rounded from the decimal text (one rounding of
// the exact value), with tensorcast's rules for integers, bool, bfloat16, float8, float4
// and e8m0 targets. Errors: the Status contract in status.h / cast.h. "sem" marks
// tensorcast's rules (docs/semantics.md), "ref: TOPIC" what the ONNX reference
// implementation does. Expected values are hand-computed from the rules; none was taken
// from tensorcast.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tensorcast/tensorcast.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using DT = DataType;
using namespace ::tensorcast::test;  // NOLINT: Bits, Hex, HexBytes, Raw, Opt
using Strings = std::vector<std::string>;

const char kSentinel[] = "<untouched sentinel>";

// Numbers (raw storage of `count` elements of `st`) -> strings. The output array starts
// with stale text (strings are assigned, not appended) and one sentinel element after it.
Strings ToStrings(const Bytes& src, DT st, size_t count) {
  Strings out(count + 1, "stale text");
  out[count] = kSentinel;
  const Status s = Cast(src.data(), st, out.data(), DT::kString, count);
  EXPECT_TRUE(s.ok()) << DataTypeName(st) << " -> STRING: " << s.message();
  EXPECT_EQ(out[count], kSentinel) << "wrote past count";
  out.pop_back();
  return out;
}

template <class S>
std::string ToString1(S x, DT st) {
  return ToStrings(Raw(std::vector<S>{x}), st, 1)[0];
}

// Strings -> raw storage of the target, written into a test::GuardedBuffer.
Bytes FromStrings(const Strings& src, DT dt, const CastOptions& o = {}) {
  test::GuardedBuffer buf(StorageBytes(dt, src.size()));
  const Status s = Cast(src.data(), DT::kString, buf.data(), dt, src.size(), o);
  EXPECT_TRUE(s.ok()) << "STRING -> " << DataTypeName(dt) << ": " << s.message();
  EXPECT_TRUE(buf.GuardsIntact()) << "STRING -> " << DataTypeName(dt);
  return buf.Output();
}

// One string -> the target's storage read as an unsigned bit pattern (packed types: the
// whole byte, whose padding must be zero).
uint64_t Parse1(const std::string& text, DT dt, const CastOptions& o = {}) {
  const Bytes out = FromStrings({text}, dt, o);
  uint64_t r = 0;
  std::memcpy(&r, out.data(), std::min(sizeof r, out.size()));
  return r;
}

// ---------------------------------------------------------------------------------------
// Number -> string
// ---------------------------------------------------------------------------------------

// ref: number to string, float32 examples; sem: positional when x == 0 or 1e-4 <= |x| < 1e16
// with at least one fractional digit, otherwise d[.ddd]e+XX with >= 2 exponent digits.
TEST(NumberToString, Float32Table) {
  struct Row {
    float x;
    const char* want;
  };
  const Row rows[] = {
      {0.1f, "0.1"},
      {1e-5f, "1e-05"},
      {1e20f, "1e+20"},
      {1e16f, "1e+16"},
      {1e15f, "1000000000000000.0"},
      {123456789.0f, "123456790.0"},
      {1e-4f, "1e-04"},  // float32 1e-4 is 9.99999974738e-05 < 1e-4
      {0.0001234f, "0.0001234"},
      {3.14159265f, "3.1415927"},
      {std::numeric_limits<float>::max(), "3.4028235e+38"},
      {1.4e-45f, "1e-45"},
      {1.0f, "1.0"},
      {0.0f, "0.0"},
      {-0.0f, "-0.0"},
      {-2.5f, "-2.5"},
      {100.0f, "100.0"},
      {-1e-5f, "-1e-05"},
      {std::numeric_limits<float>::infinity(), "inf"},
      {-std::numeric_limits<float>::infinity(), "-inf"},
  };
  for (const Row& r : rows) EXPECT_EQ(ToString1(r.x, DT::kFloat), r.want) << Hex(Bits(r.x));
  // "nan", also for a negative NaN.
  EXPECT_EQ(ToString1(uint32_t{0x7FC00000}, DT::kFloat), "nan");
  EXPECT_EQ(ToString1(uint32_t{0xFFC00000}, DT::kFloat), "nan");
  EXPECT_EQ(ToString1(uint32_t{0x7F800001}, DT::kFloat), "nan");
}

// ref: number to string: the legacy v1.18 conformance data test_cast_FLOAT_to_STRING.
TEST(NumberToString, Float32LegacyConformance) {
  const std::vector<uint32_t> in = {0x3F7A0D04, 0x3F1AD728, 0x3F3D4061, 0x3D208361,
                                    0x3E90CC13, 0x3DF6299D, 0x3E979FB0, 0x3DF32785,
                                    0x3EA2CEB1, 0x3ED41A47, 0x3D835FC3, 0x3F3145DA};
  const Strings want = {"0.9767611",  "0.6048455",  "0.7392636",   "0.039187793",
                        "0.28280696", "0.12019656", "0.2961402",   "0.11872772",
                        "0.31798318", "0.41426298", "0.064147495", "0.6924721"};
  EXPECT_EQ(ToStrings(Raw(in), DT::kFloat, 12), want);
}

TEST(NumberToString, Float16AndFloat64) {
  // ref: number to string, float16 examples: 0.1 -> "0.1", 3.14159 -> "3.14", 1e-4 -> "0.0001".
  EXPECT_EQ(ToString1(uint16_t{0x2E66}, DT::kFloat16), "0.1");
  EXPECT_EQ(ToString1(uint16_t{0x4248}, DT::kFloat16), "3.14");
  EXPECT_EQ(ToString1(uint16_t{0x068E}, DT::kFloat16), "0.0001");
  // Shortest at float16 precision: 65504 -> "65500.0", 2^-24 -> "6e-08".
  EXPECT_EQ(ToString1(uint16_t{0x7BFF}, DT::kFloat16), "65500.0");
  EXPECT_EQ(ToString1(uint16_t{0x0001}, DT::kFloat16), "6e-08");
  EXPECT_EQ(ToString1(uint16_t{0x3555}, DT::kFloat16), "0.3333");
  EXPECT_EQ(ToString1(uint16_t{0x8000}, DT::kFloat16), "-0.0");
  EXPECT_EQ(ToString1(uint16_t{0xFE00}, DT::kFloat16), "nan");
  EXPECT_EQ(ToString1(uint16_t{0xFC00}, DT::kFloat16), "-inf");
  // ref: number to string, float64 examples.
  EXPECT_EQ(ToString1(0.1 + 0.2, DT::kDouble), "0.30000000000000004");
  EXPECT_EQ(ToString1(5e-324, DT::kDouble), "5e-324");
  EXPECT_EQ(ToString1(0.1, DT::kDouble), "0.1");
  EXPECT_EQ(ToString1(1e16, DT::kDouble), "1e+16");
  EXPECT_EQ(ToString1(1e-4, DT::kDouble), "0.0001");  // double 1e-4 is >= 1e-4
  EXPECT_EQ(ToString1(123456789.0, DT::kDouble), "123456789.0");
  EXPECT_EQ(ToString1(std::numeric_limits<double>::max(), DT::kDouble), "1.7976931348623157e+308");
  EXPECT_EQ(ToString1(uint64_t{0xFFF8000000000000ull}, DT::kDouble), "nan");
  EXPECT_EQ(ToString1(-0.0, DT::kDouble), "-0.0");
}

TEST(NumberToString, IntegersAndBool) {
  EXPECT_EQ(ToString1(int8_t{-128}, DT::kInt8), "-128");
  EXPECT_EQ(ToString1(uint8_t{255}, DT::kUint8), "255");
  EXPECT_EQ(ToString1(int16_t{-32768}, DT::kInt16), "-32768");
  EXPECT_EQ(ToString1(uint16_t{65535}, DT::kUint16), "65535");
  EXPECT_EQ(ToString1(INT32_MIN, DT::kInt32), "-2147483648");
  EXPECT_EQ(ToString1(UINT32_MAX, DT::kUint32), "4294967295");
  EXPECT_EQ(ToString1(INT64_MIN, DT::kInt64), "-9223372036854775808");
  EXPECT_EQ(ToString1(UINT64_MAX, DT::kUint64), "18446744073709551615");
  EXPECT_EQ(ToString1(int32_t{0}, DT::kInt32), "0");
  EXPECT_EQ(ToStrings({1, 0}, DT::kBool, 2), (Strings{"True", "False"}));
  // Packed integers: INT4 87 a9 = [7, -8, -7, -6]; UINT4 the same nibbles.
  EXPECT_EQ(ToStrings({0x87, 0xA9}, DT::kInt4, 4), (Strings{"7", "-8", "-7", "-6"}));
  EXPECT_EQ(ToStrings({0x87, 0xA9}, DT::kUint4, 4), (Strings{"7", "8", "9", "10"}));
  EXPECT_EQ(ToStrings({0x8F}, DT::kUint4, 1), (Strings{"15"}));  // only the low nibble
  // INT2/UINT2 0x39 = codes [1, 2, 3, 0].
  EXPECT_EQ(ToStrings({0x39}, DT::kInt2, 4), (Strings{"1", "-2", "-1", "0"}));
  EXPECT_EQ(ToStrings({0x39}, DT::kUint2, 3), (Strings{"1", "2", "3"}));
}

// sem: bfloat16, float8 and float4 use the shortest string that round-trips at their
// own precision; float8e8m0 the shortest that parses back to the same code with
// round_mode=nearest (ties in length: the closest to the value, as Dragon4).
TEST(NumberToString, SmallFloats) {
  struct Row {
    DT type;
    uint16_t bits;
    const char* want;
  };
  const Row rows[] = {
      {DT::kBfloat16, 0x3DCD, "0.1"},  // 0.10009765625 (sem example)
      {DT::kBfloat16, 0x3F80, "1.0"},
      {DT::kBfloat16, 0x4049, "3.14"},  // 3.140625; neighbours 3.125, 3.15625
      // 2^24: round-trip interval [2^24 - 2^15, 2^24 + 2^16] -> 1.68e7.
      {DT::kBfloat16, 0x4B80, "16800000.0"},
      {DT::kBfloat16, 0x7F80, "inf"},
      {DT::kBfloat16, 0xFFC0, "nan"},
      {DT::kFloat8E4M3FN, 0x31, "0.56"},  // 0.5625 (sem example)
      {DT::kFloat8E4M3FN, 0xB1, "-0.56"},
      {DT::kFloat8E4M3FN, 0x01, "0.002"},  // 2^-9; interval (2^-10, 1.5*2^-9)
      {DT::kFloat8E4M3FN, 0x38, "1.0"},
      {DT::kFloat8E4M3FN, 0x44, "3.0"},
      {DT::kFloat8E4M3FN, 0x30, "0.5"},
      {DT::kFloat8E4M3FN, 0x80, "-0.0"},
      {DT::kFloat8E4M3FN, 0xFF, "nan"},
      {DT::kFloat8E4M3FNUZ, 0x80, "nan"},
      {DT::kFloat8E4M3FNUZ, 0x40, "1.0"},
      {DT::kFloat8E5M2, 0x7C, "inf"},
      {DT::kFloat8E5M2, 0xFC, "-inf"},
      {DT::kFloat8E5M2, 0x01, "2e-05"},  // 2^-16 = 1.53e-5: 1e-5 and 2e-5 both round-trip
      {DT::kFloat8E5M2FNUZ, 0x80, "nan"},
      {DT::kFloat4E2M1, 0x1, "0.5"},
      {DT::kFloat4E2M1, 0x3, "1.5"},
      {DT::kFloat4E2M1, 0x7, "6.0"},
      {DT::kFloat4E2M1, 0x8, "-0.0"},
      {DT::kFloat4E2M1, 0xD, "-3.0"},
      {DT::kFloat8E8M0, 0x00, "6e-39"},  // 2^-127 (sem example)
      {DT::kFloat8E8M0, 0x7F, "1.0"},    // sem example
      {DT::kFloat8E8M0, 0x80, "2.0"},
      {DT::kFloat8E8M0, 0x7E, "0.5"},
      {DT::kFloat8E8M0, 0x7C, "0.1"},    // 0.125: nearest maps [0.09375, 0.1875) to it
      {DT::kFloat8E8M0, 0x85, "60.0"},   // 64: nearest maps [48, 96) to it
      {DT::kFloat8E8M0, 0xFE, "2e+38"},  // 2^127: [1.5*2^126, 1.5*2^127)
      {DT::kFloat8E8M0, 0xFF, "nan"},
  };
  for (const Row& r : rows) {
    const Bytes src = BitWidth(r.type) == 16 ? Raw(std::vector<uint16_t>{r.bits})
                                             : Bytes{static_cast<uint8_t>(r.bits)};
    EXPECT_EQ(ToStrings(src, r.type, 1)[0], r.want) << DataTypeName(r.type) << " " << Hex(r.bits);
  }
  // Packed float4 with an odd count: 0x31 = [0.5, 1.5], 0x07 = [6.0].
  EXPECT_EQ(ToStrings({0x31, 0x07}, DT::kFloat4E2M1, 3), (Strings{"0.5", "1.5", "6.0"}));
}

// sem: "the shortest digit string that round-trips at the source precision" - every
// non-NaN value of the 16- and 8-bit float types goes to a string and back unchanged.
TEST(NumberToString, RoundTripsEverySmallFloat) {
  for (DT t : {DT::kFloat16, DT::kBfloat16}) {
    std::vector<uint16_t> v;
    for (uint32_t b = 0; b < 65536; ++b) {
      const uint32_t e = t == DT::kFloat16 ? 0x7C00 : 0x7F80;
      if ((b & e) == e && (b & ~(e | 0x8000u)) != 0) continue;  // NaN
      v.push_back(static_cast<uint16_t>(b));
    }
    const Strings s = ToStrings(Raw(v), t, v.size());
    EXPECT_EQ(HexBytes(FromStrings(s, t)), HexBytes(Raw(v))) << DataTypeName(t);
  }
  for (DT t : {DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ, DT::kFloat8E5M2, DT::kFloat8E5M2FNUZ,
               DT::kFloat8E8M0}) {
    Bytes v;
    for (int c = 0; c < 256; ++c) {
      const bool nan = t == DT::kFloat8E4M3FN ? (c & 0x7F) == 0x7F
                       : t == DT::kFloat8E5M2 ? (c & 0x7F) > 0x7C
                       : t == DT::kFloat8E8M0 ? c == 0xFF
                                              : c == 0x80;
      if (!nan) v.push_back(static_cast<uint8_t>(c));
    }
    const Strings s = ToStrings(v, t, v.size());
    // saturate=0 so that E5M2 "inf" comes back as Inf; nearest for e8m0 (sem).
    EXPECT_EQ(HexBytes(FromStrings(s, t, Opt(false, RoundMode::kNearest))), HexBytes(v))
        << DataTypeName(t);
  }
  Bytes f4;
  for (int c = 0; c < 16; c += 2) f4.push_back(static_cast<uint8_t>(c | (c + 1) << 4));
  EXPECT_EQ(HexBytes(FromStrings(ToStrings(f4, DT::kFloat4E2M1, 16), DT::kFloat4E2M1)),
            HexBytes(f4));
}

TEST(NumberToString, RoundTripsFloat32AndFloat64) {
  std::vector<uint32_t> f;
  std::vector<uint64_t> d;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 4000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t b32 = static_cast<uint32_t>(state >> 32);
    if ((b32 & 0x7F800000) != 0x7F800000) f.push_back(b32);
    if (((state >> 52) & 0x7FF) != 0x7FF) d.push_back(state);
  }
  f.push_back(0x00000001);  // the smallest subnormal
  f.push_back(0x7F7FFFFF);
  d.push_back(1);
  const Strings sf = ToStrings(Raw(f), DT::kFloat, f.size());
  EXPECT_EQ(HexBytes(FromStrings(sf, DT::kFloat)), HexBytes(Raw(f)));
  const Strings sd = ToStrings(Raw(d), DT::kDouble, d.size());
  EXPECT_EQ(HexBytes(FromStrings(sd, DT::kDouble)), HexBytes(Raw(d)));
}

// ---------------------------------------------------------------------------------------
// String -> number: syntax (sem: errors)
// ---------------------------------------------------------------------------------------

TEST(StringToNumber, AcceptedSpellingsFloat32) {
  struct Row {
    const char* text;
    uint32_t want;
  };
  const Row rows[] = {
      {"1.5", 0x3FC00000},
      {" 1.5 ", 0x3FC00000},  // sem: errors: " 1.5 " with surrounding spaces is accepted
      {"\t-2.5\n", 0xC0200000},
      {"\r\n 7 \t", 0x40E00000},
      {"+3", 0x40400000},
      {".5", 0x3F000000},
      {"5.", 0x40A00000},
      {"-.5", 0xBF000000},
      {"1E8", 0x4CBEBC20},
      {"1e8", 0x4CBEBC20},
      {"1e+2", 0x42C80000},
      {"1e-5", 0x3727C5AC},
      {"1.5E-3", Bits(1.5e-3f)},
      {"00012", 0x41400000},
      {"0", 0x00000000},
      {"-0", 0x80000000},
      {"-0.0e10", 0x80000000},
      {"inf", 0x7F800000},
      {"INF", 0x7F800000},
      {"+INF", 0x7F800000},
      {"-INF", 0xFF800000},
      {"Infinity", 0x7F800000},
      {"-Infinity", 0xFF800000},
      {"iNfInItY", 0x7F800000},
      {" -inf ", 0xFF800000},
      // ref: string to number: "nan" -> 0x7FC00000, "-nan" has the sign bit set.
      {"NaN", 0x7FC00000},
      {"nan", 0x7FC00000},
      {"NAN", 0x7FC00000},
      {"+nan", 0x7FC00000},
      {"-nan", 0xFFC00000},
      {"-NaN", 0xFFC00000},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(Parse1(r.text, DT::kFloat)), Hex(r.want)) << '"' << r.text << '"';
  }
}

// ref: string to number: legacy v1.18 data test_cast_STRING_to_FLOAT.
TEST(StringToNumber, Float32LegacyConformance) {
  const Strings in = {"0.47892547", "0.48033667", "0.49968487", "0.81910545",
                      "0.47031248", "0.816468",   "0.21087195", "0.7229038",
                      "NaN",        "INF",        "+INF",       "-INF"};
  const std::vector<uint32_t> want = {0x3EF535B8, 0x3EF5EEB0, 0x3EFFD6B2, 0x3F51B0E5,
                                      0x3EF0CCCC, 0x3F51040C, 0x3E57EED1, 0x3F391039,
                                      0x7FC00000, 0x7F800000, 0x7F800000, 0xFF800000};
  EXPECT_EQ(HexBytes(FromStrings(in, DT::kFloat)), HexBytes(Raw(want)));
}

// ---------------------------------------------------------------------------------------
// String -> float: correct rounding from the decimal text (sem: one rounding, deliberate
// difference)
// ---------------------------------------------------------------------------------------
// Each "tie + tiny" string is the exact decimal expansion of a midpoint between two
// neighbouring target values plus 1e-32 (or so). Parsing to double first loses the tail
// and lands exactly on the midpoint, which then rounds to even: the wrong answer.

TEST(StringToNumber, Float32CorrectRounding) {
  struct Row {
    const char* text;
    uint32_t want;
  };
  const Row rows[] = {
      // 1 + 2^-24, the midpoint of 1 and 1 + 2^-23.
      {"1.000000059604644775390625", 0x3F800000},  // exact tie -> even
      {"1.0000000596046447753906250000001", 0x3F800001},
      // 1 + 3*2^-24, the midpoint of 1 + 2^-23 (odd) and 1 + 2^-22.
      {"1.000000178813934326171875", 0x3F800002},  // exact tie -> even
      {"1.0000001788139343261718749999999", 0x3F800001},
      // Overflow: 2^128 - 2^103 is the tie between FLT_MAX and 2^128.
      {"340282356779733661637539395458142568448", 0x7F800000},
      {"3.4028235677973366e38", 0x7F7FFFFF},  // below the tie; double rounds it onto it
      {"3.4028236e38", 0x7F800000},           // ref: string to number
      {"3.4028235e38", 0x7F7FFFFF},
      {"1e39", 0x7F800000},
      {"-1e39", 0xFF800000},
      // Underflow: 2^-150 is the tie between 0 and the smallest subnormal.
      {"7."
       "0064923216240853546186479164495806564013097093825788587853414194489554134293030074331909418"
       "1060791015625e-46",
       0x00000000},
      {"7."
       "0064923216240853546186479164495806564013097093825788587853414194489554134293030074331909418"
       "10607910156250001e-46",
       0x00000001},
      {"1e-45", 0x00000001},
      {"1e-50", 0x00000000},
      {"-1e-50", 0x80000000},
      {"16777217", 0x4B800000},  // tie -> even
      {"16777217.000000000001", 0x4B800001},
      // Huge exponents and long digit strings are handled exactly, not by overflow.
      {"1e99999999999999999999", 0x7F800000},
      {"-1e99999999999999999999", 0xFF800000},
      {"1e-99999999999999999999", 0x00000000},
      {"0e99999999999999999999", 0x00000000},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(Parse1(r.text, DT::kFloat)), Hex(r.want)) << '"' << r.text << '"';
  }
  // The tie 1 + 2^-24 with a 1 in the 760th decimal place -> up; and "1" written with 500
  // leading and 500 trailing zeros around the exponent.
  const std::string tie = "1.000000059604644775390625";
  EXPECT_EQ(Hex(Parse1(tie + std::string(734, '0') + "1", DT::kFloat)), Hex(0x3F800001));
  EXPECT_EQ(Hex(Parse1(tie + std::string(734, '0'), DT::kFloat)), Hex(0x3F800000));
  // More digits than are kept (800): the dropped 1 stays beyond the kept zeros (it once
  // landed right after "101046", giving 1010461000-ish instead of 1010460032).
  EXPECT_EQ(Hex(Parse1(tie + std::string(900, '0') + "1", DT::kFloat)), Hex(0x3F800001));
  EXPECT_EQ(Hex(Parse1("-1.01046" + std::string(900, '0') + "1e9", DT::kFloat)), Hex(0xCE70E996));
  EXPECT_EQ(Hex(Parse1("1.01046" + std::string(900, '0') + "1e9", DT::kDouble)),
            Hex(0x41CE1D32B0000000ull));  // 1010460000 exactly: the 1 is far below an ulp
  EXPECT_EQ(Hex(Parse1("0." + std::string(499, '0') + "1e500", DT::kFloat)), Hex(0x3F800000));
  EXPECT_EQ(Hex(Parse1("1" + std::string(500, '0') + "e-500", DT::kFloat)), Hex(0x3F800000));
  EXPECT_EQ(Hex(Parse1("1" + std::string(500, '0') + "e-500", DT::kInt32)), Hex(1));
}

// Independent oracle: glibc's strtof is correctly rounded for every input. Random
// float32 values are written as the exact decimal of the midpoint to a neighbour, of
// the doubles next to that midpoint, and with a 1 appended far beyond it; plus random
// short digit strings with random exponents. This covers both the exact big-integer
// comparison and the fast path of the decimal -> round-to-odd conversion.
TEST(StringToNumber, Float32MatchesStrtofNearTiesAndOnRandomText) {
  uint64_t state = 0x243F6A8885A308D3ull;
  auto next = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 11;
  };
  Strings texts;
  char buf[1200];
  for (int i = 0; i < 4000; ++i) {
    // A finite float32 with a random exponent, both signs, and its upper neighbour.
    uint32_t u = static_cast<uint32_t>(next()) & 0x7F7FFFFFu;
    if (i % 2) u |= 0x80000000u;
    float f;
    std::memcpy(&f, &u, 4);
    const double lo = f, hi = std::nextafter(f, std::copysign(INFINITY, f));
    const double mid = lo + (hi - lo) / 2;  // exact: float32 midpoints fit a double
    for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 2 * mid), lo}) {
      std::snprintf(buf, sizeof(buf), "%.1100e", x);  // exact (all dyadic digits)
      texts.emplace_back(buf);
    }
    std::snprintf(buf, sizeof(buf), "%.1100e", mid);
    std::string t = buf;
    const size_t e = t.find('e');
    texts.push_back(t.substr(0, e) + "1" + t.substr(e));  // just beyond the tie
    // Random digits (1..20) and exponent.
    std::string digits = std::to_string(next() % 10 + (i % 3 == 0 ? 0 : 1));
    const int nd = static_cast<int>(next() % 20);
    for (int k = 0; k < nd; ++k) digits += static_cast<char>('0' + next() % 10);
    texts.push_back(digits + "e" + std::to_string(static_cast<int>(next() % 90) - 60));
  }
  std::vector<float> got(texts.size());
  ASSERT_TRUE(Cast(texts.data(), DT::kString, got.data(), DT::kFloat, texts.size()).ok());
  size_t wrong = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const float want = std::strtof(texts[i].c_str(), nullptr);
    if (Bits(got[i]) != Bits(want) && ++wrong <= 5) {
      ADD_FAILURE() << '"' << texts[i].substr(0, 40) << "..."
                    << texts[i].substr(texts[i].size() - 12) << "\" -> " << Hex(Bits(got[i]))
                    << ", strtof " << Hex(Bits(want));
    }
  }
  EXPECT_EQ(wrong, 0u) << "of " << texts.size();
}

TEST(StringToNumber, Float64) {
  struct Row {
    const char* text;
    uint64_t want;
  };
  const Row rows[] = {
      {"0.1", 0x3FB999999999999Aull},
      {"1.00000000000000011102230246251565404236316680908203125", 0x3FF0000000000000ull},
      {"1.000000000000000111022302462515654042363166809082031250000001", 0x3FF0000000000001ull},
      {"1.5e400", 0x7FF0000000000000ull},  // ref: string to number
      {"-1e-400", 0x8000000000000000ull},  // ref: string to number
      {"4.9406564584124654e-324", 0x0000000000000001ull},
      {"2.4703282292062327e-324", 0x0000000000000000ull},  // just below 2^-1075
      {"2.4703282292062328e-324", 0x0000000000000001ull},  // just above
      {"-nan", 0xFFF8000000000000ull},
      {"nan", 0x7FF8000000000000ull},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(Parse1(r.text, DT::kDouble)), Hex(r.want)) << '"' << r.text << '"';
  }
}

TEST(StringToNumber, Float16AndBfloat16CorrectRounding) {
  struct Row {
    DT type;
    const char* text;
    uint16_t want;
  };
  const Row rows[] = {
      // 1 + 2^-11: float16 midpoint of 1 and 1 + 2^-10.
      {DT::kFloat16, "1.00048828125", 0x3C00},
      {DT::kFloat16, "1.00048828125000000000000000000001", 0x3C01},
      {DT::kFloat16, "65520", 0x7C00},  // ref: float to float
      {DT::kFloat16, "65519.99", 0x7BFF},
      {DT::kFloat16, "65519.999999999999999999999", 0x7BFF},  // double says 65520 -> Inf
      {DT::kFloat16, "-65520", 0xFC00},
      {DT::kFloat16, "2.98023223876953125e-8", 0x0000},  // 2^-25: tie -> 0
      {DT::kFloat16, "2.98023223876953125000000001e-8", 0x0001},
      {DT::kFloat16, "1e-8", 0x0000},
      {DT::kFloat16, "-nan", 0xFE00},
      {DT::kFloat16, "inf", 0x7C00},
      {DT::kFloat16, "0.1", 0x2E66},
      // 1 + 2^-8: bfloat16 midpoint of 1 and 1 + 2^-7.
      {DT::kBfloat16, "1.00390625", 0x3F80},
      {DT::kBfloat16, "1.00390625000000000000000000000001", 0x3F81},
      {DT::kBfloat16, "0.1", 0x3DCD},
      {DT::kBfloat16, "1e39", 0x7F80},
      {DT::kBfloat16, "-nan", 0xFFC0},
      {DT::kBfloat16, "NaN", 0x7FC0},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(Parse1(r.text, r.type)), Hex(r.want))
        << DataTypeName(r.type) << " \"" << r.text << '"';
  }
}

// sem, deliberate difference "string -> bfloat16 / float8 / float4 / ... e8m0": supported,
// correctly rounded from the decimal text, then the target's rules (saturate, round_mode).
TEST(StringToNumber, Float8Float4E8M0) {
  struct Row {
    DT type;
    const char* text;
    CastOptions opt;
    uint8_t want;
  };
  const CastOptions sat = Opt(true), nosat = Opt(false);
  const Row rows[] = {
      // 0.53125: E4M3FN midpoint of 0.5 (0x30) and 0.5625 (0x31).
      {DT::kFloat8E4M3FN, "0.53125", sat, 0x30},
      {DT::kFloat8E4M3FN, "0.53125000000000000000000000000001", sat, 0x31},
      {DT::kFloat8E4M3FN, "-0.53125000000000000000000000000001", sat, 0xB1},
      {DT::kFloat8E4M3FN, "464", nosat, 0x7E},  // ref: float8 overflow thresholds tie -> 448
      {DT::kFloat8E4M3FN, "464.0000000000000000000000001", nosat, 0x7F},
      {DT::kFloat8E4M3FN, "464.0000000000000000000000001", sat, 0x7E},
      {DT::kFloat8E4M3FN, "1e6", sat, 0x7E},
      {DT::kFloat8E4M3FN, "1e6", nosat, 0x7F},
      {DT::kFloat8E4M3FN, "inf", nosat, 0x7F},
      {DT::kFloat8E4M3FN, "-inf", sat, 0xFE},
      {DT::kFloat8E4M3FN, "nan", sat, 0x7F},
      {DT::kFloat8E4M3FN, "-nan", sat, 0xFF},  // NaN keeps its sign (ref: float8 encoding)
      {DT::kFloat8E4M3FN, "-0", sat, 0x80},
      {DT::kFloat8E4M3FNUZ, "248", sat, 0x7F},
      {DT::kFloat8E4M3FNUZ, "248", nosat, 0x80},
      {DT::kFloat8E4M3FNUZ, "247.99999999999999999999", nosat, 0x7F},
      {DT::kFloat8E4M3FNUZ, "-0", sat, 0x00},
      // 1.125: E5M2 midpoint of 1.0 (0x3C) and 1.25 (0x3D).
      {DT::kFloat8E5M2, "1.125", sat, 0x3C},
      {DT::kFloat8E5M2, "1.12500000000000000000000000000001", sat, 0x3D},
      {DT::kFloat8E5M2, "inf", nosat, 0x7C},
      {DT::kFloat8E5M2, "inf", sat, 0x7B},
      {DT::kFloat8E5M2FNUZ, "-inf", nosat, 0x80},
      {DT::kFloat8E5M2FNUZ, "-inf", sat, 0xFF},
      // float4: 0.25 and 5.0 are ties (ref: float4e2m1 encoding); always saturates; NaN quirk
      // (sem).
      {DT::kFloat4E2M1, "0.25", sat, 0x0},
      {DT::kFloat4E2M1, "0.25000000000000000000000000000001", sat, 0x1},
      {DT::kFloat4E2M1, "5", sat, 0x6},
      {DT::kFloat4E2M1, "5.00000000000000000000000000000001", sat, 0x7},
      {DT::kFloat4E2M1, "1e100", nosat, 0x7},
      {DT::kFloat4E2M1, "-inf", sat, 0xF},
      {DT::kFloat4E2M1, "nan", sat, 0x8},
      {DT::kFloat4E2M1, "-nan", sat, 0x0},
      // float8e8m0 (ref: e8m0 encoding, with sem's deliberate differences).
      {DT::kFloat8E8M0, "1.5", Opt(true, RoundMode::kNearest), 0x80},
      {DT::kFloat8E8M0, "1.49999999999999999999999999999999", Opt(true, RoundMode::kNearest), 0x7F},
      {DT::kFloat8E8M0, "1", Opt(true, RoundMode::kUp), 0x7F},
      {DT::kFloat8E8M0, "1.00000000000000000000000000000001", Opt(true, RoundMode::kUp), 0x80},
      {DT::kFloat8E8M0, "1.99999999999999999999999999999999", Opt(true, RoundMode::kDown), 0x7F},
      {DT::kFloat8E8M0, "-4", sat, 0x81},
      {DT::kFloat8E8M0, "0", sat,
       0x00},  // sem: deliberate difference: zero, saturate=1 clamps to 0x00
      {DT::kFloat8E8M0, "0", nosat, 0xFF},  // sem: deliberate difference: zero, saturate=0 -> NaN
      {DT::kFloat8E8M0, "inf", sat, 0xFE},  // sem: deliberate difference: Inf, saturate=1 -> 0xFE
      {DT::kFloat8E8M0, "inf", nosat, 0xFF},
      {DT::kFloat8E8M0, "1e-300", sat,
       0x00},  // sem: deliberate difference: below 2^-127 after rounding
      {DT::kFloat8E8M0, "1e-300", nosat, 0xFF},
      {DT::kFloat8E8M0, "nan", sat, 0xFF},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(Parse1(r.text, r.type, r.opt)), Hex(r.want))
        << DataTypeName(r.type) << " \"" << r.text << "\" saturate=" << r.opt.saturate
        << " round_mode=" << RoundModeName(r.opt.round_mode);
  }
}

// ---------------------------------------------------------------------------------------
// String -> integer and bool (sem: deliberate difference)
// ---------------------------------------------------------------------------------------

// "integer syntax parsed exactly; decimal/scientific syntax parsed as a number then
// truncated toward zero; out-of-range values saturate to the target's range; nan -> 0".
TEST(StringToInteger, Rules) {
  struct Row {
    DT type;
    const char* text;
    int64_t want;  // the value; compared after masking to the type's width
  };
  const Row rows[] = {
      {DT::kInt32, "42", 42},
      {DT::kInt32, " -7 ", -7},
      {DT::kInt32, "+5", 5},
      {DT::kInt32, "007", 7},
      {DT::kInt32, "100.5", 100},  // sem: deliberate difference example
      {DT::kInt32, "-100.5", -100},
      {DT::kInt32, "1e3", 1000},  // scientific syntax
      {DT::kInt32, "1E2", 100},
      {DT::kInt32, "1.5e1", 15},
      {DT::kInt32, "0.999", 0},
      {DT::kInt32, "-0.5", 0},
      {DT::kInt32, ".5", 0},
      {DT::kInt32, "2147483648", INT32_MAX},
      {DT::kInt32, "-2147483649", INT32_MIN},
      {DT::kInt32, "1e30", INT32_MAX},
      {DT::kInt32, "nan", 0},
      {DT::kInt32, "-NaN", 0},
      {DT::kInt32, "inf", INT32_MAX},
      {DT::kInt32, "-Infinity", INT32_MIN},
      // sem: one rounding: the exact value is truncated (a double would round it to 3).
      {DT::kInt32, "2.9999999999999999999", 2},
      {DT::kUint8, "-3", 0},  // sem: deliberate difference: saturate (the reference wrapped to 253)
      {DT::kUint8, "255", 255},
      {DT::kUint8, "256", 255},
      {DT::kUint8, "255.9", 255},
      {DT::kUint8, "-0", 0},
      {DT::kInt8, "300", 127},
      {DT::kInt8, "-300", -128},
      {DT::kInt8, "-128", -128},
      {DT::kInt8, "127.9", 127},
      {DT::kInt16, "-32769", -32768},
      {DT::kUint16, "65536", 65535},
      {DT::kUint32, "4294967296", UINT32_MAX},
      {DT::kUint32, "-1", 0},
      // Integer syntax is exact: 2^53 + 1 is not a double.
      {DT::kInt64, "9007199254740993", INT64_C(9007199254740993)},
      {DT::kInt64, "9.007199254740993e15",
       INT64_C(9007199254740993)},  // exact value (sem: one rounding)
      {DT::kInt64, "9223372036854775807", INT64_MAX},
      {DT::kInt64, "9223372036854775808", INT64_MAX},
      {DT::kInt64, "-9223372036854775808", INT64_MIN},
      {DT::kInt64, "-9223372036854775809", INT64_MIN},
      {DT::kInt64, "99999999999999999999", INT64_MAX},
      {DT::kInt64, "1e19", INT64_MAX},
      {DT::kUint64, "18446744073709551615", -1},  // UINT64_MAX
      {DT::kUint64, "18446744073709551616", -1},
      {DT::kUint64, "12345678901234567890123", -1},
      {DT::kUint64, "-1", 0},
      {DT::kUint64, "1e19", INT64_C(-8446744073709551616)},  // 10^19 as a bit pattern
      // Sub-byte integers saturate too ("every width, the 4- and 2-bit types included").
      {DT::kInt4, "7", 7},
      {DT::kInt4, "8", 7},
      {DT::kInt4, "-8", -8},
      {DT::kInt4, "-9", -8},
      {DT::kInt4, "2.7", 2},
      {DT::kInt4, "nan", 0},
      {DT::kInt4, "inf", 7},
      {DT::kUint4, "16", 15},
      {DT::kUint4, "-1", 0},
      {DT::kInt2, "2", 1},
      {DT::kInt2, "-3", -2},
      {DT::kUint2, "5", 3},
      {DT::kUint2, "-1", 0},
  };
  for (const Row& r : rows) {
    const int bits = BitWidth(r.type);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    for (bool sat : {true, false}) {  // the saturate option does not matter here
      EXPECT_EQ(Hex(Parse1(r.text, r.type, Opt(sat))), Hex(static_cast<uint64_t>(r.want) & mask))
          << DataTypeName(r.type) << " \"" << r.text << '"';
    }
  }
  // Several packed elements: INT4 ["1", "-1", "100"] -> nibbles 1, F, 7 -> f1 07.
  EXPECT_EQ(HexBytes(FromStrings({"1", "-1", "100"}, DT::kInt4)), "f1 07");
}

// sem: deliberate difference: "true"/"false" (any case) and numbers (non-zero -> true).
TEST(StringToBool, Rules) {
  struct Row {
    const char* text;
    uint8_t want;
  };
  const Row rows[] = {
      {"true", 1},   {"FALSE", 0}, {"True", 1}, {"tRuE", 1}, {"false", 0},
      {"0", 0},      {"1", 1},     {"-0.0", 0}, {"0.5", 1},  {"2", 1},
      {"1e-300", 1}, {"nan", 1},   {"inf", 1},  {" 0 ", 0},  {"0e5", 0},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(Parse1(r.text, DT::kBool)), Hex(r.want)) << '"' << r.text << '"';
  }
}

TEST(StringToString, Copies) {
  const Strings src = {"abc", "", " 1.5 ", std::string("a\0b", 3)};
  Strings dst(5, "stale");
  dst[4] = kSentinel;
  const Status s = Cast(src.data(), DT::kString, dst.data(), DT::kString, 4);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Strings(dst.begin(), dst.begin() + 4), src);
  EXPECT_EQ(dst[4], kSentinel);
}

// ---------------------------------------------------------------------------------------
// Parse errors (sem: errors; status.h: kParseError, index and text in message(),
// elements_written() == index)
// ---------------------------------------------------------------------------------------

const char* const kBadNumbers[] = {
    "abc",     "",      "0x10",  "1.5abc", " ",     "1e",     "e5",        ".",
    "+",       "-",     "--1",   "+-1",    "1.5.2", "1 2",    "inf inity", "nanx",
    "infinit", "0x1p3", "1,5",   "1_000",  "١",     "nan(1)", "infinityx", "1e5.5",
    "1e+",     "e",     "1e+-5", "1d5",    "0b1",   "+ 1",    "1e 5",
};

TEST(ParseError, NamesIndexAndText) {
  const DT targets[] = {DT::kFloat,        DT::kDouble,         DT::kFloat16,    DT::kBfloat16,
                        DT::kFloat8E4M3FN, DT::kFloat8E5M2FNUZ, DT::kFloat4E2M1, DT::kFloat8E8M0,
                        DT::kInt8,         DT::kUint8,          DT::kInt32,      DT::kUint64,
                        DT::kInt64,        DT::kInt4,           DT::kUint2,      DT::kBool};
  for (DT t : targets) {
    for (const char* bad : kBadNumbers) {
      const Strings src = {"1", "1", bad, "1"};
      test::GuardedBuffer dst(StorageBytes(t, 4));
      const Status s = Cast(src.data(), DT::kString, dst.data(), t, 4);
      EXPECT_EQ(s.code(), StatusCode::kParseError)
          << DataTypeName(t) << " \"" << bad << "\": " << s.message();
      EXPECT_EQ(s.elements_written(), 2u) << DataTypeName(t) << " \"" << bad << '"';
      EXPECT_NE(s.message().find('2'), std::string::npos) << "index missing: " << s.message();
      if (*bad != '\0') {
        EXPECT_NE(s.message().find(bad), std::string::npos) << "text missing: " << s.message();
      }
      ASSERT_TRUE(dst.GuardsIntact()) << DataTypeName(t) << " \"" << bad << '"';
    }
  }
}

TEST(ParseError, EarlierElementsWritten) {
  // Float: elements 0 and 1 converted before the error at index 2.
  {
    const Strings src = {"1.5", "-2", "abc", "4"};
    std::vector<float> dst(4, 99.0f);
    const Status s = Cast(src.data(), DT::kString, dst.data(), DT::kFloat, 4);
    EXPECT_EQ(s.code(), StatusCode::kParseError);
    EXPECT_EQ(s.elements_written(), 2u);
    EXPECT_EQ(dst[0], 1.5f);
    EXPECT_EQ(dst[1], -2.0f);
    EXPECT_NE(s.message().find("abc"), std::string::npos) << s.message();
  }
  // Packed INT4: elements 0 and 1 are in byte 0.
  {
    const Strings src = {"1", "2", "1.5abc"};
    Bytes dst(2, 0x00);
    const Status s = Cast(src.data(), DT::kString, dst.data(), DT::kInt4, 3);
    EXPECT_EQ(s.code(), StatusCode::kParseError);
    EXPECT_EQ(s.elements_written(), 2u);
    EXPECT_EQ(Hex(dst[0]), Hex(0x21));
  }
  // Error at index 0; and a later, larger index appears in the message.
  {
    const Strings src = {"0x10"};
    double dst = 0;
    const Status s = Cast(src.data(), DT::kString, &dst, DT::kDouble, 1);
    EXPECT_EQ(s.code(), StatusCode::kParseError);
    EXPECT_EQ(s.elements_written(), 0u);
    EXPECT_NE(s.message().find("0x10"), std::string::npos) << s.message();
  }
  {
    Strings src(1000, "7");
    src[987] = "seven";
    std::vector<int32_t> dst(1000, -1);
    const Status s = Cast(src.data(), DT::kString, dst.data(), DT::kInt32, 1000);
    EXPECT_EQ(s.code(), StatusCode::kParseError);
    EXPECT_EQ(s.elements_written(), 987u);
    EXPECT_NE(s.message().find("987"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("seven"), std::string::npos) << s.message();
    EXPECT_EQ(dst[986], 7);
  }
}

// The whole std::string is the element: an embedded NUL is not an end of text.
TEST(ParseError, EmbeddedNul) {
  for (DT t : {DT::kFloat, DT::kInt32, DT::kBool}) {
    const Strings src = {std::string("1\0", 2)};
    Bytes dst(StorageBytes(t, 1), 0xA5);
    const Status s = Cast(src.data(), DT::kString, dst.data(), t, 1);
    EXPECT_EQ(s.code(), StatusCode::kParseError) << DataTypeName(t);
    EXPECT_EQ(s.elements_written(), 0u);
  }
}

// sem: deliberate difference: string -> bool accepts only true/false and numbers.
TEST(ParseError, BoolWords) {
  for (const char* bad : {"yes", "no", "t", "f", "truex", "on", "TRUE1"}) {
    const Strings src = {bad};
    uint8_t dst = 0xA5;
    const Status s = Cast(src.data(), DT::kString, &dst, DT::kBool, 1);
    EXPECT_EQ(s.code(), StatusCode::kParseError) << '"' << bad << '"';
    EXPECT_EQ(s.elements_written(), 0u);
    EXPECT_NE(s.message().find(bad), std::string::npos) << s.message();
  }
}

// Limits: non-UTF-8 bytes are data (copied as they are, a parse error where a number is
// expected), and a mebibyte of text is rounded once from all of its digits.
TEST(StringLimits, NonUtf8BytesAreCopiedAndAreParseErrorsInNumbers) {
  const Strings src = {std::string("\xff\xfe\x80", 3), std::string("1\xc3", 2)};
  Strings copy(2);
  ASSERT_TRUE(Cast(src.data(), DT::kString, copy.data(), DT::kString, 2).ok());
  EXPECT_EQ(copy, src);
  for (DT t : {DT::kFloat, DT::kDouble, DT::kInt64, DT::kFloat8E4M3FN, DT::kBool}) {
    for (const std::string& text : src) {
      Bytes dst(StorageBytes(t, 1), 0xA5);
      const Status s = Cast(&text, DT::kString, dst.data(), t, 1);
      EXPECT_EQ(s.code(), StatusCode::kParseError) << DataTypeName(t);
      EXPECT_EQ(dst, Bytes(StorageBytes(t, 1), 0xA5)) << DataTypeName(t);
      // The message quotes the bytes that are not UTF-8 escaped: here it is ASCII.
      for (char c : s.message()) {
        EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "byte " << static_cast<int>(c) << " in message";
      }
    }
  }
  const Status s = Cast(&src[0], DT::kString, copy.data(), DT::kFloat, 1);
  EXPECT_NE(s.message().find("\"\\xff\\xfe\\x80\""), std::string::npos) << s.message();
}

TEST(StringLimits, AMebibyteOfDigitsIsRoundedOnceFromTheText) {
  const std::string zeros(size_t{1} << 20, '0');
  // 1 + 2^-24 is exactly the midpoint between 1 and the next float32.
  const std::string tie = "1.000000059604644775390625";
  const Strings src = {tie + zeros, tie + zeros + "1", "1" + zeros + "e-1048576",
                       "0." + zeros + "1", "-" + zeros + "7" + ".5e-1"};
  uint32_t dst[5] = {};
  ASSERT_TRUE(Cast(src.data(), DT::kString, dst, DT::kFloat, 5).ok());
  EXPECT_EQ(dst[0], 0x3F800000u);  // exactly the tie: to even
  EXPECT_EQ(dst[1], 0x3F800001u);  // a digit above the tie, 2^20 digits later
  EXPECT_EQ(dst[2], 0x3F800000u);  // 10^1048576 * 10^-1048576 = 1
  EXPECT_EQ(dst[3], 0x00000000u);  // 10^-1048577 rounds to +0
  EXPECT_EQ(dst[4], 0xBF400000u);  // -7.5e-1 = -0.75 behind a mebibyte of leading zeros
  // A bad mebibyte: the message quotes its start, not all of it.
  const std::string bad = zeros + "x";
  float f = 0;
  const Status s = Cast(&bad, DT::kString, &f, DT::kFloat, 1);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_LT(s.message().size(), 256u) << s.message().size();
}

// ---------------------------------------------------------------------------------------
// Views in, an arena out (strings.h: CastFromStringViews, CastToStringArena): the rules of
// Cast with STRING, without std::string objects
// ---------------------------------------------------------------------------------------

std::vector<StringView> ViewsOf(const Strings& texts) {
  std::vector<StringView> views;
  for (const std::string& t : texts) views.push_back(StringView{t.data(), t.size()});
  return views;
}

TEST(StringViews, ParseAsCastFromStdString) {
  // The first 7 texts are numbers of every type; "nan" and "-inf" are floats only.
  const Strings texts = {"1.5", " -2 ", "1e-45", "65504", "0.1", "3", "-0", "nan", "-inf"};
  const std::vector<StringView> views = ViewsOf(texts);
  for (DT t : {DT::kFloat, DT::kDouble, DT::kFloat16, DT::kFloat8E4M3FN, DT::kInt32, DT::kUint8,
               DT::kInt4, DT::kBool}) {
    const bool is_float =
        t == DT::kFloat || t == DT::kDouble || t == DT::kFloat16 || t == DT::kFloat8E4M3FN;
    const size_t n = is_float ? texts.size() : 7;
    test::GuardedBuffer want(StorageBytes(t, n)), got(StorageBytes(t, n));
    ASSERT_TRUE(Cast(texts.data(), DT::kString, want.data(), t, n).ok()) << DataTypeName(t);
    const Status s = CastFromStringViews(views.data(), got.data(), t, n);
    ASSERT_TRUE(s.ok()) << DataTypeName(t) << ": " << s.message();
    EXPECT_EQ(got.Output(), want.Output()) << DataTypeName(t);
    EXPECT_TRUE(got.GuardsIntact()) << DataTypeName(t);
  }
  // Views need no NUL and may share bytes; null data is the empty string (not a number).
  const std::string bytes = "12345";
  const StringView parts[] = {{bytes.data(), 2}, {bytes.data() + 1, 3}, {nullptr, 0}};
  int32_t ints[3] = {7, 7, 7};
  Status s = CastFromStringViews(parts, ints, DT::kInt32, 2);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(ints[0], 12);
  EXPECT_EQ(ints[1], 234);
  s = CastFromStringViews(parts, ints, DT::kInt32, 3);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_EQ(s.elements_written(), 2u);
  EXPECT_NE(s.message().find("element 2"), std::string::npos) << s.message();
}

TEST(StringViews, ArgumentErrorsNameTheArgumentAndWriteNothing) {
  const Strings texts = {"1", "2"};
  std::vector<StringView> views = ViewsOf(texts);
  test::GuardedBuffer dst(8);
  const auto expect = [&](const Status& s, StatusCode code, const char* part) {
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
    EXPECT_EQ(s.elements_written(), 0u);
    EXPECT_TRUE(dst.GuardsIntact());
    EXPECT_EQ(dst.Output(), Bytes(8, test::kGuardByte)) << part;
  };
  expect(CastFromStringViews(views.data(), dst.data(), static_cast<DT>(99), 2),
         StatusCode::kInvalidArgument, "dst_type");
  expect(CastFromStringViews(views.data(), dst.data(), DT::kComplex64, 2), StatusCode::kUnsupported,
         "dst_type");
  expect(CastFromStringViews(views.data(), dst.data(), DT::kString, 2), StatusCode::kUnsupported,
         "dst_type");
  expect(CastFromStringViews(views.data(), dst.data(), DT::kFloat, 2,
                             test::Opt(true, static_cast<RoundMode>(7))),
         StatusCode::kInvalidArgument, "round_mode");
  // Counts whose views do not fit in memory: refused before any view is read.
  expect(CastFromStringViews(views.data(), dst.data(), DT::kUint8, SIZE_MAX / 8),
         StatusCode::kOverflow, "StringView");
  expect(CastFromStringViews(nullptr, dst.data(), DT::kFloat, 2), StatusCode::kInvalidArgument,
         "src is null");
  expect(CastFromStringViews(nullptr, nullptr, DT::kFloat, 2), StatusCode::kInvalidArgument,
         "src is null");
  expect(CastFromStringViews(views.data(), nullptr, DT::kFloat, 2), StatusCode::kInvalidArgument,
         "dst is null");
  views[1] = StringView{nullptr, 3};
  expect(CastFromStringViews(views.data(), dst.data(), DT::kFloat, 2), StatusCode::kInvalidArgument,
         "src[1]: data is null");
  views[1] = StringView{texts[1].data(), SIZE_MAX / 2};
  expect(CastFromStringViews(views.data(), dst.data(), DT::kFloat, 2), StatusCode::kInvalidArgument,
         "src[1]: size");
  // Count 0: nothing is read or written, null pointers allowed.
  EXPECT_TRUE(CastFromStringViews(nullptr, nullptr, DT::kFloat, 0).ok());
}

TEST(StringViews, ThroughARunnerTheFirstBadElementIsReported) {
  Strings texts(20000);
  for (size_t i = 0; i < texts.size(); ++i) texts[i] = std::to_string(i) + ".5";
  texts[15001] = "x";
  texts[17000] = "y";
  const std::vector<StringView> views = ViewsOf(texts);
  ThreadPool pool(4);
  CastOptions options;
  options.runner = pool.runner();
  std::vector<double> out(texts.size(), -1.0);
  const Status s =
      CastFromStringViews(views.data(), out.data(), DT::kDouble, texts.size(), options);
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_EQ(s.elements_written(), 15001u);
  EXPECT_NE(s.message().find("element 15001"), std::string::npos) << s.message();
  for (size_t i = 0; i < 15001; ++i) ASSERT_EQ(out[i], static_cast<double>(i) + 0.5) << i;
}

std::string ViewText(const StringView& v) { return std::string(v.data, v.size); }

TEST(StringArena, NumbersAsCastSpellsThemAndTheCapacityProtocol) {
  const double values[] = {1.5, -0.0, 1e16, 1e-5, std::nan(""), 123.0};
  const Strings want = {"1.5", "-0.0", "1e+16", "1e-05", "nan", "123.0"};
  size_t required = 0;
  for (const std::string& w : want) required += w.size() + 1;
  std::vector<StringView> views(6, StringView{nullptr, 777});
  StringArena arena;
  arena.views = views.data();
  // Size query: no buffer; only size is written.
  Status s = CastToStringArena(values, DT::kDouble, &arena, 6);
  EXPECT_EQ(s.code(), StatusCode::kBufferTooSmall) << s.message();
  EXPECT_EQ(arena.size, required);
  EXPECT_EQ(views[0].size, 777u);
  // One byte short, exactly enough, and roomy (one pass): the same texts.
  for (size_t capacity : {required - 1, required, size_t{33 * 6}}) {
    std::string buf(capacity + 1, '#');
    arena.data = buf.data();
    arena.capacity = capacity;
    arena.size = 0;
    s = CastToStringArena(values, DT::kDouble, &arena, 6);
    EXPECT_EQ(arena.size, required) << capacity;
    if (capacity < required) {
      EXPECT_EQ(s.code(), StatusCode::kBufferTooSmall) << capacity;
      EXPECT_EQ(buf, std::string(capacity + 1, '#'));
      continue;
    }
    ASSERT_TRUE(s.ok()) << s.message();
    const char* p = buf.data();
    for (size_t i = 0; i < 6; ++i) {
      EXPECT_EQ(views[i].data, p) << i;
      EXPECT_EQ(ViewText(views[i]), want[i]) << i;
      EXPECT_EQ(p[views[i].size], '\0') << i;
      p += views[i].size + 1;
    }
    EXPECT_EQ(buf[capacity], '#');  // (the capacity may hold scratch text past the size)
  }
  // Every numeric type spells as Cast to std::string does.
  for (DT t : {DT::kFloat, DT::kFloat16, DT::kBfloat16, DT::kFloat8E8M0, DT::kInt8, DT::kUint64,
               DT::kInt2, DT::kBool}) {
    const Bytes src(StorageBytes(t, 6), 0x5B);
    Strings expected(6);
    ASSERT_TRUE(Cast(src.data(), t, expected.data(), DT::kString, 6).ok());
    std::string buf(6 * 33, '#');
    arena.data = buf.data();
    arena.capacity = buf.size();
    ASSERT_TRUE(CastToStringArena(src.data(), t, &arena, 6).ok()) << DataTypeName(t);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(ViewText(views[i]), expected[i]) << DataTypeName(t);
  }
}

TEST(StringArena, StringSourcesAreCopied) {
  const std::string bytes = std::string("x y") + '\0' + "abc";
  const StringView src[] = {{bytes.data(), 3}, {nullptr, 0}, {bytes.data() + 3, 4}};
  std::vector<StringView> views(3);
  std::string buf(20, '#');
  StringArena arena{buf.data(), buf.size(), views.data(), 0};
  Status s = CastToStringArena(src, DT::kString, &arena, 3);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(arena.size, 10u);  // 3 + 1, 0 + 1, 4 + 1
  EXPECT_EQ(ViewText(views[0]), "x y");
  EXPECT_EQ(ViewText(views[1]), "");
  EXPECT_EQ(ViewText(views[2]), std::string("\0abc", 4));
  EXPECT_EQ(views[0].data, buf.data());
  EXPECT_EQ(buf.substr(0, 11), std::string("x y\0\0\0abc\0#", 11));
  arena.capacity = 9;
  s = CastToStringArena(src, DT::kString, &arena, 3);
  EXPECT_EQ(s.code(), StatusCode::kBufferTooSmall);
  EXPECT_EQ(arena.size, 10u);
}

TEST(StringArena, ArgumentErrorsNameTheArgumentAndWriteNothing) {
  const float values[2] = {1.0f, 2.0f};
  std::vector<StringView> views(2, StringView{nullptr, 777});
  std::string buf(64, '#');
  StringArena arena{buf.data(), buf.size(), views.data(), 5};
  const auto expect = [&](const Status& s, StatusCode code, const char* part) {
    EXPECT_EQ(s.code(), code) << s.message();
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
    EXPECT_EQ(buf, std::string(64, '#')) << part;
    EXPECT_EQ(views[0].size, 777u) << part;
    EXPECT_EQ(arena.size, 5u) << part;
  };
  expect(CastToStringArena(values, static_cast<DT>(99), &arena, 2), StatusCode::kInvalidArgument,
         "src_type");
  expect(CastToStringArena(values, DT::kComplex128, &arena, 2), StatusCode::kUnsupported,
         "src_type");
  expect(
      CastToStringArena(values, DT::kFloat, &arena, 2, test::Opt(true, static_cast<RoundMode>(-1))),
      StatusCode::kInvalidArgument, "round_mode");
  expect(CastToStringArena(values, DT::kFloat, &arena, SIZE_MAX / 8), StatusCode::kOverflow,
         "StringView");
  expect(CastToStringArena(nullptr, DT::kFloat, &arena, 2), StatusCode::kInvalidArgument,
         "src is null");
  expect(CastToStringArena(values, DT::kFloat, nullptr, 2), StatusCode::kInvalidArgument,
         "arena is null");
  arena.views = nullptr;
  expect(CastToStringArena(values, DT::kFloat, &arena, 2), StatusCode::kInvalidArgument,
         "arena->views");
  arena.views = views.data();
  arena.data = nullptr;
  expect(CastToStringArena(values, DT::kFloat, &arena, 2), StatusCode::kInvalidArgument,
         "arena->data");
  arena.data = buf.data();
  const StringView bad[] = {{"1", 1}, {nullptr, 2}};
  expect(CastToStringArena(bad, DT::kString, &arena, 2), StatusCode::kInvalidArgument,
         "src[1]: data is null");
  // Count 0: OK; a given arena's size becomes 0, and no arena is needed.
  EXPECT_TRUE(CastToStringArena(nullptr, DT::kFloat, &arena, 0).ok());
  EXPECT_EQ(arena.size, 0u);
  EXPECT_TRUE(CastToStringArena(nullptr, DT::kFloat, nullptr, 0).ok());
}

}  // namespace
}  // namespace tensorcast
