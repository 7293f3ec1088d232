// The scan each Highway target parses texts with, dispatched like the kernels (to the target
// Highway chose for this CPU, or the one a test forces): the window scan
// (window_scan-inl.h) on AVX3_DL, the scalar scan (scan_number.h) on every other target.
// Both give the same results; the window scan is the faster one where it runs.
#ifndef TENSORCAST_LIB_TEXT_SCAN_TARGETS_H_
#define TENSORCAST_LIB_TEXT_SCAN_TARGETS_H_

#include <cstddef>

#include "lib/text/columns.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace text {

// Elements [first, first + count) of the column into dst (element `first` of the whole
// call, which errors name), on this thread, with the active target's scan (as
// ParseRangeWithScan, parse_column.h).
Status ParseRange(const TextColumn& src, size_t first, void* dst, DataType type, size_t count,
                  const CastOptions& options);

// The name of the scan that parses texts now: "window scan (AVX3_DL)" or "scalar scan"
// (static strings). ScanNameAt: the scan of the compiled target at `target_index`, as
// lib/dispatch/targets.h numbers them (TargetFactsAt), whether or not this CPU can run it;
// nullptr when no target is compiled at that index.
const char* ActiveScanName();
const char* ScanNameAt(size_t target_index);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_SCAN_TARGETS_H_
