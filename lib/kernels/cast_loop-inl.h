// Per-target loop helpers shared by the Cast kernels.
//
// CastLoop applies a vector operation to `count` elements with full-vector loads and
// stores (non-temporal stores for large outputs, see kCastLoopStreamBytes), and handles
// the tail through a one-vector stack buffer, so no kernel reads or writes past its
// buffers. Its stores are aligned to the output vector whatever the buffers' alignment:
// a head of elements up to the first aligned output vector is converted first (as memcpy
// aligns its stores); a store that straddles two cache lines costs up to twice as much.
//
// PrefetchLoop runs the steps of a streaming loop with a software prefetch of the source
// tuning::PrefetchBytes() ahead (one prefetch per 64-byte source line), so that the
// loads of the encoders, which spend more time per element than the hardware
// prefetcher's lead covers, still find their lines in cache.

// Highway per-target include guard (re-included once per target by foreach_target).
#if defined(TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
#undef TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "lib/tuning.h"

// Lambdas in kernel loops: compiled for the current target and always inlined (GCC
// otherwise keeps a multiply-called lambda out of line, which spills its vectors; as
// pack-inl.h).
#ifndef TENSORCAST_LAMBDA_INLINE
#define TENSORCAST_LAMBDA_INLINE HWY_ATTR __attribute__((always_inline))
#endif

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Outputs of at least tuning::kCastLoopStreamBytes are written with non-temporal stores.
// Narrowing kernels gather their partial output vectors in a stack vector first.
using tuning::kCastLoopStreamBytes;

// Calls step(i) for i = first, first + n, ... while i + n <= count and returns the first i
// not done. The source of element i starts at src + i * src_bits / 8; with pf_bytes != 0
// every source line up to pf_bytes beyond each step's source is prefetched once. step has
// one call site: a kernel's operation, called from several, would be kept out of line by
// GCC (a call per vector, measured 2x slower in cache).
template <class Step>
HWY_INLINE size_t PrefetchLoop(const void* src, size_t src_bits, size_t pf_bytes, size_t first,
                               size_t count, size_t n, const Step& step) {
  const auto* s = static_cast<const uint8_t*>(src);
  // The next line to prefetch; past every address when prefetching is off.
  uintptr_t next = pf_bytes == 0 ? UINTPTR_MAX
                                 : reinterpret_cast<uintptr_t>(s + first * src_bits / 8 + pf_bytes);
  const uintptr_t ahead = reinterpret_cast<uintptr_t>(s) + pf_bytes;
  size_t i = first;
  for (; i + n <= count; i += n) {
    const uintptr_t want = ahead + (i + n) * src_bits / 8;  // end of this step's prefetch
    for (; next < want; next += 64) hwy::Prefetch(reinterpret_cast<const uint8_t*>(next));
    step(i);
  }
  return i;
}

namespace detail {

// Converts the `count` (< one vector) elements at in[0..count) through the stack buffers.
template <class DIn, class DOut, class Op>
HWY_INLINE void CastPartial(DIn din, DOut dout, const hn::TFromD<DIn>* HWY_RESTRICT in,
                            hn::TFromD<DOut>* HWY_RESTRICT out, size_t count, const Op& op) {
  using TIn = hn::TFromD<DIn>;
  using TOut = hn::TFromD<DOut>;
  HWY_ALIGN TIn buf_in[HWY_MAX_BYTES / sizeof(TIn)] = {};
  HWY_ALIGN TOut buf_out[HWY_MAX_BYTES / sizeof(TOut)];
  std::memcpy(buf_in, in, count * sizeof(TIn));
  hn::Store(op(hn::Load(din, buf_in)), dout, buf_out);
  std::memcpy(out, buf_out, count * sizeof(TOut));
}

#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR
// True when the results of DPart are half vectors of D.
template <class DPart, class D>
constexpr bool kIsHalfOf = std::is_same<hn::Vec<DPart>, hn::Vec<hn::Half<D>>>::value;

// op() of the Lanes(d) elements at in[0..), computed half a vector (Lanes(din) lanes) at
// a time and combined into one vector of d in registers.
template <class D, class DIn, class Op>
HWY_INLINE hn::Vec<D> CombineHalves(D d, DIn din, const hn::TFromD<DIn>* HWY_RESTRICT in,
                                    const Op& op) {
  const size_t n = hn::Lanes(din);
  return hn::Combine(d, op(hn::LoadU(din, in + n)), op(hn::LoadU(din, in)));
}
#endif

}  // namespace detail

// out[i] = op(in[i]) lane-wise; `din` and `dout` have the same lane count.
template <class DIn, class DOut, class Op>
HWY_INLINE void CastLoop(DIn din, DOut dout, const hn::TFromD<DIn>* HWY_RESTRICT in,
                         hn::TFromD<DOut>* HWY_RESTRICT out, size_t count, const Op& op) {
  using TIn = hn::TFromD<DIn>;
  const size_t N = hn::Lanes(din);
  const size_t pf = tuning::PrefetchBytesFor(count * sizeof(TIn));
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  using TOut = hn::TFromD<DOut>;
  // Streaming: only for whole output vectors (Stream of a partial x86 vector writes all
  // 16 bytes), from the first vector-aligned output element on; the head before it goes
  // through the stack buffers.
  const size_t out_vector_bytes = N * sizeof(TOut);
  const bool stream = count * sizeof(TOut) >= tuning::StreamBytes(kCastLoopStreamBytes) &&
                      reinterpret_cast<uintptr_t>(out) % sizeof(TOut) == 0;
  if (stream && N == hn::Lanes(hn::ScalableTag<TOut>())) {
    const size_t misaligned = reinterpret_cast<uintptr_t>(out) % out_vector_bytes;
    const size_t head = misaligned == 0 ? 0 : (out_vector_bytes - misaligned) / sizeof(TOut);
    if (head != 0) detail::CastPartial(din, dout, in, out, head, op);
    i = PrefetchLoop(in, 8 * sizeof(TIn), pf, head, count, N,
                     [&](size_t k) TENSORCAST_LAMBDA_INLINE {
                       hn::Stream(op(hn::LoadU(din, in + k)), dout, out + k);
                     });
    hwy::FlushStream();
  }
  // Narrowing kernels (the output side is a fraction 1/k of a vector): k results are
  // gathered in an aligned stack vector, which is then streamed; the head up to the
  // first vector-aligned output element goes through the stack buffers.
  const hn::ScalableTag<TOut> dfull;
  const size_t full = hn::Lanes(dfull);
  if (stream && N < full && full % N == 0) {
    const size_t full_bytes = full * sizeof(TOut);
    const size_t misaligned = reinterpret_cast<uintptr_t>(out) % full_bytes;
    const size_t head = misaligned == 0 ? 0 : (full_bytes - misaligned) / sizeof(TOut);
    for (; i + N <= head; i += N) hn::StoreU(op(hn::LoadU(din, in + i)), dout, out + i);
    if (i < head) detail::CastPartial(din, dout, in + i, out + i, head - i, op);
    i = head;
#if HWY_ARCH_X86
    // Two halves are combined in registers: a full-vector load of a stack vector written in
    // two stores cannot be forwarded from them and waits (x86: up to 2x the time out of
    // cache). Quarters and eighths stay on the stack vector: combining eight results in
    // registers measured slower for DOUBLE -> UINT8 (0.4-0.75x the traffic limit instead
    // of 1.0-1.3x on Zen 5), though faster for INT64 -> INT8.
    if constexpr (detail::kIsHalfOf<DOut, decltype(dfull)>) {
      i = PrefetchLoop(in, 8 * sizeof(TIn), pf, i, count, full,
                       [&](size_t k) TENSORCAST_LAMBDA_INLINE {
                         hn::Stream(detail::CombineHalves(dfull, din, in + k, op), dfull, out + k);
                       });
    }
#endif
    HWY_ALIGN TOut stage[HWY_MAX_BYTES / sizeof(TOut)];
    i = PrefetchLoop(in, 8 * sizeof(TIn), pf, i, count, full,
                     [&](size_t k) TENSORCAST_LAMBDA_INLINE {
                       for (size_t j = 0; j < full; j += N) {
                         hn::Store(op(hn::LoadU(din, in + k + j)), dout, stage + j);
                       }
                       hn::Stream(hn::Load(dfull, stage), dfull, out + k);
                     });
    hwy::FlushStream();
  }
  // Not streamed: a head up to the first output vector aligned to its size, when `out` is
  // aligned to its lanes and at least two vectors follow.
  const size_t misaligned = reinterpret_cast<uintptr_t>(out) % out_vector_bytes;
  if (i == 0 && misaligned != 0 && reinterpret_cast<uintptr_t>(out) % sizeof(TOut) == 0) {
    const size_t head = (out_vector_bytes - misaligned) / sizeof(TOut);
    if (head + 2 * N <= count) {
      detail::CastPartial(din, dout, in, out, head, op);
      i = head;
    }
  }
#endif
  i = PrefetchLoop(in, 8 * sizeof(TIn), pf, i, count, N, [&](size_t k) TENSORCAST_LAMBDA_INLINE {
    hn::StoreU(op(hn::LoadU(din, in + k)), dout, out + k);
  });
  if (i < count) detail::CastPartial(din, dout, in + i, out + i, count - i, op);
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
