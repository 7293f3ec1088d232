// Numbers <-> text on the fast paths (number_text.h states the method).
#include "lib/text/number_text.h"

#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "lib/reference/reference_cast.h"
#include "lib/text/parse_fast.h"
#include "lib/text/shortest.h"
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

bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The 8 bytes at p, read little-endian.
uint64_t Load8(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

// Whether the 8 bytes of x are all ASCII digits.
bool AllDigits(uint64_t x) {
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0ull, k30 = 0x3030303030303030ull;
  return (x & kHigh) == k30 && ((x + 0x0606060606060606ull) & kHigh) == k30;
}

// The value of 8 ASCII digits (the first in the lowest byte): pairs, then groups of 4,
// then 8, each step one multiply on all lanes at once.
uint32_t EightDigitsValue(uint64_t x) {
  x -= 0x3030303030303030ull;
  x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFull;      // 16-bit lanes: 10 d0 + d1
  x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFull;    // 32-bit lanes: 4 digits
  return static_cast<uint32_t>(x * 10000 + (x >> 32));  // low 32 bits: 8 digits
}

unsigned Digit(char c) { return static_cast<unsigned>(static_cast<unsigned char>(c) - '0'); }

// Case-insensitive comparison with a lower-case word.
bool IsWord(const char* p, const char* end, const char* word) {
  const size_t n = std::strlen(word);
  if (static_cast<size_t>(end - p) != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if ((p[i] | 0x20) != word[i]) return false;
  }
  return true;
}

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

// numpy's str() layout of `n` shortest digits d1 d2 .. with |x| = d1.d2.. * 10^exp10.
// Fixed-size copies: `digits` has 40 readable bytes, `out` room for kFormatRoom.
size_t Layout(bool neg, const char* digits, int n, int exp10, double abs_value, char* out) {
  char* p = out;
  *p = '-';
  p += neg ? 1 : 0;
  if (abs_value >= 1e-4 && abs_value < 1e16) {
    if (exp10 < 0) {  // 0.000ddd: "0." and -exp10 - 1 <= 3 zeros
      std::memcpy(p, "0.000000", 8);
      p += 1 - exp10;
      std::memcpy(p, digits, 24);
      p += n;
    } else if (exp10 + 1 >= n) {  // ddd000.0 (at most 16 integer digits)
      std::memcpy(p, digits, 24);
      std::memcpy(p + n, "0000000000000000", 16);
      p += exp10 + 1;
      std::memcpy(p, ".0", 2);
      p += 2;
    } else {  // ddd.ddd
      std::memcpy(p, digits, 16);
      p += exp10 + 1;
      *p++ = '.';
      std::memcpy(p, digits + exp10 + 1, 24);
      p += n - exp10 - 1;
    }
    return static_cast<size_t>(p - out);
  }
  *p++ = digits[0];
  *p = '.';
  p += n > 1 ? 1 : 0;
  std::memcpy(p, digits + 1, 24);
  p += n - 1;
  *p++ = 'e';
  *p++ = exp10 < 0 ? '-' : '+';
  const int a = exp10 < 0 ? -exp10 : exp10;
  if (a >= 100) *p++ = static_cast<char>('0' + a / 100);
  *p++ = static_cast<char>('0' + a / 10 % 10);
  *p++ = static_cast<char>('0' + a % 10);
  return static_cast<size_t>(p - out);
}

// "00" .. "99".
struct DigitPairs {
  char c[200];
  constexpr DigitPairs() : c() {
    for (int i = 0; i < 100; ++i) {
      c[2 * i] = static_cast<char>('0' + i / 10);
      c[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
  }
};
constexpr DigitPairs kDigitPairs;

// The 8 decimal digits of v < 10^8 (with leading zeros) at out: four digit pairs,
// computed side by side.
void Write8Digits(uint32_t v, char* out) {
  const uint32_t hi = v / 10000, lo = v % 10000;
  std::memcpy(out, kDigitPairs.c + 2 * (hi / 100), 2);
  std::memcpy(out + 2, kDigitPairs.c + 2 * (hi % 100), 2);
  std::memcpy(out + 4, kDigitPairs.c + 2 * (lo / 100), 2);
  std::memcpy(out + 6, kDigitPairs.c + 2 * (lo % 100), 2);
}

// The 24 decimal digits of v (with leading zeros) at out.
void Write24Digits(uint64_t v, char* out) {
  Write8Digits(static_cast<uint32_t>(v / 10000000000000000), out);
  Write8Digits(static_cast<uint32_t>(v / 100000000 % 100000000), out + 8);
  Write8Digits(static_cast<uint32_t>(v % 100000000), out + 16);
}

// The number of decimal digits of v >= 1: from its bit length (log10(2) ~ 1233 / 4096),
// then one comparison.
int DigitCount(uint64_t v) {
  const int guess = ((64 - __builtin_clzll(v)) * 1233) >> 12;  // digits - 1 or digits
  return guess + 1 - (guess < 20 && v < kPow10.v[guess] ? 1 : 0);
}

// FLOAT / DOUBLE: the shortest round-trip digits (shortest.h), laid out as numpy's str().
template <typename T>
size_t FormatIeee(T v, char* out) {
  if (std::isnan(v)) {
    std::memcpy(out, "nan", 3);
    return 3;
  }
  const bool neg = std::signbit(v);
  const T a = std::fabs(v);
  if (std::isinf(a)) {
    if (neg) {
      std::memcpy(out, "-inf", 4);
      return 4;
    }
    std::memcpy(out, "inf", 3);
    return 3;
  }
  if (a == 0) {
    if (neg) {
      std::memcpy(out, "-0.0", 4);
      return 4;
    }
    std::memcpy(out, "0.0", 3);
    return 3;
  }
  const Decimal10 d = sizeof(T) == 8 ? ShortestDouble(static_cast<double>(a))
                                     : ShortestFloat(static_cast<float>(a));
  char buf[64];  // the digits right-aligned in the first 24 bytes; Layout reads past them
  Write24Digits(d.digits, buf);
  const int n = DigitCount(d.digits);
  return Layout(neg, buf + 24 - n, n, d.exp10 + n - 1, static_cast<double>(a), out);
}

}  // namespace

bool Scan(std::string_view text, Scanned* out) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end && IsSpace(*p)) ++p;
  while (end > p && IsSpace(end[-1])) --end;
  Scanned s;
  if (p < end && (*p == '+' || *p == '-')) {
    s.neg = *p == '-';
    ++p;
  }
  const char* start = p;
  uint64_t w = 0;
  int nd = 0;
  int64_t q = 0;
  bool any = false;
  while (p < end && *p == '0') {
    ++p;
    any = true;
  }
  // A run of digits from p: the first 19 significant ones into w (8 at a time while 8
  // digits follow), the rest only set `dropped`. Integer part: each digit past the 19th
  // scales by 10 (q + 1); fraction: each kept digit divides by 10 (q - 1).
  const auto digits = [&](bool fraction) {
    if (p < end && Digit(*p) <= 9) {
      any = true;
      while (end - p >= 8 && nd <= 11 && AllDigits(Load8(p))) {
        w = w * 100000000 + EightDigitsValue(Load8(p));
        nd += 8;
        if (fraction) q -= 8;
        p += 8;
      }
    }
    for (; p < end; ++p) {
      const unsigned d = Digit(*p);
      if (d > 9) break;
      any = true;
      if (nd < 19) {
        w = w * 10 + d;
        ++nd;
        if (fraction) --q;
      } else {
        if (!fraction) ++q;
        s.dropped |= d != 0;
      }
    }
  };
  digits(false);
  if (p < end && *p == '.') {
    ++p;
    if (nd == 0) {
      for (; p < end && *p == '0'; ++p) {
        --q;
        any = true;
      }
    }
    digits(true);
  }
  if (!any) {
    if (IsWord(start, end, "inf") || IsWord(start, end, "infinity")) {
      s.kind = Scanned::kInf;
    } else if (IsWord(start, end, "nan")) {
      s.kind = Scanned::kNaN;
    } else {
      return false;
    }
    *out = s;
    return true;
  }
  if (p < end && (*p | 0x20) == 'e') {
    ++p;
    bool eneg = false;
    if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
    if (p == end || Digit(*p) > 9) return false;
    int64_t e = 0;
    for (; p < end && Digit(*p) <= 9; ++p) {
      if (e < 1000000000) e = e * 10 + Digit(*p);
    }
    q += eneg ? -e : e;
  }
  if (p != end) return false;
  s.w = w;
  s.digits = nd;
  s.q = nd == 0 ? 0 : q;
  if (nd == 0) s.dropped = false;
  *out = s;
  return true;
}

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

#if TENSORCAST_TEXT_WINDOW
namespace {
std::atomic<bool>& TextWindowFlag() {
  static std::atomic<bool> flag{
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
      __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt")};
  return flag;
}
}  // namespace

bool CpuHasTextWindow() { return TextWindowFlag().load(std::memory_order_relaxed); }

bool SetTextWindowForTest(bool on) {
  static const bool supported = TextWindowFlag().load();
  return TextWindowFlag().exchange(on && supported);
}
#else
bool SetTextWindowForTest(bool) { return false; }
#endif

int DecimalDigits(uint64_t v) { return v == 0 ? 0 : DigitCount(v); }

size_t FormatDouble(double v, char* out) { return FormatIeee(v, out); }

size_t FormatUint(uint64_t v, char* out) {
  char buf[48];  // 24 digits (2^64 has 20), right-aligned; read as one 24-byte block
  Write24Digits(v, buf);
  const int n = v == 0 ? 1 : DigitCount(v);
  std::memcpy(out, buf + 24 - n, 24);  // out has room; its first n bytes are the text
  return static_cast<size_t>(n);
}

size_t FormatInt(int64_t v, char* out) {
  *out = '-';
  const size_t neg = v < 0 ? 1 : 0;
  const uint64_t a = neg != 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return neg + FormatUint(a, out + neg);
}

size_t FormatFloat(float v, char* out) { return FormatIeee(v, out); }

size_t FormatNumber(DataType type, uint64_t code, char* out) {
  const int bits = BitWidth(type);
  switch (Facts(type).kind) {
    case TypeKind::kSignedInt: return FormatInt(reference::SignExtend(code, bits), out);
    case TypeKind::kUnsignedInt: return FormatUint(code, out);
    case TypeKind::kBool:
      if (code != 0) {
        std::memcpy(out, "True", 4);
        return 4;
      }
      std::memcpy(out, "False", 5);
      return 5;
    default: break;
  }
  if (type == DataType::kDouble) {
    double v;
    std::memcpy(&v, &code, sizeof(v));
    return FormatIeee(v, out);
  }
  if (type == DataType::kFloat) {
    const auto b = static_cast<uint32_t>(code);
    float v;
    std::memcpy(&v, &b, sizeof(v));
    return FormatIeee(v, out);
  }
  const std::string s = reference::FormatText(type, code);
  const size_t n = s.size() < kMaxNumberText ? s.size() : kMaxNumberText;
  std::memcpy(out, s.data(), n);
  return n;
}

}  // namespace text
}  // namespace tensorcast
