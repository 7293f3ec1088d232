// Spec tables through the public API: the tables and worked examples of the ONNX
// specification and reference implementation, and tensorcast's own rules, as bytes.
//
// Every expected value below was computed by hand from the rules (or copied from the ONNX
// conformance data); none was taken from tensorcast's output. "ref: TOPIC" marks what the
// ONNX reference implementation does (onnx.reference, with ml_dtypes and numpy; TOPIC
// names the rule); "sem" marks tensorcast's rules, docs/semantics.md, which win where
// they differ. Where tensorcast deliberately differs from the ONNX reference, the test
// expects tensorcast's rule and says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

const char* ModeName(RoundMode m) { return RoundModeName(m); }

// Casts `count` elements held in `src` (raw little-endian storage) and returns the
// StorageBytes(dst_type, count) output bytes. The output is a GuardedBuffer whose bytes
// start as kGuardByte, so padding bits that are not cleared show up in the result; the
// guard bytes around it must stay untouched.
Bytes CastRaw(const Bytes& src, DT st, DT dt, size_t count, const CastOptions& o = {},
              bool cast_like = false) {
  EXPECT_EQ(src.size(), StorageBytes(st, count)) << "test bug: source size";
  GuardedBuffer buf(StorageBytes(dt, count));
  const Status s = cast_like ? CastLike(src.data(), st, buf.data(), dt, count, o)
                             : Cast(src.data(), st, buf.data(), dt, count, o);
  EXPECT_TRUE(s.ok()) << DataTypeName(st) << " -> " << DataTypeName(dt) << ": "
                      << StatusCodeName(s.code()) << " " << s.message();
  EXPECT_TRUE(buf.GuardsIntact()) << DataTypeName(st) << " -> " << DataTypeName(dt);
  return buf.Output();
}

// One element. `x` is the source's storage (uint16_t bits for FLOAT16/BFLOAT16, the
// uint8_t code for float8 and for packed types (in the low bits), ...); the result is
// the destination's storage read as D (for a packed type: the whole byte, padding
// included, which must be zero).
template <class D, class S>
D One(S x, DT st, DT dt, const CastOptions& o = {}) {
  const Bytes out = CastRaw(Raw(std::vector<S>{x}), st, dt, 1, o);
  D d{};
  std::memcpy(&d, out.data(), std::min(sizeof(D), out.size()));
  return d;
}

// Integer storage of any width up to 64 bits as a raw bit pattern (little-endian).
uint64_t OneBits(uint64_t bits, DT st, DT dt, const CastOptions& o = {}) {
  Bytes src(StorageBytes(st, 1));
  std::memcpy(src.data(), &bits, src.size());
  const Bytes out = CastRaw(src, st, dt, 1, o);
  uint64_t r = 0;
  std::memcpy(&r, out.data(), std::min(sizeof r, out.size()));
  return r;
}

constexpr DT kF8[4] = {DT::kFloat8E4M3FN, DT::kFloat8E4M3FNUZ, DT::kFloat8E5M2,
                       DT::kFloat8E5M2FNUZ};

// Float8 codes in the column order of the ONNX float8 special-value and conformance tables:
// E4M3FN sat, nosat, E4M3FNUZ sat, nosat, E5M2 sat, nosat, E5M2FNUZ sat, nosat.
using F8Codes = std::array<uint8_t, 8>;

template <class S>
void ExpectF8Row(S x, DT st, const F8Codes& want, const std::string& what) {
  for (int t = 0; t < 4; ++t) {
    for (int sat = 1; sat >= 0; --sat) {
      const uint8_t w = want[static_cast<size_t>(2 * t + (sat ? 0 : 1))];
      EXPECT_EQ(Hex(One<uint8_t>(x, st, kF8[t], Opt(sat != 0))), Hex(w))
          << what << " (" << DataTypeName(st) << ") -> " << DataTypeName(kF8[t])
          << (sat ? " saturate=1" : " saturate=0");
    }
  }
}

// ---------------------------------------------------------------------------------------
// Float8 E4M3FN / E4M3FNUZ / E5M2 / E5M2FNUZ
// ---------------------------------------------------------------------------------------

// ref: float8 special-value table (sem: +-Inf saturates to +-MAX for all four types).
TEST(Float8Encode, SpecialValueTable) {
  struct Row {
    const char* what;
    uint32_t f32;
    F8Codes want;
  };
  const Row rows[] = {
      {"+0", 0x00000000, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
      {"-0", 0x80000000, {0x80, 0x80, 0x00, 0x00, 0x80, 0x80, 0x00, 0x00}},
      {"tiny negative -1e-30", 0x8DA24260, {0x80, 0x80, 0x00, 0x00, 0x80, 0x80, 0x00, 0x00}},
      {"+NaN", 0x7FC00000, {0x7F, 0x7F, 0x80, 0x80, 0x7E, 0x7E, 0x80, 0x80}},
      {"-NaN", 0xFFC00000, {0xFF, 0xFF, 0x80, 0x80, 0xFE, 0xFE, 0x80, 0x80}},
      // ref: float8 encoding: any NaN (quiet or signalling) gives the canonical NaN with its sign.
      {"+sNaN", 0x7F800001, {0x7F, 0x7F, 0x80, 0x80, 0x7E, 0x7E, 0x80, 0x80}},
      {"-NaN all ones", 0xFFFFFFFF, {0xFF, 0xFF, 0x80, 0x80, 0xFE, 0xFE, 0x80, 0x80}},
      {"+Inf", 0x7F800000, {0x7E, 0x7F, 0x7F, 0x80, 0x7B, 0x7C, 0x7F, 0x80}},
      {"-Inf", 0xFF800000, {0xFE, 0xFF, 0xFF, 0x80, 0xFB, 0xFC, 0xFF, 0x80}},
      {"large + 1e30", 0x7149F2CA, {0x7E, 0x7F, 0x7F, 0x80, 0x7B, 0x7C, 0x7F, 0x80}},
      {"large - FLT_MAX", 0xFF7FFFFF, {0xFE, 0xFF, 0xFF, 0x80, 0xFB, 0xFC, 0xFF, 0x80}},
  };
  for (const Row& r : rows) ExpectF8Row(r.f32, DT::kFloat, r.want, r.what);
}

// ref: float8 conformance vectors, the float32 inputs and their float16 twins.
struct ConformanceRow {
  uint32_t f32;
  uint16_t f16;
  F8Codes want;
};
const ConformanceRow kConformance[15] = {
    {0x3EF535B8, 0x37AA, {0x2F, 0x2F, 0x37, 0x37, 0x38, 0x38, 0x3C, 0x3C}},
    {0x3EF5EEB0, 0x37AF, {0x2F, 0x2F, 0x37, 0x37, 0x38, 0x38, 0x3C, 0x3C}},
    {0x3EFFD6B2, 0x37FF, {0x30, 0x30, 0x38, 0x38, 0x38, 0x38, 0x3C, 0x3C}},
    {0x3F51B0E5, 0x3A8E, {0x35, 0x35, 0x3D, 0x3D, 0x3B, 0x3B, 0x3F, 0x3F}},
    {0x3EF0CCCC, 0x3786, {0x2F, 0x2F, 0x37, 0x37, 0x38, 0x38, 0x3C, 0x3C}},
    {0x3F391039, 0x39C9, {0x34, 0x34, 0x3C, 0x3C, 0x3A, 0x3A, 0x3E, 0x3E}},
    {0x49742400, 0x7C00, {0x7E, 0x7F, 0x7F, 0x80, 0x7B, 0x7C, 0x7F, 0x80}},
    {0x33D6BF95, 0x0002, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {0x7FC00000, 0x7E00, {0x7F, 0x7F, 0x80, 0x80, 0x7E, 0x7E, 0x80, 0x80}},
    {0x7F800000, 0x7C00, {0x7E, 0x7F, 0x7F, 0x80, 0x7B, 0x7C, 0x7F, 0x80}},
    {0x7F800000, 0x7C00, {0x7E, 0x7F, 0x7F, 0x80, 0x7B, 0x7C, 0x7F, 0x80}},
    {0xFF800000, 0xFC00, {0xFE, 0xFF, 0xFF, 0x80, 0xFB, 0xFC, 0xFF, 0x80}},
    {0xB3D6BF95, 0x8002, {0x80, 0x80, 0x00, 0x00, 0x80, 0x80, 0x00, 0x00}},
    {0x33D6BF95, 0x0002, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
    {0xC9742400, 0xFC00, {0xFE, 0xFF, 0xFF, 0x80, 0xFB, 0xFC, 0xFF, 0x80}},
};

TEST(Float8Encode, ConformanceVectorsElementwise) {
  for (size_t i = 0; i < 15; ++i) {
    const ConformanceRow& r = kConformance[i];
    ExpectF8Row(r.f32, DT::kFloat, r.want, "row " + std::to_string(i));
    ExpectF8Row(r.f16, DT::kFloat16, r.want, "row " + std::to_string(i));
  }
}

// The same vectors as one 15-element tensor (the bulk path), and through CastLike.
TEST(Float8Encode, ConformanceVectorsAsTensor) {
  std::vector<uint32_t> f32;
  std::vector<uint16_t> f16;
  for (const ConformanceRow& r : kConformance) {
    f32.push_back(r.f32);
    f16.push_back(r.f16);
  }
  for (int t = 0; t < 4; ++t) {
    for (int sat = 1; sat >= 0; --sat) {
      Bytes want;
      for (const ConformanceRow& r : kConformance) {
        want.push_back(r.want[static_cast<size_t>(2 * t + (sat ? 0 : 1))]);
      }
      const std::string label = std::string(DataTypeName(kF8[t])) + (sat ? " sat" : " nosat");
      EXPECT_EQ(HexBytes(CastRaw(Raw(f32), DT::kFloat, kF8[t], 15, Opt(sat != 0))), HexBytes(want))
          << "FLOAT -> " << label;
      EXPECT_EQ(HexBytes(CastRaw(Raw(f16), DT::kFloat16, kF8[t], 15, Opt(sat != 0))),
                HexBytes(want))
          << "FLOAT16 -> " << label;
      // ref: CastLike: CastLike is Cast to the like-type with the same saturate.
      EXPECT_EQ(HexBytes(CastRaw(Raw(f32), DT::kFloat, kF8[t], 15, Opt(sat != 0), true)),
                HexBytes(want))
          << "CastLike FLOAT -> " << label;
    }
  }
}

// ref: float8 overflow thresholds (|x|; "sat" also checked: sem clamps to +-MAX).
TEST(Float8Encode, Thresholds) {
  struct Row {
    DT type;
    const char* what;
    uint32_t f32;
    uint8_t sat;
    uint8_t nosat;
  };
  const Row rows[] = {
      // E4M3FN: [432, 464] -> 448 (ties to the even 0x7E), x > 464 overflows to NaN.
      {DT::kFloat8E4M3FN, "432 (tie -> 448)", 0x43D80000, 0x7E, 0x7E},
      {DT::kFloat8E4M3FN, "431.99997 -> 416", 0x43D7FFFF, 0x7D, 0x7D},
      {DT::kFloat8E4M3FN, "464 (tie -> 448)", 0x43E80000, 0x7E, 0x7E},
      {DT::kFloat8E4M3FN, "464.00003", 0x43E80001, 0x7E, 0x7F},
      {DT::kFloat8E4M3FN, "-464", 0xC3E80000, 0xFE, 0xFE},
      {DT::kFloat8E4M3FN, "-464.00003", 0xC3E80001, 0xFE, 0xFF},
      {DT::kFloat8E4M3FN, "2^-10 (tie -> 0)", 0x3A800000, 0x00, 0x00},
      {DT::kFloat8E4M3FN, "next above 2^-10", 0x3A800001, 0x01, 0x01},
      {DT::kFloat8E4M3FN, "-2^-10", 0xBA800000, 0x80, 0x80},
      {DT::kFloat8E4M3FN, "-(next above 2^-10)", 0xBA800001, 0x81, 0x81},
      {DT::kFloat8E4M3FN, "1.5*2^-9 (tie 1|2 -> 2)", 0x3B400000, 0x02, 0x02},
      {DT::kFloat8E4M3FN, "2.5*2^-9 (tie 2|3 -> 2)", 0x3BA00000, 0x02, 0x02},
      {DT::kFloat8E4M3FN, "7.5*2^-9 (carry into min normal)", 0x3C700000, 0x08, 0x08},
      {DT::kFloat8E4M3FN, "448", 0x43E00000, 0x7E, 0x7E},
      // E4M3FNUZ: (232, 248) -> 240, 232 -> 224, x >= 248 overflows to 0x80.
      {DT::kFloat8E4M3FNUZ, "232 (tie -> 224)", 0x43680000, 0x7E, 0x7E},
      {DT::kFloat8E4M3FNUZ, "next above 232", 0x43680001, 0x7F, 0x7F},
      {DT::kFloat8E4M3FNUZ, "next below 248", 0x4377FFFF, 0x7F, 0x7F},
      {DT::kFloat8E4M3FNUZ, "248 (tie -> 256, overflow)", 0x43780000, 0x7F, 0x80},
      {DT::kFloat8E4M3FNUZ, "-248", 0xC3780000, 0xFF, 0x80},
      {DT::kFloat8E4M3FNUZ, "2^-11 (tie -> 0)", 0x3A000000, 0x00, 0x00},
      {DT::kFloat8E4M3FNUZ, "next above 2^-11", 0x3A000001, 0x01, 0x01},
      {DT::kFloat8E4M3FNUZ, "-2^-11 (no -0 in FNUZ)", 0xBA000000, 0x00, 0x00},
      {DT::kFloat8E4M3FNUZ, "-(next above 2^-11)", 0xBA000001, 0x81, 0x81},
      // E5M2: (53248, 61440) -> 57344, 53248 -> 49152, x >= 61440 overflows to Inf.
      {DT::kFloat8E5M2, "53248 (tie -> 49152)", 0x47500000, 0x7A, 0x7A},
      {DT::kFloat8E5M2, "next above 53248", 0x47500001, 0x7B, 0x7B},
      {DT::kFloat8E5M2, "next below 61440", 0x476FFFFF, 0x7B, 0x7B},
      {DT::kFloat8E5M2, "61440", 0x47700000, 0x7B, 0x7C},
      {DT::kFloat8E5M2, "-61440", 0xC7700000, 0xFB, 0xFC},
      {DT::kFloat8E5M2, "2^-17 (tie -> 0)", 0x37000000, 0x00, 0x00},
      {DT::kFloat8E5M2, "next above 2^-17", 0x37000001, 0x01, 0x01},
      {DT::kFloat8E5M2, "-2^-17", 0xB7000000, 0x80, 0x80},
      // E5M2FNUZ: same range as E5M2, overflow to 0x80, zero at 2^-18.
      {DT::kFloat8E5M2FNUZ, "53248 (tie -> 49152)", 0x47500000, 0x7E, 0x7E},
      {DT::kFloat8E5M2FNUZ, "next above 53248", 0x47500001, 0x7F, 0x7F},
      {DT::kFloat8E5M2FNUZ, "next below 61440", 0x476FFFFF, 0x7F, 0x7F},
      {DT::kFloat8E5M2FNUZ, "61440", 0x47700000, 0x7F, 0x80},
      {DT::kFloat8E5M2FNUZ, "-61440", 0xC7700000, 0xFF, 0x80},
      {DT::kFloat8E5M2FNUZ, "2^-18 (tie -> 0)", 0x36800000, 0x00, 0x00},
      {DT::kFloat8E5M2FNUZ, "next above 2^-18", 0x36800001, 0x01, 0x01},
      {DT::kFloat8E5M2FNUZ, "-2^-18", 0xB6800000, 0x00, 0x00},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(One<uint8_t>(r.f32, DT::kFloat, r.type, Opt(true))), Hex(r.sat))
        << DataTypeName(r.type) << " sat " << r.what;
    EXPECT_EQ(Hex(One<uint8_t>(r.f32, DT::kFloat, r.type, Opt(false))), Hex(r.nosat))
        << DataTypeName(r.type) << " nosat " << r.what;
  }
}

// ref: float8 decoding, hand-picked codes, to float32 and float16 (ref: float8 conformance vectors:
// the decode conformance values 0x80 FNUZ -> 0xFFC00000 / 0xFE00, 0x7F E4M3FNUZ -> 240, ...).
TEST(Float8Decode, Table) {
  struct Row {
    DT type;
    uint8_t code;
    uint32_t f32;
    uint16_t f16;
  };
  const Row rows[] = {
      {DT::kFloat8E4M3FN, 0x00, 0x00000000, 0x0000},
      {DT::kFloat8E4M3FN, 0x80, 0x80000000, 0x8000},  // -0.0
      {DT::kFloat8E4M3FN, 0x01, 0x3B000000, 0x1800},  // 2^-9
      {DT::kFloat8E4M3FN, 0x07, 0x3C600000, 0x2300},  // 7*2^-9
      {DT::kFloat8E4M3FN, 0x08, 0x3C800000, 0x2400},  // 2^-6
      {DT::kFloat8E4M3FN, 0x38, 0x3F800000, 0x3C00},  // 1.0
      {DT::kFloat8E4M3FN, 0x31, 0x3F100000, 0x3880},  // 0.5625
      {DT::kFloat8E4M3FN, 0x7E, 0x43E00000, 0x5F00},  // 448
      {DT::kFloat8E4M3FN, 0xFE, 0xC3E00000, 0xDF00},  // -448
      {DT::kFloat8E4M3FN, 0x7F, 0x7FC00000, 0x7E00},  // NaN
      {DT::kFloat8E4M3FN, 0xFF, 0xFFC00000, 0xFE00},  // -NaN
      {DT::kFloat8E4M3FNUZ, 0x00, 0x00000000, 0x0000},
      {DT::kFloat8E4M3FNUZ, 0x01, 0x3A800000, 0x1400},  // 2^-10
      {DT::kFloat8E4M3FNUZ, 0x08, 0x3C000000, 0x2000},  // 2^-7
      {DT::kFloat8E4M3FNUZ, 0x40, 0x3F800000, 0x3C00},  // 1.0
      {DT::kFloat8E4M3FNUZ, 0x7F, 0x43700000, 0x5B80},  // 240
      {DT::kFloat8E4M3FNUZ, 0xFF, 0xC3700000, 0xDB80},  // -240
      {DT::kFloat8E4M3FNUZ, 0x80, 0xFFC00000, 0xFE00},  // the FNUZ NaN is negative
      {DT::kFloat8E5M2, 0x01, 0x37800000, 0x0100},      // 2^-16
      {DT::kFloat8E5M2, 0x04, 0x38800000, 0x0400},      // 2^-14
      {DT::kFloat8E5M2, 0x3C, 0x3F800000, 0x3C00},
      {DT::kFloat8E5M2, 0x7B, 0x47600000, 0x7B00},  // 57344
      {DT::kFloat8E5M2, 0x80, 0x80000000, 0x8000},
      {DT::kFloat8E5M2, 0x7C, 0x7F800000, 0x7C00},  // +Inf
      {DT::kFloat8E5M2, 0xFC, 0xFF800000, 0xFC00},  // -Inf
      {DT::kFloat8E5M2, 0x7D, 0x7FC00000, 0x7E00},  // NaN payloads are dropped
      {DT::kFloat8E5M2, 0x7E, 0x7FC00000, 0x7E00},
      {DT::kFloat8E5M2, 0x7F, 0x7FC00000, 0x7E00},
      {DT::kFloat8E5M2, 0xFD, 0xFFC00000, 0xFE00},
      {DT::kFloat8E5M2, 0xFF, 0xFFC00000, 0xFE00},
      {DT::kFloat8E5M2FNUZ, 0x01, 0x37000000, 0x0080},  // 2^-17
      {DT::kFloat8E5M2FNUZ, 0x04, 0x38000000, 0x0200},  // 2^-15
      {DT::kFloat8E5M2FNUZ, 0x40, 0x3F800000, 0x3C00},
      {DT::kFloat8E5M2FNUZ, 0x7F, 0x47600000, 0x7B00},
      {DT::kFloat8E5M2FNUZ, 0x80, 0xFFC00000, 0xFE00},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(One<uint32_t>(r.code, r.type, DT::kFloat)), Hex(r.f32))
        << DataTypeName(r.type) << " " << Hex(r.code) << " -> FLOAT";
    EXPECT_EQ(Hex(One<uint16_t>(r.code, r.type, DT::kFloat16)), Hex(r.f16))
        << DataTypeName(r.type) << " " << Hex(r.code) << " -> FLOAT16";
  }
}

// ref: float8 decoding formula, on all 256 codes of each type, to float32 and double (exact), and
// sem: NaN codes decode to the canonical quiet NaN with the sign of the code (FNUZ:
// negative).
TEST(Float8Decode, FormulaAllCodes) {
  for (DT t : kF8) {
    const bool e5 = t == DT::kFloat8E5M2 || t == DT::kFloat8E5M2FNUZ;
    const bool fnuz = t == DT::kFloat8E4M3FNUZ || t == DT::kFloat8E5M2FNUZ;
    const int mbits = e5 ? 2 : 3;
    const int bias = t == DT::kFloat8E4M3FN     ? 7
                     : t == DT::kFloat8E4M3FNUZ ? 8
                     : t == DT::kFloat8E5M2     ? 15
                                                : 16;
    for (int c = 0; c < 256; ++c) {
      const int s = c >> 7;
      const int e = (c >> mbits) & (e5 ? 31 : 15);
      const int m = c & ((1 << mbits) - 1);
      bool nan = false, inf = false;
      if (fnuz)
        nan = c == 0x80;
      else if (e5) {
        nan = e == 31 && m != 0;
        inf = e == 31 && m == 0;
      } else
        nan = (c & 0x7F) == 0x7F;
      uint64_t want64;
      uint32_t want32;
      if (nan) {
        const bool neg = fnuz || s == 1;
        want64 = neg ? 0xFFF8000000000000ull : 0x7FF8000000000000ull;
        want32 = neg ? 0xFFC00000u : 0x7FC00000u;
      } else {
        double v = inf      ? HUGE_VAL
                   : e == 0 ? std::ldexp(m, 1 - bias - mbits)
                            : std::ldexp(1.0 + std::ldexp(m, -mbits), e - bias);
        if (s) v = -v;
        want64 = Bits(v);
        want32 = Bits(static_cast<float>(v));  // exact: every float8 value is a float32
      }
      const uint8_t code = static_cast<uint8_t>(c);
      EXPECT_EQ(Hex(One<uint64_t>(code, t, DT::kDouble)), Hex(want64))
          << DataTypeName(t) << " " << Hex(code) << " -> DOUBLE";
      EXPECT_EQ(Hex(One<uint32_t>(code, t, DT::kFloat)), Hex(want32))
          << DataTypeName(t) << " " << Hex(code) << " -> FLOAT";
      // bfloat16 holds every float8 value exactly (ref: float8 decoding); NaN -> 0x7FC0/0xFFC0.
      EXPECT_EQ(Hex(One<uint16_t>(code, t, DT::kBfloat16)), Hex(want32 >> 16))
          << DataTypeName(t) << " " << Hex(code) << " -> BFLOAT16";
    }
  }
}

// E5M2 has float16's exponent (bias 15) and the top 2 mantissa bits, so every non-NaN
// code is exactly the top byte of a float16 (ref: float8 encodings, float8 decoding): decode is c
// << 8, and encoding those float16 values gives the code back in both saturate modes.
TEST(Float8Decode, E5M2IsTheTopByteOfFloat16) {
  for (int c = 0; c < 256; ++c) {
    const uint8_t code = static_cast<uint8_t>(c);
    if ((c & 0x7F) > 0x7C) continue;  // NaN codes
    const uint16_t h = static_cast<uint16_t>(c << 8);
    EXPECT_EQ(Hex(One<uint16_t>(code, DT::kFloat8E5M2, DT::kFloat16)), Hex(h));
    EXPECT_EQ(Hex(One<uint8_t>(h, DT::kFloat16, DT::kFloat8E5M2, Opt(false))), Hex(code));
    if ((c & 0x7F) != 0x7C) {  // Inf saturates to MAX with saturate=1
      EXPECT_EQ(Hex(One<uint8_t>(h, DT::kFloat16, DT::kFloat8E5M2, Opt(true))), Hex(code));
    }
  }
}

// Float8 -> float8: exact decode, then the target's rule (ref: reference's cast_to: through
// float32, which is exact).
TEST(Float8Encode, FromOtherFloat8) {
  struct Row {
    DT from;
    uint8_t code;
    DT to;
    uint8_t sat;
    uint8_t nosat;
  };
  const Row rows[] = {
      {DT::kFloat8E5M2, 0x7B, DT::kFloat8E4M3FN, 0x7E, 0x7F},      // 57344 overflows
      {DT::kFloat8E5M2, 0x7C, DT::kFloat8E4M3FN, 0x7E, 0x7F},      // +Inf
      {DT::kFloat8E5M2, 0xFC, DT::kFloat8E5M2FNUZ, 0xFF, 0x80},    // -Inf
      {DT::kFloat8E5M2, 0x3D, DT::kFloat8E4M3FN, 0x3A, 0x3A},      // 1.25 exact
      {DT::kFloat8E4M3FN, 0x7E, DT::kFloat8E4M3FNUZ, 0x7F, 0x80},  // 448 > 240
      {DT::kFloat8E4M3FN, 0x01, DT::kFloat8E5M2, 0x18, 0x18},      // 2^-9 is normal in E5M2
      {DT::kFloat8E4M3FN, 0x7F, DT::kFloat8E5M2, 0x7E, 0x7E},      // NaN keeps its sign
      {DT::kFloat8E4M3FN, 0xFF, DT::kFloat8E5M2, 0xFE, 0xFE},
      {DT::kFloat8E4M3FN, 0x80, DT::kFloat8E5M2FNUZ, 0x00, 0x00},  // -0 -> FNUZ +0
      {DT::kFloat8E4M3FNUZ, 0x80, DT::kFloat8E4M3FN, 0xFF, 0xFF},  // FNUZ NaN is negative
      {DT::kFloat8E5M2FNUZ, 0x80, DT::kFloat8E5M2, 0xFE, 0xFE},
      // 240 = 1.875*2^7 is an E5M2 tie between 224 (mantissa 11, odd) and 256 -> 256 = 0x5C.
      {DT::kFloat8E4M3FNUZ, 0x7F, DT::kFloat8E5M2, 0x5C, 0x5C},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(One<uint8_t>(r.code, r.from, r.to, Opt(true))), Hex(r.sat))
        << DataTypeName(r.from) << " " << Hex(r.code) << " -> " << DataTypeName(r.to) << " sat";
    EXPECT_EQ(Hex(One<uint8_t>(r.code, r.from, r.to, Opt(false))), Hex(r.nosat))
        << DataTypeName(r.from) << " " << Hex(r.code) << " -> " << DataTypeName(r.to) << " nosat";
  }
}

// Integer sources: one rounding of the exact value (sem: one rounding, ref: other sources into
// float8), then the float8 range rules.
TEST(Float8Encode, FromIntegers) {
  struct Row {
    DT from;
    uint64_t bits;
    DT to;
    uint8_t sat;
    uint8_t nosat;
  };
  const Row rows[] = {
      // 248 is the E4M3FNUZ overflow tie (ref: float8 overflow thresholds); saturate clamps to 240
      // (sem;
      // ref: undetermined cases leaves the reference's uint8 path unverified).
      {DT::kUint8, 248, DT::kFloat8E4M3FNUZ, 0x7F, 0x80},
      {DT::kUint8, 247, DT::kFloat8E4M3FNUZ, 0x7F, 0x7F},
      {DT::kInt16, 464, DT::kFloat8E4M3FN, 0x7E, 0x7E},  // tie -> 448
      {DT::kInt16, 465, DT::kFloat8E4M3FN, 0x7E, 0x7F},
      {DT::kInt16, 100, DT::kFloat8E4M3FN, 0x6C, 0x6C},  // 1.5625*64: tie -> 96
      {DT::kInt16, 104, DT::kFloat8E4M3FN, 0x6D, 0x6D},  // 104 exact
      {DT::kInt8, 0xFD, DT::kFloat8E4M3FN, 0xC4, 0xC4},  // -3
      {DT::kInt32, static_cast<uint32_t>(-1000), DT::kFloat8E4M3FN, 0xFE, 0xFF},
      {DT::kInt64, 0x7FFFFFFFFFFFFFFFull, DT::kFloat8E5M2, 0x7B, 0x7C},
      {DT::kUint64, 0xFFFFFFFFFFFFFFFFull, DT::kFloat8E5M2FNUZ, 0x7F, 0x80},
      {DT::kInt64, 0x8000000000000000ull, DT::kFloat8E4M3FNUZ, 0xFF, 0x80},
      {DT::kInt32, 0, DT::kFloat8E4M3FN, 0x00, 0x00},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(OneBits(r.bits, r.from, r.to, Opt(true))), Hex(r.sat))
        << DataTypeName(r.from) << " " << r.bits << " -> " << DataTypeName(r.to) << " sat";
    EXPECT_EQ(Hex(OneBits(r.bits, r.from, r.to, Opt(false))), Hex(r.nosat))
        << DataTypeName(r.from) << " " << r.bits << " -> " << DataTypeName(r.to) << " nosat";
  }
}

// ---------------------------------------------------------------------------------------
// Float8 E8M0
// ---------------------------------------------------------------------------------------

// ref: e8m0 decoding to float32 / double / bfloat16 on every code: 2^(b-127), 0xFF NaN,
// 0x00 is the float32 subnormal 0x00400000 (no flush to zero).
TEST(E8M0Decode, AllCodesToFloat32DoubleBfloat16) {
  for (int b = 0; b < 256; ++b) {
    const uint8_t code = static_cast<uint8_t>(b);
    const uint32_t f32 = b == 0xFF ? 0x7FC00000u
                         : b == 0  ? 0x00400000u
                                   : static_cast<uint32_t>(b) << 23;
    const uint64_t f64 =
        b == 0xFF ? 0x7FF8000000000000ull : static_cast<uint64_t>(b - 127 + 1023) << 52;
    EXPECT_EQ(Hex(One<uint32_t>(code, DT::kFloat8E8M0, DT::kFloat)), Hex(f32)) << b;
    EXPECT_EQ(Hex(One<uint64_t>(code, DT::kFloat8E8M0, DT::kDouble)), Hex(f64)) << b;
    // ref: e8m0 decoding "to bfloat16: exact (2^-127 -> 0x0040)".
    EXPECT_EQ(Hex(One<uint16_t>(code, DT::kFloat8E8M0, DT::kBfloat16)), Hex(f32 >> 16)) << b;
  }
}

// ref: e8m0 decoding, float16 ladder.
TEST(E8M0Decode, Float16Ladder) {
  for (int b = 0; b < 256; ++b) {
    uint16_t want;
    if (b == 0xFF)
      want = 0x7E00;
    else if (b <= 0x66)
      want = 0x0000;  // 2^-25 ties to 0
    else if (b <= 0x70)
      want = static_cast<uint16_t>(1u << (b - 0x67));  // subnormals
    else if (b <= 0x8E)
      want = static_cast<uint16_t>((b - 0x70) << 10);
    else
      want = 0x7C00;  // Inf
    EXPECT_EQ(Hex(One<uint16_t>(static_cast<uint8_t>(b), DT::kFloat8E8M0, DT::kFloat16)), Hex(want))
        << "code " << Hex(static_cast<uint64_t>(b));
  }
}

// ref: e8m0 conformance: 00 7c 7d 7e 80 80 81 82 -> float32 and float16.
TEST(E8M0Decode, Conformance) {
  const Bytes codes = {0x00, 0x7C, 0x7D, 0x7E, 0x80, 0x80, 0x81, 0x82};
  const std::vector<uint32_t> f32 = {0x00400000, 0x3E000000, 0x3E800000, 0x3F000000,
                                     0x40000000, 0x40000000, 0x40800000, 0x41000000};
  const std::vector<uint16_t> f16 = {0x0000, 0x3000, 0x3400, 0x3800,
                                     0x4000, 0x4000, 0x4400, 0x4800};
  EXPECT_EQ(HexBytes(CastRaw(codes, DT::kFloat8E8M0, DT::kFloat, 8)), HexBytes(Raw(f32)));
  EXPECT_EQ(HexBytes(CastRaw(codes, DT::kFloat8E8M0, DT::kFloat16, 8)), HexBytes(Raw(f16)));
}

// Columns: up sat, up nosat, down sat, down nosat, nearest sat, nearest nosat.
using E8Codes = std::array<uint8_t, 6>;
constexpr RoundMode kModes[3] = {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest};

template <class S>
void ExpectE8Row(S x, DT st, const E8Codes& want, const std::string& what) {
  for (int m = 0; m < 3; ++m) {
    for (int sat = 1; sat >= 0; --sat) {
      const uint8_t w = want[static_cast<size_t>(2 * m + (sat ? 0 : 1))];
      EXPECT_EQ(Hex(One<uint8_t>(x, st, DT::kFloat8E8M0, Opt(sat != 0, kModes[m]))), Hex(w))
          << what << " (" << DataTypeName(st) << ") round_mode=" << ModeName(kModes[m])
          << (sat ? " saturate=1" : " saturate=0");
    }
  }
}

// ref: e8m0 edge cases, with tensorcast's rules where sem differs on purpose:
//  [A] "x == 0, or x rounded by round_mode below 2^-127 or above 2^127": saturate=0 -> 0xFF,
//      saturate=1 clamps to 0x00 / 0xFE (the reference gives 0x00 / rounds).
//  [B] "saturate=1, +-Inf or x > 2^127" -> 0xFE (the reference gives 0xFF).
//  [C] "round_mode=up, an exactly representable 2^-127 (0x00400000)" -> 0x00 (ref: 0x01).
// Rounding is to a power of two of the exact value (sem: one rounding), with an unbounded exponent,
// before the range check: 2^-149 is a power of two, so every mode gives 2^-149 < 2^-127.
TEST(E8M0Encode, EdgeTable) {
  struct Row {
    const char* what;
    uint32_t f32;
    E8Codes want;
  };
  const Row rows[] = {
      // [A]: x == 0 (ref: 00 everywhere).
      {"+0", 0x00000000, {0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF}},
      {"-0", 0x80000000, {0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF}},
      // [A]: 2^-149 stays 2^-149 in every mode (ref: 01 01 00 00 00 00).
      {"2^-149", 0x00000001, {0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF}},
      // [A]: 2^-128 likewise.
      {"2^-128", 0x00200000, {0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF}},
      // 1.5*2^-128: up and nearest (x >= 1.5*2^k) give 2^-127 = 0x00; down gives 2^-128 [A].
      {"1.5*2^-128", 0x00300000, {0x00, 0x00, 0x00, 0xFF, 0x00, 0x00}},
      // [C]: exact 2^-127 is 0x00 in every mode.
      {"2^-127", 0x00400000, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},
      {"1.25*2^-127", 0x00500000, {0x01, 0x01, 0x00, 0x00, 0x00, 0x00}},
      {"1.5*2^-127", 0x00600000, {0x01, 0x01, 0x00, 0x00, 0x01, 0x01}},
      {"2^-126", 0x00800000, {0x01, 0x01, 0x01, 0x01, 0x01, 0x01}},
      {"0.124 (conformance)", 0x3DFDF3B6, {0x7C, 0x7C, 0x7B, 0x7B, 0x7C, 0x7C}},
      {"1.0", 0x3F800000, {0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F}},
      {"1.0000001", 0x3F800001, {0x80, 0x80, 0x7F, 0x7F, 0x7F, 0x7F}},
      {"1.4999999", 0x3FBFFFFF, {0x80, 0x80, 0x7F, 0x7F, 0x7F, 0x7F}},
      {"1.5", 0x3FC00000, {0x80, 0x80, 0x7F, 0x7F, 0x80, 0x80}},
      {"3.0", 0x40400000, {0x81, 0x81, 0x80, 0x80, 0x81, 0x81}},
      {"-4.0 (sign ignored)", 0xC0800000, {0x81, 0x81, 0x81, 0x81, 0x81, 0x81}},
      {"-5.0", 0xC0A00000, {0x82, 0x82, 0x81, 0x81, 0x81, 0x81}},
      {"2^127", 0x7F000000, {0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE}},
      // [A] up rounds to 2^128 > 2^127: nosat 0xFF, sat 0xFE (same as ref).
      {"2^127+ulp", 0x7F000001, {0xFE, 0xFF, 0xFE, 0xFE, 0xFE, 0xFE}},
      {"1.5*2^127", 0x7F400000, {0xFE, 0xFF, 0xFE, 0xFE, 0xFE, 0xFF}},
      {"FLT_MAX", 0x7F7FFFFF, {0xFE, 0xFF, 0xFE, 0xFE, 0xFE, 0xFF}},
      // [B]: Inf with saturate=1 -> 0xFE in every mode (ref: 0xFF).
      {"+Inf", 0x7F800000, {0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF}},
      {"-Inf", 0xFF800000, {0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF}},
      {"+NaN", 0x7FC00000, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
      {"-NaN", 0xFFC00000, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
      {"sNaN", 0x7F800001, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
  };
  for (const Row& r : rows) ExpectE8Row(r.f32, DT::kFloat, r.want, r.what);
}

// ref: e8m0 conformance: [0, 0.124, 0.25, 0.5, 1.1, 2, 4, 8], saturate=1, up ->
// 00 7c 7d 7e 80 80 81 82 (0 -> 0x00 is also tensorcast's rule for zero (sem) with
// saturate=1 clamps to 0x00). Float32 and float16 inputs.
TEST(E8M0Encode, Conformance) {
  const std::vector<float> f32 = {0.0f, 0.124f, 0.25f, 0.5f, 1.1f, 2.0f, 4.0f, 8.0f};
  const std::vector<uint16_t> f16 = {0x0000, 0x2FF0, 0x3400, 0x3800,
                                     0x3C66, 0x4000, 0x4400, 0x4800};
  const std::string want = "00 7c 7d 7e 80 80 81 82";
  EXPECT_EQ(HexBytes(CastRaw(Raw(f32), DT::kFloat, DT::kFloat8E8M0, 8, Opt(true))), want);
  EXPECT_EQ(HexBytes(CastRaw(Raw(f16), DT::kFloat16, DT::kFloat8E8M0, 8, Opt(true))), want);
}

TEST(E8M0Encode, FromFloat16) {
  // 2^-24 is exact: 127 - 24 = 103.
  ExpectE8Row<uint16_t>(0x0001, DT::kFloat16, {0x67, 0x67, 0x67, 0x67, 0x67, 0x67}, "2^-24");
  // sem: zero and Inf clamp when saturating.
  ExpectE8Row<uint16_t>(0x0000, DT::kFloat16, {0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF}, "0");
  ExpectE8Row<uint16_t>(0x7C00, DT::kFloat16, {0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF}, "Inf");
  ExpectE8Row<uint16_t>(0x7E00, DT::kFloat16, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, "NaN");
  ExpectE8Row<uint16_t>(0x4200, DT::kFloat16, {0x81, 0x81, 0x80, 0x80, 0x81, 0x81}, "3.0");
}

// sem: one rounding, and its rule "double -> float8e8m0 ... one rounding of the
// exact value" (the reference rounds to float32 first).
TEST(E8M0Encode, FromDoubleOneRounding) {
  // 1 + 2^-40: up -> 2 (0x80); via float32 it would be 1.0 -> 0x7F.
  ExpectE8Row(1.0 + std::ldexp(1.0, -40), DT::kDouble, {0x80, 0x80, 0x7F, 0x7F, 0x7F, 0x7F},
              "1+2^-40");
  // 1.5*(1 - 2^-40) < 1.5: nearest -> 1 (0x7F); via float32 it is 1.5 -> 0x80.
  ExpectE8Row(1.5 - 1.5 * std::ldexp(1.0, -40), DT::kDouble, {0x80, 0x80, 0x7F, 0x7F, 0x7F, 0x7F},
              "1.5-eps");
  // 2^-127 * (1 + 2^-40): just above MIN: up -> 2^-126; float32 would round it to 2^-127.
  ExpectE8Row(std::ldexp(1.0 + std::ldexp(1.0, -40), -127), DT::kDouble,
              {0x01, 0x01, 0x00, 0x00, 0x00, 0x00}, "2^-127+eps");
  // 2^-127 * (1 - 2^-40) in [2^-128, 2^-127): up and nearest -> 2^-127; down -> 2^-128,
  // below the range [A].
  ExpectE8Row(std::ldexp(1.0 - std::ldexp(1.0, -40), -127), DT::kDouble,
              {0x00, 0x00, 0x00, 0xFF, 0x00, 0x00}, "2^-127-eps");
  // [A]: 2^-130 is a power of two below 2^-127 in every mode.
  ExpectE8Row(std::ldexp(1.0, -130), DT::kDouble, {0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF}, "2^-130");
  // 2^127 * (1 + 2^-40): up -> 2^128 [A]; float32 would round it to 2^127 -> 0xFE.
  ExpectE8Row(std::ldexp(1.0 + std::ldexp(1.0, -40), 127), DT::kDouble,
              {0xFE, 0xFF, 0xFE, 0xFE, 0xFE, 0xFE}, "2^127+eps");
  // [A]/[B]: x > 2^127 far beyond float32.
  ExpectE8Row(1e300, DT::kDouble, {0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF}, "1e300");
  ExpectE8Row(std::ldexp(1.0, 127), DT::kDouble, {0xFE, 0xFE, 0xFE, 0xFE, 0xFE, 0xFE}, "2^127");
}

// Integer sources: the exact value, rounded once (sem: one rounding).
TEST(E8M0Encode, FromIntegers) {
  // 2^62 + 1: up -> 2^63 = 127 + 63 = 0xBE (through float32, 2^62 -> 0xBD).
  ExpectE8Row<int64_t>((int64_t{1} << 62) + 1, DT::kInt64, {0xBE, 0xBE, 0xBD, 0xBD, 0xBD, 0xBD},
                       "2^62+1");
  // 2^64 - 1: up -> 2^64 (0xBF), down -> 2^63 (0xBE), nearest (>= 1.5*2^63) -> 0xBF.
  ExpectE8Row<uint64_t>(~uint64_t{0}, DT::kUint64, {0xBF, 0xBF, 0xBE, 0xBE, 0xBF, 0xBF}, "2^64-1");
  ExpectE8Row<int32_t>(-8, DT::kInt32, {0x82, 0x82, 0x82, 0x82, 0x82, 0x82}, "-8");
  ExpectE8Row<int8_t>(3, DT::kInt8, {0x81, 0x81, 0x80, 0x80, 0x81, 0x81}, "3");
  ExpectE8Row<int64_t>(0, DT::kInt64, {0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF}, "0 [A]");
}

// ---------------------------------------------------------------------------------------
// FLOAT4E2M1
// ---------------------------------------------------------------------------------------

// ref: float4e2m1 encoding, RNE ladder, saturation and the NaN quirk (sem: NaN -> 0x8 when the sign
// bit is 0, 0x0 when it is 1); `saturate` is ignored.
TEST(Float4Encode, LadderAndSpecials) {
  struct Row {
    const char* what;
    uint32_t f32;
    uint8_t code;
  };
  const Row rows[] = {
      {"+0", 0x00000000, 0x0},
      {"-0", 0x80000000, 0x8},
      {"0.25 (tie -> 0)", 0x3E800000, 0x0},
      {"next above 0.25", 0x3E800001, 0x1},
      {"0.5", 0x3F000000, 0x1},
      {"next below 0.75", 0x3F3FFFFF, 0x1},
      {"0.75 (tie -> 1.0)", 0x3F400000, 0x2},
      {"1.25 (tie -> 1.0)", 0x3FA00000, 0x2},
      {"next above 1.25", 0x3FA00001, 0x3},
      {"1.5", 0x3FC00000, 0x3},
      {"next below 1.75", 0x3FDFFFFF, 0x3},
      {"1.75 (tie -> 2.0)", 0x3FE00000, 0x4},
      {"2.5 (tie -> 2.0)", 0x40200000, 0x4},
      {"next above 2.5", 0x40200001, 0x5},
      {"3.0", 0x40400000, 0x5},
      {"next below 3.5", 0x405FFFFF, 0x5},
      {"3.5 (tie -> 4.0)", 0x40600000, 0x6},
      {"5.0 (tie -> 4.0)", 0x40A00000, 0x6},
      {"next above 5.0", 0x40A00001, 0x7},
      {"6.0", 0x40C00000, 0x7},
      {"1e30", 0x7149F2CA, 0x7},
      {"+Inf", 0x7F800000, 0x7},
      {"-Inf", 0xFF800000, 0xF},
      {"-5.0", 0xC0A00000, 0xE},
      {"-(next above 5.0)", 0xC0A00001, 0xF},
      {"-0.25", 0xBE800000, 0x8},
      {"-1e-30", 0x8DA24260, 0x8},
      {"+NaN", 0x7FC00000, 0x8},
      {"-NaN", 0xFFC00000, 0x0},
      {"+sNaN", 0x7F800001, 0x8},
      {"-sNaN", 0xFF800001, 0x0},
  };
  for (const Row& r : rows) {
    for (bool sat : {true, false}) {
      EXPECT_EQ(Hex(One<uint8_t>(r.f32, DT::kFloat, DT::kFloat4E2M1, Opt(sat))), Hex(r.code))
          << r.what << " saturate=" << sat;
    }
  }
}

// ref: float4e2m1 conformance data, packed (the last high nibble is padding).
TEST(Float4Encode, Conformance) {
  const std::vector<uint32_t> x = {Bits(0.48f), Bits(0.25f), Bits(1.05f), Bits(-3.5f), Bits(-8.0f),
                                   Bits(9.0f),  Bits(1e6f),  Bits(1e-7f), 0x7FC00000,  0x7F800000,
                                   0x7F800000,  0xFF800000,  Bits(-4.0f), Bits(0.01f), 0x80000000};
  EXPECT_EQ(HexBytes(CastRaw(Raw(x), DT::kFloat, DT::kFloat4E2M1, 15)), "01 e2 7f 07 78 f7 0e 08");
  // Decoded back: 0.5, 0, 1, -4, -6, 6, 6, 0, -0.0, 6, 6, -6, -4, 0, -0.0.
  const std::vector<float> back = {0.5f,  0.0f, 1.0f, -4.0f, -6.0f, 6.0f, 6.0f, 0.0f,
                                   -0.0f, 6.0f, 6.0f, -6.0f, -4.0f, 0.0f, -0.0f};
  EXPECT_EQ(HexBytes(CastRaw({0x01, 0xE2, 0x7F, 0x07, 0x78, 0xF7, 0x0E, 0x08}, DT::kFloat4E2M1,
                             DT::kFloat, 15)),
            HexBytes(Raw(back)));
}

// ref: float4e2m1 codes: 0-7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6; 8-15 their negatives (0x8 = -0.0).
TEST(Float4Decode, AllCodes) {
  const Bytes packed = {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE};
  const std::vector<uint32_t> f32 = {0x00000000, 0x3F000000, 0x3F800000, 0x3FC00000,
                                     0x40000000, 0x40400000, 0x40800000, 0x40C00000,
                                     0x80000000, 0xBF000000, 0xBF800000, 0xBFC00000,
                                     0xC0000000, 0xC0400000, 0xC0800000, 0xC0C00000};
  const std::vector<uint16_t> f16 = {0x0000, 0x3800, 0x3C00, 0x3E00, 0x4000, 0x4200,
                                     0x4400, 0x4600, 0x8000, 0xB800, 0xBC00, 0xBE00,
                                     0xC000, 0xC200, 0xC400, 0xC600};
  EXPECT_EQ(HexBytes(CastRaw(packed, DT::kFloat4E2M1, DT::kFloat, 16)), HexBytes(Raw(f32)));
  EXPECT_EQ(HexBytes(CastRaw(packed, DT::kFloat4E2M1, DT::kFloat16, 16)), HexBytes(Raw(f16)));
  // Round trip through float32 is the identity (every code is exact, 0x8 is -0.0).
  EXPECT_EQ(HexBytes(CastRaw(Raw(f32), DT::kFloat, DT::kFloat4E2M1, 16)), HexBytes(packed));
}

TEST(Float4Encode, OtherSources) {
  // sem: one rounding: double rounds once; via float32 0.25+2^-40 would be 0.25 -> 0x0.
  EXPECT_EQ(Hex(One<uint8_t>(0.25 + std::ldexp(1.0, -40), DT::kDouble, DT::kFloat4E2M1)), Hex(0x1));
  EXPECT_EQ(Hex(One<uint8_t>(5.0 + std::ldexp(1.0, -40), DT::kDouble, DT::kFloat4E2M1)), Hex(0x7));
  EXPECT_EQ(Hex(One<uint8_t>(0.75 - std::ldexp(1.0, -40), DT::kDouble, DT::kFloat4E2M1)), Hex(0x1));
  EXPECT_EQ(Hex(One<uint8_t>(F64(0xFFF8000000000000ull), DT::kDouble, DT::kFloat4E2M1)),
            Hex(0x0));  // -NaN quirk
  EXPECT_EQ(Hex(One<uint8_t>(uint16_t{0x3D00}, DT::kFloat16, DT::kFloat4E2M1)),
            Hex(0x2));  // 1.25 tie -> 1.0
  EXPECT_EQ(Hex(One<uint8_t>(uint16_t{0x7E00}, DT::kFloat16, DT::kFloat4E2M1)), Hex(0x8));
  EXPECT_EQ(Hex(One<uint8_t>(int8_t{5}, DT::kInt8, DT::kFloat4E2M1)), Hex(0x6));  // tie
  EXPECT_EQ(Hex(One<uint8_t>(int8_t{-7}, DT::kInt8, DT::kFloat4E2M1)), Hex(0xF));
  EXPECT_EQ(Hex(One<uint8_t>(~uint64_t{0}, DT::kUint64, DT::kFloat4E2M1)), Hex(0x7));
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x80}, DT::kFloat8E8M0, DT::kFloat4E2M1)), Hex(0x4));
  // e8m0 NaN decodes to +NaN (ref: e8m0 decoding), which float4 encodes as 0x8 (sem).
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0xFF}, DT::kFloat8E8M0, DT::kFloat4E2M1)), Hex(0x8));
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x00}, DT::kFloat8E8M0, DT::kFloat4E2M1)), Hex(0x0));
}

// ---------------------------------------------------------------------------------------
// INT4 / UINT4 / INT2 / UINT2 (sem, ref: 4-/2-bit integers, ONNX packing of 4-/2-bit types)
// ---------------------------------------------------------------------------------------

std::vector<float> Arange(int lo, int hi) {
  std::vector<float> v;
  for (int i = lo; i <= hi; ++i) v.push_back(static_cast<float>(i));
  return v;
}

// ref: 4-/2-bit integers, conformance data: -9..15 as INT4 and UINT4 -> the same wrapped nibbles.
TEST(SubByte, ConformancePacking) {
  const std::string want4 = "87 a9 cb ed 0f 21 43 65 87 a9 cb ed 0f";
  const std::vector<float> f = Arange(-9, 15);
  std::vector<uint16_t> h;
  std::vector<double> d;
  std::vector<int8_t> i8;
  std::vector<int64_t> i64;
  for (float x : f) {
    d.push_back(x);
    i8.push_back(static_cast<int8_t>(x));
    i64.push_back(static_cast<int64_t>(x));
  }
  // float16 of -9..15 (exact): built from the float32 bits (exponent rebias 127 -> 15).
  for (float x : f) {
    const uint32_t b = Bits(x);
    h.push_back(x == 0 ? 0
                       : static_cast<uint16_t>(((b >> 16) & 0x8000) |
                                               ((((b >> 23) & 0xFF) - 112) << 10) |
                                               ((b >> 13) & 0x3FF)));
  }
  for (DT t : {DT::kInt4, DT::kUint4}) {
    EXPECT_EQ(HexBytes(CastRaw(Raw(f), DT::kFloat, t, 25)), want4) << DataTypeName(t);
    EXPECT_EQ(HexBytes(CastRaw(Raw(h), DT::kFloat16, t, 25)), want4) << DataTypeName(t);
    EXPECT_EQ(HexBytes(CastRaw(Raw(d), DT::kDouble, t, 25)), want4) << DataTypeName(t);
    EXPECT_EQ(HexBytes(CastRaw(Raw(i8), DT::kInt8, t, 25)), want4) << DataTypeName(t);
    EXPECT_EQ(HexBytes(CastRaw(Raw(i64), DT::kInt64, t, 25)), want4) << DataTypeName(t);
  }
  // INT2/UINT2: [-3..3] -> raw 39 39 (ref: ONNX packing of 4-/2-bit types, 4-/2-bit integers).
  const std::vector<float> f2 = Arange(-3, 3);
  for (DT t : {DT::kInt2, DT::kUint2}) {
    EXPECT_EQ(HexBytes(CastRaw(Raw(f2), DT::kFloat, t, 7)), "39 39") << DataTypeName(t);
  }
}

TEST(SubByte, ConformanceUnpacking) {
  const Bytes p4 = {0x87, 0xA9, 0xCB, 0xED, 0x0F, 0x21, 0x43, 0x65, 0x87, 0xA9, 0xCB, 0xED, 0x0F};
  // INT4 -> INT8: 07 f8 .. ff 00 .. 07 f8 .. ff (sign extension).
  EXPECT_EQ(HexBytes(CastRaw(p4, DT::kInt4, DT::kInt8, 25)),
            "07 f8 f9 fa fb fc fd fe ff 00 01 02 03 04 05 06 07 f8 f9 fa fb fc fd fe ff");
  // UINT4 -> UINT8: 07 08 .. 0f 00 .. 0f.
  EXPECT_EQ(HexBytes(CastRaw(p4, DT::kUint4, DT::kUint8, 25)),
            "07 08 09 0a 0b 0c 0d 0e 0f 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f");
  // INT4 -> FLOAT.
  std::vector<float> want;
  want.push_back(7.0f);
  for (int i = -8; i <= 7; ++i) want.push_back(static_cast<float>(i));
  for (int i = -8; i <= -1; ++i) want.push_back(static_cast<float>(i));
  EXPECT_EQ(HexBytes(CastRaw(p4, DT::kInt4, DT::kFloat, 25)), HexBytes(Raw(want)));
  // INT2 -> FLOAT: [1,-2,-1,0,1,-2,-1]; UINT2 -> UINT8: 01 02 03 00 01 02 03.
  const std::vector<float> w2 = {1, -2, -1, 0, 1, -2, -1};
  EXPECT_EQ(HexBytes(CastRaw({0x39, 0x39}, DT::kInt2, DT::kFloat, 7)), HexBytes(Raw(w2)));
  EXPECT_EQ(HexBytes(CastRaw({0x39, 0x39}, DT::kUint2, DT::kUint8, 7)), "01 02 03 00 01 02 03");
}

// ref: ONNX packing of 4-/2-bit types / sem: odd tails are padded with zero bits (the output buffer
// starts as 0xA5, so stale bits would show).
TEST(SubByte, OddCountsZeroPadding) {
  struct Row {
    DT type;
    std::vector<int8_t> values;
    const char* want;
  };
  const Row rows[] = {
      {DT::kInt4, {1}, "01"},
      {DT::kInt4, {-1}, "0f"},
      {DT::kInt4, {1, 2, 3}, "21 03"},
      {DT::kUint4, {15, 14, 13, 12, 11}, "ef cd 0b"},
      {DT::kInt2, {1}, "01"},
      {DT::kInt2, {-1, 0}, "03"},
      {DT::kInt2, {1, 1, 1, 1, 1}, "55 01"},
      {DT::kUint2, {3, 3, 3, 3, 3, 3}, "ff 0f"},
      {DT::kUint2, {1, 2, 3}, "39"},
      {DT::kInt2, {1, -2, -1, 0, 1, -2, -1, 0, 1}, "39 39 01"},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(HexBytes(CastRaw(Raw(r.values), DT::kInt8, r.type, r.values.size())), r.want)
        << DataTypeName(r.type) << " count " << r.values.size();
  }
  // FLOAT4E2M1 as well: 1, 2, 3 -> codes 2, 4, 5.
  EXPECT_EQ(HexBytes(CastRaw(Raw(std::vector<float>{1, 2, 3}), DT::kFloat, DT::kFloat4E2M1, 3)),
            "42 05");
  EXPECT_EQ(HexBytes(CastRaw(Raw(std::vector<float>{6}), DT::kFloat, DT::kFloat4E2M1, 1)), "07");
}

// ref: 4-/2-bit integers, and sem: NaN, +-Inf and |x| >= 2^31 -> 0; else truncate toward zero and
// keep the low N bits. `saturate` is ignored.
TEST(SubByte, FromFloatTruncateAndWrap) {
  struct Row {
    DT type;
    double x;
    uint8_t code;
  };
  const double inf = HUGE_VAL;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Row rows[] = {
      {DT::kInt4, 2.7, 0x2},
      {DT::kInt4, -1.5, 0xF},
      {DT::kInt4, -9, 0x7},
      {DT::kInt4, 8, 0x8},
      {DT::kInt4, 15, 0xF},
      {DT::kInt4, 1e10, 0x0},
      {DT::kInt4, nan, 0x0},
      {DT::kInt4, inf, 0x0},
      {DT::kInt4, -inf, 0x0},
      {DT::kInt4, -0.0, 0x0},
      {DT::kInt4, 0.9, 0x0},
      {DT::kInt4, -0.9, 0x0},
      {DT::kInt4, 2147483648.0, 0x0},  // 2^31
      {DT::kUint4, -1, 0xF},
      {DT::kUint4, 16, 0x0},
      {DT::kUint4, 2.7, 0x2},
      {DT::kUint4, 17.5, 0x1},
      {DT::kInt2, -3, 0x1},
      {DT::kInt2, 2, 0x2},
      {DT::kInt2, 3, 0x3},
      {DT::kInt2, 1.9, 0x1},
      {DT::kUint2, -1, 0x3},
      {DT::kUint2, 4, 0x0},
      {DT::kUint2, 5.5, 0x1},
  };
  for (const Row& r : rows) {
    for (bool sat : {true, false}) {
      EXPECT_EQ(Hex(One<uint8_t>(static_cast<float>(r.x), DT::kFloat, r.type, Opt(sat))),
                Hex(r.code))
          << "FLOAT " << r.x << " -> " << DataTypeName(r.type);
      EXPECT_EQ(Hex(One<uint8_t>(r.x, DT::kDouble, r.type, Opt(sat))), Hex(r.code))
          << "DOUBLE " << r.x << " -> " << DataTypeName(r.type);
    }
  }
  // Directly from the double's precision: 2.9999999999 -> 2 (ref: 4-/2-bit integers; float32 would
  // say 3).
  EXPECT_EQ(Hex(One<uint8_t>(2.9999999999, DT::kDouble, DT::kInt4)), Hex(0x2));
  EXPECT_EQ(Hex(One<uint8_t>(2147483647.0, DT::kDouble, DT::kInt4)), Hex(0xF));
  EXPECT_EQ(Hex(One<uint8_t>(-2147483649.0, DT::kDouble, DT::kInt4)), Hex(0x0));
  // 2^32 + 15 >= 2^31 -> 0, not the wrapped 15.
  EXPECT_EQ(Hex(One<uint8_t>(4294967311.0, DT::kDouble, DT::kUint4)), Hex(0x0));
  // Other float sources.
  EXPECT_EQ(Hex(One<uint8_t>(uint16_t{0x4B80}, DT::kFloat16, DT::kInt4)), Hex(0xF));    // 15
  EXPECT_EQ(Hex(One<uint8_t>(uint16_t{0xC880}, DT::kFloat16, DT::kInt4)), Hex(0x7));    // -9
  EXPECT_EQ(Hex(One<uint8_t>(uint16_t{0x7C00}, DT::kFloat16, DT::kInt4)), Hex(0x0));    // Inf
  EXPECT_EQ(Hex(One<uint8_t>(uint16_t{0x4170}, DT::kBfloat16, DT::kInt4)), Hex(0xF));   // 15
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x51}, DT::kFloat8E4M3FN, DT::kInt4)), Hex(0x9));  // 9
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7E}, DT::kFloat8E4M3FN, DT::kInt4)), Hex(0x0));  // 448
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7F}, DT::kFloat8E4M3FN, DT::kInt4)), Hex(0x0));  // NaN
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7C}, DT::kFloat8E5M2, DT::kUint2)), Hex(0x0));   // Inf
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x82}, DT::kFloat8E8M0, DT::kInt4)), Hex(0x8));    // 8
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0xFF}, DT::kFloat8E8M0, DT::kInt4)), Hex(0x0));    // NaN
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0xFE}, DT::kFloat8E8M0, DT::kInt4)), Hex(0x0));    // 2^127
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7}, DT::kFloat4E2M1, DT::kInt4)), Hex(0x6));     // 6
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7}, DT::kFloat4E2M1, DT::kInt2)), Hex(0x2));     // 6 -> -2
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0xF}, DT::kFloat4E2M1, DT::kInt4)), Hex(0xA));     // -6
}

// sem: from integers keep the low N bits; sub-byte -> sub-byte wraps (ref: 4-/2-bit integers).
TEST(SubByte, FromIntegersAndEachOther) {
  EXPECT_EQ(Hex(OneBits(static_cast<uint32_t>(-9), DT::kInt32, DT::kInt4)), Hex(0x7));
  EXPECT_EQ(Hex(OneBits(0x123456789ABCDEF7ull, DT::kInt64, DT::kInt4)), Hex(0x7));
  EXPECT_EQ(Hex(OneBits(~uint64_t{0}, DT::kUint64, DT::kUint4)), Hex(0xF));
  EXPECT_EQ(Hex(OneBits(0x8000, DT::kInt16, DT::kInt4)), Hex(0x0));
  EXPECT_EQ(Hex(OneBits(0xFF, DT::kUint8, DT::kInt2)), Hex(0x3));
  EXPECT_EQ(Hex(OneBits(1, DT::kBool, DT::kInt4)), Hex(0x1));
  EXPECT_EQ(Hex(OneBits(1, DT::kBool, DT::kUint2)), Hex(0x1));
  // INT4 [-3, 7, -8, 2] (packed 7d 28) -> INT2 low 2 bits [1, 3, 0, 2] = 0x8d.
  EXPECT_EQ(HexBytes(CastRaw({0x7D, 0x28}, DT::kInt4, DT::kInt2, 4)), "8d");
  EXPECT_EQ(HexBytes(CastRaw({0x7D, 0x28}, DT::kInt4, DT::kUint4, 4)), "7d 28");
  EXPECT_EQ(HexBytes(CastRaw({0x7D, 0x28}, DT::kUint4, DT::kInt4, 4)), "7d 28");
  // INT2 [1,-2,-1,0] (0x39) -> INT4 [1,-2,-1,0] = e1 0f; -> UINT4 the same nibbles.
  EXPECT_EQ(HexBytes(CastRaw({0x39}, DT::kInt2, DT::kInt4, 4)), "e1 0f");
  EXPECT_EQ(HexBytes(CastRaw({0x39}, DT::kInt2, DT::kUint4, 4)), "e1 0f");
  // UINT2 [1,2,3,0] -> UINT4 21 03.
  EXPECT_EQ(HexBytes(CastRaw({0x39}, DT::kUint2, DT::kUint4, 4)), "21 03");
  // UINT4 [15, 6] (0x6f) -> INT2 [3, 2] = 0x0b.
  EXPECT_EQ(HexBytes(CastRaw({0x6F}, DT::kUint4, DT::kInt2, 2)), "0b");
  // Widening sign-extends INT4/INT2 and zero-extends UINT4/UINT2.
  EXPECT_EQ(Hex(OneBits(0x8, DT::kInt4, DT::kInt64)), Hex(0xFFFFFFFFFFFFFFF8ull));
  EXPECT_EQ(Hex(OneBits(0x8, DT::kUint4, DT::kInt64)), Hex(0x8));
  EXPECT_EQ(Hex(OneBits(0x2, DT::kInt2, DT::kInt16)), Hex(0xFFFE));
  EXPECT_EQ(Hex(OneBits(0x2, DT::kUint2, DT::kInt16)), Hex(0x2));
  EXPECT_EQ(Hex(OneBits(0xF, DT::kInt4, DT::kUint32)), Hex(0xFFFFFFFF));  // -1 wraps
}

// ---------------------------------------------------------------------------------------
// bfloat16 and float16 (sem, ref: float to float, bfloat16)
// ---------------------------------------------------------------------------------------

TEST(Bfloat16, FromFloat32) {
  struct Row {
    const char* what;
    uint32_t f32;
    uint16_t bf16;
  };
  const Row rows[] = {
      {"1+2^-8 (tie -> even 0x3F80)", 0x3F808000, 0x3F80},
      {"1+3*2^-8 (tie -> even 0x3F82)", 0x3F818000, 0x3F82},
      {"just above the tie", 0x3F808001, 0x3F81},
      {"FLT_MAX -> Inf", 0x7F7FFFFF, 0x7F80},
      {"below the top tie", 0x7F7F7FFF, 0x7F7F},
      {"top tie -> Inf", 0x7F7F8000, 0x7F80},
      {"subnormal tie -> 0", 0x00008000, 0x0000},
      {"subnormal tie -> 2", 0x00018000, 0x0002},
      {"negative subnormal", 0x80008001, 0x8001},
      {"-0", 0x80000000, 0x8000},
      {"+Inf", 0x7F800000, 0x7F80},
      {"-Inf", 0xFF800000, 0xFF80},
      // sem: NaN -> 0x7FC0 / 0xFFC0, sign kept, payload dropped.
      {"qNaN", 0x7FC00000, 0x7FC0},
      {"sNaN", 0x7F800001, 0x7FC0},
      {"NaN all ones", 0x7FFFFFFF, 0x7FC0},
      {"-sNaN", 0xFF800001, 0xFFC0},
      {"-qNaN payload", 0xFFC00001, 0xFFC0},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(One<uint16_t>(r.f32, DT::kFloat, DT::kBfloat16)), Hex(r.bf16)) << r.what;
  }
}

// ref: bfloat16 conformance data, FLOAT -> BFLOAT16 (RNE), and the ref: float to float FLOAT/DOUBLE
// -> FLOAT16 conformance on the same inputs.
const std::vector<uint32_t> kPlainInputs = {0x3EF535B8, 0x3EF5EEB0, 0x3EFFD6B2, 0x3F51B0E5,
                                            0x3EF0CCCC, 0x3F51040C, 0x3E57EED1, 0x3F391039,
                                            0x7FC00000, 0x7F800000, 0x7F800000, 0xFF800000};

TEST(Bfloat16, Conformance) {
  EXPECT_EQ(HexBytes(CastRaw(Raw(kPlainInputs), DT::kFloat, DT::kBfloat16, 12)),
            "f5 3e f6 3e 00 3f 52 3f f1 3e 51 3f 58 3e 39 3f c0 7f 80 7f 80 7f 80 ff");
}

TEST(Float16, Conformance) {
  const std::string want =
      "aa 37 af 37 ff 37 8e 3a 86 37 88 3a bf 32 c9 39 00 7e 00 7c 00 7c 00 fc";
  EXPECT_EQ(HexBytes(CastRaw(Raw(kPlainInputs), DT::kFloat, DT::kFloat16, 12)), want);
  std::vector<double> d;
  for (uint32_t b : kPlainInputs) d.push_back(static_cast<double>(F32(b)));
  EXPECT_EQ(HexBytes(CastRaw(Raw(d), DT::kDouble, DT::kFloat16, 12)), want);
}

TEST(Bfloat16, DecodeAndOtherSources) {
  // ref: bfloat16: decoding is bits << 16 (exact; subnormals kept).
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x3F81}, DT::kBfloat16, DT::kFloat)), Hex(0x3F810000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x0001}, DT::kBfloat16, DT::kFloat)), Hex(0x00010000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0xFFC0}, DT::kBfloat16, DT::kFloat)), Hex(0xFFC00000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x7FC1}, DT::kBfloat16, DT::kFloat)), Hex(0x7FC10000));
  // bfloat16 -> float16: one RNE rounding of the exact value.
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x3F81}, DT::kBfloat16, DT::kFloat16)), Hex(0x3C08));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x4780}, DT::kBfloat16, DT::kFloat16)), Hex(0x7C00));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x477F}, DT::kBfloat16, DT::kFloat16)), Hex(0x7BF8));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x3380}, DT::kBfloat16, DT::kFloat16)), Hex(0x0001));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x3300}, DT::kBfloat16, DT::kFloat16)), Hex(0x0000));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x7FC0}, DT::kBfloat16, DT::kFloat16)), Hex(0x7E00));
  // float16 -> bfloat16 (RNE to 8 significant bits; NaN -> 0x7FC0/0xFFC0).
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x3C01}, DT::kFloat16, DT::kBfloat16)), Hex(0x3F80));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x3C10}, DT::kFloat16, DT::kBfloat16)), Hex(0x3F82));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x3C04}, DT::kFloat16, DT::kBfloat16)), Hex(0x3F80));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x3C0C}, DT::kFloat16, DT::kBfloat16)), Hex(0x3F82));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x7E00}, DT::kFloat16, DT::kBfloat16)), Hex(0x7FC0));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0xFD00}, DT::kFloat16, DT::kBfloat16)), Hex(0xFFC0));
  // Small integers.
  EXPECT_EQ(Hex(One<uint16_t>(uint8_t{255}, DT::kUint8, DT::kBfloat16)), Hex(0x437F));
  EXPECT_EQ(Hex(One<uint16_t>(int16_t{257}, DT::kInt16, DT::kBfloat16)), Hex(0x4380));  // tie
  EXPECT_EQ(Hex(One<uint16_t>(int16_t{259}, DT::kInt16, DT::kBfloat16)), Hex(0x4382));  // tie
}

// Signalling NaNs widen exactly too: decoding is "bits << 16" (ref: bfloat16, ml_dtypes) and
// "widening is exact" (sem); only the narrowing conversions (-> float16, f64 -> f32)
// are specified to set the quiet bit.
TEST(Bfloat16, SignallingNaNWidensToFloat32Exactly) {
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x7F81}, DT::kBfloat16, DT::kFloat)), Hex(0x7F810000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0xFF81}, DT::kBfloat16, DT::kFloat)), Hex(0xFF810000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x7FBF}, DT::kBfloat16, DT::kFloat)), Hex(0x7FBF0000));
}

TEST(Float16, Table) {
  struct Row {
    const char* what;
    uint32_t f32;
    uint16_t f16;
  };
  const Row rows[] = {
      {"65504", 0x477FE000, 0x7BFF},
      {"65519.99", 0x477FEFFD, 0x7BFF},
      {"65520 -> Inf", 0x477FF000, 0x7C00},
      {"-65520 -> -Inf", 0xC77FF000, 0xFC00},
      {"2^-24", 0x33800000, 0x0001},
      {"2^-25 (tie -> 0)", 0x33000000, 0x0000},
      {"next above 2^-25", 0x33000001, 0x0001},
      {"3*2^-25 (tie -> 2)", 0x33C00000, 0x0002},
      {"1+2^-11 (tie -> even)", 0x3F801000, 0x3C00},
      {"1+3*2^-11 (tie -> even)", 0x3F803000, 0x3C02},
      {"1e-10", 0x2EDBE6FF, 0x0000},
      {"-1e-10", 0xAEDBE6FF, 0x8000},
      {"-0", 0x80000000, 0x8000},
      {"+Inf", 0x7F800000, 0x7C00},
      // sem: NaN keeps the sign, sets the quiet bit, keeps the top payload bits.
      {"qNaN", 0x7FC00000, 0x7E00},
      {"-qNaN", 0xFFC00000, 0xFE00},
      {"qNaN payload", 0x7FC02000, 0x7E01},
      {"sNaN comes out quiet", 0x7F800001, 0x7E00},
      {"sNaN payload", 0x7FA00000, 0x7F00},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(One<uint16_t>(r.f32, DT::kFloat, DT::kFloat16)), Hex(r.f16)) << r.what;
  }
  // Widening is exact (ref: float to float).
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x0001}, DT::kFloat16, DT::kFloat)), Hex(0x33800000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x7BFF}, DT::kFloat16, DT::kFloat)), Hex(0x477FE000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0xFC00}, DT::kFloat16, DT::kFloat)), Hex(0xFF800000));
  EXPECT_EQ(Hex(One<uint32_t>(uint16_t{0x7E01}, DT::kFloat16, DT::kFloat)), Hex(0x7FC02000));
  EXPECT_EQ(Hex(One<uint64_t>(uint16_t{0x3C01}, DT::kFloat16, DT::kDouble)),
            Hex(0x3FF0040000000000ull));
}

// ref: float to float: double -> float16 rounds once.
TEST(Float16, FromDoubleOneRounding) {
  struct Row {
    const char* what;
    double x;
    uint16_t f16;
  };
  const Row rows[] = {
      {"1+2^-11+2^-40 (float32 route: 0x3C00)", 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
       0x3C01},
      {"65520 -> Inf", 65520.0, 0x7C00},
      {"65519.99 -> 65504", 65519.99, 0x7BFF},
      {"65519.999999", 65519.999999, 0x7BFF},
      {"2^-25+2^-60 (float32 route: 0)", std::ldexp(1.0, -25) + std::ldexp(1.0, -60), 0x0001},
      {"1e300", 1e300, 0x7C00},
      {"-NaN payload", F64(0xFFF8040000000000ull), 0xFE01},
      {"NaN", F64(0x7FF8000000000000ull), 0x7E00},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(One<uint16_t>(r.x, DT::kDouble, DT::kFloat16)), Hex(r.f16)) << r.what;
  }
}

TEST(Float32, FromAndToDouble) {
  struct Row {
    const char* what;
    double x;
    uint32_t f32;
  };
  const Row rows[] = {
      {"1+2^-24 (tie)", 1.0 + std::ldexp(1.0, -24), 0x3F800000},
      {"1+2^-24+2^-50", 1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -50), 0x3F800001},
      {"1+3*2^-24 (tie)", 1.0 + 3 * std::ldexp(1.0, -24), 0x3F800002},
      {"2^128-2^103 (tie -> Inf)", std::ldexp(1.0, 128) - std::ldexp(1.0, 103), 0x7F800000},
      // (double's ulp at 2^127 is 2^75, so subtract 2^76.)
      {"just below that", std::ldexp(1.0, 128) - std::ldexp(1.0, 103) - std::ldexp(1.0, 76),
       0x7F7FFFFF},
      {"2^-150 (tie -> 0)", std::ldexp(1.0, -150), 0x00000000},
      {"2^-150*(1+2^-30)", std::ldexp(1.0 + std::ldexp(1.0, -30), -150), 0x00000001},
      {"3*2^-150 (tie -> 2)", 3 * std::ldexp(1.0, -150), 0x00000002},
      {"-2^-150", -std::ldexp(1.0, -150), 0x80000000},
      {"1e300", 1e300, 0x7F800000},
      // sem: f64 -> f32 NaN like cvtsd2ss: sign, quiet bit, top payload bits.
      {"NaN payload", F64(0x7FF8000020000000ull), 0x7FC00001},
      {"-sNaN", F64(0xFFF0000000000001ull), 0xFFC00000},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(One<uint32_t>(r.x, DT::kDouble, DT::kFloat)), Hex(r.f32)) << r.what;
  }
  EXPECT_EQ(Hex(One<uint64_t>(uint32_t{0x7FC00001}, DT::kFloat, DT::kDouble)),
            Hex(0x7FF8000020000000ull));
  EXPECT_EQ(Hex(One<uint64_t>(uint32_t{0x00000001}, DT::kFloat, DT::kDouble)),
            Hex(0x36A0000000000000ull));
}

// Same-type Cast is the identity, bit for bit (NaN payloads too).
TEST(SameType, Identity) {
  EXPECT_EQ(Hex(One<uint32_t>(uint32_t{0x7FA00001}, DT::kFloat, DT::kFloat)), Hex(0x7FA00001));
  EXPECT_EQ(Hex(One<uint16_t>(uint16_t{0x7C01}, DT::kFloat16, DT::kFloat16)), Hex(0x7C01));
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7D}, DT::kFloat8E5M2, DT::kFloat8E5M2, Opt(false))),
            Hex(0x7D));
  // sem "Saturating +-Inf gives +-MAX for all four types": E5M2 -> E5M2 with saturate
  // clips Inf to MAX and gives the canonical NaN, as the reference (clip, then convert).
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7C}, DT::kFloat8E5M2, DT::kFloat8E5M2)), Hex(0x7B));
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0xFC}, DT::kFloat8E5M2, DT::kFloat8E5M2)), Hex(0xFB));
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0x7D}, DT::kFloat8E5M2, DT::kFloat8E5M2)), Hex(0x7E));
  EXPECT_EQ(Hex(One<uint8_t>(uint8_t{0xFF}, DT::kFloat8E5M2, DT::kFloat8E5M2)), Hex(0xFE));
  EXPECT_EQ(HexBytes(CastRaw({0x21, 0x03}, DT::kInt4, DT::kInt4, 3)), "21 03");
  EXPECT_EQ(HexBytes(CastRaw({0x39}, DT::kUint2, DT::kUint2, 3)), "39");
}

// ---------------------------------------------------------------------------------------
// Integers (sem: deliberate difference; ref: float to int, int to float)
// ---------------------------------------------------------------------------------------

// sem: integer -> integer is two's-complement wrap (ref: int to int).
TEST(IntToInt, Wrap) {
  struct Row {
    DT from;
    uint64_t bits;
    DT to;
    uint64_t want;
  };
  const Row rows[] = {
      {DT::kInt16, 200, DT::kInt8, 0xC8},  // -56
      {DT::kInt8, 0xFF, DT::kUint64, 0xFFFFFFFFFFFFFFFFull},
      {DT::kUint64, 0x8000000000000005ull, DT::kInt64, 0x8000000000000005ull},
      {DT::kInt32, 0x12345678, DT::kInt16, 0x5678},
      {DT::kInt32, 0x12345678, DT::kUint8, 0x78},
      {DT::kUint32, 0xFFFFFFFF, DT::kInt32, 0xFFFFFFFF},
      {DT::kInt64, 0xFFFFFFFFFFFFFFFFull, DT::kUint32, 0xFFFFFFFF},
      {DT::kUint8, 0xFF, DT::kInt8, 0xFF},
      {DT::kInt8, 0x80, DT::kUint16, 0xFF80},
      {DT::kInt8, 0x80, DT::kInt64, 0xFFFFFFFFFFFFFF80ull},
      {DT::kUint8, 0x80, DT::kInt64, 0x80},
      {DT::kUint16, 0x8000, DT::kInt32, 0x00008000},
      {DT::kInt16, 0x8000, DT::kInt32, 0xFFFF8000},
      {DT::kInt16, 0xFFFF, DT::kUint8, 0xFF},
      {DT::kInt64, 0x0123456789ABCDEFull, DT::kUint32, 0x89ABCDEF},
      {DT::kInt64, 0x0123456789ABCDEFull, DT::kInt16, 0xCDEF},
      {DT::kUint64, 0xFFFFFFFFFFFFFFFFull, DT::kInt8, 0xFF},
      {DT::kInt32, 256, DT::kUint8, 0x00},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(OneBits(r.bits, r.from, r.to)), Hex(r.want))
        << DataTypeName(r.from) << " " << Hex(r.bits) << " -> " << DataTypeName(r.to);
  }
  // uint64 2^63+5 -> int64 -9223372036854775803 (ref: int to int), as a value.
  EXPECT_EQ(One<int64_t>(uint64_t{0x8000000000000005ull}, DT::kUint64, DT::kInt64),
            INT64_C(-9223372036854775803));
  EXPECT_EQ(One<int8_t>(int16_t{200}, DT::kInt16, DT::kInt8), -56);
}

// sem: integer -> float is one RNE rounding (ref: int to float).
TEST(IntToFloat, RoundToNearestEven) {
  EXPECT_EQ(Hex(One<uint32_t>(int64_t{16777217}, DT::kInt64, DT::kFloat)), Hex(0x4B800000));
  EXPECT_EQ(Hex(One<uint32_t>(int64_t{16777219}, DT::kInt64, DT::kFloat)), Hex(0x4B800002));
  EXPECT_EQ(Hex(One<uint32_t>(int64_t{-16777217}, DT::kInt64, DT::kFloat)), Hex(0xCB800000));
  EXPECT_EQ(Hex(One<uint32_t>(~uint64_t{0}, DT::kUint64, DT::kFloat)), Hex(0x5F800000));
  EXPECT_EQ(Hex(One<uint32_t>(INT64_MIN, DT::kInt64, DT::kFloat)), Hex(0xDF000000));
  EXPECT_EQ(Hex(One<uint32_t>(uint32_t{0xFFFFFFFF}, DT::kUint32, DT::kFloat)), Hex(0x4F800000));
  EXPECT_EQ(Hex(One<uint64_t>(~uint64_t{0}, DT::kUint64, DT::kDouble)), Hex(0x43F0000000000000ull));
  EXPECT_EQ(Hex(One<uint64_t>(int64_t{9007199254740993}, DT::kInt64, DT::kDouble)),
            Hex(0x4340000000000000ull));  // 2^53+1 -> 2^53
  EXPECT_EQ(Hex(One<uint64_t>(int64_t{9007199254740995}, DT::kInt64, DT::kDouble)),
            Hex(0x4340000000000002ull));  // 2^53+3 -> 2^53+4
  EXPECT_EQ(Hex(One<uint64_t>(int8_t{-1}, DT::kInt8, DT::kDouble)), Hex(0xBFF0000000000000ull));
  // Float16: 65519 -> 65504, 65520 -> Inf (ref: int to float).
  EXPECT_EQ(Hex(One<uint16_t>(int64_t{65519}, DT::kInt64, DT::kFloat16)), Hex(0x7BFF));
  EXPECT_EQ(Hex(One<uint16_t>(int64_t{65520}, DT::kInt64, DT::kFloat16)), Hex(0x7C00));
  EXPECT_EQ(Hex(One<uint16_t>(int64_t{-65520}, DT::kInt64, DT::kFloat16)), Hex(0xFC00));
  EXPECT_EQ(Hex(One<uint16_t>(~uint64_t{0}, DT::kUint64, DT::kFloat16)), Hex(0x7C00));
  EXPECT_EQ(Hex(One<uint16_t>(int32_t{2049}, DT::kInt32, DT::kFloat16)), Hex(0x6800));
  EXPECT_EQ(Hex(One<uint16_t>(int32_t{2051}, DT::kInt32, DT::kFloat16)), Hex(0x6802));
  EXPECT_EQ(Hex(One<uint16_t>(int16_t{-32768}, DT::kInt16, DT::kFloat16)), Hex(0xF800));
  EXPECT_EQ(Hex(One<uint16_t>(~uint64_t{0}, DT::kUint64, DT::kBfloat16)), Hex(0x5F80));
}

// sem: one rounding: int64, uint64 (and int32) -> bfloat16 round once.
// 2^24 + 2^16 + 1: bfloat16's half ulp at 2^24 is 2^16, so the value is above the tie
// -> 2^24 + 2^17 (0x4B81). Through float32 it would be 2^24 + 2^16 (the +1 is a float32
// tie that goes to even), then a bfloat16 tie -> 2^24 (0x4B80).
TEST(IntToFloat, Bfloat16OneRounding) {
  const int64_t a = (int64_t{1} << 24) + (int64_t{1} << 16) + 1;
  EXPECT_EQ(Hex(One<uint16_t>(a, DT::kInt64, DT::kBfloat16)), Hex(0x4B81));
  EXPECT_EQ(Hex(One<uint16_t>(-a, DT::kInt64, DT::kBfloat16)), Hex(0xCB81));
  EXPECT_EQ(Hex(One<uint16_t>(static_cast<int32_t>(a), DT::kInt32, DT::kBfloat16)), Hex(0x4B81));
  EXPECT_EQ(Hex(One<uint16_t>(static_cast<uint32_t>(a), DT::kUint32, DT::kBfloat16)), Hex(0x4B81));
  // 2^32 + 2^24 + 1 -> 2^32 + 2^25 (0x4F81); float32 route: 2^32 + 2^24, tie -> 0x4F80.
  EXPECT_EQ(
      Hex(One<uint16_t>((int64_t{1} << 32) + (int64_t{1} << 24) + 1, DT::kInt64, DT::kBfloat16)),
      Hex(0x4F81));
  // uint64 2^63 + 2^55 + 1 -> 2^63 + 2^56 (0x5F01); float32 route: tie -> 0x5F00.
  EXPECT_EQ(
      Hex(One<uint16_t>((uint64_t{1} << 63) + (uint64_t{1} << 55) + 1, DT::kUint64, DT::kBfloat16)),
      Hex(0x5F01));
}

// sem, deliberate difference "float -> 8/16/32/64-bit integer": NaN -> 0, truncate toward zero,
// saturate to the target's range. Independent of the saturate option.
TEST(FloatToInt, TruncateSaturate) {
  struct Row {
    double x;
    DT to;
    int64_t want;  // for uint64 targets: see the uint64 rows below
  };
  const double inf = HUGE_VAL;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Row rows[] = {
      {300.0, DT::kInt8, 127},
      {300.0, DT::kUint8, 255},
      {300.0, DT::kInt16, 300},
      {-1.5, DT::kUint8, 0},
      {-1.5, DT::kInt8, -1},
      {-1.5, DT::kInt64, -1},
      {2.5, DT::kInt32, 2},
      {-2.5, DT::kInt32, -2},
      {0.5, DT::kInt8, 0},
      {-0.5, DT::kInt8, 0},
      {0.9999, DT::kUint16, 0},
      {127.9, DT::kInt8, 127},
      {128.0, DT::kInt8, 127},
      {-128.9, DT::kInt8, -128},
      {-129.0, DT::kInt8, -128},
      {255.9, DT::kUint8, 255},
      {256.0, DT::kUint8, 255},
      {65535.0, DT::kInt16, 32767},
      {65535.0, DT::kUint16, 65535},
      {65536.0, DT::kUint16, 65535},
      {-32768.9, DT::kInt16, -32768},
      {2147483647.9, DT::kInt32, 2147483647},
      {2147483648.0, DT::kInt32, 2147483647},
      {-2147483648.9, DT::kInt32, INT32_MIN},
      {-2147483649.0, DT::kInt32, INT32_MIN},
      {4294967295.5, DT::kUint32, 4294967295},
      {4294967296.0, DT::kUint32, 4294967295},
      {-0.99, DT::kUint32, 0},
      {9223372036854775808.0, DT::kInt64, INT64_MAX},  // 2^63
      {9223372036854774784.0, DT::kInt64, INT64_C(9223372036854774784)},
      {-9223372036854775808.0, DT::kInt64, INT64_MIN},
      {-9223372036854777856.0, DT::kInt64, INT64_MIN},
      {1e30, DT::kInt64, INT64_MAX},
      {-1e30, DT::kInt64, INT64_MIN},
      {2.9999999999, DT::kInt32,
       2},  // directly from the double (as the ref does for 4-/2-bit integers)
      {inf, DT::kInt8, 127},
      {inf, DT::kUint8, 255},
      {inf, DT::kInt16, 32767},
      {inf, DT::kUint16, 65535},
      {inf, DT::kInt32, INT32_MAX},
      {inf, DT::kUint32, UINT32_MAX},
      {inf, DT::kInt64, INT64_MAX},
      {-inf, DT::kInt8, -128},
      {-inf, DT::kUint8, 0},
      {-inf, DT::kInt16, -32768},
      {-inf, DT::kUint16, 0},
      {-inf, DT::kInt32, INT32_MIN},
      {-inf, DT::kUint32, 0},
      {-inf, DT::kInt64, INT64_MIN},
      {nan, DT::kInt8, 0},
      {nan, DT::kUint8, 0},
      {nan, DT::kInt16, 0},
      {nan, DT::kUint16, 0},
      {nan, DT::kInt32, 0},
      {nan, DT::kUint32, 0},
      {nan, DT::kInt64, 0},
      {-nan, DT::kInt64, 0},
  };
  for (const Row& r : rows) {
    const uint64_t width_mask =
        BitWidth(r.to) == 64 ? ~uint64_t{0} : (uint64_t{1} << BitWidth(r.to)) - 1;
    const uint64_t want = static_cast<uint64_t>(r.want) & width_mask;
    for (bool sat : {true, false}) {
      EXPECT_EQ(Hex(OneBits(Bits(r.x), DT::kDouble, r.to, Opt(sat))), Hex(want))
          << "DOUBLE " << r.x << " -> " << DataTypeName(r.to);
      const float f = static_cast<float>(r.x);
      if (static_cast<double>(f) == r.x || std::isnan(r.x)) {  // exactly representable
        EXPECT_EQ(Hex(OneBits(Bits(f), DT::kFloat, r.to, Opt(sat))), Hex(want))
            << "FLOAT " << r.x << " -> " << DataTypeName(r.to);
      }
    }
  }
  // uint64 targets.
  struct U64Row {
    double x;
    uint64_t want;
  };
  const U64Row urows[] = {
      {-1.5, 0},
      {nan, 0},
      {inf, UINT64_MAX},
      {-inf, 0},
      {1e30, UINT64_MAX},
      {-1e30, 0},
      {9223372036854775808.0, uint64_t{1} << 63},
      {18446744073709549568.0, 18446744073709549568ull},  // 2^64 - 2048
      {18446744073709551616.0, UINT64_MAX},               // 2^64
  };
  for (const U64Row& r : urows) {
    EXPECT_EQ(Hex(One<uint64_t>(r.x, DT::kDouble, DT::kUint64)), Hex(r.want)) << r.x;
    const float f = static_cast<float>(r.x);
    if (static_cast<double>(f) == r.x || std::isnan(r.x)) {
      EXPECT_EQ(Hex(One<uint64_t>(f, DT::kFloat, DT::kUint64)), Hex(r.want)) << r.x;
    }
  }
  // float32 2^64 - 2^40 (the largest float32 below 2^64) is exact in uint64.
  EXPECT_EQ(Hex(One<uint64_t>(18446742974197923840.0f, DT::kFloat, DT::kUint64)),
            Hex(18446742974197923840ull));
  // float32 just below / at 2^31.
  EXPECT_EQ(One<int32_t>(2147483520.0f, DT::kFloat, DT::kInt32), 2147483520);
  EXPECT_EQ(One<int32_t>(2147483648.0f, DT::kFloat, DT::kInt32), INT32_MAX);
}

TEST(FloatToInt, SmallFloatSources) {
  // float16
  EXPECT_EQ(One<int8_t>(uint16_t{0x7C00}, DT::kFloat16, DT::kInt8), 127);
  EXPECT_EQ(One<uint32_t>(uint16_t{0xFC00}, DT::kFloat16, DT::kUint32), 0u);
  EXPECT_EQ(One<int16_t>(uint16_t{0x7BFF}, DT::kFloat16, DT::kInt16), 32767);
  EXPECT_EQ(One<uint16_t>(uint16_t{0x7BFF}, DT::kFloat16, DT::kUint16), 65504);
  EXPECT_EQ(One<int32_t>(uint16_t{0x7E00}, DT::kFloat16, DT::kInt32), 0);
  EXPECT_EQ(One<int8_t>(uint16_t{0xBE00}, DT::kFloat16, DT::kInt8), -1);
  EXPECT_EQ(One<uint8_t>(uint16_t{0xBE00}, DT::kFloat16, DT::kUint8), 0);
  // bfloat16
  EXPECT_EQ(One<int64_t>(uint16_t{0x7F80}, DT::kBfloat16, DT::kInt64), INT64_MAX);
  EXPECT_EQ(One<int64_t>(uint16_t{0xFF80}, DT::kBfloat16, DT::kInt64), INT64_MIN);
  EXPECT_EQ(One<int32_t>(uint16_t{0x4F80}, DT::kBfloat16, DT::kInt32), INT32_MAX);  // 2^32
  EXPECT_EQ(One<uint32_t>(uint16_t{0x4F80}, DT::kBfloat16, DT::kUint32), UINT32_MAX);
  EXPECT_EQ(One<int64_t>(uint16_t{0x4F80}, DT::kBfloat16, DT::kInt64), INT64_C(4294967296));
  EXPECT_EQ(One<int64_t>(uint16_t{0x7FC0}, DT::kBfloat16, DT::kInt64), 0);
  // float8
  EXPECT_EQ(One<int8_t>(uint8_t{0x7E}, DT::kFloat8E4M3FN, DT::kInt8), 127);  // 448
  EXPECT_EQ(One<uint16_t>(uint8_t{0x7E}, DT::kFloat8E4M3FN, DT::kUint16), 448);
  EXPECT_EQ(One<int32_t>(uint8_t{0x7F}, DT::kFloat8E4M3FN, DT::kInt32), 0);    // NaN
  EXPECT_EQ(One<int16_t>(uint8_t{0x7C}, DT::kFloat8E5M2, DT::kInt16), 32767);  // Inf
  EXPECT_EQ(One<int16_t>(uint8_t{0xFC}, DT::kFloat8E5M2, DT::kInt16), -32768);
  EXPECT_EQ(One<int32_t>(uint8_t{0x80}, DT::kFloat8E5M2FNUZ, DT::kInt32), 0);  // NaN
  EXPECT_EQ(One<uint8_t>(uint8_t{0xC4}, DT::kFloat8E4M3FN, DT::kUint8), 0);    // -3
  EXPECT_EQ(One<int8_t>(uint8_t{0xC4}, DT::kFloat8E4M3FN, DT::kInt8), -3);
  EXPECT_EQ(One<int8_t>(uint8_t{0x3A}, DT::kFloat8E4M3FN, DT::kInt8), 1);  // 1.25
  // float8e8m0
  EXPECT_EQ(One<int64_t>(uint8_t{0xFE}, DT::kFloat8E8M0, DT::kInt64), INT64_MAX);  // 2^127
  EXPECT_EQ(One<int64_t>(uint8_t{0xFF}, DT::kFloat8E8M0, DT::kInt64), 0);          // NaN
  EXPECT_EQ(One<int64_t>(uint8_t{0x00}, DT::kFloat8E8M0, DT::kInt64), 0);          // 2^-127
  EXPECT_EQ(One<int8_t>(uint8_t{0x7E}, DT::kFloat8E8M0, DT::kInt8), 0);            // 0.5
  EXPECT_EQ(One<int8_t>(uint8_t{0x86}, DT::kFloat8E8M0, DT::kInt8), 127);          // 128
  EXPECT_EQ(One<uint8_t>(uint8_t{0x86}, DT::kFloat8E8M0, DT::kUint8), 128);
  // float4e2m1
  EXPECT_EQ(One<int8_t>(uint8_t{0x7}, DT::kFloat4E2M1, DT::kInt8), 6);
  EXPECT_EQ(One<uint8_t>(uint8_t{0xF}, DT::kFloat4E2M1, DT::kUint8), 0);
  EXPECT_EQ(One<int8_t>(uint8_t{0x3}, DT::kFloat4E2M1, DT::kInt8), 1);
  EXPECT_EQ(One<int8_t>(uint8_t{0xB}, DT::kFloat4E2M1, DT::kInt8), -1);
}

// ---------------------------------------------------------------------------------------
// bool (sem, ref: bool)
// ---------------------------------------------------------------------------------------

TEST(Bool, FromNumbers) {
  struct Row {
    DT from;
    uint64_t bits;
    uint8_t want;
  };
  const Row rows[] = {
      {DT::kFloat, 0x7FC00000, 1},  // NaN -> true
      {DT::kFloat, 0x80000000, 0},  // -0.0 -> false
      {DT::kFloat, 0x00000001, 1},  // subnormal
      {DT::kFloat, 0x3F000000, 1},  // 0.5
      {DT::kFloat, 0xFF800000, 1},  // -Inf
      {DT::kDouble, 0x0000000000000001ull, 1},
      {DT::kDouble, 0x8000000000000000ull, 0},
      {DT::kDouble, 0xFFF8000000000000ull, 1},
      {DT::kFloat16, 0x8000, 0},
      {DT::kFloat16, 0x0001, 1},
      {DT::kBfloat16, 0x8000, 0},
      {DT::kBfloat16, 0xFFC0, 1},
      {DT::kFloat8E4M3FN, 0x80, 0},    // -0
      {DT::kFloat8E4M3FN, 0x7F, 1},    // NaN
      {DT::kFloat8E4M3FNUZ, 0x80, 1},  // NaN
      {DT::kFloat8E5M2FNUZ, 0x00, 0},
      {DT::kFloat8E5M2, 0x01, 1},
      {DT::kFloat8E8M0, 0x00, 1},  // 2^-127: e8m0 is never zero
      {DT::kFloat8E8M0, 0xFF, 1},
      {DT::kFloat4E2M1, 0x8, 0},
      {DT::kFloat4E2M1, 0x1, 1},
      {DT::kInt4, 0x0, 0},
      {DT::kInt4, 0x8, 1},
      {DT::kUint2, 0x0, 0},
      {DT::kInt2, 0x2, 1},
      {DT::kInt32, 256, 1},  // x != 0, not the low byte
      {DT::kInt8, 0xFF, 1},
      {DT::kInt64, 0, 0},
      {DT::kUint64, 0x8000000000000000ull, 1},
      {DT::kBool, 1, 1},
      {DT::kBool, 0, 0},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(OneBits(r.bits, r.from, DT::kBool)), Hex(r.want))
        << DataTypeName(r.from) << " " << Hex(r.bits) << " -> BOOL";
  }
}

// bool -> numeric is 1 or 0 in the target encoding (ref: bool; sem for e8m0).
TEST(Bool, ToNumbers) {
  struct Row {
    DT to;
    uint64_t true_bits;
    uint64_t false_bits;
  };
  const Row rows[] = {
      {DT::kFloat, 0x3F800000, 0},
      {DT::kDouble, 0x3FF0000000000000ull, 0},
      {DT::kFloat16, 0x3C00, 0},
      {DT::kBfloat16, 0x3F80, 0},
      {DT::kFloat8E4M3FN, 0x38, 0},
      {DT::kFloat8E4M3FNUZ, 0x40, 0},
      {DT::kFloat8E5M2, 0x3C, 0},
      {DT::kFloat8E5M2FNUZ, 0x40, 0},
      {DT::kFloat4E2M1, 0x2, 0},
      {DT::kFloat8E8M0, 0x7F, 0x00},
      {DT::kInt8, 1, 0},
      {DT::kUint8, 1, 0},
      {DT::kInt16, 1, 0},
      {DT::kUint16, 1, 0},
      {DT::kInt32, 1, 0},
      {DT::kUint32, 1, 0},
      {DT::kInt64, 1, 0},
      {DT::kUint64, 1, 0},
      {DT::kInt4, 1, 0},
      {DT::kUint4, 1, 0},
      {DT::kInt2, 1, 0},
      {DT::kUint2, 1, 0},
      {DT::kBool, 1, 0},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(Hex(OneBits(1, DT::kBool, r.to)), Hex(r.true_bits))
        << "true -> " << DataTypeName(r.to);
    EXPECT_EQ(Hex(OneBits(0, DT::kBool, r.to)), Hex(r.false_bits))
        << "false -> " << DataTypeName(r.to);
  }
  // sem names bool -> e8m0 explicitly ("true 0x7F, false 0x00"), without the saturate
  // condition of its zero rule: false is 0x00 in both modes.
  for (bool sat : {true, false}) {
    EXPECT_EQ(Hex(OneBits(0, DT::kBool, DT::kFloat8E8M0, Opt(sat))), Hex(0x00)) << sat;
    EXPECT_EQ(Hex(OneBits(1, DT::kBool, DT::kFloat8E8M0, Opt(sat))), Hex(0x7F)) << sat;
  }
  // Packed: [1,0,1] -> INT4 01 01, INT2 0x11.
  EXPECT_EQ(HexBytes(CastRaw({1, 0, 1}, DT::kBool, DT::kInt4, 3)), "01 01");
  EXPECT_EQ(HexBytes(CastRaw({1, 0, 1}, DT::kBool, DT::kUint2, 3)), "11");
  EXPECT_EQ(HexBytes(CastRaw({1, 0, 1}, DT::kBool, DT::kFloat4E2M1, 3)), "02 02");
}

// ---------------------------------------------------------------------------------------
// Principle 1: one rounding (sem: one rounding; ref: other sources into float8)
// ---------------------------------------------------------------------------------------

TEST(OneRounding, DoubleToFloat8) {
  // ref: other sources into float8: 0.5 + 2^-5 + 2^-30 is just above the E4M3FN tie 0.53125 between
  // 0.5 (0x30) and 0.5625 (0x31); float32 drops the 2^-30 and the tie then goes to 0x30.
  const double x = 0.5 + std::ldexp(1.0, -5) + std::ldexp(1.0, -30);
  for (bool sat : {true, false}) {
    EXPECT_EQ(Hex(One<uint8_t>(x, DT::kDouble, DT::kFloat8E4M3FN, Opt(sat))), Hex(0x31));
    EXPECT_EQ(Hex(One<uint8_t>(-x, DT::kDouble, DT::kFloat8E4M3FN, Opt(sat))), Hex(0xB1));
    // E4M3FNUZ: 1 + 2^-4 + 2^-40 -> 1.125 = 0x41 (ulp 2^-3 at 1; float32 route: 1.0 = 0x40).
    EXPECT_EQ(Hex(One<uint8_t>(1.0 + std::ldexp(1.0, -4) + std::ldexp(1.0, -40), DT::kDouble,
                               DT::kFloat8E4M3FNUZ, Opt(sat))),
              Hex(0x41));
    // E5M2: 1 + 2^-3 + 2^-40 -> 1.25 = 0x3D (float32 route: 1.0 = 0x3C).
    EXPECT_EQ(Hex(One<uint8_t>(1.0 + std::ldexp(1.0, -3) + std::ldexp(1.0, -40), DT::kDouble,
                               DT::kFloat8E5M2, Opt(sat))),
              Hex(0x3D));
    // E5M2FNUZ: same value -> 1.25 = 0x41 (float32 route: 0x40).
    EXPECT_EQ(Hex(One<uint8_t>(1.0 + std::ldexp(1.0, -3) + std::ldexp(1.0, -40), DT::kDouble,
                               DT::kFloat8E5M2FNUZ, Opt(sat))),
              Hex(0x41));
  }
  // 2^-10 * (1 + 2^-40) is just above the E4M3FN underflow tie 2^-10 -> 2^-9 (0x01);
  // float32 rounds it onto the tie, which goes to 0.
  const double z = std::ldexp(1.0 + std::ldexp(1.0, -40), -10);
  EXPECT_EQ(Hex(One<uint8_t>(z, DT::kDouble, DT::kFloat8E4M3FN)), Hex(0x01));
  EXPECT_EQ(Hex(One<uint8_t>(-z, DT::kDouble, DT::kFloat8E4M3FN)), Hex(0x81));
  // Same for E5M2FNUZ at 2^-18.
  EXPECT_EQ(Hex(One<uint8_t>(std::ldexp(1.0 + std::ldexp(1.0, -40), -18), DT::kDouble,
                             DT::kFloat8E5M2FNUZ)),
            Hex(0x01));
  // 464 + 2^-30 is above the E4M3FN overflow tie: NaN without saturate (float32 route:
  // 464 -> 448).
  const double y = 464.0 + std::ldexp(1.0, -30);
  EXPECT_EQ(Hex(One<uint8_t>(y, DT::kDouble, DT::kFloat8E4M3FN, Opt(false))), Hex(0x7F));
  EXPECT_EQ(Hex(One<uint8_t>(y, DT::kDouble, DT::kFloat8E4M3FN, Opt(true))), Hex(0x7E));
  // Far outside float32.
  ExpectF8Row(1e300, DT::kDouble, {0x7E, 0x7F, 0x7F, 0x80, 0x7B, 0x7C, 0x7F, 0x80}, "1e300");
  ExpectF8Row(-1e-300, DT::kDouble, {0x80, 0x80, 0x00, 0x00, 0x80, 0x80, 0x00, 0x00}, "-1e-300");
  ExpectF8Row(F64(0xFFF8000000000000ull), DT::kDouble,
              {0xFF, 0xFF, 0x80, 0x80, 0xFE, 0xFE, 0x80, 0x80}, "-NaN");
}

TEST(OneRounding, DoubleToBfloat16) {
  // 1 + 2^-8 + 2^-30: above the bfloat16 tie 1 + 2^-8 -> 0x3F81; float32 drops 2^-30 and
  // the tie goes to 0x3F80.
  EXPECT_EQ(Hex(One<uint16_t>(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), DT::kDouble,
                              DT::kBfloat16)),
            Hex(0x3F81));
  EXPECT_EQ(Hex(One<uint16_t>(1.0 + std::ldexp(1.0, -8), DT::kDouble, DT::kBfloat16)), Hex(0x3F80));
  // (2 - 2^-8) * 2^127 - 2^80 is just below the overflow tie -> 0x7F7F (bfloat16 max);
  // float32 rounds it to the tie, which then goes to Inf.
  EXPECT_EQ(Hex(One<uint16_t>(std::ldexp(1.0, 128) - std::ldexp(1.0, 119) - std::ldexp(1.0, 80),
                              DT::kDouble, DT::kBfloat16)),
            Hex(0x7F7F));
  EXPECT_EQ(Hex(One<uint16_t>(1e300, DT::kDouble, DT::kBfloat16)), Hex(0x7F80));
  EXPECT_EQ(Hex(One<uint16_t>(F64(0x7FF8000000000001ull), DT::kDouble, DT::kBfloat16)),
            Hex(0x7FC0));
  EXPECT_EQ(Hex(One<uint16_t>(F64(0xFFF0000000000001ull), DT::kDouble, DT::kBfloat16)),
            Hex(0xFFC0));
}

// ---------------------------------------------------------------------------------------
// CastLike (sem: deliberate difference: round_mode honoured; ref: CastLike)
// ---------------------------------------------------------------------------------------

TEST(CastLike, HonoursRoundModeAndSaturate) {
  const Bytes three = Raw(std::vector<float>{3.0f, 1.5f});
  EXPECT_EQ(
      HexBytes(CastRaw(three, DT::kFloat, DT::kFloat8E8M0, 2, Opt(true, RoundMode::kUp), true)),
      "81 80");
  EXPECT_EQ(
      HexBytes(CastRaw(three, DT::kFloat, DT::kFloat8E8M0, 2, Opt(true, RoundMode::kDown), true)),
      "80 7f");
  EXPECT_EQ(HexBytes(CastRaw(three, DT::kFloat, DT::kFloat8E8M0, 2, Opt(true, RoundMode::kNearest),
                             true)),
            "81 80");
  // saturate=0 with a zero -> 0xFF (sem: zero without saturate).
  EXPECT_EQ(HexBytes(CastRaw(Raw(std::vector<float>{0.0f}), DT::kFloat, DT::kFloat8E8M0, 1,
                             Opt(false, RoundMode::kNearest), true)),
            "ff");
  const Bytes big = Raw(std::vector<float>{1e6f});
  EXPECT_EQ(HexBytes(CastRaw(big, DT::kFloat, DT::kFloat8E4M3FN, 1, Opt(false), true)), "7f");
  EXPECT_EQ(HexBytes(CastRaw(big, DT::kFloat, DT::kFloat8E4M3FN, 1, Opt(true), true)), "7e");
  // CastLike into a packed type and an integer type behaves as Cast.
  EXPECT_EQ(HexBytes(CastRaw(Raw(Arange(-9, 15)), DT::kFloat, DT::kInt4, 25, {}, true)),
            "87 a9 cb ed 0f 21 43 65 87 a9 cb ed 0f");
  EXPECT_EQ(HexBytes(CastRaw(Raw(std::vector<int16_t>{200}), DT::kInt16, DT::kInt8, 1, {}, true)),
            "c8");
}

}  // namespace
}  // namespace tensorcast
