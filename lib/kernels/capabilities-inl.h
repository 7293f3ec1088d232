// Highway target capabilities that choose between code paths, defined once per target.
// Every kernel file includes this header instead of testing HWY_TARGET for these facts.
//
//   TENSORCAST_NATIVE_F16   1 where float16 <-> float32 conversions are hardware
//                           instructions and exact (F16C on AVX2/AVX3/AVX3_DL, NEON, SVE);
//                           0 on SSSE3, SSE4 and the scalar fallbacks, where Highway 1.0.3
//                           emulates them inexactly and the kernels use integer code.
//   TENSORCAST_X86_SIMD     1 on the x86 SIMD targets (SSSE3 and up), where x86 intrinsics
//                           may be used directly.
//   TENSORCAST_X86_AVX512   1 on AVX3 and AVX3_DL (AVX-512 instructions with embedded
//                           rounding and native unsigned conversions).
//   TablePlanes(src_bits)   whether the table lookup serves targets of 16 bits and more
//                           (two byte tables, "planes") from src_bits-wide sources where
//                           that beats the kernel path: 4-/2-bit codes need one
//                           TableLookupBytes per table on every SIMD target; 8-bit codes
//                           only where a 128-entry byte permute exists (AVX3_DL's VPERMT2B)
//                           and on the scalar fallback (an element loop either way).
#if defined(TENSORCAST_LIB_KERNELS_CAPABILITIES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_CAPABILITIES_INL_H_
#undef TENSORCAST_LIB_KERNELS_CAPABILITIES_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_CAPABILITIES_INL_H_
#endif

#include "hwy/highway.h"

#undef TENSORCAST_NATIVE_F16
#if HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_SCALAR || \
    HWY_TARGET == HWY_EMU128
#define TENSORCAST_NATIVE_F16 0
#else
#define TENSORCAST_NATIVE_F16 1
#endif

#undef TENSORCAST_X86_SIMD
#if HWY_ARCH_X86 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
#define TENSORCAST_X86_SIMD 1
#else
#define TENSORCAST_X86_SIMD 0
#endif

#undef TENSORCAST_X86_AVX512
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define TENSORCAST_X86_AVX512 1
#else
#define TENSORCAST_X86_AVX512 0
#endif

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {

constexpr bool TablePlanes(int src_bits) {
#if HWY_TARGET == HWY_AVX3_DL
  return src_bits > 0;
#elif HWY_TARGET == HWY_SCALAR
  return src_bits == 8;
#else
  return src_bits > 0 && src_bits < 8;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_CAPABILITIES_INL_H_
