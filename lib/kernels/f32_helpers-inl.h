// Per-target vector helpers (no kernels) shared by several kernel families: 32/64-bit
// integers and doubles -> float32 rounded to odd, DOUBLE -> FLOAT RNE, float32 ->
// float16 and bfloat16 RNE. Used by the hub decoders (int_float_cast-inl.h,
// float_cast-inl.h) and by the fused kernels that encode the result in the same loop.
//
// Round to odd: truncate toward zero, then set the lowest significand bit when a dropped
// bit was 1. Exact values stay exact; an inexact one keeps its position between float32
// neighbours, so one later RNE (or directed) rounding into any format of <= 22
// significant bits is the correct rounding of the source value (hub_kernels.h).
//   Generic (every target): the magnitude's top bit t comes from an exact conversion of
//     m >> 8 (m >> 11 for 64-bit lanes), the lsb weight is 2^max(t - 23, 0); the result
//     has <= 24 significant bits, so converting it is exact. DOUBLE: the RNE result moved
//     one step toward zero where it rounded away, the lsb set where it was inexact.
//   AVX3 / AVX3_DL: the conversion instructions' embedded rounding {rz-sae} truncate; the
//     exact reverse conversion (the truncated value is an integer in range, or a float
//     that widens exactly) tells whether it was inexact, and a masked OR sets the lsb:
//     4 instructions instead of ~12. Both give the same bits (round to odd is unique).
// DOUBLE specials: |x| >= 2^128 and Inf give Inf (above every small format's range in
//   every rounding mode, float8e8m0 "down" included, unlike FLT_MAX), NaN the RNE
//   conversion's quiet NaN (its low bit is never set).

#if defined(TENSORCAST_LIB_KERNELS_F32_HELPERS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_F32_HELPERS_INL_H_
#undef TENSORCAST_LIB_KERNELS_F32_HELPERS_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_F32_HELPERS_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "lib/kernels/truncate-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f64 -> f32, IEEE RNE on every target.
template <class DD, class DF>
HWY_INLINE hn::Vec<DF> DemoteF64ToF32(DD dd, DF df, hn::Vec<DD> v) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  // These targets' DemoteTo clamps overflow and Inf to FLT_MAX; the C conversion
  // (an IEEE instruction here) is exact.
  HWY_ALIGN double lanes[HWY_MAX_BYTES / sizeof(double)];
  HWY_ALIGN float out[HWY_MAX_BYTES / sizeof(double)];
  hn::Store(v, dd, lanes);
  for (size_t k = 0; k < hn::Lanes(dd); ++k) out[k] = static_cast<float>(lanes[k]);
  return hn::Load(df, out);
#else
  (void)dd;
  return hn::DemoteTo(df, v);
#endif
}

// Magnitudes (unsigned lanes) rounded to odd at 24 significant bits, as integers.
template <class DU>
HWY_INLINE hn::Vec<DU> RoundMagnitudeToOdd24(DU du, hn::Vec<DU> m) {
  using TU = hn::TFromD<DU>;
  const hn::RebindToSigned<DU> ds;
  const auto one = hn::Set(du, 1);
  hn::Vec<DU> k;  // number of dropped bits: max(t - 23, 0), t = index of m's top bit
  if constexpr (sizeof(TU) == 4) {
    // m >> 8 < 2^24 converts exactly; its biased exponent is t - 8 + 127 (0 for 0).
    const hn::Rebind<float, DU> df;
    const auto e = hn::ShiftRight<23>(
        hn::BitCast(du, hn::ConvertTo(df, hn::BitCast(ds, hn::ShiftRight<8>(m)))));
    k = hn::BitCast(du, hn::Max(hn::Sub(hn::BitCast(ds, e), hn::Set(ds, 142)), hn::Zero(ds)));
  } else {
    // m >> 11 < 2^53 converts exactly; its biased exponent is t - 11 + 1023.
    const hn::Rebind<double, DU> dd;
    const auto e = hn::ShiftRight<52>(
        hn::BitCast(du, hn::ConvertTo(dd, hn::BitCast(ds, hn::ShiftRight<11>(m)))));
    k = hn::BitCast(du, hn::Max(hn::Sub(hn::BitCast(ds, e), hn::Set(ds, 1035)), hn::Zero(ds)));
  }
  const auto ulp = hn::Shl(one, k);        // weight of the kept lsb
  const auto dropped = hn::Sub(ulp, one);  // mask of the dropped bits
  // (m & dropped) + dropped carries into the ulp bit iff a dropped bit is set.
  const auto sticky = hn::And(hn::Add(hn::And(m, dropped), dropped), ulp);
  return hn::Or(hn::AndNot(dropped, m), sticky);
}

// INT32 / UINT32 / INT64 / UINT64 lanes (di: as many lanes as du32) -> float32 bits
// rounded to odd (u32 lanes).
template <class DU32, class DI>
HWY_INLINE hn::Vec<DU32> IntVecToF32BitsRoundToOdd(DU32 du32, DI di, hn::Vec<DI> v) {
  using TI = hn::TFromD<DI>;
  using TU = hwy::MakeUnsigned<TI>;
  static_assert(sizeof(TI) >= 4, "32/64-bit integers");
#if TENSORCAST_X86_AVX512
  if constexpr (sizeof(hn::Vec<DI>) == 64) {
    (void)di;
    const __m512i x = v.raw;
    if constexpr (sizeof(TI) == 4) {
      constexpr int kRz = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
      __m512 t;
      __m512i back;
      if constexpr (hwy::IsSigned<TI>()) {
        t = _mm512_cvt_roundepi32_ps(x, kRz);
        back = _mm512_cvttps_epi32(t);  // exact: t is an integer in [-2^31, 2^31)
      } else {
        t = _mm512_cvt_roundepu32_ps(x, kRz);
        back = _mm512_cvttps_epu32(t);  // exact: t is an integer below 2^32
      }
      const __mmask16 inexact = _mm512_cmpneq_epi32_mask(back, x);
      const __m512i bits = _mm512_castps_si512(t);
      return hn::Vec<DU32>{_mm512_mask_or_epi32(bits, inexact, bits, _mm512_set1_epi32(1))};
    } else {
      constexpr int kRz = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
      __m256 t;
      __m512i back;
      if constexpr (hwy::IsSigned<TI>()) {
        t = _mm512_cvt_roundepi64_ps(x, kRz);
        back = _mm512_cvttps_epi64(t);  // exact: t is an integer in [-2^63, 2^63)
      } else {
        t = _mm512_cvt_roundepu64_ps(x, kRz);
        back = _mm512_cvttps_epu64(t);  // exact: t is an integer below 2^64
      }
      const __mmask8 inexact = _mm512_cmpneq_epi64_mask(back, x);
      const __m256i bits = _mm256_castps_si256(t);
      return hn::Vec<DU32>{_mm256_mask_or_epi32(bits, inexact, bits, _mm256_set1_epi32(1))};
    }
  }
#endif
  (void)di;
  const hn::Rebind<TU, DI> du;
  const hn::Rebind<float, DU32> df;
  // |x| as unsigned (|INT_MIN| = 2^(bits-1) is right in unsigned lanes).
  hn::Vec<decltype(du)> m, sign;
  if constexpr (hwy::IsSigned<TI>()) {
    m = hn::BitCast(du, hn::Abs(v));
    sign = hn::And(hn::BitCast(du, v), hn::Set(du, TU{1} << (8 * sizeof(TU) - 1)));
  } else {
    m = v;
    sign = hn::Zero(du);
  }
  const auto odd = RoundMagnitudeToOdd24(du, m);  // <= 24 significant bits
  if constexpr (sizeof(TU) == 4) {
    return hn::Or(hn::BitCast(du32, hn::ConvertTo(df, odd)), sign);
  } else {
    const hn::Rebind<double, decltype(du)> dd;
    const auto d = hn::Or(hn::BitCast(du, hn::ConvertTo(dd, odd)), sign);  // exact
    return hn::BitCast(du32, hn::DemoteTo(df, hn::BitCast(dd, d)));        // exact
  }
}

// DOUBLE lanes -> float32 bits rounded to odd (u32 lanes, as many as dd has).
template <class DU32, class DD>
HWY_INLINE hn::Vec<DU32> F64VecToF32BitsRoundToOdd(DU32 du32, DD dd, hn::Vec<DD> v) {
#if TENSORCAST_X86_AVX512
  if constexpr (sizeof(hn::Vec<DD>) == 64) {
    (void)dd;
    const __m512d x = v.raw;
    const __m256 t = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    // Ordered compare: NaN lanes are not "inexact" (their bits stay the RNE conversion's).
    const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(t), x, _CMP_NEQ_OQ);
    const __m256i bits = _mm256_castps_si256(t);
    const __m256i odd = _mm256_mask_or_epi32(bits, inexact, bits, _mm256_set1_epi32(1));
    // |x| >= 2^128 (Inf included): Inf of x's sign, where truncation gave FLT_MAX.
    const __m512d abs = _mm512_abs_pd(x);
    const __mmask8 huge = _mm512_cmp_pd_mask(abs, _mm512_set1_pd(3.402823669209385e38), _CMP_GE_OQ);
    const __m256i inf = _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(INT32_MIN)),
                                        _mm256_set1_epi32(0x7F800000));
    return hn::Vec<DU32>{_mm256_mask_mov_epi32(odd, huge, inf)};
  }
#endif
  const hn::Rebind<float, DD> df;
  const hn::Rebind<uint64_t, DD> du64;
  const auto r = DemoteF64ToF32(dd, df, v);
  const auto back = hn::PromoteTo(dd, r);
  // |x| >= 2^128 stays Inf (see the top of the file).
  const auto in_range = hn::Lt(hn::Abs(v), hn::Set(dd, 3.402823669209385e38));
  const auto inexact = hn::And(in_range, hn::AndNot(hn::IsNaN(v), hn::Ne(back, v)));
  const auto away = hn::And(in_range, hn::Gt(hn::Abs(back), hn::Abs(v)));
  const auto one = hn::Set(du64, 1);
  const auto down = hn::TruncateTo(du32, hn::IfThenElseZero(hn::RebindMask(du64, away), one));
  const auto odd = hn::TruncateTo(du32, hn::IfThenElseZero(hn::RebindMask(du64, inexact), one));
  return hn::Or(hn::Sub(hn::BitCast(du32, r), down), odd);
}

// f32 bits (u32 lanes) -> f16 bits (u32 lanes, low 16 bits), IEEE RNE.
//   normal:    rebias the exponent (-112 << 23 wraps mod 2^32) and round at bit 13;
//   subnormal: adding 0.5f (exponent 2^-1, ulp 2^-24 = the f16 subnormal step) lets
//              the FPU round the value to a multiple of 2^-24, to nearest even.
template <class DU32>
HWY_INLINE hn::Vec<DU32> F32BitsToF16Bits(DU32 du32, hn::Vec<DU32> bits) {
  const hn::Rebind<float, DU32> df;
  const auto sign = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 0x8000));
  const auto a = hn::And(bits, hn::Set(du32, 0x7FFFFFFF));
  const auto lsb = hn::And(hn::ShiftRight<13>(a), hn::Set(du32, 1));
  const auto normal = hn::ShiftRight<13>(hn::Add(a, hn::Add(hn::Set(du32, 0xC8000FFFu), lsb)));
  const auto magic = hn::Set(du32, 126u << 23);  // 0.5f
  const auto sub =
      hn::Sub(hn::BitCast(du32, hn::Add(hn::BitCast(df, a), hn::BitCast(df, magic))), magic);
  const auto nan =
      hn::Or(hn::Set(du32, 0x7E00), hn::And(hn::ShiftRight<13>(a), hn::Set(du32, 0x3FF)));
  auto r = hn::IfThenElse(hn::Lt(a, hn::Set(du32, 0x38800000)), sub, normal);
  r = hn::IfThenElse(hn::Gt(a, hn::Set(du32, 0x477FEFFF)), hn::Set(du32, 0x7C00), r);
  r = hn::IfThenElse(hn::Gt(a, hn::Set(du32, 0x7F800000)), nan, r);
  return hn::Or(r, sign);
}

// f32 bits -> f16 bits (u16 lanes), IEEE RNE: the hardware conversion where it is exact
// (F16C, NEON, SVE), F32BitsToF16Bits on SSSE3, SSE4 and SCALAR (Highway 1.0.3 emulates
// f16 inexactly there, docs/highway-notes.md).
template <class DU32>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DU32>> F32BitsToF16Lanes(DU32 du32, hn::Vec<DU32> bits) {
  const hn::Rebind<uint16_t, DU32> du16;
#if TENSORCAST_NATIVE_F16
  const hn::Rebind<float, DU32> df;
  const hn::Rebind<hwy::float16_t, DU32> dh;
  (void)du32;
  return hn::BitCast(du16, hn::DemoteTo(dh, hn::BitCast(df, bits)));
#else
  (void)du16;
  return TruncateToBytes<2>(du32, F32BitsToF16Bits(du32, bits));
#endif
}

// f32 bits of a non-NaN value -> u32 lanes whose upper 16 bits are the bf16 result (RNE).
template <class DU32>
HWY_INLINE hn::Vec<DU32> RoundF32BitsToBF16InUpperHalf(DU32 du32, hn::Vec<DU32> bits) {
  const auto lsb = hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 1));
  return hn::Add(bits, hn::Add(lsb, hn::Set(du32, 0x7FFF)));
}

// f32 bits -> u32 lanes whose upper 16 bits are the bf16 result (RNE; NaN -> 0x7FC0 |
// sign), so that two vectors narrow with one ConcatOdd.
template <class DU32>
HWY_INLINE hn::Vec<DU32> F32BitsToBF16InUpperHalf(DU32 du32, hn::Vec<DU32> bits) {
  const auto rounded = RoundF32BitsToBF16InUpperHalf(du32, bits);
  // 0x7FC00000 | sign: one vpternlogd on AVX3; the float compare needs no |x|.
  const auto nan = hn::OrAnd(hn::Set(du32, 0x7FC00000u), bits, hn::Set(du32, 0x80000000u));
  const auto is_nan = hn::RebindMask(du32, hn::IsNaN(hn::BitCast(hn::RebindToFloat<DU32>(), bits)));
  return hn::IfThenElse(is_nan, nan, rounded);
}

// f32 bits -> bf16 bits (u16 lanes), RNE, NaN -> 0x7FC0 | sign.
template <class DU32>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DU32>> F32BitsToBF16Lanes(DU32 du32, hn::Vec<DU32> bits) {
  // TruncateToBytes: Highway 1.0.3's TruncateTo from a 256-bit vector is wrong on AVX3_DL
  // (64-bit sources have 256-bit u32 vectors; truncate-inl.h).
  return TruncateToBytes<2>(du32, hn::ShiftRight<16>(F32BitsToBF16InUpperHalf(du32, bits)));
}

// N FLOAT16 values -> f32 bits. Native f16 targets (F16C, NEON, SVE) convert exactly.
// Elsewhere Highway's f16 PromoteTo is inexact (docs/highway-notes.md); the integer version
// below is exact for normal numbers, Inf and NaN, and maps zero and subnormals to
// values below 2^-14, which the encoders treat like them (int: 0; FLOAT4E2M1, FLOAT6: signed 0).
HWY_INLINE hn::Vec<hn::ScalableTag<uint32_t>> F32BitsFromF16(const uint16_t* HWY_RESTRICT in) {
  const hn::ScalableTag<uint32_t> du32;
  const hn::Rebind<uint16_t, decltype(du32)> du16;
#if TENSORCAST_NATIVE_F16
  const hn::Rebind<float, decltype(du32)> df;
  const hn::Rebind<hwy::float16_t, decltype(du32)> dh;
  return hn::BitCast(du32, hn::PromoteTo(df, hn::BitCast(dh, hn::LoadU(du16, in))));
#else
  const auto h = hn::PromoteTo(du32, hn::LoadU(du16, in));
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du32, 0x8000)));
  const auto shifted = hn::ShiftLeft<13>(hn::And(h, hn::Set(du32, 0x7FFF)));
  const auto finite = hn::Add(shifted, hn::Set(du32, 112u << 23));
  const auto special = hn::Or(shifted, hn::Set(du32, 0x7F800000));  // Inf, NaN payload
  const auto is_special = hn::Eq(hn::And(h, hn::Set(du32, 0x7C00)), hn::Set(du32, 0x7C00));
  return hn::Or(hn::IfThenElse(is_special, special, finite), sign);
#endif
}

// N BFLOAT16 values -> their f32 bits (exact on every target: a shift).
HWY_INLINE hn::Vec<hn::ScalableTag<uint32_t>> F32BitsFromBF16(const uint16_t* HWY_RESTRICT in) {
  const hn::ScalableTag<uint32_t> du32;
  const hn::Rebind<uint16_t, decltype(du32)> du16;
  return hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, in)));
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_F32_HELPERS_INL_H_
