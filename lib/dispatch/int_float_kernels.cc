// foreach_target TU of the int_float family (lib/kernels/int_float_cast-inl.h): every
// 8/16/32/64-bit integer <-> FLOAT and DOUBLE, and the hub's round-to-odd integer
// decoders (lib/dispatch/hub_kernels.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/int_float_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/int_float_cast-inl.h"

#if HWY_ONCE
#include "lib/dispatch/family_rows.h"
#include "lib/dispatch/hub_kernels.h"
#define TENSORCAST_FAMILY_int_float 1

namespace tensorcast {
namespace dispatch {

#define TENSORCAST_FAMILY_ROWS_FUNCTION IntFloatKernelRows
#include "lib/dispatch/family_table.inc"

HWY_EXPORT(Int32ToF32RoundToOdd);
HWY_EXPORT(Uint32ToF32RoundToOdd);
HWY_EXPORT(Int64ToF32RoundToOdd);
HWY_EXPORT(Uint64ToF32RoundToOdd);

void Int32ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  HWY_DYNAMIC_DISPATCH(Int32ToF32RoundToOdd)(src, dst, count);
}
void Uint32ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  HWY_DYNAMIC_DISPATCH(Uint32ToF32RoundToOdd)(src, dst, count);
}
void Int64ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  HWY_DYNAMIC_DISPATCH(Int64ToF32RoundToOdd)(src, dst, count);
}
void Uint64ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  HWY_DYNAMIC_DISPATCH(Uint64ToF32RoundToOdd)(src, dst, count);
}

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
