// foreach_target TU of the float family (lib/kernels/float_cast-inl.h):
// FLOAT <-> FLOAT16 / BFLOAT16 / DOUBLE.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/float_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/float_cast-inl.h"

#if HWY_ONCE
#include "lib/dispatch/family_rows.h"
#include "lib/dispatch/hub_kernels.h"
#define TENSORCAST_FAMILY_float 1

namespace tensorcast {
namespace dispatch {

HWY_EXPORT(F64ToF32RoundToOddImpl);
void F64ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  HWY_DYNAMIC_DISPATCH(F64ToF32RoundToOddImpl)(src, dst, count);
}

#define TENSORCAST_FAMILY_ROWS_FUNCTION FloatKernelRows
#include "lib/dispatch/family_table.inc"

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
