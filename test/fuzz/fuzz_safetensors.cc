// Fuzz target: the .safetensors header reader of the tensorcast program. The input is a
// whole file (in a memfd: the reader takes a file descriptor). Nothing may crash,
// libFuzzer's -malloc_limit_mb bounds every allocation, and a header that is accepted
// describes tensors that tile the data exactly, each holding the bytes its shape needs.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "tools/safetensors_io.h"
#include "tools/tensor_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const int fd = ::memfd_create("fuzz.safetensors", 0);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  if (size > 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  tensorcast::cli::SafetensorsHeader header;
  const tensorcast::Status s =
      tensorcast::cli::ReadSafetensorsHeader(fd, size, "fuzz.safetensors", &header);
  if (!s.ok()) return 0;
  uint64_t at = 0;
  for (const tensorcast::cli::SafetensorsEntry& t : header.tensors) {
    size_t count = 0;
    if (!tensorcast::cli::ShapeElementCount(t.dims, &count).ok() || count != t.count) std::abort();
    if (t.begin != at || t.end - t.begin != tensorcast::StorageBytes(t.type, count)) std::abort();
    if (tensorcast::cli::SafetensorsDtype(t.type) == nullptr) std::abort();
    at = t.end;
  }
  if (header.data_start + at != size) std::abort();
  return 0;
}
