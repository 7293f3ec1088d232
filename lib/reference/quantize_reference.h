// The exact scalar QuantizeLinear / DequantizeLinear (internal): every element computed on
// its own from its decoded value, independently of the kernels and of Cast's fast
// routes. It runs the calls the kernels do not take (INT32 scales, INT32 inputs of
// DequantizeLinear) and is the oracle of the kernel tests.
#ifndef TENSORCAST_LIB_REFERENCE_QUANTIZE_REFERENCE_H_
#define TENSORCAST_LIB_REFERENCE_QUANTIZE_REFERENCE_H_

#include <cstddef>

#include "lib/quantize_plan.h"

namespace tensorcast {
namespace reference {

// Writes y elements [begin, end) of a validated plan (packed outputs: begin a multiple of
// 8, so that the range starts on a whole byte).
void QuantizeLinear(const QuantizePlan& plan, size_t begin, size_t end);
void DequantizeLinear(const QuantizePlan& plan, size_t begin, size_t end);

}  // namespace reference
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_REFERENCE_QUANTIZE_REFERENCE_H_
