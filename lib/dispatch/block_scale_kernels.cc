// foreach_target TU of the block-scaling kernels (lib/kernels/block_scale-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/block_scale_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/block_scale-inl.h"

#if HWY_ONCE
#include "lib/dispatch/block_scale_kernels.h"

namespace tensorcast {
namespace dispatch {

HWY_EXPORT(MaxAbsBits);
HWY_EXPORT(MaxAbsBitsInto);
HWY_EXPORT(AmaxQuotients);
HWY_EXPORT(MxChunk);
HWY_EXPORT(MxChunk32);

uint32_t MaxAbsBits(const float* x, size_t n, bool finite_only) {
  return HWY_DYNAMIC_DISPATCH(MaxAbsBits)(x, n, finite_only);
}

void MaxAbsBitsInto(const float* x, size_t n, bool finite_only, uint32_t* acc) {
  HWY_DYNAMIC_DISPATCH(MaxAbsBitsInto)(x, n, finite_only, acc);
}

void AmaxQuotients(const float* x, size_t blocks, size_t block, double divisor, double* q) {
  HWY_DYNAMIC_DISPATCH(AmaxQuotients)(x, blocks, block, divisor, q);
}
void MxChunk(const MxChunkArgs& args) { HWY_DYNAMIC_DISPATCH(MxChunk)(args); }

bool MxChunk32(const float* x, size_t n, const MxRule& rule, DataType element, bool prefetch,
               uint8_t* scale_codes, uint8_t* codes) {
  return HWY_DYNAMIC_DISPATCH(MxChunk32)(x, n, rule, element, prefetch, scale_codes, codes);
}
}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
