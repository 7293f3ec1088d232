// String <-> number conversions of the reference implementation.
#include "lib/reference/string_codec.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>
#include <vector>

#include "lib/type_facts.h"

namespace tensorcast {
namespace reference {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view s, const char* word) {
  const size_t n = std::strlen(word);
  if (s.size() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (Lower(s[i]) != word[i]) return false;
  }
  return true;
}

// Unsigned big integer, 32-bit limbs, little-endian. Only what the exact
// comparison of a decimal with a double needs.
class BigInt {
 public:
  explicit BigInt(uint64_t v) {
    while (v != 0) {
      limbs_.push_back(static_cast<uint32_t>(v));
      v >>= 32;
    }
  }
  void MulAdd(uint32_t mul, uint32_t add) {
    uint64_t carry = add;
    for (uint32_t& limb : limbs_) {
      const uint64_t t = static_cast<uint64_t>(limb) * mul + carry;
      limb = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
  }
  void MulPow10(int64_t k) {
    for (; k >= 9; k -= 9) MulAdd(1000000000u, 0);
    static constexpr uint32_t kPow10[9] = {1,      10,      100,      1000,     10000,
                                           100000, 1000000, 10000000, 100000000};
    if (k > 0) MulAdd(kPow10[k], 0);
  }
  void ShiftLeft(int64_t bits) {
    if (limbs_.empty() || bits == 0) return;
    const size_t words = static_cast<size_t>(bits / 32);
    const int rest = static_cast<int>(bits % 32);
    if (rest != 0) {
      uint32_t carry = 0;
      for (uint32_t& limb : limbs_) {
        const uint32_t next = limb >> (32 - rest);
        limb = (limb << rest) | carry;
        carry = next;
      }
      if (carry != 0) limbs_.push_back(carry);
    }
    limbs_.insert(limbs_.begin(), words, 0u);
  }
  // -1, 0, +1
  friend int Compare(const BigInt& a, const BigInt& b) {
    if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
    for (size_t i = a.limbs_.size(); i-- > 0;) {
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    }
    return 0;
  }

 private:
  std::vector<uint32_t> limbs_;
};

// Sign of |decimal| - |v| for a finite positive double v, exactly.
int CompareDecimalWithDouble(const Decimal& d, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const int64_t e_field = static_cast<int64_t>((bits >> 52) & 0x7FF);
  uint64_t m = bits & ((1ull << 52) - 1);
  int64_t e2;
  if (e_field == 0) {
    e2 = -1074;
  } else {
    m |= 1ull << 52;
    e2 = e_field - 1075;
  }
  BigInt lhs(0), rhs(m);
  for (int i = 0; i < d.len; ++i) lhs.MulAdd(10, static_cast<uint32_t>(d.digits[i] - '0'));
  if (d.exp10 >= 0)
    lhs.MulPow10(d.exp10);
  else
    rhs.MulPow10(-d.exp10);
  if (e2 >= 0)
    rhs.ShiftLeft(e2);
  else
    lhs.ShiftLeft(-e2);
  const int c = Compare(lhs, rhs);
  // Dropped digits only matter when the kept ones equal v exactly: v has at most
  // 767 significant digits, fewer than kMaxDigits.
  return c != 0 ? c : (d.sticky ? 1 : 0);
}

// |decimal| rounded to nearest double, and whether it is out of double's range.
double NearestDouble(const Decimal& d, bool* overflow, bool* underflow) {
  *overflow = *underflow = false;
  if (d.len == 0) return 0.0;
  // Dropped non-zero digits become one trailing '1': the value stays strictly
  // between the same two doubles (a double has at most 767 significant digits).
  char buf[Decimal::kMaxDigits + 32];
  std::memcpy(buf, d.digits, static_cast<size_t>(d.len));
  char* p = buf + d.len;
  int64_t exp10 = d.exp10;
  if (d.sticky) {
    *p++ = '1';
    --exp10;
  }
  *p++ = 'e';
  p = std::to_chars(p, buf + sizeof(buf), exp10).ptr;
  double v = 0.0;
  const std::from_chars_result r = std::from_chars(buf, p, v, std::chars_format::scientific);
  if (r.ec == std::errc::result_out_of_range || std::isinf(v) || v == 0.0) {
    // The value is not zero (len > 0): decide by its decimal magnitude.
    if (d.len + d.exp10 > 0) {
      *overflow = true;
      return HUGE_VAL;
    }
    *underflow = true;
    return 0.0;
  }
  return v;
}

double WithSign(bool neg, double v) { return neg ? -v : v; }

// Splits std::to_chars scientific output "d.dddde+XX" into digits and exponent.
int SplitScientific(const char* begin, const char* end, char* digits, int* exp10) {
  int n = 0;
  const char* p = begin;
  for (; p < end && *p != 'e'; ++p) {
    if (IsDigit(*p)) digits[n++] = *p;
  }
  int e = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), end, e);
  while (n > 1 && digits[n - 1] == '0') --n;
  *exp10 = e;
  return n;
}

// numpy's str() layout for the finite non-zero |value| = 0.d1d2.. * 10^(exp10+1)
// (i.e. d1.d2d3... x 10^exp10).
std::string Layout(bool neg, const char* digits, int n, int exp10, double abs_value) {
  std::string s;
  if (neg) s += '-';
  if (abs_value >= 1e-4 && abs_value < 1e16) {
    if (exp10 >= 0) {
      for (int i = 0; i <= exp10; ++i) s += i < n ? digits[i] : '0';
      s += '.';
      if (n > exp10 + 1)
        s.append(digits + exp10 + 1, static_cast<size_t>(n - exp10 - 1));
      else
        s += '0';
    } else {
      s += "0.";
      s.append(static_cast<size_t>(-exp10 - 1), '0');
      s.append(digits, static_cast<size_t>(n));
    }
    return s;
  }
  s += digits[0];
  if (n > 1) {
    s += '.';
    s.append(digits + 1, static_cast<size_t>(n - 1));
  }
  s += 'e';
  s += exp10 < 0 ? '-' : '+';
  const int a = exp10 < 0 ? -exp10 : exp10;
  if (a < 10) s += '0';
  s += std::to_string(a);
  return s;
}

// Does the decimal digits * 10^(exp10 - n + 1) encode back to `code` in `type`?
// Whether finite non-zero a < b, exactly.
bool Below(const Exact& a, const Exact& b) {
  const int la = a.exp + 64 - __builtin_clzll(a.mant), lb = b.exp + 64 - __builtin_clzll(b.mant);
  if (la != lb) return la < lb;
  // Equal leading bits: aligned to the smaller exponent, both still fit in 64 bits.
  const int e = a.exp < b.exp ? a.exp : b.exp;
  return (a.mant << (a.exp - e)) < (b.mant << (b.exp - e));
}

bool RoundTrips(DataType type, uint64_t code, const char* digits, int n, int exp10) {
  Decimal d;
  std::memcpy(d.digits, digits, static_cast<size_t>(n));
  d.len = n;
  d.exp10 = exp10 - (n - 1);
  const Exact x = DecimalToExact(d);
  if (Facts(type).nan_style == NanStyle::kNone && x.mant != 0) {
    // Formats without Inf and NaN always saturate: a text names the largest value only
    // when an unbounded format would round it there too, below max + ulp / 2 (the tie
    // goes to the even neighbour above, the largest significand being odd).
    const uint64_t max_code = (1ull << (BitWidth(type) - 1)) - 1;
    const Exact max = DecodeFloat(type, max_code);
    Exact limit = max;
    limit.mant = 2 * max.mant + 1;
    limit.exp = max.exp - 1;
    if (!Below(x, limit)) return false;
  }
  const CastOptions opts{false, RoundMode::kNearest};
  // Compare magnitudes: the sign is formatted separately.
  const uint64_t got = EncodeFloat(type, x, opts);
  return got == code;
}

// The shortest digits that round-trip for a small float format, by trying each
// precision: the correctly rounded candidate first, then its two neighbours.
int ShortestDigits(DataType type, uint64_t abs_code, double abs_value, char* digits, int* exp10) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    const std::to_chars_result r =
        std::to_chars(buf, buf + sizeof(buf), abs_value, std::chars_format::scientific, p - 1);
    int e = 0;
    char cand[24];
    int n = 0;
    for (const char* q = buf; q < r.ptr && *q != 'e'; ++q) {
      if (IsDigit(*q)) cand[n++] = *q;
    }
    const char* ep = std::find(buf, r.ptr, 'e');
    std::from_chars(ep + 1 + (ep[1] == '+' ? 1 : 0), r.ptr, e);
    if (RoundTrips(type, abs_code, cand, n, e)) {
      std::memcpy(digits, cand, static_cast<size_t>(n));
      while (n > 1 && digits[n - 1] == '0') --n;
      *exp10 = e;
      return n;
    }
    // Neighbours with the same number of digits (the correctly rounded candidate can
    // fall outside an asymmetric rounding interval at a power of two).
    uint64_t value = 0;
    for (int i = 0; i < n; ++i) value = value * 10 + static_cast<uint64_t>(cand[i] - '0');
    for (int delta : {-1, 1}) {
      const uint64_t v2 = value + static_cast<uint64_t>(delta);
      char alt[24];
      const std::to_chars_result r2 = std::to_chars(alt, alt + sizeof(alt), v2);
      if (r2.ptr - alt != n) continue;  // digit count changed: a shorter form exists
      if (RoundTrips(type, abs_code, alt, n, e)) {
        std::memcpy(digits, alt, static_cast<size_t>(n));
        while (n > 1 && digits[n - 1] == '0') --n;
        *exp10 = e;
        return n;
      }
    }
  }
  // Unreachable for formats of <= 53 bits; fall back to 17 digits.
  const std::to_chars_result r =
      std::to_chars(buf, buf + sizeof(buf), abs_value, std::chars_format::scientific, 16);
  return SplitScientific(buf, r.ptr, digits, exp10);
}

}  // namespace

bool ParseDecimal(std::string_view text, Decimal* out) {
  Decimal& d = *out;
  // Every field but the digits, which are read only below `len` (clearing all 800 of them
  // would cost more than parsing most texts).
  d.kind = Decimal::kFinite;
  d.neg = false;
  d.sticky = false;
  d.len = 0;
  d.exp10 = 0;
  size_t b = 0, e = text.size();
  while (b < e && IsSpace(text[b])) ++b;
  while (e > b && IsSpace(text[e - 1])) --e;
  std::string_view s = text.substr(b, e - b);
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    d.neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (EqualsIgnoreCase(s, "inf") || EqualsIgnoreCase(s, "infinity")) {
    d.kind = Decimal::kInf;
    return true;
  }
  if (EqualsIgnoreCase(s, "nan")) {
    d.kind = Decimal::kNaN;
    return true;
  }
  size_t i = 0;
  int64_t dropped_int_digits = 0;  // integer digits beyond kMaxDigits (scale up)
  int64_t frac_digits = 0;         // fraction digits kept (scale down)
  bool any_digit = false;
  auto take = [&](char c, bool fraction) {
    any_digit = true;
    if (d.len == 0 && c == '0') {  // leading zero: only the scale matters
      if (fraction) ++frac_digits;
      return;
    }
    if (d.len < Decimal::kMaxDigits) {
      d.digits[d.len++] = c;
      if (fraction) ++frac_digits;
    } else {
      if (c != '0') d.sticky = true;
      if (!fraction) ++dropped_int_digits;
    }
  };
  for (; i < s.size() && IsDigit(s[i]); ++i) take(s[i], false);
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && IsDigit(s[i]); ++i) take(s[i], true);
  }
  if (!any_digit) return false;
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    if (i >= s.size() || !IsDigit(s[i])) return false;
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (exponent < 1000000000) exponent = exponent * 10 + (s[i] - '0');
    }
    if (eneg) exponent = -exponent;
  }
  if (i != s.size()) return false;
  // Trailing zeros of the kept digits only change the scale. Not when digits were
  // dropped: the sticky digit stands just after the last kept digit position (beyond
  // every double's significant digits), so those zeros must stay in front of it.
  int64_t trailing = 0;
  while (!d.sticky && d.len > 0 && d.digits[d.len - 1] == '0') {
    --d.len;
    ++trailing;
  }
  d.exp10 = d.len == 0 ? 0 : exponent + dropped_int_digits - frac_digits + trailing;
  return true;
}

double DecimalToDouble(const Decimal& d) {
  if (d.kind == Decimal::kNaN) return WithSign(d.neg, std::numeric_limits<double>::quiet_NaN());
  if (d.kind == Decimal::kInf) return WithSign(d.neg, HUGE_VAL);
  bool overflow, underflow;
  return WithSign(d.neg, NearestDouble(d, &overflow, &underflow));
}

Exact DecimalToExact(const Decimal& d) {
  Exact x;
  x.neg = d.neg;
  if (d.kind == Decimal::kNaN) {
    x.kind = Exact::kNaN;
    x.mant = 1ull << 63;
    return x;
  }
  if (d.kind == Decimal::kInf) {
    x.kind = Exact::kInf;
    return x;
  }
  if (d.len == 0) return x;  // +-0
  bool overflow, underflow;
  const double v = NearestDouble(d, &overflow, &underflow);
  uint64_t bits;
  if (overflow) {
    bits = 0x7FEFFFFFFFFFFFFFull;  // DBL_MAX: odd, and above every target's range
  } else if (underflow) {
    bits = 1;  // the smallest subnormal: odd, and below every target's half-ulp
  } else {
    std::memcpy(&bits, &v, sizeof(bits));
    // Fast path (no big-integer comparison): every value and every rounding midpoint of
    // a format with at most 24 significant bits is a double whose low 28 mantissa bits
    // are zero. When v - ulp, v and v + ulp all have non-zero low 28 bits (and v is a
    // normal double), the decimal's round-to-odd double (one of those three) lies in the
    // same open interval between such points as v | 1, so both round alike in every
    // such format and round_mode. Otherwise compare exactly.
    constexpr uint64_t kLow = (uint64_t{1} << 28) - 1;
    const uint64_t low = bits & kLow;
    if (low >= 2 && low <= kLow - 1 && (bits >> 52) != 0) {
      bits |= 1;
    } else {
      const int c = CompareDecimalWithDouble(d, v);
      if (c != 0) {
        if (c < 0) --bits;  // truncate toward zero: the double just below |decimal|
        bits |= 1;          // round to odd
      }
    }
  }
  double r;
  std::memcpy(&r, &bits, sizeof(r));
  Exact y = FromDouble(r);
  y.neg = d.neg;
  return y;
}

uint64_t DecimalToInt(const Decimal& d, int bits, bool is_signed) {
  Exact x;
  x.neg = d.neg;
  if (d.kind == Decimal::kNaN) return 0;
  if (d.kind == Decimal::kInf) {
    x.kind = Exact::kInf;
    return SaturatingTruncate(x, bits, is_signed);
  }
  // Integer part: the first len + exp10 digits (followed by exp10 zeros if positive).
  const int64_t int_digits = d.len + d.exp10;
  if (d.len == 0 || int_digits <= 0) return 0;
  if (int_digits > 20) {
    x.kind = Exact::kInf;  // beyond 64 bits: saturates
    return SaturatingTruncate(x, bits, is_signed);
  }
  uint64_t v = 0;
  bool huge = false;
  for (int64_t i = 0; i < int_digits; ++i) {
    const uint64_t digit = i < d.len ? static_cast<uint64_t>(d.digits[i] - '0') : 0;
    if (v > (UINT64_MAX - digit) / 10) huge = true;
    v = v * 10 + digit;
  }
  if (huge) x.kind = Exact::kInf;
  x.mant = v;
  return SaturatingTruncate(x, bits, is_signed);
}

std::string FormatFloat(DataType type, uint64_t code) {
  const Exact x = DecodeFloat(type, code);
  if (x.kind == Exact::kNaN) return "nan";
  if (x.kind == Exact::kInf) return x.neg ? "-inf" : "inf";
  if (x.mant == 0) return x.neg ? "-0.0" : "0.0";
  const double abs_value = std::fabs(ToDouble(x));
  char digits[32];
  int exp10 = 0;
  int n;
  char buf[64];
  if (type == DataType::kDouble) {
    const std::to_chars_result r =
        std::to_chars(buf, buf + sizeof(buf), abs_value, std::chars_format::scientific);
    n = SplitScientific(buf, r.ptr, digits, &exp10);
  } else if (type == DataType::kFloat) {
    const std::to_chars_result r = std::to_chars(
        buf, buf + sizeof(buf), static_cast<float>(abs_value), std::chars_format::scientific);
    n = SplitScientific(buf, r.ptr, digits, &exp10);
  } else {
    // Round-trip test on the magnitude code (sign bit cleared).
    uint64_t abs_code = code;
    if (type != DataType::kFloat8E8M0) abs_code &= (1ull << (BitWidth(type) - 1)) - 1;
    n = ShortestDigits(type, abs_code, abs_value, digits, &exp10);
  }
  return Layout(x.neg && type != DataType::kFloat8E8M0, digits, n, exp10, abs_value);
}

}  // namespace reference
}  // namespace tensorcast
