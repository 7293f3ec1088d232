// The window scan: text -> number for the texts of the common form, on the AVX3_DL target
// (AVX-512 BW/VL/VBMI2, BMI2, POPCNT), with no branch that depends on the text's shape, so
// that texts of mixed lengths and forms do not stall the pipeline. Every other target scans
// with the scalar scan (scan_number.h); scan_targets.cc dispatches. Whatever the window scan
// cannot decide it leaves to the exact paths (parse_blocks.h): results are theirs bit for
// bit (test/text_test.cc compares them on every target).
//
// A text of 1 to 32 bytes of the form [sign] digits [. digits] [e [sign] digits], with at
// most 24 mantissa digits (at most 19 of them significant) and 1 to 8 exponent digits. One
// 32-byte load (plain while the 32 bytes lie inside the texts' buffer, masked otherwise: no
// byte outside it is read), byte compares into bit masks of digits, '.', 'e' and signs, the
// syntax checked with bit operations, the digits gathered (vpcompressb) and spread to their
// places (vpexpandb), then converted 8 at a time with multiply-adds. Anything else (spaces,
// words, longer texts) is not such a text and goes to Scan, unless WindowNoNumber finds it
// to be no number at all (a block of mostly bad texts). The number is then rounded by
// DecimalToIeee (decimal_to_binary.h) or, for integer targets, taken directly.
#if defined(TENSORCAST_LIB_TEXT_WINDOW_SCAN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_TEXT_WINDOW_SCAN_INL_H_
#undef TENSORCAST_LIB_TEXT_WINDOW_SCAN_INL_H_
#else
#define TENSORCAST_LIB_TEXT_WINDOW_SCAN_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hwy/highway.h"
#include "lib/text/columns.h"
#include "lib/text/decimal_to_binary.h"
#include "lib/text/format_number.h"
#include "lib/text/parse_blocks.h"
#include "lib/text/parse_column.h"
#include "lib/text/scan_number.h"
#include "lib/text/shortest.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

// Every other target compiles nothing here.
#if HWY_TARGET == HWY_AVX3_DL
#include <immintrin.h>

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace text {
namespace HWY_NAMESPACE {
// (In an unnamed namespace, like the drivers below: this file belongs to the one translation
// unit that includes it, scan_targets.cc.)
namespace {

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

// The 32-byte window of a text of len & 63 bytes (see ScanWindowDigits' `plain_limit`), the
// bytes past it zero.
inline __m256i LoadWindow(const char* p, size_t len, uintptr_t plain_limit, __mmask32* valid) {
  *valid = _bzhi_u32(~0u, static_cast<unsigned>(len & 63));
  // (A masked load costs several times a plain one on the CPUs measured, and the AND with
  // the mask as a vector keeps the compiler from making the plain load a masked one.)
  return reinterpret_cast<uintptr_t>(p) - 1 < plain_limit  // (p null: masked)
             ? _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
                                _mm256_movm_epi8(*valid))
             : _mm256_maskz_loadu_epi8(*valid, p);
}

// A window's bytes as bit masks (bit i: byte i): digits (with `d`, the bytes minus '0',
// 0 past the end), '.', 'e' / 'E', '-', signs, and `other`, the bytes that are none of
// these; `order` is non-zero when those bytes stand in an order no number has (two '.'
// or 'e', a sign neither first nor right after the 'e', a '.' after the 'e').
struct WindowBytes {
  __m256i d;
  uint64_t digit, dot, e, minus, sign, other, order;
};

inline WindowBytes ClassifyWindow(__m256i x, __mmask32 valid) {
  WindowBytes c;
  c.d = _mm256_maskz_sub_epi8(valid, x, _mm256_set1_epi8('0'));
  c.digit = _mm256_mask_cmple_epu8_mask(valid, c.d, _mm256_set1_epi8(9));
  c.dot = _mm256_cmpeq_epi8_mask(x, _mm256_set1_epi8('.'));
  c.e = _mm256_cmpeq_epi8_mask(_mm256_or_si256(x, _mm256_set1_epi8(0x20)), _mm256_set1_epi8('e'));
  c.minus = _mm256_cmpeq_epi8_mask(x, _mm256_set1_epi8('-'));
  c.sign = _mm256_cmpeq_epi8_mask(x, _mm256_set1_epi8('+')) | c.minus;
  c.other = (c.digit | c.dot | c.e | c.sign) ^ valid;
  c.order = (c.dot & (c.dot - 1)) | (c.e & (c.e - 1)) | (c.sign & ~((c.e << 1) | 1)) |
            (c.dot & (0 - c.e));
  return c;
}

// `plain_limit`: the last address from which 32 bytes may be read (0: none), so that a
// text starting at or before it is read with one plain load; after it, with a masked load that
// reads the text's bytes only.
inline void ScanWindowDigits(const char* p, size_t len, uintptr_t plain_limit, WindowScan* out) {
  __mmask32 valid;
  const __m256i x = LoadWindow(p, len, plain_limit, &valid);
  const WindowBytes c = ClassifyWindow(x, valid);
  const uint64_t digit = c.digit, dot = c.dot, e = c.e, minus = c.minus, other = c.other;
  // Every condition is an integer that is non-zero when it fails, combined with | so that
  // the compiler makes no branch of them. Every byte is a digit, '.', 'e' or a sign, in an
  // order a number has (WindowBytes::order).
  uint64_t bad = ((len - 1) >> 5) | other | c.order;
  // With one 'e' at most, e - 1 is the mantissa (every byte without one). The mantissa
  // has 1 to 24 digits; the exponent, when there is one, 1 to 8.
  const uint64_t mdig = digit & (e - 1);
  const uint64_t edig = digit ^ mdig;
  const int nd = static_cast<int>(_mm_popcnt_u64(mdig));
  const int ec = static_cast<int>(_mm_popcnt_u64(edig));
  bad |= static_cast<uint64_t>(static_cast<unsigned>(nd - 1) > 23) |
         static_cast<uint64_t>(static_cast<unsigned>(ec + (e == 0 ? 1 : 0) - 1) > 7);
  // Gathered to the low bytes (compress), then spread to their places (expand). A text
  // with a byte of no such text (words, most bad texts) gets no digits and no fraction:
  // the second half then reads a zero, the converts' cheapest input. (`other` is known
  // early: testing all of `bad` here would lengthen the chain before the stores.)
  const uint64_t keep = 0 - static_cast<uint64_t>(other == 0);
  const __m256i packed = _mm256_maskz_compress_epi8(static_cast<__mmask32>(mdig | edig), c.d);
  const __mmask32 place = ((0xFFFFFFu ^ _bzhi_u32(0xFFFFFFu, static_cast<unsigned>(24 - nd))) |
                           ~_bzhi_u32(~0u, static_cast<unsigned>(32 - ec))) &
                          static_cast<uint32_t>(keep);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out->digits),
                      _mm256_maskz_expand_epi8(place, packed));
  out->fraction = static_cast<int32_t>(_mm_popcnt_u64(mdig & (0 - (dot << 1)) & keep));
  out->neg = static_cast<uint8_t>(minus & 1);
  out->eneg = static_cast<uint8_t>((minus & (e << 1)) != 0);
  out->ok = static_cast<uint8_t>(bad == 0);
}

// Whether a text that is not of the common form is no number at all (Scan would refuse it
// too), known for texts of 0 to 32 bytes: a byte that no number holds (anything but
// digits, '.', 'e', signs, whitespace and the letters of inf, infinity and nan), or only
// digits, '.', 'e' and signs in an order Scan refuses (ScanWindowDigits' checks without its
// digit counts), or nothing. Called for the texts the window scan leaves, so that a column
// of bad texts does not take the exact path for each.
HWY_INLINE bool WindowNoNumber(const char* p, size_t len, uintptr_t plain_limit) {
  __mmask32 valid;
  const __m256i x = LoadWindow(p, len, plain_limit, &valid);
  const WindowBytes c = ClassifyWindow(x, valid);
  // Whitespace (0x09-0x0D, ' ') and a, f, i, n, t, y in either case, by nibble tables (bit
  // 1: 0x0_ with 9-D; 2: 0x2_ with 0; 4: 0x4_/0x6_ with 1, 6, 9, E; 8: 0x5_/0x7_ with 4, 9).
  const __m256i lo_table = _mm256_setr_epi8(2, 4, 0, 0, 8, 0, 4, 0, 0, 13, 1, 1, 1, 1, 4, 0,  //
                                            2, 4, 0, 0, 8, 0, 4, 0, 0, 13, 1, 1, 1, 1, 4, 0);
  const __m256i hi_table = _mm256_setr_epi8(1, 0, 2, 0, 4, 8, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                            1, 0, 2, 0, 4, 8, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i cls = _mm256_and_si256(
      _mm256_shuffle_epi8(lo_table, _mm256_and_si256(x, nibble)),
      _mm256_shuffle_epi8(hi_table, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble)));
  const uint64_t word_or_space = _mm256_test_epi8_mask(cls, cls);
  // With whitespace or a word, Scan decides. (No branch on the text: bad texts come in
  // every shape.)
  const uint64_t mdig = c.digit & (c.e - 1);
  const bool wrong_order =
      (c.other == 0) & ((c.order != 0) | (mdig == 0) | ((c.e != 0) & (c.digit == mdig)));
  return (len <= 32) & ((len == 0) | ((c.other & ~word_or_space) != 0) | wrong_order);
}

// Second half: the number of a WindowScan with ok set, as Scan would give it (digits:
// 0 for zero, else unset: 19); false: more than 19 significant digits.
inline bool WindowValue(const WindowScan& ws, Scanned* out) {
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

// The window scan runs its halves over kScanBlock texts at a time (Zen 5: 8, 16 and 32
// measured alike; 64, and one call per 16 texts, slower).
constexpr size_t kScanBlock = 16;
// Texts that are not one buffer's (std::string, StringView) are read with masked loads,
// which the CPU does not start early: the text kPrefetchAhead places on is prefetched (Zen
// 5, 1M texts of one buffer through views: 18 -> 15 ns per text; 8, 16, 32 alike).
constexpr size_t kPrefetchAhead = 16;

// DecimalToIeee as a Convert.
template <int kMant, int kExpBits, Rounding kRound>
struct IeeeConvert {
  const PowerOf10* powers;
  bool operator()(const Scanned& s, uint64_t* code) const {
    return DecimalToIeee<kMant, kExpBits, kRound>(s, powers, code);
  }
};

// Integer targets: a text without a fraction or an exponent (q = 0) here, saturated as
// FastCode does; the others through FastCode, with the digit count that WindowValue
// leaves unset.
struct IntConvert {
  DataType type;
  bool operator()(Scanned s, uint64_t* code) const {
    if (s.q != 0) {
      s.digits = DecimalDigits(s.w);
      return FastCode(s, type, code);
    }
    // (Masks rather than branches on the sign, which is random in typical data.)
    const int bits = BitWidth(type);
    const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    const uint64_t neg = 0 - static_cast<uint64_t>(s.neg);  // all ones or 0
    if (Facts(type).kind != TypeKind::kSignedInt) {
      *code = std::min(s.w, mask) & ~neg;  // negative values saturate to 0
      return true;
    }
    const uint64_t mag = std::min(s.w, (mask >> 1) - neg);
    *code = ((mag ^ neg) - neg) & mask;
    return true;
  }
};

// A fill (parse_blocks.h) through the window scan: its first half over the block, then the
// second, with no branch on the texts (the second half's result for a text the first did not
// take is dropped). Texts that start at or before `plain_limit` are read with plain loads.
// Compiled with LZCNT too, which Highway 1.0.3 leaves out of AVX3_DL's flags although its
// run-time check requires it from AVX2 on: the leading-zero counts of DecimalToIeee are then
// one instruction each.
template <class Get, class Convert>
struct WindowFill {
  static constexpr bool kScans = false;
  const Get& get;
  Convert convert;
  uintptr_t plain_limit;
  template <class Out>
  __attribute__((target(HWY_TARGET_STR ",lzcnt"))) void operator()(size_t b, size_t n,
                                                                   unsigned char* out,
                                                                   uint64_t* pending_words,
                                                                   uint64_t* bad_words) const {
    const Get texts = get;  // a local copy, which the stores below cannot alias
    const uintptr_t limit = plain_limit;
    WindowScan ws[kScanBlock];
    for (size_t w = 0; w * 64 < n; ++w) pending_words[w] = bad_words[w] = 0;
    for (size_t k = 0; k < n; k += kScanBlock) {
      const size_t m = std::min(kScanBlock, n - k);
      for (size_t j = 0; j < m; ++j) {
        const std::string_view t = texts.Text(b + k + j);
        if (Get::kPrefetch) {
          __builtin_prefetch(texts.Text(std::min(b + k + j + kPrefetchAhead, b + n - 1)).data());
        }
        ScanWindowDigits(t.data(), t.size(), limit, &ws[j]);
      }
      const uint64_t present = texts.Present(b + k, m);
      uint64_t decided_bits = present;
      for (size_t j = 0; j < m; ++j) {
        Scanned s;
        uint64_t code = 0;
        const bool in_range = WindowValue(ws[j], &s);
        const bool decided = convert(s, &code);
        PutCode<Out>(out, k + j, code);
        decided_bits &= ~(static_cast<uint64_t>(!((ws[j].ok != 0) & in_range & decided)) << j);
      }
      const uint64_t pending = ~decided_bits & ((uint64_t{1} << m) - 1);
      pending_words[k / 64] |= pending << (k % 64);
      // A block that leaves many texts is told which are no number at all, one at a time;
      // a few undecided texts (and many columns have some) go to the exact path as they are.
      uint64_t no_number = 0, left = pending & present;
      if (static_cast<size_t>(__builtin_popcountll(left)) < tuning::kNoNumberMinPending) left = 0;
      for (; left != 0; left &= left - 1) {
        const size_t j = static_cast<size_t>(__builtin_ctzll(left));
        const std::string_view t = texts.Text(b + k + j);
        no_number |= static_cast<uint64_t>(WindowNoNumber(t.data(), t.size(), limit)) << j;
      }
      bad_words[k / 64] |= no_number << (k % 64);
    }
  }
};

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace text
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

// The drivers over the window fills. Outside Highway's per-target region, so that they are
// compiled for the baseline CPU like parse_blocks.h's: only the fills are AVX3_DL code,
// called once per block of texts.
namespace tensorcast {
namespace text {
namespace HWY_NAMESPACE {
namespace {

// Whether the window scan parses texts to `type`: the float types and the 8- to 64-bit
// integers (BOOL's words and the packed integers go through the scalar scan).
inline bool WindowParses(DataType type) {
  const TypeKind kind = Facts(type).kind;
  return kind == TypeKind::kFloat ||
         ((kind == TypeKind::kSignedInt || kind == TypeKind::kUnsignedInt) && BitWidth(type) >= 8);
}

// A type WindowParses, through the window scan. `plain_limit`: see ScanWindowDigits (0:
// every text with a masked load).
template <class Get>
Status ParseWithWindow(const Get& get, uintptr_t plain_limit, size_t first, void* dst,
                       DataType type, size_t count, const CastOptions& options, NullRule rule) {
  const PowerOf10* powers = PowersOf10();
  const auto window = [&](auto convert) {
    return WindowFill<Get, decltype(convert)>{get, convert, plain_limit};
  };
  if (IsNarrowFloat(type)) {
    return ParseNarrow(get, window(IeeeConvert<23, 8, Rounding::kOdd>{powers}), first, dst, type,
                       count, options, rule);
  }
  if (type == DataType::kDouble) {
    return ParseScalar<64>(get, window(IeeeConvert<52, 11, Rounding::kNearestEven>{powers}), first,
                           dst, type, count, options, rule);
  }
  if (type == DataType::kFloat) {
    return ParseScalar<32>(get, window(IeeeConvert<23, 8, Rounding::kNearestEven>{powers}), first,
                           dst, type, count, options, rule);
  }
  switch (BitWidth(type)) {
    case 64:
      return ParseScalar<64>(get, window(IntConvert{type}), first, dst, type, count, options, rule);
    case 32:
      return ParseScalar<32>(get, window(IntConvert{type}), first, dst, type, count, options, rule);
    case 16:
      return ParseScalar<16>(get, window(IntConvert{type}), first, dst, type, count, options, rule);
    default:
      return ParseScalar<8>(get, window(IntConvert{type}), first, dst, type, count, options, rule);
  }
}

// Elements [first, first + count) of the column, on this thread (as ParseRangeWithScan).
inline Status ParseRangeWithWindow(const TextColumn& src, size_t first, void* dst, DataType type,
                                   size_t count, const CastOptions& options) {
  if (!WindowParses(type)) return ParseRangeWithScan(src, first, dst, type, count, options);
  return WithReader(src, first, count, [&](const auto& get, uintptr_t plain_limit, NullRule rule) {
    return ParseWithWindow(get, plain_limit, first, dst, type, count, options, rule);
  });
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace text
}  // namespace tensorcast
#endif  // HWY_TARGET == HWY_AVX3_DL

#endif  // TENSORCAST_LIB_TEXT_WINDOW_SCAN_INL_H_
