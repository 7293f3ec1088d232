// Consumer of the installed C++ library (tensorcast::tensorcast / tensorcast.pc).
// Golden values: float32 1.0 -> float16 0x3C00, 448 -> float8e4m3fn 0x7E (its maximum).
#include <cstdint>
#include <cstdio>

#include <tensorcast/tensorcast.h>

int main() {
  const float src[2] = {1.0f, 448.0f};
  uint16_t h[2] = {0, 0};
  tensorcast::Status s =
      tensorcast::Cast(src, tensorcast::DataType::kFloat, h, tensorcast::DataType::kFloat16, 2);
  if (!s.ok() || h[0] != 0x3C00 || h[1] != 0x5F00) {
    std::fprintf(stderr, "Cast to FLOAT16: %s, %04x %04x\n", s.message().c_str(), h[0], h[1]);
    return 1;
  }
  uint8_t f8[2] = {0, 0};
  s = tensorcast::Cast(src, tensorcast::DataType::kFloat, f8, tensorcast::DataType::kFloat8E4M3FN,
                       2);
  if (!s.ok() || f8[0] != 0x38 || f8[1] != 0x7E) {
    std::fprintf(stderr, "Cast to FLOAT8E4M3FN: %s, %02x %02x\n", s.message().c_str(), f8[0],
                 f8[1]);
    return 1;
  }
  // int32 [2, 3] along axis 1 into 1 + 2 columns.
  const int32_t x[6] = {0, 1, 2, 3, 4, 5};
  const int64_t shape[2] = {2, 3};
  const int64_t sizes[2] = {1, 2};
  int32_t a[2] = {-1, -1}, b[4] = {-1, -1, -1, -1};
  void* outs[2] = {a, b};
  s = tensorcast::Split(x, tensorcast::DataType::kInt32, shape, 2, 1, sizes, 2, outs);
  if (!s.ok() || a[0] != 0 || a[1] != 3 || b[0] != 1 || b[1] != 2 || b[2] != 4 || b[3] != 5) {
    std::fprintf(stderr, "Split: %s\n", s.message().c_str());
    return 1;
  }
  // The same cast on a pool of two threads (it runs inline below the parallel size).
  tensorcast::ThreadPool pool(2);
  tensorcast::CastOptions options;
  options.runner = pool.runner();
  uint16_t h2[2] = {0, 0};
  s = tensorcast::Cast(src, tensorcast::DataType::kFloat, h2, tensorcast::DataType::kFloat16, 2,
                       options);
  if (!s.ok() || h2[0] != 0x3C00 || h2[1] != 0x5F00) {
    std::fprintf(stderr, "Cast with a runner: %s\n", s.message().c_str());
    return 1;
  }
  // An error is a value.
  s = tensorcast::Cast(src, static_cast<tensorcast::DataType>(99), h,
                       tensorcast::DataType::kFloat16, 2);
  if (s.code() != tensorcast::StatusCode::kInvalidArgument) {
    std::fprintf(stderr, "unknown type code accepted\n");
    return 1;
  }
  std::printf("consumer_cxx: tensorcast %d.%d.%d OK\n", TENSORCAST_VERSION_MAJOR,
              TENSORCAST_VERSION_MINOR, TENSORCAST_VERSION_PATCH);
  return 0;
}
