// The float32 -> FLOAT4E2M1 encoder on u32 lanes (F4CodeFromF32), shared by the sub-byte
// Cast kernels (subbyte_cast-inl.h) and the block-scaling kernels (block_scale-inl.h).

// Per-target include guard (Highway's foreach_target idiom).
#if defined(TENSORCAST_LIB_KERNELS_F4_CODEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_F4_CODEC_INL_H_
#undef TENSORCAST_LIB_KERNELS_F4_CODEC_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_F4_CODEC_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace subbyte {

using DU32 = hn::ScalableTag<uint32_t>;
using DI32 = hn::RebindToSigned<DU32>;
using DF32 = hn::Rebind<float, DU32>;

// f32 bits -> FLOAT4E2M1 code, RNE, saturating; NaN -> 0x8 (sign bit 0) or 0x0 (sign 1).
//   a6 = min(|x|, 6). For a6 in [2^e, 2^(e+1)), a power of two M = 2^(22 + max(e, 0)) has
//   an ulp equal to the E2M1 step there (0.5 below 2, 1 in [2, 4), 2 in [4, 6]), so one
//   f32 addition a6 + M rounds a6 to the E2M1 grid, ties to even, and the sum's mantissa
//   counts the steps. magic = M + 2 * max(e, 0) (an even number of ulps: the grid and the
//   tie parity are unchanged) makes that mantissa the code itself, steps + 2 * max(e, 0).
//   NaN lanes become a zero with the sign bit flipped. Bit 3, the sign, comes from
//   bits >> 28.
HWY_INLINE hn::Vec<DU32> F4CodeFromF32(hn::Vec<DU32> bits) {
  const DU32 du32;
  const DI32 di32;
  const DF32 df;
  const auto is_nan = hn::RebindMask(du32, hn::IsNaN(hn::BitCast(df, bits)));
  const auto x = hn::IfThenElse(is_nan, hn::AndNot(bits, hn::Set(du32, 0x80000000u)), bits);
  const auto a = hn::BitCast(di32, hn::And(x, hn::Set(du32, 0x7FFFFFFFu)));
  const auto a6 = hn::Min(a, hn::Set(di32, 0x40C00000));  // 6.0
  // (max(e, 0) + 127) << 23
  const auto exp = hn::And(hn::BitCast(du32, hn::Max(a6, hn::Set(di32, 0x3F800000))),
                           hn::Set(du32, 0x7F800000u));
  // exp >> 22 = 2 * (max(e, 0) + 127)
  const auto magic =
      hn::Add(hn::Add(exp, hn::ShiftRight<22>(exp)), hn::Set(du32, (22u << 23) - 254u));
  const auto sum = hn::BitCast(du32, hn::Add(hn::BitCast(df, a6), hn::BitCast(df, magic)));
  // (sum & 7) | (x >> 28 & 8); OrAnd is one vpternlogd on AVX3. (IfVecThenElse is no
  // bitwise select below AVX3: it wants all-ones or all-zero lanes.)
  return hn::OrAnd(hn::And(sum, hn::Set(du32, 7)), hn::ShiftRight<28>(x), hn::Set(du32, 8));
}

}  // namespace subbyte

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_F4_CODEC_INL_H_
