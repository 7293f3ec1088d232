// foreach_target TU of StreamCopy (lib/kernels/stream_copy-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/dispatch/stream_copy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/stream_copy-inl.h"

#if HWY_ONCE
#include "lib/dispatch/stream_copy.h"

namespace tensorcast {
namespace dispatch {

HWY_EXPORT(StreamCopy);

void StreamCopy(const void* from, void* to, size_t bytes) {
  HWY_DYNAMIC_DISPATCH(StreamCopy)(from, to, bytes);
}

}  // namespace dispatch
}  // namespace tensorcast
#endif  // HWY_ONCE
