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
#include <limits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "lib/block_scale_rules.h"
#include "lib/kernels/cast_loop_to_bytes-inl.h"
#include "lib/kernels/f4_codec-inl.h"
#include "lib/kernels/float6_codec-inl.h"
#include "lib/kernels/float8_codec-inl.h"
#include "lib/kernels/pack-inl.h"

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

// amax[k] = the largest |x| (float32 bits, as MaxAbs<false>) of block k, elements
// [k * block, (k + 1) * block), for k < blocks. With `block` a multiple of the lane count N,
// N blocks at a time: each block's lanes are reduced vertically to one vector, and N such
// vectors are reduced together by halving (Max of the even and the odd lanes of each pair,
// ConcatEven / ConcatOdd keeping the blocks in order), N - 1 steps for N blocks instead of a
// horizontal reduction per block. prefetch.Lines(e, count) is told each element range read.
template <class Prefetch>
HWY_INLINE void BlockMaxAbs(const float* x, size_t blocks, size_t block, uint32_t* amax,
                            const Prefetch& prefetch) {
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(di);
  const int32_t* b = reinterpret_cast<const int32_t*>(x);
  size_t k = 0;
#if HWY_TARGET != HWY_SCALAR
  if (block % N == 0) {
    HWY_ALIGN int32_t buf[(HWY_MAX_BYTES / 4) * (HWY_MAX_BYTES / 4)];
    for (; k + N <= blocks; k += N) {
      for (size_t j = 0; j < N; ++j) {
        const size_t e = (k + j) * block;
        prefetch.Lines(e, block);
        auto m = AbsBits<false>(di, hn::LoadU(di, b + e));
        for (size_t i = N; i < block; i += N)
          m = hn::Max(m, AbsBits<false>(di, hn::LoadU(di, b + e + i)));
        hn::Store(m, di, buf + j * N);
      }
      for (size_t count = N; count > 1; count /= 2) {
        for (size_t j = 0; j < count / 2; ++j) {
          const auto lo = hn::Load(di, buf + 2 * j * N);
          const auto hi = hn::Load(di, buf + (2 * j + 1) * N);
          hn::Store(hn::Max(hn::ConcatEven(di, hi, lo), hn::ConcatOdd(di, hi, lo)), di,
                    buf + j * N);
        }
      }
      hn::StoreU(hn::Load(di, buf), di, reinterpret_cast<int32_t*>(amax + k));
    }
  }
#else
  (void)N;
  (void)b;
#endif
  for (; k < blocks; ++k) {
    prefetch.Lines(k * block, block);
    amax[k] = MaxAbs<false>(x + k * block, block);
  }
}

// MxScaleOf on the lanes of amax (float32 bits): the codes and multipliers of N blocks.
// Two of MxScaleOf's cases give no different result here: a subnormal amax (log2 <= -127)
// and an amax of 0 both get e = -127, the clamp below; and e <= 127 - emax + 1 <= 126 for
// every finite amax and format (emax >= 2), so 2^-e is a normal float32, 2^(127 - e).
template <class DI>
HWY_INLINE void MxScales(DI di, hn::Vec<DI> amax, const MxRule& rule, uint8_t* codes, float* mult) {
  const auto nan = hn::Gt(amax, hn::Set(di, 0x7F7FFFFF));
  auto e = hn::Sub(hn::ShiftRight<23>(amax), hn::Set(di, 127 + rule.emax));
  if (rule.rceil) {
    const auto over = hn::Gt(hn::And(amax, hn::Set(di, 0x7FFFFF)),
                             hn::Set(di, static_cast<int32_t>(rule.max_fraction)));
    e = hn::IfThenElse(over, hn::Add(e, hn::Set(di, 1)), e);
  }
  e = hn::Max(e, hn::Set(di, -127));
  const auto m =
      hn::IfThenElse(nan, hn::Set(di, 0x7FC00000), hn::ShiftLeft<23>(hn::Sub(hn::Set(di, 127), e)));
  const auto code = hn::IfThenElse(nan, hn::Set(di, kE8M0NaN), hn::Add(e, hn::Set(di, 127)));
  hn::StoreU(m, di, reinterpret_cast<int32_t*>(mult));
  const hn::Rebind<uint8_t, DI> d8;
  hn::StoreU(hn::DemoteTo(d8, code), d8, codes);  // codes <= 255
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

// The scales of `blocks` whole blocks of 32 at x: codes into scale_codes, 2^-e into mult.
// False when a block holds a NaN or an infinity (the caller takes MxChunk's path). This
// is the pass that reads x from memory: out of cache it prefetches (SourcePrefetch).
template <class Prefetch>
HWY_INLINE bool Scales32(const float* x, size_t blocks, const MxRule& rule, uint8_t* scale_codes,
                         float* mult, const Prefetch& prefetch) {
  HWY_ALIGN uint32_t amax[tuning::kQuantizeChunkElements / 32];
  BlockMaxAbs(x, blocks, 32, amax, prefetch);
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(di);
  const auto* a = reinterpret_cast<const int32_t*>(amax);
  auto special = hn::Zero(di);  // the largest amax: NaN or infinity when >= 0x7F800000
  size_t b = 0;
  for (; b + N <= blocks; b += N) {
    const auto v = hn::LoadU(di, a + b);
    special = hn::Max(special, v);
    MxScales(di, v, rule, scale_codes + b, mult + b);
  }
  bool finite = hn::GetLane(hn::MaxOfLanes(di, special)) < 0x7F800000;
  for (; b < blocks; ++b) {
    const MxScale s = MxScaleOf(amax[b], rule);
    scale_codes[b] = s.code;
    mult[b] = s.multiplier;
    finite &= s.code != kE8M0NaN;
  }
  return finite;
}

// The float8 code of x * m (finite), saturating: one rounding (the product is exact or
// below every format's subnormals).
template <class F, class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> Code8(DF, hn::Vec<DF> x, hn::Vec<DF> m) {
  const hn::RebindToUnsigned<DF> du;
  const auto bits = hn::BitCast(du, hn::Mul(x, m));
#if TENSORCAST_F8_FMIN_KEEPS_NAN
  return F32BitsToF8Fast<F, true>(du, bits);
#else
  return F32BitsToF8<F, true>(du, bits);
#endif
}

// Codes of `n` elements (a multiple of 32) of a float8 format F at out: element i is
// Code8(x[i], mult[i / 32]).
// ahead: prefetch the line `ahead` floats after each line of x (0: none).
template <class F>
HWY_INLINE void Encode8(const float* x, size_t n, const float* mult, size_t ahead, uint8_t* out) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const auto at = [&](size_t i) TENSORCAST_LAMBDA_INLINE {
    if (ahead != 0 && i % 16 == 0) hwy::Prefetch(x + i + ahead);
    return Code8<F>(df, hn::LoadU(df, x + i), hn::Set(df, mult[i / 32]));
  };
  size_t i = PackBytesLoop<false>(du, out, n, at, NoSourcePrefetch());
  const hn::CappedTag<float, 1> d1;
  for (; i < n; ++i) {
    out[i] = static_cast<uint8_t>(
        hn::GetLane(Code8<F>(d1, hn::LoadU(d1, x + i), hn::Set(d1, mult[i / 32]))));
  }
}

// FLOAT4E2M1 codes of `n` elements (a multiple of 32), packed two per byte, at out.
HWY_INLINE void Encode4(const float* x, size_t n, const float* mult, size_t ahead, uint8_t* out) {
  const subbyte::DU32 du;
  const subbyte::DF32 df;
  const size_t N = hn::Lanes(du);
  const size_t chunk = PackedChunk<4>();  // elements per u8 vector of packed codes
  size_t i = 0;
  if (chunk % 32 == 0 || 32 % chunk == 0) {
    for (; i + chunk <= n; i += chunk) {
      const auto code = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
        const size_t e = i + j * N;
        if (ahead != 0 && e % 16 == 0) hwy::Prefetch(x + e + ahead);
        return subbyte::F4CodeFromF32(
            hn::BitCast(du, hn::Mul(hn::LoadU(df, x + e), hn::Set(df, mult[e / 32]))));
      };
      hn::StoreU(PackCodes32<4>(du, code), DU8(), out + i / 2);
    }
  }
  const hn::CappedTag<uint32_t, 1> d1;
  const hn::CappedTag<float, 1> f1;
  for (; i < n; i += 2) {
    uint32_t c[2];
    for (size_t k = 0; k < 2; ++k) {
      const auto v = hn::Mul(hn::LoadU(f1, x + i + k), hn::Set(f1, mult[(i + k) / 32]));
      // F4CodeFromF32 on one lane: its full-width tag takes the first lane.
      HWY_ALIGN uint32_t lanes[HWY_MAX_BYTES / 4] = {};
      lanes[0] = hn::GetLane(hn::BitCast(d1, v));
      c[k] = hn::GetLane(subbyte::F4CodeFromF32(hn::Load(du, lanes)));
    }
    out[i / 2] = static_cast<uint8_t>(c[0] | c[1] << 4);
  }
}

// q[b] = the largest |x| of block b (elements [b * block, (b + 1) * block) of x) divided by
// `divisor` in double, correctly rounded; NaN for a block holding a NaN or an infinity.
HWY_INLINE void AmaxQuotients(const float* x, size_t blocks, size_t block, double divisor,
                              double* q) {
  HWY_ALIGN uint32_t amax[256];
  for (size_t b0 = 0; b0 < blocks; b0 += 256) {
    const size_t nb = blocks - b0 < 256 ? blocks - b0 : 256;
    BlockMaxAbs(x + b0 * block, nb, block, amax, NoSourcePrefetch());
    size_t b = 0;
#if HWY_HAVE_FLOAT64
    // amax >= 0x7F800000 (NaN or infinity) becomes a NaN, which the division keeps.
    const hn::ScalableTag<double> dd;
    const hn::Rebind<int32_t, decltype(dd)> di;
    const hn::Rebind<float, decltype(dd)> df;
    const size_t N = hn::Lanes(dd);
    const auto vd = hn::Set(dd, divisor);
    for (; b + N <= nb; b += N) {
      auto a = hn::LoadU(di, reinterpret_cast<const int32_t*>(amax + b));
      a = hn::IfThenElse(hn::Gt(a, hn::Set(di, 0x7F7FFFFF)), hn::Set(di, 0x7FC00000), a);
      hn::StoreU(hn::Div(hn::PromoteTo(dd, hn::BitCast(df, a)), vd), dd, q + b0 + b);
    }
#endif
    for (; b < nb; ++b) {
      float f;
      std::memcpy(&f, &amax[b], sizeof f);
      q[b0 + b] = amax[b] >= 0x7F800000u ? std::numeric_limits<double>::quiet_NaN()
                                         : static_cast<double>(f) / divisor;
    }
  }
}

// FLOAT6 codes of format F for `n` elements (a multiple of 32), packed four in three bytes
// at out: chunks of float6::Chunk() elements as the FLOAT6 Cast kernel packs them (whole
// vectors), the rest (whole groups of 32) through a zero-padded chunk.
template <class F>
HWY_INLINE void Encode6(const float* x, size_t n, const float* mult, size_t ahead, uint8_t* out) {
  const float6::DU32 du;
  const float6::DF32 df;
  const size_t V = hn::Lanes(du);
  const size_t chunk = float6::Chunk();
  // Packs one chunk of elements whose scaled float32 values value(e) gives.
  const auto pack = [&](const auto& value, uint8_t* to) TENSORCAST_LAMBDA_INLINE {
#if HWY_TARGET == HWY_SCALAR
    uint32_t c[4];
    for (size_t j = 0; j < 4; ++j) {
      c[j] = hn::GetLane(float6::CodeFromF32<F>(hn::BitCast(du, value(j))));
    }
    to[0] = static_cast<uint8_t>(c[0] | c[1] << 6);
    to[1] = static_cast<uint8_t>(c[1] >> 2 | c[2] << 4);
    to[2] = static_cast<uint8_t>(c[2] >> 4 | c[3] << 2);
#else
    const float6::Layout t;
    // The codes in named variables, in address order (see PackCodes32).
    const auto vec = [&](size_t q) TENSORCAST_LAMBDA_INLINE {
      const auto c0 = float6::CodeFromF32<F>(hn::BitCast(du, value((4 * q) * V)));
      const auto c1 = float6::CodeFromF32<F>(hn::BitCast(du, value((4 * q + 1) * V)));
      const auto c2 = float6::CodeFromF32<F>(hn::BitCast(du, value((4 * q + 2) * V)));
      const auto c3 = float6::CodeFromF32<F>(hn::BitCast(du, value((4 * q + 3) * V)));
      return NarrowBytes(du, c0, c1, c2, c3);
    };
    const auto v0 = vec(0);
    const auto v1 = vec(1);
    const auto v2 = vec(2);
    const auto v3 = vec(3);
    float6::PackFour<false>(t, v0, v1, v2, v3, to);
#endif
  };
  size_t i = 0;
  for (; i + chunk <= n; i += chunk) {
    pack(
        [&](size_t k) TENSORCAST_LAMBDA_INLINE {
          const size_t e = i + k;
          if (ahead != 0 && e % 16 == 0) hwy::Prefetch(x + e + ahead);
          return hn::Mul(hn::LoadU(df, x + e), hn::Set(df, mult[e / 32]));
        },
        out + i / 4 * 3);
  }
  if (i < n) {
    HWY_ALIGN float padded[4 * HWY_MAX_BYTES] = {};
    HWY_ALIGN uint8_t packed[3 * HWY_MAX_BYTES];
    for (size_t k = 0; i + k < n; ++k) padded[k] = x[i + k] * mult[(i + k) / 32];
    pack([&](size_t k) TENSORCAST_LAMBDA_INLINE { return hn::LoadU(df, padded + k); }, packed);
    std::memcpy(out + i / 4 * 3, packed, (n - i) / 4 * 3);
  }
  (void)V;
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

// Block quotients for NVFP4's block scales (AmaxQuotients in
// lib/dispatch/block_scale_kernels.h).
inline void AmaxQuotients(const float* x, size_t blocks, size_t block, double divisor, double* q) {
  block_scale::AmaxQuotients(x, blocks, block, divisor, q);
}

// The one-pass MX chunk of whole blocks of 32 (MxChunk32 in
// lib/dispatch/block_scale_kernels.h).
inline bool MxChunk32(const float* x, size_t n, const MxRule& rule, DataType element, bool prefetch,
                      uint8_t* scale_codes, uint8_t* codes) {
  HWY_ALIGN float mult[tuning::kQuantizeChunkElements / 32];
  if (n > tuning::kQuantizeChunkElements || n % 32 != 0) return false;
  const bool finite =
      prefetch ? block_scale::Scales32(x, n / 32, rule, scale_codes, mult, SourcePrefetch<4>(x))
               : block_scale::Scales32(x, n / 32, rule, scale_codes, mult, NoSourcePrefetch());
  if (!finite) return false;
  // Out of cache, the encoding (which reads x from L1) prefetches the next chunk, so that
  // memory streams while it computes and Scales32 finds its lines in cache.
  const size_t ahead = prefetch ? tuning::kQuantizeChunkElements : 0;
  switch (element) {
    case DataType::kFloat4E2M1: block_scale::Encode4(x, n, mult, ahead, codes); return true;
    case DataType::kFloat8E5M2:
      block_scale::Encode8<FmtE5M2>(x, n, mult, ahead, codes);
      return true;
    case DataType::kFloat6E2M3:
      block_scale::Encode6<float6::FmtE2M3>(x, n, mult, ahead, codes);
      return true;
    case DataType::kFloat6E3M2:
      block_scale::Encode6<float6::FmtE3M2>(x, n, mult, ahead, codes);
      return true;
    default: block_scale::Encode8<FmtE4M3FN>(x, n, mult, ahead, codes); return true;
  }
}

// The MX chunk (MxChunk in lib/dispatch/block_scale_kernels.h).
inline void MxChunk(const MxChunkArgs& a) {
  const size_t end = a.e0 + a.n;
  size_t e = a.e0;
  size_t row = e / a.dim;
  size_t col = e - row * a.dim;
  while (e < end) {
    const size_t b = col / a.block;
    const size_t first = b * a.block;                                       // in the row
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
