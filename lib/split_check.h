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

// Each rule is an inline predicate (no Status is built for valid arguments: a Split of a
// few KiB takes tens of ns) and an out-of-line function that names the first fault, called
// only when the predicate fails.

// The Status of a failed CheckShapeAndAxis / CheckSizes rule (the first fault, in order).
Status ShapeAndAxisError(const int64_t* shape, size_t rank, int64_t axis);
Status SizesError(const int64_t* sizes, size_t count, int64_t dim, size_t axis, const char* what);

// rank >= 1, shape non-null, every dimension >= 0, axis in [-rank, rank-1].
// On success *axis_out is the axis in [0, rank).
inline Status CheckShapeAndAxis(const int64_t* shape, size_t rank, int64_t axis, size_t* axis_out) {
  bool ok = rank != 0 && shape != nullptr;
  for (size_t k = 0; ok && k < rank; ++k) ok = shape[k] >= 0;
  // rank <= SIZE_MAX; compare in a type that holds -rank without overflow.
  ok = ok &&
       (axis >= 0 ? static_cast<uint64_t>(axis) < rank : static_cast<uint64_t>(-(axis + 1)) < rank);
  if (!ok) return ShapeAndAxisError(shape, rank, axis);
  *axis_out = axis >= 0 ? static_cast<size_t>(axis)
                        : static_cast<size_t>(static_cast<int64_t>(rank) + axis);
  return Status::Ok();
}

// sizes[0..count) are >= 0 and sum to `dim`, the length of axis `axis`. `what` names
// the argument in messages ("sizes" for Split, "'split'" for SplitSizes).
inline Status CheckSizes(const int64_t* sizes, size_t count, int64_t dim, size_t axis,
                         const char* what) {
  int64_t sum = 0;
  bool ok = true;
  for (size_t i = 0; i < count; ++i) {
    ok = ok && sizes[i] >= 0 && !__builtin_add_overflow(sum, sizes[i], &sum);
  }
  if (!ok || sum != dim) return SizesError(sizes, count, dim, axis, what);
  return Status::Ok();
}

}  // namespace split_internal
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_SPLIT_CHECK_H_
