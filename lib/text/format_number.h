// Number -> text, one element: numpy's str() spelling, byte for byte the reference's
// (lib/reference/string_codec.h; test/text_test.cc compares them). FLOAT and DOUBLE: the
// shortest round-trip digits (shortest.h), laid out as numpy's str(); integers: 8 digits at
// a time; BOOL "True" / "False". Other float types: the reference. Every text fits
// kMaxNumberText bytes.
#ifndef TENSORCAST_LIB_TEXT_FORMAT_NUMBER_H_
#define TENSORCAST_LIB_TEXT_FORMAT_NUMBER_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/data_type.h"

namespace tensorcast {
namespace text {

// The longest text FormatNumber writes ("-1.2345678901234567e-308" is 24 bytes), and
// the room it needs at `out` (it writes whole blocks past the text's end).
constexpr size_t kMaxNumberText = 32;
constexpr size_t kFormatRoom = 48;

// Writes the text of element `code` of the numeric `type` (numpy str()) to `out`, which
// has room for kFormatRoom bytes; returns its length (at most kMaxNumberText).
size_t FormatNumber(DataType type, uint64_t code, char* out);

// The same for one type, without the dispatch on it.
size_t FormatDouble(double v, char* out);
size_t FormatFloat(float v, char* out);
size_t FormatInt(int64_t v, char* out);
size_t FormatUint(uint64_t v, char* out);

// The number of decimal digits of v (0 for 0).
int DecimalDigits(uint64_t v);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_FORMAT_NUMBER_H_
