// Text -> number, stage two: the exact integer ways of decimal_to_binary.h.
#include "lib/text/decimal_to_binary.h"

#include <cstring>

#include "lib/type_facts.h"

namespace tensorcast {
namespace text {
namespace {

using u128 = unsigned __int128;

constexpr int kMaxPow5 = 27;  // 5^27 < 2^63: a 64-bit divisor, a 127-bit product

struct Pow5Table {
  uint64_t v[kMaxPow5 + 1];
  constexpr Pow5Table() : v() {
    v[0] = 1;
    for (int i = 1; i <= kMaxPow5; ++i) v[i] = v[i - 1] * 5;
  }
};
constexpr Pow5Table kPow5;

// R[k] = ceil(2^(127 + b) / 5^k) for k in [1, kMaxPow5], b = the bit length of 5^k: in
// [2^127, 2^128). bits[k] = b.
struct Recip5Table {
  u128 r[kMaxPow5 + 1];
  int bits[kMaxPow5 + 1];
  constexpr Recip5Table() : r(), bits() {
    for (int k = 1; k <= kMaxPow5; ++k) {
      const uint64_t d = kPow5.v[k];
      int b = 0;
      while (b < 64 && (d >> b) != 0) ++b;
      bits[k] = b;
      // Long division of 2^(127 + b) by d, one bit at a time.
      u128 q = 0;
      u128 rem = 0;
      for (int i = 127 + b; i >= 0; --i) {
        rem = (rem << 1) | (i == 127 + b ? 1 : 0);
        q <<= 1;
        if (rem >= d) {
          rem -= d;
          q |= 1;
        }
      }
      r[k] = rem != 0 ? q + 1 : q;
    }
  }
};
constexpr Recip5Table kRecip5;

struct Pow10Table {
  uint64_t v[20];
  constexpr Pow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i < 20; ++i) v[i] = v[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;

int Clz128(u128 x) {
  const auto hi = static_cast<uint64_t>(x >> 64);
  return hi != 0 ? __builtin_clzll(hi) : 64 + __builtin_clzll(static_cast<uint64_t>(x));
}

// |value| = w * 10^q (1 <= w < 2^64, |q| <= kMaxPow5) as (m + f) * 2^e with m in
// [2^63, 2^64) and 0 <= f < 1; sticky = (f != 0).
struct Scaled {
  uint64_t m;
  int e;
  bool sticky;
};

Scaled Scale(uint64_t w, int q) {
  if (q < 0) {
    // x = W * 2^(127 + b) / 5^k (W = w normalised to bit 63) lies in (P - W, P) for
    // P = W * R[k] (192 bits). When the bits of P below its top 64 are at least the
    // error bound, those 64 bits are x's and x has more (sticky); otherwise divide.
    const int k = -q;
    const int lz = __builtin_clzll(w);
    const uint64_t wn = w << lz;
    const u128 r = kRecip5.r[k];
    const u128 lo = static_cast<u128>(wn) * static_cast<uint64_t>(r);
    const u128 mid = static_cast<u128>(wn) * static_cast<uint64_t>(r >> 64) + (lo >> 64);
    const int s = static_cast<int>(1 - (mid >> 127));  // P's top bit: 191 - s
    const auto low64 = static_cast<uint64_t>(lo);
    // P << s = top * 2^64 + (low64 << s): its top 64 bits and the 128 below them.
    const u128 top = (mid << s) | (s != 0 ? low64 >> 63 : 0);
    const u128 rest = (static_cast<u128>(static_cast<uint64_t>(top)) << 64) | (low64 << s);
    if (rest >= (static_cast<u128>(wn) << s)) {
      return {static_cast<uint64_t>(top >> 64), -(kRecip5.bits[k] - 1) - lz - k - s, true};
    }
  }
  u128 x;
  int e;
  bool sticky = false;
  if (q >= 0) {
    x = static_cast<u128>(w) * kPow5.v[q];  // exact, < 2^127
    e = q;
  } else {
    // w * 2^-k / 5^k with w normalised to bit 63, so the quotient has 65 to 127 bits.
    const int k = -q;
    const int lz = __builtin_clzll(w);
    const u128 num = static_cast<u128>(w << lz) << 64;
    const uint64_t d = kPow5.v[k];
    x = num / d;
    sticky = num % d != 0;
    e = -64 - lz - k;
  }
  const int lz = Clz128(x);
  x <<= lz;
  sticky |= static_cast<uint64_t>(x) != 0;
  return {static_cast<uint64_t>(x >> 64), e + 64 - lz, sticky};
}

// IEEE bits of (m + f) * 2^e rounded to nearest even with kMant stored bits; the
// exponent field must fit (true for the inputs of Scale: 2^-90 < |value| < 2^154).
// Returns false on overflow of kExpBits.
template <int kMant, int kExpBits>
bool RoundNearest(const Scaled& s, uint64_t* bits) {
  constexpr int kDrop = 63 - kMant;
  constexpr uint64_t kHalf = uint64_t{1} << (kDrop - 1);
  constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  const uint64_t m = s.m >> kDrop;  // kMant + 1 bits, the leading one included
  const uint64_t rem = s.m & ((uint64_t{1} << kDrop) - 1);
  const int exp = s.e + 63;           // value = 1.f * 2^exp before rounding
  if (exp < 1 - kBias) return false;  // not reached for Scale's range
  // The leading one adds 1 to the exponent field, and a carry out of the rounded
  // significand another: the bits come out right without a branch.
  const uint64_t up = static_cast<uint64_t>(rem > kHalf) |
                      (static_cast<uint64_t>(rem == kHalf) & (static_cast<uint64_t>(s.sticky) | m));
  const uint64_t b = (static_cast<uint64_t>(exp + kBias - 1) << kMant) + m + (up & 1);
  if ((b >> kMant) >= (uint64_t{1} << kExpBits) - 1) return false;  // overflow
  *bits = b;
  return true;
}

bool ScaledRange(const Scanned& s) {
  return s.kind == Scanned::kFinite && s.digits > 0 && s.q >= -kMaxPow5 && s.q <= kMaxPow5;
}

// 10^0 .. 10^22: exact doubles.
constexpr double kPow10Double[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// w * 10^q as the nearest double when w < 2^53 and |q| <= 22: w and 10^|q| are exact
// doubles, so one IEEE multiplication or division rounds the value once.
bool ClingerDouble(const Scanned& s, double* v) {
  if (s.dropped || s.w >= (uint64_t{1} << 53) || s.q < -22 || s.q > 22) return false;
  const auto w = static_cast<double>(s.w);
  *v = s.q < 0 ? w / kPow10Double[-s.q] : w * kPow10Double[s.q];
  return true;
}

// IEEE bits of |value| in DOUBLE / FLOAT, or false.
template <int kMant, int kExpBits>
bool FloatBits(const Scanned& s, uint64_t* bits) {
  if (s.kind != Scanned::kFinite) return false;
  if (s.digits == 0) {
    *bits = 0;
    return true;
  }
  // DOUBLE, w < 2^53 and |q| <= 22: w and 10^|q| are exact doubles, so one IEEE
  // multiplication or division rounds w * 10^q once.
  double v;
  if (ClingerDouble(s, &v)) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof(b));
    if (kMant == 52) {
      *bits = b;
      return true;
    }
    // FLOAT: v is within half a double ulp of the value, so it rounds to the same float
    // unless it is within one double ulp of a float midpoint (low 29 bits 0x10000000) or
    // outside float's normal range (where the midpoints lie elsewhere).
    const uint64_t low = b & 0x1FFFFFFF;
    if (v >= 0x1p-126 && (low < 0x0FFFFFFF || low > 0x10000001)) {
      const float f = static_cast<float>(v);
      uint32_t fb;
      std::memcpy(&fb, &f, sizeof(fb));
      *bits = fb;
      return true;
    }
  }
  if (!ScaledRange(s)) return false;
  const int q = static_cast<int>(s.q);
  if (!RoundNearest<kMant, kExpBits>(Scale(s.w, q), bits)) {
    if (kExpBits != 8) return false;
    *bits = uint64_t{0xFF} << 23;  // FLOAT overflow: Inf
  }
  if (!s.dropped) return true;
  // w * 10^q <= |value| < (w + 1) * 10^q: equal results bound it.
  uint64_t upper;
  if (s.w == UINT64_MAX || !RoundNearest<kMant, kExpBits>(Scale(s.w + 1, q), &upper)) {
    return false;
  }
  return upper == *bits;
}

// floor(|value|) saturated to `max`, or false when it needs the reference.
bool IntegerPart(const Scanned& s, uint64_t max, uint64_t* mag) {
  if (s.kind != Scanned::kFinite) return false;
  if (s.digits == 0) {
    *mag = 0;
    return true;
  }
  if (s.q >= 0) {
    if (s.digits + s.q <= 19) {
      *mag = s.w * kPow10.v[s.q];
    } else if (max < kPow10.v[19]) {
      *mag = max;  // at least 10^19
    } else {
      return false;  // UINT64 from 10^19 on
    }
  } else {
    // Dropped digits are below w's last one: they never change the integer part.
    *mag = -s.q >= s.digits ? 0 : s.w / kPow10.v[-s.q];
  }
  if (*mag > max) *mag = max;
  return true;
}

bool IntCode(const Scanned& s, int bits, bool is_signed, uint64_t* code) {
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (!is_signed) {
    uint64_t mag;
    if (!IntegerPart(s, mask, &mag)) return false;
    *code = s.neg ? 0 : mag;  // negative values saturate to 0
    return true;
  }
  const uint64_t hi = mask >> 1;  // 2^(bits-1) - 1
  uint64_t mag;
  if (!IntegerPart(s, s.neg ? hi + 1 : hi, &mag)) return false;
  *code = (s.neg ? (0 - mag) : mag) & mask;
  return true;
}

}  // namespace

bool FastCode(const Scanned& s, DataType type, uint64_t* code) {
  switch (Facts(type).kind) {
    case TypeKind::kSignedInt: return IntCode(s, BitWidth(type), true, code);
    case TypeKind::kUnsignedInt: return IntCode(s, BitWidth(type), false, code);
    case TypeKind::kBool:
      if (s.kind != Scanned::kFinite) return false;
      *code = s.digits != 0 ? 1 : 0;
      return true;
    default: break;
  }
  uint64_t bits;
  if (type == DataType::kDouble) {
    if (!FloatBits<52, 11>(s, &bits)) return false;
    *code = bits | (s.neg ? uint64_t{1} << 63 : 0);
    return true;
  }
  if (type == DataType::kFloat) {
    if (!FloatBits<23, 8>(s, &bits)) return false;
    *code = bits | (s.neg ? uint64_t{1} << 31 : 0);
    return true;
  }
  return false;
}

bool ToF32RoundToOdd(const Scanned& s, uint32_t* bits) {
  if (s.kind != Scanned::kFinite) return false;
  const uint32_t sign = s.neg ? 0x80000000u : 0;
  if (s.digits == 0) {
    *bits = sign;
    return true;
  }
  double d;
  if (ClingerDouble(s, &d) && d >= 0x1p-126 && d < 0x1p128) {
    // d is within half a double ulp of the value: when its low 29 bits are neither 0 nor
    // next to 0, the value lies strictly between the same two floats as d.
    uint64_t b;
    std::memcpy(&b, &d, sizeof(b));
    const uint64_t low = b & 0x1FFFFFFF;
    if (low > 1 && low < 0x1FFFFFFF) {
      const auto exp = static_cast<uint32_t>((b >> 52) - 1023 + 127);
      *bits = sign | (exp << 23) | (static_cast<uint32_t>(b >> 29) & 0x7FFFFF) | 1;
      return true;
    }
  }
  if (!ScaledRange(s) || s.dropped) return false;
  const Scaled v = Scale(s.w, static_cast<int>(s.q));
  const int exp = v.e + 63;
  if (exp > 127 || exp < -126) return false;
  uint32_t m = static_cast<uint32_t>(v.m >> 40);
  if ((v.m & ((uint64_t{1} << 40) - 1)) != 0 || v.sticky) m |= 1;
  *bits = sign | (static_cast<uint32_t>(exp + 127) << 23) | (m & 0x7FFFFF);
  return true;
}

}  // namespace text
}  // namespace tensorcast
