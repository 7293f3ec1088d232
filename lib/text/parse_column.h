// Text -> number for a column of texts (columns.h), for Cast from STRING and the STRING
// entry points of tensorcast/strings.h: each text scanned (scan_number.h, or the window scan
// on AVX3_DL: scan_targets.h) and rounded once (decimal_to_binary.h), a block at a time
// (parse_blocks.h); parallel through the caller's Runner in chunks, with the serial rule for
// errors (the first bad element in index order, every element before it written).
#ifndef TENSORCAST_LIB_TEXT_PARSE_COLUMN_H_
#define TENSORCAST_LIB_TEXT_PARSE_COLUMN_H_

#include <cstddef>

#include "lib/text/columns.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace text {

// STRING -> numeric `type`: elements [0, count) of `src` into dst. Arguments valid (the
// callers check them, and Arrow offsets with CheckArrowOffsets).
Status ParseColumn(const TextColumn& src, void* dst, DataType type, size_t count,
                   const CastOptions& options);

// Elements [first, first + count) of the column into dst (element `first` of the whole
// call, which errors name), on this thread, through the scalar scan: the parse of every
// target but AVX3_DL, and of the types the window scan leaves (scan_targets.h).
Status ParseRangeWithScan(const TextColumn& src, size_t first, void* dst, DataType type,
                          size_t count, const CastOptions& options);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_PARSE_COLUMN_H_
