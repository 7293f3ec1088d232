// Shortest round-trip decimals (shortest.h states the method).
#include "lib/text/shortest.h"

#include <cstring>
#include <vector>

namespace tensorcast {
namespace text {
namespace {

using u128 = unsigned __int128;

// Unsigned big integer, 32-bit limbs, little-endian: what the table needs.
class Big {
 public:
  explicit Big(uint32_t v) : limbs_{v} {}
  void MulSmall(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& l : limbs_) {
      const uint64_t t = static_cast<uint64_t>(l) * m + carry;
      l = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
  }
  int BitLength() const {
    return static_cast<int>(32 * (limbs_.size() - 1)) + 32 - __builtin_clz(limbs_.back());
  }
  bool Bit(int i) const {
    const auto word = static_cast<size_t>(i / 32);
    return word < limbs_.size() && ((limbs_[word] >> (i % 32)) & 1) != 0;
  }
  // The 126 bits from bit `from` down (bits below 0 read as 0).
  u128 Top126(int from) const {
    u128 x = 0;
    for (int i = from; i > from - 126; --i) x = (x << 1) | (i >= 0 && Bit(i) ? 1 : 0);
    return x;
  }
  // floor(2^e / *this) when it fits in 128 bits (long division, one bit at a time).
  u128 DivideIntoPowerOfTwo(int e) const {
    // remainder < *this: kept as a Big; quotient bits shifted in.
    Big rem(0);
    u128 q = 0;
    for (int i = e; i >= 0; --i) {
      rem.ShiftLeftOne(i == e ? 1 : 0);
      q <<= 1;
      if (!rem.Less(*this)) {
        rem.Subtract(*this);
        q |= 1;
      }
    }
    return q;
  }

 private:
  void ShiftLeftOne(uint32_t in) {
    for (uint32_t& l : limbs_) {
      const uint32_t out = l >> 31;
      l = (l << 1) | in;
      in = out;
    }
    if (in != 0) limbs_.push_back(in);
  }
  bool Less(const Big& o) const {
    size_t n = limbs_.size(), m = o.limbs_.size();
    while (n > 1 && limbs_[n - 1] == 0) --n;
    while (m > 1 && o.limbs_[m - 1] == 0) --m;
    if (n != m) return n < m;
    for (size_t i = n; i-- > 0;) {
      if (limbs_[i] != o.limbs_[i]) return limbs_[i] < o.limbs_[i];
    }
    return false;
  }
  void Subtract(const Big& o) {
    int64_t borrow = 0;
    for (size_t i = 0; i < limbs_.size(); ++i) {
      int64_t t = static_cast<int64_t>(limbs_[i]) - borrow -
                  (i < o.limbs_.size() ? static_cast<int64_t>(o.limbs_[i]) : 0);
      borrow = t < 0 ? 1 : 0;
      if (t < 0) t += int64_t{1} << 32;
      limbs_[i] = static_cast<uint32_t>(t);
    }
  }
  std::vector<uint32_t> limbs_;
};

struct PowerTable {
  PowerOf10 p[kMaxPowerK - kMinPowerK + 1];
  PowerTable() {
    // k <= 0: 10^-k is an integer N of L bits; beta = N * 2^-r with r = L - 126.
    Big n(1);
    for (int k = 0; k >= kMinPowerK; --k) {
      const int bits = n.BitLength();
      const int r = bits - 126;
      // floor(N * 2^-r): the top 126 bits (r < 0: N shifted up, exact).
      p[k - kMinPowerK] = {n.Top126(bits - 1) + 1, r};
      n.MulSmall(10);
    }
    // k > 0: beta = 2^(125 + b) / 10^k with b = the bit length of 10^k, r = -(125 + b).
    Big d(1);
    for (int k = 1; k <= kMaxPowerK; ++k) {
      d.MulSmall(10);
      const int b = d.BitLength();
      p[k - kMinPowerK] = {d.DivideIntoPowerOfTwo(125 + b) + 1, -(125 + b)};
    }
  }
};

const PowerTable& Table() {
  static const PowerTable table;  // thread-safe initialisation, once
  return table;
}

const PowerOf10& Power(int k) { return Table().p[k - kMinPowerK]; }

// floor(log10(2^q)) and floor(log10(3/4 * 2^q)) for |q| <= 1100 (fixed-point log10(2);
// test/text_test.cc checks every q of that range against exact comparisons).
int FloorLog10Pow2(int q) { return static_cast<int>((static_cast<int64_t>(q) * 1262611) >> 22); }
int FloorLog10ThreeQuartersPow2(int q) {
  return static_cast<int>((static_cast<int64_t>(q) * 1262611 - 524031) >> 22);
}

uint64_t MulHigh(uint64_t a, uint64_t b) {
  return static_cast<uint64_t>((static_cast<u128>(a) * b) >> 64);
}

// g * cp / 2^127 rounded to odd (the method's "rop"), g = g1 * 2^63 + g0 with 63-bit
// halves and cp < 2^63: the integer part, with the low bit set when the fraction kept
// (z's low 63 bits; the bits of g0 * cp below 2^64 are dropped) is not zero.
uint64_t RoundToOdd(u128 g, uint64_t cp) {
  constexpr uint64_t kMask63 = (uint64_t{1} << 63) - 1;
  const auto g1 = static_cast<uint64_t>(g >> 63);
  const auto g0 = static_cast<uint64_t>(g) & kMask63;
  const uint64_t x1 = MulHigh(g0, cp);
  const uint64_t y0 = g1 * cp;
  const uint64_t y1 = MulHigh(g1, cp);
  const uint64_t z = (y0 >> 1) + x1;
  const uint64_t vbp = y1 + (z >> 63);
  return vbp | (((z & kMask63) + kMask63) >> 63);
}

// v = c * 2^q (c >= 1); c_min: the smallest normal significand; q_min: the subnormal
// exponent.
Decimal10 ToDecimal(int q, uint64_t c, uint64_t c_min, int q_min) {
  const uint64_t out = c & 1;  // the interval is closed when c is even
  const uint64_t cb = c << 2;
  const uint64_t cbr = cb + 2;
  uint64_t cbl;
  int k;
  if (c != c_min || q == q_min) {
    cbl = cb - 2;  // neighbours equally spaced
    k = FloorLog10Pow2(q);
  } else {
    cbl = cb - 1;  // at a power of two the lower neighbour is half as far
    k = FloorLog10ThreeQuartersPow2(q);
  }
  const PowerOf10& p = Power(k);  // 10^-k
  // vb = 4 v 10^-k: c * 2^q * g * 2^r * 4 = (cb << h) * g / 2^127 with h = q + r + 127.
  const int h = q + p.r + 127;
  const uint64_t vb = RoundToOdd(p.g, cb << h);
  const uint64_t vbl = RoundToOdd(p.g, cbl << h);
  const uint64_t vbr = RoundToOdd(p.g, cbr << h);
  const uint64_t s = vb >> 2;
  if (s >= 10) {
    // One digit fewer: the multiples of 10 around s (two or more fewer never fit: the
    // interval is narrower than 10^(k+1)).
    const uint64_t sp10 = s / 10 * 10;
    const uint64_t tp10 = sp10 + 10;
    const bool upin = vbl + out <= sp10 << 2;
    const bool wpin = (tp10 << 2) + out <= vbr;
    if (upin != wpin) return {upin ? sp10 : tp10, k};
  }
  const uint64_t t = s + 1;
  const bool uin = vbl + out <= s << 2;
  const bool win = (t << 2) + out <= vbr;
  if (uin != win) return {uin ? s : t, k};
  // Both in the interval: the closer one, the even one on a tie.
  const auto cmp = static_cast<int64_t>(vb - ((s + t) << 1));
  return {cmp < 0 || (cmp == 0 && (s & 1) == 0) ? s : t, k};
}

Decimal10 StripZeros(Decimal10 d) {
  while (d.digits != 0 && d.digits % 10 == 0) {
    d.digits /= 10;
    ++d.exp10;
  }
  return d;
}

}  // namespace

const PowerOf10* PowersOf10() { return Table().p; }

Decimal10 ShortestDouble(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const uint64_t t = bits & ((uint64_t{1} << 52) - 1);
  const int bq = static_cast<int>((bits >> 52) & 0x7FF);
  constexpr uint64_t kCMin = uint64_t{1} << 52;
  constexpr int kQMin = -1074;
  if (bq != 0) return StripZeros(ToDecimal(bq - 1075, kCMin | t, kCMin, kQMin));
  return StripZeros(ToDecimal(kQMin, t, kCMin, kQMin));
}

Decimal10 ShortestFloat(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const uint32_t t = bits & ((1u << 23) - 1);
  const int bq = static_cast<int>((bits >> 23) & 0xFF);
  constexpr uint64_t kCMin = uint64_t{1} << 23;
  constexpr int kQMin = -149;
  if (bq != 0) return StripZeros(ToDecimal(bq - 150, kCMin | t, kCMin, kQMin));
  return StripZeros(ToDecimal(kQMin, t, kCMin, kQMin));
}

}  // namespace text
}  // namespace tensorcast
