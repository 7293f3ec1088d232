// tensorcast/strings.h: Cast between numbers and texts in caller-owned buffers, zero-copy:
// the texts are read from and written to the caller's memory, never through std::string.
// Two layouts:
//   - Apache Arrow's string arrays (utf8 with int32 offsets, large_utf8 with int64
//     offsets): CastFromArrowStrings / CastToArrowStrings;
//   - arrays of views {data, size} in, an arena (one byte buffer and its views) out, the
//     layout of the C API's tc_string_view / tc_string_arena: CastFromStringViews /
//     CastToStringArena.
// The rules are Cast's (tensorcast/cast.h and docs/semantics.md, "Strings"): the same
// syntax, one rounding from the decimal text, numpy's str() spelling, the same error for a
// text that is not a number. Argument errors are reported before anything is written.
#ifndef TENSORCAST_STRINGS_H_
#define TENSORCAST_STRINGS_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/cast.h"
#include "tensorcast/data_type.h"
#include "tensorcast/status.h"

namespace tensorcast {

// What a null element (validity bit clear) becomes in a cast from strings.
enum class NullPolicy : int {
  kError = 0,  // kParseError naming the element (elements before it are written)
  kZero = 1,   // the all-zero code (0, 0.0, False; FLOAT8E8M0: code 0, 2^-127); the
               // caller keeps the validity bitmap
};

// An Arrow utf8 / large_utf8 array. Element i (0 <= i < count) is the bytes
// data[offsets[offset + i], offsets[offset + i + 1]); it is null when `validity` is not
// null and bit (offset + i) of it is clear (LSB first, as Arrow). Offsets must be >= 0
// and non-decreasing (checked: kInvalidArgument naming the element, before anything is
// written).
struct ArrowStrings {
  const void* offsets = nullptr;  // int32_t (offset_width 4) or int64_t (8)
  int offset_width = 4;
  const char* data = nullptr;  // may be null when every element is empty or null
  const uint8_t* validity = nullptr;
  int64_t offset = 0;  // the array's offset (a sliced array), in elements
  NullPolicy null_policy = NullPolicy::kError;
};

// Arrow strings -> `count` elements of the numeric `dst_type` at `dst` (as Cast writes
// them). Parse errors as Cast: the first bad element in index order, every element
// before it written (elements after it are unspecified, serially and in parallel).
Status CastFromArrowStrings(const ArrowStrings& src, void* dst, DataType dst_type, size_t count,
                            const CastOptions& options = CastOptions());

// A cast from Arrow strings that makes a null of each text that is not a number (SQL's
// TRY_CAST; Python's errors="null") instead of failing: what it writes besides the numbers.
struct TryCastNulls {
  // ceil(count / 8) bytes, written from bit 0 (LSB first, as Arrow): bit i set when element
  // i is a number, clear when it is null in the source or not a number. May be null (only
  // the counts are wanted).
  uint8_t* validity = nullptr;
  size_t error_count = 0;         // out: the texts that are not numbers (nulls not counted)
  size_t first_error = SIZE_MAX;  // out: the index of the first of them, SIZE_MAX if none
};

// As CastFromArrowStrings, with every element that is null or not a number written as the
// all-zero code (0, 0.0, False; FLOAT8E8M0: code 0) and cleared in nulls->validity, so no
// element is a kParseError: src.null_policy is ignored (a null stays a null). The argument
// errors are CastFromArrowStrings', and nulls null is kInvalidArgument; the validity bytes
// must not overlap dst or the source. The same bits for any runner; the numbers are those
// CastFromArrowStrings writes.
Status TryCastFromArrowStrings(const ArrowStrings& src, void* dst, DataType dst_type, size_t count,
                               TryCastNulls* nulls, const CastOptions& options = CastOptions());

// The output of a cast into Arrow strings: count + 1 offsets are written (the first is
// 0), and the texts, back to back without separators, into data.
struct ArrowStringsOut {
  void* offsets = nullptr;  // count + 1 entries of offset_width bytes
  int offset_width = 4;     // 4 (utf8) or 8 (large_utf8)
  char* data = nullptr;     // may be null when data_capacity is 0
  size_t data_capacity = 0;
  size_t data_size = 0;  // out: bytes used, or required (kBufferTooSmall)
};

// `count` elements of the numeric `src_type` -> Arrow strings (numpy str() spellings).
// Too small a data_capacity: kBufferTooSmall with data_size = the bytes required, and
// nothing else written (data_capacity 0 with data null is a size query). No number's text
// is longer than 32 bytes: a data_capacity of at least 32 per element is filled in one
// pass, a smaller one is measured first (about 1.7x the time). offset_width 4
// and more than INT32_MAX bytes of text: kOverflow (never a wrapped offset).
Status CastToArrowStrings(const void* src, DataType src_type, ArrowStringsOut* dst, size_t count,
                          const CastOptions& options = CastOptions());

// ---- Views and arenas ---------------------------------------------------------------

// One text: `size` bytes at `data` (no NUL needed; data may be null when size is 0). The
// layout of the C API's tc_string_view.
struct StringView {
  const char* data = nullptr;
  size_t size = 0;
};

// A caller-owned output of texts: the text of element i is copied into `data`, followed by
// a NUL byte, and views[i] points at it (size without the NUL). The layout of the C API's
// tc_string_arena.
struct StringArena {
  char* data = nullptr;         // may be null when capacity is 0
  size_t capacity = 0;          // bytes at data
  StringView* views = nullptr;  // count views, filled in on success
  size_t size = 0;              // out: bytes used, or required (kBufferTooSmall)
};

// `count` texts -> elements of the numeric `dst_type` at `dst` (as Cast writes them). The
// library reads the texts during the call only; dst must not overlap them or the views.
// Parse errors as Cast: kParseError naming the first bad element in index order, every
// element before it written (elements after it are unspecified, serially and in parallel).
// Argument errors, in this order (nothing written): dst_type unknown (kInvalidArgument) or
// not a numeric type Cast supports (kUnsupported), round_mode outside up / down / nearest,
// a byte count of the views or of dst beyond size_t (kOverflow), src null with count > 0,
// dst null with count > 0, a view with null data and a non-zero size, a view larger than
// any string (the last two name the view: "src[i]").
Status CastFromStringViews(const StringView* src, void* dst, DataType dst_type, size_t count,
                           const CastOptions& options = CastOptions());

// `count` elements of `src_type` at `src` -> texts in `arena`: numbers spelled as Cast to
// STRING spells them (numpy's str()); STRING (src is then an array of StringView) copied
// byte for byte. Too small a capacity: kBufferTooSmall with arena->size = the bytes
// required, and nothing else written (capacity 0 with data null is a size query). No
// number's text is longer than 32 bytes: a capacity of at least 33 bytes per element is
// filled in one pass, a smaller one is measured first (about 1.7x the time). count 0: OK,
// arena may be null (otherwise arena->size becomes 0). Argument errors, in this order
// (nothing written): src_type unknown (kInvalidArgument) or not a type Cast supports
// (kUnsupported), round_mode outside up / down / nearest, a byte count of src beyond size_t
// (kOverflow), src or arena null with count > 0, arena->views null, arena->data null with a
// non-zero capacity, a source view as for CastFromStringViews. Texts copied from STRING
// that together exceed size_t bytes: kOverflow.
Status CastToStringArena(const void* src, DataType src_type, StringArena* arena, size_t count,
                         const CastOptions& options = CastOptions());

}  // namespace tensorcast

#endif  // TENSORCAST_STRINGS_H_
