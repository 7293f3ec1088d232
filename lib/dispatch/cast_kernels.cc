// The kernel table: the rows of every kernel family (each exported by its own
// foreach_target TU, *_kernels.cc), in one list.
#include "lib/dispatch/cast_kernels.h"

#include <vector>

namespace tensorcast {
namespace kernels {

// One per family TU; add a family here and in lib/CMakeLists.txt.
const KernelRow* FloatKernelRows(size_t* count);

namespace {

struct Table {
  std::vector<KernelRow> rows;
  Table() {
    for (auto* family : {&FloatKernelRows}) {
      size_t n = 0;
      const KernelRow* r = family(&n);
      rows.insert(rows.end(), r, r + n);
    }
  }
};

const Table& GetTable() {
  static const Table table;  // built once, thread-safe
  return table;
}

}  // namespace

const KernelRow* KernelRows(size_t* count) {
  *count = GetTable().rows.size();
  return GetTable().rows.data();
}

CastKernel FindKernel(DataType src, DataType dst) {
  for (const KernelRow& row : GetTable().rows) {
    if (row.src == src && row.dst == dst) return row.kernel;
  }
  return nullptr;
}

}  // namespace kernels
}  // namespace tensorcast
