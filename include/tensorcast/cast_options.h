// tensorcast/cast_options.h: the options of a Cast (ONNX `saturate` and `round_mode`, and
// the runner that may share the work). Kernels, the reference and the text codec include
// this header alone, so that the declarations of tensorcast/cast.h can change without
// recompiling them.
#ifndef TENSORCAST_CAST_OPTIONS_H_
#define TENSORCAST_CAST_OPTIONS_H_

#include <string_view>

#include "tensorcast/status.h"

namespace tensorcast {

struct Runner;     // tensorcast/runner.h
struct CastStats;  // tensorcast/stats.h

// Rounding of float8e8m0 targets (Cast-24 `round_mode`). Other targets ignore it.
enum class RoundMode : int { kUp = 0, kDown = 1, kNearest = 2 };

struct CastOptions {
  // Float8 targets (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0): values beyond the format's
  // range become +-MAX when true, NaN/Inf (as the format allows) when false.
  bool saturate = true;
  RoundMode round_mode = RoundMode::kUp;
  // Null: the call runs on the calling thread. Otherwise large calls are cut into tasks
  // that this runner executes (tensorcast/runner.h); the results are the same bits.
  const Runner* runner = nullptr;
  // Non-null (numeric pairs only): filled in with the statistics of the conversion
  // (tensorcast/stats.h), computed in one more pass over the source and the output after
  // it; "saturated" there counts the inputs outside the target's range. Null: no cost.
  CastStats* stats = nullptr;
};

// Parses the `round_mode` attribute: "up", "down" or "nearest" (exact spelling).
Status ParseRoundMode(std::string_view text, RoundMode* out);

// "up", "down", "nearest".
const char* RoundModeName(RoundMode mode) noexcept;

}  // namespace tensorcast

#endif  // TENSORCAST_CAST_OPTIONS_H_
