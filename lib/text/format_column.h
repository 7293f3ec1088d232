// Number -> text for a column: numeric elements formatted one at a time (format_number.h)
// into std::string elements (C++ Cast) or into one buffer of texts (columns.h's TextBuffer:
// Arrow's offsets + data, or an arena of NUL-terminated texts and their views). Parallel
// through the caller's Runner in chunks (ChunkElements).
#ifndef TENSORCAST_LIB_TEXT_FORMAT_COLUMN_H_
#define TENSORCAST_LIB_TEXT_FORMAT_COLUMN_H_

#include <cstddef>
#include <string>

#include "lib/text/columns.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace text {

// Numeric `type` -> std::string elements.
Status FormatToStrings(const void* src, DataType type, std::string* dst, size_t count,
                       const CastOptions& options);

// Numeric `type` -> texts in dst's buffer. `data_size` receives the bytes used, or
// required when the capacity is too small (then nothing else is written and the Status is
// kBufferTooSmall). int32 offsets beyond INT32_MAX: kOverflow. An output that holds every
// text at its longest is written in one pass; otherwise the texts are measured first.
Status FormatToBuffer(const void* src, DataType type, TextBuffer* dst, size_t count,
                      const CastOptions& options);

// Test hook: the byte count that int32 offsets may reach (INT32_MAX); returns the old one.
size_t SetInt32OffsetLimitForTest(size_t bytes);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_FORMAT_COLUMN_H_
