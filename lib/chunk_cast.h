// Helpers shared by the operators built on Cast kernels in chunks (QuantizeLinear /
// DequantizeLinear, block scaling, the Cast statistics), internal: a Cast of one chunk, an
// element's address in a packed buffer, buffer overlap and shape text for messages.
#ifndef TENSORCAST_LIB_CHUNK_CAST_H_
#define TENSORCAST_LIB_CHUNK_CAST_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/dispatch/route_plan.h"
#include "lib/reference/reference_cast.h"
#include "lib/type_facts.h"
#include "tensorcast/cast_options.h"

namespace tensorcast {
namespace chunk {

// Cast of n elements between numeric types (validated, non-overlapping buffers) on the
// calling thread, through the kernel of the pair or the reference; the options' runner
// and statistics are not used.
inline void Cast(const void* src, DataType src_type, void* dst, DataType dst_type, size_t n,
                 const CastOptions& options) {
  CastOptions o = options;
  o.runner = nullptr;
  o.stats = nullptr;
  if (!dispatch::CastWithPlan(src, src_type, dst, dst_type, n, o)) {
    (void)reference::Cast(src, src_type, dst, dst_type, n, o);
  }
}

inline void Cast(const void* src, DataType src_type, void* dst, DataType dst_type, size_t n,
                 bool saturate) {
  CastOptions o;
  o.saturate = saturate;
  Cast(src, src_type, dst, dst_type, n, o);
}

// The address of element e of a buffer of `type` (e a multiple of 8 for the packed types).
inline const void* At(const void* p, DataType type, size_t e) {
  return static_cast<const unsigned char*>(p) + e * static_cast<size_t>(Facts(type).bits) / 8;
}

// Whether two byte ranges share a byte (empty ranges share none).
inline bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

// "[2,3,4]".
inline std::string ShapeText(const int64_t* shape, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace chunk
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_CHUNK_CAST_H_
