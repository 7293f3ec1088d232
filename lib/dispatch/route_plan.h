// The route plan (internal): one entry per (source, destination) pair for each Highway target,
// built once on the first Cast that runs on that target. An entry names the route of large counts
// and, where small counts take another one, that route and the count from which the large route
// applies:
//
//   copy     the same type (memcpy; FLOAT8E5M2 with saturate goes through the hub, since
//            saturating turns +-Inf into +-MAX), and INT4 <-> UINT4, INT2 <-> UINT2, which
//            wrap to the same bits (a copy with the padding bits of a partial last byte
//            cleared, streamed when large).
//   kernel   the pair's registry row (cast_pairs.inc).
//   table    from tuning::kTableMinCount elements on, a source of at most 8 bits (<= 256
//            codes): out[i] = table[code i], where the table is the small-count route's
//            result on every source code, computed per call with the call's options. It
//            serves targets of at most 8 bits everywhere and 16-bit targets, and
//            32/64-bit integer targets of float8/float4 sources whose results all extend
//            from 16 bits, where TablePlanes holds (lib/kernels/capabilities-inl.h). Pairs
//            with a registry kernel keep it, except the pairs of tuning::kTableBeatsKernel,
//            where the table measured faster.
//   hub      two steps through an L1-resident block of tuning::kHubBlockElements: a
//            decoder into float32 (exact for sources exact in float32; rounded to odd for
//            DOUBLE and 32/64-bit integers into the small float types, which keeps the one
//            later rounding correct), or into a byte for 4-/2-bit integer pairs, then the
//            encoder. Pairs that widen with a plain promotion (-> DOUBLE; a 4-/2-bit
//            integer -> a wider integer) stream large outputs through an L1 stage.
//   strings  STRING on either side: the exact scalar string codec (not planned here).
//
// Three files: route_decide.cc builds the plan of a target (PlanAt), route_run.cc runs an
// entry (CastWithPlan), route_describe.cc prints one (DescribeRoute, CompiledTargetNames).
#ifndef TENSORCAST_LIB_DISPATCH_ROUTE_PLAN_H_
#define TENSORCAST_LIB_DISPATCH_ROUTE_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lib/dispatch/kernel_table.h"
#include "lib/dispatch/targets.h"
#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"
#include "tensorcast/introspection.h"

namespace tensorcast {
namespace dispatch {

constexpr size_t kCodes = static_cast<size_t>(kMaxDataTypeCode) + 1;

using Decoder = void (*)(const void* src, void* dst, size_t count);

struct NamedDecoder {
  Decoder fn;
  const char* name;
};

struct Entry {
  bool planned = false;
  Route route = Route::kKernel;  // counts >= table_min_count (every count when it is 0)
  Route small_route = Route::kKernel;
  size_t table_min_count = 0;
  // kernel
  const KernelRow* row = nullptr;
  // hub: decode (or odd_decode) into `mid`, then encode
  DataType mid = DataType::kFloat;
  const KernelRow* decode = nullptr;  // nullptr with odd_decode, or when src is `mid`
  NamedDecoder odd_decode = {nullptr, nullptr};
  const KernelRow* encode = nullptr;  // nullptr when dst is `mid`
  bool encode_saturating = false;     // encode with saturate = true (BOOL sources)
  bool stream = false;                // large outputs streamed through an L1 stage
  // copy
  bool hub_when_saturating = false;  // FLOAT8E5M2 -> FLOAT8E5M2
  // table (16-bit results in two byte planes, sign- or zero-extended to 32/64 bits)
  bool table_sign_extend = false;
};

struct Plan {
  TargetFacts facts;
  Entry entries[kCodes][kCodes];
};

// The plan of the target at `index` (see targets.h), built on first use and kept for the
// life of the process; nullptr when no target is compiled there. Thread-safe.
const Plan* PlanAt(size_t index);

// The compiled targets that this CPU supports, best first: (index, facts).
struct CompiledTarget {
  size_t index;
  TargetFacts facts;
};
std::vector<CompiledTarget> CompiledTargets();

// Runs `route` of entry `e` (a numeric route) on `count` elements.
void RunRoute(Route route, const Entry& e, const void* src, DataType src_type, void* dst,
              DataType dst_type, size_t count, const CastOptions& options);

// The small-count route's result on every code of a source of at most 8 bits, in code
// order, into out[0 .. 2^bits * BitWidth(dst) / 8). Returns the number of codes.
size_t ResultsOnEveryCode(const Entry& e, DataType src_type, DataType dst_type,
                          const CastOptions& options, uint8_t (&out)[256 * 8]);

// Converts `count` elements through the active target's plan entry of (src_type,
// dst_type). The arguments are valid (Cast validated them). Returns false, writing
// nothing, for pairs whose route is not numeric (STRING on either side): the caller uses
// the string codec.
bool CastWithPlan(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                  const CastOptions& options);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_ROUTE_PLAN_H_
