// tools/tensor_io.h: tensors in files for the tensorcast command-line program.
//
// Two formats, chosen by the file extension:
//   .npy  numpy format 1.0/2.0/3.0 (little-endian; f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1
//         c8 c16 and '<U' unicode strings; C or Fortran order). Written as version 1.0.
//   .pb   one serialized onnx.TensorProto: raw_data or the typed fields (float_data,
//         double_data, int32_data, int64_data, uint64_data, string_data; complex types as
//         (re, im) pairs in float_data/double_data), packed 4-, 2- and
//         6-bit types (docs/semantics.md, "Packing"; FLOAT6E2M3/FLOAT6E3M2: four
//         elements in three bytes in raw_data, one element per value in int32_data).
//         Written with raw_data, or string_data for STRING.
// In memory a tensor holds elements exactly as tensorcast::Cast and Split take them: numeric
// types in StorageBytes(type, count) little-endian bytes (sub-byte types packed, zero
// padding), STRING as std::string objects.
#ifndef TENSORCAST_TOOLS_TENSOR_IO_H_
#define TENSORCAST_TOOLS_TENSOR_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tensorcast/tensorcast.h>

#include "file_util.h"

namespace tensorcast {
namespace cli {

struct Tensor {
  DataType type = DataType::kUndefined;
  std::vector<int64_t> dims;         // empty for a scalar
  size_t count = 0;                  // number of elements: product of dims
  std::vector<unsigned char> bytes;  // numeric and bool elements
  std::vector<std::string> strings;  // STRING elements
  std::string name;                  // TensorProto.name, kept from .pb to .pb

  const void* data() const;
  void* data();
};

// The number of elements of shape `dims` (1 for a scalar). Fails for negative dims
// and products that overflow size_t.
Status ShapeElementCount(const std::vector<int64_t>& dims, size_t* count);

// Sets `t` to a tensor of `type` and shape `dims` with zero bytes / empty strings.
// Fails for negative dims, invalid type codes and sizes that overflow. (Complex types
// are accepted: Split takes them; Cast rejects them itself.)
Status AllocateTensor(DataType type, std::vector<int64_t> dims, Tensor* t);

// "[2, 3]" (or "[]" for a scalar).
std::string ShapeString(const std::vector<int64_t>& dims);

enum class FileFormat { kNpy, kPb };

// The format of `path` from its extension (".npy" or ".pb", any case), or `forced` when
// not null (required for "-", standard input or output). The error is a usage error: the
// program knows before opening anything.
Status FormatFromPath(const std::string& path, FileFormat* format,
                      const FileFormat* forced = nullptr);

// Fails when `format` cannot store `type`: numpy has no bfloat16, float8, float6, float4,
// float8e8m0, int4/uint4, int2/uint2 (the message suggests .pb).
Status CheckFormatCanHold(FileFormat format, DataType type, const std::string& path);

// Reads a tensor ("-": standard input); the format comes from the extension or `forced`.
// Truncated, corrupt and inconsistent files fail with a message naming the path and the
// problem; nothing is allocated for a shape before the file is known to hold its data.
Status ReadTensor(const std::string& path, Tensor* out, const FileFormat* forced = nullptr);

// Writes a tensor all or nothing (file_util.h: never a half-written file, an existing
// file replaced keeps its permissions), or stages it in `group` when not null. "-" writes
// to standard output.
Status WriteTensor(const std::string& path, const Tensor& t, const FileFormat* forced = nullptr,
                   OutputGroup* group = nullptr);

// Per-format entry points used by ReadTensor/WriteTensor.
Status ReadNpy(const std::string& path, Tensor* out);
Status WriteNpy(const std::string& path, const Tensor& t, OutputGroup* group = nullptr);
Status ReadPb(const std::string& path, Tensor* out);
Status WritePb(const std::string& path, const Tensor& t, OutputGroup* group = nullptr);

// Clears the padding bits after the last element of a packed 4-/2-/6-bit tensor and maps
// bool bytes to 0/1, so that tensors read from files meet Cast's input contract.
void NormalizeStorage(Tensor* t);

}  // namespace cli
}  // namespace tensorcast

#endif  // TENSORCAST_TOOLS_TENSOR_IO_H_
