// Text -> number for a column (parse_column.h): the chunks of a parallel call, the scalar
// scan's fills and the exact path of the texts the fills leave.
#include "lib/text/parse_column.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "lib/parallel.h"
#include "lib/reference/reference_cast.h"
#include "lib/text/decimal_to_binary.h"
#include "lib/text/parse_blocks.h"
#include "lib/text/scan_number.h"
#include "lib/text/scan_targets.h"
#include "lib/text/shortest.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace text {

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

namespace {

// The bytes a number's text may hold in the reference's syntax (docs/semantics.md,
// "Strings"): digits, signs, the point, spaces, and the letters of e / E, inf, infinity,
// nan, true and false in either case.
struct NumberBytes {
  bool ok[256] = {};
  constexpr NumberBytes() {
    for (const char c : "0123456789+-. \t\n\v\f\reEinfityaINFITYAtrueflsTRUEFLS") {
      ok[static_cast<unsigned char>(c)] = c != '\0';
    }
  }
};
constexpr NumberBytes kNumberBytes;

// False when t holds a byte no number's text holds: it is not a number, and neither the
// scan nor the reference need to look at it (a column of bad texts, errors="null").
bool MayBeNumber(std::string_view t) {
  for (const char c : t) {
    if (!kNumberBytes.ok[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

}  // namespace

__attribute__((noinline)) bool ParseExact(std::string_view t, DataType type,
                                          const CastOptions& options, bool scan,
                                          std::unique_ptr<reference::Decimal>* scratch,
                                          uint64_t* code) {
  if (!MayBeNumber(t)) return false;
  if (scan) {
    // Scan reads the whole syntax (docs/semantics.md, "Strings"): a text it refuses is not
    // a number, and only BOOL's words need the reference then.
    Scanned s;
    if (!Scan(t, &s)) {
      if (type != DataType::kBool) return false;
    } else if (FastCode(s, type, code)) {
      return true;
    }
  }
  if (!*scratch) *scratch = std::make_unique<reference::Decimal>();
  return reference::ParseText(t, type, options, scratch->get(), code);
}

namespace {

// Converts a scanned number into the code of the target: false when it does not decide.
struct FastCodeConvert {  // numeric targets but the narrow floats
  DataType type;
  bool operator()(const Scanned& s, uint64_t* code) const { return FastCode(s, type, code); }
};
// DOUBLE and FLOAT: the table rounding of decimal_to_binary.h (no branch between an IEEE and a
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

// Through Scan, one text at a time. A text Scan refuses is no number (but for BOOL, whose
// words only the reference reads: `words`).
template <class Get, class Convert>
struct ScanFill {
  static constexpr bool kScans = true;
  const Get& get;
  Convert convert;
  bool words = false;
  template <class Out>
  void operator()(size_t b, size_t n, unsigned char* out, uint64_t* pending_words,
                  uint64_t* bad_words) const {
    for (size_t w = 0; w * 64 < n; ++w) pending_words[w] = bad_words[w] = 0;
    for (size_t j = 0; j < n; ++j) {
      std::string_view t;
      Scanned s;
      uint64_t code = 0;
      const bool present = get(b + j, &t);
      const bool scanned = present && Scan(t, &s);
      if (!(scanned && convert(s, &code))) {
        pending_words[j / 64] |= uint64_t{1} << (j % 64);
        bad_words[j / 64] |= static_cast<uint64_t>(present && !scanned && !words) << (j % 64);
      }
      PutCode<Out>(out, j, code);
    }
  }
};

// The elements of `get` through the scalar scan.
template <class Get>
Status ParseWithScan(const Get& get, size_t first, void* dst, DataType type, size_t count,
                     const CastOptions& options, NullRule rule) {
  if (IsNarrowFloat(type)) {
    return ParseNarrow(get, ScanFill<Get, OddF32Convert>{get, {}}, first, dst, type, count, options,
                       rule);
  }
  if (type == DataType::kDouble) {
    const ScanFill<Get, TableConvert<52, 11>> scan{get, {type, PowersOf10()}};
    return ParseScalar<64>(get, scan, first, dst, type, count, options, rule);
  }
  if (type == DataType::kFloat) {
    const ScanFill<Get, TableConvert<23, 8>> scan{get, {type, PowersOf10()}};
    return ParseScalar<32>(get, scan, first, dst, type, count, options, rule);
  }
  const ScanFill<Get, FastCodeConvert> scan{get, {type}, type == DataType::kBool};
  switch (BitWidth(type)) {
    case 64: return ParseScalar<64>(get, scan, first, dst, type, count, options, rule);
    case 32: return ParseScalar<32>(get, scan, first, dst, type, count, options, rule);
    case 16: return ParseScalar<16>(get, scan, first, dst, type, count, options, rule);
    case 8: return ParseScalar<8>(get, scan, first, dst, type, count, options, rule);
    default: return ParseScalar<0>(get, scan, first, dst, type, count, options, rule);
  }
}

}  // namespace

Status ParseRangeWithScan(const TextColumn& src, size_t first, void* dst, DataType type,
                          size_t count, const CastOptions& options) {
  return WithReader(src, first, count, [&](const auto& get, uintptr_t, NullRule rule) {
    return ParseWithScan(get, first, dst, type, count, options, rule);
  });
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

}  // namespace text
}  // namespace tensorcast
