// foreach_target TU of the int family (lib/kernels/int_cast-inl.h): every integer
// <-> every other integer (wrap), BOOL <-> every integer, FLOAT, DOUBLE, FLOAT16, BFLOAT16.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/int_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/int_cast-inl.h"

#if HWY_ONCE
#include "lib/dispatch/family_rows.h"
#define TENSORCAST_FAMILY_int 1

namespace tensorcast {
namespace dispatch {

#define TENSORCAST_FAMILY_ROWS_FUNCTION IntKernelRows
#include "lib/dispatch/family_table.inc"

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
