// Text -> number, a column a block at a time: the drivers that both scans share
// (parse_column.cc with the scalar scan, window_scan-inl.h with the window scan). A fill
// converts a block of texts on its fast path and marks the texts it did not decide; the
// driver settles those one at a time (the exact scan, then the reference codec), copies the
// block's codes out and stops at the first bad element (nothing written from it on). The
// narrow float targets go through float32 rounded to odd, encoded a block at a time by the
// FLOAT kernel of the target.
//
// A fill is an object with kScans (whether its fast path is Scan) and
//   template <class Out> void operator()(size_t b, size_t n, unsigned char* out,
//                                        uint64_t* pending_words, uint64_t* bad_words) const;
// which converts the texts [b, b + n) (n <= kFillBlock) into codes of type Out (the
// target's width) at out[0, n) and returns the elements it did not decide as bits (bit j:
// element b + j is null or needs the exact path; its code is then unspecified), and among
// those the texts it found to be no number at all (bit j of bad_words: element b + j is
// not null and the exact path would refuse it; a fill may leave such a text unmarked).
//
// These drivers are compiled for the baseline CPU wherever they are instantiated (this
// header is included outside Highway's per-target regions); a per-target fill is called
// from them once per block.
#ifndef TENSORCAST_LIB_TEXT_PARSE_BLOCKS_H_
#define TENSORCAST_LIB_TEXT_PARSE_BLOCKS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>

#include "lib/dispatch/route_plan.h"
#include "lib/reference/reference_cast.h"
#include "lib/text/columns.h"
#include "lib/text/decimal_to_binary.h"
#include "lib/text/scan_number.h"
#include "lib/type_facts.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace text {

// Replaces element i of a written buffer (packed: only its bits).
inline void PatchCode(void* dst, int bits, size_t i, uint64_t code) {
  if (bits >= 8) return reference::StoreCode(dst, bits, i, code);
  // Bits [i * bits, (i + 1) * bits) of the little-endian bit stream; a 6-bit element
  // may cross into the next byte.
  auto* p = static_cast<unsigned char*>(dst);
  const size_t bit = i * static_cast<size_t>(bits);
  const unsigned shift = static_cast<unsigned>(bit % 8);
  const unsigned mask = ((1u << bits) - 1) << shift;  // < 2^14
  const unsigned value = (static_cast<unsigned>(code) << shift) & mask;
  p[bit / 8] = static_cast<unsigned char>((p[bit / 8] & ~mask) | value);
  if (shift + static_cast<unsigned>(bits) > 8) {
    p[bit / 8 + 1] = static_cast<unsigned char>((p[bit / 8 + 1] & ~(mask >> 8)) | (value >> 8));
  }
}

inline bool IsNarrowFloat(DataType t) {
  return Facts(t).kind == TypeKind::kFloat && t != DataType::kFloat && t != DataType::kDouble;
}

// The out-of-line helpers of the drivers (parse_column.cc) are hidden: calls to them bind
// inside the library, so that the compiler may treat them as it treats calls within a file.
#define TENSORCAST_TEXT_HIDDEN __attribute__((visibility("hidden")))

// The errors of element i (`i` elements before it were written).
TENSORCAST_TEXT_HIDDEN Status ParseError(size_t i, std::string_view text, DataType type);
TENSORCAST_TEXT_HIDDEN Status NullError(size_t i, DataType type);

// The fills convert kFillBlock texts per call (a multiple of 64: whole words of pending
// bits).
constexpr size_t kFillBlock = 256;

// Code j of an array of Out at `out` (any alignment).
template <class Out>
inline void PutCode(unsigned char* out, size_t j, uint64_t code) {
  const auto v = static_cast<Out>(code);
  std::memcpy(out + j * sizeof(Out), &v, sizeof(Out));
}

// A text the fast path did not decide: unless the fast path was the exact scan (`scan`
// false: the fill reported the texts it refused), that scan, which alone refuses a text
// that is not a number (but BOOL's words), and its fast codes; then the reference. False:
// not a number. (Never inlined: the drivers call it rarely.)
TENSORCAST_TEXT_HIDDEN bool ParseExact(std::string_view t, DataType type,
                                       const CastOptions& options, bool scan,
                                       std::unique_ptr<reference::Decimal>* scratch,
                                       uint64_t* code);

// How ResolvePending's `decide` settled a text: its code is to be put, it is done
// otherwise (nothing to put), or it is not a number.
enum class Resolved { kCode, kDone, kBad };

// The elements of a block [b, b + n) that a fill left pending (pending_words), in index
// order: a null becomes code 0 (rule.zero; otherwise a null error), a text the fill found
// to be no number (bad_words) is not a number, another text goes to decide(j, text,
// &code); a text that is not a number becomes code 0 with its bit set in rule.bad (when
// given; otherwise a parse error); put(j, code) takes each code. Returns the count of
// elements settled before the first error (n without one), *error set when there is one.
template <class Get, class Decide, class Put>
size_t ResolvePending(const Get& get, const uint64_t* pending_words, const uint64_t* bad_words,
                      size_t b, size_t n, size_t first, DataType type, NullRule rule,
                      const Decide& decide, const Put& put, Status* error) {
  for (size_t w = 0; w * 64 < n; ++w) {
    uint64_t left = pending_words[w];
    if (rule.bad != nullptr && rule.zero) {
      // No error can stop the block: the texts that are no number are settled first, as
      // whole words of bits.
      const uint64_t bad = left & bad_words[w];
      const size_t i = first + b + w * 64;  // a multiple of 64 in every caller (whole words)
      rule.bad[i / 64] |= bad << (i % 64);
      if (i % 64 != 0 && (bad >> (64 - i % 64)) != 0) rule.bad[i / 64 + 1] |= bad >> (64 - i % 64);
      for (uint64_t z = bad; z != 0; z &= z - 1) put(w * 64 + __builtin_ctzll(z), 0);
      left ^= bad;
    }
    for (uint64_t pending = left; pending != 0; pending &= pending - 1) {
      const size_t j = w * 64 + static_cast<size_t>(__builtin_ctzll(pending));
      std::string_view t;
      uint64_t code = 0;
      if (!get(b + j, &t)) {
        if (!rule.zero) {
          *error = NullError(first + b + j, type);
          return j;
        }
      } else {
        const Resolved r = (bad_words[w] >> (j % 64)) & 1 ? Resolved::kBad : decide(j, t, &code);
        if (r == Resolved::kBad) {
          if (rule.bad == nullptr) {
            *error = ParseError(first + b + j, t, type);
            return j;
          }
          const size_t i = first + b + j;
          rule.bad[i / 64] |= uint64_t{1} << (i % 64);
          code = 0;
        } else if (r == Resolved::kDone) {
          continue;
        }
      }
      put(j, code);
    }
  }
  return n;
}

// The unsigned integer type of kBits (8 to 64) bits.
template <int kBits>
using UintOf = std::conditional_t<
    kBits == 64, uint64_t,
    std::conditional_t<kBits == 32, uint32_t, std::conditional_t<kBits == 16, uint16_t, uint8_t>>>;

// Numeric targets other than the narrow floats, a block of texts at a time through
// `fill`, the texts it leaves undecided one at a time; nothing is written from the first
// bad element on. kBits: the target's width when it is 8 to 64 (the block's codes are
// copied out), 0 any (through StoreCode). `first` is the index of element 0 in the whole
// call (for messages).
template <int kBits, class Get, class Fill>
Status ParseScalar(const Get& get, const Fill& fill, size_t first, void* dst, DataType type,
                   size_t count, const CastOptions& options, NullRule rule) {
  using Out = UintOf<kBits == 0 ? 64 : kBits>;
  const int bits = BitWidth(type);
  std::unique_ptr<reference::Decimal> scratch;
  Out codes[kFillBlock];
  auto* out = reinterpret_cast<unsigned char*>(codes);
  for (size_t b = 0; b < count; b += kFillBlock) {
    const size_t n = std::min(kFillBlock, count - b);
    uint64_t pending_words[kFillBlock / 64], bad_words[kFillBlock / 64];
    fill.template operator()<Out>(b, n, out, pending_words, bad_words);
    Status error;
    const size_t good = ResolvePending(
        get, pending_words, bad_words, b, n, first, type, rule,
        [&](size_t, std::string_view t, uint64_t* code) {
          return ParseExact(t, type, options, !Fill::kScans, &scratch, code) ? Resolved::kCode
                                                                             : Resolved::kBad;
        },
        [&](size_t j, uint64_t code) { PutCode<Out>(out, j, code); }, &error);
    if (kBits == 0) {
      for (size_t j = 0; j < good; ++j) reference::StoreCode(dst, bits, b + j, codes[j]);
    } else {
      std::memcpy(static_cast<unsigned char*>(dst) + b * sizeof(Out), codes, good * sizeof(Out));
    }
    if (good < n) return error;
  }
  return Status::Ok();
}

// The narrow float targets: blocks of float32 values rounded to odd, encoded by the
// FLOAT kernel of the target; texts the fast paths do not decide are patched in with
// the reference's codes.
template <class Get, class Fill>
Status ParseNarrow(const Get& get, const Fill& fill, size_t first, void* dst, DataType type,
                   size_t count, const CastOptions& options, NullRule rule) {
  constexpr size_t kBlock = 256;  // a multiple of 8: blocks start on whole packed bytes
  const int bits = BitWidth(type);
  CastOptions serial = options;
  serial.runner = nullptr;
  uint32_t f32[kBlock];
  uint32_t patch_index[kBlock];
  uint64_t patch_code[kBlock];
  std::unique_ptr<reference::Decimal> scratch;
  for (size_t b = 0; b < count; b += kBlock) {
    const size_t n = std::min(kBlock, count - b);
    uint64_t pending_words[kBlock / 64], bad_words[kBlock / 64];
    fill.template operator()<uint32_t>(b, n, reinterpret_cast<unsigned char*>(f32), pending_words,
                                       bad_words);
    size_t patches = 0;
    Status error;
    const size_t good = ResolvePending(
        get, pending_words, bad_words, b, n, first, type, rule,
        [&](size_t j, std::string_view t, uint64_t* code) {
          if (!Fill::kScans) {  // the exact scan's refusal is final (no narrow float is BOOL)
            Scanned s;
            if (!Scan(t, &s)) return Resolved::kBad;
            if (ToF32RoundToOdd(s, &f32[j])) return Resolved::kDone;
          }
          return ParseExact(t, type, options, false, &scratch, code) ? Resolved::kCode
                                                                     : Resolved::kBad;
        },
        [&](size_t j, uint64_t code) {
          f32[j] = 0;
          patch_index[patches] = static_cast<uint32_t>(j);
          patch_code[patches++] = code;
        },
        &error);
    if (good > 0) {
      void* out = static_cast<unsigned char*>(dst) + b * static_cast<size_t>(bits) / 8;
      if (!dispatch::CastWithPlan(f32, DataType::kFloat, out, type, good, serial)) {
        const Status s = reference::Cast(f32, DataType::kFloat, out, type, good, serial);
        if (!s.ok()) return s;
      }
      for (size_t k = 0; k < patches; ++k) PatchCode(out, bits, patch_index[k], patch_code[k]);
    }
    if (good < n) return error;
  }
  return Status::Ok();
}

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_PARSE_BLOCKS_H_
