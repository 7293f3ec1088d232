// The scalar reference implementation of ONNX Cast: one function per rule of
// docs/semantics.md. It is the oracle every SIMD kernel is tested against, bit for
// bit. Written for clarity; no allocation per numeric element.
#ifndef TENSORCAST_LIB_REFERENCE_REFERENCE_CAST_H_
#define TENSORCAST_LIB_REFERENCE_REFERENCE_CAST_H_

#include <cstddef>

#include "tensorcast/cast.h"

namespace tensorcast {
namespace reference {

// Converts `count` elements. Preconditions (checked by the public Cast): both types
// castable, pointers non-null when count > 0, byte counts fit in size_t, no partial
// overlap. Returns kParseError for a bad string element (earlier elements written).
Status Cast(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
            const CastOptions& options);

}  // namespace reference
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_REFERENCE_REFERENCE_CAST_H_
