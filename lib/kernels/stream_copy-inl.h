// The byte copies that every route shares: CopySmall (under 64 bytes, no libc call) and
// StreamCopy (non-temporal stores), used by Split, by the routes that stage their output in
// L1 and stream it out (the two-step route) and by the sub-byte copy.
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

template <size_t kBytes>
HWY_INLINE void MoveBytes(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s) {
  std::memcpy(d, s, kBytes);  // constant size: a register move, no call
}

// 0 <= n < 64 bytes, without a libc call: two overlapping moves of a power of two.
HWY_INLINE void CopySmall(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t n) {
  if (n >= 32) {
    MoveBytes<32>(d, s);
    MoveBytes<32>(d + n - 32, s + n - 32);
  } else if (n >= 16) {
    MoveBytes<16>(d, s);
    MoveBytes<16>(d + n - 16, s + n - 16);
  } else if (n >= 8) {
    MoveBytes<8>(d, s);
    MoveBytes<8>(d + n - 8, s + n - 8);
  } else if (n >= 4) {
    MoveBytes<4>(d, s);
    MoveBytes<4>(d + n - 4, s + n - 4);
  } else if (n >= 2) {
    MoveBytes<2>(d, s);
    MoveBytes<2>(d + n - 2, s + n - 2);
  } else if (n == 1) {
    *d = *s;
  }
}

// The head or the tail of a streamed copy: under 64 bytes inlined, longer (vectors wider
// than 64 bytes) by memcpy.
HWY_INLINE void CopyHeadOrTail(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t n) {
  if (n < 64) {
    CopySmall(d, s, n);
  } else {
    std::memcpy(d, s, n);
  }
}

// Copies `bytes` bytes with non-temporal stores for the whole vectors from the first
// 64-byte-aligned byte of `to` (the vector size if larger) on, so that every streamed line
// is written whole; regular stores before and after. The caller ends with
// hwy::FlushStream() after its last StreamCopy. SCALAR: memcpy.
HWY_NOINLINE inline void StreamCopy(const void* from, void* to, size_t bytes) {
  const auto* HWY_RESTRICT in = static_cast<const uint8_t*>(from);
  auto* HWY_RESTRICT out = static_cast<uint8_t*>(to);
#if HWY_TARGET == HWY_SCALAR
  std::memcpy(out, in, bytes);
#else
  const hn::ScalableTag<uint8_t> du8;
  const size_t n8 = hn::Lanes(du8);
  const size_t align = n8 > 64 ? n8 : 64;
  const size_t misaligned = reinterpret_cast<uintptr_t>(out) % align;
  size_t i = misaligned == 0 ? 0 : align - misaligned;
  if (i > bytes) i = bytes;
  CopyHeadOrTail(out, in, i);
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
  CopyHeadOrTail(out + i, in + i, bytes - i);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_STREAM_COPY_INL_H_
