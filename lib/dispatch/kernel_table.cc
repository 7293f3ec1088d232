// The kernel table: the rows of every kernel family, each exported by its own
// foreach_target TU (*_kernels.cc), in one list with a (src, dst) index.
#include "lib/dispatch/kernel_table.h"

#include <vector>

namespace tensorcast {
namespace dispatch {

// One per family TU (family_table.inc defines them); add a family here and in
// lib/CMakeLists.txt.
const KernelRow* FloatKernelRows(size_t* count);
const KernelRow* IntKernelRows(size_t* count);
const KernelRow* IntFloatKernelRows(size_t* count);
const KernelRow* Float8KernelRows(size_t* count);
const KernelRow* SubbyteKernelRows(size_t* count);
const KernelRow* Float6KernelRows(size_t* count);

namespace {

constexpr size_t kCodes = static_cast<size_t>(kMaxDataTypeCode) + 1;

struct Table {
  std::vector<KernelRow> rows;
  const KernelRow* by_pair[kCodes][kCodes] = {};  // the pair's row, or nullptr
  Table() {
    for (auto* family : {&FloatKernelRows, &IntKernelRows, &IntFloatKernelRows, &Float8KernelRows,
                         &SubbyteKernelRows, &Float6KernelRows}) {
      size_t n = 0;
      const KernelRow* r = family(&n);
      rows.insert(rows.end(), r, r + n);
    }
    for (const KernelRow& row : rows) {
      const KernelRow*& slot = by_pair[static_cast<size_t>(row.src)][static_cast<size_t>(row.dst)];
      if (slot == nullptr) slot = &row;
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

const KernelRow* FindKernelRow(DataType src, DataType dst) {
  const auto s = static_cast<size_t>(src), d = static_cast<size_t>(dst);
  if (s >= kCodes || d >= kCodes) return nullptr;
  return GetTable().by_pair[s][d];
}

CastKernel FindKernel(DataType src, DataType dst) {
  const KernelRow* row = FindKernelRow(src, dst);
  return row != nullptr ? row->kernel : nullptr;
}

}  // namespace dispatch
}  // namespace tensorcast
