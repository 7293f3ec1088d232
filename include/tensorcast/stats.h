// tensorcast/stats.h: the statistics a quantization can fill in from the same call, on
// request (a non-null CastStats pointer in the options); without one nothing is computed.
//
// Every figure compares each element's exact source value x with the exact value y that
// its output represents (for block-scaled and absmax codes, code * scale; the product is
// exact in double). Sums run in double in a fixed order (per chunk of 4096 elements, the
// chunks in index order), so they are the same bits for any number of threads.
#ifndef TENSORCAST_STATS_H_
#define TENSORCAST_STATS_H_

#include <cmath>
#include <cstdint>

namespace tensorcast {

struct CastStats {
  uint64_t count = 0;      // elements
  uint64_t nan_count = 0;  // NaN inputs
  uint64_t inf_count = 0;  // +-Inf inputs
  // Finite inputs whose scaled value x / scale lies beyond the codes' largest magnitude
  // (M, or 128 below zero for INT8): the clamp, not the rounding, chose their code.
  uint64_t saturated = 0;
  // Non-zero finite inputs whose output is zero.
  uint64_t flushed = 0;
  double amax = 0;  // the largest finite |x|
  // Over the finite inputs whose output is finite (a NaN block's elements are left out):
  double sum_squared_error = 0;   // sum of (y - x)^2
  double sum_squared_signal = 0;  // sum of x^2
  uint64_t error_count = 0;       // the elements of the two sums

  // sqrt(sum_squared_error / error_count); 0 without elements.
  double Rmse() const {
    return error_count == 0 ? 0.0 : std::sqrt(sum_squared_error / static_cast<double>(error_count));
  }
  // 10 log10(signal / error) in dB; +inf when the error is 0.
  double SqnrDb() const {
    if (sum_squared_error == 0) return INFINITY;
    return 10.0 * std::log10(sum_squared_signal / sum_squared_error);
  }
};

}  // namespace tensorcast

#endif  // TENSORCAST_STATS_H_
