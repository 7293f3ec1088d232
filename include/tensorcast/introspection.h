// tensorcast/introspection.h: what this build and this CPU do with a Cast: the Highway
// targets, the route of each pair of element types, and the run-time tuning in force.
// Nothing here changes a result; `tensorcast routes` prints the same facts.
#ifndef TENSORCAST_INTROSPECTION_H_
#define TENSORCAST_INTROSPECTION_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tensorcast/data_type.h"
#include "tensorcast/status.h"

namespace tensorcast {

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

#endif  // TENSORCAST_INTROSPECTION_H_
