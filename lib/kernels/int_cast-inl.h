// Kernels between the integer types (INT8..INT64, UINT8..UINT64) and BOOL, and
// between BOOL and FLOAT, DOUBLE, FLOAT16, BFLOAT16 and the five float8 formats.
//
// Pairs:    every integer -> every other integer (56 pairs, one template: CastIntToInt);
//           BOOL -> every integer, float and float8 type (CastBoolTo); every integer,
//           float and float8 type -> BOOL (CastToBool).
// Rounding: none. Integer -> integer is two's-complement wrap: a wider target
//           sign-extends a signed source and zero-extends an unsigned one (PromoteTo
//           chains, 8 -> 64 via 8 -> 32 -> 64); a narrower target keeps the low bits
//           (TruncateToBytes on unsigned lanes; Highway's integer DemoteTo saturates,
//           so it is never used to wrap).
// Bool:     a bool byte is false when 0, true otherwise; -> numeric gives 1 or 0 in the
//           target encoding (float 0x3F800000, double 0x3FF0000000000000, f16 0x3C00,
//           bf16 0x3F80, float8e8m0 0x7F / 0x00). Numeric -> bool is x != 0: a float
//           source compares its bits without the sign bit, so -0.0 -> 0 and NaN -> 1.
//           Output bytes are 0 or 1.
// NaN:      only in float -> bool (true).
// Targets:  the same code everywhere. Narrowing goes through TruncateToBytes
//           (truncate-inl.h), which works around Highway 1.0.3's broken TruncateTo on
//           AVX3_DL. Highway 1.0.3 has no 64-bit-lane demotion other than TruncateTo
//           from u64, which is what 64-bit sources use.
// Tail:     CastLoop's one-vector stack buffer.

#if defined(TENSORCAST_LIB_KERNELS_INT_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_INT_CAST_INL_H_
#undef TENSORCAST_LIB_KERNELS_INT_CAST_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_INT_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "lib/kernels/cast_loop-inl.h"
#include "lib/kernels/truncate-inl.h"
#include "tensorcast/cast_options.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lanes of `v` widened to kBytes-wide lanes of the same signedness (sign-extension of a
// signed source, zero-extension of an unsigned one). PromoteTo exists for 8 -> 16,
// 8 -> 32, 16 -> 32 and 32 -> 64 only, so wider steps are chained.
template <size_t kBytes, class DFrom>
HWY_INLINE auto ExtendTo(DFrom d, hn::Vec<DFrom> v) {
  using T = hn::TFromD<DFrom>;
  if constexpr (sizeof(T) == kBytes) {
    (void)d;
    return v;
  } else {
    constexpr size_t kStep = (sizeof(T) == 1 && kBytes >= 4) ? 4 : 2 * sizeof(T);
    using TStep = std::conditional_t<hwy::IsSigned<T>(), hwy::SignedFromSize<kStep>,
                                     hwy::UnsignedFromSize<kStep>>;
    const hn::Rebind<TStep, DFrom> dstep;
    return ExtendTo<kBytes>(dstep, hn::PromoteTo(dstep, v));
  }
}

// Integer -> integer, two's-complement wrap. The wider of the two lane types fills a
// vector; the narrower side is a partial vector of the same lane count.
template <typename TS, typename TD>
HWY_INLINE void CastIntToInt(const void* src, void* dst, size_t count) {
  using TWide = std::conditional_t<(sizeof(TS) > sizeof(TD)), TS, TD>;
  const hn::ScalableTag<TWide> dw;
  const hn::Rebind<TS, decltype(dw)> ds;
  const hn::Rebind<TD, decltype(dw)> dd;
  CastLoop(ds, dd, static_cast<const TS*>(src), static_cast<TD*>(dst), count,
           [&](hn::Vec<decltype(ds)> v) HWY_ATTR {
             if constexpr (sizeof(TD) >= sizeof(TS)) {
               return hn::BitCast(dd, ExtendTo<sizeof(TD)>(ds, v));
             } else {
               const hn::RebindToUnsigned<decltype(ds)> dsu;
               return hn::BitCast(dd, TruncateToBytes<sizeof(TD)>(dsu, hn::BitCast(dsu, v)));
             }
           });
}

// BOOL -> a type whose "1" is the bit pattern kOne (TU: unsigned lanes of its width).
// kOne == 1 (integers): min(byte, 1), zero-extended. Otherwise: the 0 / -1 mask of
// byte != 0, sign-extended, AND kOne.
template <typename TU, TU kOne>
HWY_INLINE void CastBoolTo(const void* src, void* dst, size_t count) {
  const hn::ScalableTag<TU> dw;
  const hn::Rebind<uint8_t, decltype(dw)> d8;
  CastLoop(d8, dw, static_cast<const uint8_t*>(src), static_cast<TU*>(dst), count,
           [&](hn::Vec<decltype(d8)> v) HWY_ATTR {
             if constexpr (kOne == 1) {
               return ExtendTo<sizeof(TU)>(d8, hn::Min(v, hn::Set(d8, 1)));
             } else {
               const hn::Rebind<int8_t, decltype(dw)> di8;
               const auto mask = hn::BitCast(di8, hn::VecFromMask(d8, hn::Ne(v, hn::Zero(d8))));
               return hn::And(hn::BitCast(dw, ExtendTo<sizeof(TU)>(di8, mask)), hn::Set(dw, kOne));
             }
           });
}

// A numeric type -> BOOL, on unsigned lanes TU of its width: x != 0, computed as
// (bits & kValueMask) != 0. kValueMask is every bit for integers and every bit but the
// sign for float types (-0.0 -> 0, NaN -> 1; FNUZ float8 formats have no -0, their
// 0x80 is NaN, so they keep every bit); kValueMask == 0 means every code is non-zero
// (float8e8m0: its smallest value is 2^-127, 0xFF is NaN). min(x, 1) gives 0 / 1 in one
// op where unsigned Min is native (<= 32-bit lanes; 64-bit Min is emulated before
// AVX-512, so 64-bit lanes compare instead).
template <typename TU, TU kValueMask>
HWY_INLINE void CastToBool(const void* src, void* dst, size_t count) {
  if constexpr (kValueMask == 0) {  // every value is true: a fill, the source is not read
    (void)src;
    std::memset(dst, 1, count);
  } else {
    const hn::ScalableTag<TU> dw;
    const hn::Rebind<uint8_t, decltype(dw)> d8;
    CastLoop(dw, d8, static_cast<const TU*>(src), static_cast<uint8_t*>(dst), count,
             [&](hn::Vec<decltype(dw)> v) HWY_ATTR {
               auto value = v;
               if constexpr (kValueMask != hwy::LimitsMax<TU>()) {
                 value = hn::And(v, hn::Set(dw, kValueMask));
               }
               if constexpr (sizeof(TU) <= 4) {
                 return TruncateToBytes<1>(dw, hn::Min(value, hn::Set(dw, 1)));
               } else {
                 const auto mask = hn::VecFromMask(dw, hn::Ne(value, hn::Zero(dw)));
                 return hn::And(TruncateToBytes<1>(dw, mask), hn::Set(d8, 1));
               }
             });
  }
}

// The registry's kernels (cast_pairs.inc, family int): thin wrappers naming each pair.
#define TENSORCAST_INT_CAST(Name, TS, TD)                                   \
  void Name(const void* src, void* dst, size_t count, const CastOptions&) { \
    CastIntToInt<TS, TD>(src, dst, count);                                  \
  }
TENSORCAST_INT_CAST(CastI8ToU8, int8_t, uint8_t)
TENSORCAST_INT_CAST(CastI8ToI16, int8_t, int16_t)
TENSORCAST_INT_CAST(CastI8ToU16, int8_t, uint16_t)
TENSORCAST_INT_CAST(CastI8ToI32, int8_t, int32_t)
TENSORCAST_INT_CAST(CastI8ToU32, int8_t, uint32_t)
TENSORCAST_INT_CAST(CastI8ToI64, int8_t, int64_t)
TENSORCAST_INT_CAST(CastI8ToU64, int8_t, uint64_t)
TENSORCAST_INT_CAST(CastU8ToI8, uint8_t, int8_t)
TENSORCAST_INT_CAST(CastU8ToI16, uint8_t, int16_t)
TENSORCAST_INT_CAST(CastU8ToU16, uint8_t, uint16_t)
TENSORCAST_INT_CAST(CastU8ToI32, uint8_t, int32_t)
TENSORCAST_INT_CAST(CastU8ToU32, uint8_t, uint32_t)
TENSORCAST_INT_CAST(CastU8ToI64, uint8_t, int64_t)
TENSORCAST_INT_CAST(CastU8ToU64, uint8_t, uint64_t)
TENSORCAST_INT_CAST(CastI16ToI8, int16_t, int8_t)
TENSORCAST_INT_CAST(CastI16ToU8, int16_t, uint8_t)
TENSORCAST_INT_CAST(CastI16ToU16, int16_t, uint16_t)
TENSORCAST_INT_CAST(CastI16ToI32, int16_t, int32_t)
TENSORCAST_INT_CAST(CastI16ToU32, int16_t, uint32_t)
TENSORCAST_INT_CAST(CastI16ToI64, int16_t, int64_t)
TENSORCAST_INT_CAST(CastI16ToU64, int16_t, uint64_t)
TENSORCAST_INT_CAST(CastU16ToI8, uint16_t, int8_t)
TENSORCAST_INT_CAST(CastU16ToU8, uint16_t, uint8_t)
TENSORCAST_INT_CAST(CastU16ToI16, uint16_t, int16_t)
TENSORCAST_INT_CAST(CastU16ToI32, uint16_t, int32_t)
TENSORCAST_INT_CAST(CastU16ToU32, uint16_t, uint32_t)
TENSORCAST_INT_CAST(CastU16ToI64, uint16_t, int64_t)
TENSORCAST_INT_CAST(CastU16ToU64, uint16_t, uint64_t)
TENSORCAST_INT_CAST(CastI32ToI8, int32_t, int8_t)
TENSORCAST_INT_CAST(CastI32ToU8, int32_t, uint8_t)
TENSORCAST_INT_CAST(CastI32ToI16, int32_t, int16_t)
TENSORCAST_INT_CAST(CastI32ToU16, int32_t, uint16_t)
TENSORCAST_INT_CAST(CastI32ToU32, int32_t, uint32_t)
TENSORCAST_INT_CAST(CastI32ToI64, int32_t, int64_t)
TENSORCAST_INT_CAST(CastI32ToU64, int32_t, uint64_t)
TENSORCAST_INT_CAST(CastU32ToI8, uint32_t, int8_t)
TENSORCAST_INT_CAST(CastU32ToU8, uint32_t, uint8_t)
TENSORCAST_INT_CAST(CastU32ToI16, uint32_t, int16_t)
TENSORCAST_INT_CAST(CastU32ToU16, uint32_t, uint16_t)
TENSORCAST_INT_CAST(CastU32ToI32, uint32_t, int32_t)
TENSORCAST_INT_CAST(CastU32ToI64, uint32_t, int64_t)
TENSORCAST_INT_CAST(CastU32ToU64, uint32_t, uint64_t)
TENSORCAST_INT_CAST(CastI64ToI8, int64_t, int8_t)
TENSORCAST_INT_CAST(CastI64ToU8, int64_t, uint8_t)
TENSORCAST_INT_CAST(CastI64ToI16, int64_t, int16_t)
TENSORCAST_INT_CAST(CastI64ToU16, int64_t, uint16_t)
TENSORCAST_INT_CAST(CastI64ToI32, int64_t, int32_t)
TENSORCAST_INT_CAST(CastI64ToU32, int64_t, uint32_t)
TENSORCAST_INT_CAST(CastI64ToU64, int64_t, uint64_t)
TENSORCAST_INT_CAST(CastU64ToI8, uint64_t, int8_t)
TENSORCAST_INT_CAST(CastU64ToU8, uint64_t, uint8_t)
TENSORCAST_INT_CAST(CastU64ToI16, uint64_t, int16_t)
TENSORCAST_INT_CAST(CastU64ToU16, uint64_t, uint16_t)
TENSORCAST_INT_CAST(CastU64ToI32, uint64_t, int32_t)
TENSORCAST_INT_CAST(CastU64ToU32, uint64_t, uint32_t)
TENSORCAST_INT_CAST(CastU64ToI64, uint64_t, int64_t)
#undef TENSORCAST_INT_CAST

#define TENSORCAST_BOOL_CAST(Name, Template, TU, Arg)                       \
  void Name(const void* src, void* dst, size_t count, const CastOptions&) { \
    Template<TU, Arg>(src, dst, count);                                     \
  }
TENSORCAST_BOOL_CAST(CastBoolToI8, CastBoolTo, uint8_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToU8, CastBoolTo, uint8_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToI16, CastBoolTo, uint16_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToU16, CastBoolTo, uint16_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToI32, CastBoolTo, uint32_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToU32, CastBoolTo, uint32_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToI64, CastBoolTo, uint64_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToU64, CastBoolTo, uint64_t, 1)
TENSORCAST_BOOL_CAST(CastBoolToF32, CastBoolTo, uint32_t, 0x3F800000u)
TENSORCAST_BOOL_CAST(CastBoolToF64, CastBoolTo, uint64_t, 0x3FF0000000000000ull)
TENSORCAST_BOOL_CAST(CastBoolToF16, CastBoolTo, uint16_t, 0x3C00)
TENSORCAST_BOOL_CAST(CastBoolToBF16, CastBoolTo, uint16_t, 0x3F80)
// float8: 1.0 is e4m3fn 0x38, e4m3fnuz 0x40, e5m2 0x3C, e5m2fnuz 0x40, e8m0 0x7F. A
// direct row also keeps false -> 0x00 for e8m0 (docs/semantics.md), where the hub's FLOAT
// 0.0 would encode as NaN with saturate=false.
TENSORCAST_BOOL_CAST(CastBoolToF8E4M3FN, CastBoolTo, uint8_t, 0x38)
TENSORCAST_BOOL_CAST(CastBoolToF8E4M3FNUZ, CastBoolTo, uint8_t, 0x40)
TENSORCAST_BOOL_CAST(CastBoolToF8E5M2, CastBoolTo, uint8_t, 0x3C)
TENSORCAST_BOOL_CAST(CastBoolToF8E5M2FNUZ, CastBoolTo, uint8_t, 0x40)
TENSORCAST_BOOL_CAST(CastBoolToF8E8M0, CastBoolTo, uint8_t, 0x7F)
TENSORCAST_BOOL_CAST(CastI8ToBool, CastToBool, uint8_t, 0xFF)
TENSORCAST_BOOL_CAST(CastU8ToBool, CastToBool, uint8_t, 0xFF)
TENSORCAST_BOOL_CAST(CastI16ToBool, CastToBool, uint16_t, 0xFFFF)
TENSORCAST_BOOL_CAST(CastU16ToBool, CastToBool, uint16_t, 0xFFFF)
TENSORCAST_BOOL_CAST(CastI32ToBool, CastToBool, uint32_t, 0xFFFFFFFFu)
TENSORCAST_BOOL_CAST(CastU32ToBool, CastToBool, uint32_t, 0xFFFFFFFFu)
TENSORCAST_BOOL_CAST(CastI64ToBool, CastToBool, uint64_t, ~0ull)
TENSORCAST_BOOL_CAST(CastU64ToBool, CastToBool, uint64_t, ~0ull)
TENSORCAST_BOOL_CAST(CastF32ToBool, CastToBool, uint32_t, 0x7FFFFFFFu)
TENSORCAST_BOOL_CAST(CastF64ToBool, CastToBool, uint64_t, 0x7FFFFFFFFFFFFFFFull)
TENSORCAST_BOOL_CAST(CastF16ToBool, CastToBool, uint16_t, 0x7FFF)
TENSORCAST_BOOL_CAST(CastBF16ToBool, CastToBool, uint16_t, 0x7FFF)
TENSORCAST_BOOL_CAST(CastF8E4M3FNToBool, CastToBool, uint8_t, 0x7F)
TENSORCAST_BOOL_CAST(CastF8E4M3FNUZToBool, CastToBool, uint8_t, 0xFF)
TENSORCAST_BOOL_CAST(CastF8E5M2ToBool, CastToBool, uint8_t, 0x7F)
TENSORCAST_BOOL_CAST(CastF8E5M2FNUZToBool, CastToBool, uint8_t, 0xFF)
TENSORCAST_BOOL_CAST(CastF8E8M0ToBool, CastToBool, uint8_t, 0)
#undef TENSORCAST_BOOL_CAST

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_INT_CAST_INL_H_
