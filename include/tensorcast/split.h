// tensorcast/split.h: ONNX Split (opsets 1, 2, 11, 13, 18) as a single-pass,
// memcpy-based axis partitioner for every element type.
#ifndef TENSORCAST_SPLIT_H_
#define TENSORCAST_SPLIT_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/data_type.h"
#include "tensorcast/status.h"

namespace tensorcast {

// Splits the tensor `src` of element type `type` and shape `shape[0..rank)` along
// `axis` (negative counts from the back) into `num_outputs` tensors whose extents
// along the axis are `sizes[0..num_outputs)`. outputs[i] is a caller-owned buffer of
// StorageBytes(type, elements of output i) bytes (STRING: std::string objects);
// packed 4-/2-bit outputs are packed independently, starting at bit 0.
Status Split(const void* src, DataType type, const int64_t* shape, size_t rank, int64_t axis,
             const int64_t* sizes, size_t num_outputs, void* const* outputs);

}  // namespace tensorcast

#endif  // TENSORCAST_SPLIT_H_
