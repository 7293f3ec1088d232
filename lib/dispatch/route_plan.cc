// The route plan: one entry per (source, destination) pair for each Highway target, built
// once on the first Cast that runs on that target. An entry names the route of large
// counts and, where small counts take another one, that route and the count from which
// the large route applies:
//
//   copy     the same type (memcpy; FLOAT8E5M2 with saturate goes through the hub, since
//            saturating turns +-Inf into +-MAX), and INT4 <-> UINT4, INT2 <-> UINT2, which
//            wrap to the same bits (a copy with the padding bits of a partial last byte
//            cleared, streamed when large).
//   kernel   the pair's registry row (cast_pairs.inc).
//   table    from tuning::kTableMinCount elements on, a source of at most 8 bits (<= 256
//            codes): out[i] = table[code i], where the table is the small-count route's
//            result on every source code, computed per call with the call's options. It
//            serves targets of at most 8 bits everywhere and 16-bit targets, and
//            32/64-bit integer targets of float8/float4 sources whose results all extend
//            from 16 bits, where TablePlanes holds (lib/kernels/capabilities-inl.h). Pairs
//            with a registry kernel keep it, except float8/float4/4-/2-bit -> FLOAT16 and
//            INT8/UINT8 -> FLOAT16/BFLOAT16 where the table measured faster.
//   hub      two steps through an L1-resident block of tuning::kHubBlockElements: a
//            decoder into float32 (exact for sources exact in float32; rounded to odd for
//            DOUBLE and 32/64-bit integers into the small float types, which keeps the one
//            later rounding correct), or into a byte for 4-/2-bit integer pairs, then the
//            encoder. Pairs that widen with a plain promotion (-> DOUBLE; a 4-/2-bit
//            integer -> a wider integer) stream large outputs through an L1 stage.
//   strings  STRING on either side: the exact scalar string codec (not planned here).
#include "lib/dispatch/route_plan.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hwy/cache_control.h"
#include "hwy/targets.h"
#include "lib/dispatch/hub_kernels.h"
#include "lib/dispatch/stream_copy.h"
#include "lib/dispatch/table_kernels.h"
#include "lib/dispatch/targets.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace dispatch {
namespace {

constexpr size_t kCodes = static_cast<size_t>(kMaxDataTypeCode) + 1;

using Decoder = void (*)(const void* src, void* dst, size_t count);

bool IsNumeric(DataType t) { return IsCastable(t) && t != DataType::kString; }

struct NamedDecoder {
  Decoder fn;
  const char* name;
};

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

struct Entry {
  bool planned = false;
  Route route = Route::kKernel;  // counts >= table_min_count (every count when it is 0)
  Route small_route = Route::kKernel;
  size_t table_min_count = 0;
  // kernel
  const KernelRow* row = nullptr;
  // hub: decode (or odd_decode) into `mid`, then encode
  DataType mid = DataType::kFloat;
  const KernelRow* decode = nullptr;  // nullptr with odd_decode, or when src is `mid`
  NamedDecoder odd_decode = {nullptr, nullptr};
  const KernelRow* encode = nullptr;  // nullptr when dst is `mid`
  bool encode_saturating = false;     // encode with saturate = true (BOOL sources)
  bool stream = false;                // large outputs streamed through an L1 stage
  // copy
  bool hub_when_saturating = false;  // FLOAT8E5M2 -> FLOAT8E5M2
  // table (16-bit results in two byte planes, sign- or zero-extended to 32/64 bits)
  bool table_sign_extend = false;
};

struct Plan {
  TargetFacts facts;
  Entry entries[kCodes][kCodes];
};

// ---------------------------------------------------------------------------- running

void RunRoute(Route route, const Entry& e, const void* src, DataType src_type, void* dst,
              DataType dst_type, size_t count, const CastOptions& options);

void RunHub(const Entry& e, const void* src, DataType src_type, void* dst, DataType dst_type,
            size_t count, const CastOptions& options) {
  constexpr size_t kBlock = tuning::kHubBlockElements;
  static_assert(kBlock % 8 == 0, "blocks start on a byte of packed 4- and 2-bit types");
  alignas(64) uint8_t block[kBlock * 4];
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  const size_t src_bits = static_cast<size_t>(BitWidth(src_type));
  const size_t dst_bits = static_cast<size_t>(BitWidth(dst_type));
  CastOptions encode_options = options;
  if (e.encode_saturating) encode_options.saturate = true;
  // Elements i .. i + n - 1 into d.
  const auto step = [&](size_t i, size_t n, void* d) {
    const void* s = in + i * src_bits / 8;
    const void* mid = s;
    if (e.odd_decode.fn != nullptr) {
      e.odd_decode.fn(s, block, n);
      mid = block;
    } else if (e.decode != nullptr) {
      e.decode->kernel(s, e.encode != nullptr ? block : d, n, options);
      mid = block;
    }
    if (e.encode != nullptr) e.encode->kernel(mid, d, n, encode_options);
  };
  if (e.stream && count * dst_bits / 8 >= tuning::StreamBytes(tuning::kHubStreamBytes)) {
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
        const size_t n = std::min(count - i, kBlock);
        step(i, n, stage);
        StreamCopy(stage, out + i * dst_bits / 8, (n * dst_bits + 7) / 8);
      }
      hwy::FlushStream();
      return;
    }
  }
  for (size_t i = 0; i < count; i += kBlock) {
    const size_t n = std::min(count - i, kBlock);
    step(i, n, out + i * dst_bits / 8);
  }
}

void RunCopy(const Entry& e, const void* src, DataType src_type, void* dst, DataType dst_type,
             size_t count, const CastOptions& options) {
  if (e.hub_when_saturating && options.saturate) {
    RunHub(e, src, src_type, dst, dst_type, count, options);
    return;
  }
  const size_t bits = count * static_cast<size_t>(BitWidth(src_type));
  const size_t bytes = (bits + 7) / 8;
  if (src != dst) {
    if (src_type != dst_type && bytes >= tuning::StreamBytes(tuning::kHubStreamBytes)) {
      StreamCopy(src, dst, bytes);
      hwy::FlushStream();
    } else {
      std::memcpy(dst, src, bytes);
    }
  }
  if (bits % 8 != 0) {  // packed: the padding of a partial last byte is zero
    auto* last = static_cast<uint8_t*>(dst) + bytes - 1;
    *last = static_cast<uint8_t>(*last & ((1u << (bits % 8)) - 1));
  }
}

// The small-count route's result on every code of a source of at most 8 bits, in code
// order, into out[0 .. 2^bits * BitWidth(dst) / 8). Returns the number of codes.
size_t ResultsOnEveryCode(const Entry& e, DataType src_type, DataType dst_type,
                          const CastOptions& options, uint8_t (&out)[256 * 8]) {
  const auto sb = static_cast<size_t>(BitWidth(src_type));
  const size_t codes = size_t{1} << sb;
  // Every source code in order, packed like the type (element 0 in the low bits).
  uint8_t in[256] = {};
  for (size_t c = 0; c < codes; ++c) {
    in[c * sb / 8] = static_cast<uint8_t>(in[c * sb / 8] | c << (c * sb % 8));
  }
  RunRoute(e.small_route, e, in, src_type, out, dst_type, codes, options);
  return codes;
}

void RunTable(const Entry& e, const void* src, DataType src_type, void* dst, DataType dst_type,
              size_t count, const CastOptions& options) {
  const int src_bits = BitWidth(src_type), dst_bits = BitWidth(dst_type);
  alignas(64) uint8_t out[256 * 8] = {};
  const size_t codes = ResultsOnEveryCode(e, src_type, dst_type, options, out);
  alignas(64) uint8_t table[256 * 2] = {};
  if (dst_bits >= 16) {
    // Two byte tables: the low and the high byte of each result's low 16 bits (the plan
    // checked that wider results extend from them).
    // The stride is a constant in each loop so that the compiler vectorises it: this runs
    // on every call, and a scalar loop over 256 codes costs as much as the lookup of a
    // few thousand elements.
    const auto planes = [&](auto bytes) {
      for (size_t c = 0; c < codes; ++c) {
        table[c] = out[bytes * c];
        table[256 + c] = out[bytes * c + 1];
      }
    };
    switch (dst_bits) {
      case 16: planes(std::integral_constant<size_t, 2>()); break;
      case 32: planes(std::integral_constant<size_t, 4>()); break;
      default: planes(std::integral_constant<size_t, 8>()); break;
    }
  } else {
    const unsigned dst_mask = (1u << dst_bits) - 1;
    for (size_t c = 0; c < codes; ++c) {
      const size_t bit = c * static_cast<size_t>(dst_bits);
      table[c] = static_cast<uint8_t>((out[bit / 8] >> (bit % 8)) & dst_mask);
    }
  }
  TableLookup(table, src_bits, dst_bits, e.table_sign_extend, src, dst, count);
}

void RunRoute(Route route, const Entry& e, const void* src, DataType src_type, void* dst,
              DataType dst_type, size_t count, const CastOptions& options) {
  switch (route) {
    case Route::kKernel: e.row->kernel(src, dst, count, options); return;
    case Route::kTable: RunTable(e, src, src_type, dst, dst_type, count, options); return;
    case Route::kHub: RunHub(e, src, src_type, dst, dst_type, count, options); return;
    case Route::kCopy: RunCopy(e, src, src_type, dst, dst_type, count, options); return;
    case Route::kStrings: return;
  }
}

// --------------------------------------------------------------------------- planning

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

// Registry pairs that the table lookup beats from kTableMinCount elements on.
bool TableBeatsKernel(const TargetFacts& facts, DataType src, DataType dst) {
  if ((src == DataType::kInt8 || src == DataType::kUint8) &&
      (dst == DataType::kFloat16 || dst == DataType::kBfloat16)) {
    return facts.table_planes_8;
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
    case DataType::kUint2: return TablePlanesFor(facts, src);
    default: return false;
  }
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
  const bool table = e.row != nullptr ? TableBeatsKernel(facts, src, dst)
                                      : IsSmallCode(src) && IsTableTarget(facts, src, dst);
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

// One plan per target index, built on first use and kept for the life of the process.
constexpr size_t kMaxTargets = 64;
std::atomic<const Plan*> g_plans[kMaxTargets];
std::mutex g_plans_mutex;

// The plan of the target at `index`, or nullptr when no target is compiled there.
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

// The compiled targets that this CPU supports, best first: (index, facts).
struct CompiledTarget {
  size_t index;
  TargetFacts facts;
};

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

std::string KernelName(const KernelRow* row) { return row != nullptr ? row->name : "?"; }

std::string Detail(Route route, const Entry& e, DataType src, DataType dst) {
  switch (route) {
    case Route::kKernel: return KernelName(e.row);
    case Route::kTable:
      return std::string("TableLookup ") + std::to_string(BitWidth(src)) + " -> " +
             std::to_string(BitWidth(dst)) + " bits" +
             (BitWidth(dst) >= 16 ? (e.table_sign_extend ? " (two byte planes, sign-extended)"
                                                         : " (two byte planes)")
                                  : "");
    case Route::kHub: {
      std::string first = e.odd_decode.fn != nullptr ? e.odd_decode.name
                          : e.decode != nullptr      ? e.decode->name
                                                     : "";
      std::string second = e.encode != nullptr ? e.encode->name : "";
      std::string s = first.empty() ? second : second.empty() ? first : first + " + " + second;
      return s + " (via " + DataTypeName(e.mid) + (e.stream ? ", streamed when large)" : ")");
    }
    case Route::kCopy:
      if (e.hub_when_saturating) {
        return "memcpy; saturate=1: " + KernelName(e.decode) + " + " + KernelName(e.encode);
      }
      return src == dst ? "memcpy" : "memcpy, padding bits cleared";
    case Route::kStrings: return "string codec";
  }
  return "";
}

}  // namespace

bool CastWithPlan(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                  const CastOptions& options) {
  const Plan* plan = PlanAt(ActiveTargetIndex());
  if (plan == nullptr) return false;
  const Entry& e = plan->entries[static_cast<size_t>(src_type)][static_cast<size_t>(dst_type)];
  if (!e.planned || e.route == Route::kStrings) return false;
  const Route route = e.table_min_count != 0 && count < e.table_min_count ? e.small_route : e.route;
  RunRoute(route, e, src, src_type, dst, dst_type, count, options);
  return true;
}

}  // namespace dispatch

std::vector<std::string> CompiledTargetNames() {
  std::vector<std::string> names;
  for (const dispatch::CompiledTarget& t : dispatch::CompiledTargets()) {
    names.emplace_back(t.facts.name);
  }
  return names;
}

const char* RouteName(Route route) noexcept {
  switch (route) {
    case Route::kKernel: return "kernel";
    case Route::kTable: return "table";
    case Route::kHub: return "hub";
    case Route::kCopy: return "copy";
    case Route::kStrings: return "strings";
  }
  return "invalid";
}

Status DescribeRoute(DataType src, DataType dst, std::string_view target, RouteInfo* out) {
  try {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    for (DataType t : {src, dst}) {
      const char* which = t == src ? "source type" : "target type";
      if (!IsValidDataType(t)) {
        return Status(
            StatusCode::kInvalidArgument,
            std::string(which) + ": unknown data type code " + std::to_string(static_cast<int>(t)));
      }
      if (!IsCastable(t)) {
        return Status(StatusCode::kUnsupported,
                      std::string(which) + ": " + DataTypeName(t) + " is not supported by Cast");
      }
    }
    size_t index = 0;
    if (target.empty()) {
      index = dispatch::ActiveTargetIndex();
    } else {
      bool found = false;
      std::string names;
      for (const dispatch::CompiledTarget& t : dispatch::CompiledTargets()) {
        if (target == t.facts.name) {
          index = t.index;
          found = true;
        }
        names += names.empty() ? t.facts.name : std::string(", ") + t.facts.name;
      }
      if (!found) {
        return Status(StatusCode::kInvalidArgument,
                      "target: \"" + std::string(target) +
                          "\" is not a compiled target that this CPU supports (" + names + ")");
      }
    }
    const dispatch::Plan* plan = dispatch::PlanAt(index);
    if (plan == nullptr) return Status(StatusCode::kInternal, "no plan for the target");
    const dispatch::Entry& e = plan->entries[static_cast<size_t>(src)][static_cast<size_t>(dst)];
    if (!e.planned) {
      return Status(StatusCode::kInternal,
                    std::string("no route for ") + DataTypeName(src) + " -> " + DataTypeName(dst));
    }
    RouteInfo info;
    info.route = e.route;
    info.detail = dispatch::Detail(e.route, e, src, dst);
    if (e.table_min_count != 0) {
      info.small_below = e.table_min_count;
      info.small_route = e.small_route;
      info.small_detail = dispatch::Detail(e.small_route, e, src, dst);
    } else {
      info.small_route = e.route;
    }
    *out = std::move(info);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "DescribeRoute: out of memory");
  }
}

}  // namespace tensorcast
