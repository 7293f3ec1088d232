// Deciding the route plan (route_plan.h): for each pair, the copy, the pair's kernel, the
// two-step route, and whether the table lookup serves it from tuning::kTableMinCount on.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "hwy/targets.h"
#include "lib/dispatch/hub_kernels.h"
#include "lib/dispatch/route_plan.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace dispatch {
namespace {

bool IsNumeric(DataType t) { return IsCastable(t) && t != DataType::kString; }

// The round-to-odd float32 decoder of a wide source (DOUBLE, 32/64-bit integers).
NamedDecoder RoundToOddDecoder(DataType t) {
  switch (t) {
    case DataType::kDouble: return {&F64ToF32RoundToOdd, "F64ToF32RoundToOdd"};
    case DataType::kInt32: return {&Int32ToF32RoundToOdd, "Int32ToF32RoundToOdd"};
    case DataType::kUint32: return {&Uint32ToF32RoundToOdd, "Uint32ToF32RoundToOdd"};
    case DataType::kInt64: return {&Int64ToF32RoundToOdd, "Int64ToF32RoundToOdd"};
    case DataType::kUint64: return {&Uint64ToF32RoundToOdd, "Uint64ToF32RoundToOdd"};
    default: return {nullptr, nullptr};
  }
}

// The hub of a pair without a kernel; false when there is none.
bool PlanHub(DataType src, DataType dst, Entry* e) {
  if (IsInteger(src) && IsInteger(dst)) {
    // Integer <-> 4-/2-bit integer: through one byte. Wrapping twice keeps the low bits;
    // a sub-byte source widens exactly into INT8 (signed) or UINT8 (unsigned).
    if (BitWidth(src) >= 8 && BitWidth(dst) >= 8) return false;
    e->mid = BitWidth(src) < 8 && !IsSignedInteger(src) ? DataType::kUint8 : DataType::kInt8;
    e->decode = src == e->mid ? nullptr : FindKernelRow(src, e->mid);
    e->encode = dst == e->mid ? nullptr : FindKernelRow(e->mid, dst);
    e->stream = BitWidth(dst) > 8;  // a 4-/2-bit source widened through a byte
    return (src == e->mid || e->decode != nullptr) && (dst == e->mid || e->encode != nullptr);
  }
  // Through FLOAT: a registry kernel into FLOAT for sources exact in float32, or a
  // round-to-odd decoder for wide sources into the small float types.
  e->mid = DataType::kFloat;
  e->encode = FindKernelRow(DataType::kFloat, dst);
  if (e->encode == nullptr) return false;
  if (IsExactInFloat32(src)) {
    e->decode = FindKernelRow(src, DataType::kFloat);
  } else if (IsSmallFloat(dst)) {
    e->odd_decode = RoundToOddDecoder(src);
  }
  e->stream = dst == DataType::kDouble;  // FLOAT -> DOUBLE: a plain promotion
  // BOOL false -> FLOAT8E8M0 is 0x00 in both saturate modes, while a float 0.0 without
  // saturation is NaN: encode BOOL sources saturating.
  e->encode_saturating = src == DataType::kBool;
  return e->decode != nullptr || e->odd_decode.fn != nullptr;
}

// Whether the table route serves 16-bit and wider targets from src's codes here.
bool TablePlanesFor(const TargetFacts& facts, DataType src) {
  return BitWidth(src) == 8 ? facts.table_planes_8 : facts.table_planes_subbyte;
}

// Registry pairs that the table lookup serves from kTableMinCount elements on: the rows of
// tuning::kTableBeatsKernel, where this target's table has planes for the source.
bool TableBeatsKernel(const TargetFacts& facts, DataType src, DataType dst) {
  for (const tuning::TablePreferred& p : tuning::kTableBeatsKernel) {
    if (p.src == src && p.dst == dst) return TablePlanesFor(facts, src);
  }
  return false;
}

// Targets of a small-code source (without a kernel) that the table route serves: at most
// 8 bits, 16 bits, and 32/64-bit integers from float8/float4 sources.
bool IsTableTarget(const TargetFacts& facts, DataType src, DataType dst) {
  if (IsSmallCode(dst)) return true;
  const bool wide_int = dst == DataType::kInt32 || dst == DataType::kUint32 ||
                        dst == DataType::kInt64 || dst == DataType::kUint64;
  return (BitWidth(dst) == 16 || (wide_int && !IsInteger(src) && src != DataType::kBool)) &&
         TablePlanesFor(facts, src);
}

// For 32/64-bit results: whether every result of the small route extends from its low 16
// bits, and how (*sign_extend). Results into integers do not depend on the options.
bool ResultsExtendFrom16Bits(const Entry& e, DataType src, DataType dst, bool* sign_extend) {
  alignas(64) uint8_t out[256 * 8] = {};
  const size_t codes = ResultsOnEveryCode(e, src, dst, CastOptions{}, out);
  bool sext = true, zext = true;
  for (size_t c = 0; c < codes; ++c) {
    uint64_t v = 0;
    if (BitWidth(dst) == 32) {
      uint32_t r;
      std::memcpy(&r, out + 4 * c, 4);
      v = r;
      sext = sext && r == static_cast<uint32_t>(static_cast<int16_t>(r));
    } else {
      std::memcpy(&v, out + 8 * c, 8);
      sext = sext && v == static_cast<uint64_t>(static_cast<int16_t>(v));
    }
    zext = zext && v <= 0xFFFF;
  }
  *sign_extend = !zext;
  return zext || sext;
}

// The table lookup reads and writes codes that lie within a byte: every width but 6 bits.
bool TableCodesFit(DataType t) { return BitWidth(t) >= 8 || 8 % BitWidth(t) == 0; }

Entry PlanPair(const TargetFacts& facts, DataType src, DataType dst) {
  Entry e;
  if (!IsNumeric(src) || !IsNumeric(dst)) {
    e.planned = IsCastable(src) && IsCastable(dst);
    e.route = e.small_route = Route::kStrings;
    return e;
  }
  if (src == dst) {
    e.route = e.small_route = Route::kCopy;
    if (src == DataType::kFloat8E5M2) {
      e.hub_when_saturating = true;
      e.decode = FindKernelRow(src, DataType::kFloat);
      e.encode = FindKernelRow(DataType::kFloat, dst);
      e.planned = e.decode != nullptr && e.encode != nullptr;
    } else {
      e.planned = true;
    }
    return e;
  }
  if (IsInteger(src) && IsInteger(dst) && BitWidth(src) < 8 && BitWidth(src) == BitWidth(dst)) {
    e.route = e.small_route = Route::kCopy;  // INT4 <-> UINT4, INT2 <-> UINT2
    e.planned = true;
    return e;
  }
  if ((e.row = FindKernelRow(src, dst)) != nullptr) {
    e.route = e.small_route = Route::kKernel;
    e.planned = true;
  } else if (PlanHub(src, dst, &e)) {
    e.route = e.small_route = Route::kHub;
    e.planned = true;
  } else {
    return e;  // not planned: Cast falls back to the scalar reference (a test forbids it)
  }
  const bool table = TableCodesFit(src) && TableCodesFit(dst) &&
                     (e.row != nullptr ? TableBeatsKernel(facts, src, dst)
                                       : IsSmallCode(src) && IsTableTarget(facts, src, dst));
  if (table) {
    bool sign_extend = false;
    if (BitWidth(dst) <= 16 || ResultsExtendFrom16Bits(e, src, dst, &sign_extend)) {
      e.route = Route::kTable;
      e.table_min_count = tuning::kTableMinCount;
      e.table_sign_extend = sign_extend;
    }
  }
  return e;
}

Plan* BuildPlan(const TargetFacts& facts) {
  auto* plan = new Plan;
  plan->facts = facts;
  for (size_t s = 1; s < kCodes; ++s) {
    for (size_t d = 1; d < kCodes; ++d) {
      plan->entries[s][d] = PlanPair(facts, static_cast<DataType>(s), static_cast<DataType>(d));
    }
  }
  return plan;
}

}  // namespace

// One plan per target index, built on first use and kept for the life of the process.
namespace {
constexpr size_t kMaxTargets = 64;
std::atomic<const Plan*> g_plans[kMaxTargets];
std::mutex g_plans_mutex;
}  // namespace

const Plan* PlanAt(size_t index) {
  if (index >= kMaxTargets) return nullptr;
  if (const Plan* plan = g_plans[index].load(std::memory_order_acquire)) return plan;
  TargetFacts facts;
  if (!TargetFactsAt(index, &facts)) return nullptr;
  std::lock_guard<std::mutex> lock(g_plans_mutex);
  if (const Plan* plan = g_plans[index].load(std::memory_order_acquire)) return plan;
  // Planning runs kernels (table feasibility) on the active target: every target gives
  // the same bits, so the plan of another target comes out the same.
  const Plan* plan = BuildPlan(facts);
  g_plans[index].store(plan, std::memory_order_release);
  return plan;
}

std::vector<CompiledTarget> CompiledTargets() {
  std::vector<CompiledTarget> out;
  const int64_t supported = hwy::SupportedTargets();
  for (size_t i = 0; i < TargetIndexLimit(); ++i) {
    TargetFacts facts;
    if (!TargetFactsAt(i, &facts) || (facts.target & supported) == 0) continue;
    bool seen = false;
    for (const CompiledTarget& t : out) seen = seen || t.facts.target == facts.target;
    if (!seen) out.push_back({i, facts});
  }
  // Highway's target bits: a smaller bit is a better target.
  std::sort(out.begin(), out.end(), [](const CompiledTarget& a, const CompiledTarget& b) {
    return a.facts.target < b.facts.target;
  });
  return out;
}

}  // namespace dispatch
}  // namespace tensorcast
