// Fuzz target: the .npy reader of the tensorcast program (see fuzz_tensor_file.h).
#include "test/fuzz/fuzz_tensor_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tensorcast_fuzz::ReadTensorFile(data, size, ".npy");
}
