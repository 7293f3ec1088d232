// Kernels between the packed sub-byte types (INT4, UINT4, INT2, UINT2, FLOAT4E2M1) and
// FLOAT, FLOAT16, INT8, UINT8.
//
// Pairs:    FLOAT, FLOAT16, BFLOAT16 -> INT4, UINT4, INT2, UINT2, FLOAT4E2M1;
//           INT16, UINT16, INT32, UINT32, INT64, UINT64 -> FLOAT4E2M1 (clamped to [-6, 6],
//           then a 16-entry table), DOUBLE -> FLOAT4E2M1 (the float32 value rounded to odd,
//           f32_helpers-inl.h, then the FLOAT encoder);
//           DOUBLE -> INT4, UINT4, INT2, UINT2;
//           INT4, UINT4, INT2, UINT2, FLOAT4E2M1 -> FLOAT, FLOAT16;
//           INT8, UINT8 -> INT4, UINT4, INT2, UINT2 and back.
// Rounding: float -> 4/2-bit integer truncates toward zero, then keeps the low bits (wrap;
//           the same bits for the signed and the unsigned type). float -> FLOAT4E2M1 rounds
//           to nearest even and always saturates to +-6: min(|x|, 6) plus a power of two
//           whose ulp is the E2M1 step of its binade rounds it in one f32 addition
//           (F4CodeFromF32); FLOAT16 sources round on their bits in u16 lanes
//           (F4CodeFromF16). Integer -> integer keeps the low bits. Decoding is
//           exact: sign extension (INT4, INT2), zero extension (UINT4, UINT2), FLOAT4E2M1
//           and small integers through 16-entry byte tables of the target's bits.
// Range:    float -> 4/2-bit integer gives 0 for NaN, +-Inf and |x| >= 2^31 (x = -2^31 is in
//           range and gives 0 too); DOUBLE: 0 outside [-2^31, 2^31 - 1], checked before the
//           truncation (IntCodeFromF64).
// NaN:      -> FLOAT4E2M1: 0x8 when the NaN's sign bit is 0, 0x0 when it is 1; -0.0 and
//           tiny negatives give 0x8. FLOAT4E2M1 0x8 decodes to -0.0.
// Packing:  pack-inl.h (ConcatEven/ConcatOdd, shifts and ORs of whole vectors).
// Targets:  BFLOAT16 sources are widened to f32 bits by a shift (exact everywhere),
//           FLOAT16 sources are widened to f32 bits first: natively where that is exact
//           (F16C, NEON, SVE), by an integer formulation on SSSE3, SSE4 and SCALAR. Float ->
//           int truncation: on x86 the bare cvttps2dq (TruncRaw) gives 0x80000000, whose low
//           bits are 0, for NaN and out-of-range x; elsewhere Highway's ConvertTo saturates
//           (ARM, SCALAR; its x86 version turns +NaN and large x into INT_MAX), so out-of-range
//           lanes are zeroed by an explicit range mask. SCALAR packs 1-lane vectors.
// Tail:     SubbyteLoop's zero-filled chunk buffers (pack-inl.h). Decoders with an output
//           of tuning::StreamBytes(kSubbyteStreamBytes) or more use non-temporal stores
//           (DecodeLoop).

#if defined(TENSORCAST_LIB_KERNELS_SUBBYTE_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_SUBBYTE_CAST_INL_H_
#undef TENSORCAST_LIB_KERNELS_SUBBYTE_CAST_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_SUBBYTE_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "lib/kernels/f32_helpers-inl.h"
#include "lib/kernels/f4_codec-inl.h"
#include "lib/kernels/pack-inl.h"
#include "lib/kernels/truncate-inl.h"
#include "tensorcast/cast_options.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace subbyte {

using DU32 = hn::ScalableTag<uint32_t>;
using DI32 = hn::RebindToSigned<DU32>;
using DF32 = hn::Rebind<float, DU32>;
using DU16 = hn::ScalableTag<uint16_t>;

// ------------------------------------------------------------------ encoders (u32 lanes)

#undef TENSORCAST_SUBBYTE_X86_CVTT
#if TENSORCAST_X86_SIMD
#define TENSORCAST_SUBBYTE_X86_CVTT 1
// The bare cvttps2dq: trunc(x) for |x| < 2^31, 0x80000000 ("integer indefinite") for
// NaN and out-of-range x. Highway's ConvertTo adds a fix-up that turns the latter into
// INT_MAX for positive x, which is not wanted here.
template <size_t N>
HWY_INLINE hn::Vec128<int32_t, N> TruncRaw(hn::Vec128<float, N> v) {
  return hn::Vec128<int32_t, N>{_mm_cvttps_epi32(v.raw)};
}
#if HWY_TARGET <= HWY_AVX2
HWY_INLINE hn::Vec256<int32_t> TruncRaw(hn::Vec256<float> v) {
  return hn::Vec256<int32_t>{_mm256_cvttps_epi32(v.raw)};
}
#endif
#if HWY_TARGET <= HWY_AVX3
HWY_INLINE hn::Vec512<int32_t> TruncRaw(hn::Vec512<float> v) {
  return hn::Vec512<int32_t>{_mm512_cvttps_epi32(v.raw)};
}
#endif
#else
#define TENSORCAST_SUBBYTE_X86_CVTT 0
#endif

// f32 bits -> the low bits (`mask`) of trunc(x); 0 for NaN, +-Inf, |x| >= 2^31.
HWY_INLINE hn::Vec<DU32> IntCodeFromF32(hn::Vec<DU32> bits, uint32_t mask) {
  const DU32 du32;
  const DF32 df;
#if TENSORCAST_SUBBYTE_X86_CVTT
  // NaN and out-of-range lanes are 0x80000000, whose low bits are 0.
  return hn::And(hn::BitCast(du32, TruncRaw(hn::BitCast(df, bits))), hn::Set(du32, mask));
#else
  // ConvertTo saturates (and gives 0 or INT_MIN/INT_MAX for NaN): mask by range.
  const DI32 di32;
  const auto t = hn::BitCast(du32, hn::ConvertTo(di32, hn::BitCast(df, bits)));
  const auto abs = hn::BitCast(di32, hn::And(bits, hn::Set(du32, 0x7FFFFFFFu)));
  const auto in_range = hn::RebindMask(du32, hn::Lt(abs, hn::Set(di32, 0x4F000000)));  // 2^31
  return hn::IfThenElseZero(in_range, hn::And(t, hn::Set(du32, mask)));
#endif
}

// Lanes(DU32) DOUBLE values at `in` -> the low bits (`mask`) of trunc(x) in u32 lanes; 0 for
// NaN, +-Inf and x outside [-2^31, 2^31 - 1] (checked before truncation, as ml_dtypes and
// the reference: 2^31 - 0.5 gives 0). Out-of-range lanes are zeroed before DemoteTo, which
// then only sees values it converts exactly (x in (-2^31 - 1, -2^31) gives -2^31, whose low
// bits are 0 as required).
HWY_INLINE hn::Vec<DU32> IntCodeFromF64(const double* HWY_RESTRICT in, uint32_t mask) {
  const DU32 du32;
#if HWY_TARGET == HWY_SCALAR
  // Highway 1.0.3's scalar DemoteTo f64 -> i32 saturates when |x| > INT32_MAX before it
  // truncates (-2147483647.5 -> INT32_MIN): convert the in-range value directly.
  const double v = hn::GetLane(hn::LoadU(hn::Sisd<double>(), in));
  const bool in_range = v > -2147483649.0 && v <= 2147483647.0;
  const uint32_t t = in_range ? static_cast<uint32_t>(static_cast<int32_t>(v)) : 0u;
  return hn::Set(du32, t & mask);
#else
  const hn::Repartition<double, DU32> df64;
  const hn::Rebind<int32_t, decltype(df64)> di32h;  // half of DI32: one i32 lane per double
  const auto code_half = [&](const double* p) TENSORCAST_LAMBDA_INLINE {
    const auto v = hn::LoadU(df64, p);
    const auto in_range =
        hn::And(hn::Gt(v, hn::Set(df64, -2147483649.0)), hn::Le(v, hn::Set(df64, 2147483647.0)));
    return hn::DemoteTo(di32h, hn::IfThenElseZero(in_range, v));
  };
  const auto lo = code_half(in);  // loads in address order
  const auto hi = code_half(in + hn::Lanes(df64));
  return hn::And(hn::BitCast(du32, hn::Combine(DI32(), hi, lo)), hn::Set(du32, mask));
#endif
}

// FLOAT16 bits (u16 lanes) -> FLOAT4E2M1 codes, twice the lanes per operation of the f32
// path. All of E2M1's rounding thresholds are multiples of 0x100 in f16 bits:
//   |x| >= 1: rebias (f16 bias 15 -> 1: code = (e - 14) << 1 | m), round at bit 9 to
//             nearest even, clamp to 7 (6.0); Inf gives more than 7 before the clamp;
//   |x| <  1: 0 up to 0.25 (0x3400), 1 below 0.75 (0x3A00), else 2.
template <class DU16>
HWY_INLINE hn::Vec<DU16> F4CodeFromF16(DU16 du16, hn::Vec<DU16> h) {
  const hn::RebindToSigned<DU16> di16;
  const auto a = hn::And(h, hn::Set(du16, 0x7FFF));
  const auto ai = hn::BitCast(di16, a);
  const auto sign8 = hn::And(hn::ShiftRight<12>(h), hn::Set(du16, 8));
  const auto n = hn::Sub(a, hn::Set(du16, 0x3800));
  const auto lsb = hn::And(hn::ShiftRight<9>(n), hn::Set(du16, 1));
  const auto big =
      hn::Min(hn::ShiftRight<9>(hn::Add(n, hn::Add(lsb, hn::Set(du16, 0xFF)))), hn::Set(du16, 7));
  const auto small =
      hn::IfThenElse(hn::RebindMask(du16, hn::Gt(ai, hn::Set(di16, 0x39FF))), hn::Set(du16, 2),
                     hn::IfThenElseZero(hn::RebindMask(du16, hn::Gt(ai, hn::Set(di16, 0x3400))),
                                        hn::Set(du16, 1)));
  const auto is_small = hn::RebindMask(du16, hn::Lt(ai, hn::Set(di16, 0x3C00)));
  const auto is_nan = hn::RebindMask(du16, hn::Gt(ai, hn::Set(di16, 0x7C00)));
  return hn::IfThenElse(is_nan, hn::Xor(sign8, hn::Set(du16, 8)),
                        hn::Or(hn::IfThenElse(is_small, small, big), sign8));
}

// ------------------------------------------------------------------ encode kernels

// FLOAT (kSrcBits 32), FLOAT16 (16) or BFLOAT16 (16 with kBf16) -> kBits-wide codes
// computed by enc(f32 bits); DOUBLE (64) -> 4/2-bit integer codes by IntCodeFromF64 (enc
// is not called). kPrefetch: see SubbyteLoop (FLOAT4E2M1 and the 2-bit targets, measured).
template <int kSrcBits, int kBits, bool kPrefetch, bool kBf16 = false, class Enc>
HWY_INLINE void EncodeFloat(const void* src, void* dst, size_t count, const Enc& enc) {
  const DU32 du32;
  const size_t n = hn::Lanes(du32);
  // DecodeLoop: large outputs are streamed (regular stores would read every output line
  // first; bench/results/tuning.md, "Non-temporal stores").
  DecodeLoop<kSrcBits, kBits, kPrefetch>(
      src, dst, count, PackedChunk<kBits>(),
      [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
        const auto code = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
          if constexpr (kSrcBits == 64) {
            (void)enc;
            return IntCodeFromF64(reinterpret_cast<const double*>(in) + j * n, (1u << kBits) - 1);
          } else if constexpr (kSrcBits == 32) {
            return enc(hn::LoadU(du32, reinterpret_cast<const uint32_t*>(in) + j * n));
          } else if constexpr (kBf16) {
            return enc(F32BitsFromBF16(reinterpret_cast<const uint16_t*>(in) + j * n));
          } else {
            return enc(F32BitsFromF16(reinterpret_cast<const uint16_t*>(in) + j * n));
          }
        };
        StoreOut<decltype(stream)::value>(PackCodes32<kBits>(du32, code), DU8(), out);
      });
}

// Lanes(DU32) DOUBLE values at `in` -> their float32 bits rounded to odd
// (f32_helpers-inl.h), so that one later rounding is the correct one.
HWY_INLINE hn::Vec<DU32> F32BitsFromF64RoundToOdd(const double* HWY_RESTRICT in) {
  const auto half = [&](const double* p) TENSORCAST_LAMBDA_INLINE {
#if HWY_TARGET == HWY_SCALAR
    const hn::Sisd<double> dd;
    const DU32 dh;
#else
    const hn::Repartition<double, DU32> dd;  // half as many 64-bit lanes
    const hn::Rebind<uint32_t, decltype(dd)> dh;
#endif
    return F64VecToF32BitsRoundToOdd(dh, dd, hn::LoadU(dd, p));
  };
#if HWY_TARGET == HWY_SCALAR
  return half(in);
#else
  const DU32 du32;
  const auto lo = half(in);  // loads in address order
  const auto hi = half(in + hn::Lanes(du32) / 2);
  return hn::Combine(du32, hi, lo);
#endif
}

// FLOAT4E2M1 magnitude codes of the integers 0..6 (RNE: 5, halfway between 4 and 6,
// goes to 4, whose mantissa bit is even); every integer beyond 6 saturates to 6.
alignas(16) constexpr uint8_t kIntF4Mag[16] = {0, 2, 4, 5, 6, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0};

// Lanes(DU32) integers of TS at `in` clamped to [-6, 6] (unsigned: [0, 6]), in i32 lanes.
template <typename TS>
HWY_INLINE hn::Vec<DI32> ClampedIntsForF4(const TS* HWY_RESTRICT in) {
  const auto clamp = [](auto d, auto v) TENSORCAST_LAMBDA_INLINE {
    using T = hn::TFromD<decltype(d)>;
    const auto hi = hn::Min(v, hn::Set(d, T{6}));
    if constexpr (hwy::IsSigned<T>()) {
      return hn::Max(hi, hn::Set(d, T{-6}));
    } else {
      return hi;
    }
  };
  if constexpr (sizeof(TS) <= 4) {
    const hn::Rebind<TS, DU32> ds;
    const auto c = clamp(ds, hn::LoadU(ds, in));
    if constexpr (sizeof(TS) == 4) {
      return hn::BitCast(DI32(), c);
    } else {
      return hn::PromoteTo(DI32(), c);
    }
  } else {
    // 64-bit lanes, clamped, keep their low 32 bits (the clamped value, exactly).
    const auto half = [&](const TS* p) TENSORCAST_LAMBDA_INLINE {
#if HWY_TARGET == HWY_SCALAR
      const hn::Sisd<TS> ds;
#else
      const hn::Repartition<TS, DU32> ds;  // half as many 64-bit lanes
#endif
      const hn::RebindToUnsigned<decltype(ds)> du64;
      return TruncateToBytes<4>(du64, hn::BitCast(du64, clamp(ds, hn::LoadU(ds, p))));
    };
#if HWY_TARGET == HWY_SCALAR
    return hn::BitCast(DI32(), half(in));
#else
    const auto lo = half(in);              // loads in address order
    const auto hi = half(in + hn::Lanes(DU32()) / 2);
    return hn::BitCast(DI32(), hn::Combine(DU32(), hi, lo));
#endif
  }
}

// Integers clamped to [-6, 6] (i32 lanes) -> FLOAT4E2M1 codes: the magnitude's code from
// a 16-entry byte table, bit 3 for negative values.
HWY_INLINE hn::Vec<DU32> F4CodeFromClampedInt(hn::Vec<DI32> c) {
  const DU32 du32;
  const auto a = hn::BitCast(du32, hn::Abs(c));
#if HWY_TARGET == HWY_SCALAR
  const auto mag = hn::Set(du32, kIntF4Mag[hn::GetLane(a)]);
#else
  // Bytes 1..3 of each lane index entry 0, which is 0.
  const hn::Repartition<uint8_t, DU32> du8;
  const auto mag = hn::TableLookupBytes(hn::BitCast(du32, hn::LoadDup128(du8, kIntF4Mag)), a);
#endif
  return hn::OrAnd(mag, hn::ShiftRight<28>(hn::BitCast(du32, c)), hn::Set(du32, 8));
}

// TS -> FLOAT4E2M1 (one rounding), outputs from 4 MiB on streamed (a 64 MiB INT64 source
// has a 4 MiB output). Integers: clamped to [-6, 6] (FLOAT4E2M1 always saturates, and
// every integer's distance to the grid is decided by the clamped value), then a table;
// DOUBLE: F32BitsFromF64RoundToOdd and F4CodeFromF32.
template <typename TS>
HWY_INLINE void EncodeSourceToF4(const void* src, void* dst, size_t count) {
  const DU32 du32;
  const size_t n = hn::Lanes(du32);
  DecodeLoop<8 * sizeof(TS), 4, true, (size_t{4} << 20)>(
      src, dst, count, PackedChunk<4>(),
      [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
        const auto code = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
          const TS* p = reinterpret_cast<const TS*>(in) + j * n;
          if constexpr (std::is_same<TS, double>::value) {
            return F4CodeFromF32(F32BitsFromF64RoundToOdd(p));
          } else {
            return F4CodeFromClampedInt(ClampedIntsForF4(p));
          }
        };
        StoreOut<decltype(stream)::value>(PackCodes32<4>(du32, code), DU8(), out);
      });
}

template <int kSrcBits, int kBits, bool kBf16 = false>
HWY_INLINE void EncodeFloatToInt(const void* src, void* dst, size_t count) {
  constexpr uint32_t kMask = (1u << kBits) - 1;
  constexpr bool kPrefetch = kBits == 2;
  EncodeFloat<kSrcBits, kBits, kPrefetch, kBf16>(
      src, dst, count,
      [](hn::Vec<DU32> bits) TENSORCAST_LAMBDA_INLINE { return IntCodeFromF32(bits, kMask); });
}

// INT8 / UINT8 -> the low kBits bits. Large outputs are streamed (DecodeLoop), as the
// integer encoders from wider sources are: with regular stores each output line is first
// read, a third more traffic for 8 -> 4 bits.
template <int kBits>
HWY_INLINE void EncodeBytes(const void* src, void* dst, size_t count) {
  const DU8 du8;
  const size_t n8 = hn::Lanes(du8);
  DecodeLoop<8, kBits>(src, dst, count, PackedChunk<kBits>(),
                       [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
                         constexpr bool kStream = decltype(stream)::value;
                         // Loads in address order (see PackCodes32).
                         const auto v0 = hn::LoadU(du8, in);
                         const auto v1 = hn::LoadU(du8, in + n8);
                         if constexpr (kBits == 4) {
                           StoreOut<kStream>(PackNibbles8(v0, v1), du8, out);
                         } else {
                           const auto v2 = hn::LoadU(du8, in + 2 * n8);
                           const auto v3 = hn::LoadU(du8, in + 3 * n8);
                           StoreOut<kStream>(PackCrumbs8(v0, v1, v2, v3), du8, out);
                         }
                       });
}

// ------------------------------------------------------------------ decode kernels

// 4/2-bit integers -> INT8 / UINT8 bits (sign or zero extension).
template <int kBits, bool kSigned>
HWY_INLINE void DecodeToBytes(const void* src, void* dst, size_t count) {
  const DU8 du8;
  DecodeLoop<kBits, 8>(src, dst, count, PackedChunk<kBits>(),
                       [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
                         ForEachCodeVector<kBits>(
                             in, [&](hn::Vec<DU8> codes, size_t first) TENSORCAST_LAMBDA_INLINE {
                               const auto bytes = kSigned ? SignExtendCodes<kBits>(codes) : codes;
                               StoreOut<decltype(stream)::value>(bytes, du8, out + first);
                             });
                       });
}

// 4/2-bit integers -> FLOAT: int8 codes -> PromoteTo i32 -> ConvertTo (exact).
template <int kBits, bool kSigned>
HWY_INLINE void DecodeIntToF32(const void* src, void* dst, size_t count) {
  const DU8 du8;
  const DI32 di32;
  const DF32 df;
  const size_t n8 = hn::Lanes(du8);
  const size_t n32 = hn::Lanes(di32);
  DecodeLoop<kBits, 32>(
      src, dst, count, PackedChunk<kBits>(),
      [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
        float* out_f = reinterpret_cast<float*>(out);
        ForEachCodeVector<kBits>(
            in, [&](hn::Vec<DU8> codes, size_t first) TENSORCAST_LAMBDA_INLINE {
              HWY_ALIGN uint8_t buf[HWY_MAX_BYTES];
              hn::Store(kSigned ? SignExtendCodes<kBits>(codes) : codes, du8, buf);
              for (size_t q = 0; q < n8; q += n32) {
                const auto v = [&]() TENSORCAST_LAMBDA_INLINE {
                  if constexpr (kSigned) {
                    const hn::Rebind<int8_t, DI32> di8;
                    return hn::PromoteTo(di32,
                                         hn::LoadU(di8, reinterpret_cast<const int8_t*>(buf) + q));
                  } else {
                    const hn::Rebind<uint8_t, DI32> du8q;
                    return hn::PromoteTo(di32, hn::LoadU(du8q, buf + q));
                  }
                }();
                StoreOut<decltype(stream)::value>(hn::ConvertTo(df, v), df, out_f + first + q);
              }
            });
      });
}

// 4/2-bit codes -> 16-bit target bits low[code] | high[code] << 8.
template <int kBits>
HWY_INLINE void DecodeByTable16(const void* src, void* dst, size_t count,
                                const uint8_t* HWY_RESTRICT low, const uint8_t* HWY_RESTRICT high) {
  const DU8 du8;
  const DU16 du16;
  const hn::Rebind<uint8_t, DU16> du8h;
  const size_t n8 = hn::Lanes(du8);
  const size_t n16 = hn::Lanes(du16);
  DecodeLoop<kBits, 16>(src, dst, count, PackedChunk<kBits>(),
                        [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
                          uint16_t* out16 = reinterpret_cast<uint16_t*>(out);
                          ForEachCodeVector<kBits>(
                              in, [&](hn::Vec<DU8> codes, size_t first) TENSORCAST_LAMBDA_INLINE {
                                HWY_ALIGN uint8_t lo[HWY_MAX_BYTES];
                                HWY_ALIGN uint8_t hi[HWY_MAX_BYTES];
                                hn::Store(LookupCodes(low, codes), du8, lo);
                                hn::Store(LookupCodes(high, codes), du8, hi);
                                for (size_t q = 0; q < n8; q += n16) {
                                  const auto l = hn::PromoteTo(du16, hn::LoadU(du8h, lo + q));
                                  const auto h = hn::PromoteTo(du16, hn::LoadU(du8h, hi + q));
                                  StoreOut<decltype(stream)::value>(hn::Or(l, hn::ShiftLeft<8>(h)),
                                                                    du16, out16 + first + q);
                                }
                              });
                        });
}

// FLOAT4E2M1 -> FLOAT bits: all of them, and their bytes 3 and 2 (the others are 0).
constexpr uint32_t kF4F32Bits[16] = {
    0x00000000, 0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000, 0x40800000, 0x40C00000,
    0x80000000, 0xBF000000, 0xBF800000, 0xBFC00000, 0xC0000000, 0xC0400000, 0xC0800000, 0xC0C00000};
alignas(16) constexpr uint8_t kF4F32Byte3[16] = {0x00, 0x3F, 0x3F, 0x3F, 0x40, 0x40, 0x40, 0x40,
                                                 0x80, 0xBF, 0xBF, 0xBF, 0xC0, 0xC0, 0xC0, 0xC0};
alignas(16) constexpr uint8_t kF4F32Byte2[16] = {0x00, 0x00, 0x80, 0xC0, 0x00, 0x40, 0x80, 0xC0,
                                                 0x00, 0x00, 0x80, 0xC0, 0x00, 0x40, 0x80, 0xC0};

// FLOAT4E2M1 -> FLOAT. With >= 16 u32 lanes (AVX3, wide SVE) the 16 f32 bit patterns fit
// in one vector: one TableLookupLanes per vector. Otherwise every value's bits are
// byte3 << 24 | byte2 << 16 (two byte tables).
HWY_INLINE void DecodeF4ToF32(const void* src, void* dst, size_t count) {
  const DU8 du8;
  const DU32 du32;
  const hn::Rebind<uint8_t, DU32> du8q;
  const size_t n8 = hn::Lanes(du8);
  const size_t n32 = hn::Lanes(du32);
  if (n32 >= 16) {
    HWY_ALIGN uint32_t lanes[HWY_MAX_BYTES / 4 > 16 ? HWY_MAX_BYTES / 4 : 16] = {};
    for (size_t i = 0; i < 16; ++i) lanes[i] = kF4F32Bits[i];
    const auto table = hn::Load(du32, lanes);
    DecodeLoop<4, 32>(
        src, dst, count, PackedChunk<4>(),
        [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
          uint32_t* out32 = reinterpret_cast<uint32_t*>(out);
          ForEachCodeVector<4>(in, [&](hn::Vec<DU8> codes, size_t first) TENSORCAST_LAMBDA_INLINE {
            HWY_ALIGN uint8_t buf[HWY_MAX_BYTES];
            hn::Store(codes, du8, buf);
            for (size_t q = 0; q < n8; q += n32) {
              const auto idx = hn::PromoteTo(du32, hn::LoadU(du8q, buf + q));
              const auto bits = hn::TableLookupLanes(table, hn::IndicesFromVec(du32, idx));
              StoreOut<decltype(stream)::value>(bits, du32, out32 + first + q);
            }
          });
        });
    return;
  }
  DecodeLoop<4, 32>(
      src, dst, count, PackedChunk<4>(),
      [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
        uint32_t* out32 = reinterpret_cast<uint32_t*>(out);
        ForEachCodeVector<4>(in, [&](hn::Vec<DU8> codes, size_t first) TENSORCAST_LAMBDA_INLINE {
          HWY_ALIGN uint8_t b3[HWY_MAX_BYTES];
          HWY_ALIGN uint8_t b2[HWY_MAX_BYTES];
          hn::Store(LookupCodes(kF4F32Byte3, codes), du8, b3);
          hn::Store(LookupCodes(kF4F32Byte2, codes), du8, b2);
          for (size_t q = 0; q < n8; q += n32) {
            const auto hi = hn::ShiftLeft<24>(hn::PromoteTo(du32, hn::LoadU(du8q, b3 + q)));
            const auto lo = hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du8q, b2 + q)));
            StoreOut<decltype(stream)::value>(hn::Or(hi, lo), du32, out32 + first + q);
          }
        });
      });
}

// FLOAT16 bits of the value of each 4/2-bit code, split into low and high bytes.
struct alignas(16) F16Table {
  alignas(16) uint8_t low[16];
  alignas(16) uint8_t high[16];
};

constexpr uint16_t F16OfSmallInt(int v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  const int m = v < 0 ? -v : v;  // 1..15
  int e = 0;
  while ((m >> (e + 1)) != 0) ++e;
  return static_cast<uint16_t>(sign | ((e + 15) << 10) | ((m << (10 - e)) & 0x3FF));
}

template <int kBits, bool kSigned>
constexpr F16Table MakeIntF16Table() {
  F16Table t{};
  for (int c = 0; c < 16; ++c) {
    const int code = c & ((1 << kBits) - 1);  // codes >= 2^kBits are never looked up
    const int v = (kSigned && code >= (1 << (kBits - 1))) ? code - (1 << kBits) : code;
    const uint16_t h = F16OfSmallInt(v);
    t.low[c] = static_cast<uint8_t>(h & 0xFF);
    t.high[c] = static_cast<uint8_t>(h >> 8);
  }
  return t;
}

template <int kBits, bool kSigned>
HWY_INLINE void DecodeIntToF16(const void* src, void* dst, size_t count) {
  static constexpr F16Table kTable = MakeIntF16Table<kBits, kSigned>();
  DecodeByTable16<kBits>(src, dst, count, kTable.low, kTable.high);
}

HWY_INLINE void DecodeF4ToF16(const void* src, void* dst, size_t count) {
  alignas(16) static constexpr uint8_t kLow[16] = {0};
  alignas(16) static constexpr uint8_t kHigh[16] = {0x00, 0x38, 0x3C, 0x3E, 0x40, 0x42, 0x44, 0x46,
                                                    0x80, 0xB8, 0xBC, 0xBE, 0xC0, 0xC2, 0xC4, 0xC6};
  DecodeByTable16<4>(src, dst, count, kLow, kHigh);
}

}  // namespace subbyte

// ------------------------------------------------------------------ registry kernels

#define TENSORCAST_SUBBYTE_KERNEL(name, body) \
  void name(const void* src, void* dst, size_t count, const CastOptions&) { body; }

// FLOAT / FLOAT16 -> 4/2-bit integers (the same bits for signed and unsigned targets).
TENSORCAST_SUBBYTE_KERNEL(CastF32ToI4, (subbyte::EncodeFloatToInt<32, 4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF32ToU4, (subbyte::EncodeFloatToInt<32, 4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF32ToI2, (subbyte::EncodeFloatToInt<32, 2>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF32ToU2, (subbyte::EncodeFloatToInt<32, 2>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF16ToI4, (subbyte::EncodeFloatToInt<16, 4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF16ToU4, (subbyte::EncodeFloatToInt<16, 4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF16ToI2, (subbyte::EncodeFloatToInt<16, 2>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF16ToU2, (subbyte::EncodeFloatToInt<16, 2>(src, dst, count)))

// BFLOAT16 -> 4/2-bit integers.
TENSORCAST_SUBBYTE_KERNEL(CastBF16ToI4, (subbyte::EncodeFloatToInt<16, 4, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastBF16ToU4, (subbyte::EncodeFloatToInt<16, 4, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastBF16ToI2, (subbyte::EncodeFloatToInt<16, 2, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastBF16ToU2, (subbyte::EncodeFloatToInt<16, 2, true>(src, dst, count)))

// DOUBLE -> 4/2-bit integers.
TENSORCAST_SUBBYTE_KERNEL(CastF64ToI4, (subbyte::EncodeFloatToInt<64, 4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF64ToU4, (subbyte::EncodeFloatToInt<64, 4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF64ToI2, (subbyte::EncodeFloatToInt<64, 2>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF64ToU2, (subbyte::EncodeFloatToInt<64, 2>(src, dst, count)))

// FLOAT / FLOAT16 -> FLOAT4E2M1.
void CastF32ToF4E2M1(const void* src, void* dst, size_t count, const CastOptions&) {
  subbyte::EncodeFloat<32, 4, true>(src, dst, count,
                                    [](hn::Vec<subbyte::DU32> bits) TENSORCAST_LAMBDA_INLINE {
                                      return subbyte::F4CodeFromF32(bits);
                                    });
}
void CastBF16ToF4E2M1(const void* src, void* dst, size_t count, const CastOptions&) {
  subbyte::EncodeFloat<16, 4, true, true>(src, dst, count,
                                          [](hn::Vec<subbyte::DU32> bits) TENSORCAST_LAMBDA_INLINE {
                                            return subbyte::F4CodeFromF32(bits);
                                          });
}
#define TENSORCAST_SOURCE_F4_CAST(Name, TS)                                 \
  void Name(const void* src, void* dst, size_t count, const CastOptions&) { \
    subbyte::EncodeSourceToF4<TS>(src, dst, count);                         \
  }
TENSORCAST_SOURCE_F4_CAST(CastI16ToF4E2M1, int16_t)
TENSORCAST_SOURCE_F4_CAST(CastU16ToF4E2M1, uint16_t)
TENSORCAST_SOURCE_F4_CAST(CastI32ToF4E2M1, int32_t)
TENSORCAST_SOURCE_F4_CAST(CastU32ToF4E2M1, uint32_t)
TENSORCAST_SOURCE_F4_CAST(CastI64ToF4E2M1, int64_t)
TENSORCAST_SOURCE_F4_CAST(CastU64ToF4E2M1, uint64_t)
TENSORCAST_SOURCE_F4_CAST(CastF64ToF4E2M1, double)
#undef TENSORCAST_SOURCE_F4_CAST
void CastF16ToF4E2M1(const void* src, void* dst, size_t count, const CastOptions&) {
  const subbyte::DU16 du16;
  const size_t n = hn::Lanes(du16);
  SubbyteLoop<16, 4>(src, dst, count, PackedChunk<4>(),
                     [&](const uint8_t* in, uint8_t* out) TENSORCAST_LAMBDA_INLINE {
                       const auto code = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
                         const auto h =
                             hn::LoadU(du16, reinterpret_cast<const uint16_t*>(in) + j * n);
                         return subbyte::F4CodeFromF16(du16, h);
                       };
                       hn::StoreU(PackNibbles16(code), DU8(), out);
                     });
}

// INT8 / UINT8 -> 4/2-bit integers (wrap).
TENSORCAST_SUBBYTE_KERNEL(CastI8ToI4, (subbyte::EncodeBytes<4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI8ToU4, (subbyte::EncodeBytes<4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU8ToI4, (subbyte::EncodeBytes<4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU8ToU4, (subbyte::EncodeBytes<4>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI8ToI2, (subbyte::EncodeBytes<2>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI8ToU2, (subbyte::EncodeBytes<2>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU8ToI2, (subbyte::EncodeBytes<2>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU8ToU2, (subbyte::EncodeBytes<2>(src, dst, count)))

// 4/2-bit integers -> FLOAT, FLOAT16, INT8, UINT8.
TENSORCAST_SUBBYTE_KERNEL(CastI4ToF32, (subbyte::DecodeIntToF32<4, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU4ToF32, (subbyte::DecodeIntToF32<4, false>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI2ToF32, (subbyte::DecodeIntToF32<2, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU2ToF32, (subbyte::DecodeIntToF32<2, false>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI4ToF16, (subbyte::DecodeIntToF16<4, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU4ToF16, (subbyte::DecodeIntToF16<4, false>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI2ToF16, (subbyte::DecodeIntToF16<2, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU2ToF16, (subbyte::DecodeIntToF16<2, false>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI4ToI8, (subbyte::DecodeToBytes<4, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI4ToU8, (subbyte::DecodeToBytes<4, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU4ToI8, (subbyte::DecodeToBytes<4, false>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU4ToU8, (subbyte::DecodeToBytes<4, false>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI2ToI8, (subbyte::DecodeToBytes<2, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastI2ToU8, (subbyte::DecodeToBytes<2, true>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU2ToI8, (subbyte::DecodeToBytes<2, false>(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastU2ToU8, (subbyte::DecodeToBytes<2, false>(src, dst, count)))

// FLOAT4E2M1 -> FLOAT, FLOAT16.
TENSORCAST_SUBBYTE_KERNEL(CastF4E2M1ToF32, (subbyte::DecodeF4ToF32(src, dst, count)))
TENSORCAST_SUBBYTE_KERNEL(CastF4E2M1ToF16, (subbyte::DecodeF4ToF16(src, dst, count)))

#undef TENSORCAST_SUBBYTE_KERNEL

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_SUBBYTE_CAST_INL_H_
