// Decoding every float format to an exact value, and rounding an exact value once
// into every target (docs/semantics.md).
#include "lib/reference/exact.h"

#include <cmath>
#include <cstring>

#include "lib/type_facts.h"

namespace tensorcast {
namespace reference {
namespace {

int BitLength(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

const FloatFormat& FormatOf(DataType type) {
  switch (type) {
    case DataType::kDouble: return kF64;
    case DataType::kFloat: return kF32;
    case DataType::kFloat16: return kF16;
    case DataType::kBfloat16: return kBF16;
    case DataType::kFloat8E4M3FN: return kE4M3FN;
    case DataType::kFloat8E4M3FNUZ: return kE4M3FNUZ;
    case DataType::kFloat8E5M2: return kE5M2;
    case DataType::kFloat8E5M2FNUZ: return kE5M2FNUZ;
    case DataType::kFloat6E2M3: return kF6E2M3;
    case DataType::kFloat6E3M2: return kF6E3M2;
    default: return kF4E2M1;
  }
}

bool IsIeee(DataType type) {
  return type == DataType::kDouble || type == DataType::kFloat || type == DataType::kFloat16 ||
         type == DataType::kBfloat16;
}

bool IsFnuz(DataType type) { return Facts(type).nan_style == NanStyle::kFnuz; }

// The formats above have the layouts of the type table.
constexpr bool LayoutIs(const FloatFormat& f, DataType type) {
  return f.mant_bits == Facts(type).mantissa_bits && f.exp_bits == Facts(type).exponent_bits &&
         f.bias == Facts(type).exponent_bias;
}
static_assert(LayoutIs(kF64, DataType::kDouble) && LayoutIs(kF32, DataType::kFloat) &&
              LayoutIs(kF16, DataType::kFloat16) && LayoutIs(kBF16, DataType::kBfloat16) &&
              LayoutIs(kE4M3FN, DataType::kFloat8E4M3FN) &&
              LayoutIs(kE4M3FNUZ, DataType::kFloat8E4M3FNUZ) &&
              LayoutIs(kE5M2, DataType::kFloat8E5M2) &&
              LayoutIs(kE5M2FNUZ, DataType::kFloat8E5M2FNUZ) &&
              LayoutIs(kF4E2M1, DataType::kFloat4E2M1) &&
              LayoutIs(kF6E2M3, DataType::kFloat6E2M3) && LayoutIs(kF6E3M2, DataType::kFloat6E3M2));

Exact NaN(bool neg, uint64_t payload) {
  Exact x;
  x.kind = Exact::kNaN;
  x.neg = neg;
  x.mant = payload;
  return x;
}

constexpr uint64_t kQuietPayload = 1ull << 63;  // canonical quiet NaN, no payload

// Round |x| = mant * 2^exp (mant > 0) to `precision` significant bits with
// round-to-nearest-even and gradual underflow below 2^emin (the smallest normal
// exponent). Result: r * 2^q with r < 2^precision; r < 2^(precision-1) only when
// the result is subnormal (q == emin - precision + 1) or zero.
//
//   mant:  1xxxxxxxxxxx|g rrrrr       g = first dropped bit, r = the rest
//          <-precision->              round up iff g && (r != 0 || lsb)
struct Rounded {
  uint64_t r;
  int32_t q;
};
Rounded RoundNearestEven(uint64_t mant, int32_t exp, int precision, int32_t emin) {
  const int32_t lead = exp + BitLength(mant) - 1;  // exponent of the leading bit
  int32_t q = lead - (precision - 1);
  if (q < emin - (precision - 1)) q = emin - (precision - 1);
  if (q <= exp) return {mant << (exp - q), q};
  const int32_t s = q - exp;  // bits dropped, >= 1
  uint64_t r;
  if (s >= 64) {
    // Everything is dropped: round up only if mant > half (= 2^63 when s == 64).
    r = (s == 64 && mant > kQuietPayload) ? 1 : 0;
  } else {
    r = mant >> s;
    const uint64_t rem = mant & ((1ull << s) - 1);
    const uint64_t half = 1ull << (s - 1);
    if (rem > half || (rem == half && (r & 1))) ++r;
  }
  if (r == (1ull << precision)) {  // carry into the next binade
    r >>= 1;
    ++q;
  }
  return {r, q};
}

// Encodes the magnitude of finite non-zero x in `f`, rounded to nearest even.
// Returns false on overflow (the rounded value exceeds f.max_code).
bool EncodeMagnitude(const FloatFormat& f, const Exact& x, uint64_t* code) {
  const int32_t emin = 1 - f.bias;
  const Rounded rd = RoundNearestEven(x.mant, x.exp, f.mant_bits + 1, emin);
  if (rd.r < (1ull << f.mant_bits)) {  // subnormal or zero: exponent field 0
    *code = rd.r;
    return true;
  }
  const int64_t biased = static_cast<int64_t>(rd.q) + f.mant_bits + f.bias;
  if (biased > static_cast<int64_t>(f.max_code >> f.mant_bits)) return false;
  const uint64_t c =
      (static_cast<uint64_t>(biased) << f.mant_bits) | (rd.r & ((1ull << f.mant_bits) - 1));
  if (c > f.max_code) return false;
  *code = c;
  return true;
}

// IEEE-style targets: FLOAT, DOUBLE, FLOAT16, BFLOAT16. Overflow -> Inf.
uint64_t EncodeIeee(DataType type, const Exact& x) {
  const FloatFormat& f = FormatOf(type);
  const int width = 1 + f.exp_bits + f.mant_bits;
  const uint64_t sign = static_cast<uint64_t>(x.neg) << (width - 1);
  const uint64_t inf = ((1ull << f.exp_bits) - 1) << f.mant_bits;
  if (x.kind == Exact::kNaN) {
    // -> bfloat16, and bfloat16 -> float16: the canonical quiet NaN with the sign
    // (ml_dtypes). float16 -> float/double and bfloat16 -> float are exact bit shifts
    // that keep a signalling NaN signalling (numpy's and ml_dtypes' bit routines).
    // Everything else keeps the sign and the top payload bits and sets the quiet bit,
    // as the hardware conversions do (vcvtps2ph, cvtss2sd, cvtsd2ss).
    const auto src = static_cast<DataType>(x.nan_source);
    if (type == DataType::kBfloat16 || (type == DataType::kFloat16 && src == DataType::kBfloat16)) {
      return sign | inf | (1ull << (f.mant_bits - 1));
    }
    uint64_t frac = x.mant >> (64 - f.mant_bits);
    const bool exact_shift =
        (src == DataType::kFloat16 && (type == DataType::kFloat || type == DataType::kDouble)) ||
        (src == DataType::kBfloat16 && type == DataType::kFloat);
    if (!exact_shift) frac |= 1ull << (f.mant_bits - 1);
    return sign | inf | frac;
  }
  if (x.kind == Exact::kInf) return sign | inf;
  if (x.mant == 0) return sign;
  uint64_t mag;
  if (!EncodeMagnitude(f, x, &mag)) return sign | inf;
  return sign | mag;
}

// The four float8 formats (docs/semantics.md, "float8").
uint64_t EncodeFloat8(DataType type, const Exact& x, bool saturate) {
  const FloatFormat& f = FormatOf(type);
  const bool fnuz = IsFnuz(type);
  const bool has_inf = type == DataType::kFloat8E5M2;
  const uint64_t sign = x.neg ? 0x80 : 0x00;
  if (x.kind == Exact::kNaN) {
    if (fnuz) return 0x80;
    return sign | (has_inf ? 0x7E : 0x7F);
  }
  const uint64_t overflow = fnuz ? 0x80 : (sign | (has_inf ? 0x7C : 0x7F));
  const uint64_t max = sign | f.max_code;
  if (x.kind == Exact::kInf) return saturate ? max : overflow;
  uint64_t mag = 0;
  if (x.mant != 0 && !EncodeMagnitude(f, x, &mag)) return saturate ? max : overflow;
  if (mag == 0) return fnuz ? 0x00 : sign;  // FNUZ has no negative zero
  return sign | mag;
}

// The formats without Inf and NaN: FLOAT4E2M1 (docs/semantics.md, "float4e2m1") and
// FLOAT6E2M3 / FLOAT6E3M2 ("float6"). They always saturate: +-Inf and values that round
// above the largest magnitude give +-max. A NaN gives the sign bit alone (-0) when
// positive and 0 when negative: the FLOAT4E2M1 conformance data and ml_dtypes.
uint64_t EncodeNoSpecials(DataType type, const Exact& x) {
  const FloatFormat& f = FormatOf(type);
  const uint64_t sign_bit = 1ull << (f.exp_bits + f.mant_bits);
  const uint64_t sign = x.neg ? sign_bit : 0;
  if (x.kind == Exact::kNaN) return x.neg ? 0 : sign_bit;
  if (x.kind == Exact::kInf) return sign | f.max_code;
  uint64_t mag = 0;
  if (x.mant != 0 && !EncodeMagnitude(f, x, &mag)) mag = f.max_code;
  return sign | mag;
}

// FLOAT8E8M0: 2^(code-127), code 0..254, 0xFF NaN. The sign is ignored (|x|).
// round_mode picks the power of two; results below 2^-127 or above 2^127, zero and
// Inf saturate to 0x00 / 0xFE when `saturate`, else NaN (docs/semantics.md).
uint64_t EncodeE8M0(const Exact& x, const CastOptions& options) {
  const bool sat = options.saturate;
  if (x.kind == Exact::kNaN) return 0xFF;
  if (x.kind == Exact::kInf) return sat ? 0xFE : 0xFF;
  if (x.mant == 0) return (sat || x.is_bool) ? 0x00 : 0xFF;
  const int n = BitLength(x.mant);
  const int32_t lead = x.exp + n - 1;  // |x| in [2^lead, 2^(lead+1))
  const bool exact = x.mant == (1ull << (n - 1));
  int32_t k = lead;
  switch (options.round_mode) {
    case RoundMode::kUp: k += exact ? 0 : 1; break;
    case RoundMode::kDown: break;
    case RoundMode::kNearest:  // ties (1.5 * 2^lead) round up
      k += (n >= 2 && ((x.mant >> (n - 2)) & 1)) ? 1 : 0;
      break;
  }
  if (k < -127) return sat ? 0x00 : 0xFF;
  if (k > 127) return sat ? 0xFE : 0xFF;
  return static_cast<uint64_t>(k + 127);
}

// Integer part of |x| (finite): `huge` when it does not fit in 64 bits.
struct Magnitude {
  bool huge;
  uint64_t value;
  bool fraction;  // a non-zero fractional part was dropped
};
Magnitude TruncatedMagnitude(const Exact& x) {
  if (x.mant == 0) return {false, 0, false};
  if (x.exp >= 0) {
    if (BitLength(x.mant) + x.exp > 64) return {true, 0, false};
    return {false, x.mant << x.exp, false};
  }
  if (x.exp <= -64) return {false, 0, true};
  return {false, x.mant >> -x.exp, (x.mant & ((1ull << -x.exp) - 1)) != 0};
}

uint64_t LowBits(uint64_t v, int bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }

}  // namespace

Exact DecodeFloat(DataType type, uint64_t code) {
  if (type == DataType::kFloat8E8M0) {
    if (code == 0xFF) return NaN(false, kQuietPayload);
    Exact x;
    x.mant = 1;
    x.exp = static_cast<int32_t>(code) - 127;
    return x;
  }
  const FloatFormat& f = FormatOf(type);
  const int width = 1 + f.exp_bits + f.mant_bits;
  const bool neg = (code >> (width - 1)) & 1;
  const uint64_t e = (code >> f.mant_bits) & ((1ull << f.exp_bits) - 1);
  const uint64_t m = code & ((1ull << f.mant_bits) - 1);
  const uint64_t e_all = (1ull << f.exp_bits) - 1;
  if (IsIeee(type) && e == e_all) {
    if (m == 0) {
      Exact x;
      x.kind = Exact::kInf;
      x.neg = neg;
      return x;
    }
    Exact x = NaN(neg, m << (64 - f.mant_bits));
    x.nan_source = static_cast<uint8_t>(type);
    return x;
  }
  if (type == DataType::kFloat8E4M3FN && (code & 0x7F) == 0x7F) return NaN(neg, kQuietPayload);
  if (type == DataType::kFloat8E5M2 && e == e_all) {
    if (m != 0) return NaN(neg, kQuietPayload);
    Exact x;
    x.kind = Exact::kInf;
    x.neg = neg;
    return x;
  }
  if (IsFnuz(type) && code == 0x80) return NaN(true, kQuietPayload);  // the only NaN: negative
  Exact x;
  x.neg = neg;
  if (e == 0) {
    x.mant = m;
    x.exp = 1 - f.bias - f.mant_bits;
  } else {
    x.mant = m | (1ull << f.mant_bits);
    x.exp = static_cast<int32_t>(e) - f.bias - f.mant_bits;
  }
  return x;
}

Exact FromDouble(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return DecodeFloat(DataType::kDouble, bits);
}

Exact FromSigned(int64_t v) {
  Exact x;
  x.is_int = true;
  x.neg = v < 0;
  x.int_bits = static_cast<uint64_t>(v);
  x.mant = x.neg ? (~x.int_bits + 1) : x.int_bits;  // |INT64_MIN| = 2^63 fits
  return x;
}

Exact FromUnsigned(uint64_t v) {
  Exact x;
  x.is_int = true;
  x.int_bits = v;
  x.mant = v;
  return x;
}

uint64_t EncodeFloat(DataType type, const Exact& x, const CastOptions& options) {
  switch (type) {
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ: return EncodeFloat8(type, x, options.saturate);
    case DataType::kFloat4E2M1:
    case DataType::kFloat6E2M3:
    case DataType::kFloat6E3M2: return EncodeNoSpecials(type, x);
    case DataType::kFloat8E8M0: return EncodeE8M0(x, options);
    default: return EncodeIeee(type, x);
  }
}

uint64_t SaturatingTruncate(const Exact& x, int bits, bool is_signed) {
  if (x.kind == Exact::kNaN) return 0;
  const uint64_t hi = is_signed ? (LowBits(~0ull, bits) >> 1) : LowBits(~0ull, bits);
  const uint64_t lo_mag = is_signed ? hi + 1 : 0;  // |min|
  const Magnitude m = x.kind == Exact::kInf ? Magnitude{true, 0, false} : TruncatedMagnitude(x);
  if (!x.neg) return (m.huge || m.value > hi) ? hi : m.value;
  if (m.huge || m.value > lo_mag) return LowBits(~lo_mag + 1, bits);
  return LowBits(~m.value + 1, bits);
}

uint64_t EncodeInt(const Exact& x, int bits, bool is_signed) {
  if (x.is_int) return LowBits(x.int_bits, bits);
  if (bits >= 8) return SaturatingTruncate(x, bits, is_signed);
  // 4- and 2-bit targets (ml_dtypes): NaN, Inf and x outside int32's range
  // [-2^31, 2^31 - 1] (checked before truncation) -> 0; else truncate toward zero
  // and keep the low bits.
  if (x.kind != Exact::kFinite) return 0;
  const Magnitude m = TruncatedMagnitude(x);
  constexpr uint64_t kInt32Max = (1ull << 31) - 1;
  if (m.huge || m.value > kInt32Max + (x.neg ? 1 : 0)) return 0;
  if (!x.neg && m.value == kInt32Max && m.fraction) return 0;
  return LowBits(x.neg ? ~m.value + 1 : m.value, bits);
}

bool IsNonZero(const Exact& x) { return x.kind != Exact::kFinite || x.mant != 0; }

double ToDouble(const Exact& x) {
  double v;
  if (x.kind == Exact::kNaN) {
    v = std::nan("");
  } else if (x.kind == Exact::kInf) {
    v = HUGE_VAL;
  } else {
    v = std::ldexp(static_cast<double>(x.mant), x.exp);
  }
  return x.neg ? -v : v;
}

}  // namespace reference
}  // namespace tensorcast
