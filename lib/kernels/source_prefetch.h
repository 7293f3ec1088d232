// SourcePrefetch: the software prefetch of the kernels' loops (not per target: it only
// computes addresses and calls hwy::Prefetch).
#ifndef TENSORCAST_LIB_KERNELS_SOURCE_PREFETCH_H_
#define TENSORCAST_LIB_KERNELS_SOURCE_PREFETCH_H_

#include <cstddef>
#include <cstdint>

#include "hwy/base.h"
#include "hwy/cache_control.h"
#include "lib/tuning.h"

namespace tensorcast {

// The software prefetch of the streaming loops (tuning::PrefetchBytes). A streaming loop
// runs out of cache, where a cast costs about its memory time plus its compute time unless
// loads are in flight while it computes: Lines(i, n) asks for the source lines of elements
// [i, i + n) the prefetch distance ahead of them, so that about latency x bandwidth bytes
// are on their way. Which loops prefetch: lib/tuning.h ("Software prefetch"); CastLoop's
// rule is kPrefetchesSource (lib/kernels/cast_loop-inl.h). Distance 0
// (TENSORCAST_PREFETCH_BYTES=0) prefetches nothing. A prefetch never faults, so the lines
// past the end of the source are harmless.
template <size_t kElementBytes>
class SourcePrefetch {
 public:
  explicit SourcePrefetch(const void* src)
      : distance_(tuning::PrefetchBytes()), base_(reinterpret_cast<uintptr_t>(src)) {}
  HWY_INLINE void Lines(size_t i, size_t n) const {
    if (distance_ == 0) return;
    const uintptr_t first = base_ + i * kElementBytes + distance_;
    for (size_t b = 0; b < n * kElementBytes; b += 64) {
      hwy::Prefetch(reinterpret_cast<const uint8_t*>(first + b));
    }
  }

 private:
  size_t distance_;
  uintptr_t base_;
};

// The prefetch of loops that do not stream.
struct NoSourcePrefetch {
  NoSourcePrefetch() = default;
  explicit NoSourcePrefetch(const void*) {}
  HWY_INLINE void Lines(size_t, size_t) const {}
};

}  // namespace tensorcast

#endif  // TENSORCAST_LIB_KERNELS_SOURCE_PREFETCH_H_
