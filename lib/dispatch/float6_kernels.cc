// foreach_target TU of the float6 family (lib/kernels/float6_cast-inl.h): FLOAT6E2M3,
// FLOAT6E3M2 <-> FLOAT, FLOAT16, BFLOAT16.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/float6_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/float6_cast-inl.h"

#if HWY_ONCE
#include "lib/dispatch/family_rows.h"
#define TENSORCAST_FAMILY_float6 1

namespace tensorcast {
namespace dispatch {

#define TENSORCAST_FAMILY_ROWS_FUNCTION Float6KernelRows
#include "lib/dispatch/family_table.inc"

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
