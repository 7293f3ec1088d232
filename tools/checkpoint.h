// tools/checkpoint.h: `tensorcast cast` and `tensorcast quantize` of whole checkpoints
// (.safetensors out; .safetensors, .npy or .pb in), documented in docs/checkpoints.md.
#ifndef TENSORCAST_TOOLS_CHECKPOINT_H_
#define TENSORCAST_TOOLS_CHECKPOINT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <tensorcast/tensorcast.h>

namespace tensorcast {
namespace cli {

// The quantization formats of `tensorcast quantize --format`: the block formats, and
// absmax to INT8 or FLOAT8E4M3FN.
struct QuantFormat {
  std::string name;                         // "mxfp4", "int8_absmax", ...
  bool absmax = false;                      // else a BlockFormat
  BlockFormat block = BlockFormat::kMxfp4;  // when !absmax
  DataType absmax_type = DataType::kInt8;   // when absmax
};

// Parses a --format value (any case); false when it names no quantization format.
bool ParseQuantFormat(const std::string& value, QuantFormat* out);

// The --format values, for messages: "mxfp8_e4m3, ..., fp8_absmax".
std::string QuantFormatList();

// Every quantization format, in --format's order.
std::vector<QuantFormat> QuantFormats();

// The element type of the format's codes.
DataType QuantFormatCodeType(const QuantFormat& f);

// Quantizes x with `f`'s quantizer (QuantizeMx, QuantizeNvfp4 with the tensor scale
// computed into *global, or QuantizeAbsmax into FLOAT scales). `axis`: the blocks' axis, or
// absmax's channel axis; `per_tensor`: absmax's single scale.
struct QuantizeChoice {
  int64_t axis = -1;
  int64_t block_size = 0;
  ScaleRule scale_rule = ScaleRule::kFloor;
  bool per_tensor = false;
  const Runner* runner = nullptr;
  CastStats* stats = nullptr;
};
Status QuantizeWithFormat(const QuantFormat& f, const TensorView& x, void* codes, void* scales,
                          float* global, const QuantizeChoice& choice);

struct CheckpointJob {
  bool quantize = false;
  // cast
  DataType to = DataType::kUndefined;
  CastOptions cast;
  // quantize
  QuantFormat format;
  bool axis_given = false;
  int64_t axis = 0;        // default: -1 (block formats), 0 (absmax per channel)
  int64_t block_size = 0;  // 0: the format's
  ScaleRule scale_rule = ScaleRule::kFloor;
  bool per_tensor = false;  // absmax: one scale for the tensor
  // both
  std::vector<std::string> include, exclude;  // glob patterns (fnmatch) on tensor names
  size_t threads = 1;
  bool progress = false;     // a progress line on standard error
  bool print_stats = false;  // quantize: a table of each tensor's statistics on stdout
};

// True when `path` names a .safetensors file (by its extension, any case).
bool IsSafetensorsPath(const std::string& path);

// The values of the value float tensors of the .safetensors file `path` (cast's default
// selection), in file order, as FLOAT: at most `limit` of them. `description` says which;
// `row` is the greatest common divisor of their last dimensions, so that rows of `row`
// values never straddle two tensors' rows.
Status ReadCheckpointFloats(const std::string& path, size_t limit, std::vector<float>* out,
                            std::string* description, size_t* row);

// Runs the job from `in` to `out` (a .safetensors path); returns the exit code, after
// printing any error.
int RunCheckpoint(const CheckpointJob& job, const std::string& in, const std::string& out);

}  // namespace cli
}  // namespace tensorcast

#endif  // TENSORCAST_TOOLS_CHECKPOINT_H_
