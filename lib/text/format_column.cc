// Number -> text for a column (format_column.h).
#include "lib/text/format_column.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "lib/parallel.h"
#include "lib/reference/reference_cast.h"
#include "lib/text/format_number.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace text {
namespace {

using reference::LoadCode;

std::atomic<size_t>& Int32OffsetLimit() {
  static std::atomic<size_t> limit{size_t{INT32_MAX}};
  return limit;
}

void SetOffset(void* offsets, int width, size_t i, size_t value) {
  if (width == 8) {
    static_cast<int64_t*>(offsets)[i] = static_cast<int64_t>(value);
  } else {
    static_cast<int32_t*>(offsets)[i] = static_cast<int32_t>(value);
  }
}

size_t GetOffset(const void* offsets, int width, size_t i) {
  return width == 8 ? static_cast<size_t>(static_cast<const int64_t*>(offsets)[i])
                    : static_cast<size_t>(static_cast<const int32_t*>(offsets)[i]);
}

// Calls f(emit), where emit(i, out) writes the text of element i of src to out and
// returns its length: specialised for the common types, FormatNumber for the others.
template <class F>
auto WithEmitter(const void* src, DataType type, const F& f) {
  const auto typed = [&](auto zero, auto format) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(src);
    return f([in, format](size_t i, char* out) {
      T v;
      std::memcpy(&v, in + i, sizeof(T));
      return format(v, out);
    });
  };
  const auto integer = [](auto v, char* out) {
    if constexpr (std::is_signed<decltype(v)>::value) return FormatInt(v, out);
    return FormatUint(v, out);
  };
  switch (type) {
    case DataType::kDouble:
      return typed(0.0, [](double v, char* out) { return FormatDouble(v, out); });
    case DataType::kFloat:
      return typed(0.0f, [](float v, char* out) { return FormatFloat(v, out); });
    case DataType::kInt64: return typed(int64_t{0}, integer);
    case DataType::kInt32: return typed(int32_t{0}, integer);
    case DataType::kUint64: return typed(uint64_t{0}, integer);
    case DataType::kUint32: return typed(uint32_t{0}, integer);
    default: break;
  }
  const int bits = BitWidth(type);
  return f([src, type, bits](size_t i, char* out) {
    return FormatNumber(type, LoadCode(src, bits, i), out);
  });
}

// Formats elements [first, first + count) of src (src points at element first) to
// `out`, back to back, each followed by a NUL in an arena, and indexes them: views[i]
// (arena) or offsets[i] = start - out + `start_value` (Arrow). Returns the bytes written.
size_t FormatRun(const void* src, DataType type, size_t first, size_t count, char* out,
                 const char* room_end, const TextBuffer& dst, size_t start_value) {
  return WithEmitter(src, type, [&](const auto& emit) {
    // Texts go straight to p while kFormatRoom bytes are free there, else via scratch.
    char scratch[kFormatRoom];
    const auto put = [&](size_t i, char* p) {
      if (room_end - p >= static_cast<ptrdiff_t>(kFormatRoom)) return emit(i, p);
      const size_t n = emit(i, scratch);
      std::memcpy(p, scratch, n);
      return n;
    };
    char* p = out;
    if (dst.views != nullptr) {
      for (size_t i = 0; i < count; ++i) {
        const size_t n = put(i, p);
        p[n] = '\0';
        dst.views[first + i] = StringView{p, n};
        p += n + 1;
      }
    } else if (dst.offset_width == 8) {
      auto* offsets = static_cast<int64_t*>(dst.offsets) + first;
      for (size_t i = 0; i < count; ++i) {
        offsets[i] = static_cast<int64_t>(static_cast<size_t>(p - out) + start_value);
        p += put(i, p);
      }
    } else {
      auto* offsets = static_cast<int32_t*>(dst.offsets) + first;
      for (size_t i = 0; i < count; ++i) {
        offsets[i] = static_cast<int32_t>(static_cast<size_t>(p - out) + start_value);
        p += put(i, p);
      }
    }
    return static_cast<size_t>(p - out);
  });
}

// Bytes of the texts of elements [0, count) (each + terminator), formatted and dropped.
size_t MeasureRun(const void* src, DataType type, size_t count, size_t terminator) {
  return WithEmitter(src, type, [&](const auto& emit) {
    char scratch[kFormatRoom];
    size_t total = 0;
    for (size_t i = 0; i < count; ++i) total += emit(i, scratch) + terminator;
    return total;
  });
}

}  // namespace

Status FormatToStrings(const void* src, DataType type, std::string* dst, size_t count,
                       const CastOptions& options) {
  const auto run = [&](size_t first, size_t n) {
    WithEmitter(src, type, [&](const auto& emit) {
      char buf[kFormatRoom];
      for (size_t i = first; i < first + n; ++i) dst[i].assign(buf, emit(i, buf));
      return 0;
    });
  };
  const size_t chunk = ChunkElements(count, options);
  if (chunk == 0) {
    run(0, count);
    return Status::Ok();
  }
  std::atomic<bool> failed{false};
  auto task = [&](size_t t) {
    const size_t start = t * chunk;
    try {
      run(start, std::min(chunk, count - start));
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
    }
  };
  parallel::RunTasks(options.runner, (count + chunk - 1) / chunk, task);
  if (failed.load()) run(0, count);  // throws std::bad_alloc to the caller's handler
  return Status::Ok();
}

Status FormatToBuffer(const void* src, DataType type, TextBuffer* dst, size_t count,
                      const CastOptions& options) {
  const bool arena = dst->views != nullptr;
  const size_t terminator = arena ? 1 : 0;
  const size_t bound = kMaxNumberText + terminator;
  const size_t max_bytes = arena || dst->offset_width == 8
                               ? SIZE_MAX
                               : Int32OffsetLimit().load(std::memory_order_relaxed);
  const size_t chunk = ChunkElements(count, options);
  const size_t tasks = chunk == 0 ? 1 : (count + chunk - 1) / chunk;
  const auto part_start = [&](size_t t) { return t * chunk; };
  const auto part_count = [&](size_t t) {
    return chunk == 0 ? count : std::min(chunk, count - t * chunk);
  };
  // Roomy: the caller's buffer holds every text at its longest, so each part is
  // formatted straight into it (at a provisional place, part t at t * chunk * bound)
  // and the parts are then moved together. Otherwise the texts are measured first and
  // nothing is written unless they fit.
  const bool roomy = count <= std::min(dst->capacity, max_bytes) / bound;
  std::vector<size_t> bytes(tasks);
  std::atomic<bool> failed{false};
  auto first_pass = [&](size_t t) {
    const size_t s = part_start(t), n = part_count(t);
    try {
      bytes[t] = roomy ? FormatRun(At(src, type, s), type, s, n, dst->data + s * bound,
                                   dst->data + (s + n) * bound, *dst, 0)
                       : MeasureRun(At(src, type, s), type, n, terminator);
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
    }
  };
  parallel::RunTasks(options.runner, tasks, first_pass);
  if (failed.load()) throw std::bad_alloc();
  size_t total = 0;
  std::vector<size_t> base(tasks);
  for (size_t t = 0; t < tasks; ++t) {
    base[t] = total;
    total += bytes[t];
  }
  if (total > max_bytes) {
    return Status(StatusCode::kOverflow,
                  "the texts take " + std::to_string(total) +
                      " bytes, beyond int32 offsets (INT32_MAX); use offset_width 8 (large_utf8)");
  }
  dst->data_size = total;
  if (!roomy) {
    if (total > dst->capacity) {
      return Status(StatusCode::kBufferTooSmall,
                    std::string(arena ? "string arena too small: " : "data_capacity too small: ") +
                        std::to_string(total) + " bytes required, capacity " +
                        std::to_string(dst->capacity));
    }
    auto second_pass = [&](size_t t) {
      const size_t s = part_start(t), n = part_count(t);
      FormatRun(At(src, type, s), type, s, n, dst->data + base[t], dst->data + base[t] + bytes[t],
                *dst, base[t]);
    };
    parallel::RunTasks(options.runner, tasks, second_pass);
  } else if (tasks > 1) {
    // Parts move left in order (part t's new place ends before part t + 1's old one
    // begins), then their offsets or views are rebased.
    for (size_t t = 1; t < tasks; ++t) {
      std::memmove(dst->data + base[t], dst->data + part_start(t) * bound, bytes[t]);
    }
    // Rebasing adds to what the first pass wrote, so each part is rebased once even when
    // a failing runner makes the calling thread run every task again.
    std::unique_ptr<std::atomic<bool>[]> rebased(new std::atomic<bool>[tasks]);
    for (size_t t = 0; t < tasks; ++t) rebased[t].store(false, std::memory_order_relaxed);
    auto rebase = [&](size_t t) {
      if (rebased[t].exchange(true)) return;
      const size_t s = part_start(t), n = part_count(t);
      if (arena) {
        const ptrdiff_t shift = static_cast<ptrdiff_t>(base[t]) - static_cast<ptrdiff_t>(s * bound);
        for (size_t i = s; i < s + n; ++i) dst->views[i].data += shift;
      } else {
        for (size_t i = s; i < s + n; ++i) {
          SetOffset(dst->offsets, dst->offset_width, i,
                    GetOffset(dst->offsets, dst->offset_width, i) + base[t]);
        }
      }
    };
    parallel::RunTasks(options.runner, tasks, rebase);
  }
  if (!arena) SetOffset(dst->offsets, dst->offset_width, count, total);
  return Status::Ok();
}

size_t SetInt32OffsetLimitForTest(size_t bytes) { return Int32OffsetLimit().exchange(bytes); }

}  // namespace text
}  // namespace tensorcast
