// The table of Highway Cast kernels (internal). Each registry row of cast_pairs.inc
// is compiled for every Highway target and dispatched to the best one at run time.
#ifndef TENSORCAST_LIB_DISPATCH_CAST_KERNELS_H_
#define TENSORCAST_LIB_DISPATCH_CAST_KERNELS_H_

#include <cstddef>

#include "tensorcast/cast.h"

namespace tensorcast {
namespace dispatch {

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

// Converts with the pair's kernel, or, for a pair without one, with the blocked
// two-step path: an L1-sized block is decoded into float32 lanes (exactly, or rounded
// to odd for DOUBLE / 32- and 64-bit integer sources into the small float types) and
// encoded once (large outputs of widening pairs streamed). From 4096 elements on, pairs
// without a kernel from a type of at most 8 bits into a type of at most 8 or 16 bits,
// float8/float4 into 32/64-bit integers whose results all extend from 16 bits, and
// float8 / sub-byte -> FLOAT16 (faster than their kernels) are cast by table lookup: the
// table holds the kernel path's result for every source code
// (lib/dispatch/cast_kernels.cc, lut_kernels.cc). Returns false, writing nothing, when
// none applies.
bool CastWithPlan(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                     const CastOptions& options);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_CAST_KERNELS_H_
