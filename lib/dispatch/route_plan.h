// The route plan (internal): for every Highway target, decided once on first use, which
// route serves each (source, destination) pair and with which kernels. Cast looks the pair
// up and runs the route; DescribeRoute (tensorcast/cast.h) prints the same entries.
#ifndef TENSORCAST_LIB_DISPATCH_ROUTE_PLAN_H_
#define TENSORCAST_LIB_DISPATCH_ROUTE_PLAN_H_

#include <cstddef>

#include "lib/dispatch/kernel_table.h"
#include "tensorcast/cast.h"

namespace tensorcast {
namespace dispatch {

// Converts `count` elements through the active target's plan entry of (src_type,
// dst_type). The arguments are valid (Cast validated them). Returns false, writing
// nothing, for pairs whose route is not numeric (STRING on either side): the caller uses
// the string codec.
bool CastWithPlan(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                  const CastOptions& options);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_ROUTE_PLAN_H_
