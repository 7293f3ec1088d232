// foreach_target translation unit of the Cast kernels: includes every kernel family
// once per Highway target, exports each registry row and builds the lookup table.
#include "lib/dispatch/cast_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/cast_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/float_cast-inl.h"

#if HWY_ONCE
namespace tensorcast {
namespace kernels {

#define TC_CAST_PAIR(S, D, K) HWY_EXPORT(K);
#include "lib/dispatch/cast_pairs.inc"
#undef TC_CAST_PAIR

namespace {

#define TC_CAST_PAIR(S, D, K)                                                   \
  {DataType::S, DataType::D, #K,                                                \
   [](const void* src, void* dst, size_t count, const CastOptions& options) {   \
     HWY_DYNAMIC_DISPATCH(K)(src, dst, count, options);                         \
   }},
constexpr KernelRow kRows[] = {
#include "lib/dispatch/cast_pairs.inc"
};
#undef TC_CAST_PAIR

}  // namespace

const KernelRow* KernelRows(size_t* count) {
  *count = sizeof(kRows) / sizeof(kRows[0]);
  return kRows;
}

CastKernel FindKernel(DataType src, DataType dst) {
  for (const KernelRow& row : kRows) {
    if (row.src == src && row.dst == dst) return row.kernel;
  }
  return nullptr;
}

}  // namespace kernels
}  // namespace tensorcast
#endif  // HWY_ONCE
