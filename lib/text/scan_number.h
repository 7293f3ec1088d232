// Text -> number, stage one: the scalar scan of one text. Scan() reads the accepted syntax
// (docs/semantics.md, "Strings") once and keeps the first 19 significant digits w and the
// decimal exponent q (|value| = w * 10^q, plus less than one unit of w when more digits
// were dropped); decimal_to_binary.h rounds that into a code. On the AVX3_DL target, texts
// of the common form are scanned in registers first (window_scan-inl.h), with the same
// result.
#ifndef TENSORCAST_LIB_TEXT_SCAN_NUMBER_H_
#define TENSORCAST_LIB_TEXT_SCAN_NUMBER_H_

#include <cstdint>
#include <string_view>

namespace tensorcast {
namespace text {

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

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_SCAN_NUMBER_H_
