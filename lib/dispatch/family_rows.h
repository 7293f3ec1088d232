// Macros with which a kernel family's foreach_target TU expands only its own rows of
// cast_pairs.inc. In the TU, after the per-target code and under HWY_ONCE:
//
//   #include "lib/dispatch/family_rows.h"
//   #define TENSORCAST_FAMILY_float 1
//   namespace tensorcast { namespace dispatch {
//   #define TENSORCAST_FAMILY_ROWS_FUNCTION FloatKernelRows
//   #include "lib/dispatch/family_table.inc"   // HWY_EXPORTs + FloatKernelRows()
//   }}
#ifndef TENSORCAST_LIB_DISPATCH_FAMILY_ROWS_H_
#define TENSORCAST_LIB_DISPATCH_FAMILY_ROWS_H_

#include "hwy/highway.h"
#include "lib/dispatch/kernel_table.h"

#define TENSORCAST_CAT_(a, b) a##b
#define TENSORCAST_CAT(a, b) TENSORCAST_CAT_(a, b)
#define TENSORCAST_SECOND_(a, b, ...) b
#define TENSORCAST_SECOND(...) TENSORCAST_SECOND_(__VA_ARGS__, 0)
#define TENSORCAST_PROBE_1 ~, 1
#define TENSORCAST_IS_ONE(x) TENSORCAST_SECOND(TENSORCAST_CAT(TENSORCAST_PROBE_, x), 0)
#define TENSORCAST_IF_1(...) __VA_ARGS__
#define TENSORCAST_IF_0(...)
// Expands to the remaining arguments when TENSORCAST_FAMILY_<family> is defined as 1.
#define TENSORCAST_IF_FAMILY(family, ...) \
  TENSORCAST_CAT(TENSORCAST_IF_, TENSORCAST_IS_ONE(TENSORCAST_FAMILY_##family))(__VA_ARGS__)

// One KernelRow initializer whose function dispatches to the best target per call.
#define TENSORCAST_KERNEL_ROW(S, D, K)                                                        \
  {DataType::S, DataType::D, #K, [](const void* s, void* d, size_t n, const CastOptions& o) { \
     HWY_DYNAMIC_DISPATCH(K)(s, d, n, o);                                                     \
   }},

#endif  // TENSORCAST_LIB_DISPATCH_FAMILY_ROWS_H_
