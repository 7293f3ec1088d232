// Kernels between FLOAT, DOUBLE, FLOAT16 and BFLOAT16.
//
// Pairs:    f32 -> f16, f16 -> f32, f32 -> bf16, bf16 -> f32, f32 -> f64, f64 -> f32,
//           f16 -> f64, bf16 -> f16, f16 -> bf16, f64 -> f16 / bf16 (one rounding: through
//           the float32 value rounded to odd, f32_helpers-inl.h).
// Rounding: round-to-nearest-even with gradual underflow; overflow -> +-Inf.
// NaN:      f32 -> f16 keeps the sign and the top 10 payload bits and sets the quiet bit;
//           -> bf16 gives 0x7FC0 / 0xFFC0; f16 -> f32 and bf16 -> f32 are exact bit
//           shifts (a signalling NaN stays signalling); f32 <-> f64 as the hardware
//           (quiet bit set, top payload bits kept).
// Targets:  F16C (AVX2/AVX3), NEON and SVE convert f16 natively and exactly; SSSE3, SSE4
//           and the scalar fallback use the integer formulation below, because Highway
//           1.0.3 emulates f16 there inexactly (docs/highway-notes.md). Highway's f32 -> bf16
//           DemoteTo truncates, so bf16 is always done on integer lanes. The scalar
//           fallback's f64 -> f32 DemoteTo clamps Inf to FLT_MAX; it is fixed up.
// Tail:     CastLoop's one-vector stack buffer.

#if defined(TENSORCAST_LIB_KERNELS_FLOAT_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_FLOAT_CAST_INL_H_
#undef TENSORCAST_LIB_KERNELS_FLOAT_CAST_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_FLOAT_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "lib/kernels/cast_loop-inl.h"
#include "lib/kernels/f32_helpers-inl.h"
#include "tensorcast/cast_options.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f16 bits (u32 lanes) -> f32 bits, exact; NaNs keep every bit (shifted).
//   normal: shift into place and rebias; Inf/NaN: exponent all ones; subnormal: the
//   integer m * 2^-24, computed by an exact float subtraction.
template <class DU32>
HWY_INLINE hn::Vec<DU32> F16BitsToF32Bits(DU32 du32, hn::Vec<DU32> h) {
  const hn::Rebind<float, DU32> df;
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(du32, 0x8000)));
  const auto shifted = hn::ShiftLeft<13>(hn::And(h, hn::Set(du32, 0x7FFF)));
  const auto exp = hn::And(shifted, hn::Set(du32, 0x0F800000));
  const auto normal = hn::Add(shifted, hn::Set(du32, 112u << 23));
  const auto special = hn::Add(shifted, hn::Set(du32, 224u << 23));  // 0x70000000
  const auto magic = hn::Set(du32, 113u << 23);                      // 2^-14
  const auto sub =
      hn::BitCast(du32, hn::Sub(hn::BitCast(df, hn::Add(shifted, magic)), hn::BitCast(df, magic)));
  auto r = hn::IfThenElse(hn::Eq(exp, hn::Set(du32, 0x0F800000)), special, normal);
  r = hn::IfThenElse(hn::Eq(exp, hn::Zero(du32)), sub, r);
  return hn::Or(r, sign);
}

// Tags: u32 lanes for the f32 side, the same lane count of u16 for the 16-bit side.
using DU32 = hn::ScalableTag<uint32_t>;

void CastF32ToF16(const void* src, void* dst, size_t count, const CastOptions&) {
  const DU32 du32;
  const hn::Rebind<uint16_t, DU32> du16;
  CastLoop(du32, du16, static_cast<const uint32_t*>(src), static_cast<uint16_t*>(dst), count,
           [&](hn::Vec<DU32> v) HWY_ATTR { return F32BitsToF16Lanes(du32, v); });
}

void CastF16ToF32(const void* src, void* dst, size_t count, const CastOptions&) {
  const DU32 du32;
  const hn::Rebind<uint16_t, DU32> du16;
  CastLoop(du16, du32, static_cast<const uint16_t*>(src), static_cast<uint32_t*>(dst), count,
           [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
#if TENSORCAST_NATIVE_F16
             // The hardware conversion is exact but sets the quiet bit of signalling
             // NaNs (f32 bit 22); the exact bit shift keeps the f16 quiet bit (bit 9,
             // shifted to 22). NaN lanes get bit 22 from the source: flip it where the
             // source's is clear (one masked XOR; other lanes are exact already).
             const hn::Rebind<float, DU32> df;
             const hn::Rebind<hwy::float16_t, DU32> dh;
             // Branch-free: a "skip vectors without NaN" branch is mispredicted on random
             // bits (40% of 16-lane vectors hold a NaN) and measured 2x slower.
             const auto fv = hn::PromoteTo(df, hn::BitCast(dh, h));
             const auto f = hn::BitCast(du32, fv);
             const auto quiet_clear =
                 hn::AndNot(hn::ShiftLeft<13>(hn::PromoteTo(du32, h)), hn::Set(du32, 1u << 22));
             return hn::Xor(f,
                            hn::IfThenElseZero(hn::RebindMask(du32, hn::IsNaN(fv)), quiet_clear));
#else
             return F16BitsToF32Bits(du32, hn::PromoteTo(du32, h));
#endif
           });
}

#if HWY_TARGET == HWY_AVX3_DL
// AVX512_BF16 (not every AVX3_DL CPU has it, so it is checked at run time):
// VCVTNE2PS2BF16 converts 32 floats at once, RNE exactly like F32BitsToBF16InUpperHalf for
// zero, normal and infinite inputs (overflow to Inf included); but it keeps NaN payloads
// and treats subnormal inputs as zero, so a group of 32 holding a NaN or a subnormal (one
// VFPCLASSPS per 16) takes the integer path. Real data has neither; random bit patterns
// send ~22% of the groups to the integer path. Returns the elements done.
template <bool kStream>
__attribute__((target(HWY_TARGET_STR ",avx512bf16"))) HWY_NOINLINE size_t
F32ToBF16WithAvx512Bf16(const uint32_t* HWY_RESTRICT in, uint16_t* HWY_RESTRICT out, size_t count) {
  const DU32 du32;
  const hn::Repartition<uint16_t, DU32> du16;
  constexpr int kNanOrSubnormal = 0x01 | 0x20 | 0x80;  // QNaN | denormal | SNaN
  size_t i = 0;
  for (; i + 32 <= count; i += 32) {
    const __m512 lo = _mm512_loadu_ps(in + i);
    const __m512 hi = _mm512_loadu_ps(in + i + 16);
    const unsigned special =
        _mm512_fpclass_ps_mask(lo, kNanOrSubnormal) | _mm512_fpclass_ps_mask(hi, kNanOrSubnormal);
    hn::Vec<decltype(du16)> packed;
    if (HWY_LIKELY(special == 0)) {
      packed = hn::Vec<decltype(du16)>{reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(hi, lo))};
    } else {
      const auto l = F32BitsToBF16InUpperHalf(du32, hn::Vec<DU32>{_mm512_castps_si512(lo)});
      const auto h = F32BitsToBF16InUpperHalf(du32, hn::Vec<DU32>{_mm512_castps_si512(hi)});
      packed = hn::ConcatOdd(du16, hn::BitCast(du16, h), hn::BitCast(du16, l));
    }
    if constexpr (kStream) {
      hn::Stream(packed, du16, out + i);  // `out + i` is 64-byte aligned
    } else {
      hn::StoreU(packed, du16, out + i);
    }
  }
  return i;
}
#endif

void CastF32ToBF16(const void* src, void* dst, size_t count, const CastOptions&) {
  const DU32 du32;
  const hn::Rebind<uint16_t, DU32> du16;
  const auto* in = static_cast<const uint32_t*>(src);
  auto* out = static_cast<uint16_t*>(dst);
  const auto rest = [&](size_t from, size_t to) HWY_ATTR {
    CastLoop(du32, du16, in + from, out + from, to - from,
             [&](hn::Vec<DU32> v) HWY_ATTR { return F32BitsToBF16Lanes(du32, v); });
  };
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Repartition<uint16_t, DU32> du16_full;
  const size_t N = hn::Lanes(du32);
  // Whole vectors are stored from the first vector-aligned output element on (the head
  // goes through CastLoop), as CastLoop does; large outputs with non-temporal stores.
  const size_t head = detail::ElementsToAlignment(out, 2 * N * sizeof(uint16_t));
  if (head + 2 * N <= count) {
    rest(0, head);
    i = head;
  }
  // Non-temporal stores need the aligned start.
  const bool stream = head + 2 * N <= count &&
                      count * sizeof(uint16_t) >= tuning::StreamBytes(kCastLoopStreamBytes) &&
                      reinterpret_cast<uintptr_t>(out) % sizeof(uint16_t) == 0;
#if HWY_TARGET == HWY_AVX3_DL
  static const bool has_avx512_bf16 = __builtin_cpu_supports("avx512bf16");
  if (has_avx512_bf16) {
    i += stream ? F32ToBF16WithAvx512Bf16<true>(in + i, out + i, count - i)
                : F32ToBF16WithAvx512Bf16<false>(in + i, out + i, count - i);
  }
#endif
  // Main loop: two f32 vectors -> one full bf16 vector (the odd u16 lanes).
  const auto pair = [&](size_t k) TENSORCAST_LAMBDA_INLINE {
    const auto lo = F32BitsToBF16InUpperHalf(du32, hn::LoadU(du32, in + k));
    const auto hi = F32BitsToBF16InUpperHalf(du32, hn::LoadU(du32, in + k + N));
    return hn::ConcatOdd(du16_full, hn::BitCast(du16_full, hi), hn::BitCast(du16_full, lo));
  };
  if (stream) {
    const SourcePrefetch<sizeof(uint32_t)> prefetch(in);
    for (; i + 2 * N <= count; i += 2 * N) {
      prefetch.Lines(i, 2 * N);
      hn::Stream(pair(i), du16_full, out + i);
    }
    hwy::FlushStream();
  } else {
    for (; i + 2 * N <= count; i += 2 * N) hn::StoreU(pair(i), du16_full, out + i);
  }
#endif
  rest(i, count);
}

void CastBF16ToF32(const void* src, void* dst, size_t count, const CastOptions&) {
  const DU32 du32;
  const hn::Rebind<uint16_t, DU32> du16;
  CastLoop(du16, du32, static_cast<const uint16_t*>(src), static_cast<uint32_t*>(dst), count,
           [&](hn::Vec<decltype(du16)> h)
               HWY_ATTR { return hn::ShiftLeft<16>(hn::PromoteTo(du32, h)); });
}

void CastF32ToF64(const void* src, void* dst, size_t count, const CastOptions&) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  CastLoop(df, dd, static_cast<const float*>(src), static_cast<double*>(dst), count,
           [&](hn::Vec<decltype(df)> v) HWY_ATTR { return hn::PromoteTo(dd, v); });
}

void CastF64ToF32(const void* src, void* dst, size_t count, const CastOptions&) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  // No software prefetch: one conversion per vector, which runs at the traffic limit on
  // the hardware prefetcher alone and measured slower with a prefetch
  // (bench/results/memory_speed_zen3.md).
  CastLoop</*kPrefetch=*/false>(
      dd, df, static_cast<const double*>(src), static_cast<float*>(dst), count,
      [&](hn::Vec<decltype(dd)> v) HWY_ATTR { return DemoteF64ToF32(dd, df, v); });
}

// Hub decoder (not a registry row): f64 -> f32 rounded to odd. The RNE result is moved
// one step toward zero when it rounded away, and an inexact result gets its lowest
// mantissa bit set. |x| >= 2^128 and Inf give Inf; NaN as the RNE conversion.
void F64ToF32RoundToOddImpl(const void* src, void* dst, size_t count) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<uint32_t, decltype(dd)> du32;
  CastLoop(dd, du32, static_cast<const double*>(src), static_cast<uint32_t*>(dst), count,
           [&](hn::Vec<decltype(dd)> v) HWY_ATTR {
             return F64VecToF32BitsRoundToOdd(du32, dd, v);  // f32_helpers-inl.h
           });
}

// f16 -> f64, exact: NaNs keep every bit (a signalling NaN stays signalling, as numpy).
void CastF16ToF64(const void* src, void* dst, size_t count, const CastOptions&) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<uint64_t, decltype(dd)> du64;
  const hn::Rebind<uint32_t, decltype(dd)> du32;
  const hn::Rebind<uint16_t, decltype(dd)> du16;
  const hn::Rebind<float, decltype(dd)> df;
  CastLoop(du16, dd, static_cast<const uint16_t*>(src), static_cast<double*>(dst), count,
           [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
#if TENSORCAST_NATIVE_F16
             // Hardware f16 -> f32 -> f64: exact, payload kept, but a signalling NaN comes
             // out quiet (f64 bit 51 set); flip bit 51 back where the f16 quiet bit (9)
             // is clear (as CastF16ToF32).
             const hn::Rebind<hwy::float16_t, decltype(dd)> dh;
             const auto wide = hn::PromoteTo(dd, hn::PromoteTo(df, hn::BitCast(dh, h)));
             const auto quiet_clear =
                 hn::AndNot(hn::ShiftLeft<42>(hn::PromoteTo(du64, hn::PromoteTo(du32, h))),
                            hn::Set(du64, 1ull << 51));
             return hn::BitCast(
                 dd,
                 hn::Xor(hn::BitCast(du64, wide),
                         hn::IfThenElseZero(hn::RebindMask(du64, hn::IsNaN(wide)), quiet_clear)));
#else
             const auto h32 = hn::PromoteTo(du32, h);
             const auto wide = hn::PromoteTo(dd, hn::BitCast(df, F16BitsToF32Bits(du32, h32)));
             const auto h64 = hn::PromoteTo(du64, h32);
             const auto nan_bits = hn::Or(
                 hn::Or(hn::ShiftLeft<48>(hn::And(h64, hn::Set(du64, 0x8000))),
                        hn::Set(du64, 0x7FF0000000000000ull)),
                 hn::ShiftLeft<42>(hn::And(h64, hn::Set(du64, 0x3FF))));
             return hn::IfThenElse(hn::IsNaN(wide), hn::BitCast(dd, nan_bits), wide);
#endif
           });
}

// bf16 -> f16: RNE through the exact f32 value; NaN -> 0x7E00 | sign (ml_dtypes). Native
// f16 targets: NaN lanes become the f32 quiet NaN of their sign first (which converts to
// 0x7E00 | sign), then the hardware conversion (RNE, exact for every other f32 value).
void CastBF16ToF16(const void* src, void* dst, size_t count, const CastOptions&) {
  const DU32 du32;
  const hn::Rebind<uint16_t, DU32> du16;
  CastLoop(du16, du16, static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), count,
           [&](hn::Vec<decltype(du16)> b) HWY_ATTR {
             const auto bits = hn::ShiftLeft<16>(hn::PromoteTo(du32, b));
             const auto is_nan =
                 hn::Gt(hn::And(bits, hn::Set(du32, 0x7FFFFFFF)), hn::Set(du32, 0x7F800000));
#if TENSORCAST_NATIVE_F16
             const hn::Rebind<float, DU32> df;
             const hn::Rebind<hwy::float16_t, DU32> dh;
             const auto quiet =
                 hn::Or(hn::And(bits, hn::Set(du32, 0x80000000u)), hn::Set(du32, 0x7FC00000u));
             const auto in = hn::BitCast(df, hn::IfThenElse(is_nan, quiet, bits));
             return hn::BitCast(du16, hn::DemoteTo(dh, in));
#else
             const auto h = F32BitsToF16Bits(du32, bits);
             const auto nan = hn::Or(hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 0x8000)),
                                     hn::Set(du32, 0x7E00));
             return hn::TruncateTo(du16, hn::IfThenElse(is_nan, nan, h));
#endif
           });
}

// Fused pairs, in one loop instead of the blocked two-step path: the exact (FLOAT16) or
// round-to-odd (DOUBLE, f32_helpers-inl.h) float32 value, then the FLOAT -> FLOAT16 /
// BFLOAT16 rounding of CastF32ToF16 / CastF32ToBF16 (one rounding of the source value;
// bit-identical to the two steps, and faster).
void CastF16ToBF16(const void* src, void* dst, size_t count, const CastOptions&) {
  const DU32 du32;
  const hn::Rebind<uint16_t, DU32> du16;
  CastLoop(du16, du16, static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), count,
           [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
#if TENSORCAST_NATIVE_F16
             // Exact but quiets signalling NaNs: the bf16 rounding maps every NaN to
             // 0x7FC0 | sign anyway.
             const hn::Rebind<float, DU32> df;
             const hn::Rebind<hwy::float16_t, DU32> dh;
             const auto bits = hn::BitCast(du32, hn::PromoteTo(df, hn::BitCast(dh, h)));
#else
             const auto bits = F16BitsToF32Bits(du32, hn::PromoteTo(du32, h));
#endif
             return F32BitsToBF16Lanes(du32, bits);
           });
}

template <bool kBf16>
HWY_INLINE void CastF64ToHalf(const void* src, void* dst, size_t count) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<uint32_t, decltype(dd)> du32;
  const hn::Rebind<uint16_t, decltype(dd)> du16;
  CastLoop(dd, du16, static_cast<const double*>(src), static_cast<uint16_t*>(dst), count,
           [&](hn::Vec<decltype(dd)> v) HWY_ATTR {
             const auto bits = F64VecToF32BitsRoundToOdd(du32, dd, v);
             if constexpr (kBf16) {
               return F32BitsToBF16Lanes(du32, bits);
             } else {
               return F32BitsToF16Lanes(du32, bits);
             }
           });
}

void CastF64ToF16(const void* src, void* dst, size_t count, const CastOptions&) {
  CastF64ToHalf<false>(src, dst, count);
}
void CastF64ToBF16(const void* src, void* dst, size_t count, const CastOptions&) {
  CastF64ToHalf<true>(src, dst, count);
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_FLOAT_CAST_INL_H_
