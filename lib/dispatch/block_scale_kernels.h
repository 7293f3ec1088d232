// The block-scaling kernels (internal), dispatched to the best Highway target
// (lib/kernels/block_scale-inl.h).
#ifndef TENSORCAST_LIB_DISPATCH_BLOCK_SCALE_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_BLOCK_SCALE_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "lib/block_scale_rules.h"

namespace tensorcast {
namespace dispatch {

// The largest of the float32 bits of |x[j]|, j < n (0 when n is 0); finite_only: NaN and
// infinities count as 0.
uint32_t MaxAbsBits(const float* x, size_t n, bool finite_only);
// acc[j] = max(acc[j], float32 bits of |x[j]|), j < n (finite_only likewise).
void MaxAbsBitsInto(const float* x, size_t n, bool finite_only, uint32_t* acc);
// One chunk of a one-pass MX quantization (MxChunkArgs).
void MxChunk(const MxChunkArgs& args);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_BLOCK_SCALE_KERNELS_H_
