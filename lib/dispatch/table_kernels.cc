// foreach_target TU of the table-lookup kernel (lib/kernels/table_lookup-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/table_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/table_lookup-inl.h"

#if HWY_ONCE
#include "lib/dispatch/table_kernels.h"

namespace tensorcast {
namespace dispatch {

HWY_EXPORT(TableLookupCast);

void TableLookup(const uint8_t* table, int src_bits, int dst_bits, bool sign_extend,
                 const void* src, void* dst, size_t count) {
  HWY_DYNAMIC_DISPATCH(TableLookupCast)(table, src_bits, dst_bits, sign_extend, src, dst, count);
}

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
