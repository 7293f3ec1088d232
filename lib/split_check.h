// Argument checks shared by Split() (lib/split.cc) and SplitSizes() (lib/split_sizes.cc),
// so that both report the same errors with the same messages; the streaming threshold
// of Split() and its test hook.
#ifndef TENSORCAST_LIB_SPLIT_CHECK_H_
#define TENSORCAST_LIB_SPLIT_CHECK_H_

#include <cstddef>
#include <cstdint>

#include "tensorcast/status.h"

namespace tensorcast {
namespace split_internal {

// rank >= 1, shape non-null, every dimension >= 0, axis in [-rank, rank-1].
// On success *axis_out is the axis in [0, rank).
Status CheckShapeAndAxis(const int64_t* shape, size_t rank, int64_t axis, size_t* axis_out);

// sizes[0..count) are >= 0 and sum to `dim`, the length of axis `axis`. `what` names
// the argument in messages ("sizes" for Split, "'split'" for SplitSizes).
Status CheckSizes(const int64_t* sizes, size_t count, int64_t dim, size_t axis, const char* what);

}  // namespace split_internal
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_SPLIT_CHECK_H_
