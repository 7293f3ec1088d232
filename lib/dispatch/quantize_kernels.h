// The QuantizeLinear / DequantizeLinear arithmetic kernels (internal), dispatched to the
// best Highway target (lib/kernels/quantize-inl.h). Each call takes one chunk: elements
// [e0, e0 + n) of the call, as float32 in x; the chunk's layout finds each scale.
#ifndef TENSORCAST_LIB_DISPATCH_QUANTIZE_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_QUANTIZE_KERNELS_H_

#include <cstddef>

#include "lib/quantize_runs.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace dispatch {

// out[j] = round_half_even(x[j] / s) saturated to [lo - z, hi - z], plus z; NaN -> z.
void QuantizeToIntF32(const QdqChunk& chunk, const float* x, size_t n, float lo, float hi,
                      float* out);
// QuantizeToIntF32 stored as the 8- or 16-bit integer type of `bits` and `is_signed` at out.
void QuantizeToInteger(const QdqChunk& chunk, const float* x, size_t n, int bits, bool is_signed,
                       float lo, float hi, void* out);
// out[j] = x[j] / s, plus z when the call has a zero point (a float zero point is +-0:
// adding it decides the sign of a zero quotient); NaNs as FixNaN in the kernel.
void QuantizeQuotientF32(const QdqChunk& chunk, const float* x, size_t n, float* out);
// The codes of QuantizeQuotientF32's quotients as the float8 type or FLOAT4E2M1 y_type, by
// Cast's rules with `saturate` (FLOAT4E2M1 always saturates), written to out (packed) in
// one pass. False, with nothing written, for a chunk whose layout the fused loop does not
// take (blocks not a multiple of the vector; 4-bit runs starting mid-byte) or another type.
bool QuantizeToFloatCodes(const QdqChunk& chunk, const float* x, size_t n, DataType y_type,
                          bool saturate, void* out);
// out[j] = (x[j] - z) * s, rounded to nearest even, or to odd when round_to_odd (for a
// later Cast to a narrower float). x and out may be the same array.
// DequantizeF32 of an 8- or 16-bit integer x (`bits`, `is_signed`) read as it is stored.
void DequantizeInteger(const QdqChunk& chunk, const void* x, size_t n, int bits, bool is_signed,
                       float* out);
void DequantizeF32(const QdqChunk& chunk, const float* x, size_t n, bool round_to_odd, float* out);
// DequantizeF32 to FLOAT of float8 x (x_type, codes as stored), decoded in registers; false
// (nothing written) for another type.
bool DequantizeFloat8(const QdqChunk& chunk, const void* x, size_t n, DataType x_type, float* out);
// The same for INT4 / UINT4 x (packed; the chunk starts on a whole byte), the
// codes unpacked in registers; false (nothing written) for another type or a layout the
// loop does not take (as QuantizeToFloatCodes).
bool DequantizeNibbles(const QdqChunk& chunk, const void* x, size_t n, DataType x_type, float* out);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_QUANTIZE_KERNELS_H_
