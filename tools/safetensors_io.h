// tools/safetensors_io.h: .safetensors checkpoints for the tensorcast command-line program
// (docs/checkpoints.md).
//
// Layout: an 8-byte little-endian header length N, N bytes of UTF-8 JSON, then the data:
//   {"__metadata__": {"key": "value", ...},
//    "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...}
// Offsets count from the first byte after the header. A valid file (the rules of the
// safetensors package, checked before anything is allocated for a tensor):
// - N is at most 100,000,000 and the header fits in the file;
// - the header is one JSON object of tensor entries and at most one "__metadata__" object
//   of string values; names are unique; an entry has a known dtype, a shape of at most
//   kMaxSafetensorsRank non-negative integers and data_offsets of two;
// - each tensor's bytes are exactly its shape's (sub-byte dtypes fill whole bytes), and the
//   tensors, in offset order, tile the data from its first byte to the end of the file.
// Keys of an entry other than the three are ignored, as the safetensors package does.
// Element types: the dtypes map to the ONNX types below; F4, F6_E2M3 and F6_E3M2 are
// packed as Cast packs FLOAT4E2M1 and FLOAT6 (tensorcast/data_type.h).
#ifndef TENSORCAST_TOOLS_SAFETENSORS_IO_H_
#define TENSORCAST_TOOLS_SAFETENSORS_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <tensorcast/tensorcast.h>

namespace tensorcast {
namespace cli {

constexpr uint64_t kMaxSafetensorsHeader = 100000000;  // the safetensors package's limit
constexpr size_t kMaxSafetensorsRank = 64;

struct SafetensorsEntry {
  std::string name;
  DataType type = DataType::kUndefined;
  std::vector<int64_t> dims;
  size_t count = 0;    // elements
  uint64_t begin = 0;  // data offsets: [begin, end)
  uint64_t end = 0;
};

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> tensors;                      // in offset order
  std::vector<std::pair<std::string, std::string>> metadata;  // "__metadata__", in file order
  uint64_t data_start = 0;  // 8 + N: the file offset of data offset 0
};

// The safetensors dtype of `type` ("F32", "F8_E4M3", "F4", ...), or null when safetensors
// has none (INT4, UINT4, INT2, UINT2, STRING, COMPLEX128).
const char* SafetensorsDtype(DataType type);

// Reads and checks the header of the open file `fd` of `file_size` bytes (`path` for
// messages, which name the tensor and the rule broken).
Status ReadSafetensorsHeader(int fd, uint64_t file_size, const std::string& path,
                             SafetensorsHeader* out);

// Parses and checks a header's JSON text for a file whose data section holds `data_size`
// bytes (the fuzzer's entry point).
Status ParseSafetensorsHeader(const char* json, size_t size, uint64_t data_size,
                              const std::string& path, SafetensorsHeader* out);

// The 8-byte length and the JSON text of a header for `tensors` (offsets as given, in
// that order) and `metadata`, padded with spaces so that the data starts at a multiple
// of 8 bytes, as the safetensors package writes it.
std::string SafetensorsHeaderBytes(
    const std::vector<SafetensorsEntry>& tensors,
    const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace cli
}  // namespace tensorcast

#endif  // TENSORCAST_TOOLS_SAFETENSORS_IO_H_
