// tensorcast/cast.h: ONNX Cast (opsets 1-28) and CastLike (15-25).
//
// Semantics are Cast-28's (a superset of the older opsets): one rounding of the exact
// source value, float8 `saturate`, float8e8m0 `round_mode`, numpy's string spellings.
// The rules, and where they deliberately differ from onnx.reference, are in README.md.
#ifndef TENSORCAST_CAST_H_
#define TENSORCAST_CAST_H_

#include <cstddef>

#include "tensorcast/cast_options.h"  // IWYU pragma: export
#include "tensorcast/data_type.h"
#include "tensorcast/introspection.h"  // IWYU pragma: export
#include "tensorcast/runner.h"
#include "tensorcast/status.h"

namespace tensorcast {

// Converts `count` elements of `src_type` at `src` into `dst_type` at `dst`.
// - Numeric buffers hold StorageBytes(type, count) bytes, little-endian; packed types
//   (INT4, UINT4, FLOAT4E2M1, INT2, UINT2) are packed with zero padding in the last byte.
// - STRING buffers are arrays of `count` std::string objects (dst strings are assigned).
// - src and dst must not overlap unless they are the same pointer with the same type.
// Returns an error (and writes nothing) for unknown/complex types, null pointers with
// count > 0 and byte counts that overflow; for an unparsable string element it returns
// kParseError naming the first unparsable element in index order and its text (every
// element before it has been written; elements after it are unspecified, with or
// without a runner).
// Reentrant and thread-safe. The route plan of each Highway target (DescribeRoute) is
// built once, on the first Cast that runs on that target, under a lock; Cast keeps no
// other global state. Without a runner it runs on the calling thread and, once the plan
// is built, allocates nothing for numeric pairs; with one, calls of at least 1 MiB
// (source + destination; STRING: 4096 elements) are cut into tasks for the runner.
Status Cast(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
            const CastOptions& options = {});

// ONNX CastLike: Cast to the element type of a second tensor (`like_type`); the second
// tensor's values and shape are not used. Unlike onnx.reference, round_mode is honoured.
// CastLike's newest opset is 25: the FLOAT6 types (Cast-28) give kUnsupported.
Status CastLike(const void* src, DataType src_type, void* dst, DataType like_type, size_t count,
                const CastOptions& options = {});

// Opset-specific attribute handling.
// Checks that Cast (or CastLike when `cast_like` is true) of `opset` accepts the pair:
// Cast 1/6: numeric + bool; 9: + STRING; 13: + BFLOAT16; 19: + four float8 types;
// 21: + INT4/UINT4; 23: + FLOAT4E2M1; 24: + FLOAT8E8M0; 25: + INT2/UINT2;
// 28: + FLOAT6E2M3/FLOAT6E3M2. CastLike exists at opsets 15-25 and so never accepts the
// FLOAT6 types.
Status CheckCastOpset(int opset, DataType from, DataType to, bool cast_like = false);

}  // namespace tensorcast

#endif  // TENSORCAST_CAST_H_
