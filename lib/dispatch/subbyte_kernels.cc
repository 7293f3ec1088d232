// foreach_target TU of the subbyte family (lib/kernels/subbyte_cast-inl.h, packing in
// lib/kernels/pack-inl.h): INT4, UINT4, INT2, UINT2, FLOAT4E2M1 <-> FLOAT, FLOAT16, and
// the 4/2-bit integers <-> INT8, UINT8.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/subbyte_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/subbyte_cast-inl.h"

#if HWY_ONCE
#include "lib/dispatch/family_rows.h"
#define TENSORCAST_FAMILY_subbyte 1

namespace tensorcast {
namespace dispatch {

#define TENSORCAST_FAMILY_ROWS_FUNCTION SubbyteKernelRows
#include "lib/dispatch/family_table.inc"

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
