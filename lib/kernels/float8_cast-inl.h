// The float8 kernels: registry rows of family float8 (cast_pairs.inc), built from the
// codec in float8_codec-inl.h, whose header states the rules (rounding, range, NaN,
// targets, tail).
//
// Pairs: FLOAT, FLOAT16 and BFLOAT16 -> FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
//        FLOAT8E5M2FNUZ, FLOAT8E8M0, and each of those -> FLOAT and FLOAT16; INT16, UINT16,
//        INT32, UINT32, INT64, UINT64, DOUBLE -> the five formats (the exact or
//        round-to-odd float32 value, then the float32 encoder, in one loop).

#if defined(TENSORCAST_LIB_KERNELS_FLOAT8_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_FLOAT8_CAST_INL_H_
#undef TENSORCAST_LIB_KERNELS_FLOAT8_CAST_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_FLOAT8_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "lib/kernels/float8_codec-inl.h"
#include "tensorcast/cast_options.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {

// ---------------------------------------------------------------------------------------
// Kernels (registry rows in cast_pairs.inc, family float8).

#define TENSORCAST_F8_KERNELS(NAME, FMT)                                                  \
  void CastF32To##NAME(const void* src, void* dst, size_t count, const CastOptions& o) {  \
    if (o.saturate) {                                                                     \
      F32ToF8Loop<FMT, true>(src, dst, count);                                            \
    } else {                                                                              \
      F32ToF8Loop<FMT, false>(src, dst, count);                                           \
    }                                                                                     \
  }                                                                                       \
  void CastF16To##NAME(const void* src, void* dst, size_t count, const CastOptions& o) {  \
    if (o.saturate) {                                                                     \
      F16ToF8Loop<FMT, true>(src, dst, count);                                            \
    } else {                                                                              \
      F16ToF8Loop<FMT, false>(src, dst, count);                                           \
    }                                                                                     \
  }                                                                                       \
  void CastBF16To##NAME(const void* src, void* dst, size_t count, const CastOptions& o) { \
    if (o.saturate) {                                                                     \
      BF16ToF8Loop<FMT, true>(src, dst, count);                                           \
    } else {                                                                              \
      BF16ToF8Loop<FMT, false>(src, dst, count);                                          \
    }                                                                                     \
  }                                                                                       \
  void Cast##NAME##ToF32(const void* src, void* dst, size_t count, const CastOptions&) {  \
    F8ToF32Loop<FMT>(src, dst, count);                                                    \
  }                                                                                       \
  void Cast##NAME##ToF16(const void* src, void* dst, size_t count, const CastOptions&) {  \
    F8ToF16Loop<FMT>(src, dst, count);                                                    \
  }

TENSORCAST_F8_KERNELS(F8E4M3FN, FmtE4M3FN)
TENSORCAST_F8_KERNELS(F8E4M3FNUZ, FmtE4M3FNUZ)
TENSORCAST_F8_KERNELS(F8E5M2, FmtE5M2)
TENSORCAST_F8_KERNELS(F8E5M2FNUZ, FmtE5M2FNUZ)
#undef TENSORCAST_F8_KERNELS

void CastF32ToF8E8M0(const void* src, void* dst, size_t count, const CastOptions& o) {
  if (o.saturate) {
    F32ToE8M0Loop<true>(src, dst, count, o.round_mode);
  } else {
    F32ToE8M0Loop<false>(src, dst, count, o.round_mode);
  }
}

void CastF16ToF8E8M0(const void* src, void* dst, size_t count, const CastOptions& o) {
  if (o.saturate) {
    F16ToE8M0Loop<true>(src, dst, count, o.round_mode);
  } else {
    F16ToE8M0Loop<false>(src, dst, count, o.round_mode);
  }
}

void CastBF16ToF8E8M0(const void* src, void* dst, size_t count, const CastOptions& o) {
  if (o.saturate) {
    BF16ToE8M0Loop<true>(src, dst, count, o.round_mode);
  } else {
    BF16ToE8M0Loop<false>(src, dst, count, o.round_mode);
  }
}

void CastF8E8M0ToF32(const void* src, void* dst, size_t count, const CastOptions&) {
  const F8DU32 du32;
  const hn::Rebind<uint8_t, F8DU32> du8;
  CastLoop(du8, du32, static_cast<const uint8_t*>(src), static_cast<uint32_t*>(dst), count,
           [&](hn::Vec<decltype(du8)> c)
               HWY_ATTR { return E8M0ToF32Bits(du32, hn::PromoteTo(du32, c)); });
}

void CastF8E8M0ToF16(const void* src, void* dst, size_t count, const CastOptions&) {
  const F8DU32 du32;
  const hn::Rebind<uint8_t, F8DU32> du8;
  const hn::Rebind<uint16_t, F8DU32> du16;
  CastLoop(du8, du16, static_cast<const uint8_t*>(src), static_cast<uint16_t*>(dst), count,
           [&](hn::Vec<decltype(du8)> c) HWY_ATTR {
             return F32BitsToF16(du32, E8M0ToF32Bits(du32, hn::PromoteTo(du32, c)));
           });
}

// INT16, UINT16, INT32, UINT32, INT64, UINT64, DOUBLE -> the five float8 formats, fused:
// the source's float32 value, exact (16-bit integers) or rounded to odd (f32_helpers-inl.h),
// then the FLOAT encoder, in one loop (bit-identical to the blocked two-step path these
// pairs took before; one rounding of the source value).
template <class DU32, class DS>
HWY_INLINE hn::Vec<DU32> SourceToF32Bits(DU32 du32, DS ds, hn::Vec<DS> v) {
  using T = hn::TFromD<DS>;
  if constexpr (std::is_same<T, double>::value) {
    return F64VecToF32BitsRoundToOdd(du32, ds, v);
  } else if constexpr (sizeof(T) <= 2) {
    const hn::Rebind<int32_t, DS> di32;
    const hn::Rebind<float, DS> df;
    return hn::BitCast(du32, hn::ConvertTo(df, hn::PromoteTo(di32, v)));  // exact
  } else {
    return IntVecToF32BitsRoundToOdd(du32, ds, v);
  }
}

// out[i] = enc(du32, float32 bits of in[i]) (byte values in u32 lanes).
template <typename TS, class Enc>
HWY_INLINE void CastViaF32ToBytes(const void* src, void* dst, size_t count, const Enc& enc) {
  const auto* in = static_cast<const TS*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  if constexpr (sizeof(TS) <= 4) {
    const F8DU32 du32;
    const hn::Rebind<TS, F8DU32> ds;
    CastLoopToBytes(du32, ds, in, out, count,
                    [&](hn::Vec<decltype(ds)> v) TENSORCAST_LAMBDA_INLINE {
                      return enc(du32, SourceToF32Bits(du32, ds, v));
                    });
  } else {
    // 64-bit lanes: the float32 bits of two source vectors are combined into one full u32
    // vector, encoded and packed like the others (faster than a half-width encoder); the
    // rest one half-width vector at a time.
    const hn::ScalableTag<TS> ds;
    const hn::Rebind<uint32_t, decltype(ds)> dh32;
    const hn::Rebind<uint8_t, decltype(ds)> du8;
    const auto rest = [&](size_t from, size_t to) HWY_ATTR {
      CastLoop(ds, du8, in + from, out + from, to - from,
               [&](hn::Vec<decltype(ds)> v) TENSORCAST_LAMBDA_INLINE {
                 return hn::U8FromU32(enc(dh32, SourceToF32Bits(dh32, ds, v)));
               });
    };
#if HWY_TARGET != HWY_SCALAR
    const F8DU32 du32;
    const size_t half = hn::Lanes(ds);
    PackBytes<true, sizeof(TS)>(
        du32, in, out, count,
        [&](size_t k) TENSORCAST_LAMBDA_INLINE {
          const auto lo = SourceToF32Bits(dh32, ds, hn::LoadU(ds, in + k));  // address order
          const auto hi = SourceToF32Bits(dh32, ds, hn::LoadU(ds, in + k + half));
          return enc(du32, hn::Combine(du32, hi, lo));
        },
        rest);
#else
    rest(0, count);
#endif
  }
}

template <typename TS, class F>
HWY_INLINE void SourceToF8(const void* src, void* dst, size_t count, bool saturate) {
  const auto encode = [](auto sat) {
    return [](auto du32, auto bits) TENSORCAST_LAMBDA_INLINE {
#if TENSORCAST_F8_FMIN_KEEPS_NAN
      return F32BitsToF8Fast<F, decltype(sat)::value>(du32, bits);
#else
      return F32BitsToF8<F, decltype(sat)::value>(du32, bits);
#endif
    };
  };
  if (saturate) {
    CastViaF32ToBytes<TS>(src, dst, count, encode(std::true_type()));
  } else {
    CastViaF32ToBytes<TS>(src, dst, count, encode(std::false_type()));
  }
}

template <typename TS>
HWY_INLINE void SourceToE8M0(const void* src, void* dst, size_t count, const CastOptions& o) {
  const uint32_t round_add = E8M0RoundAdd(o.round_mode);
  const auto encode = [round_add](auto sat) {
    return [round_add](auto du32, auto bits) TENSORCAST_LAMBDA_INLINE {
      return F32BitsToE8M0<decltype(sat)::value>(du32, bits, hn::Set(du32, round_add));
    };
  };
  if (o.saturate) {
    CastViaF32ToBytes<TS>(src, dst, count, encode(std::true_type()));
  } else {
    CastViaF32ToBytes<TS>(src, dst, count, encode(std::false_type()));
  }
}

#define TENSORCAST_F8_SOURCE_KERNELS(SRC, TS)                                                    \
  void Cast##SRC##ToF8E4M3FN(const void* src, void* dst, size_t count, const CastOptions& o) {   \
    SourceToF8<TS, FmtE4M3FN>(src, dst, count, o.saturate);                                      \
  }                                                                                              \
  void Cast##SRC##ToF8E4M3FNUZ(const void* src, void* dst, size_t count, const CastOptions& o) { \
    SourceToF8<TS, FmtE4M3FNUZ>(src, dst, count, o.saturate);                                    \
  }                                                                                              \
  void Cast##SRC##ToF8E5M2(const void* src, void* dst, size_t count, const CastOptions& o) {     \
    SourceToF8<TS, FmtE5M2>(src, dst, count, o.saturate);                                        \
  }                                                                                              \
  void Cast##SRC##ToF8E5M2FNUZ(const void* src, void* dst, size_t count, const CastOptions& o) { \
    SourceToF8<TS, FmtE5M2FNUZ>(src, dst, count, o.saturate);                                    \
  }                                                                                              \
  void Cast##SRC##ToF8E8M0(const void* src, void* dst, size_t count, const CastOptions& o) {     \
    SourceToE8M0<TS>(src, dst, count, o);                                                        \
  }
TENSORCAST_F8_SOURCE_KERNELS(I16, int16_t)
TENSORCAST_F8_SOURCE_KERNELS(U16, uint16_t)
TENSORCAST_F8_SOURCE_KERNELS(I32, int32_t)
TENSORCAST_F8_SOURCE_KERNELS(U32, uint32_t)
TENSORCAST_F8_SOURCE_KERNELS(I64, int64_t)
TENSORCAST_F8_SOURCE_KERNELS(U64, uint64_t)
TENSORCAST_F8_SOURCE_KERNELS(F64, double)
#undef TENSORCAST_F8_SOURCE_KERNELS

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_FLOAT8_CAST_INL_H_
