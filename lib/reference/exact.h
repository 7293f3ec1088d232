// The exact value of one element, and the encoders that round it once into each
// target format. Every numeric source decodes into an Exact without loss (a finite
// value is mant * 2^exp with a 64-bit mant), so "one rounding" (docs/semantics.md,
// principle 1) holds by construction: encoders see the true value of the source.
#ifndef TENSORCAST_LIB_REFERENCE_EXACT_H_
#define TENSORCAST_LIB_REFERENCE_EXACT_H_

#include <cstdint>

#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace reference {

struct Exact {
  enum Kind : uint8_t { kFinite, kInf, kNaN };
  Kind kind = kFinite;
  bool neg = false;
  // Integer or bool sources: integer targets take the low bits of int_bits (wrap).
  bool is_int = false;
  bool is_bool = false;
  // kFinite: |value| = mant * 2^exp (mant == 0 is a zero of sign `neg`).
  // kNaN: the payload left-aligned, bit 63 = the quiet bit of the source format.
  uint64_t mant = 0;
  int32_t exp = 0;
  uint64_t int_bits = 0;  // two's complement of the (sign-extended) integer source
  // kNaN: the ONNX code of the source type (0 for strings). It decides the NaN bits
  // of IEEE targets; see EncodeIeee.
  uint8_t nan_source = 0;
};

// A binary floating-point format: `mant_bits` stored fraction bits, exponent `bias`,
// and the largest finite magnitude as a code without the sign bit.
struct FloatFormat {
  int mant_bits;
  int exp_bits;
  int bias;
  uint64_t max_code;
};

inline constexpr FloatFormat kF64 = {52, 11, 1023, 0x7FEFFFFFFFFFFFFFull};
inline constexpr FloatFormat kF32 = {23, 8, 127, 0x7F7FFFFF};
inline constexpr FloatFormat kF16 = {10, 5, 15, 0x7BFF};
inline constexpr FloatFormat kBF16 = {7, 8, 127, 0x7F7F};
inline constexpr FloatFormat kE4M3FN = {3, 4, 7, 0x7E};
inline constexpr FloatFormat kE4M3FNUZ = {3, 4, 8, 0x7F};
inline constexpr FloatFormat kE5M2 = {2, 5, 15, 0x7B};
inline constexpr FloatFormat kE5M2FNUZ = {2, 5, 16, 0x7F};
inline constexpr FloatFormat kF4E2M1 = {1, 2, 1, 0x7};
inline constexpr FloatFormat kF6E2M3 = {3, 2, 1, 0x1F};
inline constexpr FloatFormat kF6E3M2 = {2, 3, 3, 0x1F};

// Decoders: the exact value of a code. `type` selects the special-value rules.
Exact DecodeFloat(DataType type, uint64_t code);
Exact FromDouble(double v);
Exact FromSigned(int64_t v);
Exact FromUnsigned(uint64_t v);

// Encoders: one rounding of x into the target. `type` is a float type (FLOAT, DOUBLE,
// FLOAT16, BFLOAT16, the float8 types, FLOAT4E2M1 (4-bit code) or FLOAT8E8M0).
uint64_t EncodeFloat(DataType type, const Exact& x, const CastOptions& options);

// Integer targets of `bits` width (2, 4, 8, 16, 32, 64): the low `bits` bits of the
// result (two's complement). Integer sources wrap; float sources truncate toward zero,
// NaN -> 0, and then saturate (8..64-bit) or wrap (2/4-bit, |x| >= 2^31 -> 0).
uint64_t EncodeInt(const Exact& x, int bits, bool is_signed);

// Saturating truncation of x toward zero into [lo, hi] of a `bits`-wide integer;
// NaN -> 0. Used by float sources (8..64 bits) and by every string source.
uint64_t SaturatingTruncate(const Exact& x, int bits, bool is_signed);

// x != 0 (NaN -> true, -0.0 -> false).
bool IsNonZero(const Exact& x);

// The double nearest to x when x is representable in double (used for formatting).
double ToDouble(const Exact& x);

}  // namespace reference
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_REFERENCE_EXACT_H_
