// A copy with non-temporal stores (internal).
#ifndef TENSORCAST_LIB_DISPATCH_STREAM_COPY_H_
#define TENSORCAST_LIB_DISPATCH_STREAM_COPY_H_

#include <cstddef>

namespace tensorcast {
namespace dispatch {

// Copies `bytes` bytes from `from` to `to` (not overlapping) with non-temporal stores for
// the whole vectors from the first vector-aligned byte of `to` on, regular stores for the
// bytes before and after them (scalar fallback: memcpy). The caller calls
// hwy::FlushStream() after its last StreamCopy.
void StreamCopy(const void* from, void* to, size_t bytes);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_STREAM_COPY_H_
