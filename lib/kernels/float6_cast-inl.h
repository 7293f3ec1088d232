// Kernels between the 6-bit float formats (FLOAT6E2M3, FLOAT6E3M2) and FLOAT, FLOAT16,
// BFLOAT16.
//
// Pairs:    FLOAT, FLOAT16, BFLOAT16 -> FLOAT6E2M3, FLOAT6E3M2 and back (12 kernels). The
//           other pairs of the two formats run through FLOAT (the route plan's hub).
// Rounding: the source's float32 bits (FLOAT16 and BFLOAT16 widened exactly, as in
//           subbyte_cast-inl.h) are rounded to nearest even by one float addition whose
//           ulp is the format's step (CodeFromF32), always saturating: |x| is clamped to
//           the largest magnitude (7.5, 28) first, so +-Inf and overflow give +-max
//           (docs/semantics.md, "float6").
// NaN:      replaced before rounding by a zero with the sign flipped: a NaN whose sign bit
//           is 0 gives 0x20 (-0), one whose sign bit is 1 gives 0x00, as FLOAT4E2M1.
// Decoding: exact. F8ToF32Bits on the sign-extended code; FLOAT16 from those by the
//           hardware conversion where it is exact (TENSORCAST_NATIVE_F16), elsewhere by
//           rebiasing and shifting (every non-zero 6-bit value is a normal float16);
//           BFLOAT16 bits are the top half of the float32 bits.
// Packing:  four codes in three bytes, element i in bits [6i, 6i + 6) (docs/semantics.md,
//           "Packing"). One u8 vector of codes (4V codes, V = Lanes(u32)) becomes V 24-bit
//           groups in u32 lanes (shifts and masks); a byte shuffle within each 16-byte
//           block moves each block's three groups to its low 12 bytes, and a lane
//           permutation gathers the 3V/4 group lanes, rotated to where they belong among
//           three output vectors. Four code vectors fill three output vectors exactly,
//           merged by blends on FirstN masks, so every store is a whole vector (streamed
//           when large). Unpacking runs the same steps backwards. SCALAR packs four codes
//           with integer shifts.
// Chunks:   16V elements (four u8 vectors of codes, three vectors of packed bytes); SCALAR
//           4. Tails go through DecodeLoop's zero-filled buffers (pack-inl.h): zero
//           sources encode to code 0, so the padding bits of a partial last byte are 0.

#if defined(TENSORCAST_LIB_KERNELS_FLOAT6_CAST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_FLOAT6_CAST_INL_H_
#undef TENSORCAST_LIB_KERNELS_FLOAT6_CAST_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_FLOAT6_CAST_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "lib/kernels/f32_helpers-inl.h"
#include "lib/kernels/float6_codec-inl.h"
#include "lib/kernels/float8_codec-inl.h"
#include "lib/kernels/pack-inl.h"
#include "tensorcast/cast_options.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace float6 {

// FLOAT (kSrcBits 32), FLOAT16 (16) or BFLOAT16 (16 with kBf16) -> codes of F, packed.
template <class F, int kSrcBits, bool kBf16 = false>
HWY_INLINE void Encode(const void* src, void* dst, size_t count) {
  const DU32 du32;
  const size_t n = hn::Lanes(du32);
  const auto code = [&](const uint8_t* in, size_t j) TENSORCAST_LAMBDA_INLINE {
    if constexpr (kSrcBits == 32) {
      return CodeFromF32<F>(hn::LoadU(du32, reinterpret_cast<const uint32_t*>(in) + j * n));
    } else if constexpr (kBf16) {
      return CodeFromF32<F>(F32BitsFromBF16(reinterpret_cast<const uint16_t*>(in) + j * n));
    } else {
      return CodeFromF32<F>(F32BitsFromF16(reinterpret_cast<const uint16_t*>(in) + j * n));
    }
  };
#if HWY_TARGET == HWY_SCALAR
  DecodeLoop<kSrcBits, 6, true>(src, dst, count, Chunk(),
                                [&](const uint8_t* in, uint8_t* out, auto) {
                                  uint32_t c[4];
                                  for (size_t j = 0; j < 4; ++j) c[j] = hn::GetLane(code(in, j));
                                  out[0] = static_cast<uint8_t>(c[0] | c[1] << 6);
                                  out[1] = static_cast<uint8_t>(c[1] >> 2 | c[2] << 4);
                                  out[2] = static_cast<uint8_t>(c[2] >> 4 | c[3] << 2);
                                });
#else
  const Layout t;
  DecodeLoop<kSrcBits, 6, true>(
      src, dst, count, Chunk(),
      [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
        const auto vec = [&](size_t q) TENSORCAST_LAMBDA_INLINE {
          return NarrowBytes(du32, code(in, 4 * q), code(in, 4 * q + 1), code(in, 4 * q + 2),
                             code(in, 4 * q + 3));
        };
        PackFour<decltype(stream)::value>(t, vec(0), vec(1), vec(2), vec(3), out);
      });
#endif
}

// Packed codes of F -> FLOAT (kOut 32), FLOAT16 (16) or BFLOAT16 (16 with kBf16).
template <class F, int kOut, bool kBf16 = false>
HWY_INLINE void Decode(const void* src, void* dst, size_t count) {
  const DU32 du32;
  // Output bits of codes (u32 lanes): float32, or float16/bfloat16 in the low 16 bits.
  const auto value = [](hn::Vec<DU32> c) TENSORCAST_LAMBDA_INLINE {
    const auto bits = F32FromCode<F>(c);
    if constexpr (kOut == 32) {
      return bits;
    } else if constexpr (kBf16) {
      return hn::ShiftRight<16>(bits);
    } else {
      return F16BitsOfF32(bits);
    }
  };
#if HWY_TARGET == HWY_SCALAR
  DecodeLoop<6, kOut>(src, dst, count, Chunk(), [&](const uint8_t* in, uint8_t* out, auto) {
    const uint32_t w =
        in[0] | static_cast<uint32_t>(in[1]) << 8 | static_cast<uint32_t>(in[2]) << 16;
    for (size_t j = 0; j < 4; ++j) {
      const uint32_t v = hn::GetLane(value(hn::Set(du32, (w >> (6 * j)) & 0x3F)));
      if constexpr (kOut == 32) {
        std::memcpy(out + 4 * j, &v, 4);
      } else {
        const auto h = static_cast<uint16_t>(v);
        std::memcpy(out + 2 * j, &h, 2);
      }
    }
  });
#else
  const Layout t;
  const DU8Q du8q;
  const size_t n = hn::Lanes(du32);
  DecodeLoop<6, kOut>(
      src, dst, count, Chunk(),
      [&](const uint8_t* in, uint8_t* out, auto stream) TENSORCAST_LAMBDA_INLINE {
        constexpr bool kStream = decltype(stream)::value;
        HWY_ALIGN uint8_t codes[4 * HWY_MAX_BYTES];
        UnpackThree(t, in, codes);
        const auto code_at = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
          return hn::PromoteTo(du32, hn::LoadU(du8q, codes + j * n));
        };
        const auto at = [&](size_t j) TENSORCAST_LAMBDA_INLINE { return value(code_at(j)); };
        if constexpr (kOut == 32) {
          for (size_t j = 0; j < 16; ++j) {
            StoreOut<kStream>(at(j), du32, reinterpret_cast<uint32_t*>(out) + j * n);
          }
        } else if constexpr (!kBf16 && TENSORCAST_NATIVE_F16) {
          // Every 6-bit value is exact in float16: the hardware narrows.
          const hn::Rebind<hwy::float16_t, DU32> dh;
          for (size_t j = 0; j < 16; ++j) {
            StoreOut<kStream>(hn::DemoteTo(dh, hn::BitCast(DF32(), F32FromCode<F>(code_at(j)))), dh,
                              reinterpret_cast<hwy::float16_t*>(out) + j * n);
          }
        } else {
          const DU16 du16;
          for (size_t j = 0; j < 8; ++j) {
            const auto lo = hn::BitCast(du16, at(2 * j));
            const auto hi = hn::BitCast(du16, at(2 * j + 1));
            StoreOut<kStream>(hn::ConcatEven(du16, hi, lo), du16,
                              reinterpret_cast<uint16_t*>(out) + 2 * j * n);
          }
        }
      });
#endif
}

}  // namespace float6

// ------------------------------------------------------------------ registry kernels

#define TENSORCAST_FLOAT6_KERNEL(name, body) \
  void name(const void* src, void* dst, size_t count, const CastOptions&) { body; }

TENSORCAST_FLOAT6_KERNEL(CastF32ToF6E2M3, (float6::Encode<float6::FmtE2M3, 32>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF32ToF6E3M2, (float6::Encode<float6::FmtE3M2, 32>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF16ToF6E2M3, (float6::Encode<float6::FmtE2M3, 16>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF16ToF6E3M2, (float6::Encode<float6::FmtE3M2, 16>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastBF16ToF6E2M3,
                         (float6::Encode<float6::FmtE2M3, 16, true>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastBF16ToF6E3M2,
                         (float6::Encode<float6::FmtE3M2, 16, true>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF6E2M3ToF32, (float6::Decode<float6::FmtE2M3, 32>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF6E3M2ToF32, (float6::Decode<float6::FmtE3M2, 32>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF6E2M3ToF16, (float6::Decode<float6::FmtE2M3, 16>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF6E3M2ToF16, (float6::Decode<float6::FmtE3M2, 16>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF6E2M3ToBF16,
                         (float6::Decode<float6::FmtE2M3, 16, true>(src, dst, count)))
TENSORCAST_FLOAT6_KERNEL(CastF6E3M2ToBF16,
                         (float6::Decode<float6::FmtE3M2, 16, true>(src, dst, count)))

#undef TENSORCAST_FLOAT6_KERNEL

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_FLOAT6_CAST_INL_H_
