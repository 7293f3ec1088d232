// Strings <-> numbers, locale-independent (std::from_chars / std::to_chars plus a
// small big-integer comparison for exact rounding).
//
// Parsing accepts (docs/semantics.md, "Strings"): optional leading/trailing ASCII
// whitespace, an optional sign, decimal digits with an optional fraction and
// exponent ("1e-5", "1E8", ".5", "5."), and "inf" / "infinity" / "nan" in any case
// with an optional sign. Everything else ("abc", "", "0x10", "1.5abc") is rejected.
//
// Formatting is numpy's str(): the shortest digits that round-trip at the source
// precision, positional when x == 0 or 1e-4 <= |x| < 1e16 (always with a fractional
// digit: "1.0"), otherwise d[.ddd]e+XX; "nan", "inf", "-inf", "-0.0".
#ifndef TENSORCAST_LIB_REFERENCE_STRING_CODEC_H_
#define TENSORCAST_LIB_REFERENCE_STRING_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/reference/exact.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace reference {

// A parsed decimal number: |value| = digits * 10^exp10 (digits as an integer).
struct Decimal {
  static constexpr int kMaxDigits = 800;  // more digits only set `sticky`
  enum Kind : uint8_t { kFinite, kInf, kNaN };
  Kind kind = kFinite;
  bool neg = false;
  bool sticky = false;  // non-zero digits beyond kMaxDigits were dropped
  int len = 0;          // number of significant digits (0: the value is zero)
  int64_t exp10 = 0;
  char digits[kMaxDigits];
};

// Returns false when `text` is not a number in the accepted syntax.
bool ParseDecimal(std::string_view text, Decimal* out);

// The double nearest to the decimal (ties to even); overflow -> +-Inf, underflow -> +-0.
double DecimalToDouble(const Decimal& d);

// A double that rounds like the decimal text itself in every format of at most 24
// significant bits (float32, float16, bfloat16, float8, float4, e8m0) and every
// round_mode: the decimal rounded to double *to odd* (exact values stay exact, inexact
// ones get the odd neighbour), or, when that double is known to be more than one ulp
// away from every value and midpoint of such formats, its nearest double with the low
// bit set (no big-integer comparison needed). One later rounding to such a format is
// then the correct rounding of the decimal text.
Exact DecimalToExact(const Decimal& d);

// Truncation toward zero, saturated to a `bits`-wide integer; NaN -> 0.
uint64_t DecimalToInt(const Decimal& d, int bits, bool is_signed);

// numpy str() of the element `code` of float type `type` (shortest round trip at the
// precision of `type`; FLOAT8E8M0: the shortest that parses back with round_mode=nearest).
std::string FormatFloat(DataType type, uint64_t code);

}  // namespace reference
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_REFERENCE_STRING_CODEC_H_
