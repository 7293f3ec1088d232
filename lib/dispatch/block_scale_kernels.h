// The block-scaling kernels (internal), dispatched to the best Highway target
// (lib/kernels/block_scale-inl.h).
#ifndef TENSORCAST_LIB_DISPATCH_BLOCK_SCALE_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_BLOCK_SCALE_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "lib/block_scale_rules.h"
#include "lib/tuning.h"

namespace tensorcast {
namespace dispatch {

// The largest of the float32 bits of |x[j]|, j < n (0 when n is 0); finite_only: NaN and
// infinities count as 0.
uint32_t MaxAbsBits(const float* x, size_t n, bool finite_only);
// acc[j] = max(acc[j], float32 bits of |x[j]|), j < n (finite_only likewise).
void MaxAbsBitsInto(const float* x, size_t n, bool finite_only, uint32_t* acc);
// One chunk of a one-pass MX quantization of n FLOAT elements x (n a multiple of 32, at
// most tuning::kQuantizeChunkElements) made of whole blocks of 32, to `element`
// (FLOAT8E4M3FN, FLOAT8E5M2, FLOAT6E2M3, FLOAT6E3M2 or FLOAT4E2M1): the n / 32 scale codes
// and the codes, packed; prefetch: x is out of cache (prefetched ahead). False (codes
// unwritten) when a block holds a NaN or an infinity.
bool MxChunk32(const float* x, size_t n, const MxRule& rule, DataType element, bool prefetch,
               uint8_t* scale_codes, uint8_t* codes);
// q[b] = (largest |x| of block b, elements [b * block, (b + 1) * block)) / divisor, the
// correctly rounded double quotient; NaN for a block holding a NaN or an infinity.
void AmaxQuotients(const float* x, size_t blocks, size_t block, double divisor, double* q);
// One chunk of a one-pass MX quantization (MxChunkArgs).
void MxChunk(const MxChunkArgs& args);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_BLOCK_SCALE_KERNELS_H_
