// Output sizes from which the kernel loops (cast_loop-inl.h, pack-inl.h), the table
// lookup (lib/dispatch/lut_kernels.cc) and the two-step path (cast_kernels.cc) write with
// non-temporal stores. Each has its own default; tests override it to run the streaming
// paths on small buffers (test/kernel_test.cc: StreamedOutputsMatchRegularStores,
// HubStreamedOutputsMatchRegularStores, SmallCodePairsByTableLookup).
#ifndef TENSORCAST_LIB_KERNELS_STREAM_THRESHOLD_H_
#define TENSORCAST_LIB_KERNELS_STREAM_THRESHOLD_H_

#include <atomic>
#include <cstddef>

namespace tensorcast {
namespace kernels {

// 0: every loop uses its default. Defined in lib/dispatch/cast_kernels.cc.
extern std::atomic<size_t> g_stream_bytes_override;

inline size_t StreamBytes(size_t default_bytes) {
  const size_t o = g_stream_bytes_override.load(std::memory_order_relaxed);
  return o != 0 ? o : default_bytes;
}

}  // namespace kernels
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_KERNELS_STREAM_THRESHOLD_H_
