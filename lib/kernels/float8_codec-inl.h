// The float8 codec: encoders from float32 / float16 bits into the five float8 formats and
// decoders back, on Highway vectors, with the loops that apply them. The kernels built
// from them are in float8_cast-inl.h.
//
// Pairs:    FLOAT, FLOAT16 and BFLOAT16 -> FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
//           FLOAT8E5M2FNUZ, FLOAT8E8M0, and each of those -> FLOAT and FLOAT16 (25
//           kernels); INT16, UINT16, INT32, UINT32, INT64, UINT64, DOUBLE -> the five
//           formats (35: the exact or round-to-odd float32 value, f32_helpers-inl.h, then
//           the float32 encoder, in one loop). BFLOAT16 is widened to its exact float32
//           bits (<< 16) inside the float32 encoders' loop. FLOAT16 ->
//           E4M3/E5M2 rounds the float16 bits on u16 lanes (F16BitsToF8); the other
//           FLOAT16 pairs go through float32 lanes inside the kernel (every float16 and
//           every float8 value is exact in float32, so there is still one rounding).
// Rounding: E4M3FN/E4M3FNUZ/E5M2/E5M2FNUZ: round-to-nearest-even of the float32 bits,
//           gradual underflow (docs/semantics.md, "float8"). Normal results round at
//           bit 23-M with the integer "add lsb + half - 1" trick; target subnormals are
//           rounded by the FPU: adding 2^(24-bias-M) (whose ulp is the target's
//           subnormal step) to |x| < 2^(1-bias) rounds |x| to that step, ties to even.
//           E8M0: round_mode up / down / nearest (ties up) of |x| to a power of two;
//           exact powers of two are never rounded. A float32 subnormal is normalised by
//           an exact int -> float conversion of its fraction, after which normal and
//           subnormal inputs share one formula: code = (bits' + {0x7FFFFF, 0, 0x400000})
//           >> 23 (arithmetic), so round_mode is just a per-call constant.
// Range:    saturate (a template parameter, chosen once per call): float8 clamps |x| to
//           MAX before rounding (+-Inf -> +-MAX), E8M0 clamps to [0x00, 0xFE] (zero ->
//           0x00, Inf -> 0xFE). Without saturate: E4M3FN overflow -> 0x7F/0xFF, E5M2 ->
//           +-Inf, FNUZ -> 0x80, E8M0 below 2^-127 / above 2^127 / zero / Inf -> 0xFF.
//           -> FLOAT16 never saturates (overflow -> Inf; only E8M0 can overflow it).
// NaN:      -> E4M3FN 0x7F | sign, -> E5M2 0x7E | sign, -> FNUZ 0x80, -> E8M0 0xFF.
//           Decoding: E4M3FN 0x7F/0xFF, E5M2 e=31 m!=0, E8M0 0xFF -> 0x7FC00000 | sign;
//           FNUZ 0x80 -> 0xFFC00000; to FLOAT16 0x7E00 | sign (FNUZ: 0xFE00).
// Decoding: exact. F16C / NEON / SVE (E4M3FN, E4M3FNUZ, E5M2): the code's fields are
//           placed under float16's (E5M2 is the top byte of a float16), NaN codes become
//           the float16 quiet NaN, the hardware converts to float32 and a multiply by
//           2^(15-bias) of normal floats rescales. Elsewhere (and E5M2FNUZ, whose
//           exponent field would collide with float16's Inf/NaN): the fields go under
//           float32's with the exponent rebiased; float8 subnormals are 2^(1-bias) + m *
//           2^(1-bias-M) minus 2^(1-bias), an exact float subtraction. Neither path
//           touches float32 subnormals (which halve the speed of a multiply on some
//           Intel cores). E8M0: code << 23, 0x00 -> 0x00400000 (DAZ/FTZ must be off).
// Targets:  written once on u32/i32 (u16 for FLOAT16 -> float8) lanes. Float32 lanes of
//           FLOAT16 use the hardware conversion where it is exact (F16C on AVX2/AVX3,
//           NEON, SVE) and the same integer formulation as float8 (float16 is the format
//           M=10, bias 15) on SSSE3, SSE4 and the scalar fallback, where Highway 1.0.3
//           emulates f16 inexactly. FLOAT16 -> E4M3 needs a u16 variable shift: not on
//           SSSE3 (missing) nor AVX2 (emulated; F16C + float32 lanes is faster there).
//           Encoders produce byte values in u32 / u16 lanes; 4 / 2 vectors are packed
//           with shifts, ORs and two shuffles (CastLoopToBytes, cast_loop_to_bytes-inl.h),
//           single vectors with
//           U8FromU32 / TruncateTo u16 -> u8: Highway 1.0.3's TruncateTo u32 -> u8 is
//           wrong on AVX3_DL and DemoteTo i32 -> u8 on AVX2/AVX3 for 32768..33022
//           (docs/highway-notes.md).
// Tail:     CastLoop's one-vector stack buffer (after CastLoopToBytes' multi-vector loop).

#if defined(TENSORCAST_LIB_KERNELS_FLOAT8_CODEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_FLOAT8_CODEC_INL_H_
#undef TENSORCAST_LIB_KERNELS_FLOAT8_CODEC_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_FLOAT8_CODEC_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "lib/kernels/cast_loop-inl.h"
#include "lib/kernels/cast_loop_to_bytes-inl.h"
#include "lib/kernels/f32_helpers-inl.h"
#include "tensorcast/cast_options.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Where a format keeps its special values.
enum class F8Specials {
  kIeee,  // exponent all ones: Inf (m == 0) or NaN (E5M2, FLOAT16)
  kFn,    // no Inf; magnitude all ones is NaN (E4M3FN)
  kFnuz,  // no Inf, no -0; 0x80 is the only NaN (E4M3FNUZ, E5M2FNUZ)
  kNone,  // no Inf, no NaN (FLOAT6E2M3, FLOAT6E3M2): encoders must saturate, and NaN
          // inputs are mapped before encoding (float6_cast-inl.h)
};

// A small binary float format of kWidth bits: sign, exponent, kMant mantissa bits.
template <int kWidth, int kMant, int kBias, uint32_t kMaxCode, F8Specials kSpecials>
struct F8Format {
  static constexpr int kM = kMant;
  static constexpr int kB = kBias;
  static constexpr int kW = kWidth;
  static constexpr F8Specials kKind = kSpecials;
  static constexpr bool kFnuz = kSpecials == F8Specials::kFnuz;
  static constexpr uint32_t kSignBit = 1u << (kWidth - 1);
  static constexpr uint32_t kMagMask = kSignBit - 1;
  static constexpr uint32_t kMax = kMaxCode;                      // largest finite magnitude code
  static constexpr uint32_t kInf = (kMagMask >> kMant) << kMant;  // exponent all ones
  // Codes without the sign (FNUZ: 0x80, to which OR-ing the sign changes nothing).
  static constexpr uint32_t kNaN = kSpecials == F8Specials::kIeee ? (kInf | (1u << (kMant - 1)))
                                   : kSpecials == F8Specials::kFn ? kMagMask
                                                                  : kSignBit;
  static constexpr uint32_t kOverflow = kSpecials == F8Specials::kIeee ? kInf
                                        : kSpecials == F8Specials::kFn ? kMagMask
                                                                       : kSignBit;
  // On F16C/NEON/SVE, decoding places the fields into float16 bits and lets the exact
  // hardware conversion do the rest: possible when the exponent field fits float16's
  // without colliding with its Inf/NaN exponent (not E5M2FNUZ) and bias <= 15.
  static constexpr bool kFitsF16 =
      kWidth == 8 && kBias <= 15 && (kWidth - 1 - kMant < 5 || kSpecials == F8Specials::kIeee);
  // float32 bits of MAX.
  static constexpr uint32_t kMaxBits =
      (kMaxCode << (23 - kMant)) + (static_cast<uint32_t>(127 - kBias) << 23);
};

using FmtE4M3FN = F8Format<8, 3, 7, 0x7E, F8Specials::kFn>;
using FmtE4M3FNUZ = F8Format<8, 3, 8, 0x7F, F8Specials::kFnuz>;
using FmtE5M2 = F8Format<8, 2, 15, 0x7B, F8Specials::kIeee>;
using FmtE5M2FNUZ = F8Format<8, 2, 16, 0x7F, F8Specials::kFnuz>;
using FmtF16 = F8Format<16, 10, 15, 0x7BFF, F8Specials::kIeee>;

// float32 bits (u32 lanes) -> code of F (u32 lanes, low kW bits), RNE. kSat clamps |x|
// to MAX first (Inf included); otherwise overflow gives F::kOverflow | sign.
template <class F, bool kSat, class DU32>
HWY_INLINE hn::Vec<DU32> F32BitsToF8(DU32 du32, hn::Vec<DU32> bits) {
  const hn::RebindToSigned<DU32> di32;
  const hn::RebindToFloat<DU32> df;
  constexpr int kD = 23 - F::kM;  // dropped mantissa bits of a normal result
  const auto sign = hn::And(hn::ShiftRight<32 - F::kW>(bits), hn::Set(du32, F::kSignBit));
  auto a = hn::BitCast(di32, hn::And(bits, hn::Set(du32, 0x7FFFFFFFu)));
  const auto is_nan = hn::Gt(a, hn::Set(di32, 0x7F800000));
  if (kSat) a = hn::Min(a, hn::Set(di32, static_cast<int32_t>(F::kMaxBits)));
  // Normal result: round at bit kD and rebias the exponent in one addition (NaN lanes get
  // garbage; they are replaced below).
  const auto lsb = hn::And(hn::ShiftRight<kD>(a), hn::Set(di32, 1));
  constexpr int32_t kRoundRebias = (1 << (kD - 1)) - 1 - ((127 - F::kB) << 23);
  const auto normal = hn::ShiftRight<kD>(hn::Add(hn::Add(a, hn::Set(di32, kRoundRebias)), lsb));
  // Subnormal (or the smallest normal, after a carry): |x| + 2^(24-bias-M) rounded by the
  // FPU, minus the same constant, is the number of subnormal steps.
  const auto magic = hn::Set(di32, (151 - F::kB - F::kM) << 23);
  const auto sub =
      hn::Sub(hn::BitCast(di32, hn::Add(hn::BitCast(df, a), hn::BitCast(df, magic))), magic);
  auto mag = hn::IfThenElse(hn::Lt(a, hn::Set(di32, (128 - F::kB) << 23)), sub, normal);
  if (!kSat) {
    mag = hn::IfThenElse(hn::Gt(normal, hn::Set(di32, static_cast<int32_t>(F::kMax))),
                         hn::Set(di32, static_cast<int32_t>(F::kOverflow)), mag);
  }
  mag = hn::IfThenElse(is_nan, hn::Set(di32, static_cast<int32_t>(F::kNaN)), mag);
  const auto code = hn::Or(hn::BitCast(du32, mag), sign);
  if (F::kFnuz) {  // no negative zero
    return hn::IfThenZeroElse(hn::RebindMask(du32, hn::Eq(mag, hn::Zero(di32))), code);
  }
  return code;
}

#undef TENSORCAST_F8_FMIN_KEEPS_NAN
#if TENSORCAST_X86_SIMD
// Highway's x86 Min(a, b) on floats is minps(a, b), which returns b when either is NaN.
#define TENSORCAST_F8_FMIN_KEEPS_NAN 1
#else
#define TENSORCAST_F8_FMIN_KEEPS_NAN 0
#endif

#if TENSORCAST_F8_FMIN_KEEPS_NAN
// F32BitsToF8 for E4M3FN / E4M3FNUZ / E5M2 / E5M2FNUZ with fewer operations (x86 SIMD):
// one float addition rounds normal and subnormal results alike, and NaN, overflow and
// the sign need no compare-and-select.
//   |x| in binade e (exponent field E = max(e + 127, 128 - bias), i.e. at least the
//   target's smallest normal binade): magic = 2^(E - 127 + 23 - M) has an ulp equal to the
//   target's step there, so |x| + magic (FPU, RNE) rounds |x| and its mantissa field is the
//   number s of steps, at most 2^(M+1). code = s + ((E - (128 - bias)) << M) for normal
//   and subnormal results (a carry into the next binade comes out right by itself).
//   Saturate: |x| = min(MAX, |x|) first; minps(MAX, NaN) keeps the NaN. NaN and Inf then
//   give E = 255, a code above every finite one; min(code, NaN code) maps them (and the
//   overflow of E4M3FN / the FNUZ formats, whose overflow code is the NaN code) to it.
//   E5M2 without saturate: |x| = min(2^16, |x|) first, so overflow and Inf give the Inf
//   code 0x7C and only NaN exceeds it. FNUZ: the sign is kept only when the magnitude is
//   non-zero (bit 7 of mag + 0x7F).
template <class F, bool kSat, class DU32>
HWY_INLINE hn::Vec<DU32> F32BitsToF8Fast(DU32 du32, hn::Vec<DU32> bits) {
  static_assert(F::kW == 8, "a float8 format");
  const hn::RebindToSigned<DU32> di32;
  const hn::RebindToFloat<DU32> df;
  constexpr int kD = 23 - F::kM;
  constexpr int32_t kFloorExp = (128 - F::kB) << 23;
  constexpr uint32_t kClampBits =
      kSat ? F::kMaxBits
           : (F::kKind == F8Specials::kIeee ? static_cast<uint32_t>(127 + 16) << 23 : 0u);
  auto a = hn::And(bits, hn::Set(du32, 0x7FFFFFFFu));
  if (kClampBits != 0) {
    a = hn::BitCast(du32, hn::Min(hn::BitCast(df, hn::Set(du32, kClampBits)), hn::BitCast(df, a)));
  }
  const auto eb =
      hn::Max(hn::BitCast(di32, hn::And(a, hn::Set(du32, 0x7F800000u))), hn::Set(di32, kFloorExp));
  // E <= 255: the addition may wrap into the sign bit (NaN, Inf, huge |x| without a
  // clamp); those lanes only need a code above the cap, which eb >> kD gives them.
  const auto magic = hn::Add(eb, hn::Set(di32, kD << 23));
  const auto sum = hn::BitCast(di32, hn::Add(hn::BitCast(df, a), hn::BitCast(df, magic)));
  const auto steps = hn::And(sum, hn::Set(di32, (4 << F::kM) - 1));
  const auto code =
      hn::Add(steps, hn::Sub(hn::ShiftRight<kD>(eb), hn::Set(di32, (128 - F::kB) << F::kM)));
  const auto mag = hn::BitCast(du32, hn::Min(code, hn::Set(di32, static_cast<int32_t>(F::kNaN))));
  const auto sign = hn::ShiftRight<24>(bits);  // bit 7: the sign; bits 0-6: ignored
  if (F::kFnuz) {
    return hn::OrAnd(mag, hn::And(sign, hn::Add(mag, hn::Set(du32, 0x7F))), hn::Set(du32, 0x80));
  }
  return hn::OrAnd(mag, sign, hn::Set(du32, 0x80));
}
#endif

// Sign-extended code of F (i32 lanes) -> float32 bits (u32 lanes), exact.
template <class F, class DI32>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<DI32>> F8ToF32Bits(DI32 di32, hn::Vec<DI32> code) {
  const hn::RebindToUnsigned<DI32> du32;
  const hn::RebindToFloat<DI32> df;
  constexpr int kShift = 23 - F::kM;
  // Exponent and mantissa fields under float32's; the sign extension puts the sign in
  // bit 31 (and copies of it in between, which the masks drop).
  const auto x = hn::ShiftLeft<kShift>(hn::BitCast(du32, code));
  const auto sign = hn::And(x, hn::Set(du32, 0x80000000u));
  const auto abs_u = hn::And(x, hn::Set(du32, F::kMagMask << kShift));
  const auto abs = hn::BitCast(di32, abs_u);
  // Normal: rebias the exponent. Subnormal (exponent field 0): with the field set to
  // 2^(1-bias) instead, the value is 2^(1-bias) + m * 2^(1-bias-M); subtracting 2^(1-bias)
  // is exact and involves no float32 subnormal (which would slow some CPUs down).
  const auto normal = hn::Add(abs_u, hn::Set(du32, static_cast<uint32_t>(127 - F::kB) << 23));
  const auto magic = hn::Set(du32, static_cast<uint32_t>(128 - F::kB) << 23);
  const auto sub =
      hn::BitCast(du32, hn::Sub(hn::BitCast(df, hn::Add(abs_u, magic)), hn::BitCast(df, magic)));
  const auto value = hn::Or(
      hn::IfThenElse(hn::RebindMask(du32, hn::Lt(abs, hn::Set(di32, 1 << 23))), sub, normal), sign);
  if (F::kKind == F8Specials::kNone) return value;
  const auto qnan = hn::Set(du32, 0x7FC00000u);
  if (F::kKind == F8Specials::kFn) {
    const auto is_nan = hn::Eq(abs, hn::Set(di32, static_cast<int32_t>(F::kMagMask << kShift)));
    return hn::IfThenElse(hn::RebindMask(du32, is_nan), hn::Or(sign, qnan), value);
  }
  if (F::kKind == F8Specials::kIeee) {
    const auto inf = hn::Set(di32, static_cast<int32_t>(F::kInf << kShift));
    const auto special = hn::Or(sign, hn::IfThenElse(hn::RebindMask(du32, hn::Gt(abs, inf)), qnan,
                                                     hn::Set(du32, 0x7F800000u)));
    const auto below_inf = hn::Set(di32, static_cast<int32_t>((F::kInf << kShift) - 1));
    return hn::IfThenElse(hn::RebindMask(du32, hn::Gt(abs, below_inf)), special, value);
  }
  // FNUZ: 0x80 (-0.0 by the formula above) is the NaN, decoded negative.
  return hn::IfThenElse(hn::Eq(value, hn::Set(du32, 0x80000000u)), hn::Set(du32, 0xFFC00000u),
                        value);
}

// float32 bits -> E8M0 code (u32 lanes). `round_add` is 0x7FFFFF (up), 0 (down) or
// 0x400000 (nearest).
template <bool kSat, class DU32>
HWY_INLINE hn::Vec<DU32> F32BitsToE8M0(DU32 du32, hn::Vec<DU32> bits, hn::Vec<DU32> round_add) {
  const hn::RebindToSigned<DU32> di32;
  const hn::RebindToFloat<DU32> df;
  const auto a = hn::BitCast(di32, hn::And(bits, hn::Set(du32, 0x7FFFFFFFu)));
  // A float32 subnormal f * 2^-149 (f < 2^23): float(f) is exact and normal; taking 149
  // off its exponent field gives bits whose (arithmetic) exponent is lead + 127 and whose
  // fraction is the normalised one. Zero gives -149 << 23, i.e. "below 2^-127".
  const auto sub = hn::Sub(hn::BitCast(di32, hn::ConvertTo(df, a)), hn::Set(di32, 149 << 23));
  const auto norm = hn::IfThenElse(hn::Lt(a, hn::Set(di32, 0x00800000)), sub, a);
  const auto code =
      hn::ShiftRight<23>(hn::BitCast(di32, hn::Add(hn::BitCast(du32, norm), round_add)));
  if (kSat) {
    // Clamp to [2^-127, 2^127]; NaN (whose code may have wrapped) -> 0xFF.
    const auto clamped = hn::Min(hn::Max(code, hn::Zero(di32)), hn::Set(di32, 0xFE));
    return hn::BitCast(
        du32, hn::IfThenElse(hn::Gt(a, hn::Set(di32, 0x7F800000)), hn::Set(di32, 0xFF), clamped));
  }
  // Out of 0..254 (negative = below 2^-127 or zero; 255+ = above 2^127, Inf, NaN) -> 0xFF.
  return hn::Min(hn::BitCast(du32, code), hn::Set(du32, 0xFFu));
}

// E8M0 code (u32 lanes, 0..255) -> float32 bits.
template <class DU32>
HWY_INLINE hn::Vec<DU32> E8M0ToF32Bits(DU32 du32, hn::Vec<DU32> code) {
  auto r = hn::ShiftLeft<23>(code);
  r = hn::IfThenElse(hn::Eq(code, hn::Zero(du32)), hn::Set(du32, 0x00400000u), r);  // 2^-127
  return hn::IfThenElse(hn::Eq(code, hn::Set(du32, 0xFFu)), hn::Set(du32, 0x7FC00000u), r);
}

// FLOAT16 -> E4M3FN / E4M3FNUZ / E5M2 / E5M2FNUZ on u16 lanes (twice the lanes of the
// float32 path), RNE of the float16 value. `h`: float16 bits; result: the code in the low
// byte. E4M3 needs a u16 variable shift: used where it is native or the float32 path is
// slower (not SSSE3, which lacks it, nor AVX2, where it is emulated and F16C + the
// float32 path is faster).
#undef TENSORCAST_F8_F16_LANES_E4M3
#if HWY_TARGET == HWY_SSSE3 || HWY_TARGET == HWY_AVX2
#define TENSORCAST_F8_F16_LANES_E4M3 0
#else
#define TENSORCAST_F8_F16_LANES_E4M3 1
#endif
template <class F>
constexpr bool UseF16Lanes() {
  return F::kB >= 15 || TENSORCAST_F8_F16_LANES_E4M3;
}

template <class F, bool kSat, class DU16>
HWY_INLINE hn::Vec<DU16> F16BitsToF8(DU16 du16, hn::Vec<DU16> h) {
  static_assert(F::kW == 8 && F::kB >= 7, "a float8 format");
  const hn::RebindToSigned<DU16> di16;
  constexpr int kD = 10 - F::kM;  // dropped mantissa bits of a normal result
  const auto sign = hn::And(hn::ShiftRight<8>(h), hn::Set(du16, 0x80));
  auto a = hn::And(h, hn::Set(du16, 0x7FFF));
  const auto is_nan = hn::Gt(hn::BitCast(di16, a), hn::Set(di16, 0x7C00));
  if (kSat) {  // float16 bits of MAX (every float8 MAX is a float16)
    constexpr int kMaxH = static_cast<int>(F::kMaxBits >> 13) - (112 << 10);
    a = hn::BitCast(du16, hn::Min(hn::BitCast(di16, a), hn::Set(di16, kMaxH)));
  }
  // Lanes where `sub` below applies: |x| < 2^(1-bias) (the target's subnormals) for E4M3,
  // all float16 subnormals (a < 0x400, a linear scale) for E5M2FNUZ.
  constexpr int kSubLimit = F::kB == 16 ? 0x400 : (16 - F::kB) << 10;
  const auto in_sub_range = [&]() HWY_ATTR {
    return hn::RebindMask(du16, hn::Lt(hn::BitCast(di16, a), hn::Set(di16, kSubLimit)));
  };
  // Normal result (target exponent >= 1): round at bit kD and rebias, modulo 2^16 (lanes
  // of the subnormal range may wrap; they are replaced below).
  constexpr int kRoundRebias = (1 << (kD - 1)) - 1 - (15 - F::kB) * 1024;
  const auto lsb = hn::And(hn::ShiftRight<kD>(a), hn::Set(du16, 1));
  auto mag = hn::ShiftRight<kD>(
      hn::Add(hn::Add(a, hn::Set(du16, static_cast<uint16_t>(kRoundRebias & 0xFFFF))), lsb));
  if (!kSat) {
    mag =
        hn::IfThenElse(hn::RebindMask(du16, hn::Gt(hn::BitCast(di16, mag), hn::Set(di16, F::kMax))),
                       hn::Set(du16, F::kOverflow), mag);
  }
  // The target's subnormal range. E5M2 (bias 15): none to handle, float16's subnormals
  // line up with E5M2's. E5M2FNUZ (bias 16): float16 subnormals, |x| = a * 2^-24, and
  // E5M2FNUZ codes up to 2^-14 are a linear scale too: code = RNE(a / 2^7). E4M3 (bias
  // 7, 8): |x| = sig * 2^(e-25) with sig = 1024 + m, so code = RNE(sig * 2^k / 2^16)
  // with k = e + bias + M - 10 <= 8, from MulHigh / Mul. (Float16 subnormals, e = 0, are
  // below half the smallest E4M3 subnormal; the formula gives them 0 too.)
  if constexpr (F::kB == 16) {
    constexpr int kShift = 25 - F::kB - F::kM;
    const auto sub_lsb = hn::And(hn::ShiftRight<kShift>(a), hn::Set(du16, 1));
    const auto sub = hn::ShiftRight<kShift>(
        hn::Add(hn::Add(a, hn::Set(du16, (1 << (kShift - 1)) - 1)), sub_lsb));
    mag = hn::IfThenElse(in_sub_range(), sub, mag);
  } else if constexpr (F::kB < 15) {
    const auto e = hn::ShiftRight<10>(a);
    const auto k = hn::And(hn::Add(e, hn::Set(du16, F::kB + F::kM - 10)), hn::Set(du16, 15));
    const auto sig = hn::Or(hn::And(a, hn::Set(du16, 0x3FF)), hn::Set(du16, 0x400));
    const auto p = hn::Shl(hn::Set(du16, 1), k);
    // Round half up: (sig + 2^(15-k)) * 2^k / 2^16; a tie (remainder exactly 0x8000)
    // then goes to the even neighbour by clearing bit 0.
    const auto q = hn::MulHigh(hn::Add(sig, hn::Shr(hn::Set(du16, 0x8000), k)), p);
    const auto tie = hn::Eq(hn::Mul(sig, p), hn::Set(du16, 0x8000));
    const auto sub = hn::IfThenElse(tie, hn::And(q, hn::Set(du16, 0xFFFE)), q);
    mag = hn::IfThenElse(in_sub_range(), sub, mag);
  }
  mag = hn::IfThenElse(hn::RebindMask(du16, is_nan), hn::Set(du16, F::kNaN), mag);
  const auto code = hn::Or(mag, sign);
  if (F::kFnuz) {  // no negative zero
    return hn::IfThenZeroElse(hn::Eq(mag, hn::Zero(du16)), code);
  }
  return code;
}

// ---------------------------------------------------------------------------------------
// FLOAT16 <-> float32 bits inside the kernels.

using F8DU32 = hn::ScalableTag<uint32_t>;

template <class DU32>
HWY_INLINE hn::Vec<DU32> F16ToF32Bits(DU32 du32, hn::Vec<hn::Rebind<uint16_t, DU32>> h) {
#if TENSORCAST_NATIVE_F16
  // Exact; a signalling NaN comes out quiet, which no float8 encoder can see.
  const hn::Rebind<float, DU32> df;
  const hn::Rebind<hwy::float16_t, DU32> dh;
  return hn::BitCast(du32, hn::PromoteTo(df, hn::BitCast(dh, h)));
#else
  const hn::RebindToSigned<DU32> di32;
  const hn::Rebind<int16_t, DU32> di16;
  (void)du32;
  return F8ToF32Bits<FmtF16>(di32, hn::PromoteTo(di32, hn::BitCast(di16, h)));
#endif
}

// float32 bits of a value that float16 represents exactly, or of an E8M0 value (rounded
// RNE, overflow -> Inf), or of a NaN 0x7FC00000 | sign (-> 0x7E00 | sign).
template <class DU32>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DU32>> F32BitsToF16(DU32 du32, hn::Vec<DU32> bits) {
  return F32BitsToF16Lanes(du32, bits);  // f32_helpers-inl.h: RNE of any float32
}

#if TENSORCAST_NATIVE_F16
// Code of F (i8 lanes, F::kFitsF16) -> float16 bits whose value is the code's value
// times 2^(bias - 15): E5M2 is the top byte of a float16; E4M3's fields go under
// float16's with a zero top exponent bit. NaN codes become 0x7E00 | sign (FNUZ 0xFE00).
template <class F, class DI8>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DI8>> F8ToF16Fields(DI8 di8, hn::Vec<DI8> code) {
  static_assert(F::kFitsF16, "float16 cannot hold the fields");
  const hn::Rebind<int16_t, DI8> di16;
  const hn::Rebind<uint16_t, DI8> du16;
  const auto s = hn::BitCast(du16, hn::PromoteTo(di16, code));  // sign extension
  constexpr int kShift = 10 - F::kM;
  // The mask drops the sign copies between the sign (bit 15) and the fields.
  const auto h =
      F::kM == 2 ? hn::ShiftLeft<8>(s)
                 : hn::And(hn::ShiftLeft<kShift>(s),
                           hn::Set(du16, static_cast<uint16_t>(0x8000u | (F::kMagMask << kShift))));
  const auto sign = hn::And(h, hn::Set(du16, 0x8000));
  const auto abs = hn::BitCast(di16, hn::Xor(h, sign));
  const auto is_nan = [&]() HWY_ATTR {
    if constexpr (F::kKind == F8Specials::kFn) {
      return hn::Eq(abs, hn::Set(di16, static_cast<int16_t>(F::kMagMask << kShift)));
    } else if constexpr (F::kKind == F8Specials::kIeee) {
      return hn::Gt(abs, hn::Set(di16, 0x7C00));
    } else {
      return hn::Eq(hn::BitCast(di16, h), hn::Set(di16, static_cast<int16_t>(-0x8000)));
    }
  }();
  (void)di8;
  return hn::IfThenElse(hn::RebindMask(du16, is_nan), hn::Or(sign, hn::Set(du16, 0x7E00)), h);
}
#endif

// Code of F (i8 lanes) -> float32 bits (u32 lanes), exact.
template <class F, class DI8>
HWY_INLINE hn::Vec<hn::Rebind<uint32_t, DI8>> F8CodeToF32Bits(DI8 di8, hn::Vec<DI8> code) {
  const hn::Rebind<uint32_t, DI8> du32;
#if TENSORCAST_NATIVE_F16
  if constexpr (F::kFitsF16) {
    const hn::Rebind<float, DI8> df;
    const hn::Rebind<hwy::float16_t, DI8> dh;
    auto f = hn::PromoteTo(df, hn::BitCast(dh, F8ToF16Fields<F>(di8, code)));
    if constexpr (F::kB != 15) {  // exact: normal values times a power of two; a NaN stays the same
      f = hn::Mul(f, hn::BitCast(df, hn::Set(du32, static_cast<uint32_t>(142 - F::kB) << 23)));
    }
    return hn::BitCast(du32, f);
  }
#endif
  const hn::RebindToSigned<decltype(du32)> di32;
  (void)di8;
  return F8ToF32Bits<F>(di32, hn::PromoteTo(di32, code));
}

// ---------------------------------------------------------------------------------------
// Loops.

template <class F, bool kSat>
HWY_INLINE void F32ToF8Loop(const void* src, void* dst, size_t count) {
  const F8DU32 du32;
  CastLoopToBytes(du32, du32, static_cast<const uint32_t*>(src), static_cast<uint8_t*>(dst), count,
                  [&](hn::Vec<F8DU32> v) HWY_ATTR {
#if TENSORCAST_F8_FMIN_KEEPS_NAN
                    return F32BitsToF8Fast<F, kSat>(du32, v);
#else
                    return F32BitsToF8<F, kSat>(du32, v);
#endif
                  });
}

template <class F, bool kSat>
HWY_INLINE void F16ToF8Loop(const void* src, void* dst, size_t count) {
  if constexpr (UseF16Lanes<F>()) {
    const hn::ScalableTag<uint16_t> du16;
    CastLoopToBytes(
        du16, du16, static_cast<const uint16_t*>(src), static_cast<uint8_t*>(dst), count,
        [&](hn::Vec<decltype(du16)> h) HWY_ATTR { return F16BitsToF8<F, kSat>(du16, h); });
  } else {
    const F8DU32 du32;
    const hn::Rebind<uint16_t, F8DU32> du16;
    CastLoopToBytes(du32, du16, static_cast<const uint16_t*>(src), static_cast<uint8_t*>(dst),
                    count, [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
                      return F32BitsToF8<F, kSat>(du32, F16ToF32Bits(du32, h));
                    });
  }
}

// BFLOAT16 -> F: the float32 bits of a bfloat16 are its bits << 16 (exact), then the
// float32 encoder (one rounding), fused in one loop (no two-step block).
template <class F, bool kSat>
HWY_INLINE void BF16ToF8Loop(const void* src, void* dst, size_t count) {
  const F8DU32 du32;
  const hn::Rebind<uint16_t, F8DU32> du16;
  CastLoopToBytes(du32, du16, static_cast<const uint16_t*>(src), static_cast<uint8_t*>(dst), count,
                  [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
                    const auto bits = hn::ShiftLeft<16>(hn::PromoteTo(du32, h));
#if TENSORCAST_F8_FMIN_KEEPS_NAN
                    return F32BitsToF8Fast<F, kSat>(du32, bits);
#else
                    return F32BitsToF8<F, kSat>(du32, bits);
#endif
                  });
}

template <class F>
HWY_INLINE void F8ToF32Loop(const void* src, void* dst, size_t count) {
  const F8DU32 du32;
  const hn::Rebind<int8_t, F8DU32> di8;
  CastLoop(di8, du32, static_cast<const int8_t*>(src), static_cast<uint32_t*>(dst), count,
           [&](hn::Vec<decltype(di8)> c) HWY_ATTR { return F8CodeToF32Bits<F>(di8, c); });
}

template <class F>
HWY_INLINE void F8ToF16Loop(const void* src, void* dst, size_t count) {
  const F8DU32 du32;
  const hn::Rebind<int8_t, F8DU32> di8;
  const hn::Rebind<uint16_t, F8DU32> du16;
  CastLoop(di8, du16, static_cast<const int8_t*>(src), static_cast<uint16_t*>(dst), count,
           [&](hn::Vec<decltype(di8)> c) HWY_ATTR {
#if TENSORCAST_NATIVE_F16
             if constexpr (F::kFitsF16 && F::kB == 15) {  // E5M2: already float16 bits
               return F8ToF16Fields<F>(di8, c);
             }
#endif
             return F32BitsToF16(du32, F8CodeToF32Bits<F>(di8, c));
           });
}

inline uint32_t E8M0RoundAdd(RoundMode mode) {
  return mode == RoundMode::kUp ? 0x7FFFFFu : mode == RoundMode::kNearest ? 0x400000u : 0u;
}

template <bool kSat>
HWY_INLINE void F32ToE8M0Loop(const void* src, void* dst, size_t count, RoundMode mode) {
  const F8DU32 du32;
  const auto round_add = hn::Set(du32, E8M0RoundAdd(mode));
  CastLoopToBytes(du32, du32, static_cast<const uint32_t*>(src), static_cast<uint8_t*>(dst), count,
                  [&](hn::Vec<F8DU32> v)
                      HWY_ATTR { return F32BitsToE8M0<kSat>(du32, v, round_add); });
}

template <bool kSat>
HWY_INLINE void F16ToE8M0Loop(const void* src, void* dst, size_t count, RoundMode mode) {
  const F8DU32 du32;
  const hn::Rebind<uint16_t, F8DU32> du16;
  const auto round_add = hn::Set(du32, E8M0RoundAdd(mode));
  CastLoopToBytes(du32, du16, static_cast<const uint16_t*>(src), static_cast<uint8_t*>(dst), count,
                  [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
                    return F32BitsToE8M0<kSat>(du32, F16ToF32Bits(du32, h), round_add);
                  });
}

template <bool kSat>
HWY_INLINE void BF16ToE8M0Loop(const void* src, void* dst, size_t count, RoundMode mode) {
  const F8DU32 du32;
  const hn::Rebind<uint16_t, F8DU32> du16;
  const auto round_add = hn::Set(du32, E8M0RoundAdd(mode));
  CastLoopToBytes(du32, du16, static_cast<const uint16_t*>(src), static_cast<uint8_t*>(dst), count,
                  [&](hn::Vec<decltype(du16)> h) HWY_ATTR {
                    return F32BitsToE8M0<kSat>(du32, hn::ShiftLeft<16>(hn::PromoteTo(du32, h)),
                                               round_add);
                  });
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_FLOAT8_CODEC_INL_H_
