// The kernel table: the rows of every kernel family (each exported by its own
// foreach_target TU, *_kernels.cc), in one list.
#include "lib/dispatch/cast_kernels.h"

#include <cstdint>
#include <vector>

#include "lib/dispatch/hub_kernels.h"
#include "lib/kernels/stream_threshold.h"

namespace tensorcast {
namespace kernels {

std::atomic<size_t> g_stream_bytes_override{0};

// One per family TU; add a family here and in lib/CMakeLists.txt.
const KernelRow* FloatKernelRows(size_t* count);
const KernelRow* IntKernelRows(size_t* count);
const KernelRow* IntFloatKernelRows(size_t* count);
const KernelRow* Float8KernelRows(size_t* count);
const KernelRow* SubbyteKernelRows(size_t* count);
// lib/dispatch/lut_kernels.cc: out[i] = table[code i] (see LutCast there).
void LutCastDispatch(const uint8_t* table, int src_bits, int dst_bits, const void* src,
                     void* dst, size_t count);

namespace {

constexpr size_t kCodes = static_cast<size_t>(kMaxDataTypeCode) + 1;

struct Table {
  std::vector<KernelRow> rows;
  // by_pair[src][dst]: the first row of the pair (a direct lookup per Cast call; the
  // linear scan over ~190 rows it replaces cost ~70 ns per call).
  CastKernel by_pair[kCodes][kCodes] = {};
  Table() {
    for (auto* family : {&FloatKernelRows, &IntKernelRows, &IntFloatKernelRows, &Float8KernelRows,
                          &SubbyteKernelRows}) {
      size_t n = 0;
      const KernelRow* r = family(&n);
      rows.insert(rows.end(), r, r + n);
    }
    for (const KernelRow& row : rows) {
      CastKernel& slot = by_pair[static_cast<size_t>(row.src)][static_cast<size_t>(row.dst)];
      if (slot == nullptr) slot = row.kernel;
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
  const auto s = static_cast<size_t>(src), d = static_cast<size_t>(dst);
  if (s >= kCodes || d >= kCodes) return nullptr;
  return GetTable().by_pair[s][d];
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
    case DataType::kInt32: return &Int32ToF32RoundToOdd;
    case DataType::kUint32: return &Uint32ToF32RoundToOdd;
    case DataType::kInt64: return &Int64ToF32RoundToOdd;
    case DataType::kUint64: return &Uint64ToF32RoundToOdd;
    default: return nullptr;
  }
}

bool IsSigned(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt32 ||
         t == DataType::kInt64 || t == DataType::kInt4 || t == DataType::kInt2;
}

// How a pair without a kernel of its own is done in two steps through `mid`.
struct TwoStep {
  DataType mid = DataType::kFloat;
  CastKernel decode = nullptr;  // src -> mid
  Decoder odd_decode = nullptr;  // src -> FLOAT rounded to odd (instead of `decode`)
  CastKernel encode = nullptr;  // mid -> dst
  CastOptions encode_options;
};

bool PlanTwoStep(DataType src, DataType dst, const CastOptions& options, TwoStep* plan) {
  plan->encode_options = options;
  if (IsInteger(src) && IsInteger(dst)) {
    // Integer <-> 4-/2-bit integer: through one byte. Wrapping twice keeps the low bits;
    // a sub-byte source widens exactly into INT8 (signed) or UINT8 (unsigned).
    if (BitWidth(src) >= 8 && BitWidth(dst) >= 8) return false;
    plan->mid = BitWidth(src) < 8 && !IsSigned(src) ? DataType::kUint8 : DataType::kInt8;
    plan->decode = src == plan->mid ? nullptr : FindKernel(src, plan->mid);
    plan->encode = dst == plan->mid ? nullptr : FindKernel(plan->mid, dst);
    return plan->decode != nullptr && plan->encode != nullptr;
  }
  // Through FLOAT: a registry kernel into FLOAT for sources exact in float32, or a
  // round-to-odd decoder for wide sources into the small float types.
  plan->mid = DataType::kFloat;
  plan->encode = FindKernel(DataType::kFloat, dst);
  if (plan->encode == nullptr) return false;
  const bool exact_in_f32 = src != DataType::kDouble && src != DataType::kFloat &&
                            !(IsInteger(src) && BitWidth(src) >= 32);
  if (exact_in_f32) {
    plan->decode = FindKernel(src, DataType::kFloat);
  } else if (IsSmallFloat(dst)) {
    plan->odd_decode = RoundToOddDecoder(src);
  }
  // bool false -> float8e8m0 is 0x00 in both saturate modes (semantics.md section 2),
  // while a float 0.0 without saturation is NaN: encode bools saturating.
  if (src == DataType::kBool) plan->encode_options.saturate = true;
  return plan->decode != nullptr || plan->odd_decode != nullptr;
}

// Types with at most 8 bits (at most 256 codes).
bool IsSmallCode(DataType t) {
  switch (t) {
    case DataType::kInt8: case DataType::kUint8: case DataType::kBool:
    case DataType::kFloat8E4M3FN: case DataType::kFloat8E4M3FNUZ: case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ: case DataType::kFloat8E8M0: case DataType::kInt4:
    case DataType::kUint4: case DataType::kFloat4E2M1: case DataType::kInt2: case DataType::kUint2:
      return true;
    default:
      return false;
  }
}

// From this many elements on, a pair of small-code types is cast by table lookup: the
// table (one kernel call on the <= 256 source codes) is then amortised.
constexpr size_t kLutMinCount = 4096;

// Casts through a table of the pair's results on every source code, computed with the
// kernel path below (exact, with these options); false, writing nothing, when the pair
// has no kernel path.
bool CastWithTable(const void* src, DataType src_type, void* dst, DataType dst_type,
                   size_t count, const CastOptions& options) {
  const int src_bits = BitWidth(src_type), dst_bits = BitWidth(dst_type);
  const size_t codes = size_t{1} << src_bits;
  // Every source code in order, packed like the type (element 0 in the low bits).
  uint8_t in[256] = {};
  for (size_t c = 0; c < codes; ++c) {
    in[c * static_cast<size_t>(src_bits) / 8] = static_cast<uint8_t>(
        in[c * static_cast<size_t>(src_bits) / 8] | c << (c * static_cast<size_t>(src_bits) % 8));
  }
  uint8_t out[256] = {};
  if (!CastWithKernels(in, src_type, out, dst_type, codes, options)) return false;
  alignas(64) uint8_t table[256] = {};
  const unsigned dst_mask = (1u << dst_bits) - 1;
  for (size_t c = 0; c < codes; ++c) {
    const size_t bit = c * static_cast<size_t>(dst_bits);
    table[c] = static_cast<uint8_t>((out[bit / 8] >> (bit % 8)) & dst_mask);
  }
  LutCastDispatch(table, src_bits, dst_bits, src, dst, count);
  return true;
}

}  // namespace

bool CastWithKernels(const void* src, DataType src_type, void* dst, DataType dst_type,
                     size_t count, const CastOptions& options) {
  if (const CastKernel kernel = FindKernel(src_type, dst_type)) {
    kernel(src, dst, count, options);
    return true;
  }
  // Two-step pairs of small-code types: by table lookup (the direct kernels of such
  // pairs, integer wrap/pack and bool, are as fast or faster on every target).
  if (count >= kLutMinCount && src_type != dst_type && IsSmallCode(src_type) &&
      IsSmallCode(dst_type) && CastWithTable(src, src_type, dst, dst_type, count, options)) {
    return true;
  }
  if (src_type == dst_type) return false;  // a copy (the reference's memcpy)
  TwoStep plan;
  if (!PlanTwoStep(src_type, dst_type, options, &plan)) return false;

  constexpr size_t kBlock = 1024;  // at most 4 KiB: stays in L1 between the two steps
  alignas(64) uint8_t block[kBlock * 4];
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  const size_t src_bits = static_cast<size_t>(BitWidth(src_type));
  const size_t dst_bits = static_cast<size_t>(BitWidth(dst_type));
  for (size_t i = 0; i < count; i += kBlock) {
    const size_t n = count - i < kBlock ? count - i : kBlock;
    // kBlock is a multiple of 8, so packed 4- and 2-bit blocks start on a byte.
    const void* s = in + i * src_bits / 8;
    void* d = out + i * dst_bits / 8;
    if (plan.odd_decode != nullptr) {
      plan.odd_decode(s, block, n);
    } else {
      plan.decode(s, block, n, options);
    }
    plan.encode(block, d, n, plan.encode_options);
  }
  return true;
}

}  // namespace kernels
}  // namespace tensorcast
