// Number -> text, one element (format_number.h).
#include "lib/text/format_number.h"

#include <cmath>
#include <cstring>
#include <string>

#include "lib/reference/reference_cast.h"
#include "lib/text/shortest.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace text {
namespace {

struct Pow10Table {
  uint64_t v[20];
  constexpr Pow10Table() : v() {
    v[0] = 1;
    for (int i = 1; i < 20; ++i) v[i] = v[i - 1] * 10;
  }
};
constexpr Pow10Table kPow10;

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
