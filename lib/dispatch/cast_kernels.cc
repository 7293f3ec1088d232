// The kernel table: the rows of every kernel family (each exported by its own
// foreach_target TU, *_kernels.cc), in one list; and CastWithPlan, which takes for a
// pair, in this order:
//   1. the pair's registry kernel (FindKernel), except for the pairs the table of step 2
//      beats (TableBeatsKernel: float8 / sub-byte -> FLOAT16);
//   2. from kLutMinCount elements on, for a source of at most 8 bits (<= 256 codes) and a
//      target of at most 8 or exactly 16 bits, or a float8/float4 source and a 32/64-bit
//      integer target whose results all extend from 16 bits (IsTableTarget): a table of
//      the results of the kernel path on every source code, applied by LutCastDispatch
//      (lut_kernels.cc);
//   3. the blocked two-step ("hub") path: kBlock elements at a time decoded into an
//      L1-resident FLOAT (or byte) block, then encoded into the destination. Outputs of
//      kHubStreamBytes and more of pairs that widen with a plain promotion
//      (TwoStep::stream: -> DOUBLE, a byte -> a wider integer) are encoded into an L1
//      stage and streamed out (StreamCopy, non-temporal stores) from the first
//      64-byte-aligned output byte on.
#include "lib/dispatch/cast_kernels.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hwy/cache_control.h"
#include "lib/dispatch/hub_kernels.h"
#include "lib/tuning.h"

namespace tensorcast {
namespace dispatch {


// One per family TU; add a family here and in lib/CMakeLists.txt.
const KernelRow* FloatKernelRows(size_t* count);
const KernelRow* IntKernelRows(size_t* count);
const KernelRow* IntFloatKernelRows(size_t* count);
const KernelRow* Float8KernelRows(size_t* count);
const KernelRow* SubbyteKernelRows(size_t* count);
// lib/dispatch/lut_kernels.cc: out[i] = table[code i] (see LutCast there).
void LutCastDispatch(const uint8_t* table, int src_bits, int dst_bits, bool sign_extend,
                     const void* src, void* dst, size_t count);
// Whether the best target's LutCast takes 16-bit and wider targets from src_bits-wide
// sources (see LutPlanes there).
bool LutPlanesDispatch(int src_bits);

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
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kInt2:
    case DataType::kUint2: return true;
    default: return false;
  }
}

// Targets with at most 22 significant bits, for which a round-to-odd float32 is an
// exact stand-in for the source.
bool IsSmallFloat(DataType t) {
  switch (t) {
    case DataType::kFloat16:
    case DataType::kBfloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kFloat4E2M1: return true;
    default: return false;
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
  CastKernel decode = nullptr;   // src -> mid
  Decoder odd_decode = nullptr;  // src -> FLOAT rounded to odd (instead of `decode`)
  CastKernel encode = nullptr;   // mid -> dst
  CastOptions encode_options;
  // Large outputs streamed (kHubStreamBytes): when the output is at least twice the
  // source (its read-for-ownership traffic then costs more than reading the source) and
  // the encoder is a plain widening (FLOAT -> DOUBLE, a byte -> a wider integer). Other
  // encoders (FLOAT -> integer: clamps, NaN and unsigned fix-ups; FLOAT -> 16-bit floats:
  // rounding) can leave their pairs compute-bound, and a staged block's non-temporal
  // stores do not overlap the next block's compute: measured at 64 MiB, x memcpy,
  // streaming took float8e8m0 -> UINT64 from 0.80 to 0.63 and float8e8m0 -> INT32 from
  // 1.11 to 0.85 (AVX3_DL), float8e4m3fn -> BFLOAT16 from 0.59 to 0.52 (AVX2), while it
  // took every 8-bit and sub-byte type -> DOUBLE from 0.93..1.02 to 1.08..1.20 (AVX3_DL).
  // Narrowing pairs measured the same or slower streamed.
  bool stream = false;
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
    plan->stream = BitWidth(dst) > 8;  // a 4-/2-bit source widened through a byte
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
  plan->stream = dst == DataType::kDouble;  // FLOAT -> DOUBLE: a plain promotion
  // bool false -> float8e8m0 is 0x00 in both saturate modes (semantics.md section 2),
  // while a float 0.0 without saturation is NaN: encode bools saturating.
  if (src == DataType::kBool) plan->encode_options.saturate = true;
  return plan->decode != nullptr || plan->odd_decode != nullptr;
}

// Types with at most 8 bits (at most 256 codes).
bool IsSmallCode(DataType t) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kBool:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kFloat4E2M1:
    case DataType::kInt2:
    case DataType::kUint2: return true;
    default: return false;
  }
}

// From this many elements on, a pair of small-code types is cast by table lookup: the
// table (one kernel call on the <= 256 source codes) is then amortised.
constexpr size_t kLutMinCount = 4096;

// Targets of a small-code source that a table lookup serves: at most 8 bits (one byte
// table), 16 bits (two byte tables), and the 32/64-bit integers from float8 and float4
// sources when every result is the sign or zero extension of its low 16 bits (checked
// per table). There the two-step path is compute-bound in its FLOAT -> integer encoder
// (float8e4m3fn -> UINT64: 0.47 ns/element in L1 and out of cache alike); the 4-/2-bit
// integers widen through a byte as fast (64 MiB, streamed) or faster (8 KiB: uint4 ->
// INT64 0.89 vs 0.67x memcpy by table).
bool IsTableTarget(DataType src, DataType dst) {
  if (IsSmallCode(dst)) return true;
  const bool wide_int = dst == DataType::kInt32 || dst == DataType::kUint32 ||
                        dst == DataType::kInt64 || dst == DataType::kUint64;
  return (BitWidth(dst) == 16 || (wide_int && !IsInteger(src) && src != DataType::kBool)) &&
         LutPlanesDispatch(BitWidth(src));
}

// Pairs (into 32/64-bit integers, whose results do not depend on the options) found by
// CastWithTable to have a result that does not extend from 16 bits (float8e8m0's 2^127,
// float8e5m2's Inf -> the integer maximum): later calls go to the two-step path without
// building the table again.
std::atomic<bool> g_no_table[kCodes][kCodes];

// Casts through a table of the pair's results on every source code, computed with the
// kernel path below (exact, with these options); false, writing nothing, when the pair
// has no kernel path or a table cannot hold its results.
bool CastWithTable(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                   const CastOptions& options) {
  std::atomic<bool>& no_table =
      g_no_table[static_cast<size_t>(src_type)][static_cast<size_t>(dst_type)];
  if (no_table.load(std::memory_order_relaxed)) return false;
  const int src_bits = BitWidth(src_type), dst_bits = BitWidth(dst_type);
  const size_t codes = size_t{1} << src_bits;
  // Every source code in order, packed like the type (element 0 in the low bits).
  uint8_t in[256] = {};
  for (size_t c = 0; c < codes; ++c) {
    in[c * static_cast<size_t>(src_bits) / 8] = static_cast<uint8_t>(
        in[c * static_cast<size_t>(src_bits) / 8] | c << (c * static_cast<size_t>(src_bits) % 8));
  }
  uint8_t out[256 * 8] = {};
  if (!CastWithPlan(in, src_type, out, dst_type, codes, options)) return false;
  alignas(64) uint8_t table[256 * 2] = {};
  bool sign_extend = false;
  if (dst_bits >= 16) {
    // Two byte tables: the low and the high byte of each 16-bit result (of the results'
    // low 16 bits, which must then sign- or zero-extend to the whole result).
    const size_t bytes = static_cast<size_t>(dst_bits) / 8;
    bool sext = true, zext = true;
    for (size_t c = 0; c < codes; ++c) {
      uint64_t v = 0;
      if (bytes == 2) {
        uint16_t r;
        std::memcpy(&r, out + 2 * c, 2);
        v = r;
      } else if (bytes == 4) {
        uint32_t r;
        std::memcpy(&r, out + 4 * c, 4);
        v = r;
        sext = sext && r == static_cast<uint32_t>(static_cast<int16_t>(r));
      } else {
        std::memcpy(&v, out + 8 * c, 8);
        sext = sext && v == static_cast<uint64_t>(static_cast<int16_t>(v));
      }
      zext = zext && v <= 0xFFFF;
      table[c] = static_cast<uint8_t>(v);
      table[256 + c] = static_cast<uint8_t>(v >> 8);
    }
    if (bytes > 2 && !zext && !sext) {
      no_table.store(true, std::memory_order_relaxed);
      return false;
    }
    sign_extend = !zext;
  } else {
    const unsigned dst_mask = (1u << dst_bits) - 1;
    for (size_t c = 0; c < codes; ++c) {
      const size_t bit = c * static_cast<size_t>(dst_bits);
      table[c] = static_cast<uint8_t>((out[bit / 8] >> (bit % 8)) & dst_mask);
    }
  }
  LutCastDispatch(table, src_bits, dst_bits, sign_extend, src, dst, count);
  return true;
}

// Pairs with a registry kernel that the table lookup beats from kLutMinCount elements
// on: float8 (but e5m2, whose FLOAT16 is its byte shifted), float4e2m1 and the 4-/2-bit
// integers -> FLOAT16 decode with arithmetic per element. Measured (AVX3_DL, x memcpy,
// kernel -> table): 64 MiB float8e4m3fn 0.98 -> 1.50, float8e5m2fnuz 0.81 -> 1.33,
// int4 1.17 -> 1.28; 8 KiB float8e5m2fnuz 0.10 -> 0.24, int4 0.45 -> 0.67. Kept:
// float8e5m2 (8 KiB 0.39 vs 0.25), the integer and bool widenings (8 KiB 0.78 vs 0.25;
// the same out of cache). Float8 sources only where the target looks them up fast
// (LutPlanesDispatch: AVX3_DL); on AVX2 sub-byte -> FLOAT16 gains as well (int4 8 KiB
// 0.40 -> 0.61).
bool TableBeatsKernel(DataType src, DataType dst) {
  // INT8 / UINT8 -> FLOAT16 / BFLOAT16 (fused rows): the table measured 1.44-1.57 against
  // 0.99-1.76 at 64 MiB and 0.9-1.95 against 0.26-0.56 at 256 KiB.
  if ((src == DataType::kInt8 || src == DataType::kUint8) &&
      (dst == DataType::kFloat16 || dst == DataType::kBfloat16)) {
    return LutPlanesDispatch(8);
  }
  if (dst != DataType::kFloat16) return false;
  switch (src) {
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kFloat4E2M1:
    case DataType::kInt4:
    case DataType::kUint4:
    case DataType::kInt2:
    case DataType::kUint2: return LutPlanesDispatch(BitWidth(src));
    default: return false;
  }
}

// Hub outputs of at least this many bytes (tuning::StreamBytes: tests lower it) are
// streamed: like memcpy at that size, the path then does not read every output line
// before writing it (as CastLoop's kCastLoopStreamBytes).
constexpr size_t kHubStreamBytes = size_t{4} << 20;

}  // namespace

bool CastWithPlan(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                     const CastOptions& options) {
  if (count >= kLutMinCount && TableBeatsKernel(src_type, dst_type) &&
      CastWithTable(src, src_type, dst, dst_type, count, options)) {
    return true;
  }
  if (const CastKernel kernel = FindKernel(src_type, dst_type)) {
    kernel(src, dst, count, options);
    return true;
  }
  // INT4 <-> UINT4 and INT2 <-> UINT2 wrap to the same bits: a copy (streamed when large),
  // with the padding bits of a partial last byte cleared (at 64 MiB, by table lookup:
  // INT2 -> UINT2 0.70x memcpy).
  if (src_type != dst_type && BitWidth(src_type) < 8 && BitWidth(src_type) == BitWidth(dst_type) &&
      IsInteger(src_type) && IsInteger(dst_type)) {
    const size_t bits = count * static_cast<size_t>(BitWidth(src_type));
    const size_t bytes = (bits + 7) / 8;
    if (bytes >= tuning::StreamBytes(kHubStreamBytes)) {
      StreamCopy(src, dst, bytes);
      hwy::FlushStream();
    } else {
      std::memcpy(dst, src, bytes);
    }
    if (bits % 8 != 0) {
      auto* last = static_cast<uint8_t*>(dst) + bytes - 1;
      *last = static_cast<uint8_t>(*last & ((1u << (bits % 8)) - 1));
    }
    return true;
  }
  // Two-step pairs of a small-code source and a table target: by table lookup (the
  // other direct kernels of such pairs, integer wrap/pack/widening, bool, float8e5m2 ->
  // FLOAT16, are as fast or faster).
  if (count >= kLutMinCount && src_type != dst_type && IsSmallCode(src_type) &&
      IsTableTarget(src_type, dst_type) &&
      CastWithTable(src, src_type, dst, dst_type, count, options)) {
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
  // Elements i .. i + n - 1 into d. Blocks start on a byte of packed 4- and 2-bit types:
  // kBlock is a multiple of 8, and the streamed path's head is whole source bytes.
  const auto step = [&](size_t i, size_t n, void* d) {
    const void* s = in + i * src_bits / 8;
    if (plan.odd_decode != nullptr) {
      plan.odd_decode(s, block, n);
    } else {
      plan.decode(s, block, n, options);
    }
    plan.encode(block, d, n, plan.encode_options);
  };
  if (plan.stream && count * dst_bits / 8 >= tuning::StreamBytes(kHubStreamBytes)) {
    // A head of regular stores up to the first 64-byte-aligned output byte (when it is a
    // whole number of elements on both sides), then blocks encoded into an aligned L1
    // stage and streamed out: every block's output is a multiple of 64 bytes, so only
    // the last block has a partial vector (StreamCopy stores it regularly).
    constexpr size_t kAlign = 64;
    const size_t misaligned = reinterpret_cast<uintptr_t>(out) % kAlign;
    const size_t head_bytes = misaligned == 0 ? 0 : kAlign - misaligned;
    const size_t head = head_bytes * 8 / dst_bits;
    if (head * dst_bits == head_bytes * 8 && head * src_bits % 8 == 0 && head <= count) {
      if (head != 0) step(0, head, out);
      alignas(64) uint8_t stage[kBlock * 8];
      for (size_t i = head; i < count; i += kBlock) {
        const size_t n = count - i < kBlock ? count - i : kBlock;
        step(i, n, stage);
        StreamCopy(stage, out + i * dst_bits / 8, (n * dst_bits + 7) / 8);
      }
      hwy::FlushStream();
      return true;
    }
  }
  for (size_t i = 0; i < count; i += kBlock) {
    const size_t n = count - i < kBlock ? count - i : kBlock;
    step(i, n, out + i * dst_bits / 8);
  }
  return true;
}

}  // namespace dispatch
}  // namespace tensorcast
