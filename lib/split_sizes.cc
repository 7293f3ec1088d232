// Split opset semantics: from a node's opset, attributes and inputs to the sizes along
// the axis (split.h documents the table and the decisions), and the argument checks
// shared with Split(). No exception leaves this file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/split_check.h"
#include "tensorcast/split.h"

namespace tensorcast {
namespace split_internal {

Status ShapeAndAxisError(const int64_t* shape, size_t rank, int64_t axis) {
  if (rank == 0) {
    return Status(StatusCode::kInvalidArgument,
                  "rank is 0: Split needs a tensor of rank >= 1 (a scalar has no axis)");
  }
  if (shape == nullptr) {
    return Status(StatusCode::kInvalidArgument, "shape is null with rank " + std::to_string(rank));
  }
  for (size_t k = 0; k < rank; ++k) {
    if (shape[k] < 0) {
      return Status(StatusCode::kInvalidArgument, "shape[" + std::to_string(k) + "] is " +
                                                      std::to_string(shape[k]) +
                                                      ": dimensions must be >= 0");
    }
  }
  // rank <= SIZE_MAX; compare in a type that holds -rank without overflow.
  const bool in_range =
      axis >= 0 ? static_cast<uint64_t>(axis) < rank : static_cast<uint64_t>(-(axis + 1)) < rank;
  if (!in_range) {
    return Status(StatusCode::kInvalidArgument,
                  "axis " + std::to_string(axis) + " is out of range for rank " +
                      std::to_string(rank) + " (expected -" + std::to_string(rank) + " to " +
                      std::to_string(rank - 1) + ")");
  }
  return Status(StatusCode::kInternal, "ShapeAndAxisError: the arguments are valid");
}

Status SizesError(const int64_t* sizes, size_t count, int64_t dim, size_t axis, const char* what) {
  int64_t sum = 0;
  bool overflow = false;
  for (size_t i = 0; i < count; ++i) {
    if (sizes[i] < 0) {
      return Status(StatusCode::kInvalidArgument, std::string(what) + "[" + std::to_string(i) +
                                                      "] is " + std::to_string(sizes[i]) +
                                                      ": split sizes must be >= 0");
    }
    if (!overflow && __builtin_add_overflow(sum, sizes[i], &sum)) overflow = true;
  }
  if (overflow) {
    return Status(StatusCode::kInvalidArgument,
                  "the sum of " + std::string(what) + " overflows int64, but axis " +
                      std::to_string(axis) + " of the input has length " + std::to_string(dim));
  }
  if (sum != dim) {
    return Status(StatusCode::kInvalidArgument,
                  "Mismatch between the sum of " + std::string(what) + " (" + std::to_string(sum) +
                      ") and the split dimension of the input (axis " + std::to_string(axis) +
                      ", length " + std::to_string(dim) + ")");
  }
  return Status::Ok();
}

}  // namespace split_internal

int SplitVersion(int opset) noexcept {
  if (opset < 1) return 0;
  if (opset < 2) return 1;
  if (opset < 11) return 2;
  if (opset < 13) return 11;
  if (opset < 18) return 13;
  return 18;
}

namespace {

Status SplitSizesFromNumOutputsImpl(int64_t dim, size_t num_outputs, int64_t* sizes_out) {
  if (dim < 0) {
    return Status(StatusCode::kInvalidArgument,
                  "axis length is " + std::to_string(dim) + ": dimensions must be >= 0");
  }
  if (num_outputs == 0) {
    return Status(StatusCode::kInvalidArgument,
                  "Attribute `num_outputs` value cannot be lower than 1 (got 0)");
  }
  if (sizes_out == nullptr) {
    return Status(StatusCode::kInvalidArgument, "sizes_out is null");
  }
  // c = ceil(d / n); output i covers [min(d, i c), min(d, (i+1) c)). Products stay
  // below 2^64: for i < min(n, d), i * c < n * c <= d + n when n < d, and c = 1 otherwise.
  const uint64_t d = static_cast<uint64_t>(dim);
  const uint64_t n = num_outputs;
  const uint64_t c = d / n + (d % n != 0 ? 1 : 0);
  auto bound = [&](uint64_t i) { return i >= d ? d : (i * c < d ? i * c : d); };
  for (size_t i = 0; i < num_outputs; ++i) {
    sizes_out[i] = static_cast<int64_t>(bound(uint64_t{i} + 1) - bound(i));
  }
  return Status::Ok();
}

}  // namespace

Status SplitSizesFromNumOutputs(int64_t dim, size_t num_outputs, int64_t* sizes_out) {
  try {
    return SplitSizesFromNumOutputsImpl(dim, num_outputs, sizes_out);
  } catch (...) {  // std::bad_alloc while building a message
    return Status(StatusCode::kInternal, "out of memory");
  }
}

namespace {

Status SplitSizesImpl(const SplitAttributes& attrs, const int64_t* shape, size_t rank,
                      int64_t* sizes_out) {
  const int version = SplitVersion(attrs.opset);
  if (version == 0) {
    return Status(StatusCode::kUnsupported,
                  "Split: opset " + std::to_string(attrs.opset) + " is not supported (>= 1)");
  }
  const std::string op = "Split-" + std::to_string(version) + ": ";
  size_t axis = 0;
  Status s = split_internal::CheckShapeAndAxis(shape, rank, attrs.axis, &axis);
  if (!s.ok()) return Status(s.code(), op + s.message());
  const size_t n = attrs.output_count;
  if (n == 0) {
    return Status(StatusCode::kInvalidArgument,
                  op + "output_count is 0: Split needs at least one output");
  }
  if (sizes_out == nullptr) {
    return Status(StatusCode::kInvalidArgument, op + "sizes_out is null");
  }
  if (attrs.has_num_outputs && version < 18) {
    return Status(StatusCode::kInvalidArgument,
                  op + "the `num_outputs` attribute exists from Split-18 on (opset " +
                      std::to_string(attrs.opset) + ")");
  }
  const int64_t dim = shape[axis];
  if (version == 18) {
    if (attrs.has_split && attrs.has_num_outputs) {
      return Status(StatusCode::kInvalidArgument,
                    op + "Both 'split' input and 'num_outputs' attribute were given");
    }
    if (!attrs.has_split && !attrs.has_num_outputs) {
      return Status(StatusCode::kInvalidArgument,
                    op + "Neither 'split' input nor 'num_outputs' attribute has been given");
    }
    if (attrs.has_num_outputs) {
      if (attrs.num_outputs < 1) {
        return Status(StatusCode::kInvalidArgument,
                      op + "Attribute `num_outputs` value cannot be lower than 1 (got " +
                          std::to_string(attrs.num_outputs) + ")");
      }
      if (static_cast<uint64_t>(attrs.num_outputs) != n) {
        return Status(StatusCode::kInvalidArgument,
                      op + "Attribute `num_outputs` (" + std::to_string(attrs.num_outputs) +
                          ") does not match the number of outputs (" + std::to_string(n) + ")");
      }
      return SplitSizesFromNumOutputsImpl(dim, n, sizes_out);
    }
  }
  if (attrs.has_split) {
    if (attrs.split_count != n) {
      return Status(StatusCode::kInvalidArgument, op + "Mismatch between number of splits (" +
                                                      std::to_string(attrs.split_count) +
                                                      ") and outputs (" + std::to_string(n) + ")");
    }
    if (n > 0 && attrs.split == nullptr) {
      return Status(StatusCode::kInvalidArgument,
                    op + "split is null with split_count " + std::to_string(n));
    }
    s = split_internal::CheckSizes(attrs.split, n, dim, axis, "'split'");
    if (!s.ok()) return Status(s.code(), op + s.message());
    for (size_t i = 0; i < n; ++i) sizes_out[i] = attrs.split[i];
    return Status::Ok();
  }
  // Versions 1-13 without `split`: equal parts.
  if (static_cast<uint64_t>(dim) % n != 0) {
    return Status(StatusCode::kInvalidArgument,
                  op + "The input is not evenly splittable: axis " + std::to_string(axis) +
                      " has length " + std::to_string(dim) + ", not a multiple of the " +
                      std::to_string(n) + " outputs (give 'split', or use Split-18 num_outputs)");
  }
  const int64_t part = static_cast<int64_t>(static_cast<uint64_t>(dim) / n);
  for (size_t i = 0; i < n; ++i) sizes_out[i] = part;
  return Status::Ok();
}

}  // namespace

Status SplitSizes(const SplitAttributes& attrs, const int64_t* shape, size_t rank,
                  int64_t* sizes_out) {
  try {
    return SplitSizesImpl(attrs, shape, rank, sizes_out);
  } catch (...) {  // std::bad_alloc while building a message
    return Status(StatusCode::kInternal, "out of memory");
  }
}

}  // namespace tensorcast
