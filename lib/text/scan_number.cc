// Text -> number, stage one: the scalar scan (scan_number.h).
#include "lib/text/scan_number.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tensorcast {
namespace text {
namespace {

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

}  // namespace text
}  // namespace tensorcast
