// tensorcast/split.h: ONNX Split (opsets 1, 2, 11, 13, 18) as a single-pass,
// memcpy-based axis partitioner for every element type.
//
// Two layers:
//   Split()       copies the outputs, given explicit sizes along the axis;
//   SplitSizes()  turns a Split node's opset, attributes and inputs into those sizes
//                 (SplitSizesFromNumOutputs() is its Split-18 `num_outputs` rule alone).
//
//   int64_t shape[2] = {2, 8};
//   int64_t sizes[3];
//   tensorcast::SplitAttributes attrs;         // opset 18, axis 0
//   attrs.axis = 1;
//   attrs.has_num_outputs = true;
//   attrs.num_outputs = 3;
//   attrs.output_count = 3;
//   Status s = tensorcast::SplitSizes(attrs, shape, 2, sizes);   // sizes = {3, 3, 2}
//   float a[6], b[6], c[4];
//   void* outs[3] = {a, b, c};
//   if (s.ok()) s = tensorcast::Split(input, DataType::kFloat, shape, 2, 1, sizes, 3, outs);
#ifndef TENSORCAST_SPLIT_H_
#define TENSORCAST_SPLIT_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/data_type.h"
#include "tensorcast/runner.h"
#include "tensorcast/status.h"

namespace tensorcast {

// Splits the tensor `src` of element type `type` and shape `shape[0..rank)` along
// `axis` (negative counts from the back) into `num_outputs` tensors whose extents
// along the axis are `sizes[0..num_outputs)`. outputs[i] is a caller-owned buffer of
// StorageBytes(type, elements of output i) bytes (STRING: std::string objects);
// packed 4-/2-bit outputs are packed independently, starting at bit 0.
//
// - Every valid type code (1..28) is accepted, complex and the float8/float6/float4/int4/int2
//   types included (a superset of what any Split opset lists). Elements are copied
//   bit for bit; STRING elements are assigned (std::string copy).
// - Packed outputs (INT4, UINT4, FLOAT4E2M1: two per byte; INT2, UINT2: four per
//   byte) start at bit 0 of outputs[i]; the padding bits of a last partial byte are
//   written as zero. A split boundary inside a byte is handled with word/SIMD shifts.
// - An output with zero elements is not touched: its pointer may be null.
// - `src` must not overlap any output, and outputs must not overlap each other.
// - Errors (InvalidArgument unless noted), all detected before anything is written:
//   rank 0; null `shape`, `sizes`, `outputs`; null `src` or outputs[i] for a
//   non-empty tensor; a negative dimension; axis outside [-rank, rank-1];
//   num_outputs 0; a negative size; sizes that do not sum to the axis length;
//   an element or byte count that does not fit in size_t (kOverflow); an unknown
//   type code. Messages carry the offending numbers.
// - Never throws, never prints. Running out of memory while copying STRING elements
//   returns kInternal (outputs may then be partly written).
// - One pass over the source on the calling thread (reentrant, no global state); for
//   sources of 16 MiB and more the outputs are written with non-temporal stores.
Status Split(const void* src, DataType type, const int64_t* shape, size_t rank, int64_t axis,
             const int64_t* sizes, size_t num_outputs, void* const* outputs);

// The same, with the copies of a split of at least 1 MiB (source + outputs) cut into
// tasks that `runner` executes (tensorcast/runner.h; null: the calling thread). The
// outputs are the same bytes.
Status Split(const void* src, DataType type, const int64_t* shape, size_t rank, int64_t axis,
             const int64_t* sizes, size_t num_outputs, void* const* outputs, const Runner* runner);

// ---------------------------------------------------------------------------------
// Opset semantics: from a Split node to the `sizes` argument of Split().
//
// Versions: `opset` is the model's opset for the default domain; the node runs the
// newest Split version <= opset: 1, 2 (opsets 2-10), 11 (11-12), 13 (13-17), 18 (>= 18).
//
// | version | sizes come from                                 | without them               |
// |---------|-------------------------------------------------|----------------------------|
// | 1       | the optional second input (a float tensor in    | equal parts; error if the  |
// |         | ONNX: pass its values as integers) or the       | axis length is not         |
// |         | `split` attribute                               | divisible                  |
// | 2, 11   | the `split` attribute                           | same                       |
// | 13      | the optional int64 second input `split`         | same                       |
// | 18      | the int64 input `split`, or the `num_outputs`   | error (neither given)      |
// |         | attribute (ceil rule, see below); not both      |                            |
//
// Decisions where onnx.reference and ONNX shape inference disagree (README table):
// - Versions 1-13 without `split` and an axis length d not divisible by the number of
//   outputs n: error "not evenly splittable", as ONNX shape inference, ONNX Runtime
//   and the spec text ("split to equal sized parts"). onnx.reference instead slices
//   with the Split-18 ceil rule; use SplitSizesFromNumOutputs() for that behaviour.
// - Split-18 `num_outputs` n not dividing d: chunk c = ceil(d / n); the outputs take
//   c each while elements remain, the last non-empty output takes the rest and the
//   outputs after it are empty (onnx.reference; shape inference would write a
//   negative last dimension, onnx/onnx#5766). 7 into 3 -> 3,3,1; 5 into 4 -> 2,2,1,0;
//   2 into 4 -> 1,1,0,0; 0 into n -> all 0.
// - `num_outputs` must equal `output_count` (the node's output count): trailing
//   outputs cannot be omitted, because Split() writes every part.
// - `split` values are checked (>= 0, sum == d, count == output_count) in every
//   version; onnx.reference checks none of them.

// The parts of a Split node that decide the sizes. Fields a version does not have
// must be left absent (has_num_outputs before 18).
struct SplitAttributes {
  // Opset of the model's default domain (>= 1); selects the Split version.
  int opset = 18;
  // The `axis` attribute (default 0); negative counts from the back.
  int64_t axis = 0;
  // The `split` values: from the attribute (versions 1, 2, 11) or the second input
  // (versions 1, 13, 18). `split` points to `split_count` values; it is read only
  // when `has_split` is true (an absent input or attribute: has_split = false; a
  // present but empty tensor: has_split = true, split_count = 0).
  bool has_split = false;
  const int64_t* split = nullptr;
  size_t split_count = 0;
  // The `num_outputs` attribute (version 18 only).
  bool has_num_outputs = false;
  int64_t num_outputs = 0;
  // Number of outputs of the node: the number of entries SplitSizes writes and the
  // `num_outputs` argument of Split(). Must be >= 1.
  size_t output_count = 0;
};

// Writes the extent of each output along the axis to sizes_out[0..output_count) for
// an input of shape shape[0..rank), following the table above. Validates the shape
// (rank >= 1, dimensions >= 0) and the axis too, so a successful result can be passed
// to Split() with attrs.axis and attrs.output_count. Errors (InvalidArgument; the
// messages follow ONNX shape inference and carry the numbers; Unsupported for
// opset < 1, like CheckCastOpset):
//   axis outside [-rank, rank-1]; `num_outputs` before version 18; `split` and
//   `num_outputs` both given (18) or neither (18); num_outputs < 1; num_outputs !=
//   output_count; split count != output_count ("Mismatch between number of splits (2)
//   and outputs (3)"); a negative split value; split not summing to the axis length;
//   d not divisible by output_count without `split` (1-13); output_count 0; rank 0;
//   a negative dimension; null pointers.
// Nothing is written to sizes_out on error.
Status SplitSizes(const SplitAttributes& attrs, const int64_t* shape, size_t rank,
                  int64_t* sizes_out);

// The Split-18 `num_outputs` rule on its own: splits an axis of length `dim` (>= 0)
// into `num_outputs` (>= 1) parts of ceil(dim / num_outputs) elements, the last
// non-empty part taking the rest and any further parts empty (see above). Writes
// sizes_out[0..num_outputs). Errors: dim < 0, num_outputs 0, sizes_out null.
Status SplitSizesFromNumOutputs(int64_t dim, size_t num_outputs, int64_t* sizes_out);

// The Split version that `opset` runs: 1, 2, 11, 13 or 18; 0 when opset < 1.
int SplitVersion(int opset) noexcept;

}  // namespace tensorcast

#endif  // TENSORCAST_SPLIT_H_
