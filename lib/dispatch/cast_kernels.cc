// The kernel table: the rows of every kernel family (each exported by its own
// foreach_target TU, *_kernels.cc), in one list.
#include "lib/dispatch/cast_kernels.h"

#include <cstdint>
#include <vector>

#include "lib/dispatch/hub_kernels.h"

namespace tensorcast {
namespace kernels {

// One per family TU; add a family here and in lib/CMakeLists.txt.
const KernelRow* FloatKernelRows(size_t* count);
const KernelRow* IntKernelRows(size_t* count);
const KernelRow* IntFloatKernelRows(size_t* count);
const KernelRow* Float8KernelRows(size_t* count);
const KernelRow* SubbyteKernelRows(size_t* count);

namespace {

struct Table {
  std::vector<KernelRow> rows;
  Table() {
    for (auto* family : {&FloatKernelRows, &IntKernelRows, &IntFloatKernelRows, &Float8KernelRows,
                          &SubbyteKernelRows}) {
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

namespace {

using Decoder = void (*)(const void* src, void* dst, size_t count);

bool IsInteger(DataType t) {
  switch (t) {
    case DataType::kInt8: case DataType::kUint8: case DataType::kInt16: case DataType::kUint16:
    case DataType::kInt32: case DataType::kUint32: case DataType::kInt64: case DataType::kUint64:
    case DataType::kInt4: case DataType::kUint4: case DataType::kInt2: case DataType::kUint2:
      return true;
    default:
      return false;
  }
}

// Targets with at most 22 significant bits, for which a round-to-odd float32 is an
// exact stand-in for the source.
bool IsSmallFloat(DataType t) {
  switch (t) {
    case DataType::kFloat16: case DataType::kBfloat16: case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ: case DataType::kFloat8E5M2: case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0: case DataType::kFloat4E2M1:
      return true;
    default:
      return false;
  }
}

// The round-to-odd float32 decoder of a wide source, or nullptr.
Decoder RoundToOddDecoder(DataType t) {
  switch (t) {
    case DataType::kDouble: return &F64ToF32RoundToOdd;
    default: return nullptr;
  }
}

}  // namespace

bool CastWithKernels(const void* src, DataType src_type, void* dst, DataType dst_type,
                     size_t count, const CastOptions& options) {
  if (const CastKernel kernel = FindKernel(src_type, dst_type)) {
    kernel(src, dst, count, options);
    return true;
  }
  if (src_type == dst_type) return false;  // a copy (the reference's memcpy)
  // Decode step: a registry kernel into FLOAT (every source exact in float32), or a
  // round-to-odd decoder when the target is a small float type.
  const CastKernel exact_decode = FindKernel(src_type, DataType::kFloat);
  const Decoder odd_decode = IsSmallFloat(dst_type) ? RoundToOddDecoder(src_type) : nullptr;
  const CastKernel encode = FindKernel(DataType::kFloat, dst_type);
  if (encode == nullptr || (exact_decode == nullptr && odd_decode == nullptr)) return false;
  // Exactness of the float32 intermediate: wide sources (not exact in float32) only
  // through round-to-odd; integer -> integer wraps, which float32 cannot express.
  const int src_bits = BitWidth(src_type);
  const bool exact_in_f32 = src_type != DataType::kDouble && src_type != DataType::kFloat &&
                            !(IsInteger(src_type) && src_bits >= 32);
  if (odd_decode == nullptr && !exact_in_f32) return false;
  if (IsInteger(src_type) && IsInteger(dst_type)) return false;

  // bool false -> float8e8m0 is 0x00 in both saturate modes (semantics.md section 2),
  // while a float 0.0 without saturation is NaN: encode bools saturating.
  CastOptions encode_options = options;
  if (src_type == DataType::kBool) encode_options.saturate = true;

  constexpr size_t kBlock = 1024;  // 4 KiB of float32: stays in L1 between the two steps
  alignas(64) float block[kBlock];
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  const int dst_bits = BitWidth(dst_type);
  for (size_t i = 0; i < count; i += kBlock) {
    const size_t n = count - i < kBlock ? count - i : kBlock;
    // kBlock is a multiple of 8, so packed 4- and 2-bit blocks start on a byte.
    const void* s = in + i * static_cast<size_t>(src_bits) / 8;
    void* d = out + i * static_cast<size_t>(dst_bits) / 8;
    if (odd_decode != nullptr) {
      odd_decode(s, block, n);
    } else {
      exact_decode(s, block, n, options);
    }
    encode(block, d, n, encode_options);
  }
  return true;
}

}  // namespace kernels
}  // namespace tensorcast
