// The table of Highway Cast kernels (internal). Each registry row of cast_pairs.inc
// is compiled for every Highway target and dispatched to the best one at run time.
#ifndef TENSORCAST_LIB_DISPATCH_CAST_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_CAST_KERNELS_H_

#include <cstddef>

#include "tensorcast/cast.h"

namespace tensorcast {
namespace kernels {

using CastKernel = void (*)(const void* src, void* dst, size_t count, const CastOptions& options);

struct KernelRow {
  DataType src;
  DataType dst;
  const char* name;
  CastKernel kernel;  // dispatches to the best target on each call
};

// Every registry row, in cast_pairs.inc order.
const KernelRow* KernelRows(size_t* count);

// The kernel of (src, dst), or nullptr when the pair has none.
CastKernel FindKernel(DataType src, DataType dst);

}  // namespace kernels
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_CAST_KERNELS_H_
