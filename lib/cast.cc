// Public Cast / CastLike: validate the arguments, then convert. Validation happens
// before anything is written. No exception leaves this file.
#include "tensorcast/cast.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "lib/cast_stats.h"
#include "lib/check.h"
#include "lib/dispatch/route_plan.h"
#include "lib/parallel.h"
#include "lib/reference/reference_cast.h"
#include "lib/text/format_column.h"
#include "lib/text/parse_column.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace {

// Every rule of a Cast's arguments (lib/check.h), in the order of their messages: the
// types, round_mode, the byte counts, then for count > 0 the pointers and the overlap.
// Checked before anything is written.
Status CheckCastArguments(const void* src, DataType src_type, const void* dst, DataType dst_type,
                          size_t count, const CastOptions& options) {
  if (!check::IsCastType(src_type)) return check::CastTypeError(src_type, "source type");
  if (!check::IsCastType(dst_type)) return check::CastTypeError(dst_type, "target type");
  if (!check::IsRoundMode(options.round_mode)) return check::RoundModeError(options.round_mode);
  size_t src_bytes = 0, dst_bytes = 0;
  if (!check::FitsBytes(src_type, count, &src_bytes)) {
    return check::BytesOverflowError(src_type, count);
  }
  if (!check::FitsBytes(dst_type, count, &dst_bytes)) {
    return check::BytesOverflowError(dst_type, count);
  }
  if (count == 0) return Status::Ok();
  if (src == nullptr) return check::NullBufferError("src", count);
  if (dst == nullptr) return check::NullBufferError("dst", count);
  if (src == dst) {
    if (src_type == dst_type) return Status::Ok();
    return Status(StatusCode::kInvalidArgument,
                  "dst: the same buffer as src but the types differ (in-place Cast needs equal "
                  "types)");
  }
  const auto* s0 = static_cast<const unsigned char*>(src);
  const auto* d0 = static_cast<const unsigned char*>(dst);
  if (s0 < d0 + dst_bytes && d0 < s0 + src_bytes) {
    return Status(StatusCode::kInvalidArgument, "dst: overlaps src");
  }
  return Status::Ok();
}

// A validated Cast of count > 0 elements on the calling thread.
Status CastOnThisThread(const void* src, DataType src_type, void* dst, DataType dst_type,
                        size_t count, const CastOptions& options) {
  if (src_type != DataType::kString && dst_type != DataType::kString &&
      dispatch::CastWithPlan(src, src_type, dst, dst_type, count, options)) {
    return Status::Ok();
  }
  return reference::Cast(src, src_type, dst, dst_type, count, options);
}

// Elements per task of a parallel Cast, or 0 when the call runs on the calling thread.
// Numeric chunks are multiples of 512 elements, so that each starts on a 64-byte line of
// both buffers (when the first does) and on a whole byte of packed types; when the output
// is large enough to be streamed, each chunk's output is too, so that every chunk takes
// the non-temporal stores that the whole call would.
size_t ChunkElements(DataType src_type, DataType dst_type, size_t count) {
  using namespace tuning;  // NOLINT: the thresholds
  if (src_type == DataType::kString || dst_type == DataType::kString) {
    if (count < kParallelStringMinElements) return 0;
    return std::max(kParallelStringTaskElements,
                    (count + kParallelMaxTasks - 1) / kParallelMaxTasks);
  }
  const size_t bits = static_cast<size_t>(BitWidth(src_type) + BitWidth(dst_type));
  const size_t bytes = count / 8 * bits;
  if (bytes < kParallelMinBytes) return 0;
  size_t task_bytes = std::max(kParallelTaskBytes, bytes / kParallelMaxTasks);
  const size_t out_bytes = count / 8 * static_cast<size_t>(BitWidth(dst_type));
  const size_t stream = std::max(kCastLoopStreamBytes, kSubbyteStreamBytes);
  if (out_bytes >= 2 * stream) {
    task_bytes = std::max(task_bytes, stream / static_cast<size_t>(BitWidth(dst_type)) * bits);
  }
  const size_t chunk = (task_bytes * 8 / bits + 511) / 512 * 512;
  return chunk < count ? chunk : 0;
}

const void* ElementAt(const void* p, DataType type, size_t index) {
  if (type == DataType::kString) return static_cast<const std::string*>(p) + index;
  return static_cast<const uint8_t*>(p) + index * static_cast<size_t>(BitWidth(type)) / 8;
}

// Cast in chunks through options.runner. On any failure the call is repeated on the
// calling thread, which reports the first bad element in index order exactly as a serial
// call does (and writes every element before it).
Status CastInChunks(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                    const CastOptions& options, size_t chunk) {
  CastOptions serial = options;
  serial.runner = nullptr;
  std::atomic<bool> failed{false};
  auto task = [&](size_t i) {
    const size_t start = i * chunk;
    const size_t n = std::min(chunk, count - start);
    try {
      const Status s =
          CastOnThisThread(ElementAt(src, src_type, start), src_type,
                           const_cast<void*>(ElementAt(dst, dst_type, start)), dst_type, n, serial);
      if (!s.ok()) failed.store(true, std::memory_order_relaxed);
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
    }
  };
  parallel::RunTasks(options.runner, (count + chunk - 1) / chunk, task);
  if (!failed.load()) return Status::Ok();
  return CastOnThisThread(src, src_type, dst, dst_type, count, serial);
}

}  // namespace

Status Cast(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
            const CastOptions& options) {
  return check::Guarded("Cast", [&]() -> Status {
    Status s = CheckCastArguments(src, src_type, dst, dst_type, count, options);
    if (!s.ok()) return s;
    if (options.stats != nullptr) {
      if (src_type == DataType::kString || dst_type == DataType::kString) {
        return Status(StatusCode::kInvalidArgument,
                      "stats: statistics are computed for numeric pairs, not " +
                          check::TypeLabel(src_type) + " -> " + check::TypeLabel(dst_type));
      }
      if (src == dst && count > 0) {
        return Status(StatusCode::kInvalidArgument,
                      "stats: the statistics read the source after the cast; src and dst are "
                      "the same buffer");
      }
      *options.stats = CastStats();
    }
    if (count == 0) return s;
    if ((src_type == DataType::kString) != (dst_type == DataType::kString)) {
      if (src_type == DataType::kString) {
        text::TextColumn column;
        column.elements = src;
        return text::ParseColumn(column, dst, dst_type, count, options);
      }
      return text::FormatToStrings(src, src_type, static_cast<std::string*>(dst), count, options);
    }
    // A call too small for any pair to go parallel costs one comparison more than a call
    // without a runner.
    const size_t chunk = options.runner != nullptr && count >= tuning::kParallelMinCount
                             ? ChunkElements(src_type, dst_type, count)
                             : 0;
    s = chunk != 0 ? CastInChunks(src, src_type, dst, dst_type, count, options, chunk)
                   : CastOnThisThread(src, src_type, dst, dst_type, count, options);
    if (s.ok() && options.stats != nullptr) {
      cast_stats::Compute(src, src_type, dst, dst_type, count, options, options.stats);
    }
    return s;
  });
}

Status CastLike(const void* src, DataType src_type, void* dst, DataType like_type, size_t count,
                const CastOptions& options) {
  const Status s =
      check::CastLikeTypes(src_type, like_type, "CastLike", "source type", "like type");
  if (!s.ok()) return s;
  return Cast(src, src_type, dst, like_type, count, options);
}

Status CheckCastOpset(int opset, DataType from, DataType to, bool cast_like) {
  const char* op = cast_like ? "CastLike" : "Cast";
  if (opset < 1 || (cast_like ? opset < 15 || opset > check::kCastLikeMaxOpset : opset > 28)) {
    return Status(StatusCode::kUnsupported, std::string(op) + ": opset " + std::to_string(opset) +
                                                " is not supported (Cast 1-28, CastLike 15-25)");
  }
  for (DataType t : {from, to}) {
    if (!check::IsCastType(t))
      return check::CastTypeError(t, t == from ? "source type" : "target type");
    // IsCastType has rejected the types Cast never accepts (cast_since 0).
    const int since = Facts(t).cast_since;
    if (opset < since) {
      return Status(StatusCode::kUnsupported,
                    std::string(op) + "-" + std::to_string(opset) + " does not accept " +
                        check::TypeLabel(t) + " (added in opset " + std::to_string(since) + ")");
    }
  }
  return Status::Ok();
}

Status ParseRoundMode(std::string_view text, RoundMode* out) {
  if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
  if (text == "up") {
    *out = RoundMode::kUp;
    return Status::Ok();
  }
  if (text == "down") {
    *out = RoundMode::kDown;
    return Status::Ok();
  }
  if (text == "nearest") {
    *out = RoundMode::kNearest;
    return Status::Ok();
  }
  return Status(StatusCode::kInvalidArgument, "round_mode: unknown value \"" + std::string(text) +
                                                  "\" (expected up, down or nearest)");
}

const char* RoundModeName(RoundMode mode) noexcept {
  switch (mode) {
    case RoundMode::kUp: return "up";
    case RoundMode::kDown: return "down";
    case RoundMode::kNearest: return "nearest";
  }
  return "invalid";
}

}  // namespace tensorcast
