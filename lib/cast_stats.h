// The statistics of a numeric Cast (CastOptions::stats), computed after the conversion from
// the source and the output (internal).
#ifndef TENSORCAST_LIB_CAST_STATS_H_
#define TENSORCAST_LIB_CAST_STATS_H_

#include <cstddef>

#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"
#include "tensorcast/stats.h"

namespace tensorcast {
namespace cast_stats {

// *out for the finished Cast of `count` elements from src to dst (numeric types, distinct
// buffers), with the call's options (saturate, round_mode, runner).
void Compute(const void* src, DataType src_type, const void* dst, DataType dst_type, size_t count,
             const CastOptions& options, CastStats* out);

}  // namespace cast_stats
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_CAST_STATS_H_
