// Text -> number, stage two: the decimal |value| = w * 10^q of a scanned text (scan_number.h)
// rounded once into the code of the target type. Three ways, tried in this order by the
// callers; whatever none of them decides goes to the reference codec
// (lib/reference/string_codec.h), so results are the reference's bit for bit
// (test/text_test.cc compares them).
//
// DecimalToIeee, the table rounding (header-only: the scans inline it): w < 2^64 times
// 10^q from the power table of the shortest-digits code (shortest.h), 10^q = beta * 2^r with
// g - 1 <= beta < g, 2^125 < g <= 2^126. For W = w shifted to bit 63, the exact X = W * beta
// lies in [P - W, P) with P = W * g, a 190-bit product of which the top 128 bits are formed
// (P', P' <= P < P' + 2^64). With both moved left by sh (2 or 3) so that P's top bit is bit
// 191, and H = P's top 64 bits, X lies in (H * 2^128 - 2^67, (H + 1) * 2^128): the rounding
// of X is that of H unless H's bits below the significand are exactly those of a boundary,
// which X may lie just below: a midpoint between two results (round to nearest even) or a
// representable value (round to odd, whose result changes there). For FLOAT and the narrower
// formats the product W * g_lo is left out too, which puts X up to 9 units of H's last bit
// above H: their undecided window is then 8 units either side of a boundary. Those cases,
// results outside the normal range and in the top binade, are left to the other ways; they
// are rare (one text in a few thousand, and for round to odd the values exactly
// representable in float32).
//
// FastCode and ToF32RoundToOdd, exact in integers: for 1 <= w < 10^19 and |q| <= 27,
// w * 5^q (q >= 0) or w * 2^64 / 5^-q (q < 0) is computed in 128-bit integers, exactly or
// with a sticky bit for the remainder (w < 2^53 and |q| <= 22: one IEEE multiplication or
// division of exact doubles), which rounds the decimal once: to nearest even into DOUBLE
// and FLOAT, and to odd into a float32 for the narrower formats (FLOAT16, BFLOAT16, the
// float8 formats, FLOAT4E2M1, FLOAT8E8M0: every format of at most 22 significand bits
// rounds that float32 as it would round the decimal; the FLOAT kernel then encodes a block
// of them). Dropped digits: the results for w and w + 1 bound the true one; when they agree
// it is the result. Integers: truncation toward zero of w * 10^q, saturated. Everything
// else (NaN, Inf, |q| > 27, BOOL's words, ties the bounds cannot decide, a float32 out of
// range) goes to the reference.
#ifndef TENSORCAST_LIB_TEXT_DECIMAL_TO_BINARY_H_
#define TENSORCAST_LIB_TEXT_DECIMAL_TO_BINARY_H_

#include <cstdint>

#include "lib/text/scan_number.h"
#include "lib/text/shortest.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace text {

// How a value is rounded into the target's significand.
enum class Rounding { kNearestEven, kOdd };

// The IEEE bits (sign included) of the scanned finite number s rounded to kMant stored
// significand bits and kExpBits exponent bits, when the value is zero or normal and the
// rounding is decided (see above); false otherwise. `powers` is PowersOf10().
template <int kMant, int kExpBits, Rounding kRound>
inline bool DecimalToIeee(const Scanned& s, const PowerOf10* powers, uint64_t* out) {
  using u128 = unsigned __int128;
  constexpr int kDrop = 63 - kMant;  // bits of the top word below the significand
  constexpr uint64_t kRoundMask = (uint64_t{1} << kDrop) - 1;
  constexpr uint64_t kHalf = uint64_t{1} << (kDrop - 1);
  constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  constexpr uint64_t kMaxField = (uint64_t{1} << kExpBits) - 1;  // Inf / NaN
  const uint64_t sign = static_cast<uint64_t>(s.neg) << (kMant + kExpBits);
  const uint64_t w = s.w;
  if (w == 0) {
    *out = sign;
    return true;
  }
  // 10^q is in the table for -kMaxPowerK <= q <= -kMinPowerK (index -q - kMinPowerK).
  const int64_t index = -s.q - kMinPowerK;
  const bool in_table = static_cast<uint64_t>(index) <= kMaxPowerK - kMinPowerK;
  const PowerOf10& p = powers[in_table ? index : 0];
  const int lz = __builtin_clzll(w);
  const uint64_t wn = w << lz;
  const auto g_lo = static_cast<uint64_t>(p.g);
  const auto g_hi = static_cast<uint64_t>(p.g >> 64);
  // FLOAT and narrower (kShort): without W * g_lo (below 2^128), which puts X less than 9
  // units of hi_n's last bit above hi_n; the undecided windows below cover 8 either side.
  constexpr bool kShort = kMant <= 23;
  const u128 high = static_cast<u128>(wn) * g_hi +
                    (kShort ? 0 : (static_cast<u128>(wn) * g_lo) >> 64);  // P' / 2^64
  // P < 2^190: its top bit is bit 188 or 189, moved to bit 191 (sh = 3 or 2): H = hi_n.
  const auto top = static_cast<uint64_t>(high >> 64);
  const auto mid = static_cast<uint64_t>(high);
  const int sh = __builtin_clzll(top);
  const uint64_t hi_n = (top << sh) | (mid >> (64 - sh));
  // |value| = 1.f * 2^e with 1.f = hi_n / 2^63 before rounding; rounded as hi_n unless
  // hi_n's bits below the significand are those of a boundary (see above).
  const int64_t e = 191 - sh + p.r - lz;
  const uint64_t rest = hi_n & kRoundMask;
  uint64_t m = hi_n >> kDrop;  // kMant + 1 bits with the leading one
  uint64_t undecided;
  if constexpr (kRound == Rounding::kNearestEven) {
    undecided = kShort ? static_cast<uint64_t>(((rest + 8 - kHalf) & kRoundMask) < 16)
                       : static_cast<uint64_t>(rest == kHalf);
    m += static_cast<uint64_t>(rest > kHalf);  // a carry moves the exponent field by one
  } else {
    undecided = kShort ? static_cast<uint64_t>(((rest + 8) & kRoundMask) < 16)
                       : static_cast<uint64_t>(rest == 0);
    m |= 1;
  }
  // The exponent field before a carry: 1 .. kMaxField - 2, so that a carry stays finite
  // (the top binade goes to the exact path).
  const int64_t field = e + kBias;
  const uint64_t abnormal =
      static_cast<uint64_t>(static_cast<uint64_t>(field - 1) >= kMaxField - 2);
  *out = ((static_cast<uint64_t>(field - 1) << kMant) + m) | sign;
  return (static_cast<uint64_t>(!in_table) | undecided | abnormal) == 0;
}

// The code of a scanned number in `type` (low BitWidth(type) bits) when the exact integer
// ways decide it; false: ask the reference. FLOAT8 / FLOAT4 / FLOAT16 / BFLOAT16 / E8M0
// targets are not handled here (see ToF32RoundToOdd).
bool FastCode(const Scanned& s, DataType type, uint64_t* code);

// The float32 bits, rounded to odd, of a finite scanned number; false: ask the reference.
bool ToF32RoundToOdd(const Scanned& s, uint32_t* bits);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_DECIMAL_TO_BINARY_H_
