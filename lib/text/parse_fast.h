// The fast path of text -> number for the common texts, with no branch that depends on
// the text's shape, so that texts of mixed lengths and forms do not stall the pipeline.
// Whatever it cannot decide it leaves to the exact paths (number_text.h): results are
// theirs bit for bit (test/text_test.cc compares them).
//
// Scanning (the window scan, x86-64 with AVX-512 BW/VL/VBMI/VBMI2): a text of 1 to 32
// bytes of the form [sign] digits [. digits] [e [sign] digits], with at most 24 mantissa
// digits (at most 19 of them significant) and 1 to 8 exponent digits. One 32-byte load
// (plain while the 32 bytes lie inside the texts' buffer, masked otherwise: no byte
// outside it is read), byte compares into bit masks of digits, '.', 'e' and signs, the
// syntax checked with bit operations, the digits gathered (vpcompressb) and spread to
// their places (vpexpandb), then converted 8 at a time with multiply-adds. Anything else
// (spaces, words, longer texts) is not such a text and goes to Scan.
//
// Converting (DecimalToIeee): |value| = w * 10^q with w < 2^64. The power table of the
// shortest-digits code gives 10^q = beta * 2^r with g - 1 <= beta < g, 2^125 < g <= 2^126.
// For W = w shifted to bit 63, the exact X = W * beta lies in [P - W, P) with P = W * g,
// a 190-bit product of which the top 128 bits are formed (P', P' <= P < P' + 2^64). With
// both moved left by sh (2 or 3) so that P's top bit is bit 191, and H = P's top 64 bits,
// X lies in (H * 2^128 - 2^67, (H + 1) * 2^128): the rounding of X is that of H unless H's
// bits below the significand are exactly those of a boundary, which X may lie just below:
// a midpoint between two results (round to nearest even) or a representable value (round
// to odd, whose result changes there). For FLOAT and the narrower formats the product
// W * g_lo is left out too, which puts X up to 9 units of H's last bit above H: their
// undecided window is then 8 units either side of a boundary. Those cases, results outside the
// normal range and in the top binade, are left to the exact path; they are rare (one text in a few
// thousand, and for round to odd the values exactly representable in float32).
#ifndef TENSORCAST_LIB_TEXT_PARSE_FAST_H_
#define TENSORCAST_LIB_TEXT_PARSE_FAST_H_

#include <cstddef>
#include <cstdint>

#include "lib/text/number_text.h"
#include "lib/text/shortest.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TENSORCAST_TEXT_WINDOW 1
#define TENSORCAST_TEXT_WINDOW_TARGET                                           \
  __attribute__((                                                               \
      target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi,bmi2,lzcnt," \
             "popcnt")))
#else
#define TENSORCAST_TEXT_WINDOW 0
#endif

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

// Test hook: whether parsing may use the window scan (when the CPU has it); returns the
// old setting. Without it the texts go through Scan.
bool SetTextWindowForTest(bool on);

#if TENSORCAST_TEXT_WINDOW

// Whether the window scan is used: the CPU has it (and no test turned it off).
bool CpuHasTextWindow();

// The window scan in two halves, so that a loop can run the first over a block of texts
// and then the second: each half's chain of dependent steps is short enough for the CPU
// to overlap many texts.
//
// First half: the text's digits, mantissa then exponent, placed in 32 bytes so that the
// mantissa's end at byte 24 and the exponent's at byte 32; `fraction` the mantissa's
// digits after the '.'; `neg` / `eneg` the signs; ok = 0: not a text of the common form.
struct WindowScan {
  alignas(32) unsigned char digits[32];
  int32_t fraction;
  uint8_t neg;
  uint8_t eneg;
  uint8_t ok;
};

// `plain_limit`: the last address from which 32 bytes may be read (0: none), so that a
// text starting at or before it is read with one plain load; after it, with a masked load that
// reads the text's bytes only.
TENSORCAST_TEXT_WINDOW_TARGET inline void ScanWindowDigits(const char* p, size_t len,
                                                           uintptr_t plain_limit, WindowScan* out) {
  const int n = static_cast<int>(len & 63);
  const __mmask32 valid = _bzhi_u32(~0u, static_cast<unsigned>(n));
  // (A masked load costs several times a plain one on the CPUs measured, and the AND with
  // the mask as a vector keeps the compiler from making the plain load a masked one.)
  const __m256i x = reinterpret_cast<uintptr_t>(p) - 1 < plain_limit  // (p null: masked)
                        ? _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
                                           _mm256_movm_epi8(valid))
                        : _mm256_maskz_loadu_epi8(valid, p);
  const __m256i d = _mm256_maskz_sub_epi8(valid, x, _mm256_set1_epi8('0'));  // 0 past the end
  const uint64_t digit = _mm256_mask_cmple_epu8_mask(valid, d, _mm256_set1_epi8(9));
  const uint64_t dot = _mm256_cmpeq_epi8_mask(x, _mm256_set1_epi8('.'));
  const uint64_t e =
      _mm256_cmpeq_epi8_mask(_mm256_or_si256(x, _mm256_set1_epi8(0x20)), _mm256_set1_epi8('e'));
  const uint64_t minus = _mm256_cmpeq_epi8_mask(x, _mm256_set1_epi8('-'));
  const uint64_t sign = _mm256_cmpeq_epi8_mask(x, _mm256_set1_epi8('+')) | minus;
  // Every condition is an integer that is non-zero when it fails, combined with | so that
  // the compiler makes no branch of them. Every byte is a digit, '.', 'e' or a sign; at
  // most one '.' and one 'e'; signs only first and right after the 'e'; the '.' before
  // the 'e'.
  uint64_t bad = ((len - 1) >> 5) | ((digit | dot | e | sign) ^ valid) | (dot & (dot - 1)) |
                 (e & (e - 1)) | (sign & ~((e << 1) | 1)) | (dot & (0 - e));
  // With one 'e' at most, e - 1 is the mantissa (every byte without one). The mantissa
  // has 1 to 24 digits; the exponent, when there is one, 1 to 8.
  const uint64_t mdig = digit & (e - 1);
  const uint64_t edig = digit ^ mdig;
  const int nd = static_cast<int>(_mm_popcnt_u64(mdig));
  const int ec = static_cast<int>(_mm_popcnt_u64(edig));
  bad |= static_cast<uint64_t>(static_cast<unsigned>(nd - 1) > 23) |
         static_cast<uint64_t>(static_cast<unsigned>(ec + (e == 0 ? 1 : 0) - 1) > 7);
  // Gathered to the low bytes (compress), then spread to their places (expand).
  const __m256i packed = _mm256_maskz_compress_epi8(static_cast<__mmask32>(mdig | edig), d);
  const __mmask32 place = (0xFFFFFFu ^ _bzhi_u32(0xFFFFFFu, static_cast<unsigned>(24 - nd))) |
                          ~_bzhi_u32(~0u, static_cast<unsigned>(32 - ec));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out->digits),
                      _mm256_maskz_expand_epi8(place, packed));
  out->fraction = static_cast<int32_t>(_mm_popcnt_u64(mdig & (0 - (dot << 1))));
  out->neg = static_cast<uint8_t>(minus & 1);
  out->eneg = static_cast<uint8_t>((minus & (e << 1)) != 0);
  out->ok = static_cast<uint8_t>(bad == 0);
}

// Second half: the number of a WindowScan with ok set, as Scan would give it (digits:
// 0 for zero, else unset: 19); false: more than 19 significant digits.
TENSORCAST_TEXT_WINDOW_TARGET inline bool WindowValue(const WindowScan& ws, Scanned* out) {
  const __m256i digits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ws.digits));
  const __m256i pairs = _mm256_maddubs_epi16(digits, _mm256_set1_epi16(0x010A));  // 10a + b
  const __m256i quads = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00010064));  // 100a + b
  const __m256i eights = _mm256_madd_epi16(_mm256_packus_epi32(quads, quads),
                                           _mm256_set1_epi32(0x00012710));  // 10000a + b
  // 32-bit lanes per 128-bit half: [digits 0-7, 8-15, copy, copy], [16-23, exponent, ...].
  const auto ab = static_cast<uint64_t>(_mm256_extract_epi64(eights, 0));
  const auto cd = static_cast<uint64_t>(_mm256_extract_epi64(eights, 2));
  const uint64_t top = ab & 0xFFFFFFFF;  // < 1000: at most 19 significant digits
  const uint64_t w =
      top * 10000000000000000ull + (ab >> 32) * uint64_t{100000000} + (cd & 0xFFFFFFFF);
  const int64_t eneg = 0 - static_cast<int64_t>(ws.eneg);  // 0 or -1
  const int64_t exponent = (static_cast<int64_t>(cd >> 32) ^ eneg) - eneg;
  out->kind = Scanned::kFinite;
  out->neg = ws.neg != 0;
  out->dropped = false;
  out->digits = w != 0 ? 19 : 0;
  out->w = w;
  out->q = exponent - ws.fraction;
  return top < 1000;
}

#endif  // TENSORCAST_TEXT_WINDOW

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_PARSE_FAST_H_
