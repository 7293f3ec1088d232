// Cast with STRING on one side, for every layout of text the APIs take: std::string
// arrays (C++ Cast), tc_string_view arrays and arenas (C API), and Arrow's utf8 /
// large_utf8 arrays (offsets + data + validity bitmap). One element at a time through
// number_text.h; parallel through the caller's Runner in chunks, with the serial rule
// for errors (the first bad element in index order, every element before it written).
#ifndef TENSORCAST_LIB_TEXT_TEXT_CAST_H_
#define TENSORCAST_LIB_TEXT_TEXT_CAST_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "tensorcast/cast.h"
#include "tensorcast/strings.h"

namespace tensorcast {
namespace text {

// A text as the C API's tc_string_view lays it out.
struct TextView {
  const char* data;
  size_t size;
};

// The texts of a STRING source.
struct TextColumn {
  enum class Layout : uint8_t { kStdString, kViews, kArrow };
  Layout layout = Layout::kStdString;
  const void* elements = nullptr;  // std::string[] (kStdString) or TextView[] (kViews)
  ArrowStrings arrow;              // kArrow
};

// STRING -> numeric `type`: elements [0, count) of `src` into dst. Arguments valid (the
// callers check them, and Arrow offsets with CheckArrowOffsets).
Status ParseColumn(const TextColumn& src, void* dst, DataType type, size_t count,
                   const CastOptions& options);

// Numeric `type` -> std::string elements.
Status FormatToStrings(const void* src, DataType type, std::string* dst, size_t count,
                       const CastOptions& options);

// The Arrow source's offsets: offset >= 0, offsets non-decreasing from element 0 to
// count, the first one >= 0. Argument errors name the element.
Status CheckArrowOffsets(const ArrowStrings& src, size_t count);

// Numeric `type` -> texts in one buffer: Arrow (offsets + data) or, with `views`, the C
// API's arena (each text followed by a NUL, views[i] pointing at it). `data_size` receives
// the bytes used, or required when the capacity is too small (then nothing else is
// written and the Status is kBufferTooSmall). int32 offsets beyond INT32_MAX: kOverflow.
struct TextBuffer {
  void* offsets = nullptr;  // Arrow: count + 1 entries of offset_width bytes
  int offset_width = 4;
  TextView* views = nullptr;  // arena
  char* data = nullptr;
  size_t capacity = 0;
  size_t data_size = 0;
};
Status FormatToBuffer(const void* src, DataType type, TextBuffer* dst, size_t count,
                      const CastOptions& options);

// Test hook: the byte count that int32 offsets may reach (INT32_MAX); returns the old one.
size_t SetInt32OffsetLimitForTest(size_t bytes);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_TEXT_CAST_H_
