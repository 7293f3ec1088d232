// The facts of every ONNX element type, one row per type, and the predicates derived
// from them. Internal (not installed). Names, widths, castability and opset checks of
// the public API are read from this table; the public C++ and C enums are written out
// in their headers and checked against it by static_assert (data_type.cc, c_api.cc).
//
// Adding an element type: one row here (in code order), its enumerator in
// include/tensorcast/data_type.h and tensorcast_c.h (with kMaxDataTypeCode and
// TC_MAX_TYPE_CODE), and its codec.
#ifndef TENSORCAST_LIB_TYPE_FACTS_H_
#define TENSORCAST_LIB_TYPE_FACTS_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/data_type.h"

namespace tensorcast {

enum class TypeKind : uint8_t {
  kUndefined,    // code 0 and codes outside the table
  kFloat,        // a binary floating-point format (IEEE or float8/float4/e8m0)
  kSignedInt,    // two's complement
  kUnsignedInt,  // plain binary
  kBool,         // one byte, 0 or 1
  kString,       // variable length; std::string elements
  kComplex,      // pairs of FLOAT or DOUBLE; storage only
};

// How a float format spends its special codes. Every style but kNone has NaN.
enum class NanStyle : uint8_t {
  kNone,  // no Inf, no NaN (FLOAT4E2M1; every non-float type)
  kIeee,  // exponent all ones: Inf (fraction 0) or NaN (fraction != 0)
  kFn,    // no Inf; NaN = sign and all other bits one (0x7F / 0xFF)
  kFnuz,  // no Inf, no negative zero; NaN = 0x80 (the negative-zero code)
  kE8M0,  // exponent only: no sign, no zero, no Inf; NaN = 0xFF
};

struct TypeFacts {
  int32_t code;      // ONNX TensorProto.DataType code; -1 in the sentinel row
  const char* name;  // ONNX name, upper case as in onnx.proto
  int bits;          // bits per element; 0 for STRING (variable) and undefined codes
  TypeKind kind;
  // Float kinds only (0 otherwise): stored exponent and fraction bits, exponent bias.
  int exponent_bits;
  int mantissa_bits;
  int exponent_bias;
  bool has_inf;
  bool has_nan;
  NanStyle nan_style;
  bool packed;     // bits < 8: element i in bits [i * bits, (i + 1) * bits) of the
                   // little-endian bit stream (bit k of byte j is bit 8j + k)
  int cast_since;  // first opset of Cast that accepts the type; 0: never (complex)
  // The numpy dtype name (ml_dtypes for the types numpy lacks); "object" for STRING, as
  // onnx.helper maps it; nullptr for undefined codes.
  const char* numpy_name;
};

namespace type_facts_internal {

using K = TypeKind;
using N = NanStyle;

// A row of a type that is not a float format.
constexpr TypeFacts Row(int32_t code, const char* name, int bits, TypeKind kind, int cast_since,
                        const char* numpy_name) {
  TypeFacts f{};
  f.code = code;
  f.name = name;
  f.bits = bits;
  f.kind = kind;
  f.nan_style = NanStyle::kNone;
  f.packed = bits > 0 && bits < 8;
  f.cast_since = cast_since;
  f.numpy_name = numpy_name;
  return f;
}

// A row of a float format: exponent and mantissa (fraction) bits and bias as stored; the
// specials follow from the NaN style (only the IEEE style has Inf).
constexpr TypeFacts FloatRow(int32_t code, const char* name, int bits, int exponent_bits,
                             int mantissa_bits, int exponent_bias, NanStyle nan_style,
                             int cast_since, const char* numpy_name) {
  TypeFacts f = Row(code, name, bits, TypeKind::kFloat, cast_since, numpy_name);
  f.exponent_bits = exponent_bits;
  f.mantissa_bits = mantissa_bits;
  f.exponent_bias = exponent_bias;
  f.has_inf = nan_style == NanStyle::kIeee;
  f.has_nan = nan_style != NanStyle::kNone;
  f.nan_style = nan_style;
  return f;
}

// Row i has code i. Columns of Row: code, name, bits, kind, first opset of Cast (0:
// never), numpy name. FloatRow: code, name, bits, exponent bits, mantissa bits, bias,
// NaN style, first opset of Cast, numpy name.
// clang-format off
inline constexpr TypeFacts kRows[] = {
    Row(      0, "UNDEFINED",        0, K::kUndefined,            0, nullptr),
    FloatRow( 1, "FLOAT",           32,  8, 23,  127, N::kIeee,   1, "float32"),
    Row(      2, "UINT8",            8, K::kUnsignedInt,          1, "uint8"),
    Row(      3, "INT8",             8, K::kSignedInt,            1, "int8"),
    Row(      4, "UINT16",          16, K::kUnsignedInt,          1, "uint16"),
    Row(      5, "INT16",           16, K::kSignedInt,            1, "int16"),
    Row(      6, "INT32",           32, K::kSignedInt,            1, "int32"),
    Row(      7, "INT64",           64, K::kSignedInt,            1, "int64"),
    Row(      8, "STRING",           0, K::kString,               9, "object"),
    Row(      9, "BOOL",             8, K::kBool,                 1, "bool"),
    FloatRow(10, "FLOAT16",         16,  5, 10,   15, N::kIeee,   1, "float16"),
    FloatRow(11, "DOUBLE",          64, 11, 52, 1023, N::kIeee,   1, "float64"),
    Row(     12, "UINT32",          32, K::kUnsignedInt,          1, "uint32"),
    Row(     13, "UINT64",          64, K::kUnsignedInt,          1, "uint64"),
    Row(     14, "COMPLEX64",       64, K::kComplex,              0, "complex64"),
    Row(     15, "COMPLEX128",     128, K::kComplex,              0, "complex128"),
    FloatRow(16, "BFLOAT16",        16,  8,  7,  127, N::kIeee,  13, "bfloat16"),
    FloatRow(17, "FLOAT8E4M3FN",     8,  4,  3,    7, N::kFn,    19, "float8_e4m3fn"),
    FloatRow(18, "FLOAT8E4M3FNUZ",   8,  4,  3,    8, N::kFnuz,  19, "float8_e4m3fnuz"),
    FloatRow(19, "FLOAT8E5M2",       8,  5,  2,   15, N::kIeee,  19, "float8_e5m2"),
    FloatRow(20, "FLOAT8E5M2FNUZ",   8,  5,  2,   16, N::kFnuz,  19, "float8_e5m2fnuz"),
    Row(     21, "UINT4",            4, K::kUnsignedInt,         21, "uint4"),
    Row(     22, "INT4",             4, K::kSignedInt,           21, "int4"),
    FloatRow(23, "FLOAT4E2M1",       4,  2,  1,    1, N::kNone,  23, "float4_e2m1fn"),
    FloatRow(24, "FLOAT8E8M0",       8,  8,  0,  127, N::kE8M0,  24, "float8_e8m0fnu"),
    Row(     25, "UINT2",            2, K::kUnsignedInt,         25, "uint2"),
    Row(     26, "INT2",             2, K::kSignedInt,           25, "int2"),
    FloatRow(27, "FLOAT6E2M3",       6,  2,  3,    1, N::kNone,  28, "float6_e2m3fn"),
    FloatRow(28, "FLOAT6E3M2",       6,  3,  2,    3, N::kNone,  28, "float6_e3m2fn"),
};
// clang-format on

// Returned for codes outside the table.
inline constexpr TypeFacts kInvalid = Row(-1, "INVALID", 0, K::kUndefined, 0, nullptr);

inline constexpr int kRowCount = static_cast<int>(sizeof(kRows) / sizeof(kRows[0]));

constexpr bool RowsInCodeOrder() {
  for (int i = 0; i < kRowCount; ++i) {
    if (kRows[i].code != i) return false;
  }
  return true;
}

// What the kind of each row implies about its other columns.
constexpr bool RowsConsistent() {
  for (const TypeFacts& f : kRows) {
    if (f.kind != K::kFloat) {
      if (f.exponent_bits != 0 || f.mantissa_bits != 0 || f.exponent_bias != 0 || f.has_inf ||
          f.has_nan || f.nan_style != N::kNone) {
        return false;
      }
    } else if ((f.nan_style == N::kE8M0 ? 0 : 1) + f.exponent_bits + f.mantissa_bits != f.bits) {
      return false;  // sign bit (none in e8m0), exponent and fraction fill the element
    }
    // Packed widths: 1, 2 and 4 bits per element fill whole bytes; 6 bits fill three
    // bytes per four elements.
    if (f.packed && 8 % f.bits != 0 && f.bits != 6) return false;
    if ((f.cast_since == 0) != (f.kind == K::kComplex || f.kind == K::kUndefined)) return false;
    if ((f.numpy_name == nullptr) != (f.kind == K::kUndefined)) return false;
  }
  return true;
}

static_assert(RowsInCodeOrder(), "row i of the type table must have code i");
static_assert(kRowCount == kMaxDataTypeCode + 1, "one row per code 0..kMaxDataTypeCode");
static_assert(RowsConsistent(), "a row of the type table contradicts its kind");

}  // namespace type_facts_internal

// The row of `type`; the "INVALID" sentinel row (code -1, kind kUndefined) for codes
// outside 0..kMaxDataTypeCode. Code 0 has its own row, "UNDEFINED".
constexpr const TypeFacts& Facts(DataType type) noexcept {
  const int code = static_cast<int>(type);
  return code >= 0 && code < type_facts_internal::kRowCount ? type_facts_internal::kRows[code]
                                                            : type_facts_internal::kInvalid;
}

// The 8..64-bit and the 4-/2-bit integers, signed or not. BOOL is not an integer.
constexpr bool IsInteger(DataType type) noexcept {
  return Facts(type).kind == TypeKind::kSignedInt || Facts(type).kind == TypeKind::kUnsignedInt;
}

// INT8..INT64, INT4, INT2.
constexpr bool IsSignedInteger(DataType type) noexcept {
  return Facts(type).kind == TypeKind::kSignedInt;
}

// Every float format: DOUBLE, FLOAT, FLOAT16, BFLOAT16, the float8 formats (FLOAT8E8M0
// included) and FLOAT4E2M1.
constexpr bool IsFloat(DataType type) noexcept { return Facts(type).kind == TypeKind::kFloat; }

// Packed several to a byte: INT4, UINT4, FLOAT4E2M1, INT2, UINT2.
constexpr bool IsSubByte(DataType type) noexcept { return Facts(type).packed; }

// At most 8 bits, so at most 256 codes: the 8-bit integers, BOOL, the float8 formats
// and the sub-byte types.
constexpr bool IsSmallCode(DataType type) noexcept {
  const TypeFacts& f = Facts(type);
  return f.kind != TypeKind::kString && f.bits >= 1 && f.bits <= 8;
}

// Float formats of at most 22 significand bits (the implicit bit included): FLOAT16,
// BFLOAT16, the float8 formats, FLOAT4E2M1. For these a float32 rounded to odd (two
// more significand bits than the target's) is an exact stand-in for a wider source.
constexpr bool IsSmallFloat(DataType type) noexcept {
  return IsFloat(type) && Facts(type).mantissa_bits + 1 <= 22;
}

namespace type_facts_internal {

// The range of a float format's non-zero finite magnitudes as powers of two: each is a
// multiple of 2^MinExponent (the smallest subnormal, or 2^-bias for e8m0, which has no
// subnormals) and below 2^(MaxExponent + 1). IEEE and e8m0 formats reserve the
// all-ones exponent field.
constexpr int MinExponent(const TypeFacts& f) {
  return 1 - f.exponent_bias - f.mantissa_bits - (f.nan_style == NanStyle::kE8M0 ? 1 : 0);
}
constexpr int MaxExponent(const TypeFacts& f) {
  const bool top_reserved = f.nan_style == NanStyle::kIeee || f.nan_style == NanStyle::kE8M0;
  return (1 << f.exponent_bits) - 1 - (top_reserved ? 1 : 0) - f.exponent_bias;
}

inline constexpr const TypeFacts& kF32 = kRows[static_cast<int>(DataType::kFloat)];

}  // namespace type_facts_internal

// Types narrower than FLOAT whose every value FLOAT holds exactly (so a cast from them
// into FLOAT loses nothing): FLOAT16, BFLOAT16, the float8 formats, FLOAT4E2M1, the
// integers of at most 16 bits (4- and 2-bit included) and BOOL. FLOAT itself is not one.
constexpr bool IsExactInFloat32(DataType type) noexcept {
  using type_facts_internal::kF32;
  using type_facts_internal::MaxExponent;
  using type_facts_internal::MinExponent;
  const TypeFacts& f = Facts(type);
  if (f.bits <= 0 || f.bits >= kF32.bits) return false;
  switch (f.kind) {
    case TypeKind::kBool: return true;
    // Integers: magnitudes below 2^(significand bits of FLOAT).
    case TypeKind::kUnsignedInt: return f.bits <= kF32.mantissa_bits + 1;
    case TypeKind::kSignedInt: return f.bits - 1 <= kF32.mantissa_bits + 1;
    case TypeKind::kFloat:
      return f.mantissa_bits <= kF32.mantissa_bits && MinExponent(f) >= MinExponent(kF32) &&
             MaxExponent(f) <= MaxExponent(kF32);
    default: return false;
  }
}

}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TYPE_FACTS_H_
