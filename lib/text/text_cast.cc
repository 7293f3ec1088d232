// Cast with STRING on one side (text_cast.h).
#include "lib/text/text_cast.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "lib/dispatch/route_plan.h"
#include "lib/parallel.h"
#include "lib/reference/reference_cast.h"
#include "lib/text/number_text.h"
#include "lib/text/parse_fast.h"
#include "lib/text/shortest.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace text {
namespace {

using reference::LoadCode;
using reference::StoreCode;

// Replaces element i of a written buffer (packed: only its bits).
void PatchCode(void* dst, int bits, size_t i, uint64_t code) {
  if (bits >= 8) return StoreCode(dst, bits, i, code);
  auto* p = static_cast<unsigned char*>(dst);
  const size_t per_byte = static_cast<size_t>(8 / bits);
  const unsigned shift = static_cast<unsigned>(bits) * static_cast<unsigned>(i % per_byte);
  const unsigned mask = ((1u << bits) - 1) << shift;
  p[i / per_byte] = static_cast<unsigned char>((p[i / per_byte] & ~mask) |
                                               ((static_cast<unsigned>(code) << shift) & mask));
}

std::atomic<size_t>& Int32OffsetLimit() {
  static std::atomic<size_t> limit{size_t{INT32_MAX}};
  return limit;
}

bool IsNarrowFloat(DataType t) {
  return Facts(t).kind == TypeKind::kFloat && t != DataType::kFloat && t != DataType::kDouble;
}

Status ParseError(size_t i, std::string_view text, DataType type) {
  return Status(StatusCode::kParseError,
                "element " + std::to_string(i) + ": cannot parse " + reference::QuoteText(text) +
                    " as " + DataTypeName(type) + " (" + std::to_string(i) +
                    " elements before it were written)",
                i);
}

Status NullError(size_t i, DataType type) {
  return Status(StatusCode::kParseError,
                "element " + std::to_string(i) + ": null (validity bit clear), not a " +
                    DataTypeName(type) + " (" + std::to_string(i) +
                    " elements before it were written; the null policy ZERO writes 0 instead)",
                i);
}

// The texts of a column from element `first` on: get(i, &text) is false for a null.
// Text(i) is element i's bytes whether or not it is null (a null's are readable, maybe
// empty), and Present(i, m) has bit j set when element i + j is not null (m <= 64).
struct StdStrings {
  static constexpr bool kPrefetch = true;  // see WindowFill
  const std::string* p;
  bool operator()(size_t i, std::string_view* t) const {
    *t = Text(i);
    return true;
  }
  std::string_view Text(size_t i) const { return p[i]; }
  static uint64_t Present(size_t, size_t) { return ~uint64_t{0}; }
};

struct Views {
  static constexpr bool kPrefetch = true;
  const TextView* p;
  bool operator()(size_t i, std::string_view* t) const {
    *t = Text(i);
    return true;
  }
  std::string_view Text(size_t i) const { return std::string_view(p[i].data, p[i].size); }
  static uint64_t Present(size_t, size_t) { return ~uint64_t{0}; }
};

template <typename Offset>
struct Arrow {
  static constexpr bool kPrefetch = false;
  const Offset* offsets;  // from the first element on
  const char* data;
  const uint8_t* validity;
  uint64_t bit;  // validity bit of the first element
  bool operator()(size_t i, std::string_view* t) const {
    if (validity != nullptr) {
      const uint64_t b = bit + i;
      if (((validity[b >> 3] >> (b & 7)) & 1) == 0) return false;
    }
    *t = Text(i);
    return true;
  }
  std::string_view Text(size_t i) const {
    const auto begin = static_cast<size_t>(offsets[i]);
    return std::string_view(data + begin, static_cast<size_t>(offsets[i + 1]) - begin);
  }
  uint64_t Present(size_t i, size_t m) const {
    if (validity == nullptr) return ~uint64_t{0};
    // The bytes that hold bits [bit + i, bit + i + m), and no byte past them.
    const uint64_t from = bit + i;
    const uint64_t last = (from + m - 1) >> 3;
    unsigned __int128 word = 0;
    for (uint64_t q = from >> 3; q <= last; ++q) {
      word |= static_cast<unsigned __int128>(validity[q]) << (8 * (q - (from >> 3)));
    }
    return static_cast<uint64_t>(word >> (from & 7));
  }
};

// The fast paths convert kFillBlock texts per call (a multiple of 64: whole words of
// pending bits); the window scan runs its halves over kScanBlock texts at a time (Zen 5:
// 8, 16 and 32 measured alike; 64, and one call per 16 texts, slower).
constexpr size_t kFillBlock = 256;
constexpr size_t kScanBlock = 16;
// Texts that are not one buffer's (std::string, tc_string_view) are read with masked loads,
// which the CPU does not start early: the text kPrefetchAhead places on is prefetched (Zen
// 5, 1M texts of one buffer through views: 18 -> 15 ns per text; 8, 16, 32 alike).
constexpr size_t kPrefetchAhead = 16;

// Code j of an array of Out at `out` (any alignment).
template <class Out>
void PutCode(unsigned char* out, size_t j, uint64_t code) {
  const auto v = static_cast<Out>(code);
  std::memcpy(out + j * sizeof(Out), &v, sizeof(Out));
}

// Converts a scanned number into the code of the target: false when it does not decide.
struct FastCodeConvert {  // numeric targets but the narrow floats
  DataType type;
  bool operator()(const Scanned& s, uint64_t* code) const { return FastCode(s, type, code); }
};
// DOUBLE and FLOAT: the table rounding of parse_fast.h (no branch between an IEEE and a
// 128-bit path) for finite texts of at most 19 significant digits, FastCode for the rest.
template <int kMant, int kExpBits>
struct TableConvert {
  DataType type;
  const PowerOf10* powers;
  bool operator()(const Scanned& s, uint64_t* code) const {
    if (s.kind == Scanned::kFinite && !s.dropped &&
        DecimalToIeee<kMant, kExpBits, Rounding::kNearestEven>(s, powers, code)) {
      return true;
    }
    return FastCode(s, type, code);
  }
};
struct OddF32Convert {  // the narrow floats: float32 rounded to odd
  bool operator()(const Scanned& s, uint64_t* code) const {
    uint32_t bits;
    if (!ToF32RoundToOdd(s, &bits)) return false;
    *code = bits;
    return true;
  }
};

// A fill converts the texts [b, b + n) (n <= kFillBlock) into codes of type Out (the
// target's width) at out[0, n) and returns the elements it did not decide as bits (bit j:
// element b + j is null or needs the exact path; its code is then unspecified).

// Through Scan, one text at a time.
template <class Get, class Convert>
struct ScanFill {
  static constexpr bool kScans = true;
  const Get& get;
  Convert convert;
  template <class Out>
  void operator()(size_t b, size_t n, unsigned char* out, uint64_t* pending_words) const {
    for (size_t w = 0; w * 64 < n; ++w) pending_words[w] = 0;
    for (size_t j = 0; j < n; ++j) {
      std::string_view t;
      Scanned s;
      uint64_t code = 0;
      if (!(get(b + j, &t) && Scan(t, &s) && convert(s, &code))) {
        pending_words[j / 64] |= uint64_t{1} << (j % 64);
      }
      PutCode<Out>(out, j, code);
    }
  }
};

#if TENSORCAST_TEXT_WINDOW
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

// Through the window scan (parse_fast.h): its first half over the block, then the second, with no
// branch on the texts (the second half's result for a text the first did not take is dropped).
// Texts that start at or before `plain_limit` are read with plain loads.
template <class Get, class Convert>
struct WindowFill {
  static constexpr bool kScans = false;
  const Get& get;
  Convert convert;
  uintptr_t plain_limit;
  template <class Out>
  TENSORCAST_TEXT_WINDOW_TARGET void operator()(size_t b, size_t n, unsigned char* out,
                                                uint64_t* pending_words) const {
    const Get texts = get;  // a local copy, which the stores below cannot alias
    const uintptr_t limit = plain_limit;
    WindowScan ws[kScanBlock];
    for (size_t w = 0; w * 64 < n; ++w) pending_words[w] = 0;
    for (size_t k = 0; k < n; k += kScanBlock) {
      const size_t m = std::min(kScanBlock, n - k);
      for (size_t j = 0; j < m; ++j) {
        const std::string_view t = texts.Text(b + k + j);
        if (Get::kPrefetch) {
          __builtin_prefetch(texts.Text(std::min(b + k + j + kPrefetchAhead, b + n - 1)).data());
        }
        ScanWindowDigits(t.data(), t.size(), limit, &ws[j]);
      }
      uint64_t decided_bits = texts.Present(b + k, m);
      for (size_t j = 0; j < m; ++j) {
        Scanned s;
        uint64_t code = 0;
        const bool in_range = WindowValue(ws[j], &s);
        const bool decided = convert(s, &code);
        PutCode<Out>(out, k + j, code);
        decided_bits &= ~(static_cast<uint64_t>(!((ws[j].ok != 0) & in_range & decided)) << j);
      }
      pending_words[k / 64] |= (~decided_bits & ((uint64_t{1} << m) - 1)) << (k % 64);
    }
  }
};
#endif

// A text the fast path did not decide: the exact scan and fast codes (unless the fast
// path was that scan), then the reference. False: not a number.
__attribute__((noinline)) bool ParseExact(std::string_view t, DataType type,
                                          const CastOptions& options, bool scan,
                                          std::unique_ptr<reference::Decimal>* scratch,
                                          uint64_t* code) {
  Scanned s;
  if (scan && Scan(t, &s) && FastCode(s, type, code)) return true;
  if (!*scratch) *scratch = std::make_unique<reference::Decimal>();
  return reference::ParseText(t, type, options, scratch->get(), code);
}

// How ResolvePending's `decide` settled a text: its code is to be put, it is done
// otherwise (nothing to put), or it is not a number.
enum class Resolved { kCode, kDone, kBad };

// The elements of a block [b, b + n) that a fill left pending (pending_words), in index
// order: a null becomes code 0 (the ERROR policy: a null error), another text goes to
// decide(j, text, &code); put(j, code) takes each code. Returns the count of elements
// settled before the first error (n without one), *error set when there is one.
template <class Get, class Decide, class Put>
size_t ResolvePending(const Get& get, const uint64_t* pending_words, size_t b, size_t n,
                      size_t first, DataType type, bool nulls_zero, const Decide& decide,
                      const Put& put, Status* error) {
  for (size_t w = 0; w * 64 < n; ++w) {
    for (uint64_t pending = pending_words[w]; pending != 0; pending &= pending - 1) {
      const size_t j = w * 64 + static_cast<size_t>(__builtin_ctzll(pending));
      std::string_view t;
      uint64_t code = 0;
      if (!get(b + j, &t)) {
        if (!nulls_zero) {
          *error = NullError(first + b + j, type);
          return j;
        }
      } else {
        const Resolved r = decide(j, t, &code);
        if (r == Resolved::kBad) {
          *error = ParseError(first + b + j, t, type);
          return j;
        }
        if (r == Resolved::kDone) continue;
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
                   size_t count, const CastOptions& options, bool nulls_zero) {
  using Out = UintOf<kBits == 0 ? 64 : kBits>;
  const int bits = BitWidth(type);
  std::unique_ptr<reference::Decimal> scratch;
  Out codes[kFillBlock];
  auto* out = reinterpret_cast<unsigned char*>(codes);
  for (size_t b = 0; b < count; b += kFillBlock) {
    const size_t n = std::min(kFillBlock, count - b);
    uint64_t pending_words[kFillBlock / 64];
    fill.template operator()<Out>(b, n, out, pending_words);
    Status error;
    const size_t good = ResolvePending(
        get, pending_words, b, n, first, type, nulls_zero,
        [&](size_t, std::string_view t, uint64_t* code) {
          return ParseExact(t, type, options, !Fill::kScans, &scratch, code) ? Resolved::kCode
                                                                             : Resolved::kBad;
        },
        [&](size_t j, uint64_t code) { PutCode<Out>(out, j, code); }, &error);
    if (kBits == 0) {
      for (size_t j = 0; j < good; ++j) StoreCode(dst, bits, b + j, codes[j]);
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
                   size_t count, const CastOptions& options, bool nulls_zero) {
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
    uint64_t pending_words[kBlock / 64];
    fill.template operator()<uint32_t>(b, n, reinterpret_cast<unsigned char*>(f32), pending_words);
    size_t patches = 0;
    Status error;
    const size_t good = ResolvePending(
        get, pending_words, b, n, first, type, nulls_zero,
        [&](size_t j, std::string_view t, uint64_t* code) {
          Scanned s;
          if (!Fill::kScans && Scan(t, &s) && ToF32RoundToOdd(s, &f32[j])) return Resolved::kDone;
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

// `plain_limit`: see ScanWindowDigits (0: every text with a masked load).
template <class Get>
Status ParseWith(const Get& get, uintptr_t plain_limit, size_t first, void* dst, DataType type,
                 size_t count, const CastOptions& options, bool nulls_zero) {
#if TENSORCAST_TEXT_WINDOW
  if (CpuHasTextWindow()) {
    const PowerOf10* powers = PowersOf10();
    const auto window = [&](auto convert) {
      return WindowFill<Get, decltype(convert)>{get, convert, plain_limit};
    };
    if (IsNarrowFloat(type)) {
      return ParseNarrow(get, window(IeeeConvert<23, 8, Rounding::kOdd>{powers}), first, dst, type,
                         count, options, nulls_zero);
    }
    switch (type) {
      case DataType::kDouble:
        return ParseScalar<64>(get, window(IeeeConvert<52, 11, Rounding::kNearestEven>{powers}),
                               first, dst, type, count, options, nulls_zero);
      case DataType::kFloat:
        return ParseScalar<32>(get, window(IeeeConvert<23, 8, Rounding::kNearestEven>{powers}),
                               first, dst, type, count, options, nulls_zero);
      case DataType::kInt64:
      case DataType::kUint64:
        return ParseScalar<64>(get, window(IntConvert{type}), first, dst, type, count, options,
                               nulls_zero);
      case DataType::kInt32:
      case DataType::kUint32:
        return ParseScalar<32>(get, window(IntConvert{type}), first, dst, type, count, options,
                               nulls_zero);
      case DataType::kInt16:
      case DataType::kUint16:
        return ParseScalar<16>(get, window(IntConvert{type}), first, dst, type, count, options,
                               nulls_zero);
      case DataType::kInt8:
      case DataType::kUint8:
        return ParseScalar<8>(get, window(IntConvert{type}), first, dst, type, count, options,
                              nulls_zero);
      default: break;  // BOOL (its words), the packed integers: Scan
    }
  }
#else
  (void)plain_limit;
#endif
  if (IsNarrowFloat(type)) {
    return ParseNarrow(get, ScanFill<Get, OddF32Convert>{get, {}}, first, dst, type, count, options,
                       nulls_zero);
  }
  if (type == DataType::kDouble) {
    const ScanFill<Get, TableConvert<52, 11>> scan{get, {type, PowersOf10()}};
    return ParseScalar<64>(get, scan, first, dst, type, count, options, nulls_zero);
  }
  if (type == DataType::kFloat) {
    const ScanFill<Get, TableConvert<23, 8>> scan{get, {type, PowersOf10()}};
    return ParseScalar<32>(get, scan, first, dst, type, count, options, nulls_zero);
  }
  const ScanFill<Get, FastCodeConvert> scan{get, {type}};
  switch (BitWidth(type)) {
    case 64: return ParseScalar<64>(get, scan, first, dst, type, count, options, nulls_zero);
    case 32: return ParseScalar<32>(get, scan, first, dst, type, count, options, nulls_zero);
    case 16: return ParseScalar<16>(get, scan, first, dst, type, count, options, nulls_zero);
    case 8: return ParseScalar<8>(get, scan, first, dst, type, count, options, nulls_zero);
    default: return ParseScalar<0>(get, scan, first, dst, type, count, options, nulls_zero);
  }
}

// Elements [first, first + count) of the column, on this thread.
Status ParseRange(const TextColumn& src, size_t first, void* dst, DataType type, size_t count,
                  const CastOptions& options) {
  switch (src.layout) {
    case TextColumn::Layout::kStdString:
      return ParseWith(StdStrings{static_cast<const std::string*>(src.elements) + first}, 0, first,
                       dst, type, count, options, false);
    case TextColumn::Layout::kViews:
      return ParseWith(Views{static_cast<const TextView*>(src.elements) + first}, 0, first, dst,
                       type, count, options, false);
    case TextColumn::Layout::kArrow: break;
  }
  const ArrowStrings& a = src.arrow;
  const bool zero = a.null_policy == NullPolicy::kZero;
  const auto at = static_cast<size_t>(a.offset) + first;
  // Every byte from the first text's start to the last text's end may be read.
  const auto limit = [&](const auto* offsets) -> uintptr_t {
    const auto begin = static_cast<size_t>(offsets[at]);
    const auto end = static_cast<size_t>(offsets[at + count]);
    if (a.data == nullptr || end - begin < 32) return 0;
    return reinterpret_cast<uintptr_t>(a.data + end) - 32;
  };
  if (a.offset_width == 8) {
    const auto* offsets = static_cast<const int64_t*>(a.offsets);
    return ParseWith(Arrow<int64_t>{offsets + at, a.data, a.validity, at}, limit(offsets), first,
                     dst, type, count, options, zero);
  }
  const auto* offsets = static_cast<const int32_t*>(a.offsets);
  return ParseWith(Arrow<int32_t>{offsets + at, a.data, a.validity, at}, limit(offsets), first, dst,
                   type, count, options, zero);
}

// Elements per task of a parallel call with STRING on one side, or 0 for one thread. A
// multiple of 64, so that tasks start on whole bytes of packed outputs.
size_t ChunkElements(size_t count, const CastOptions& options) {
  using namespace tuning;  // NOLINT: the thresholds
  if (options.runner == nullptr || count < kParallelStringMinElements) return 0;
  size_t chunk =
      std::max(kParallelStringTaskElements, (count + kParallelMaxTasks - 1) / kParallelMaxTasks);
  chunk = (chunk + 63) / 64 * 64;
  return chunk < count ? chunk : 0;
}

void* At(void* p, DataType type, size_t index) {
  return static_cast<unsigned char*>(p) + index * static_cast<size_t>(BitWidth(type)) / 8;
}

const void* At(const void* p, DataType type, size_t index) {
  return static_cast<const unsigned char*>(p) + index * static_cast<size_t>(BitWidth(type)) / 8;
}

void SetOffset(void* offsets, int width, size_t i, size_t value) {
  if (width == 8) {
    static_cast<int64_t*>(offsets)[i] = static_cast<int64_t>(value);
  } else {
    static_cast<int32_t*>(offsets)[i] = static_cast<int32_t>(value);
  }
}

size_t GetOffset(const void* offsets, int width, size_t i) {
  return width == 8 ? static_cast<size_t>(static_cast<const int64_t*>(offsets)[i])
                    : static_cast<size_t>(static_cast<const int32_t*>(offsets)[i]);
}

// Calls f(emit), where emit(i, out) writes the text of element i of src to out and
// returns its length: specialised for the common types, FormatNumber for the others.
template <class F>
auto WithEmitter(const void* src, DataType type, const F& f) {
  const auto typed = [&](auto zero, auto format) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(src);
    return f([in, format](size_t i, char* out) {
      T v;
      std::memcpy(&v, in + i, sizeof(T));
      return format(v, out);
    });
  };
  const auto integer = [](auto v, char* out) {
    if constexpr (std::is_signed<decltype(v)>::value) return FormatInt(v, out);
    return FormatUint(v, out);
  };
  switch (type) {
    case DataType::kDouble:
      return typed(0.0, [](double v, char* out) { return FormatDouble(v, out); });
    case DataType::kFloat:
      return typed(0.0f, [](float v, char* out) { return FormatFloat(v, out); });
    case DataType::kInt64: return typed(int64_t{0}, integer);
    case DataType::kInt32: return typed(int32_t{0}, integer);
    case DataType::kUint64: return typed(uint64_t{0}, integer);
    case DataType::kUint32: return typed(uint32_t{0}, integer);
    default: break;
  }
  const int bits = BitWidth(type);
  return f([src, type, bits](size_t i, char* out) {
    return FormatNumber(type, LoadCode(src, bits, i), out);
  });
}

// Formats elements [first, first + count) of src (src points at element first) to
// `out`, back to back, each followed by a NUL in an arena, and indexes them: views[i]
// (arena) or offsets[i] = start - out + `start_value` (Arrow). Returns the bytes written.
size_t FormatRun(const void* src, DataType type, size_t first, size_t count, char* out,
                 const char* room_end, const TextBuffer& dst, size_t start_value) {
  return WithEmitter(src, type, [&](const auto& emit) {
    // Texts go straight to p while kFormatRoom bytes are free there, else via scratch.
    char scratch[kFormatRoom];
    const auto put = [&](size_t i, char* p) {
      if (room_end - p >= static_cast<ptrdiff_t>(kFormatRoom)) return emit(i, p);
      const size_t n = emit(i, scratch);
      std::memcpy(p, scratch, n);
      return n;
    };
    char* p = out;
    if (dst.views != nullptr) {
      for (size_t i = 0; i < count; ++i) {
        const size_t n = put(i, p);
        p[n] = '\0';
        dst.views[first + i] = TextView{p, n};
        p += n + 1;
      }
    } else if (dst.offset_width == 8) {
      auto* offsets = static_cast<int64_t*>(dst.offsets) + first;
      for (size_t i = 0; i < count; ++i) {
        offsets[i] = static_cast<int64_t>(static_cast<size_t>(p - out) + start_value);
        p += put(i, p);
      }
    } else {
      auto* offsets = static_cast<int32_t*>(dst.offsets) + first;
      for (size_t i = 0; i < count; ++i) {
        offsets[i] = static_cast<int32_t>(static_cast<size_t>(p - out) + start_value);
        p += put(i, p);
      }
    }
    return static_cast<size_t>(p - out);
  });
}

// Bytes of the texts of elements [0, count) (each + terminator), formatted and dropped.
size_t MeasureRun(const void* src, DataType type, size_t count, size_t terminator) {
  return WithEmitter(src, type, [&](const auto& emit) {
    char scratch[kFormatRoom];
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += emit(i, scratch) + terminator;
    return total;
  });
}

}  // namespace

Status CheckArrowOffsets(const ArrowStrings& src, size_t count) {
  if (src.offset < 0) {
    return Status(StatusCode::kInvalidArgument,
                  "offset " + std::to_string(src.offset) + " is negative");
  }
  if (src.offset_width != 4 && src.offset_width != 8) {
    return Status(StatusCode::kInvalidArgument, "offset_width " + std::to_string(src.offset_width) +
                                                    " (expected 4 for utf8 or 8 for large_utf8)");
  }
  if (count == 0) return Status::Ok();
  if (src.offsets == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  "offsets is null with count " + std::to_string(count));
  }
  const auto at = static_cast<size_t>(src.offset);
  const auto check = [&](const auto* o) -> Status {
    if (o[at] < 0) {
      return Status(StatusCode::kInvalidArgument,
                    "element 0: offset " + std::to_string(o[at]) + " is negative");
    }
    bool ordered = true;
    for (size_t i = at; i < at + count; ++i) ordered &= o[i] <= o[i + 1];
    if (ordered) return Status::Ok();
    for (size_t i = at; i < at + count; ++i) {
      if (o[i] > o[i + 1]) {
        return Status(StatusCode::kInvalidArgument,
                      "element " + std::to_string(i - at) + ": offsets decrease (" +
                          std::to_string(o[i]) + " then " + std::to_string(o[i + 1]) + ")");
      }
    }
    return Status::Ok();
  };
  const Status s = src.offset_width == 8 ? check(static_cast<const int64_t*>(src.offsets))
                                         : check(static_cast<const int32_t*>(src.offsets));
  if (!s.ok()) return s;
  const int64_t last = src.offset_width == 8 ? static_cast<const int64_t*>(src.offsets)[at + count]
                                             : static_cast<const int32_t*>(src.offsets)[at + count];
  if (src.data == nullptr &&
      last > (src.offset_width == 8 ? static_cast<const int64_t*>(src.offsets)[at]
                                    : static_cast<const int32_t*>(src.offsets)[at])) {
    return Status(StatusCode::kInvalidArgument, "data is null but the texts are not empty");
  }
  return Status::Ok();
}

Status ParseColumn(const TextColumn& src, void* dst, DataType type, size_t count,
                   const CastOptions& options) {
  const size_t chunk = ChunkElements(count, options);
  if (chunk == 0) return ParseRange(src, 0, dst, type, count, options);
  std::atomic<bool> failed{false};
  auto task = [&](size_t t) {
    const size_t start = t * chunk;
    const size_t n = std::min(chunk, count - start);
    try {
      if (!ParseRange(src, start, At(dst, type, start), type, n, options).ok()) {
        failed.store(true, std::memory_order_relaxed);
      }
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
    }
  };
  parallel::RunTasks(options.runner, (count + chunk - 1) / chunk, task);
  if (!failed.load()) return Status::Ok();
  // The first bad element in index order, everything before it written: serially.
  return ParseRange(src, 0, dst, type, count, options);
}

Status FormatToStrings(const void* src, DataType type, std::string* dst, size_t count,
                       const CastOptions& options) {
  const auto run = [&](size_t first, size_t n) {
    WithEmitter(src, type, [&](const auto& emit) {
      char buf[kFormatRoom];
      for (size_t i = first; i < first + n; ++i) dst[i].assign(buf, emit(i, buf));
      return 0;
    });
  };
  const size_t chunk = ChunkElements(count, options);
  if (chunk == 0) {
    run(0, count);
    return Status::Ok();
  }
  std::atomic<bool> failed{false};
  auto task = [&](size_t t) {
    const size_t start = t * chunk;
    try {
      run(start, std::min(chunk, count - start));
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
    }
  };
  parallel::RunTasks(options.runner, (count + chunk - 1) / chunk, task);
  if (failed.load()) run(0, count);  // throws std::bad_alloc to the caller's handler
  return Status::Ok();
}

Status FormatToBuffer(const void* src, DataType type, TextBuffer* dst, size_t count,
                      const CastOptions& options) {
  const bool arena = dst->views != nullptr;
  const size_t terminator = arena ? 1 : 0;
  const size_t bound = kMaxNumberText + terminator;
  const size_t max_bytes = arena || dst->offset_width == 8
                               ? SIZE_MAX
                               : Int32OffsetLimit().load(std::memory_order_relaxed);
  const size_t chunk = ChunkElements(count, options);
  const size_t tasks = chunk == 0 ? 1 : (count + chunk - 1) / chunk;
  const auto part_start = [&](size_t t) { return t * chunk; };
  const auto part_count = [&](size_t t) {
    return chunk == 0 ? count : std::min(chunk, count - t * chunk);
  };
  // Roomy: the caller's buffer holds every text at its longest, so each part is
  // formatted straight into it (at a provisional place, part t at t * chunk * bound)
  // and the parts are then moved together. Otherwise the texts are measured first and
  // nothing is written unless they fit.
  const bool roomy = count <= std::min(dst->capacity, max_bytes) / bound;
  std::vector<size_t> bytes(tasks);
  std::atomic<bool> failed{false};
  auto first_pass = [&](size_t t) {
    const size_t s = part_start(t), n = part_count(t);
    try {
      bytes[t] = roomy ? FormatRun(At(src, type, s), type, s, n, dst->data + s * bound,
                                   dst->data + (s + n) * bound, *dst, 0)
                       : MeasureRun(At(src, type, s), type, n, terminator);
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
    }
  };
  parallel::RunTasks(options.runner, tasks, first_pass);
  if (failed.load()) throw std::bad_alloc();
  size_t total = 0;
  std::vector<size_t> base(tasks);
  for (size_t t = 0; t < tasks; ++t) {
    base[t] = total;
    total += bytes[t];
  }
  if (total > max_bytes) {
    return Status(StatusCode::kOverflow,
                  "the texts take " + std::to_string(total) +
                      " bytes, beyond int32 offsets (INT32_MAX); use offset_width 8 (large_utf8)");
  }
  dst->data_size = total;
  if (!roomy) {
    if (total > dst->capacity) {
      return Status(StatusCode::kBufferTooSmall,
                    std::string(arena ? "string arena too small: " : "data_capacity too small: ") +
                        std::to_string(total) + " bytes required, capacity " +
                        std::to_string(dst->capacity));
    }
    auto second_pass = [&](size_t t) {
      const size_t s = part_start(t), n = part_count(t);
      FormatRun(At(src, type, s), type, s, n, dst->data + base[t], dst->data + base[t] + bytes[t],
                *dst, base[t]);
    };
    parallel::RunTasks(options.runner, tasks, second_pass);
  } else if (tasks > 1) {
    // Parts move left in order (part t's new place ends before part t + 1's old one
    // begins), then their offsets or views are rebased.
    for (size_t t = 1; t < tasks; ++t) {
      std::memmove(dst->data + base[t], dst->data + part_start(t) * bound, bytes[t]);
    }
    // Rebasing adds to what the first pass wrote, so each part is rebased once even when
    // a failing runner makes the calling thread run every task again.
    std::unique_ptr<std::atomic<bool>[]> rebased(new std::atomic<bool>[tasks]);
    for (size_t t = 0; t < tasks; ++t) rebased[t].store(false, std::memory_order_relaxed);
    auto rebase = [&](size_t t) {
      if (rebased[t].exchange(true)) return;
      const size_t s = part_start(t), n = part_count(t);
      if (arena) {
        const ptrdiff_t shift = static_cast<ptrdiff_t>(base[t]) - static_cast<ptrdiff_t>(s * bound);
        for (size_t i = s; i < s + n; ++i) dst->views[i].data += shift;
      } else {
        for (size_t i = s; i < s + n; ++i) {
          SetOffset(dst->offsets, dst->offset_width, i,
                    GetOffset(dst->offsets, dst->offset_width, i) + base[t]);
        }
      }
    };
    parallel::RunTasks(options.runner, tasks, rebase);
  }
  if (!arena) SetOffset(dst->offsets, dst->offset_width, count, total);
  return Status::Ok();
}

size_t SetInt32OffsetLimitForTest(size_t bytes) { return Int32OffsetLimit().exchange(bytes); }

}  // namespace text
}  // namespace tensorcast
