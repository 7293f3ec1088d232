// The table of Highway Cast kernels (internal): every row of the registry cast_pairs.inc,
// compiled for every Highway target; each row's function dispatches to the active target.
#ifndef TENSORCAST_LIB_DISPATCH_KERNEL_TABLE_H_
#define TENSORCAST_LIB_DISPATCH_KERNEL_TABLE_H_

#include <cstddef>

#include "tensorcast/cast_options.h"
#include "tensorcast/data_type.h"

namespace tensorcast {
namespace dispatch {

using CastKernel = void (*)(const void* src, void* dst, size_t count, const CastOptions& options);

struct KernelRow {
  DataType src;
  DataType dst;
  const char* name;   // the kernel's function name, e.g. "CastF32ToF16"
  CastKernel kernel;  // dispatches to the active target on each call
};

// Every registry row, in cast_pairs.inc order.
const KernelRow* KernelRows(size_t* count);

// The registry row of (src, dst), or nullptr when the pair has none.
const KernelRow* FindKernelRow(DataType src, DataType dst);

// The kernel of (src, dst), or nullptr when the pair has none.
CastKernel FindKernel(DataType src, DataType dst);

}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_DISPATCH_KERNEL_TABLE_H_
