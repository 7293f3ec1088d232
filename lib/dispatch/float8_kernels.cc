// foreach_target TU of the float8 family (lib/kernels/float8_cast-inl.h):
// FLOAT and FLOAT16 <-> FLOAT8E4M3FN / E4M3FNUZ / E5M2 / E5M2FNUZ / E8M0.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/float8_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/float8_cast-inl.h"

#if HWY_ONCE
#include "lib/dispatch/family_rows.h"
#define TENSORCAST_FAMILY_float8 1

namespace tensorcast {
namespace dispatch {

#define TENSORCAST_FAMILY_ROWS_FUNCTION Float8KernelRows
#include "lib/dispatch/family_table.inc"

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
