// Numbers <-> text, one element at a time, on fast paths that decide most texts and
// values exactly, with the reference codec (lib/reference/string_codec.h) for the rest.
// The results are the reference's, bit for bit and byte for byte (docs/semantics.md,
// "Strings"); test/text_test.cc checks the fast paths against it.
//
// Parsing (the scalar path: on CPUs with AVX-512 VBMI2 the texts of the common form take
// the in-register scan of parse_fast.h first). Scan() reads the accepted syntax once and keeps the
// first 19 significant digits w and the decimal exponent q (|value| = w * 10^q, plus less than one
// unit of w when more digits were dropped). For 1 <= w < 10^19 and |q| <= 27, w * 5^q (q >= 0) or
// w * 2^64 / 5^-q (q < 0) is computed in 128-bit integers, exactly or with a sticky bit
// for the remainder, which rounds the decimal once: to nearest even into DOUBLE and
// FLOAT, and to odd into a float32 for the narrower formats (FLOAT16, BFLOAT16, the
// float8 formats, FLOAT4E2M1, FLOAT8E8M0: every format of at most 22 significand bits
// rounds that float32 as it would round the decimal; the FLOAT kernel then encodes a
// block of them). Dropped digits: the results for w and w + 1 bound the true one; when
// they agree it is the result. Integers: truncation toward zero of w * 10^q, saturated.
// Everything else (NaN, Inf, |q| > 27, BOOL's words, ties the bounds cannot decide, a
// float32 out of range) goes to the reference.
//
// Formatting. FLOAT and DOUBLE: the shortest round-trip digits (shortest.h), laid out as
// numpy's str(); integers: 8 digits at a time; BOOL "True" / "False". Other float types:
// the reference. Every text fits kMaxNumberText bytes.
#ifndef TENSORCAST_LIB_TEXT_NUMBER_TEXT_H_
#define TENSORCAST_LIB_TEXT_NUMBER_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tensorcast/cast.h"

namespace tensorcast {
namespace text {

// The longest text FormatNumber writes ("-1.2345678901234567e-308" is 24 bytes), and
// the room it needs at `out` (it writes whole blocks past the text's end).
constexpr size_t kMaxNumberText = 32;
constexpr size_t kFormatRoom = 48;

// A text in the accepted syntax, scanned.
struct Scanned {
  enum Kind : uint8_t { kFinite, kInf, kNaN };
  Kind kind = kFinite;
  bool neg = false;
  bool dropped = false;  // non-zero digits after the first 19 significant ones
  int digits = 0;        // significant digits in w, at most 19 (0: the value is zero)
  uint64_t w = 0;        // those digits as an integer
  int64_t q = 0;         // |value| = (w + less than 1 when dropped) * 10^q
};

// False when `text` is not a number in the accepted syntax. "true" / "false" are not
// numbers here (BOOL targets take them through the reference).
bool Scan(std::string_view text, Scanned* out);

// The code of a scanned number in `type` (low BitWidth(type) bits) when the fast path
// decides it; false: ask the reference. FLOAT8 / FLOAT4 / FLOAT16 / BFLOAT16 / E8M0
// targets are not handled here (see ToF32RoundToOdd).
bool FastCode(const Scanned& s, DataType type, uint64_t* code);

// The number of decimal digits of v (0 for 0).
int DecimalDigits(uint64_t v);

// The float32 bits, rounded to odd, of a finite scanned number; false: ask the reference.
bool ToF32RoundToOdd(const Scanned& s, uint32_t* bits);

// Writes the text of element `code` of the numeric `type` (numpy str()) to `out`, which
// has room for kFormatRoom bytes; returns its length (at most kMaxNumberText).
size_t FormatNumber(DataType type, uint64_t code, char* out);

// The same for one type, without the dispatch on it.
size_t FormatDouble(double v, char* out);
size_t FormatFloat(float v, char* out);
size_t FormatInt(int64_t v, char* out);
size_t FormatUint(uint64_t v, char* out);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_NUMBER_TEXT_H_
