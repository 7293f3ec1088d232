// Exhaustive tests of Cast: every value of every source type of at most 16 bits, to every
// non-string target type, with both `saturate` values and all three `round_mode`s, compared
// bit for bit with an oracle written in this file from tensorcast's rules (docs/semantics.md).
//
// The oracle is deliberately formulated differently from the library:
// - a source code is decoded to its exact value as a double (ldexp of its fields; every value
//   of these types is exact in a double), NaNs keep their sign and payload;
// - a float target (float16, bfloat16, the four float8 types, float4e2m1, the two float6
//   types) is found by
//   searching the sorted table of all its finite values (nearest, ties to the even code; a
//   virtual value one top-binade spacing above MAX decides overflow);
// - float8e8m0 compares the value with powers of two; integers use std::trunc.
// Then two identities (T -> FLOAT -> T and T -> DOUBLE -> T) and the monotonicity of
// FLOAT -> T over sorted float32 inputs. The oracle itself is checked against the tables of
// the ONNX specification and the conformance data (ExhaustiveOracle.*).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tensorcast/tensorcast.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

// ------------------------------------------------------------------------------------------
// The element types, described independently of the library.

enum class Family {
  kSmallFloat,  // float16, bfloat16, e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, float4e2m1
  kFloat32,
  kFloat64,
  kE8M0,
  kInteger,  // int8..uint64 saturate from floats; the 4- and 2-bit types wrap
  kBool,
};

struct TypeInfo {
  DataType type;
  const char* name;
  int bits;
  Family family;
  bool is_signed;  // integers only
};

constexpr TypeInfo kTypes[] = {
    {DataType::kFloat, "FLOAT", 32, Family::kFloat32, true},
    {DataType::kDouble, "DOUBLE", 64, Family::kFloat64, true},
    {DataType::kFloat16, "FLOAT16", 16, Family::kSmallFloat, true},
    {DataType::kBfloat16, "BFLOAT16", 16, Family::kSmallFloat, true},
    {DataType::kFloat8E4M3FN, "FLOAT8E4M3FN", 8, Family::kSmallFloat, true},
    {DataType::kFloat8E4M3FNUZ, "FLOAT8E4M3FNUZ", 8, Family::kSmallFloat, true},
    {DataType::kFloat8E5M2, "FLOAT8E5M2", 8, Family::kSmallFloat, true},
    {DataType::kFloat8E5M2FNUZ, "FLOAT8E5M2FNUZ", 8, Family::kSmallFloat, true},
    {DataType::kFloat8E8M0, "FLOAT8E8M0", 8, Family::kE8M0, false},
    {DataType::kFloat4E2M1, "FLOAT4E2M1", 4, Family::kSmallFloat, true},
    {DataType::kFloat6E2M3, "FLOAT6E2M3", 6, Family::kSmallFloat, true},
    {DataType::kFloat6E3M2, "FLOAT6E3M2", 6, Family::kSmallFloat, true},
    {DataType::kInt8, "INT8", 8, Family::kInteger, true},
    {DataType::kUint8, "UINT8", 8, Family::kInteger, false},
    {DataType::kInt16, "INT16", 16, Family::kInteger, true},
    {DataType::kUint16, "UINT16", 16, Family::kInteger, false},
    {DataType::kInt32, "INT32", 32, Family::kInteger, true},
    {DataType::kUint32, "UINT32", 32, Family::kInteger, false},
    {DataType::kInt64, "INT64", 64, Family::kInteger, true},
    {DataType::kUint64, "UINT64", 64, Family::kInteger, false},
    {DataType::kInt4, "INT4", 4, Family::kInteger, true},
    {DataType::kUint4, "UINT4", 4, Family::kInteger, false},
    {DataType::kInt2, "INT2", 2, Family::kInteger, true},
    {DataType::kUint2, "UINT2", 2, Family::kInteger, false},
    {DataType::kBool, "BOOL", 8, Family::kBool, false},
};

const TypeInfo& Info(DataType type) {
  for (const TypeInfo& t : kTypes) {
    if (t.type == type) return t;
  }
  ADD_FAILURE() << "type " << static_cast<int>(type) << " missing from kTypes";
  return kTypes[0];
}

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// Every code of a source type: 0 .. 2^bits - 1, except BOOL (0 and 1).
std::vector<uint64_t> AllCodes(const TypeInfo& t) {
  const uint64_t n = t.family == Family::kBool ? 2 : uint64_t{1} << t.bits;
  std::vector<uint64_t> codes(n);
  for (uint64_t i = 0; i < n; ++i) codes[i] = i;
  return codes;
}

// Packs codes into the storage layout: little-endian; 4-bit element 2k in the low nibble
// of byte k; 2-bit element 0 in bits 0-1; 6-bit element i in bits [6i, 6i + 6) of the bit
// stream, crossing into the next byte; zero padding.
std::vector<uint8_t> Pack(const TypeInfo& t, const std::vector<uint64_t>& codes) {
  const size_t bytes = (codes.size() * static_cast<size_t>(t.bits) + 7) / 8;
  std::vector<uint8_t> out(bytes, 0);
  for (size_t i = 0; i < codes.size(); ++i) {
    if (t.bits < 8) {
      const size_t bit = i * static_cast<size_t>(t.bits);
      const uint64_t field = (codes[i] & Mask(t.bits)) << (bit % 8);  // < 2^14
      out[bit / 8] = static_cast<uint8_t>(out[bit / 8] | (field & 0xFF));
      if (field > 0xFF) out[bit / 8 + 1] = static_cast<uint8_t>(out[bit / 8 + 1] | (field >> 8));
    } else {
      for (int b = 0; b < t.bits / 8; ++b) {
        out[i * static_cast<size_t>(t.bits / 8) + static_cast<size_t>(b)] =
            static_cast<uint8_t>(codes[i] >> (8 * b));
      }
    }
  }
  return out;
}

std::vector<uint64_t> Unpack(const TypeInfo& t, const uint8_t* bytes, size_t count) {
  std::vector<uint64_t> codes(count, 0);
  for (size_t i = 0; i < count; ++i) {
    if (t.bits < 8) {
      const size_t bit = i * static_cast<size_t>(t.bits);
      uint64_t window = bytes[bit / 8];
      if (bit % 8 + static_cast<size_t>(t.bits) > 8) window |= uint64_t{bytes[bit / 8 + 1]} << 8;
      codes[i] = (window >> (bit % 8)) & Mask(t.bits);
    } else {
      for (int b = 0; b < t.bits / 8; ++b) {
        codes[i] |= uint64_t{bytes[i * static_cast<size_t>(t.bits / 8) + static_cast<size_t>(b)]}
                    << (8 * b);
      }
    }
  }
  return codes;
}

// ------------------------------------------------------------------------------------------
// Decoded values.

constexpr uint64_t kDoubleQuietBit = uint64_t{1} << 51;

struct Value {
  bool nan = false;
  bool neg = false;           // the sign bit (NaNs, zeros and infinities included)
  double x = 0;               // the exact value when !nan (+-0 and +-Inf included)
  uint64_t nan_fraction = 0;  // NaN: its fraction field left-aligned to a double's 52 bits
  bool integral = false;      // integer and bool sources: integer targets wrap `integer`
  int64_t integer = 0;
  bool bf16_nan = false;  // a NaN decoded from BFLOAT16 (ml_dtypes' NaN rules differ)
};

Value Number(double x) {
  Value v;
  v.x = x;
  v.neg = std::signbit(x);
  return v;
}

Value NaN(bool neg, uint64_t fraction) {
  Value v;
  v.nan = true;
  v.neg = neg;
  v.x = std::numeric_limits<double>::quiet_NaN();
  v.nan_fraction = fraction;
  return v;
}

Value Integer(int64_t i) {
  Value v = Number(static_cast<double>(i));  // exact: sources have at most 16 bits
  v.integral = true;
  v.integer = i;
  return v;
}

Value FromFloat(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return NaN(bits >> 31, uint64_t{bits & 0x7FFFFFu} << 29);
  return Number(static_cast<double>(f));
}

// The formats rounded by table search.
enum class Specials {
  kIeee,    // the all-ones exponent holds Inf (mantissa 0) and NaN
  kE4M3FN,  // only s.1111.111 is NaN; no Inf
  kFnuz,    // 0x80 is the one NaN; no Inf, no -0
  kNone,    // float4e2m1, float6e2m3, float6e3m2: every code is a number
};

enum class Overflow {
  kToInf,           // float16, bfloat16: beyond MAX -> +-Inf, `saturate` ignored
  kBySaturate,      // float8: +-MAX when saturating, else the overflow code
  kAlwaysSaturate,  // float4e2m1, float6e2m3, float6e3m2: +-MAX
};

struct FloatFormat {
  DataType type;
  int exp_bits;
  int man_bits;
  int bias;
  Specials specials;
  bool nan_keeps_payload;  // decoding: f16/bf16 NaNs keep theirs; float8 NaNs are canonical
  Overflow overflow;
  uint32_t overflow_pos, overflow_neg;  // codes beyond MAX when not saturating
  uint32_t nan_pos, nan_neg;            // codes of a NaN source, by the NaN's sign
};

// Columns from the ONNX float8, float4e2m1 and bfloat16 specifications, with tensorcast's
// NaN and overflow codes (docs/semantics.md).
constexpr FloatFormat kFloatFormats[] = {
    {DataType::kFloat16, 5, 10, 15, Specials::kIeee, true, Overflow::kToInf,  //
     0x7C00, 0xFC00, 0x7E00, 0xFE00},
    {DataType::kBfloat16, 8, 7, 127, Specials::kIeee, true, Overflow::kToInf,  //
     0x7F80, 0xFF80, 0x7FC0, 0xFFC0},
    {DataType::kFloat8E4M3FN, 4, 3, 7, Specials::kE4M3FN, false, Overflow::kBySaturate,  //
     0x7F, 0xFF, 0x7F, 0xFF},
    {DataType::kFloat8E4M3FNUZ, 4, 3, 8, Specials::kFnuz, false, Overflow::kBySaturate,  //
     0x80, 0x80, 0x80, 0x80},
    {DataType::kFloat8E5M2, 5, 2, 15, Specials::kIeee, false, Overflow::kBySaturate,  //
     0x7C, 0xFC, 0x7E, 0xFE},
    {DataType::kFloat8E5M2FNUZ, 5, 2, 16, Specials::kFnuz, false, Overflow::kBySaturate,  //
     0x80, 0x80, 0x80, 0x80},
    // float4e2m1: NaN -> 0x8 when its sign bit is 0, 0x0 when it is 1 (tensorcast follows the ONNX
    // reference here).
    {DataType::kFloat4E2M1, 2, 1, 1, Specials::kNone, false, Overflow::kAlwaysSaturate,  //
     0x7, 0xF, 0x8, 0x0},
    // The OCP MX FP6 formats (ml_dtypes float6_e2m3fn, float6_e3m2fn): no Inf, no NaN, always
    // saturating to +-7.5 / +-28; NaN -> 0x20 when its sign bit is 0, 0x00 when it is 1.
    {DataType::kFloat6E2M3, 2, 3, 1, Specials::kNone, false, Overflow::kAlwaysSaturate,  //
     0x1F, 0x3F, 0x20, 0x00},
    {DataType::kFloat6E3M2, 3, 2, 3, Specials::kNone, false, Overflow::kAlwaysSaturate,  //
     0x1F, 0x3F, 0x20, 0x00},
};

const FloatFormat& Format(DataType type) {
  for (const FloatFormat& f : kFloatFormats) {
    if (f.type == type) return f;
  }
  ADD_FAILURE() << "no float format for type " << static_cast<int>(type);
  return kFloatFormats[0];
}

Value DecodeSmallFloat(const FloatFormat& f, uint64_t code) {
  const int sign_shift = f.exp_bits + f.man_bits;
  const bool neg = (code >> sign_shift) & 1;
  const uint64_t exp = (code >> f.man_bits) & Mask(f.exp_bits);
  const uint64_t man = code & Mask(f.man_bits);
  const bool exp_all_ones = exp == Mask(f.exp_bits);
  switch (f.specials) {
    case Specials::kIeee:
      if (exp_all_ones && man == 0) {
        return Number(neg ? -HUGE_VAL : HUGE_VAL);
      }
      if (exp_all_ones) {
        return NaN(neg, f.nan_keeps_payload ? man << (52 - f.man_bits) : kDoubleQuietBit);
      }
      break;
    case Specials::kE4M3FN:
      if (exp_all_ones && man == Mask(f.man_bits)) return NaN(neg, kDoubleQuietBit);
      break;
    case Specials::kFnuz:
      if (code == (uint64_t{1} << sign_shift)) return NaN(true, kDoubleQuietBit);  // negative
      break;
    case Specials::kNone: break;
  }
  // Subnormal: man * 2^(1-bias-M); normal: (2^M + man) * 2^(exp-bias-M).
  const double magnitude = exp == 0
                               ? std::ldexp(static_cast<double>(man), 1 - f.bias - f.man_bits)
                               : std::ldexp(static_cast<double>((uint64_t{1} << f.man_bits) + man),
                                            static_cast<int>(exp) - f.bias - f.man_bits);
  return Number(neg ? -magnitude : magnitude);
}

Value DecodeE8M0(uint64_t code) {
  if (code == 0xFF) return NaN(false, kDoubleQuietBit);
  return Number(std::ldexp(1.0, static_cast<int>(code) - 127));
}

Value Decode(const TypeInfo& t, uint64_t code) {
  switch (t.family) {
    case Family::kSmallFloat: {
      Value v = DecodeSmallFloat(Format(t.type), code);
      v.bf16_nan = v.nan && t.type == DataType::kBfloat16;
      return v;
    }
    case Family::kE8M0: return DecodeE8M0(code);
    case Family::kBool: return Integer(code != 0);
    case Family::kInteger: {
      int64_t i = static_cast<int64_t>(code);
      if (t.is_signed && (code >> (t.bits - 1)) & 1) i -= int64_t{1} << t.bits;  // sign-extend
      return Integer(i);
    }
    case Family::kFloat32: {
      float f;
      const auto bits = static_cast<uint32_t>(code);
      std::memcpy(&f, &bits, 4);
      return FromFloat(f);
    }
    case Family::kFloat64: {
      double d;
      std::memcpy(&d, &code, 8);
      if (std::isnan(d)) return NaN(code >> 63, code & Mask(52));
      return Number(d);
    }
  }
  return Value();
}

// ------------------------------------------------------------------------------------------
// The oracle: expected target code for a decoded source value.

// All finite non-negative values of a format; for every format here they are exactly the
// codes 0 .. max_code, in increasing order (checked).
class FiniteTable {
 public:
  explicit FiniteTable(const FloatFormat& f) {
    const uint64_t sign_bit = uint64_t{1} << (f.exp_bits + f.man_bits);
    for (uint64_t code = 0; code < sign_bit; ++code) {
      const Value v = DecodeSmallFloat(f, code);
      if (v.nan || std::isinf(v.x)) break;
      if (!values_.empty() && !(v.x > values_.back())) {
        ADD_FAILURE() << "format table of type " << static_cast<int>(f.type)
                      << " is not increasing at code " << code;
      }
      values_.push_back(v.x);
    }
  }

  uint64_t max_code() const { return values_.size() - 1; }

  // The code of the correctly rounded value of a (finite, >= 0): nearest, ties to the even
  // code. Returns max_code() + 1 when the virtual value one top-binade spacing above MAX
  // wins (the rounded value is beyond MAX).
  uint64_t Round(double a) const {
    const size_t n = values_.size();
    const size_t lo =
        static_cast<size_t>(std::upper_bound(values_.begin(), values_.end(), a) - values_.begin()) -
        1;
    if (values_[lo] == a) return lo;
    const double above =
        lo + 1 < n ? values_[lo + 1] : values_[n - 1] + (values_[n - 1] - values_[n - 2]);
    const double mid = (values_[lo] + above) / 2;  // exact: one bit more than the format
    if (a < mid) return lo;
    if (a > mid) return lo + 1;
    return lo % 2 == 0 ? lo : lo + 1;
  }

 private:
  std::vector<double> values_;
};

const FiniteTable& TableOf(DataType type) {
  static const std::vector<FiniteTable>* tables = [] {
    auto* t = new std::vector<FiniteTable>();
    for (const FloatFormat& f : kFloatFormats) t->emplace_back(f);
    return t;
  }();
  for (size_t i = 0; i < std::size(kFloatFormats); ++i) {
    if (kFloatFormats[i].type == type) return (*tables)[i];
  }
  ADD_FAILURE() << "no table for type " << static_cast<int>(type);
  return (*tables)[0];
}

uint64_t ExpectedSmallFloat(const Value& v, DataType type, bool saturate) {
  const FloatFormat& f = Format(type);
  const FiniteTable& table = TableOf(type);
  const uint64_t sign = v.neg ? uint64_t{1} << (f.exp_bits + f.man_bits) : 0;
  if (v.nan) {
    uint64_t code = v.neg ? f.nan_neg : f.nan_pos;
    // -> float16 keeps the sign, sets the quiet bit, keeps the top payload bits; from
    // bfloat16 it is the canonical quiet NaN (ml_dtypes goes through Eigen's half).
    if (type == DataType::kFloat16 && !v.bf16_nan) code |= (v.nan_fraction >> 42) & 0x3FF;
    return code;
  }
  const uint64_t rounded = std::isinf(v.x) ? table.max_code() + 1 : table.Round(std::fabs(v.x));
  if (rounded > table.max_code()) {
    const bool clamp = f.overflow == Overflow::kAlwaysSaturate ||
                       (f.overflow == Overflow::kBySaturate && saturate);
    if (clamp) return sign | table.max_code();
    return v.neg ? f.overflow_neg : f.overflow_pos;
  }
  if (rounded == 0 && f.specials == Specials::kFnuz) return 0;  // FNUZ has no -0
  return sign | rounded;
}

// NaN bits (docs/semantics.md, matching numpy and ml_dtypes): float16 -> FLOAT/DOUBLE and
// bfloat16 -> FLOAT are exact bit shifts (a signalling NaN stays signalling);
// bfloat16 -> DOUBLE goes through float and a hardware conversion, which sets the quiet
// bit. Float8/e8m0 NaNs decode to the canonical quiet NaN with the code's sign.
uint64_t ExpectedFloat32(const Value& v) {
  const uint64_t sign = v.neg ? 0x80000000u : 0;
  if (v.nan) return sign | 0x7F800000u | (v.nan_fraction >> 29);
  const auto f = static_cast<float>(v.x);
  if (static_cast<double>(f) != v.x && !std::isinf(v.x)) {
    ADD_FAILURE() << "source value " << v.x << " is not exact in float32";
  }
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

uint64_t ExpectedFloat64(const Value& v) {
  if (v.nan) {
    const uint64_t quiet = v.bf16_nan ? uint64_t{1} << 51 : 0;
    return (v.neg ? uint64_t{1} << 63 : 0) | (uint64_t{0x7FF} << 52) | v.nan_fraction | quiet;
  }
  uint64_t bits;
  std::memcpy(&bits, &v.x, 8);
  return bits;
}

// tensorcast's float8e8m0 rule (docs/semantics.md): the exponent of |x| rounded by round_mode
// (exact powers of two are never rounded; nearest ties up at 1.5 * 2^k); zero, Inf and rounded
// exponents outside [-127, 127] clamp to 0x00 / 0xFE when saturating and are NaN otherwise.
uint64_t ExpectedE8M0(const Value& v, const CastOptions& options) {
  if (v.nan) return 0xFF;
  const double a = std::fabs(v.x);
  bool below = false, above = false;
  int exponent = 0;
  if (std::isinf(a)) {
    above = true;
  } else if (a == 0) {
    below = true;
  } else {
    int e;
    std::frexp(a, &e);    // a = f * 2^e, 0.5 <= f < 1
    const int k = e - 1;  // 2^k <= a < 2^(k+1)
    const double power = std::ldexp(1.0, k);
    exponent = k;
    if (a != power) {
      switch (options.round_mode) {
        case RoundMode::kUp: exponent = k + 1; break;
        case RoundMode::kDown: exponent = k; break;
        case RoundMode::kNearest: exponent = a >= 1.5 * power ? k + 1 : k; break;
      }
    }
    below = exponent < -127;
    above = exponent > 127;
  }
  if (below) return options.saturate ? 0x00 : 0xFF;
  if (above) return options.saturate ? 0xFE : 0xFF;
  return static_cast<uint64_t>(exponent + 127);
}

uint64_t ExpectedInteger(const Value& v, const TypeInfo& dst) {
  const uint64_t mask = Mask(dst.bits);
  if (v.integral) return static_cast<uint64_t>(v.integer) & mask;  // int -> int wraps
  if (v.nan) return 0;
  if (dst.bits < 8) {  // 4- and 2-bit: NaN, Inf, |x| >= 2^31 -> 0; else truncate and wrap
    if (std::isinf(v.x) || std::fabs(v.x) >= 2147483648.0) return 0;
    return static_cast<uint64_t>(static_cast<int64_t>(std::trunc(v.x))) & mask;
  }
  const double t = std::trunc(v.x);  // truncate toward zero, then saturate
  if (dst.is_signed) {
    const double limit = std::ldexp(1.0, dst.bits - 1);
    if (t >= limit) return mask >> 1;        // INT_MAX
    if (t < -limit) return (mask >> 1) + 1;  // INT_MIN
    return static_cast<uint64_t>(static_cast<int64_t>(t)) & mask;
  }
  if (t >= std::ldexp(1.0, dst.bits)) return mask;
  if (t < 0) return 0;
  return static_cast<uint64_t>(t);
}

uint64_t ExpectedCode(const TypeInfo& src, uint64_t src_code, const Value& v, const TypeInfo& dst,
                      const CastOptions& options) {
  // Same type: a copy, NaN payloads included; except that saturating E5M2 clips +-Inf to
  // +-MAX and canonicalises NaNs (the reference clips, then converts).
  const bool clips = src.type == DataType::kFloat8E5M2 && options.saturate;
  if (src.type == dst.type && !clips) return src_code;
  switch (dst.family) {
    case Family::kSmallFloat: return ExpectedSmallFloat(v, dst.type, options.saturate);
    case Family::kFloat32: return ExpectedFloat32(v);
    case Family::kFloat64: return ExpectedFloat64(v);
    case Family::kE8M0:
      if (src.family == Family::kBool) return v.integer ? 0x7F : 0x00;  // true 1.0, false 0x00
      return ExpectedE8M0(v, options);
    case Family::kInteger: return ExpectedInteger(v, dst);
    case Family::kBool: return v.nan || v.x != 0 ? 1 : 0;
  }
  return 0;
}

// ------------------------------------------------------------------------------------------
// Reporting.

std::string Hex(uint64_t code, int bits) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%0*llx", std::max(1, (bits + 3) / 4),
                static_cast<unsigned long long>(code));
  return buf;
}

std::string Describe(const Value& v) {
  if (v.nan) return v.neg ? "-nan" : "nan";
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.17g", v.x);
  return buf;
}

std::string OptionsName(const CastOptions& o) {
  return std::string("saturate=") + (o.saturate ? "1" : "0") +
         " round_mode=" + RoundModeName(o.round_mode);
}

std::vector<CastOptions> AllOptions() {
  std::vector<CastOptions> all;
  for (bool saturate : {true, false}) {
    for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
      CastOptions o;
      o.saturate = saturate;
      o.round_mode = mode;
      all.push_back(o);
    }
  }
  return all;
}

// Collects mismatches of one Cast call; reports the count and the first few.
class MismatchReport {
 public:
  MismatchReport(const TypeInfo& src, const TypeInfo& dst, std::string context)
      : src_(src), dst_(dst), context_(std::move(context)) {}

  void Check(uint64_t src_code, const Value& v, uint64_t expected, uint64_t got) {
    if (expected == got) return;
    if (++count_ <= kShown) {
      lines_ += "\n  " + std::string(src_.name) + " " + Hex(src_code, src_.bits) + " (" +
                Describe(v) + ") -> " + dst_.name + ": expected " + Hex(expected, dst_.bits) +
                ", got " + Hex(got, dst_.bits);
    }
  }

  void Finish() const {
    if (count_ == 0) return;
    ADD_FAILURE() << src_.name << " -> " << dst_.name << " [" << context_ << "] on "
                  << ActiveTargetName() << ": " << count_ << " mismatches" << lines_;
  }

 private:
  static constexpr int kShown = 8;
  const TypeInfo& src_;
  const TypeInfo& dst_;
  std::string context_;
  int count_ = 0;
  std::string lines_;
};

// Casts `count` packed source elements into a test::GuardedBuffer whose output bytes start
// as 0xFF; checks the status, the guard bytes and (packed targets) that the padding bits
// are zero. Returns the unpacked target codes (empty on failure).
std::vector<uint64_t> RunCast(const TypeInfo& src, const std::vector<uint8_t>& src_bytes,
                              const TypeInfo& dst, size_t count, const CastOptions& options,
                              const std::string& context) {
  const size_t dst_bytes = (count * static_cast<size_t>(dst.bits) + 7) / 8;
  test::GuardedBuffer out(dst_bytes, 0, 0xFF);
  const Status status = Cast(src_bytes.data(), src.type, out.data(), dst.type, count, options);
  if (!status.ok()) {
    ADD_FAILURE() << src.name << " -> " << dst.name << " [" << context << "] on "
                  << ActiveTargetName() << ": Cast returned " << StatusCodeName(status.code())
                  << ": " << status.message();
    return {};
  }
  EXPECT_TRUE(out.GuardsIntact()) << src.name << " -> " << dst.name << " [" << context << "] on "
                                  << ActiveTargetName();
  const size_t used_bits = count * static_cast<size_t>(dst.bits);
  if (used_bits % 8 != 0) {
    const unsigned padding = out[dst_bytes - 1] >> (used_bits % 8);
    EXPECT_EQ(padding, 0u) << src.name << " -> " << dst.name << " [" << context << "] on "
                           << ActiveTargetName() << ": padding bits of the last byte are not zero";
  }
  return Unpack(dst, out.data(), count);
}

// ------------------------------------------------------------------------------------------
// The oracle against the spec's own tables (no library call).

TEST(ExhaustiveOracle, DecodesTheSpecTables) {
  struct Row {
    DataType type;
    uint64_t code;
    double value;
  };
  const Row rows[] = {
      // Float8 encodings: max, lowest, min normal, min subnormal.
      {DataType::kFloat8E4M3FN, 0x7E, 448},
      {DataType::kFloat8E4M3FN, 0xFE, -448},
      {DataType::kFloat8E4M3FN, 0x08, 0x1p-6},
      {DataType::kFloat8E4M3FN, 0x01, 0x1p-9},
      {DataType::kFloat8E4M3FNUZ, 0x7F, 240},
      {DataType::kFloat8E4M3FNUZ, 0xFF, -240},
      {DataType::kFloat8E4M3FNUZ, 0x08, 0x1p-7},
      {DataType::kFloat8E4M3FNUZ, 0x01, 0x1p-10},
      {DataType::kFloat8E5M2, 0x7B, 57344},
      {DataType::kFloat8E5M2, 0xFB, -57344},
      {DataType::kFloat8E5M2, 0x04, 0x1p-14},
      {DataType::kFloat8E5M2, 0x01, 0x1p-16},
      {DataType::kFloat8E5M2, 0x7C, HUGE_VAL},
      {DataType::kFloat8E5M2, 0xFC, -HUGE_VAL},
      {DataType::kFloat8E5M2FNUZ, 0x7F, 57344},
      {DataType::kFloat8E5M2FNUZ, 0xFF, -57344},
      {DataType::kFloat8E5M2FNUZ, 0x04, 0x1p-15},
      {DataType::kFloat8E5M2FNUZ, 0x01, 0x1p-17},
      // 5.1 / 5.2
      {DataType::kFloat8E8M0, 0x00, 0x1p-127},
      {DataType::kFloat8E8M0, 0x7F, 1},
      {DataType::kFloat8E8M0, 0xFE, 0x1p127},
      // 6.1
      {DataType::kFloat4E2M1, 0x1, 0.5},
      {DataType::kFloat4E2M1, 0x3, 1.5},
      {DataType::kFloat4E2M1, 0x5, 3},
      {DataType::kFloat4E2M1, 0x6, 4},
      {DataType::kFloat4E2M1, 0x7, 6},
      {DataType::kFloat4E2M1, 0xF, -6},
      // OCP MX v1.0, FP6: E2M3 max 7.5, min normal 1, min subnormal 0.125; E3M2 max 28, min
      // normal 0.25, min subnormal 0.0625
      {DataType::kFloat6E2M3, 0x1F, 7.5},
      {DataType::kFloat6E2M3, 0x3F, -7.5},
      {DataType::kFloat6E2M3, 0x08, 1},
      {DataType::kFloat6E2M3, 0x01, 0.125},
      {DataType::kFloat6E3M2, 0x1F, 28},
      {DataType::kFloat6E3M2, 0x3F, -28},
      {DataType::kFloat6E3M2, 0x04, 0.25},
      {DataType::kFloat6E3M2, 0x01, 0.0625},
      // IEEE half and bfloat16
      {DataType::kFloat16, 0x7BFF, 65504},
      {DataType::kFloat16, 0x0001, 0x1p-24},
      {DataType::kFloat16, 0x3C00, 1},
      {DataType::kBfloat16, 0x3F80, 1},
      {DataType::kBfloat16, 0x0001, 0x1p-133},
      {DataType::kBfloat16, 0x7F7F, 0x1.fep127},
      // integers
      {DataType::kInt4, 0x8, -8},
      {DataType::kInt4, 0xF, -1},
      {DataType::kUint4, 0xF, 15},
      {DataType::kInt2, 0x2, -2},
      {DataType::kUint2, 0x3, 3},
      {DataType::kInt16, 0x8000, -32768},
  };
  for (const Row& r : rows) {
    const Value v = Decode(Info(r.type), r.code);
    EXPECT_FALSE(v.nan) << Info(r.type).name << " " << Hex(r.code, 8);
    EXPECT_EQ(v.x, r.value) << Info(r.type).name << " " << Hex(r.code, 8);
  }
  // Negative zeros and NaNs.
  EXPECT_TRUE(std::signbit(Decode(Info(DataType::kFloat8E4M3FN), 0x80).x));
  EXPECT_TRUE(std::signbit(Decode(Info(DataType::kFloat4E2M1), 0x8).x));
  EXPECT_TRUE(std::signbit(Decode(Info(DataType::kFloat6E2M3), 0x20).x));
  EXPECT_TRUE(std::signbit(Decode(Info(DataType::kFloat6E3M2), 0x20).x));
  EXPECT_TRUE(Decode(Info(DataType::kFloat8E4M3FN), 0x7F).nan);
  EXPECT_TRUE(Decode(Info(DataType::kFloat8E5M2), 0x7D).nan);
  EXPECT_TRUE(Decode(Info(DataType::kFloat8E8M0), 0xFF).nan);
  for (DataType t : {DataType::kFloat8E4M3FNUZ, DataType::kFloat8E5M2FNUZ}) {
    const Value v = Decode(Info(t), 0x80);
    EXPECT_TRUE(v.nan && v.neg) << Info(t).name << ": 0x80 is a negative NaN";
    EXPECT_EQ(ExpectedFloat32(v), 0xFFC00000u);
    EXPECT_EQ(ExpectedSmallFloat(v, DataType::kFloat16, true), 0xFE00u);
  }
  EXPECT_EQ(ExpectedFloat32(Decode(Info(DataType::kFloat8E8M0), 0x00)), 0x00400000u);
  // 4.2: E4M3FN 0x7F -> 0x7FC00000; E5M2 NaN payloads are dropped.
  EXPECT_EQ(ExpectedFloat32(Decode(Info(DataType::kFloat8E4M3FN), 0x7F)), 0x7FC00000u);
  EXPECT_EQ(ExpectedFloat32(Decode(Info(DataType::kFloat8E5M2), 0xFD)), 0xFFC00000u);
  // Widening is exact, a signalling NaN included.
  EXPECT_EQ(ExpectedFloat32(Decode(Info(DataType::kBfloat16), 0xFF81)), 0xFF810000u);
  EXPECT_EQ(ExpectedFloat32(Decode(Info(DataType::kFloat16), 0x7C01)), 0x7F802000u);
  EXPECT_EQ(ExpectedFloat64(Decode(Info(DataType::kFloat16), 0x7E01)), 0x7FF8040000000000u);
}

// Float8 overflow thresholds of the ONNX reference (without saturate) and the float8
// conformance vectors.
TEST(ExhaustiveOracle, EncodesTheFloat8SpecTables) {
  struct Threshold {
    DataType type;
    double x;
    uint64_t expected;
  };
  const double up = HUGE_VAL;
  const Threshold thresholds[] = {
      {DataType::kFloat8E4M3FN, 432, 0x7E},
      {DataType::kFloat8E4M3FN, 464, 0x7E},
      {DataType::kFloat8E4M3FN, std::nextafter(464.0, up), 0x7F},
      {DataType::kFloat8E4M3FN, 0x1p-10, 0x00},
      {DataType::kFloat8E4M3FN, std::nextafter(0x1p-10, up), 0x01},
      {DataType::kFloat8E4M3FNUZ, 232, 0x7E},
      {DataType::kFloat8E4M3FNUZ, std::nextafter(232.0, up), 0x7F},
      {DataType::kFloat8E4M3FNUZ, std::nextafter(248.0, 0.0), 0x7F},
      {DataType::kFloat8E4M3FNUZ, 248, 0x80},
      {DataType::kFloat8E4M3FNUZ, 0x1p-11, 0x00},
      {DataType::kFloat8E4M3FNUZ, std::nextafter(0x1p-11, up), 0x01},
      {DataType::kFloat8E5M2, 53248, 0x7A},
      {DataType::kFloat8E5M2, 61440, 0x7C},
      {DataType::kFloat8E5M2, std::nextafter(61440.0, 0.0), 0x7B},
      {DataType::kFloat8E5M2, 0x1p-17, 0x00},
      {DataType::kFloat8E5M2, std::nextafter(0x1p-17, up), 0x01},
      {DataType::kFloat8E5M2FNUZ, 53248, 0x7E},
      {DataType::kFloat8E5M2FNUZ, 61440, 0x80},
      {DataType::kFloat8E5M2FNUZ, std::nextafter(61440.0, 0.0), 0x7F},
      {DataType::kFloat8E5M2FNUZ, 0x1p-18, 0x00},
      {DataType::kFloat8E5M2FNUZ, std::nextafter(0x1p-18, up), 0x01},
  };
  for (const Threshold& t : thresholds) {
    EXPECT_EQ(ExpectedSmallFloat(Number(t.x), t.type, false), t.expected)
        << Info(t.type).name << " " << t.x;
  }

  const uint32_t inputs[15] = {0x3ef535b8, 0x3ef5eeb0, 0x3effd6b2, 0x3f51b0e5, 0x3ef0cccc,
                               0x3f391039, 0x49742400, 0x33d6bf95, 0x7fc00000, 0x7f800000,
                               0x7f800000, 0xff800000, 0xb3d6bf95, 0x33d6bf95, 0xc9742400};
  struct Column {
    DataType type;
    bool saturate;
    uint8_t out[15];
  };
  const Column columns[] = {
      {DataType::kFloat8E4M3FN,
       true,
       {0x2f, 0x2f, 0x30, 0x35, 0x2f, 0x34, 0x7e, 0x00, 0x7f, 0x7e, 0x7e, 0xfe, 0x80, 0x00, 0xfe}},
      {DataType::kFloat8E4M3FN,
       false,
       {0x2f, 0x2f, 0x30, 0x35, 0x2f, 0x34, 0x7f, 0x00, 0x7f, 0x7f, 0x7f, 0xff, 0x80, 0x00, 0xff}},
      {DataType::kFloat8E4M3FNUZ,
       true,
       {0x37, 0x37, 0x38, 0x3d, 0x37, 0x3c, 0x7f, 0x00, 0x80, 0x7f, 0x7f, 0xff, 0x00, 0x00, 0xff}},
      {DataType::kFloat8E4M3FNUZ,
       false,
       {0x37, 0x37, 0x38, 0x3d, 0x37, 0x3c, 0x80, 0x00, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x80}},
      {DataType::kFloat8E5M2,
       true,
       {0x38, 0x38, 0x38, 0x3b, 0x38, 0x3a, 0x7b, 0x00, 0x7e, 0x7b, 0x7b, 0xfb, 0x80, 0x00, 0xfb}},
      {DataType::kFloat8E5M2,
       false,
       {0x38, 0x38, 0x38, 0x3b, 0x38, 0x3a, 0x7c, 0x00, 0x7e, 0x7c, 0x7c, 0xfc, 0x80, 0x00, 0xfc}},
      {DataType::kFloat8E5M2FNUZ,
       true,
       {0x3c, 0x3c, 0x3c, 0x3f, 0x3c, 0x3e, 0x7f, 0x00, 0x80, 0x7f, 0x7f, 0xff, 0x00, 0x00, 0xff}},
      {DataType::kFloat8E5M2FNUZ,
       false,
       {0x3c, 0x3c, 0x3c, 0x3f, 0x3c, 0x3e, 0x80, 0x00, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x80}},
  };
  for (const Column& c : columns) {
    for (int i = 0; i < 15; ++i) {
      float f;
      std::memcpy(&f, &inputs[i], 4);
      EXPECT_EQ(ExpectedSmallFloat(FromFloat(f), c.type, c.saturate), c.out[i])
          << Info(c.type).name << " saturate=" << c.saturate << " row " << i;
    }
  }
}

// Float4e2m1, float16 and bfloat16 conformance vectors.
TEST(ExhaustiveOracle, EncodesFloat4Float16Bfloat16SpecVectors) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float f4_in[15] = {0.48f, 0.25f, 1.05f, -3.5f, -8, 9,     1e6f, 1e-7f,
                           nan,   inf,   inf,   -inf,  -4, 0.01f, -0.0f};
  const uint64_t f4_out[15] = {1, 0, 2, 0xE, 0xF, 7, 7, 0, 8, 7, 7, 0xF, 0xE, 0, 8};
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(ExpectedSmallFloat(FromFloat(f4_in[i]), DataType::kFloat4E2M1, false), f4_out[i])
        << "row " << i;
  }
  EXPECT_EQ(ExpectedSmallFloat(FromFloat(-nan), DataType::kFloat4E2M1, true), 0x0u);

  const float in[12] = {0.47892547f, 0.48033667f, 0.49968487f, 0.81910545f, 0.47031248f, 0.816468f,
                        0.21087195f, 0.7229038f,  nan,         inf,         inf,         -inf};
  const uint64_t f16_out[12] = {0x37aa, 0x37af, 0x37ff, 0x3a8e, 0x3786, 0x3a88,
                                0x32bf, 0x39c9, 0x7e00, 0x7c00, 0x7c00, 0xfc00};
  const uint64_t bf16_out[12] = {0x3ef5, 0x3ef6, 0x3f00, 0x3f52, 0x3ef1, 0x3f51,
                                 0x3e58, 0x3f39, 0x7fc0, 0x7f80, 0x7f80, 0xff80};
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(ExpectedSmallFloat(FromFloat(in[i]), DataType::kFloat16, true), f16_out[i])
        << "row " << i;
    EXPECT_EQ(ExpectedSmallFloat(FromFloat(in[i]), DataType::kBfloat16, true), bf16_out[i])
        << "row " << i;
  }
  // 8.1: 65520 -> Inf, 65519.99 -> 65504.
  EXPECT_EQ(ExpectedSmallFloat(Number(65520), DataType::kFloat16, true), 0x7C00u);
  EXPECT_EQ(ExpectedSmallFloat(Number(65519.99), DataType::kFloat16, true), 0x7BFFu);
}

// The ONNX reference's float8e8m0 edge cases, with tensorcast's rules where it differs on
// purpose (2^-127 exact under "up", zero/Inf/out of range per the Cast-24 table).
TEST(ExhaustiveOracle, EncodesE8M0Edges) {
  struct Row {
    double x;
    uint8_t up_sat, up_nosat, down_sat, down_nosat, nearest_sat, nearest_nosat;
  };
  const double flt_max = std::numeric_limits<float>::max();
  const Row rows[] = {
      {0.0, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF},
      {-0.0, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF},
      {0x1p-149, 0x00, 0xFF, 0x00, 0xFF, 0x00, 0xFF},
      {0x1p-127, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
      {0x1.8p-127, 0x01, 0x01, 0x00, 0x00, 0x01, 0x01},
      {0x1p-126, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01},
      {1.0, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F},
      {1.0000001, 0x80, 0x80, 0x7F, 0x7F, 0x7F, 0x7F},
      {1.4999999, 0x80, 0x80, 0x7F, 0x7F, 0x7F, 0x7F},
      {1.5, 0x80, 0x80, 0x7F, 0x7F, 0x80, 0x80},
      {3.0, 0x81, 0x81, 0x80, 0x80, 0x81, 0x81},
      {-4.0, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81},
      {-5.0, 0x82, 0x82, 0x81, 0x81, 0x81, 0x81},
      {0x1.000002p127, 0xFE, 0xFF, 0xFE, 0xFE, 0xFE, 0xFE},
      {flt_max, 0xFE, 0xFF, 0xFE, 0xFE, 0xFE, 0xFF},
      {HUGE_VAL, 0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF},
      {-HUGE_VAL, 0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF},
  };
  for (const Row& r : rows) {
    const uint8_t expected[6] = {r.up_sat,     r.up_nosat,    r.down_sat,
                                 r.down_nosat, r.nearest_sat, r.nearest_nosat};
    int i = 0;
    for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
      for (bool saturate : {true, false}) {
        CastOptions o;
        o.saturate = saturate;
        o.round_mode = mode;
        EXPECT_EQ(ExpectedE8M0(Number(r.x), o), expected[i++]) << r.x << " " << OptionsName(o);
      }
    }
  }
  CastOptions o;
  EXPECT_EQ(ExpectedE8M0(NaN(true, kDoubleQuietBit), o), 0xFFu);
  // Conformance: [0, 0.124, 0.25, 0.5, 1.1, 2, 4, 8] (float32), saturate=1, up.
  const float in[8] = {0, 0.124f, 0.25f, 0.5f, 1.1f, 2, 4, 8};
  const uint64_t out[8] = {0x00, 0x7c, 0x7d, 0x7e, 0x80, 0x80, 0x81, 0x82};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(ExpectedE8M0(FromFloat(in[i]), o), out[i]) << in[i];
}

// The ONNX reference's 4-/2-bit integer examples and tensorcast's saturating float -> int
// (docs/semantics.md).
TEST(ExhaustiveOracle, EncodesIntegerExamples) {
  struct Row {
    DataType type;
    double x;
    uint64_t expected;
  };
  const Row rows[] = {
      {DataType::kInt4, 2.7, 2},
      {DataType::kInt4, -1.5, 0xF},
      {DataType::kInt4, -9, 7},
      {DataType::kInt4, 8, 8},
      {DataType::kInt4, 15, 0xF},
      {DataType::kInt4, 1e10, 0},
      {DataType::kUint4, -1, 15},
      {DataType::kUint4, 16, 0},
      {DataType::kInt2, -3, 1},
      {DataType::kInt2, 2, 2},
      {DataType::kInt2, 3, 3},
      {DataType::kUint2, -1, 3},
      {DataType::kInt8, 300, 127},
      {DataType::kInt8, -300, 0x80},
      {DataType::kUint8, -1.5, 0},
      {DataType::kUint8, 255.9, 255},
      {DataType::kInt64, 1e30, 0x7FFFFFFFFFFFFFFF},
      {DataType::kInt64, -HUGE_VAL, 0x8000000000000000},
      {DataType::kUint64, 1e30, ~uint64_t{0}},
      {DataType::kUint32, -0.0, 0},
      {DataType::kInt32, -2.5, 0xFFFFFFFE},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(ExpectedInteger(Number(r.x), Info(r.type)), r.expected)
        << Info(r.type).name << " " << r.x;
  }
  EXPECT_EQ(ExpectedInteger(NaN(false, kDoubleQuietBit), Info(DataType::kInt32)), 0u);
  EXPECT_EQ(ExpectedInteger(Integer(200), Info(DataType::kInt8)), 0xC8u);  // -56
  EXPECT_EQ(ExpectedInteger(Integer(-1), Info(DataType::kUint64)), ~uint64_t{0});
}

// ------------------------------------------------------------------------------------------
// Every value of every <= 16-bit source type to every non-string target type.

struct Pair {
  DataType src;
  DataType dst;
};

std::vector<Pair> AllPairs() {
  std::vector<Pair> pairs;
  for (const TypeInfo& src : kTypes) {
    if (src.bits > 16) continue;
    for (const TypeInfo& dst : kTypes) pairs.push_back({src.type, dst.type});
  }
  return pairs;
}

void PrintTo(const Pair& pair, std::ostream* os) {
  *os << Info(pair.src).name << " -> " << Info(pair.dst).name;
}

class ExhaustiveCast : public ::testing::TestWithParam<Pair> {};

TEST_P(ExhaustiveCast, EveryCodeWithEveryOptionMatchesTheOracle) {
  const TypeInfo& src = Info(GetParam().src);
  const TypeInfo& dst = Info(GetParam().dst);
  const std::vector<uint64_t> codes = AllCodes(src);
  std::vector<Value> values;
  for (uint64_t code : codes) values.push_back(Decode(src, code));
  const std::vector<uint8_t> src_bytes = Pack(src, codes);

  for (const CastOptions& options : AllOptions()) {
    const std::string context = OptionsName(options);
    const std::vector<uint64_t> got = RunCast(src, src_bytes, dst, codes.size(), options, context);
    if (got.empty()) continue;
    MismatchReport report(src, dst, context);
    for (size_t i = 0; i < codes.size(); ++i) {
      report.Check(codes[i], values[i], ExpectedCode(src, codes[i], values[i], dst, options),
                   got[i]);
    }
    report.Finish();

    // Packed targets again with an odd count (a source packed with zero padding too): a
    // partial last byte, whose padding bits must be zero.
    if (dst.bits < 8) {
      const std::vector<uint64_t> odd_codes(codes.begin(), codes.end() - 1);
      const std::string odd_context = context + " count=" + std::to_string(odd_codes.size());
      const std::vector<uint64_t> odd =
          RunCast(src, Pack(src, odd_codes), dst, odd_codes.size(), options, odd_context);
      for (size_t i = 0; i < odd.size(); ++i) {
        EXPECT_EQ(odd[i], got[i]) << src.name << " -> " << dst.name << " [" << odd_context
                                  << "] on " << ActiveTargetName() << ": element " << i;
        if (odd[i] != got[i]) break;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(, ExhaustiveCast, ::testing::ValuesIn(AllPairs()),
                         [](const ::testing::TestParamInfo<Pair>& test_info) {
                           return std::string(Info(test_info.param.src).name) + "_to_" +
                                  Info(test_info.param.dst).name;
                         });

// ------------------------------------------------------------------------------------------
// Identities: decoding is exact, so T -> FLOAT -> T and T -> DOUBLE -> T give back every
// non-NaN code (with saturate=1 an infinity comes back as MAX, so those are skipped there).

class ExhaustiveRoundTrip : public ::testing::TestWithParam<DataType> {};

TEST_P(ExhaustiveRoundTrip, EveryNonNaNCodeSurvivesFloatAndDouble) {
  const TypeInfo& t = Info(GetParam());
  const std::vector<uint64_t> codes = AllCodes(t);
  const std::vector<uint8_t> bytes = Pack(t, codes);
  for (DataType wide_type : {DataType::kFloat, DataType::kDouble}) {
    const TypeInfo& wide = Info(wide_type);
    for (const CastOptions& options : AllOptions()) {
      const std::string context = OptionsName(options) + " via " + wide.name;
      const std::vector<uint64_t> mid = RunCast(t, bytes, wide, codes.size(), options, context);
      if (mid.empty()) continue;
      const std::vector<uint64_t> back =
          RunCast(wide, Pack(wide, mid), t, codes.size(), options, context);
      if (back.empty()) continue;
      MismatchReport report(t, t, context);
      for (size_t i = 0; i < codes.size(); ++i) {
        const Value v = Decode(t, codes[i]);
        if (v.nan || (options.saturate && std::isinf(v.x))) continue;
        report.Check(codes[i], v, codes[i], back[i]);
      }
      report.Finish();
    }
  }
}

std::vector<DataType> SmallTypes() {
  std::vector<DataType> types;
  for (const TypeInfo& t : kTypes) {
    if (t.bits <= 16) types.push_back(t.type);
  }
  return types;
}

INSTANTIATE_TEST_SUITE_P(, ExhaustiveRoundTrip, ::testing::ValuesIn(SmallTypes()),
                         [](const ::testing::TestParamInfo<DataType>& test_info) {
                           return std::string(Info(test_info.param).name);
                         });

// ------------------------------------------------------------------------------------------
// Monotonicity: FLOAT -> T over float32 inputs sorted from -Inf to +Inf never decreases
// (targets whose overflow is a number or Inf; integers that saturate). float8e8m0 ignores
// the sign, so it is checked on [+0, +Inf] and also down <= nearest <= up per element.

// Every kStride-th float32 bit pattern from -Inf to +Inf in increasing value, plus the ends.
std::vector<uint32_t> SortedFloat32Sample() {
  constexpr uint32_t kStride = 2039;
  std::vector<uint32_t> negative, sorted;
  for (uint32_t b = 0x80000000u; b < 0xFF800000u; b += kStride) negative.push_back(b);
  negative.push_back(0xFF800000u);  // -Inf
  sorted.assign(negative.rbegin(), negative.rend());
  for (uint32_t b = 0; b < 0x7F800000u; b += kStride) sorted.push_back(b);
  sorted.push_back(0x7F800000u);  // +Inf
  return sorted;
}

std::vector<uint8_t> Float32Bytes(const std::vector<uint32_t>& bits) {
  return Pack(Info(DataType::kFloat), std::vector<uint64_t>(bits.begin(), bits.end()));
}

// The numeric value of a target code, exact for every type (long double holds 64-bit ints).
long double NumericValue(const TypeInfo& t, uint64_t code, bool* nan) {
  if (t.family == Family::kInteger && t.bits > 16) {
    *nan = false;
    if (!t.is_signed) return static_cast<long double>(code);
    const uint64_t sign = uint64_t{1} << (t.bits - 1);
    return static_cast<long double>(static_cast<int64_t>(((code & Mask(t.bits)) ^ sign) - sign));
  }
  const Value v = Decode(t, code);
  *nan = v.nan;
  return v.x;
}

void ExpectNonDecreasing(const TypeInfo& dst, const std::vector<uint32_t>& inputs,
                         const std::vector<uint64_t>& out, const std::string& context) {
  int failures = 0;
  bool previous_nan = false;
  long double previous = NumericValue(dst, out[0], &previous_nan);
  EXPECT_FALSE(previous_nan) << dst.name << " [" << context << "] NaN for float32 "
                             << Hex(inputs[0], 32);
  for (size_t i = 1; i < out.size() && failures < 5; ++i) {
    bool nan = false;
    const long double current = NumericValue(dst, out[i], &nan);
    if (nan || current < previous) {
      ++failures;
      ADD_FAILURE() << "FLOAT -> " << dst.name << " [" << context << "] on " << ActiveTargetName()
                    << ": not monotonic: float32 " << Hex(inputs[i - 1], 32) << " -> "
                    << Hex(out[i - 1], dst.bits) << " but float32 " << Hex(inputs[i], 32) << " -> "
                    << Hex(out[i], dst.bits);
    }
    previous = current;
  }
}

TEST(ExhaustiveMonotonic, FloatToEveryOrderedTargetNeverDecreases) {
  struct Case {
    DataType dst;
    bool saturate;
  };
  const Case cases[] = {
      {DataType::kFloat16, true},        {DataType::kFloat16, false},
      {DataType::kBfloat16, true},       {DataType::kBfloat16, false},
      {DataType::kFloat8E4M3FN, true},   {DataType::kFloat8E4M3FNUZ, true},
      {DataType::kFloat8E5M2, true},     {DataType::kFloat8E5M2, false},
      {DataType::kFloat8E5M2FNUZ, true}, {DataType::kFloat4E2M1, true},
      {DataType::kFloat4E2M1, false},    {DataType::kFloat6E2M3, true},
      {DataType::kFloat6E2M3, false},    {DataType::kFloat6E3M2, true},
      {DataType::kFloat6E3M2, false},    {DataType::kInt8, true},
      {DataType::kUint8, true},          {DataType::kInt16, true},
      {DataType::kUint16, true},         {DataType::kInt32, true},
      {DataType::kUint32, true},         {DataType::kInt64, true},
      {DataType::kUint64, true},         {DataType::kDouble, true},
  };
  const std::vector<uint32_t> inputs = SortedFloat32Sample();
  const std::vector<uint8_t> bytes = Float32Bytes(inputs);
  const TypeInfo& f32 = Info(DataType::kFloat);
  for (const Case& c : cases) {
    CastOptions options;
    options.saturate = c.saturate;
    const std::string context = OptionsName(options);
    const std::vector<uint64_t> out =
        RunCast(f32, bytes, Info(c.dst), inputs.size(), options, context);
    if (out.empty()) continue;
    ExpectNonDecreasing(Info(c.dst), inputs, out, context);
  }
}

TEST(ExhaustiveMonotonic, FloatToE8M0NeverDecreasesAndDownNearestUpAreOrdered) {
  std::vector<uint32_t> inputs;
  for (uint32_t b : SortedFloat32Sample()) {
    if (b < 0x80000000u) inputs.push_back(b);  // +0 .. +Inf
  }
  const std::vector<uint8_t> bytes = Float32Bytes(inputs);
  const TypeInfo& f32 = Info(DataType::kFloat);
  const TypeInfo& e8m0 = Info(DataType::kFloat8E8M0);
  std::vector<std::vector<uint64_t>> by_mode;
  for (RoundMode mode : {RoundMode::kDown, RoundMode::kNearest, RoundMode::kUp}) {
    CastOptions options;
    options.round_mode = mode;
    const std::string context = OptionsName(options);
    by_mode.push_back(RunCast(f32, bytes, e8m0, inputs.size(), options, context));
    if (by_mode.back().empty()) return;
    ExpectNonDecreasing(e8m0, inputs, by_mode.back(), context);
  }
  int failures = 0;
  for (size_t i = 0; i < inputs.size() && failures < 5; ++i) {
    if (by_mode[0][i] <= by_mode[1][i] && by_mode[1][i] <= by_mode[2][i]) continue;
    ++failures;
    ADD_FAILURE() << "FLOAT -> FLOAT8E8M0: float32 " << Hex(inputs[i], 32) << " gives down "
                  << Hex(by_mode[0][i], 8) << ", nearest " << Hex(by_mode[1][i], 8) << ", up "
                  << Hex(by_mode[2][i], 8) << " (expected down <= nearest <= up)";
  }
}

}  // namespace
}  // namespace tensorcast
