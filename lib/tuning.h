// Every size threshold that chooses between code paths, in one place. The figures that
// justify each value, per CPU, are in bench/results/tuning.md; docs/performance.md
// explains how they were measured.
//
// Two values are read from the machine at run time, once per process:
//   - the streaming thresholds scale with the last-level cache's share per core (sysfs,
//     lib/cache_info.h), capped at the values measured on the team's machines
//     (StreamBytes);
//   - the software prefetch distance can be overridden by the environment variable
//     TENSORCAST_PREFETCH_BYTES (PrefetchBytes), so that it can be tuned on a CPU the team
//     has not measured without rebuilding.
//
// One test hook, SetStreamBytesForTest, lowers every "stream from N bytes on" threshold
// at once so that tests reach the non-temporal paths with small buffers. Other thresholds
// choose between exact routes and are reached by tests through their element counts.
#ifndef TENSORCAST_LIB_TUNING_H_
#define TENSORCAST_LIB_TUNING_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "lib/cache_info.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace tuning {

// --- Cast: which route serves a pair -------------------------------------------------
// From this many elements on, a pair of small-code types (at most 8 bits) is cast by
// table lookup where the route plan gives it a table: building the table (one kernel call
// on the <= 256 source codes) is then amortised.
constexpr size_t kTableMinCount = 4096;
// Pairs with a kernel of their own that the table lookup serves instead, from
// kTableMinCount elements on, on targets whose table has byte planes for the source's
// width (TablePlanes, lib/kernels/capabilities-inl.h): each runs faster by table, in and
// out of cache. Kept on their kernel because the kernel is faster in cache: FLOAT8E5M2 ->
// FLOAT16 (its FLOAT16 is its byte shifted) and the integer and BOOL widenings. Figures:
// bench/results/tuning.md, "Table lookup".
struct TablePreferred {
  DataType src;
  DataType dst;
};
inline constexpr TablePreferred kTableBeatsKernel[] = {
    // Cited: INT8/UINT8 -> FLOAT16/BFLOAT16 at 64 MiB and 256 KiB.
    {DataType::kInt8, DataType::kFloat16},
    {DataType::kInt8, DataType::kBfloat16},
    {DataType::kUint8, DataType::kFloat16},
    {DataType::kUint8, DataType::kBfloat16},
    // Cited: FLOAT8E4M3FN and FLOAT8E5M2FNUZ -> FLOAT16 at 64 MiB and 8 KiB.
    {DataType::kFloat8E4M3FN, DataType::kFloat16},
    {DataType::kFloat8E4M3FNUZ, DataType::kFloat16},
    {DataType::kFloat8E5M2FNUZ, DataType::kFloat16},
    {DataType::kFloat8E8M0, DataType::kFloat16},
    {DataType::kFloat4E2M1, DataType::kFloat16},
    // Cited: INT4 -> FLOAT16 at 64 MiB and 8 KiB (AVX3 and AVX2).
    {DataType::kInt4, DataType::kFloat16},
    {DataType::kUint4, DataType::kFloat16},
    {DataType::kInt2, DataType::kFloat16},
    {DataType::kUint2, DataType::kFloat16},
};
// The two-step route converts this many elements per block: at most 4 KiB of float32
// lanes, which stay in L1 between the decoder and the encoder.
constexpr size_t kHubBlockElements = 1024;

// --- Cast: non-temporal stores ---------------------------------------------------------
// Outputs of at least these many bytes are written with non-temporal stores: like memcpy
// at that size, the loop then does not read every output line before writing it. Smaller
// outputs stay cached for whoever reads them next. The values were measured on machines
// whose last-level cache has kStreamReferenceShareBytes per core; StreamBytes scales them
// with the share of the machine it runs on (a smaller cache streams earlier) and never
// above these values (a VM may report its host's whole cache, hundreds of MiB).
constexpr size_t kCastLoopStreamBytes = size_t{4} << 20;  // element-wise kernels
constexpr size_t kSubbyteStreamBytes = size_t{8} << 20;   // sub-byte decoders/encoders
constexpr size_t kTableStreamBytes = size_t{4} << 20;     // table lookup
constexpr size_t kHubStreamBytes = size_t{4} << 20;       // two-step route, sub-byte copy
// The per-core last-level cache share of the machines the values above were measured on
// (Zen 3 and Zen 5 VMs: 32 MiB shared by 2 vCPUs), and the lowest scaled threshold.
constexpr size_t kStreamReferenceShareBytes = size_t{16} << 20;
constexpr size_t kStreamMinBytes = size_t{256} << 10;

// --- Software prefetch -------------------------------------------------------------------
// Every streaming loop (the outputs past the thresholds above) prefetches its source this
// many bytes ahead when the source is at least as wide as the output (SourcePrefetch in
// lib/kernels/source_prefetch.h; the compute-heavy sub-byte encoders also in cache): latency
// x one core's bandwidth, about 100-130 ns x 10-20 GB/s, so that the loads of the next
// lines are in flight while the current ones are converted. Loops with nothing to overlap
// do not prefetch: copies (Split, the two-step route's stage), DOUBLE -> FLOAT (one
// instruction per vector), table lookups of equal widths (one shuffle per vector) and
// widening loops (mostly store traffic) all measured slower with it.
// TENSORCAST_PREFETCH_BYTES overrides the distance at run time (PrefetchBytes). Figures:
// bench/results/memory_speed_zen3.md.
constexpr size_t kPrefetchBytes = 2048;
// The largest distance TENSORCAST_PREFETCH_BYTES may set (beyond it a prefetched line
// would be evicted from L1 before it is read).
constexpr size_t kMaxPrefetchBytes = size_t{64} << 10;

// --- Code and store alignment (not constants here: the rules, for the record) -----------
// Every loop stores whole vectors aligned to their size, in cache as out of it, after an
// unaligned first vector or a head through a narrower path (CastLoop, PackBytes, FLOAT ->
// BFLOAT16): a store that straddles two cache lines costs two.
// The kernels' translation units are compiled with -falign-loops=64 -falign-jumps=64
// (lib/CMakeLists.txt): a short loop then lies in one 64-byte fetch block and one line of
// the decoded-op cache, on AMD and Intel alike, whatever the linker's placement: a loop
// across a 64-byte boundary can take up to 2x the time in cache
// (bench/results/aligned_stores_zen3.md).

// --- Python package: the outputs of allocating calls ------------------------------------
// Results of at least kOutputCacheMinBytes are placed in mapped blocks (huge pages advised)
// that return to a cache when their array is freed, so that the next call of a similar size
// writes into pages already mapped instead of faulting in and zeroing fresh ones (about 2/3
// of an allocating 16M-element FLOAT call: bench/results/python_alloc_zen4.md). A block is
// reused for a result of at least half its size. The cache holds at most
// kOutputCacheBytes (tensorcast.set_output_cache changes it; 0 disables it): memory the
// process has just freed, kept mapped rather than returned to the system.
constexpr size_t kOutputCacheMinBytes = size_t{4} << 20;
constexpr size_t kOutputCacheBytes = size_t{256} << 20;

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

// QuantizeLinear / DequantizeLinear convert x to float32, compute, and convert to y in
// chunks of this many elements (a multiple of 8: whole bytes of the packed types). Two
// float32 buffers of a chunk (32 KiB) sit in L1/L2 on every supported core; larger chunks
// spread the per-chunk calls (one Cast each way and one kernel dispatch per run) thinner.
constexpr size_t kQuantizeChunkElements = 4096;
// Calls whose output streams (out of cache) take chunks of this many elements instead (a
// divisor of kQuantizeChunkElements): x is read only in the first of a chunk's passes, and
// the hardware prefetcher keeps x's stream going through the later ones only when they are
// short. Zen 4, QuantizeLinear FLOAT -> FLOAT8E4M3FN per tensor out of cache: 0.46-0.55 ns
// per element with 4096, 0.35-0.38 with 1024 (in cache 4096 stays: fewer per-chunk calls).
constexpr size_t kQuantizeStreamChunkElements = 1024;
static_assert(kQuantizeChunkElements % kQuantizeStreamChunkElements == 0 &&
                  kQuantizeStreamChunkElements % 8 == 0,
              "streamed quantize chunks tile the buffers and start on whole packed bytes");

// --- Parallel calls (a Runner in CastOptions or Split) ----------------------------------
// Calls that move fewer bytes (source + destination) than this run on the calling thread
// without calling the runner: cut into two tasks on two threads, smaller calls gain little
// or lose, larger ones run nearly twice as fast (ThreadPool, bench/parallel_bench.cc
// Handoff rows, bench/results/parallel_zen5.md).
constexpr size_t kParallelMinBytes = size_t{1} << 20;
// Each task moves at least this many bytes, and a call has at most kParallelMaxTasks.
constexpr size_t kParallelTaskBytes = size_t{512} << 10;
constexpr size_t kParallelMaxTasks = 256;
// Casts from or into STRING (tens of ns per element, far more than a numeric element) go
// parallel from this many elements on, in tasks of at least kParallelStringTaskElements.
constexpr size_t kParallelStringMinElements = 4096;
constexpr size_t kParallelStringTaskElements = 1024;
// Below this many elements no call goes parallel, whatever its types (at most 16 bytes of
// source + destination per numeric element): Cast skips the task planning.
constexpr size_t kParallelMinCount = kParallelStringMinElements < kParallelMinBytes / 16
                                         ? kParallelStringMinElements
                                         : kParallelMinBytes / 16;

// --- Text -> number ----------------------------------------------------------------------
// The window scan (16 texts at a time) checks which texts it leaves are no number at all
// (so that a column of bad texts with errors="null" skips the exact path) only in blocks
// that leave at least this many: a column of valid texts leaves a few now and then (the
// uncommon forms; FLOAT16's shortest spellings more often), and checking each of those,
// or tracking which texts the scan refused, cost valid columns 3-10% on Zen 4. Texts of a
// block below the threshold take the exact path, which refuses them too, only slower.
constexpr size_t kNoNumberMinPending = 4;

// --- Run-time values ---------------------------------------------------------------------

// The streaming threshold of a path whose measured value is `cap_bytes` on a machine whose
// last-level cache has `llc_per_core_bytes` per core (0: unknown):
// cap * share / kStreamReferenceShareBytes, at least kStreamMinBytes and at most the cap.
constexpr size_t ScaledStreamBytes(size_t cap_bytes, size_t llc_per_core_bytes) {
  if (llc_per_core_bytes == 0 || llc_per_core_bytes >= kStreamReferenceShareBytes) {
    return cap_bytes;
  }
  const size_t scaled = static_cast<size_t>(static_cast<uint64_t>(cap_bytes) * llc_per_core_bytes /
                                            kStreamReferenceShareBytes);
  return scaled < kStreamMinBytes ? (cap_bytes < kStreamMinBytes ? cap_bytes : kStreamMinBytes)
                                  : scaled;
}

namespace detail {
inline std::atomic<size_t>& StreamBytesOverride() {
  static std::atomic<size_t> bytes{0};
  return bytes;
}
// This machine's last-level cache bytes per core (0: unknown), read once.
inline size_t LlcPerCoreBytes() {
  static const size_t bytes = cache_info::LlcPerCoreBytes(cache_info::SystemCacheSizes());
  return bytes;
}
}  // namespace detail

// The streaming threshold in force for a path whose measured value is `cap_bytes`.
inline size_t StreamBytes(size_t cap_bytes) {
  const size_t o = detail::StreamBytesOverride().load(std::memory_order_relaxed);
  return o != 0 ? o : ScaledStreamBytes(cap_bytes, detail::LlcPerCoreBytes());
}

// Where the prefetch distance in force comes from.
enum class PrefetchSource {
  kDefault,      // kPrefetchBytes; TENSORCAST_PREFETCH_BYTES is not set
  kEnvironment,  // TENSORCAST_PREFETCH_BYTES
  kMalformed,    // TENSORCAST_PREFETCH_BYTES is set but not a decimal number of bytes from 0
                 // to kMaxPrefetchBytes: ignored, kPrefetchBytes in force
};

struct PrefetchSetting {
  size_t bytes;  // 0: no software prefetch
  PrefetchSource source;
};

// The setting that the value of TENSORCAST_PREFETCH_BYTES (nullptr: unset) gives: 1-5
// decimal digits with a value of at most kMaxPrefetchBytes (0 turns prefetching off);
// anything else, an empty value included, is malformed.
PrefetchSetting ParsePrefetchBytes(const char* value);

// The setting in force: TENSORCAST_PREFETCH_BYTES as read on the first call (later changes
// of the environment have no effect).
const PrefetchSetting& PrefetchSettingInForce();

// The prefetch distance in force, in bytes (0: off).
inline size_t PrefetchBytes() { return PrefetchSettingInForce().bytes; }

// Tests only: every streaming threshold becomes `bytes` (0 restores the defaults).
// Returns the previous override.
inline size_t SetStreamBytesForTest(size_t bytes) {
  return detail::StreamBytesOverride().exchange(bytes);
}

}  // namespace tuning
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_TUNING_H_
