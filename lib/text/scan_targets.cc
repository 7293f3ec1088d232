// foreach_target TU of the scans (scan_targets.h): each target's ParseRange and the name of
// its scan.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/text/scan_targets.cc"
#include "lib/text/scan_targets.h"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/text/parse_column.h"
#include "lib/text/window_scan-inl.h"

// The entry points of each target, compiled for the baseline CPU (outside Highway's
// per-target region, as the block drivers are): on AVX3_DL only the window fills are code
// for the target (window_scan-inl.h).
namespace tensorcast {
namespace text {
namespace HWY_NAMESPACE {

Status ParseRangeOnTarget(const TextColumn& src, size_t first, void* dst, DataType type,
                          size_t count, const CastOptions& options) {
#if HWY_TARGET == HWY_AVX3_DL
  return ParseRangeWithWindow(src, first, dst, type, count, options);
#else
  return ParseRangeWithScan(src, first, dst, type, count, options);
#endif
}

const char* ScanName() {
#if HWY_TARGET == HWY_AVX3_DL
  return "window scan (AVX3_DL)";
#else
  return "scalar scan";
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace text
}  // namespace tensorcast

#if HWY_ONCE
namespace tensorcast {
namespace text {

HWY_EXPORT(ParseRangeOnTarget);
HWY_EXPORT(ScanName);

Status ParseRange(const TextColumn& src, size_t first, void* dst, DataType type, size_t count,
                  const CastOptions& options) {
  return HWY_DYNAMIC_DISPATCH(ParseRangeOnTarget)(src, first, dst, type, count, options);
}

const char* ActiveScanName() { return HWY_DYNAMIC_DISPATCH(ScanName)(); }

const char* ScanNameAt(size_t target_index) {
  constexpr size_t kTableSize =
      sizeof(HWY_DISPATCH_TABLE(ScanName)) / sizeof(HWY_DISPATCH_TABLE(ScanName)[0]);
  // Entry 0 of a dispatch table is the chooser, not a target (unless only one is compiled).
  if (target_index >= kTableSize || (kTableSize > 1 && target_index == 0)) return nullptr;
  const auto fn = HWY_DISPATCH_TABLE(ScanName)[target_index];
  return fn == nullptr ? nullptr : fn();
}

}  // namespace text
}  // namespace tensorcast
#endif  // HWY_ONCE
