// The round-to-odd decoders of the two-step ("hub") route (internal): not ONNX casts and
// therefore not registry rows. Rounding to odd keeps every value's exactness and its position
// between float32 neighbours, so one later RNE (or directed) rounding into any format of
// <= 22 significant bits (float16, bfloat16, float8, float4, e8m0) is the correct
// rounding of the exact source value.
#ifndef TENSORCAST_LIB_DISPATCH_HUB_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_HUB_KERNELS_H_

#include <cstddef>

namespace tensorcast {
namespace dispatch {

// DOUBLE -> FLOAT rounded to odd; Inf and NaN as the RNE conversion (float_kernels.cc).
void F64ToF32RoundToOdd(const void* src, void* dst, size_t count);

// INT32 / UINT32 / INT64 / UINT64 -> FLOAT rounded to odd: exact values stay exact, an
// inexact one gets the float32 neighbour (toward zero or away) whose significand is odd.
void Int32ToF32RoundToOdd(const void* src, void* dst, size_t count);
void Uint32ToF32RoundToOdd(const void* src, void* dst, size_t count);
void Int64ToF32RoundToOdd(const void* src, void* dst, size_t count);
void Uint64ToF32RoundToOdd(const void* src, void* dst, size_t count);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_HUB_KERNELS_H_
