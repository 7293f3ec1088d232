// tensorcast/block_scale.h: quantization with the scales computed. OCP Microscaling (MX)
// formats, NVFP4 and absmax, each laid out so that ONNX DequantizeLinear reads it back.
//
//   MX (block of 32, one FLOAT8E8M0 scale per block):
//     mxfp8_e4m3  FLOAT8E4M3FN codes      mxfp6_e2m3  FLOAT6E2M3 codes
//     mxfp8_e5m2  FLOAT8E5M2 codes        mxfp6_e3m2  FLOAT6E3M2 codes
//     mxfp4       FLOAT4E2M1 codes
//   NVFP4 (block of 16): FLOAT4E2M1 codes, one FLOAT8E4M3FN scale per block, one FLOAT
//     scale per tensor.
//   absmax: INT8 or FLOAT8E4M3FN codes, one FLOAT scale per tensor or per channel.
//
// The rules (docs/semantics.md section 13 has each as a formula, with its sources):
// - MX scale of a block, 2^e as FLOAT8E8M0 (code e + 127):
//     floor (the OCP MX v1.0 rule): e = floor(log2(amax)) - emax, where emax is the
//       exponent of the element format's largest value (E4M3 8, E5M2 15, E2M3 2,
//       E3M2 4, E2M1 2); elements above the format's largest value saturate to it.
//     rceil: the smallest e for which amax * 2^-e <= the element format's largest value
//       (nothing saturates).
//   e is clamped to [-127, 127] (2^-127 for an all-zero block); a block holding a NaN or
//   an infinity gets the NaN scale (code 0xFF): the block decodes to NaN.
//   Codes: x * 2^-e rounded once (to nearest, ties to even) to the element format,
//   saturating, which is QuantizeLinear(x, scale) of the codes' type.
// - NVFP4: the tensor scale g is the caller's (positive, finite) or, computed, 1 when the
//   tensor's largest finite |x| is 0, else max(fl(amax_t / (6 * 448)), 2^-126). A block's
//   scale code is max(E4M3FN(amax_b / (6 * g)), 0x01), the exact quotient rounded once
//   and saturated at 448 (0x7F, NaN, for a block holding a NaN or an infinity); its FLOAT
//   scale is S = fl(E4M3FN value * g), and the codes are QuantizeLinear(x, S) to
//   FLOAT4E2M1.
// - absmax: the scale is 1 when the largest finite |x| of the tensor (or channel) is 0,
//   else max(fl(amax / Q), 2^-126) with Q = 127 (INT8) or 448 (FLOAT8E4M3FN); the codes
//   are QuantizeLinear(x, scale): NaN -> 0 (INT8) or NaN, infinities saturate.
//
// Layout: x is dense and row-major, of FLOAT, FLOAT16 or BFLOAT16. Codes have x's shape,
// packed as Cast packs the type (tensorcast/data_type.h). Block scales have x's shape
// except along `axis`, where they hold ceil(D / block_size) values; block_size
// consecutive elements along `axis` share one (the last block may be shorter).
//   dequantize (MX):    DequantizeLinear-28(codes, scales, axis, block_size, output_dtype)
//   dequantize (NVFP4): S = DequantizeLinear(scales, g); DequantizeLinear(codes, S, ...)
// are exactly what DequantizeMx / DequantizeNvfp4 compute.
//
// Every argument is checked before anything is written; errors name the argument. Along
// the contiguous axis, QuantizeMx of FLOAT reads each block once; other axes and types,
// NVFP4 and absmax read x twice (the scales, then the codes), three times for a computed
// NVFP4 tensor scale.
#ifndef TENSORCAST_BLOCK_SCALE_H_
#define TENSORCAST_BLOCK_SCALE_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/data_type.h"
#include "tensorcast/quantize.h"
#include "tensorcast/runner.h"
#include "tensorcast/stats.h"
#include "tensorcast/status.h"

namespace tensorcast {

// The block-scaled formats (codes stable: they are the C ABI's TC_FORMAT_*).
enum class BlockFormat : int32_t {
  kMxfp8E4m3 = 1,
  kMxfp8E5m2 = 2,
  kMxfp6E2m3 = 3,
  kMxfp6E3m2 = 4,
  kMxfp4 = 5,
  kNvfp4 = 6,
};

// How an MX block's scale follows from its largest magnitude (see above).
enum class ScaleRule : int32_t {
  kFloor = 0,  // OCP MX v1.0
  kRceil = 1,  // nothing saturates
};

// "mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e2m3", "mxfp6_e3m2", "mxfp4", "nvfp4"; null for
// another value.
const char* BlockFormatName(BlockFormat format) noexcept;
// The element type of the format's codes; kUndefined for another value.
DataType BlockFormatElementType(BlockFormat format) noexcept;
// The type of the block scales: FLOAT8E8M0 (MX) or FLOAT8E4M3FN (NVFP4).
DataType BlockFormatScaleType(BlockFormat format) noexcept;
// 32 (MX) or 16 (NVFP4).
int64_t BlockFormatBlockSize(BlockFormat format) noexcept;

struct BlockScaleOptions {
  // The axis along which blocks run, negative counting from the back.
  int64_t axis = -1;
  // 0: the format's (32 for MX, 16 for NVFP4); otherwise any positive size.
  int64_t block_size = 0;
  // MX only (NVFP4 must keep kFloor, its block rule being fixed).
  ScaleRule scale_rule = ScaleRule::kFloor;
  // Null: the calling thread. Otherwise large calls are cut into tasks for the runner;
  // the results are the same bits.
  const Runner* runner = nullptr;
  // Non-null: filled in with the call's statistics (tensorcast/stats.h), computed in one
  // more pass over x and the codes; quantizers only.
  CastStats* stats = nullptr;
};

// The number of block scales of x (the product of the scales' shape).
Status BlockScaleCount(const int64_t* shape, size_t rank, const BlockScaleOptions& options,
                       BlockFormat format, size_t* count);

// MX quantization: `codes` holds StorageBytes(element type, elements of x) bytes, `scales`
// BlockScaleCount FLOAT8E8M0 codes. kInvalidArgument for NVFP4 (QuantizeNvfp4).
Status QuantizeMx(const TensorView& x, BlockFormat format, void* codes, void* scales,
                  const BlockScaleOptions& options = {});

// MX dequantization of `codes` (its type the format's element type, its shape x's) with
// `scales` (FLOAT8E8M0, the layout above) into y of y_type FLOAT, FLOAT16 or BFLOAT16:
// each value is the exact code * scale rounded once to y_type (saturating or flushing as
// Cast does: FLOAT16 overflows to infinity).
Status DequantizeMx(const TensorView& codes, const void* scales, BlockFormat format, void* y,
                    DataType y_type, const BlockScaleOptions& options = {});

// NVFP4 quantization: `codes` FLOAT4E2M1 (packed), `scales` FLOAT8E4M3FN, one per block of
// options.block_size (0: 16). `global_scale`: when `global_scale_given`, the tensor scale
// to use (positive and finite); otherwise computed and stored there.
Status QuantizeNvfp4(const TensorView& x, void* codes, void* scales, float* global_scale,
                     bool global_scale_given, const BlockScaleOptions& options = {});

// NVFP4 dequantization: exactly the two DequantizeLinear nodes above.
Status DequantizeNvfp4(const TensorView& codes, const void* scales, float global_scale, void* y,
                       DataType y_type, const BlockScaleOptions& options = {});

struct AbsmaxOptions {
  // false: one scale for the tensor; true: one per index of `axis`.
  bool per_channel = false;
  int64_t axis = 0;  // negative counting from the back; read when per_channel
  const Runner* runner = nullptr;
  CastStats* stats = nullptr;  // as BlockScaleOptions::stats
};

// absmax quantization to code_type INT8 or FLOAT8E4M3FN: `codes` holds one code per
// element of x, `scales` one FLOAT (per tensor) or x.shape[axis] (per channel).
Status QuantizeAbsmax(const TensorView& x, DataType code_type, void* codes, float* scales,
                      const AbsmaxOptions& options = {});

}  // namespace tensorcast

#endif  // TENSORCAST_BLOCK_SCALE_H_
