// The shortest decimal that reads back as a given float or double, by R. Giulietti's
// Schubfach method ("The Schubfach way to render doubles"): for v = c * 2^q, choose k
// with 10^k close to the spacing of v's neighbours, compute v, and the ends of the
// interval of reals that round to v, in units of 10^k / 4 with one 64 x 126-bit product
// each (rounded to odd, which keeps every comparison exact), and pick the one or two
// candidates in that interval: the shortest, then the closest to v, then the even one.
// The same digits as std::to_chars' shortest form (test/text_test.cc compares them).
#ifndef TENSORCAST_LIB_TEXT_SHORTEST_H_
#define TENSORCAST_LIB_TEXT_SHORTEST_H_

#include <cstdint>

namespace tensorcast {
namespace text {

// |v| = digits * 10^exp10, digits without trailing zeros (1 <= digits < 10^17).
struct Decimal10 {
  uint64_t digits;
  int exp10;
};

// v finite and non-zero; the sign is ignored.
Decimal10 ShortestDouble(double v);
Decimal10 ShortestFloat(float v);

}  // namespace text
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TEXT_SHORTEST_H_
