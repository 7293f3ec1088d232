// A validated QuantizeLinear / DequantizeLinear call (internal): the types, the layout of
// x around the quantization axis and how an element finds its scale. Built by
// lib/quantize.cc after every argument check; read by the driver and the reference.
#ifndef TENSORCAST_LIB_QUANTIZE_PLAN_H_
#define TENSORCAST_LIB_QUANTIZE_PLAN_H_

#include <cstddef>

#include "tensorcast/data_type.h"
#include "tensorcast/quantize.h"
#include "tensorcast/runner.h"
#include "tensorcast/status.h"

namespace tensorcast {

enum class Granularity { kPerTensor, kPerAxis, kBlocked };

struct QuantizePlan {
  bool quantize = true;  // QuantizeLinear; false: DequantizeLinear
  DataType x_type = DataType::kUndefined;
  DataType scale_type = DataType::kUndefined;
  DataType zero_point_type = DataType::kUndefined;  // kUndefined: no zero point
  DataType y_type = DataType::kUndefined;
  // QuantizeLinear: the precision of the division (FLOAT, FLOAT16, BFLOAT16 or DOUBLE).
  DataType precision = DataType::kFloat;
  bool saturate = true;
  Granularity granularity = Granularity::kPerTensor;
  size_t count = 0;  // elements of x (and y)
  // x as [outer, dim, inner] around the axis (per tensor: 1, count, 1).
  size_t outer = 1, dim = 0, inner = 1;
  size_t block = 0;   // blocked: block_size
  size_t blocks = 0;  // blocked: ceil(dim / block)
  const void* x = nullptr;
  const void* scale = nullptr;
  const void* zero_point = nullptr;  // null: no zero point
  void* y = nullptr;
  const Runner* runner = nullptr;

  // The index into the scale (and zero point) of element e of x.
  size_t ScaleIndex(size_t e) const {
    switch (granularity) {
      case Granularity::kPerTensor: return 0;
      case Granularity::kPerAxis: return e / inner % dim;
      default: {
        const size_t row = e / inner;  // o * dim + a
        const size_t o = row / dim, a = row % dim;
        return (o * blocks + a / block) * inner + e % inner;
      }
    }
  }
};

// The checks of QuantizeLinear / DequantizeLinear (`quantize` selects which) and, when they
// pass, the plan of the call; the public functions are this plus the conversion.
Status PlanQuantizeCall(bool quantize, const TensorView& x, const TensorView& scale,
                        const TensorView* zero_point, void* y, DataType y_type,
                        const QuantizeAttributes& attrs, QuantizePlan* plan);

}  // namespace tensorcast

#endif  // TENSORCAST_LIB_QUANTIZE_PLAN_H_
