// The FLOAT6E2M3 / FLOAT6E3M2 codec (Highway, foreach_target): the formats, the float32
// encoder (CodeFromF32) and decoder, and the 4-in-3 packing of whole vectors (PackFour,
// UnpackThree), shared by the Cast kernels (float6_cast-inl.h, whose header states the
// rules) and the MX quantizer (block_scale-inl.h).

// Per-target include guard (Highway's foreach_target idiom).
#if defined(TENSORCAST_LIB_KERNELS_FLOAT6_CODEC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_FLOAT6_CODEC_INL_H_
#undef TENSORCAST_LIB_KERNELS_FLOAT6_CODEC_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_FLOAT6_CODEC_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "lib/kernels/f32_helpers-inl.h"
#include "lib/kernels/float8_codec-inl.h"
#include "lib/kernels/pack-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace float6 {

using FmtE2M3 = F8Format<6, 3, 1, 0x1F, F8Specials::kNone>;
using FmtE3M2 = F8Format<6, 2, 3, 0x1F, F8Specials::kNone>;

using DU32 = hn::ScalableTag<uint32_t>;
using DI32 = hn::RebindToSigned<DU32>;
using DF32 = hn::Rebind<float, DU32>;
using DU16 = hn::Repartition<uint16_t, DU32>;
using DU8V = hn::Repartition<uint8_t, DU32>;
using DU8Q = hn::Rebind<uint8_t, DU32>;  // V bytes, one per u32 lane

// float32 bits -> code of F (u32 lanes), RNE, saturating; NaN -> the zero of the other sign.
// |x| is clamped to MAX (x86: minps, which keeps a NaN; elsewhere an integer min of the
// non-negative bits, with NaN caught first).
// With E = max(exponent field of |x|, 128 - bias), i.e. |x|'s binade but at least the
// smallest normal one, magic = 2^(E - 127 + 23 - M) has an ulp equal to the format's step
// there, so |x| + magic (FPU, RNE) rounds |x| and its fraction field is the number s of
// steps (at most 2^(M+1): |x| + magic stays in magic's binade). code = s + ((E - (128 -
// bias)) << M) for subnormal and normal results alike: a carry into the next binade
// comes out right by itself. The sign (bit 5) is applied with XOR, which also gives a
// NaN (magnitude replaced by 0x20) the zero of the other sign.
template <class F>
HWY_INLINE hn::Vec<DU32> CodeFromF32(hn::Vec<DU32> bits) {
  const DI32 di32;
  const DF32 df;
  constexpr int kD = 23 - F::kM;
  constexpr int32_t kFloorExp = (128 - F::kB) << 23;
  const auto a = hn::BitCast(di32, hn::And(bits, hn::Set(DU32(), 0x7FFFFFFFu)));
#if TENSORCAST_F8_FMIN_KEEPS_NAN
  // minps(MAX, NaN) keeps the NaN: its E is 255, its code above 0x20, which min maps to 0x20.
  const auto c =
      hn::BitCast(di32, hn::Min(hn::BitCast(df, hn::Set(di32, static_cast<int32_t>(F::kMaxBits))),
                                hn::BitCast(df, a)));
#else
  const auto is_nan = hn::Gt(a, hn::Set(di32, 0x7F800000));
  const auto c = hn::Min(a, hn::Set(di32, static_cast<int32_t>(F::kMaxBits)));
#endif
  const auto eb = hn::Max(hn::And(c, hn::Set(di32, 0x7F800000)), hn::Set(di32, kFloorExp));
  const auto magic = hn::Add(eb, hn::Set(di32, kD << 23));
  const auto sum = hn::BitCast(di32, hn::Add(hn::BitCast(df, c), hn::BitCast(df, magic)));
  const auto code = hn::Add(hn::And(sum, hn::Set(di32, (4 << F::kM) - 1)),
                            hn::ShiftRight<kD>(hn::Sub(eb, hn::Set(di32, kFloorExp))));
#if TENSORCAST_F8_FMIN_KEEPS_NAN
  const auto mag = hn::Min(code, hn::Set(di32, 0x20));
#else
  const auto mag = hn::IfThenElse(is_nan, hn::Set(di32, 0x20), code);
#endif
  return hn::Xor(hn::BitCast(DU32(), mag),
                 hn::And(hn::ShiftRight<26>(bits), hn::Set(DU32(), 0x20u)));
}

// Codes of F (u32 lanes, < 64) -> float32 bits, exact.
template <class F>
HWY_INLINE hn::Vec<DU32> F32FromCode(hn::Vec<DU32> code) {
  const DI32 di32;
  const auto sext = hn::ShiftRight<26>(hn::BitCast(di32, hn::ShiftLeft<26>(code)));
  return F8ToF32Bits<F>(di32, sext);
}

// float32 bits of a 6-bit value -> its FLOAT16 bits (u32 lanes): non-zero magnitudes are
// normal float16 numbers (>= 2^-4), so rebiasing the exponent and dropping 13 zero
// fraction bits is exact.
HWY_INLINE hn::Vec<DU32> F16BitsOfF32(hn::Vec<DU32> bits) {
  const DU32 du32;
  const auto a = hn::And(bits, hn::Set(du32, 0x7FFFFFFFu));
  const auto mag = hn::IfThenZeroElse(hn::Eq(a, hn::Zero(du32)),
                                      hn::Sub(hn::ShiftRight<13>(a), hn::Set(du32, 112u << 10)));
  return hn::Or(mag, hn::And(hn::ShiftRight<16>(bits), hn::Set(du32, 0x8000u)));
}

#if HWY_TARGET != HWY_SCALAR

// Lane permutations of the packing, per call (they depend on the vector length only).
// V u32 lanes per vector, G = 3V/4 group lanes per code vector.
struct Layout {
  static constexpr size_t kMaxLanes = HWY_MAX_BYTES / 4;
  // pack[k]: lane l of output k's contribution <- shuffled lane of group (l - k*G) mod V.
  // unpack[k]: lane j (j % 4 < 3) <- packed lane (k*G + j - j/4) mod V.
  alignas(64) int32_t pack[4][kMaxLanes];
  alignas(64) int32_t unpack[4][kMaxLanes];
  size_t v;

  Layout() : v(hn::Lanes(DU32())) {
    const size_t g = 3 * v / 4;
    for (size_t k = 0; k < 4; ++k) {
      for (size_t l = 0; l < v; ++l) {
        const size_t m = (l + v * 4 - k * g % v) % v;  // group index within code vector k
        pack[k][l] = m < g ? static_cast<int32_t>(m + m / 3) : 0;
        unpack[k][l] = l % 4 == 3 ? 0 : static_cast<int32_t>((k * g + l - l / 4) % v);
      }
    }
  }
};

// One u8 vector of codes (< 64) -> V 24-bit groups (u32 lanes): group q holds codes
// 4q .. 4q+3, code r in bits [6r, 6r + 6). Neighbours are joined in two steps: u16 lanes
// c0 | c1 << 8 -> c0 | c1 << 6 (12 bits), then u32 lanes t0 | t1 << 16 -> t0 | t1 << 12;
// each step's right shift moves the low field's bits below the high field's mask.
HWY_INLINE hn::Vec<DU32> GroupsFromCodes(hn::Vec<DU8V> codes) {
  const DU32 du32;
  const DU16 du16;
  const auto x = hn::BitCast(du16, codes);
  const auto t = hn::BitCast(
      du32, hn::OrAnd(hn::And(x, hn::Set(du16, 0x3F)), hn::ShiftRight<2>(x), hn::Set(du16, 0xFC0)));
  return hn::OrAnd(hn::And(t, hn::Set(du32, 0xFFFu)), hn::ShiftRight<4>(t),
                   hn::Set(du32, 0xFFF000u));
}

// The inverse of GroupsFromCodes (bits 24-31 of each lane are ignored).
HWY_INLINE hn::Vec<DU8V> CodesFromGroups(hn::Vec<DU32> v) {
  const DU32 du32;
  const auto c0 = hn::And(v, hn::Set(du32, 0x3Fu));
  const auto c1 = hn::And(hn::ShiftLeft<2>(v), hn::Set(du32, 0x3Fu << 8));
  const auto c2 = hn::And(hn::ShiftLeft<4>(v), hn::Set(du32, 0x3Fu << 16));
  const auto c3 = hn::And(hn::ShiftLeft<6>(v), hn::Set(du32, 0x3Fu << 24));
  return hn::BitCast(DU8V(), hn::Or(hn::Or(c0, c1), hn::Or(c2, c3)));
}

// Code vector k's groups, their three bytes each contiguous, rotated to their lanes of
// the output vectors (Layout::pack[k]).
HWY_INLINE hn::Vec<DU32> PlacedGroups(const Layout& t, size_t k, hn::Vec<DU8V> codes) {
  const DU32 du32;
  const DU8V du8;
  alignas(16) static constexpr uint8_t kSqueeze[16] = {0,  1,  2,  4,  5,  6,  8,  9,
                                                       10, 12, 13, 14, 15, 15, 15, 15};
  const auto groups = hn::BitCast(du8, GroupsFromCodes(codes));
  const auto squeezed =
      hn::BitCast(du32, hn::TableLookupBytes(groups, hn::LoadDup128(du8, kSqueeze)));
  return hn::TableLookupLanes(squeezed, hn::IndicesFromVec(du32, hn::Load(DI32(), t.pack[k])));
}

// Four u8 vectors of codes -> three u8 vectors of packed bytes, stored at out.
template <bool kStream>
HWY_INLINE void PackFour(const Layout& t, hn::Vec<DU8V> c0, hn::Vec<DU8V> c1, hn::Vec<DU8V> c2,
                         hn::Vec<DU8V> c3, uint8_t* HWY_RESTRICT out) {
  const DU32 du32;
  const DU8V du8;
  const size_t v = t.v;
  const auto p0 = PlacedGroups(t, 0, c0);
  const auto p1 = PlacedGroups(t, 1, c1);
  const auto p2 = PlacedGroups(t, 2, c2);
  const auto p3 = PlacedGroups(t, 3, c3);
  const size_t bytes = hn::Lanes(du8);
  StoreOut<kStream>(hn::BitCast(du8, hn::IfThenElse(hn::FirstN(du32, 3 * v / 4), p0, p1)), du8,
                    out);
  StoreOut<kStream>(hn::BitCast(du8, hn::IfThenElse(hn::FirstN(du32, v / 2), p1, p2)), du8,
                    out + bytes);
  StoreOut<kStream>(hn::BitCast(du8, hn::IfThenElse(hn::FirstN(du32, v / 4), p2, p3)), du8,
                    out + 2 * bytes);
}

// Code vector k (of four) from `packed`, the blend of the packed vectors that holds its
// groups: its lanes are gathered by Layout::unpack[k], then each group's three bytes are
// spread into a u32 lane.
HWY_INLINE hn::Vec<DU8V> UnpackOne(const Layout& t, size_t k, hn::Vec<DU32> packed) {
  const DU32 du32;
  const DU8V du8;
  alignas(16) static constexpr uint8_t kSpread[16] = {0, 1, 2, 0x80, 3, 4,  5,  0x80,
                                                      6, 7, 8, 0x80, 9, 10, 11, 0x80};
  const auto gathered =
      hn::TableLookupLanes(packed, hn::IndicesFromVec(du32, hn::Load(DI32(), t.unpack[k])));
  const auto spread =
      hn::TableLookupBytesOr0(hn::BitCast(du8, gathered), hn::LoadDup128(du8, kSpread));
  return CodesFromGroups(hn::BitCast(du32, spread));
}

// Three u8 vectors of packed bytes at `in` -> four u8 vectors of codes into codes[0 .. 4L).
HWY_INLINE void UnpackThree(const Layout& t, const uint8_t* HWY_RESTRICT in,
                            uint8_t* HWY_RESTRICT codes) {
  const DU32 du32;
  const DU8V du8;
  const size_t v = t.v, bytes = hn::Lanes(du8);
  const auto in0 = hn::BitCast(du32, hn::LoadU(du8, in));
  const auto in1 = hn::BitCast(du32, hn::LoadU(du8, in + bytes));
  const auto in2 = hn::BitCast(du32, hn::LoadU(du8, in + 2 * bytes));
  hn::Store(UnpackOne(t, 0, in0), du8, codes);
  hn::Store(UnpackOne(t, 1, hn::IfThenElse(hn::FirstN(du32, v / 2), in1, in0)), du8, codes + bytes);
  hn::Store(UnpackOne(t, 2, hn::IfThenElse(hn::FirstN(du32, v / 4), in2, in1)), du8,
            codes + 2 * bytes);
  hn::Store(UnpackOne(t, 3, in2), du8, codes + 3 * bytes);
}

#endif  // HWY_TARGET != HWY_SCALAR

// Elements per chunk: four u8 vectors of codes (SCALAR: four codes).
HWY_INLINE size_t Chunk() {
#if HWY_TARGET == HWY_SCALAR
  return 4;
#else
  return 4 * hn::Lanes(DU8V());
#endif
}

}  // namespace float6

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_FLOAT6_CODEC_INL_H_
