// StreamCopy: a copy with non-temporal stores, for routes that stage their output in L1
// and stream it out (the two-step route and the sub-byte copy).
#if defined(TENSORCAST_LIB_KERNELS_STREAM_COPY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_STREAM_COPY_INL_H_
#undef TENSORCAST_LIB_KERNELS_STREAM_COPY_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_STREAM_COPY_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Copies `bytes` bytes with non-temporal stores for the whole vectors from the first
// vector-aligned byte of `to` on, regular stores before and after (the caller ends with
// hwy::FlushStream()). SCALAR: memcpy.
void StreamCopy(const void* from, void* to, size_t bytes) {
  const auto* in = static_cast<const uint8_t*>(from);
  auto* out = static_cast<uint8_t*>(to);
#if HWY_TARGET == HWY_SCALAR
  std::memcpy(out, in, bytes);
#else
  const hn::ScalableTag<uint8_t> du8;
  const size_t n8 = hn::Lanes(du8);
  const size_t misaligned = reinterpret_cast<uintptr_t>(out) % n8;
  size_t i = misaligned == 0 ? 0 : n8 - misaligned;
  if (i > bytes) i = bytes;
  std::memcpy(out, in, i);
  for (; i + 4 * n8 <= bytes; i += 4 * n8) {
    const auto v0 = hn::LoadU(du8, in + i);
    const auto v1 = hn::LoadU(du8, in + i + n8);
    const auto v2 = hn::LoadU(du8, in + i + 2 * n8);
    const auto v3 = hn::LoadU(du8, in + i + 3 * n8);
    hn::Stream(v0, du8, out + i);
    hn::Stream(v1, du8, out + i + n8);
    hn::Stream(v2, du8, out + i + 2 * n8);
    hn::Stream(v3, du8, out + i + 3 * n8);
  }
  for (; i + n8 <= bytes; i += n8) hn::Stream(hn::LoadU(du8, in + i), du8, out + i);
  std::memcpy(out + i, in + i, bytes - i);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_STREAM_COPY_INL_H_
