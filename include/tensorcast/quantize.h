// tensorcast/quantize.h: ONNX QuantizeLinear and DequantizeLinear (opsets 10-28).
//
//   QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point)
//   DequantizeLinear: y = (x - x_zero_point) * x_scale
//
// The scale (and the optional zero point) has one of three granularities, decided by its
// shape:
// - per tensor: one element (rank 0, or any shape holding one element);
// - per axis (opset 13+): rank 1, one value per index of x's dimension `axis`;
// - blocked (opset 21+, block_size > 0): the rank of x, equal to x's shape except along
//   `axis`, where it holds ceil(D / block_size) values; `block_size` consecutive
//   elements along `axis` share one (the last block may be shorter).
//
//   const int64_t shape[2] = {4, 64};            // 4 rows of 64 floats
//   const int64_t scale_shape[2] = {4, 2};       // one scale per block of 32
//   tensorcast::TensorView x{data, tensorcast::DataType::kFloat, shape, 2};
//   tensorcast::TensorView s{scales, tensorcast::DataType::kFloat, scale_shape, 2};
//   tensorcast::QuantizeAttributes attrs;        // opset 28
//   attrs.block_size = 32;                       // along axis 1
//   attrs.output_dtype = tensorcast::DataType::kInt4;
//   Status st = tensorcast::QuantizeLinear(x, s, nullptr, y, tensorcast::DataType::kInt4,
//                                          attrs);  // y: StorageBytes(kInt4, 256) bytes
//
// Arithmetic (docs/semantics.md section 12 has every rule and each difference from
// onnx.reference):
// - QuantizeLinear divides in the precision P of the scale's type, or of `precision`
//   (FLOAT, FLOAT16 or BFLOAT16) when given: x and the scale are rounded to P, and the
//   quotient is the correctly rounded P result. An INT32 scale divides in DOUBLE.
//   Integer outputs then round half to even, add the zero point and saturate to the
//   type's range (no wrap anywhere); a NaN quotient gives the zero point.
//   Float outputs (float8, FLOAT4E2M1, FLOAT6*) are a Cast of the quotient plus the zero
//   point under Cast's rules with `saturate`. A float zero point must be +0 or -0; as
//   IEEE arithmetic adds it, its one effect is the sign of a zero quotient.
// - DequantizeLinear rounds the exact (x - zero_point) * scale once to the output type
//   (no intermediate float32 rounding for FLOAT16 / BFLOAT16 outputs or INT32 inputs);
//   a float zero point (+-0) is subtracted as IEEE arithmetic does.
//
// Tensors are dense and row-major; packed types (INT4, UINT4, INT2, UINT2, FLOAT4E2M1,
// FLOAT6*) are packed as in Cast (tensorcast/data_type.h), the padding bits written as
// zero. y has x's shape. y must not overlap x, the scale or the zero point.
// Every argument is checked before anything is written; errors name the argument.
#ifndef TENSORCAST_QUANTIZE_H_
#define TENSORCAST_QUANTIZE_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/data_type.h"
#include "tensorcast/runner.h"
#include "tensorcast/status.h"

namespace tensorcast {

// A dense row-major tensor that a call reads: `rank` dimensions at `shape` (null when
// rank is 0, a scalar), elements at `data` (may be null when the tensor is empty).
struct TensorView {
  const void* data = nullptr;
  DataType type = DataType::kUndefined;
  const int64_t* shape = nullptr;
  size_t rank = 0;
};

// The attributes of a QuantizeLinear / DequantizeLinear node, and the runner. A field
// that the node's version does not have must keep its default: the call is rejected
// otherwise ("block_size: QuantizeLinear-19 has no such attribute (from opset 21)").
struct QuantizeAttributes {
  // The model's opset of the default domain, 10..28. Versions: 10, 13, 19, 21, 23, 24,
  // 25, 28 (opset 11 runs version 10, 14-18 run 13, 20 runs 19, 22 runs 21, 26-27 run 25).
  int opset = 28;
  // Quantization axis (13+), negative counting from the back. Read only for per-axis and
  // blocked scales.
  int64_t axis = 1;
  // 0: per tensor or per axis; > 0: blocked (21+).
  int64_t block_size = 0;
  // QuantizeLinear (21+): the output type when there is no zero point (default UINT8);
  // must equal the zero point's type when both are given. DequantizeLinear (23+): the
  // output type (FLOAT, FLOAT16 or BFLOAT16; default: the scale's type).
  // kUndefined: absent.
  DataType output_dtype = DataType::kUndefined;
  // QuantizeLinear (19+): float8 outputs beyond the format's range become +-max when
  // true, NaN/Inf (as the format allows) when false. FLOAT4E2M1 and FLOAT6* saturate always.
  bool saturate = true;
  // QuantizeLinear (23+): the precision of the division, FLOAT, FLOAT16 or BFLOAT16.
  // kUndefined: absent (the scale's type decides).
  DataType precision = DataType::kUndefined;
  // Null: the calling thread. Otherwise calls of at least 1 MiB (x + y) are cut into
  // tasks for the runner; the results are the same bits.
  const Runner* runner = nullptr;
};

// The version of QuantizeLinear / DequantizeLinear that `opset` runs (10, 13, 19, 21,
// 23, 24, 25 or 28); 0 when opset < 10 or opset > 28.
int QuantizeLinearVersion(int opset) noexcept;

// The element type of QuantizeLinear's y: the zero point's type (kUndefined: no zero
// point), else attrs.output_dtype, else UINT8; checked against the opset's types.
Status QuantizeLinearOutputType(const QuantizeAttributes& attrs, DataType zero_point_type,
                                DataType* y_type);

// The element type of DequantizeLinear's y: FLOAT (opsets 10-18), the scale's type
// (19-22), attrs.output_dtype or else the scale's type (23+).
Status DequantizeLinearOutputType(const QuantizeAttributes& attrs, DataType scale_type,
                                  DataType* y_type);

// QuantizeLinear. `zero_point` may be null (absent). `y` holds StorageBytes(y_type,
// elements of x) bytes; y_type must be the type QuantizeLinearOutputType gives.
// Errors (nothing written): kUnsupported for an opset outside 10..28 or a type the
// node's version does not list; kInvalidArgument for shapes, attributes, null or
// overlapping buffers, a nonzero float zero point; kOverflow for sizes beyond size_t.
Status QuantizeLinear(const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                      void* y, DataType y_type, const QuantizeAttributes& attrs = {});

// DequantizeLinear, with the same conventions; y_type must be the type
// DequantizeLinearOutputType gives.
Status DequantizeLinear(const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                        void* y, DataType y_type, const QuantizeAttributes& attrs = {});

}  // namespace tensorcast

#endif  // TENSORCAST_QUANTIZE_H_
