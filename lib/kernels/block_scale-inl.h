// The block-scaling kernels (Highway, foreach_target): largest magnitudes as float32 bits,
// and the one-pass MX chunk (every block's scale, then its elements times 2^-e) along the
// contiguous axis. The element encoding after them is a Cast kernel (lib/block_scale.cc).
// Integer arithmetic on the float32 bits and exact multiplies by powers of two: the same
// bits on every target.

// Per-target include guard (Highway's foreach_target idiom).
#if defined(TENSORCAST_KERNELS_BLOCK_SCALE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_KERNELS_BLOCK_SCALE_INL_H_
#undef TENSORCAST_KERNELS_BLOCK_SCALE_INL_H_
#else
#define TENSORCAST_KERNELS_BLOCK_SCALE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "lib/block_scale_rules.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace block_scale {

namespace hn = hwy::HWY_NAMESPACE;

// |x| as float32 bits, on int32 lanes (non-negative, so signed order is the order of the
// magnitudes; NaN and infinities are the values >= 0x7F800000); with kFiniteOnly, NaN and
// infinities give 0.
template <bool kFiniteOnly, class DI>
HWY_INLINE hn::Vec<DI> AbsBits(DI di, hn::Vec<DI> bits) {
  const auto a = hn::And(bits, hn::Set(di, 0x7FFFFFFF));
  if (!kFiniteOnly) return a;
  return hn::IfThenZeroElse(hn::Gt(a, hn::Set(di, 0x7F7FFFFF)), a);
}

template <bool kFiniteOnly>
HWY_INLINE uint32_t MaxAbs(const float* x, size_t n) {
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(di);
  const int32_t* b = reinterpret_cast<const int32_t*>(x);
  auto m0 = hn::Zero(di), m1 = hn::Zero(di);
  size_t j = 0;
  for (; j + 2 * N <= n; j += 2 * N) {
    m0 = hn::Max(m0, AbsBits<kFiniteOnly>(di, hn::LoadU(di, b + j)));
    m1 = hn::Max(m1, AbsBits<kFiniteOnly>(di, hn::LoadU(di, b + j + N)));
  }
  for (; j + N <= n; j += N) m0 = hn::Max(m0, AbsBits<kFiniteOnly>(di, hn::LoadU(di, b + j)));
  int32_t m = hn::GetLane(hn::MaxOfLanes(di, hn::Max(m0, m1)));
  const hn::CappedTag<int32_t, 1> d1;
  for (; j < n; ++j) {
    const int32_t a = hn::GetLane(AbsBits<kFiniteOnly>(d1, hn::LoadU(d1, b + j)));
    m = a > m ? a : m;
  }
  return static_cast<uint32_t>(m);
}

template <bool kFiniteOnly>
HWY_INLINE void MaxAbsInto(const float* x, size_t n, uint32_t* acc) {
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(di);
  const int32_t* b = reinterpret_cast<const int32_t*>(x);
  int32_t* out = reinterpret_cast<int32_t*>(acc);  // values <= 0x7FFFFFFF
  size_t j = 0;
  for (; j + N <= n; j += N) {
    hn::StoreU(hn::Max(hn::LoadU(di, out + j), AbsBits<kFiniteOnly>(di, hn::LoadU(di, b + j))), di,
               out + j);
  }
  const hn::CappedTag<int32_t, 1> d1;
  for (; j < n; ++j) {
    hn::StoreU(hn::Max(hn::LoadU(d1, out + j), AbsBits<kFiniteOnly>(d1, hn::LoadU(d1, b + j))), d1,
               out + j);
  }
}

// out[j] = x[j] * m, m a power of two (exact, or the correctly rounded subnormal).
HWY_INLINE void ScaleBy(const float* x, size_t n, float m, float* out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vm = hn::Set(d, m);
  size_t j = 0;
  for (; j + N <= n; j += N) hn::StoreU(hn::Mul(hn::LoadU(d, x + j), vm), d, out + j);
  const hn::CappedTag<float, 1> d1;
  for (; j < n; ++j) hn::StoreU(hn::Mul(hn::LoadU(d1, x + j), hn::Set(d1, m)), d1, out + j);
}

}  // namespace block_scale

// The largest |x[j]| as float32 bits (MaxAbsBits in lib/dispatch/block_scale_kernels.h).
inline uint32_t MaxAbsBits(const float* x, size_t n, bool finite_only) {
  return finite_only ? block_scale::MaxAbs<true>(x, n) : block_scale::MaxAbs<false>(x, n);
}

inline void MaxAbsBitsInto(const float* x, size_t n, bool finite_only, uint32_t* acc) {
  if (finite_only) return block_scale::MaxAbsInto<true>(x, n, acc);
  block_scale::MaxAbsInto<false>(x, n, acc);
}

// The MX chunk (MxChunk in lib/dispatch/block_scale_kernels.h).
inline void MxChunk(const MxChunkArgs& a) {
  const size_t end = a.e0 + a.n;
  size_t e = a.e0;
  size_t row = e / a.dim;
  size_t col = e - row * a.dim;
  while (e < end) {
    const size_t b = col / a.block;
    const size_t first = b * a.block;                                  // in the row
    const size_t last = first + a.block < a.dim ? first + a.block : a.dim;  // exclusive
    const float* block_x = a.x + row * a.dim + first;
    const uint32_t amax = block_scale::MaxAbs<false>(block_x, last - first);
    const MxScale s = MxScaleOf(amax, a.rule);
    if (row * a.dim + first >= a.e0) {  // the block starts in this chunk
      a.scales[row * a.blocks + b] = s.code;
    }
    const size_t stop = row * a.dim + last < end ? last : col + (end - e);
    float* out = a.scaled + (e - a.e0);
    const float* in = a.x + e;
    if (s.code != kE8M0NaN) {
      block_scale::ScaleBy(in, stop - col, s.multiplier, out);
    } else {
      for (size_t j = 0; j < stop - col; ++j) out[j] = QuotientByNaN(in[j]);
    }
    e += stop - col;
    col = stop;
    if (col == a.dim) col = 0, ++row;
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_KERNELS_BLOCK_SCALE_INL_H_
