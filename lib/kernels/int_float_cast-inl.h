// Kernels between the 8/16/32/64-bit integers (INT8..INT64, UINT8..UINT64) and FLOAT /
// DOUBLE, and the round-to-odd integer decoders of the blocked two-step (hub) path.
//
// Pairs:    every integer -> FLOAT and -> DOUBLE (CastIntToFloat), -> FLOAT16 and
//           BFLOAT16 (CastIntToHalf: exact or round-to-odd float32, then its rounding, in
//           one loop); FLOAT and DOUBLE ->
//           every integer (CastFloatToInt); FLOAT16 and BFLOAT16 -> every integer
//           (CastHalfToInt: exact widening to float32 in the loop, then the FLOAT
//           conversion; 8-bit targets pack with CastLoopToBytes, float8_cast-inl.h, as
//           FLOAT -> INT8/UINT8 does); hub only, not registry rows: INT32, UINT32,
//           INT64, UINT64 -> FLOAT rounded to odd (IntToF32RoundToOdd).
// Rounding: integer -> float is one RNE rounding of the exact integer. 8/16-bit sources,
//           and 32-bit ones into DOUBLE, are exact; i32/u32 -> f32 and i64/u64 -> f64 are
//           Highway's RNE ConvertTo. i64/u64 -> f32 must not round twice (through an RNE
//           double): values of 2^53 or more first have their low 11 bits collapsed into
//           a sticky bit at bit 11 (round to odd at bit 11, exact in a double), then
//           convert exactly to double and round once to float (the f32 rounding point
//           is at bit >= 29, so the sticky bit decides ties exactly as the dropped bits).
//           Float -> integer truncates toward zero.
// Range:    float -> integer saturates to the target's range and NaN gives 0
//           (docs/semantics.md, "Differences"). The float is clamped to exactly representable
//           bounds before any conversion instruction sees it, so no conversion ever
//           overflows (x86 gives INT_MIN for overflow and NaN; Highway 1.0.3's scalar
//           f64 -> i64 of 2^63 is undefined behaviour). Where the type's maximum is not
//           a float (2^31 - 1 in FLOAT, 2^63 - 1, 2^64 - 1), lanes >= 2^(bits - 1) are
//           selected to the maximum. Unsigned 32/64-bit targets convert x - 2^(bits-1)
//           for the upper half (exact by Sterbenz) and set the top bit back; DOUBLE ->
//           UINT32 uses Trunc first, then the signed conversion of t - 2^31. FLOAT ->
//           64-bit integers widen to DOUBLE (exact) first.
// Odd:      round to odd (hub decoders): f32_helpers-inl.h (generic formulation, and
//           the AVX3 one with the conversions' embedded truncation).
// Targets:  the same code everywhere (no Highway conversion here is inexact or
//           buggy for the clamped inputs; DemoteTo i32 -> u8 only sees 0..255, so the
//           1.0.3 AVX2/AVX3 bug for 32768..33022 cannot occur). DOUBLE -> INT32 truncates
//           before DemoteTo because the SCALAR DemoteTo saturates anything below
//           -(2^31 - 1) (e.g. -2147483647.5) to INT_MIN.
// Tail:     CastLoop's one-vector stack buffer.

#if defined(TENSORCAST_LIB_KERNELS_INT_FLOAT_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_INT_FLOAT_CAST_INL_H_
#undef TENSORCAST_LIB_KERNELS_INT_FLOAT_CAST_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_INT_FLOAT_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "hwy/highway.h"
#include "lib/kernels/cast_loop-inl.h"
#include "lib/kernels/f32_helpers-inl.h"
#include "lib/kernels/float8_codec-inl.h"
#include "tensorcast/cast_options.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Tags of a pair: full vectors of the wider lane type, the same lane count of the other.
template <typename TA, typename TB>
using IntFloatWideTag = hn::ScalableTag<std::conditional_t<(sizeof(TA) > sizeof(TB)), TA, TB>>;

// ---------------------------------------------------------------------------------------
// Integer -> float, one RNE rounding.

// 64-bit integer lanes (as unsigned bits) rounded to odd at bit 11 when |x| >= 2^53, so
// that the result converts exactly to double and rounds once to float.
template <bool kSigned, class DU64>
HWY_INLINE hn::Vec<DU64> StickyAtBit11(DU64 du, hn::Vec<DU64> x) {
  const auto low = hn::Set(du, 0x7FF);
  const auto sticky = hn::And(hn::Add(hn::And(x, low), low), hn::Set(du, 0x800));
  const auto collapsed = hn::Or(hn::AndNot(low, x), sticky);
  // Exact in a double already: [-2^53, 2^53) for signed (x + 2^53 < 2^54), < 2^53 unsigned.
  const auto small =
      kSigned ? hn::ShiftRight<54>(hn::Add(x, hn::Set(du, 1ull << 53))) : hn::ShiftRight<53>(x);
  return hn::IfThenElse(hn::Eq(small, hn::Zero(du)), x, collapsed);
}

template <class DF, class V>
HWY_INLINE hn::Vec<DF> IntVecToFloat(DF df, V v) {
  using TI = hn::TFromV<V>;
  using TF = hn::TFromD<DF>;
  constexpr bool kF32 = sizeof(TF) == 4;
  if constexpr (sizeof(TI) <= 2) {
    const hn::Rebind<int32_t, DF> d32;
    const auto wide = hn::PromoteTo(d32, v);  // exact, and exact in either float
    if constexpr (kF32) {
      return hn::ConvertTo(df, wide);
    } else {
      return hn::PromoteTo(df, wide);
    }
  } else if constexpr (sizeof(TI) == 4) {
    if constexpr (kF32) {
      return hn::ConvertTo(df, v);  // i32 and u32 -> f32: RNE on every target
    } else if constexpr (hwy::IsSigned<TI>()) {
      return hn::PromoteTo(df, v);
    } else {
      // u32 -> f64: (x - 2^31) as i32, widened exactly, plus 2^31 (exact).
      const hn::Rebind<int32_t, DF> d32;
      const hn::Rebind<uint32_t, DF> du32;
      const auto biased = hn::BitCast(d32, hn::Xor(v, hn::Set(du32, 0x80000000u)));
      return hn::Add(hn::PromoteTo(df, biased), hn::Set(df, 2147483648.0));
    }
  } else if constexpr (!kF32) {
    return hn::ConvertTo(df, v);  // i64 and u64 -> f64: RNE on every target
  } else {
    const hn::Rebind<uint64_t, DF> du64;
    const hn::Rebind<TI, DF> di;
    const hn::Rebind<double, DF> dd;
    const auto odd = StickyAtBit11<hwy::IsSigned<TI>()>(du64, hn::BitCast(du64, v));
    return hn::DemoteTo(df, hn::ConvertTo(dd, hn::BitCast(di, odd)));
  }
}

template <typename TI, typename TF>
HWY_INLINE void CastIntToFloat(const void* src, void* dst, size_t count) {
  const IntFloatWideTag<TI, TF> dw;
  const hn::Rebind<TI, decltype(dw)> di;
  const hn::Rebind<TF, decltype(dw)> df;
  CastLoop(di, df, static_cast<const TI*>(src), static_cast<TF*>(dst), count,
           [&](hn::Vec<decltype(di)> v) HWY_ATTR { return IntVecToFloat(df, v); });
}

// ---------------------------------------------------------------------------------------
// Float -> integer: NaN -> 0, truncate toward zero, saturate.

// The largest TF below 2^(bits - 1) of a `bits`-wide integer: 2^(bits-1) - ulp.
template <typename TF, size_t kBits>
constexpr TF LargestBelowHalfRange() {
  constexpr int kMant = std::numeric_limits<TF>::digits;  // 24 or 53
  constexpr TF half = static_cast<TF>(1ull << (kBits - 1));
  return half - static_cast<TF>(1ull << (kBits - 1 - kMant));
}

template <class DI, class V>
HWY_INLINE hn::Vec<DI> FloatVecToInt(DI di, V v) {
  using TF = hn::TFromV<V>;
  using TI = hn::TFromD<DI>;
  const hn::Rebind<TF, DI> df;
  if constexpr (sizeof(TF) == 4 && sizeof(TI) == 8) {
#if TENSORCAST_X86_AVX512
    // AVX-512 truncates f32 to 64-bit integers directly: NaN -> 0 first; the unsigned
    // truncation saturates x >= 2^64 to all ones by itself, the signed one gives INT64_MIN
    // for x >= 2^63, selected to INT64_MAX.
    if constexpr (sizeof(hn::Vec<DI>) == 64) {
      v = hn::IfThenElseZero(hn::Eq(v, v), v);
      if constexpr (hwy::IsSigned<TI>()) {
        const __m512i r = _mm512_cvttps_epi64(v.raw);
        const __mmask8 big =
            _mm256_cmp_ps_mask(v.raw, _mm256_set1_ps(9223372036854775808.0f), _CMP_GE_OQ);
        return hn::Vec<DI>{_mm512_mask_mov_epi64(r, big, _mm512_set1_epi64(INT64_MAX))};
      } else {
        return hn::Vec<DI>{_mm512_cvttps_epu64(hn::Max(v, hn::Zero(df)).raw)};
      }
    }
#endif
    return FloatVecToInt(di, hn::PromoteTo(hn::Rebind<double, DI>(), v));  // exact
  } else {
    v = hn::IfThenElseZero(hn::Eq(v, v), v);  // NaN -> 0
    constexpr size_t kBits = 8 * sizeof(TI);
    if constexpr (sizeof(TI) <= 2 || (sizeof(TI) == 4 && sizeof(TF) == 8 && hwy::IsSigned<TI>())) {
      // The target's bounds are exact in TF: clamp, then convert in range.
      const auto lo = hn::Set(df, static_cast<TF>(hwy::LimitsMin<TI>()));
      const auto hi = hn::Set(df, static_cast<TF>(hwy::LimitsMax<TI>()));
      const auto clamped = hn::Min(hn::Max(v, lo), hi);
      const hn::Rebind<int32_t, DI> d32;
      hn::Vec<decltype(d32)> i32;
      if constexpr (sizeof(TF) == 4) {
        i32 = hn::ConvertTo(d32, clamped);
      } else if constexpr (sizeof(TI) == 4) {
        // Trunc first: Highway 1.0.3's SCALAR DemoteTo gives INT_MIN for any x below
        // -(2^31 - 1), e.g. -2147483647.5 (truncates to -2147483647).
        i32 = hn::DemoteTo(d32, hn::Trunc(clamped));
      } else {
        i32 = hn::DemoteTo(d32, clamped);
      }
      if constexpr (sizeof(TI) == 4) {
        return i32;
      } else {
        return hn::DemoteTo(di, i32);  // in range: no saturation, no 1.0.3 u8 bug
      }
    } else if constexpr (sizeof(TI) == 4 && sizeof(TF) == 8) {
      // DOUBLE -> UINT32: truncate, then (t - 2^31) is an exact int32.
      const hn::Rebind<int32_t, DI> d32;
      const auto t = hn::Trunc(hn::Min(hn::Max(v, hn::Zero(df)), hn::Set(df, 4294967295.0)));
      const auto biased = hn::DemoteTo(d32, hn::Sub(t, hn::Set(df, 2147483648.0)));
      return hn::Xor(hn::BitCast(di, biased), hn::Set(di, TI{1} << (kBits - 1)));
    } else {
      // Same lane width: f32 -> i32/u32, f64 -> i64/u64.
      const hn::RebindToSigned<DI> ds;
      const auto half = hn::Set(df, static_cast<TF>(1ull << (kBits - 1)));  // 2^(bits-1)
      const auto below = hn::Set(df, LargestBelowHalfRange<TF, kBits>());
      if constexpr (hwy::IsSigned<TI>()) {
#if TENSORCAST_X86_AVX512
        // The bare truncation gives INT_MIN for x >= 2^(bits-1) (and for x below the
        // range, which is right): one compare and select instead of clamping first.
        if constexpr (sizeof(hn::Vec<DI>) == 64) {
          const auto big = hn::RebindMask(di, hn::Ge(v, half));
          hn::Vec<DI> r;
          if constexpr (sizeof(TF) == 4) {
            r = hn::Vec<DI>{_mm512_cvttps_epi32(v.raw)};
          } else {
            r = hn::Vec<DI>{_mm512_cvttpd_epi64(v.raw)};
          }
          return hn::IfThenElse(big, hn::Set(di, hwy::LimitsMax<TI>()), r);
        }
#endif
        const auto x = hn::Max(v, hn::Neg(half));
        const auto big = hn::RebindMask(di, hn::Ge(x, half));
        const auto r = hn::ConvertTo(ds, hn::Min(x, below));
        return hn::IfThenElse(big, hn::Set(di, hwy::LimitsMax<TI>()), r);
      } else {
        const auto x = hn::Max(v, hn::Zero(df));
#if TENSORCAST_X86_AVX512
        // AVX-512's unsigned truncations give 2^bits - 1 for x >= 2^bits (Inf included),
        // the saturated result itself.
        if constexpr (sizeof(hn::Vec<decltype(df)>) == 64) {
          if constexpr (sizeof(TF) == 4) {
            return hn::Vec<DI>{_mm512_cvttps_epu32(x.raw)};
          } else {
            return hn::Vec<DI>{_mm512_cvttpd_epu64(x.raw)};
          }
        }
#endif
        const auto upper = hn::Ge(x, half);
        const auto big = hn::RebindMask(di, hn::Ge(x, hn::Add(half, half)));
        const auto y = hn::Min(hn::IfThenElse(upper, hn::Sub(x, half), x), below);
        const auto r = hn::Or(
            hn::BitCast(di, hn::ConvertTo(ds, y)),
            hn::IfThenElseZero(hn::RebindMask(di, upper), hn::Set(di, TI{1} << (kBits - 1))));
        return hn::Or(r, hn::VecFromMask(di, big));  // >= 2^bits -> all ones
      }
    }
  }
}

// float32 lanes -> the byte of the 8-bit integer TI (u32 lanes, 0..255): NaN -> 0, clamp
// to TI's range (exact bounds), truncate. With CastLoopToBytes this packs four vectors
// with two shuffles, where DemoteTo i32 -> i8 takes three per vector.
template <typename TI, class DF>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DF>> FloatVecToByteLanes(DF df, hn::Vec<DF> v) {
  static_assert(sizeof(TI) == 1 && sizeof(hn::TFromD<DF>) == 4, "f32 -> 8-bit");
  const hn::RebindToSigned<DF> di32;
  const hn::RebindToUnsigned<DF> du32;
  v = hn::IfThenElseZero(hn::Eq(v, v), v);  // NaN -> 0
  const auto clamped = hn::Min(hn::Max(v, hn::Set(df, static_cast<float>(hwy::LimitsMin<TI>()))),
                               hn::Set(df, static_cast<float>(hwy::LimitsMax<TI>())));
  const auto i = hn::BitCast(du32, hn::ConvertTo(di32, clamped));
  if constexpr (hwy::IsSigned<TI>()) return hn::And(i, hn::Set(du32, 0xFFu));
  return i;
}

template <typename TF, typename TI>
HWY_INLINE void CastFloatToInt(const void* src, void* dst, size_t count) {
  if constexpr (sizeof(TF) == 4 && sizeof(TI) == 1) {
    const hn::ScalableTag<uint32_t> du32;
    const hn::Rebind<float, decltype(du32)> df;
    CastLoopToBytes(du32, df, static_cast<const float*>(src), static_cast<uint8_t*>(dst), count,
                    [&](hn::Vec<decltype(df)> v)
                        HWY_ATTR { return FloatVecToByteLanes<TI>(df, v); });
    return;
  }
  const IntFloatWideTag<TF, TI> dw;
  const hn::Rebind<TF, decltype(dw)> df;
  const hn::Rebind<TI, decltype(dw)> di;
  CastLoop(df, di, static_cast<const TF*>(src), static_cast<TI*>(dst), count,
           [&](hn::Vec<decltype(df)> v) HWY_ATTR { return FloatVecToInt(di, v); });
}

// ---------------------------------------------------------------------------------------
// FLOAT16 / BFLOAT16 -> every integer: the exact float32 value (F16ToF32Bits; bfloat16
// bits << 16), then the FLOAT -> integer conversion above, in one loop (one rounding:
// the widening is exact).

template <bool kBf16, class DU32>
HWY_INLINE hn::Vec<hn::Rebind<float, DU32>> HalfToF32(DU32 du32,
                                                      hn::Vec<hn::Rebind<uint16_t, DU32>> h) {
  const hn::Rebind<float, DU32> df;
  if constexpr (kBf16) {
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, h)));
  } else {
    return hn::BitCast(df, F16ToF32Bits(du32, h));
  }
}

template <bool kBf16, typename TI>
HWY_INLINE void CastHalfToInt(const void* src, void* dst, size_t count) {
  const auto* in = static_cast<const uint16_t*>(src);
  if constexpr (sizeof(TI) == 1) {
    const hn::ScalableTag<uint32_t> du32;
    const hn::Rebind<uint16_t, decltype(du32)> du16;
    const hn::Rebind<float, decltype(du32)> df;
    CastLoopToBytes(du32, du16, in, static_cast<uint8_t*>(dst), count,
                    [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
                      return FloatVecToByteLanes<TI>(df, HalfToF32<kBf16>(du32, h));
                    });
  } else {
    const IntFloatWideTag<float, TI> dw;
    const hn::Rebind<uint16_t, decltype(dw)> du16;
    const hn::Rebind<uint32_t, decltype(dw)> du32;
    const hn::Rebind<TI, decltype(dw)> di;
    CastLoop(du16, di, in, static_cast<TI*>(dst), count, [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
      return FloatVecToInt(di, HalfToF32<kBf16>(du32, h));
    });
  }
}

// ---------------------------------------------------------------------------------------
// Every integer -> FLOAT16 / BFLOAT16, one rounding: the exact float32 value (8/16-bit
// sources) or the float32 rounded to odd (32/64-bit, f32_helpers-inl.h), then the FLOAT
// -> FLOAT16 / BFLOAT16 rounding, in one loop (faster than the two-step route).

template <typename TI, bool kBf16>
HWY_INLINE void CastIntToHalf(const void* src, void* dst, size_t count) {
  const IntFloatWideTag<TI, uint32_t> dw;
  const hn::Rebind<TI, decltype(dw)> di;
  const hn::Rebind<uint32_t, decltype(dw)> du32;
  const hn::Rebind<float, decltype(dw)> df;
  const hn::Rebind<uint16_t, decltype(dw)> du16;
  CastLoop(di, du16, static_cast<const TI*>(src), static_cast<uint16_t*>(dst), count,
           [&](hn::Vec<decltype(di)> v) HWY_ATTR {
             hn::Vec<decltype(du32)> bits;
             if constexpr (sizeof(TI) <= 2) {
               bits = hn::BitCast(du32, IntVecToFloat(df, v));  // exact
             } else {
               bits = IntVecToF32BitsRoundToOdd(du32, di, v);
             }
             if constexpr (kBf16) {
               // An integer is never NaN: no NaN select (F32BitsToBF16Lanes).
               return TruncateToBytes<2>(
                   du32, hn::ShiftRight<16>(RoundF32BitsToBF16InUpperHalf(du32, bits)));
             } else {
               return F32BitsToF16Lanes(du32, bits);
             }
           });
}

// ---------------------------------------------------------------------------------------
// Hub decoders: 32/64-bit integers -> float32 rounded to odd.

template <typename TI>
HWY_INLINE void IntToF32RoundToOdd(const void* src, void* dst, size_t count) {
  using TU = hwy::MakeUnsigned<TI>;
  const hn::ScalableTag<TU> du;
  const hn::Rebind<TI, decltype(du)> di;
  const hn::Rebind<uint32_t, decltype(du)> du32;
  CastLoop(di, du32, static_cast<const TI*>(src), static_cast<uint32_t*>(dst), count,
           [&](hn::Vec<decltype(di)> v) HWY_ATTR {
             return IntVecToF32BitsRoundToOdd(du32, di, v);  // f32_helpers-inl.h
           });
}

// ---------------------------------------------------------------------------------------
// Named kernels (registry rows and hub entry points).

#define TENSORCAST_INT_FLOAT_CAST(Name, Template, From, To)                 \
  void Name(const void* src, void* dst, size_t count, const CastOptions&) { \
    Template<From, To>(src, dst, count);                                    \
  }
TENSORCAST_INT_FLOAT_CAST(CastI8ToF32, CastIntToFloat, int8_t, float)
TENSORCAST_INT_FLOAT_CAST(CastU8ToF32, CastIntToFloat, uint8_t, float)
TENSORCAST_INT_FLOAT_CAST(CastI16ToF32, CastIntToFloat, int16_t, float)
TENSORCAST_INT_FLOAT_CAST(CastU16ToF32, CastIntToFloat, uint16_t, float)
TENSORCAST_INT_FLOAT_CAST(CastI32ToF32, CastIntToFloat, int32_t, float)
TENSORCAST_INT_FLOAT_CAST(CastU32ToF32, CastIntToFloat, uint32_t, float)
TENSORCAST_INT_FLOAT_CAST(CastI64ToF32, CastIntToFloat, int64_t, float)
TENSORCAST_INT_FLOAT_CAST(CastU64ToF32, CastIntToFloat, uint64_t, float)
TENSORCAST_INT_FLOAT_CAST(CastI8ToF64, CastIntToFloat, int8_t, double)
TENSORCAST_INT_FLOAT_CAST(CastU8ToF64, CastIntToFloat, uint8_t, double)
TENSORCAST_INT_FLOAT_CAST(CastI16ToF64, CastIntToFloat, int16_t, double)
TENSORCAST_INT_FLOAT_CAST(CastU16ToF64, CastIntToFloat, uint16_t, double)
TENSORCAST_INT_FLOAT_CAST(CastI32ToF64, CastIntToFloat, int32_t, double)
TENSORCAST_INT_FLOAT_CAST(CastU32ToF64, CastIntToFloat, uint32_t, double)
TENSORCAST_INT_FLOAT_CAST(CastI64ToF64, CastIntToFloat, int64_t, double)
TENSORCAST_INT_FLOAT_CAST(CastU64ToF64, CastIntToFloat, uint64_t, double)
TENSORCAST_INT_FLOAT_CAST(CastF32ToI8, CastFloatToInt, float, int8_t)
TENSORCAST_INT_FLOAT_CAST(CastF32ToU8, CastFloatToInt, float, uint8_t)
TENSORCAST_INT_FLOAT_CAST(CastF32ToI16, CastFloatToInt, float, int16_t)
TENSORCAST_INT_FLOAT_CAST(CastF32ToU16, CastFloatToInt, float, uint16_t)
TENSORCAST_INT_FLOAT_CAST(CastF32ToI32, CastFloatToInt, float, int32_t)
TENSORCAST_INT_FLOAT_CAST(CastF32ToU32, CastFloatToInt, float, uint32_t)
TENSORCAST_INT_FLOAT_CAST(CastF32ToI64, CastFloatToInt, float, int64_t)
TENSORCAST_INT_FLOAT_CAST(CastF32ToU64, CastFloatToInt, float, uint64_t)
#define TENSORCAST_HALF_INT_CAST(Name, kBf16, To)                           \
  void Name(const void* src, void* dst, size_t count, const CastOptions&) { \
    CastHalfToInt<kBf16, To>(src, dst, count);                              \
  }
TENSORCAST_HALF_INT_CAST(CastF16ToI8, false, int8_t)
TENSORCAST_HALF_INT_CAST(CastF16ToU8, false, uint8_t)
TENSORCAST_HALF_INT_CAST(CastF16ToI16, false, int16_t)
TENSORCAST_HALF_INT_CAST(CastF16ToU16, false, uint16_t)
TENSORCAST_HALF_INT_CAST(CastF16ToI32, false, int32_t)
TENSORCAST_HALF_INT_CAST(CastF16ToU32, false, uint32_t)
TENSORCAST_HALF_INT_CAST(CastF16ToI64, false, int64_t)
TENSORCAST_HALF_INT_CAST(CastF16ToU64, false, uint64_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToI8, true, int8_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToU8, true, uint8_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToI16, true, int16_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToU16, true, uint16_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToI32, true, int32_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToU32, true, uint32_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToI64, true, int64_t)
TENSORCAST_HALF_INT_CAST(CastBF16ToU64, true, uint64_t)
#undef TENSORCAST_HALF_INT_CAST
#define TENSORCAST_INT_HALF_CAST(Name, From, kBf16)                         \
  void Name(const void* src, void* dst, size_t count, const CastOptions&) { \
    CastIntToHalf<From, kBf16>(src, dst, count);                            \
  }
TENSORCAST_INT_HALF_CAST(CastI8ToF16, int8_t, false)
TENSORCAST_INT_HALF_CAST(CastU8ToF16, uint8_t, false)
TENSORCAST_INT_HALF_CAST(CastI16ToF16, int16_t, false)
TENSORCAST_INT_HALF_CAST(CastU16ToF16, uint16_t, false)
TENSORCAST_INT_HALF_CAST(CastI32ToF16, int32_t, false)
TENSORCAST_INT_HALF_CAST(CastU32ToF16, uint32_t, false)
TENSORCAST_INT_HALF_CAST(CastI64ToF16, int64_t, false)
TENSORCAST_INT_HALF_CAST(CastU64ToF16, uint64_t, false)
TENSORCAST_INT_HALF_CAST(CastI8ToBF16, int8_t, true)
TENSORCAST_INT_HALF_CAST(CastU8ToBF16, uint8_t, true)
TENSORCAST_INT_HALF_CAST(CastI16ToBF16, int16_t, true)
TENSORCAST_INT_HALF_CAST(CastU16ToBF16, uint16_t, true)
TENSORCAST_INT_HALF_CAST(CastI32ToBF16, int32_t, true)
TENSORCAST_INT_HALF_CAST(CastU32ToBF16, uint32_t, true)
TENSORCAST_INT_HALF_CAST(CastI64ToBF16, int64_t, true)
TENSORCAST_INT_HALF_CAST(CastU64ToBF16, uint64_t, true)
#undef TENSORCAST_INT_HALF_CAST
TENSORCAST_INT_FLOAT_CAST(CastF64ToI8, CastFloatToInt, double, int8_t)
TENSORCAST_INT_FLOAT_CAST(CastF64ToU8, CastFloatToInt, double, uint8_t)
TENSORCAST_INT_FLOAT_CAST(CastF64ToI16, CastFloatToInt, double, int16_t)
TENSORCAST_INT_FLOAT_CAST(CastF64ToU16, CastFloatToInt, double, uint16_t)
TENSORCAST_INT_FLOAT_CAST(CastF64ToI32, CastFloatToInt, double, int32_t)
TENSORCAST_INT_FLOAT_CAST(CastF64ToU32, CastFloatToInt, double, uint32_t)
TENSORCAST_INT_FLOAT_CAST(CastF64ToI64, CastFloatToInt, double, int64_t)
TENSORCAST_INT_FLOAT_CAST(CastF64ToU64, CastFloatToInt, double, uint64_t)
#undef TENSORCAST_INT_FLOAT_CAST

void Int32ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  IntToF32RoundToOdd<int32_t>(src, dst, count);
}
void Uint32ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  IntToF32RoundToOdd<uint32_t>(src, dst, count);
}
void Int64ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  IntToF32RoundToOdd<int64_t>(src, dst, count);
}
void Uint64ToF32RoundToOdd(const void* src, void* dst, size_t count) {
  IntToF32RoundToOdd<uint64_t>(src, dst, count);
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_INT_FLOAT_CAST_INL_H_
