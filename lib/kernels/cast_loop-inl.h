// Per-target loop helper shared by the Cast kernels: applies a vector operation to
// `count` elements with unaligned full-vector loads and stores (non-temporal stores and a
// software prefetch of the source for large outputs, see kCastLoopStreamBytes and
// SourcePrefetch), and handles the tail through a one-vector stack buffer, so no kernel
// reads or writes past its buffers.

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
#include "lib/kernels/source_prefetch.h"
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

// True when a loop from TIn to TOut elements prefetches its source (see SourcePrefetch).
template <typename TIn, typename TOut>
constexpr bool kPrefetchesSource = sizeof(TIn) >= sizeof(TOut);

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

// The elements of `out` before its first element aligned to `bytes` (a multiple of
// sizeof(T)); 0 when `out` is already aligned, or not aligned to its own element size
// (then no element is).
template <typename T>
HWY_INLINE size_t ElementsToAlignment(const T* out, size_t bytes) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(out);
  if (address % sizeof(T) != 0) return 0;
  return ((bytes - address % bytes) % bytes) / sizeof(T);
}

}  // namespace detail

// out[i] = op(in[i]) lane-wise; `din` and `dout` have the same lane count. kPrefetch
// false: the streaming branches do not prefetch even when kPrefetchesSource allows it (a
// kernel of about one instruction per vector whose source the hardware prefetcher already
// streams at the traffic limit; a software prefetch measured slower there).
template <bool kPrefetch = true, class DIn, class DOut, class Op>
HWY_INLINE void CastLoop(DIn din, DOut dout, const hn::TFromD<DIn>* HWY_RESTRICT in,
                         hn::TFromD<DOut>* HWY_RESTRICT out, size_t count, const Op& op) {
  const size_t N = hn::Lanes(din);
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  using TOut = hn::TFromD<DOut>;
  // Streaming: only for whole output vectors (Stream of a partial x86 vector writes all
  // 16 bytes), from the first vector-aligned output element on; the head before it goes
  // through the stack buffers.
  const size_t out_vector_bytes = N * sizeof(TOut);
  if (count * sizeof(TOut) >= tuning::StreamBytes(kCastLoopStreamBytes) &&
      N == hn::Lanes(hn::ScalableTag<TOut>()) &&
      reinterpret_cast<uintptr_t>(out) % sizeof(TOut) == 0) {
    const size_t head = detail::ElementsToAlignment(out, out_vector_bytes);
    if (head != 0) detail::CastPartial(din, dout, in, out, head, op);
    i = head;
    if constexpr (kPrefetch && kPrefetchesSource<hn::TFromD<DIn>, TOut>) {
      const SourcePrefetch<sizeof(hn::TFromD<DIn>)> prefetch(in);
      for (; i + N <= count; i += N) {
        prefetch.Lines(i, N);
        hn::Stream(op(hn::LoadU(din, in + i)), dout, out + i);
      }
    } else {
      for (; i + N <= count; i += N) {
        hn::Stream(op(hn::LoadU(din, in + i)), dout, out + i);
      }
    }
    hwy::FlushStream();
  }
  // Narrowing kernels (the output side is a fraction 1/k of a vector): k results are
  // gathered in an aligned stack vector, which is then streamed; the head up to the
  // first vector-aligned output element goes through the stack buffers.
  const hn::ScalableTag<TOut> dfull;
  const size_t full = hn::Lanes(dfull);
  if (count * sizeof(TOut) >= tuning::StreamBytes(kCastLoopStreamBytes) && N < full &&
      full % N == 0 && reinterpret_cast<uintptr_t>(out) % sizeof(TOut) == 0) {
    const size_t head = detail::ElementsToAlignment(out, full * sizeof(TOut));
    for (; i + N <= head; i += N) hn::StoreU(op(hn::LoadU(din, in + i)), dout, out + i);
    if (i < head) detail::CastPartial(din, dout, in + i, out + i, head - i, op);
    i = head;
    // Narrowing: the source is always at least as wide as the output.
    using Prefetch =
        std::conditional_t<kPrefetch, SourcePrefetch<sizeof(hn::TFromD<DIn>)>, NoSourcePrefetch>;
    const Prefetch prefetch(in);
#if HWY_ARCH_X86
    // Two halves are combined in registers: a full-vector load of a stack vector written in
    // two stores cannot be forwarded from them and waits (x86: up to 2x the time out of
    // cache). Quarters and eighths stay on the stack vector: combining them in registers is
    // slower for DOUBLE -> UINT8, though faster for INT64 -> INT8 (bench/results/tuning.md,
    // Zen 5).
    if constexpr (detail::kIsHalfOf<DOut, decltype(dfull)>) {
      for (; i + full <= count; i += full) {
        prefetch.Lines(i, full);
        hn::Stream(detail::CombineHalves(dfull, din, in + i, op), dfull, out + i);
      }
    }
#endif
    HWY_ALIGN TOut stage[HWY_MAX_BYTES / sizeof(TOut)];
    for (; i + full <= count; i += full) {
      prefetch.Lines(i, full);
      for (size_t j = 0; j < full; j += N)
        hn::Store(op(hn::LoadU(din, in + i + j)), dout, stage + j);
      hn::Stream(hn::Load(dfull, stage), dfull, out + i);
    }
    hwy::FlushStream();
  }
  // In cache (and the rest of a streamed range): the first vector is stored unaligned
  // and the loop goes on from the first output element aligned to the vector size, so no
  // later store straddles two cache lines, as memcpy does for any buffer. The elements in
  // between are converted twice, to the same values: `op` is a pure function of its
  // vector and `in` does not overlap `out`.
  if (i == 0 && count >= 2 * N) {
    const size_t head = detail::ElementsToAlignment(out, out_vector_bytes);
    if (head != 0) {
      hn::StoreU(op(hn::LoadU(din, in)), dout, out);
      i = head;
    }
  }
#endif
  for (; i + N <= count; i += N) {
    hn::StoreU(op(hn::LoadU(din, in + i)), dout, out + i);
  }
  if (i < count) detail::CastPartial(din, dout, in + i, out + i, count - i, op);
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_CAST_LOOP_INL_H_
