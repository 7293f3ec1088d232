// tensorcast/cast.h: ONNX Cast (opsets 1-25) and CastLike (15-25).
//
// Semantics are Cast-25's (a superset of the older opsets): one rounding of the exact
// source value, float8 `saturate`, float8e8m0 `round_mode`, numpy's string spellings.
// The rules, and where they deliberately differ from onnx.reference, are in README.md.
#ifndef TENSORCAST_CAST_H_
#define TENSORCAST_CAST_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tensorcast/data_type.h"
#include "tensorcast/runner.h"
#include "tensorcast/status.h"

namespace tensorcast {

// Rounding of float8e8m0 targets (Cast-24 `round_mode`). Other targets ignore it.
enum class RoundMode : int { kUp = 0, kDown = 1, kNearest = 2 };

struct CastOptions {
  // Float8 targets (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0): values beyond the format's
  // range become +-MAX when true, NaN/Inf (as the format allows) when false.
  bool saturate = true;
  RoundMode round_mode = RoundMode::kUp;
  // Null: the call runs on the calling thread. Otherwise large calls are cut into tasks
  // that this runner executes (tensorcast/runner.h); the results are the same bits.
  const Runner* runner = nullptr;
};

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
Status CastLike(const void* src, DataType src_type, void* dst, DataType like_type, size_t count,
                const CastOptions& options = {});

// Opset-specific attribute handling.
// Checks that Cast (or CastLike when `cast_like` is true) of `opset` accepts the pair:
// Cast 1/6: numeric + bool; 9: + STRING; 13: + BFLOAT16; 19: + four float8 types;
// 21: + INT4/UINT4; 23: + FLOAT4E2M1; 24: + FLOAT8E8M0; 25: + INT2/UINT2.
// CastLike exists from opset 15.
Status CheckCastOpset(int opset, DataType from, DataType to, bool cast_like = false);

// Parses the `round_mode` attribute: "up", "down" or "nearest" (exact spelling).
Status ParseRoundMode(std::string_view text, RoundMode* out);

// "up", "down", "nearest".
const char* RoundModeName(RoundMode mode) noexcept;

// The Highway target that bulk kernels dispatch to on this CPU (e.g. "AVX3", "NEON").
const char* ActiveTargetName() noexcept;

// The Highway targets compiled into this build that this CPU can run, best first (e.g.
// "AVX3_DL", "AVX3", "AVX2", "SSE4", "SSSE3", "SCALAR"). ActiveTargetName() is one of them.
std::vector<std::string> CompiledTargetNames();

// How Cast serves a pair of element types (the route plan, decided once per target).
enum class Route : int {
  kKernel = 0,   // one SIMD kernel of the pair
  kTable = 1,    // table lookup: the pair's result for each of the <= 256 source codes
  kHub = 2,      // two steps through an L1-resident block: a decoder, then an encoder
  kCopy = 3,     // a byte copy (same type; INT4 <-> UINT4 and INT2 <-> UINT2 wrap to a copy)
  kStrings = 4,  // the exact scalar string codec (STRING on either side)
};

// "kernel", "table", "hub", "copy", "strings".
const char* RouteName(Route route) noexcept;

struct RouteInfo {
  Route route = Route::kKernel;  // the route of large counts
  std::string detail;            // the kernel, or the kernels, it runs
  // Counts below `small_below` take `small_route` (small_detail) instead; 0: every count
  // takes `route`.
  size_t small_below = 0;
  Route small_route = Route::kKernel;
  std::string small_detail;
};

// Describes the route of (src, dst) on `target` (a name from CompiledTargetNames(); empty:
// the active target). Errors: an unknown or non-castable type, or a target that is not
// compiled in or not supported by this CPU.
Status DescribeRoute(DataType src, DataType dst, std::string_view target, RouteInfo* out);

// The run-time tuning in force in this process, read from the machine once
// (docs/performance.md, "Tuning on a new CPU").
struct TuningInfo {
  // The software prefetch distance of the streaming loops in bytes (0: off),
  // and where it comes from: "default", "TENSORCAST_PREFETCH_BYTES", or "default;
  // TENSORCAST_PREFETCH_BYTES '<value>' ignored: ..." when the variable is malformed.
  size_t prefetch_bytes = 0;
  std::string prefetch_source;
  // Outputs of at least these many bytes are written with non-temporal stores (Split: its
  // source): the values measured on the team's machines, scaled down on a machine whose
  // last-level cache has less per core.
  size_t cast_stream_bytes = 0;     // element-wise kernels
  size_t subbyte_stream_bytes = 0;  // sub-byte encoders and decoders
  size_t table_stream_bytes = 0;    // table lookup
  size_t hub_stream_bytes = 0;      // two-step route
  size_t split_stream_bytes = 0;    // Split
  // The last-level cache as the OS reports it (sysfs), and the CPUs that share it (0:
  // unknown).
  size_t llc_bytes = 0;
  unsigned llc_shared_cpus = 0;
};

// Fills *out. Errors: out of memory.
Status DescribeTuning(TuningInfo* out);

}  // namespace tensorcast

#endif  // TENSORCAST_CAST_H_
