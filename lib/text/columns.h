// The columns of texts that Cast with STRING on one side reads and writes, for every layout
// the APIs take: std::string arrays (C++ Cast), StringView arrays and arenas (the C API's
// layout, tensorcast/strings.h), and Arrow's utf8 / large_utf8 arrays (offsets + data +
// validity bitmap). The readers give element i's bytes and, for Arrow, its validity bits a
// word at a time; CheckArrowOffsets checks an Arrow source before anything is read. With a
// runner, a column is cut into chunks of ChunkElements (parse_column.h, format_column.h).
#ifndef TENSORCAST_LIB_TEXT_COLUMNS_H_
#define TENSORCAST_LIB_TEXT_COLUMNS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/tuning.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/strings.h"  // the column types (StringView, ArrowStrings)

namespace tensorcast {
namespace text {

// The texts of a STRING source.
struct TextColumn {
  enum class Layout : uint8_t { kStdString, kViews, kArrow };
  Layout layout = Layout::kStdString;
  const void* elements = nullptr;  // std::string[] (kStdString) or StringView[] (kViews)
  ArrowStrings arrow;              // kArrow
  // Null: a text that is not a number is an error. Otherwise (TryCastFromArrowStrings) it
  // is written as code 0 and bit i of this bit set (element i of the whole call; zeroed by
  // the caller, ceil(count / 64) words) is set; nulls are then code 0 too. Parallel tasks
  // start on multiples of 64 elements, so each word has one writer.
  uint64_t* bad = nullptr;
};

// What the drivers (parse_blocks.h) do with a null and with a text that is not a number.
struct NullRule {
  bool zero = false;        // a null becomes code 0 rather than a null error
  uint64_t* bad = nullptr;  // TextColumn::bad
};

// The texts of a STRING output, in one buffer: Arrow (offsets + data) or, with `views`, an
// arena (each text followed by a NUL, views[i] pointing at it). `data_size` receives the
// bytes used, or required when the capacity is too small.
struct TextBuffer {
  void* offsets = nullptr;  // Arrow: count + 1 entries of offset_width bytes
  int offset_width = 4;
  StringView* views = nullptr;  // arena
  char* data = nullptr;
  size_t capacity = 0;
  size_t data_size = 0;
};

// The Arrow source's offsets: offset >= 0, offsets non-decreasing from element 0 to
// count, the first one >= 0. Argument errors name the element.
Status CheckArrowOffsets(const ArrowStrings& src, size_t count);

// The readers of a column from element `first` on: get(i, &text) is false for a null.
// Text(i) is element i's bytes whether or not it is null (a null's are readable, maybe
// empty), and Present(i, m) has bit j set when element i + j is not null (m <= 64).
// kPrefetch: whether the window scan prefetches the texts (window_scan-inl.h).
struct StdStrings {
  static constexpr bool kPrefetch = true;
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
  const StringView* p;
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

// Calls f(get, plain_limit, rule) with the reader of elements [first, first + count)
// of `src` (argument valid; Arrow offsets checked) and returns its result. `plain_limit`:
// the last address from which 32 bytes may be read (every byte from the first text's
// start to the last text's end may be; 0: none), so that the window scan reads the texts
// that start at or before it with plain loads. `rule`: what nulls and texts that are not
// numbers become (NullRule).
template <class F>
auto WithReader(const TextColumn& src, size_t first, size_t count, const F& f) {
  switch (src.layout) {
    case TextColumn::Layout::kStdString:
      return f(StdStrings{static_cast<const std::string*>(src.elements) + first}, uintptr_t{0},
               NullRule{false, src.bad});
    case TextColumn::Layout::kViews:
      return f(Views{static_cast<const StringView*>(src.elements) + first}, uintptr_t{0},
               NullRule{false, src.bad});
    case TextColumn::Layout::kArrow: break;
  }
  const ArrowStrings& a = src.arrow;
  const NullRule zero{a.null_policy == NullPolicy::kZero || src.bad != nullptr, src.bad};
  const auto at = static_cast<size_t>(a.offset) + first;
  const auto limit = [&](const auto* offsets) -> uintptr_t {
    const auto begin = static_cast<size_t>(offsets[at]);
    const auto end = static_cast<size_t>(offsets[at + count]);
    if (a.data == nullptr || end - begin < 32) return 0;
    return reinterpret_cast<uintptr_t>(a.data + end) - 32;
  };
  if (a.offset_width == 8) {
    const auto* offsets = static_cast<const int64_t*>(a.offsets);
    return f(Arrow<int64_t>{offsets + at, a.data, a.validity, at}, limit(offsets), zero);
  }
  const auto* offsets = static_cast<const int32_t*>(a.offsets);
  return f(Arrow<int32_t>{offsets + at, a.data, a.validity, at}, limit(offsets), zero);
}

// Elements per task of a parallel call with STRING on one side, or 0 for one thread. A
// multiple of 64, so that tasks start on whole bytes of packed outputs.
inline size_t ChunkElements(size_t count, const CastOptions& options) {
  using namespace tuning;  // NOLINT: the thresholds
  if (options.runner == nullptr || count < kParallelStringMinElements) return 0;
  size_t chunk =
      std::max(kParallelStringTaskElements, (count + kParallelMaxTasks - 1) / kParallelMaxTasks);
  chunk = (chunk + 63) / 64 * 64;
  return chunk < count ? chunk : 0;
}

// Element `index` of a numeric buffer of `type` (index a multiple of 8 for packed types).
inline void* At(void* p, DataType type, size_t index) {
  return static_cast<unsigned char*>(p) + index * static_cast<size_t>(BitWidth(type)) / 8;
}
inline const void* At(const void* p, DataType type, size_t index) {
  return static_cast<const unsigned char*>(p) + index * static_cast<size_t>(BitWidth(type)) / 8;
}

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_COLUMNS_H_
