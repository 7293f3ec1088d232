// Modular narrowing of unsigned integer lanes (TruncateTo) that is correct on every
// target with Highway 1.0.3. Use TruncateToBytes instead of hn::TruncateTo.
//
// Highway 1.0.3 bugs on AVX3_DL (fixed upstream in 1.0.5; test/truncate_test.cc):
//   - TruncateTo u32 -> u8 from a 512-bit vector permutes 32-bit lanes where it meant
//     bytes (docs/highway-notes.md): 15 of 16 lanes wrong;
//   - every TruncateTo from a 256-bit vector except u64 -> u32 (u16 -> u8, u32 -> u16,
//     u32 -> u8, u64 -> u16, u64 -> u8) passes _mm256_permutexvar_epi8 its operands in
//     the wrong order: every lane wrong. These are the second step of any chain that
//     starts from a full 512-bit vector (e.g. f64 -> u32 -> u16), and any Rebind of a
//     256-bit vector.
// 512-bit sources (other than u32 -> u8) and 128-bit and smaller ones are correct.

#if defined(TENSORCAST_LIB_KERNELS_TRUNCATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_TRUNCATE_INL_H_
#undef TENSORCAST_LIB_KERNELS_TRUNCATE_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_TRUNCATE_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// hn::TruncateTo(dto, v) with dfrom the tag of v. AVX3_DL takes U8FromU32 for a 512-bit
// u32 -> u8; from 256-bit vectors it narrows u64 to u32 first (correct) and then masks
// the lanes into the target's range, so that a saturating DemoteTo is exact.
template <class DTo, class DFrom>
HWY_INLINE hn::Vec<DTo> TruncateStep(DTo dto, DFrom dfrom, hn::Vec<DFrom> v) {
#if HWY_TARGET == HWY_AVX3_DL
  using TFrom = hn::TFromD<DFrom>;
  using TTo = hn::TFromD<DTo>;
  constexpr bool kFull512 = hn::MaxLanes(DFrom()) * sizeof(TFrom) == 64;
  if constexpr (kFull512 && sizeof(TFrom) == 4 && sizeof(TTo) == 1) {
    return hn::U8FromU32(hn::And(v, hn::Set(dfrom, 0xFF)));
  } else if constexpr (kFull512 || (sizeof(TFrom) == 8 && sizeof(TTo) == 4)) {
    return hn::TruncateTo(dto, v);
  } else if constexpr (sizeof(TFrom) == 8) {
    const hn::Rebind<uint32_t, DFrom> d32;
    return TruncateStep(dto, d32, hn::TruncateTo(d32, v));
  } else {
    const hn::RebindToSigned<DFrom> di;
    const auto in_range = hn::And(v, hn::Set(dfrom, static_cast<TFrom>(hwy::LimitsMax<TTo>())));
    return hn::DemoteTo(dto, hn::BitCast(di, in_range));
  }
#else
  (void)dfrom;
  return hn::TruncateTo(dto, v);
#endif
}

// Unsigned lanes of `v` narrowed to their low kBytes bytes (modular), in one step.
template <size_t kBytes, class DFrom>
HWY_INLINE auto TruncateToBytes(DFrom d, hn::Vec<DFrom> v) {
  using T = hn::TFromD<DFrom>;
  static_assert(!hwy::IsSigned<T>(), "TruncateTo takes unsigned lanes");
  if constexpr (sizeof(T) == kBytes) {
    (void)d;
    return v;
  } else {
    const hn::Rebind<hwy::UnsignedFromSize<kBytes>, DFrom> dto;
    return TruncateStep(dto, d, v);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_TRUNCATE_INL_H_
