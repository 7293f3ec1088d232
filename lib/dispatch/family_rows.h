// Macros with which a kernel family's foreach_target TU expands only its own rows of
// cast_pairs.inc. In the TU, after the per-target code and under HWY_ONCE:
//
//   #include "lib/dispatch/family_rows.h"
//   #define TC_FAMILY_float 1
//   namespace tensorcast { namespace dispatch {
//   #define TC_FAMILY_ROWS_FUNCTION FloatKernelRows
//   #include "lib/dispatch/family_table.inc"   // HWY_EXPORTs + FloatKernelRows()
//   }}
#ifndef TENSORCAST_LIB_DISPATCH_FAMILY_ROWS_H_
#define TENSORCAST_LIB_DISPATCH_FAMILY_ROWS_H_

#include "hwy/highway.h"
#include "lib/dispatch/cast_kernels.h"

#define TC_CAT_(a, b) a##b
#define TC_CAT(a, b) TC_CAT_(a, b)
#define TC_SECOND_(a, b, ...) b
#define TC_SECOND(...) TC_SECOND_(__VA_ARGS__, 0)
#define TC_PROBE_1 ~, 1
#define TC_IS_ONE(x) TC_SECOND(TC_CAT(TC_PROBE_, x), 0)
#define TC_IF_1(...) __VA_ARGS__
#define TC_IF_0(...)
// Expands to the remaining arguments when TC_FAMILY_<family> is defined as 1.
#define TC_IF_FAMILY(family, ...) TC_CAT(TC_IF_, TC_IS_ONE(TC_FAMILY_##family))(__VA_ARGS__)

// One KernelRow initializer whose function dispatches to the best target per call.
#define TC_KERNEL_ROW(S, D, K)                                                                \
  {DataType::S, DataType::D, #K, [](const void* s, void* d, size_t n, const CastOptions& o) { \
     HWY_DYNAMIC_DISPATCH(K)(s, d, n, o);                                                     \
   }},

#endif  // TENSORCAST_LIB_DISPATCH_FAMILY_ROWS_H_
