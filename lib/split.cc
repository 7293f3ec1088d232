// Public Split: validate every argument, build a plan of contiguous blocks, then copy
// with the per-target kernels of lib/kernels/split-inl.h (compiled here for every
// Highway target, dispatched once per call). STRING elements are assigned here.
// Validation happens before anything is written. No exception leaves this file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "lib/split.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "lib/kernels/split-inl.h"

#if HWY_ONCE
#include <algorithm>
#include <array>
#include <atomic>
#include <new>

#include "lib/check.h"
#include "lib/parallel.h"
#include "lib/split_check.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"
#include "tensorcast/split.h"

namespace tensorcast {

HWY_EXPORT(SplitBytesImpl);
HWY_EXPORT(SplitBitsImpl);

namespace {

using split_internal::SplitPart;
using split_internal::SplitPlan;

// Splits whose source is at least this large stream their outputs with non-temporal
// stores (tuning::kSplitStreamBytes; tests lower it). Below it the outputs stay
// cache-resident and normal stores win; above it streaming is faster than glibc's memcpy,
// which does not stream at these sizes (bench/results/tuning.md). sysconf's L3 size is
// not used: VMs report the whole socket.

// Up to this many outputs the parts live on the stack.
constexpr size_t kInlineParts = 32;

// Product of dims[0..count) (all >= 0) into *out: 0 if any is 0, however large the
// others; false when it overflows size_t.
inline bool ProductFits(const int64_t* dims, size_t count, size_t* out) {
  size_t p = 1;
  bool overflow = false;
  for (size_t k = 0; k < count; ++k) {
    if (dims[k] == 0) {
      *out = 0;
      return true;
    }
    overflow = overflow || __builtin_mul_overflow(p, static_cast<size_t>(dims[k]), &p);
  }
  *out = p;
  return !overflow;
}

std::string ShapeText(const int64_t* shape, size_t rank) {
  std::string s = "[";
  for (size_t k = 0; k < rank; ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

void SplitStrings(const std::string* src, const SplitPart* parts, size_t num_parts, size_t outer,
                  size_t row) {
  for (size_t r = 0; r < outer; ++r) {
    const std::string* s = src + r * row;
    for (size_t i = 0; i < num_parts; ++i) {
      std::string* d = reinterpret_cast<std::string*>(parts[i].dst) + r * parts[i].block;
      const std::string* b = s + parts[i].offset;
      for (size_t e = 0; e < parts[i].block; ++e) d[e] = b[e];
    }
  }
}

// Where the data of a validated split lies.
struct Layout {
  size_t axis = 0;         // in [0, rank)
  size_t outer = 1;        // product of the dimensions before the axis
  size_t inner = 1;        // product of the dimensions after it
  size_t total = 0;        // elements of the input
  size_t total_bytes = 0;  // their storage
};

// Every rule of a Split's arguments (lib/check.h, lib/split_check.h), each testing its
// predicate first; fills *l. Ok for an empty tensor (l->total == 0). Checked before
// anything is written.
Status CheckSplitArguments(const void* src, DataType type, const int64_t* shape, size_t rank,
                           int64_t axis, const int64_t* sizes, size_t num_outputs,
                           void* const* outputs, Layout* l) {
  if (!check::IsKnownType(type)) return check::UnknownTypeError(type, "type");
  size_t ax = 0;
  Status s = split_internal::CheckShapeAndAxis(shape, rank, axis, &ax);
  if (!s.ok()) return s;
  if (num_outputs == 0) {
    return Status(StatusCode::kInvalidArgument,
                  "num_outputs is 0: Split needs at least one output");
  }
  if (sizes == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  "sizes is null with num_outputs " + std::to_string(num_outputs));
  }
  if (outputs == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  "outputs is null with num_outputs " + std::to_string(num_outputs));
  }
  s = split_internal::CheckSizes(sizes, num_outputs, shape[ax], ax, "sizes");
  if (!s.ok()) return s;

  // Element and byte counts. A zero dimension makes the tensor empty whatever the
  // others are; otherwise the element count and its storage must fit in size_t.
  size_t total = 0;
  if (!ProductFits(shape, rank, &total)) {
    return Status(StatusCode::kOverflow, "the element count of the input overflows size_t (shape " +
                                             ShapeText(shape, rank) + ")");
  }
  const bool packed = Facts(type).packed;
  size_t total_bytes = 0;
  if (!check::FitsBytes(type, total, &total_bytes)) return check::BytesOverflowError(type, total);
  if (packed && total > SIZE_MAX / 8) {
    return Status(StatusCode::kOverflow, "the bit count of " + std::to_string(total) +
                                             " elements of " + DataTypeName(type) +
                                             " overflows size_t");
  }
  l->axis = ax;
  l->total = total;
  l->total_bytes = total_bytes;
  if (total == 0) return Status::Ok();  // every output is empty: nothing to touch
  if (src == nullptr) return check::NullBufferError("src", total);
  (void)ProductFits(shape, ax, &l->outer);  // both divide total: no overflow
  (void)ProductFits(shape + ax + 1, rank - ax - 1, &l->inner);
  for (size_t i = 0; i < num_outputs; ++i) {
    if (sizes[i] != 0 && outputs[i] == nullptr) {
      return Status(
          StatusCode::kInvalidArgument,
          "outputs[" + std::to_string(i) + "] is null but output " + std::to_string(i) + " has " +
              std::to_string(l->outer * static_cast<size_t>(sizes[i]) * l->inner) + " elements");
    }
  }
  return Status::Ok();
}

// Copies plan (or, for STRING, assigns its elements) on the calling thread.
void RunPlan(const SplitPlan& plan, bool is_string, bool packed) {
  if (is_string) {
    SplitStrings(reinterpret_cast<const std::string*>(plan.src), plan.parts, plan.num_parts,
                 plan.outer, plan.row);
  } else if (packed) {
    HWY_DYNAMIC_DISPATCH(SplitBitsImpl)(plan);
  } else {
    HWY_DYNAMIC_DISPATCH(SplitBytesImpl)(plan);
  }
}

// Runs `plan` as tasks of `runner`: ranges of outer rows when rows are small (a multiple
// of 8 rows, so that packed rows start on whole bytes), else chunks of each output block
// of each row. Units are bytes, bits (packed) or elements (STRING). Returns false when
// the split is better left to one thread or cannot be cut on whole bytes.
bool RunPlanInTasks(const SplitPlan& plan, bool is_string, bool packed, size_t total_bytes,
                    const Runner* runner, bool* failed) {
  using namespace tuning;  // NOLINT: the thresholds
  if (runner == nullptr || total_bytes * 2 < kParallelMinBytes) return false;
  // Bytes of one unit, in 1/8 bytes.
  const size_t eighths = is_string ? 8 * sizeof(std::string) : packed ? 1 : 8;
  const auto to_bytes = [&](size_t units) { return units * eighths / 8; };
  const size_t task_bytes = std::max(kParallelTaskBytes / 2, total_bytes / kParallelMaxTasks);
  const size_t row_bytes = to_bytes(plan.row);
  std::atomic<bool> any_failed{false};
  const auto run = [&](const SplitPlan& p) {
    try {
      RunPlan(p, is_string, packed);
    } catch (...) {
      any_failed.store(true, std::memory_order_relaxed);
    }
  };
  if (8 * row_bytes <= task_bytes) {
    const size_t rows = std::max<size_t>(8, task_bytes / row_bytes / 8 * 8);
    const size_t tasks = (plan.outer + rows - 1) / rows;
    if (tasks < 2) return false;
    auto task = [&](size_t t) {
      const size_t r0 = t * rows;
      SplitPart parts[kInlineParts];
      std::vector<SplitPart> heap;
      SplitPart* q = parts;
      if (plan.num_parts > kInlineParts) {
        heap.resize(plan.num_parts);
        q = heap.data();
      }
      for (size_t i = 0; i < plan.num_parts; ++i) {
        q[i] = plan.parts[i];
        q[i].dst += to_bytes(r0 * plan.parts[i].block);
      }
      SplitPlan sub = plan;
      sub.src += to_bytes(r0 * plan.row);
      sub.parts = q;
      sub.outer = std::min(rows, plan.outer - r0);
      run(sub);
    };
    parallel::RunTasks(runner, tasks, task);
  } else {
    // Chunks of whole bytes of output: a packed part's rows after the first start on a
    // whole byte only when its block is a multiple of 8 bits.
    if (packed && plan.outer > 1) {
      for (size_t i = 0; i < plan.num_parts; ++i) {
        if (plan.parts[i].block % 8 != 0) return false;
      }
    }
    const size_t chunk = std::max<size_t>(1, task_bytes * 8 / eighths / 4096) * 4096;
    std::vector<std::array<size_t, 3>> work;  // row, part, first unit of the chunk
    for (size_t r = 0; r < plan.outer; ++r) {
      for (size_t i = 0; i < plan.num_parts; ++i) {
        for (size_t c = 0; c < plan.parts[i].block; c += chunk) work.push_back({r, i, c});
      }
    }
    if (work.size() < 2) return false;
    auto task = [&](size_t t) {
      const size_t r = work[t][0], i = work[t][1], c = work[t][2];
      const SplitPart& part = plan.parts[i];
      SplitPart one{part.dst + to_bytes(r * part.block + c), std::min(chunk, part.block - c),
                    part.offset + c};
      SplitPlan sub = plan;
      sub.src += to_bytes(r * plan.row);
      sub.parts = &one;
      sub.num_parts = 1;
      sub.outer = 1;
      run(sub);
    };
    parallel::RunTasks(runner, work.size(), task);
  }
  *failed = any_failed.load();
  return true;
}

Status SplitImpl(const void* src, DataType type, const int64_t* shape, size_t rank, int64_t axis,
                 const int64_t* sizes, size_t num_outputs, void* const* outputs,
                 const Runner* runner) {
  Layout l;
  Status s = CheckSplitArguments(src, type, shape, rank, axis, sizes, num_outputs, outputs, &l);
  if (!s.ok() || l.total == 0) return s;
  const size_t outer = l.outer, inner = l.inner;
  const int bits = BitWidth(type);
  const bool is_string = type == DataType::kString;
  const bool packed = Facts(type).packed;

  // Units per element: bytes (bits for packed types, 1 element for strings).
  const size_t unit = is_string ? 1
                      : packed  ? static_cast<size_t>(bits)
                                : static_cast<size_t>(bits / 8);
  std::array<SplitPart, kInlineParts> inline_parts;
  std::vector<SplitPart> heap_parts;
  SplitPart* parts = inline_parts.data();
  if (num_outputs > kInlineParts) {
    heap_parts.resize(num_outputs);
    parts = heap_parts.data();
  }
  size_t num_parts = 0, offset = 0;
  for (size_t i = 0; i < num_outputs; ++i) {
    const size_t block = static_cast<size_t>(sizes[i]) * inner * unit;
    if (block != 0) {
      parts[num_parts++] = SplitPart{static_cast<uint8_t*>(outputs[i]), block, offset};
    }
    offset += block;
  }
  const size_t row = offset;

  SplitPlan plan;
  plan.src = static_cast<const uint8_t*>(src);
  plan.parts = parts;
  plan.num_parts = num_parts;
  plan.outer = outer;
  plan.row = row;
  plan.stream =
      !is_string && !packed && l.total_bytes >= tuning::StreamBytes(tuning::kSplitStreamBytes);
  bool failed = false;
  if (!RunPlanInTasks(plan, is_string, packed, l.total_bytes, runner, &failed)) {
    RunPlan(plan, is_string, packed);
  }
  if (failed) return Status(StatusCode::kInternal, "out of memory while copying STRING elements");
  return Status();
}

}  // namespace

Status Split(const void* src, DataType type, const int64_t* shape, size_t rank, int64_t axis,
             const int64_t* sizes, size_t num_outputs, void* const* outputs) {
  return Split(src, type, shape, rank, axis, sizes, num_outputs, outputs, nullptr);
}

Status Split(const void* src, DataType type, const int64_t* shape, size_t rank, int64_t axis,
             const int64_t* sizes, size_t num_outputs, void* const* outputs, const Runner* runner) {
  return check::Guarded("Split", [&] {
    return SplitImpl(src, type, shape, rank, axis, sizes, num_outputs, outputs, runner);
  });
}

}  // namespace tensorcast
#endif  // HWY_ONCE
