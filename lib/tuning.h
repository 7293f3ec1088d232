// Every size threshold that chooses between code paths, in one place. The figures that
// justify each value, per CPU, are in bench/results/tuning.md; docs/performance.md
// explains how they were measured.
//
// One test hook, SetStreamBytesForTest, lowers every "stream from N bytes on" threshold
// at once so that tests reach the non-temporal paths with small buffers. Other thresholds
// choose between exact routes and are reached by tests through their element counts.
#ifndef TENSORCAST_LIB_TUNING_H_
#define TENSORCAST_LIB_TUNING_H_

#include <atomic>
#include <cstddef>

namespace tensorcast {
namespace tuning {

// --- Cast: which route serves a pair -------------------------------------------------
// From this many elements on, a pair of small-code types (at most 8 bits) is cast by
// table lookup where the route plan gives it a table: building the table (one kernel call
// on the <= 256 source codes) is then amortised.
constexpr size_t kTableMinCount = 4096;
// The two-step route converts this many elements per block: at most 4 KiB of float32
// lanes, which stay in L1 between the decoder and the encoder.
constexpr size_t kHubBlockElements = 1024;

// --- Cast: non-temporal stores ---------------------------------------------------------
// Outputs of at least these many bytes are written with non-temporal stores: like memcpy
// at that size, the loop then does not read every output line before writing it. Smaller
// outputs stay cached for whoever reads them next.
constexpr size_t kCastLoopStreamBytes = size_t{4} << 20;  // element-wise kernels
constexpr size_t kSubbyteStreamBytes = size_t{8} << 20;   // sub-byte decoders/encoders
constexpr size_t kTableStreamBytes = size_t{4} << 20;     // table lookup
constexpr size_t kHubStreamBytes = size_t{4} << 20;       // two-step route, sub-byte copy
// How far ahead of the current chunk the compute-heavy sub-byte encoders prefetch.
constexpr size_t kSubbytePrefetchBytes = 2048;

// --- Split -------------------------------------------------------------------------------
// Splits whose source has at least this many bytes use non-temporal stores.
constexpr size_t kSplitStreamBytes = size_t{16} << 20;
// Source bytes per tile of rows (see lib/kernels/split-inl.h).
constexpr size_t kSplitTileBytes = size_t{8} << 10;
// Splits whose blocks are all at least this large are copied row by row.
constexpr size_t kSplitRowMajorMinBlock = 256;
// Copies of at least this many bytes align their vector stores.
constexpr size_t kSplitAlignMinBytes = 256;
// Blocks at least this large use non-temporal stores when the split streams.
constexpr size_t kSplitStreamMinBlock = 512;
// Contiguous blocks of this size and more that are not streamed go to memcpy; shorter
// ones and row blocks use the inlined vector copies.
constexpr size_t kSplitMemcpyMinBlock = 4096;

// --- Parallel calls (a Runner in CastOptions or Split) ----------------------------------
// Calls that move fewer bytes (source + destination) than this run on the calling thread
// without calling the runner. Cut into two tasks on two threads, a call of 256-512 KiB
// only breaks even, 1 MiB runs 1.8x faster (ThreadPool, bench/parallel_bench.cc Handoff
// rows, bench/results/parallel_zen5.md).
constexpr size_t kParallelMinBytes = size_t{1} << 20;
// Each task moves at least this many bytes, and a call has at most kParallelMaxTasks.
constexpr size_t kParallelTaskBytes = size_t{512} << 10;
constexpr size_t kParallelMaxTasks = 256;
// Casts from or into STRING (about 100 ns per element) go parallel from this many elements
// on, in tasks of at least kParallelStringTaskElements.
constexpr size_t kParallelStringMinElements = 4096;
constexpr size_t kParallelStringTaskElements = 1024;
// Below this many elements no call goes parallel, whatever its types (at most 16 bytes of
// source + destination per numeric element): Cast skips the task planning.
constexpr size_t kParallelMinCount = kParallelStringMinElements < kParallelMinBytes / 16
                                         ? kParallelStringMinElements
                                         : kParallelMinBytes / 16;

// --- The test hook -----------------------------------------------------------------------
namespace detail {
inline std::atomic<size_t>& StreamBytesOverride() {
  static std::atomic<size_t> bytes{0};
  return bytes;
}
}  // namespace detail

// The streaming threshold in force for a path whose default is `default_bytes`.
inline size_t StreamBytes(size_t default_bytes) {
  const size_t o = detail::StreamBytesOverride().load(std::memory_order_relaxed);
  return o != 0 ? o : default_bytes;
}

// Tests only: every streaming threshold becomes `bytes` (0 restores the defaults).
// Returns the previous override.
inline size_t SetStreamBytesForTest(size_t bytes) {
  return detail::StreamBytesOverride().exchange(bytes);
}

}  // namespace tuning
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TUNING_H_
