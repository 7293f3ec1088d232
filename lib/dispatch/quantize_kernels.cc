// foreach_target TU of the QuantizeLinear / DequantizeLinear arithmetic
// (lib/kernels/quantize-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/quantize_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/quantize-inl.h"

#if HWY_ONCE
#include "lib/dispatch/quantize_kernels.h"

namespace tensorcast {
namespace dispatch {

HWY_EXPORT(QuantizeToIntF32);
HWY_EXPORT(QuantizeToInteger);
HWY_EXPORT(QuantizeQuotientF32);
HWY_EXPORT(QuantizeToFloatCodes);
HWY_EXPORT(DequantizeF32);
HWY_EXPORT(DequantizeInteger);
HWY_EXPORT(DequantizeFloat8);
HWY_EXPORT(DequantizeNibbles);

void QuantizeToIntF32(const QdqChunk& chunk, const float* x, size_t n, float lo, float hi,
                      float* out) {
  HWY_DYNAMIC_DISPATCH(QuantizeToIntF32)(chunk, x, n, lo, hi, out);
}

void QuantizeToInteger(const QdqChunk& chunk, const float* x, size_t n, int bits, bool is_signed,
                       float lo, float hi, void* out) {
  HWY_DYNAMIC_DISPATCH(QuantizeToInteger)(chunk, x, n, bits, is_signed, lo, hi, out);
}

void QuantizeQuotientF32(const QdqChunk& chunk, const float* x, size_t n, float* out) {
  HWY_DYNAMIC_DISPATCH(QuantizeQuotientF32)(chunk, x, n, out);
}

bool QuantizeToFloatCodes(const QdqChunk& chunk, const float* x, size_t n, DataType y_type,
                          bool saturate, void* out) {
  return HWY_DYNAMIC_DISPATCH(QuantizeToFloatCodes)(chunk, x, n, y_type, saturate, out);
}

void DequantizeF32(const QdqChunk& chunk, const float* x, size_t n, bool round_to_odd, float* out) {
  HWY_DYNAMIC_DISPATCH(DequantizeF32)(chunk, x, n, round_to_odd, out);
}

bool DequantizeFloat8(const QdqChunk& chunk, const void* x, size_t n, DataType x_type, float* out) {
  return HWY_DYNAMIC_DISPATCH(DequantizeFloat8)(chunk, x, n, x_type, out);
}

bool DequantizeNibbles(const QdqChunk& chunk, const void* x, size_t n, DataType x_type,
                       float* out) {
  return HWY_DYNAMIC_DISPATCH(DequantizeNibbles)(chunk, x, n, x_type, out);
}

void DequantizeInteger(const QdqChunk& chunk, const void* x, size_t n, int bits, bool is_signed,
                       float* out) {
  HWY_DYNAMIC_DISPATCH(DequantizeInteger)(chunk, x, n, bits, is_signed, out);
}

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
