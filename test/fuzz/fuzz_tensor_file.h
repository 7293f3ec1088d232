// Shared body of the .npy and .pb reader fuzz targets: the input bytes are written to a
// file (the readers take paths) and read back. Nothing may crash, a tensor read has the
// storage its shape needs (packed padding bits zero), and libFuzzer's
// -malloc_limit_mb (set by the CI run) bounds every allocation: the readers must check the
// file's size before they allocate what a header asks for.
#ifndef TENSORCAST_TEST_FUZZ_FUZZ_TENSOR_FILE_H_
#define TENSORCAST_TEST_FUZZ_FUZZ_TENSOR_FILE_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tools/tensor_io.h"

namespace tensorcast_fuzz {

inline int ReadTensorFile(const uint8_t* data, size_t size, const char* extension) {
  static const std::string path = [extension] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr ? dir : "/tmp") + "/tensorcast-fuzz-" +
           std::to_string(::getpid()) + extension;
  }();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  tensorcast::cli::Tensor t;
  const tensorcast::Status s = tensorcast::cli::ReadTensor(path, &t);
  if (s.ok()) {
    // A tensor that was read is consistent: its storage matches its shape.
    size_t count = 0;
    if (!tensorcast::cli::ShapeElementCount(t.dims, &count).ok() || count != t.count) std::abort();
    if (t.type == tensorcast::DataType::kString) {
      if (t.strings.size() != count) std::abort();
    } else if (t.bytes.size() != tensorcast::StorageBytes(t.type, count)) {
      std::abort();
    } else {
      // Cast's input contract: the padding bits after the last packed element are zero.
      const size_t bits = static_cast<size_t>(tensorcast::BitWidth(t.type));
      const size_t used = count % 8 * bits % 8;  // bits of the last byte that hold elements
      if (bits < 8 && used != 0 && (t.bytes.back() >> used) != 0) std::abort();
    }
  }
  return 0;
}

}  // namespace tensorcast_fuzz

#endif  // TENSORCAST_TEST_FUZZ_FUZZ_TENSOR_FILE_H_
