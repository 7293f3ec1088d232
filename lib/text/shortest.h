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

// The powers 10^-k for k in [kMinPowerK, kMaxPowerK] (every k a double or a float needs)
// as 10^-k = beta * 2^r with beta in [2^125, 2^126), stored as g = floor(beta) + 1, so
// g - 1 <= beta < g and 2^125 < g <= 2^126. Computed exactly on first use.
constexpr int kMinPowerK = -324;
constexpr int kMaxPowerK = 292;
struct PowerOf10 {
  unsigned __int128 g;
  int r;
};
// Entry k is at index k - kMinPowerK; thread-safe.
const PowerOf10* PowersOf10();

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
