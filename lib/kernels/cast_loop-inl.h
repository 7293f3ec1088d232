// Per-target loop helper shared by the Cast kernels: applies a vector operation to
// `count` elements with unaligned full-vector loads and stores, and handles the tail
// through a one-vector stack buffer, so no kernel reads or writes past its buffers.

// Highway per-target include guard (re-included once per target by foreach_target).
#if defined(TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
#undef TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
#endif

#include <cstddef>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// out[i] = op(in[i]) lane-wise; `din` and `dout` have the same lane count.
template <class DIn, class DOut, class Op>
HWY_INLINE void CastLoop(DIn din, DOut dout, const hn::TFromD<DIn>* HWY_RESTRICT in,
                         hn::TFromD<DOut>* HWY_RESTRICT out, size_t count, const Op& op) {
  using TIn = hn::TFromD<DIn>;
  using TOut = hn::TFromD<DOut>;
  const size_t N = hn::Lanes(din);
  size_t i = 0;
  for (; i + N <= count; i += N) {
    hn::StoreU(op(hn::LoadU(din, in + i)), dout, out + i);
  }
  if (i < count) {
    HWY_ALIGN TIn buf_in[HWY_MAX_BYTES / sizeof(TIn)] = {};
    HWY_ALIGN TOut buf_out[HWY_MAX_BYTES / sizeof(TOut)];
    const size_t rest = count - i;
    std::memcpy(buf_in, in + i, rest * sizeof(TIn));
    hn::Store(op(hn::Load(din, buf_in)), dout, buf_out);
    std::memcpy(out + i, buf_out, rest * sizeof(TOut));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
