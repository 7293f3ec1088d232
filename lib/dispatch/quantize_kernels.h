// The QuantizeLinear / DequantizeLinear arithmetic kernels (internal), dispatched to the
// best Highway target (lib/kernels/quantize-inl.h).
#ifndef TENSORCAST_LIB_DISPATCH_QUANTIZE_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_QUANTIZE_KERNELS_H_

#include <cstddef>

namespace tensorcast {
namespace dispatch {

// Where the n elements of a run find their scale s and zero point z (z null: zero).
struct QdqRun {
  enum Mode { kUniform, kPerElement, kBlocked };
  Mode mode = kUniform;
  // kUniform: s[0], z[0] for every element. kPerElement: s[j], z[j].
  // kBlocked: s[(phase + j) / block], z[(phase + j) / block].
  const float* s = nullptr;
  const float* z = nullptr;
  size_t block = 0;
  size_t phase = 0;
};

// out[j] = round_half_even(x[j] / s) saturated to [lo - z, hi - z], plus z; NaN -> z.
void QuantizeToIntF32(const float* x, size_t n, const QdqRun& run, float lo, float hi, float* out);
// out[j] = x[j] / s, plus z when add_zero_point (a float zero point is +-0: adding it
// decides the sign of a zero quotient); NaNs as FixNaN in the kernel.
void QuantizeQuotientF32(const float* x, size_t n, const QdqRun& run, bool add_zero_point,
                         float* out);
// out[j] = (x[j] - z) * s, rounded to nearest even, or to odd when round_to_odd (for a
// later Cast to a narrower float).
void DequantizeF32(const float* x, size_t n, const QdqRun& run, bool round_to_odd, float* out);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_QUANTIZE_KERNELS_H_
