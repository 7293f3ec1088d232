// Cast between numbers and texts in caller-owned buffers (tensorcast/strings.h): the
// arguments checked, then the column parsed or formatted by lib/text.
#include "tensorcast/strings.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/check.h"
#include "lib/text/columns.h"
#include "lib/text/format_column.h"
#include "lib/text/parse_column.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace {

// The rules of lib/check.h, as the functions below apply them.
Status CheckNumeric(DataType type, const char* which) {
  if (check::IsNumericCastType(type)) return Status::Ok();
  return check::NumericCastTypeError(type, which);
}

Status CheckOptions(const CastOptions& options) {
  if (check::IsRoundMode(options.round_mode)) return Status::Ok();
  return check::RoundModeError(options.round_mode);
}

Status CheckNumericBuffer(const void* p, DataType type, size_t count, const char* which,
                          size_t* bytes) {
  if (!check::FitsBytes(type, count, bytes)) return check::BytesOverflowError(type, count);
  if (!check::IsBuffer(p, count)) return check::NullBufferError(which, count);
  return Status::Ok();
}

Status CheckNotNull(const void* p, size_t count, const char* which) {
  if (check::IsBuffer(p, count)) return Status::Ok();
  return check::NullBufferError(which, count);
}

// The bytes of `count` views fit in size_t.
Status CheckViewBytes(size_t count) {
  if (count > SIZE_MAX / sizeof(StringView)) {
    return Status(StatusCode::kOverflow, "byte count of " + std::to_string(count) +
                                             " STRING elements (StringView) overflows size_t");
  }
  return Status::Ok();
}

// Every view is readable: data null only with size 0, and no size larger than any object
// (a corrupt view, refused before any byte is read).
Status CheckViews(const StringView* src, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (src[i].data == nullptr && src[i].size != 0) {
      return Status(
          StatusCode::kInvalidArgument,
          "src[" + std::to_string(i) + "]: data is null with size " + std::to_string(src[i].size));
    }
    if (src[i].size > std::string().max_size()) {
      return Status(StatusCode::kInvalidArgument, "src[" + std::to_string(i) + "]: size " +
                                                      std::to_string(src[i].size) +
                                                      " is larger than any string");
    }
  }
  return Status::Ok();
}

// STRING -> STRING into an arena: the texts copied (arguments checked).
Status CopyToArena(const StringView* src, StringArena* arena, size_t count) {
  size_t required = 0;
  for (size_t i = 0; i < count; ++i) {
    if (__builtin_add_overflow(required, src[i].size + 1, &required)) {
      return Status(StatusCode::kOverflow, "the string results do not fit in size_t bytes");
    }
  }
  arena->size = required;
  if (required > arena->capacity) {
    return Status(StatusCode::kBufferTooSmall,
                  "string arena too small: " + std::to_string(required) +
                      " bytes required, capacity " + std::to_string(arena->capacity));
  }
  char* p = arena->data;
  for (size_t i = 0; i < count; ++i) {
    if (src[i].size != 0) std::memcpy(p, src[i].data, src[i].size);
    p[src[i].size] = '\0';
    arena->views[i] = StringView{p, src[i].size};
    p += src[i].size + 1;
  }
  return Status::Ok();
}

}  // namespace

namespace {

// The argument checks of a cast from Arrow strings (nothing written).
Status CheckFromArrow(const ArrowStrings& src, const void* dst, DataType dst_type, size_t count,
                      const CastOptions& options) {
  Status s = CheckNumeric(dst_type, "dst_type");
  if (s.ok()) s = CheckOptions(options);
  size_t bytes = 0;
  if (s.ok()) s = CheckNumericBuffer(dst, dst_type, count, "dst", &bytes);
  if (s.ok() && src.null_policy != NullPolicy::kError && src.null_policy != NullPolicy::kZero) {
    s = Status(StatusCode::kInvalidArgument, "null_policy " +
                                                 std::to_string(static_cast<int>(src.null_policy)) +
                                                 " (expected ERROR 0 or ZERO 1)");
  }
  if (s.ok()) s = text::CheckArrowOffsets(src, count);
  return s;
}

// Bits [from, from + 64) of an Arrow validity bitmap of which bits [from, end) exist
// (end > from); bits past `end` read as 0. Reads only the bytes that hold existing bits.
uint64_t ValidityWord(const uint8_t* validity, uint64_t from, uint64_t end) {
  const uint64_t n = std::min<uint64_t>(64, end - from);
  const uint64_t last = (from + n - 1) >> 3;
  unsigned __int128 word = 0;
  for (uint64_t q = from >> 3; q <= last; ++q) {
    word |= static_cast<unsigned __int128>(validity[q]) << (8 * (q - (from >> 3)));
  }
  const uint64_t w = static_cast<uint64_t>(word >> (from & 7));
  return n == 64 ? w : w & ((uint64_t{1} << n) - 1);
}

}  // namespace

Status CastFromArrowStrings(const ArrowStrings& src, void* dst, DataType dst_type, size_t count,
                            const CastOptions& options) {
  return check::Guarded("CastFromArrowStrings", [&]() -> Status {
    const Status s = CheckFromArrow(src, dst, dst_type, count, options);
    if (!s.ok() || count == 0) return s;
    text::TextColumn column;
    column.layout = text::TextColumn::Layout::kArrow;
    column.arrow = src;
    return text::ParseColumn(column, dst, dst_type, count, options);
  });
}

Status TryCastFromArrowStrings(const ArrowStrings& src, void* dst, DataType dst_type, size_t count,
                               TryCastNulls* nulls, const CastOptions& options) {
  return check::Guarded("TryCastFromArrowStrings", [&]() -> Status {
    Status s = CheckFromArrow(src, dst, dst_type, count, options);
    if (s.ok() && nulls == nullptr) s = Status(StatusCode::kInvalidArgument, "nulls is null");
    if (!s.ok()) return s;
    std::vector<uint64_t> bad((count + 63) / 64, 0);
    if (count != 0) {
      text::TextColumn column;
      column.layout = text::TextColumn::Layout::kArrow;
      column.arrow = src;
      column.bad = bad.data();
      s = text::ParseColumn(column, dst, dst_type, count, options);
      if (!s.ok()) return s;
    }
    size_t errors = 0, first = SIZE_MAX;
    const auto offset = static_cast<uint64_t>(src.offset);
    for (size_t w = 0; w < bad.size(); ++w) {
      errors += static_cast<size_t>(__builtin_popcountll(bad[w]));
      if (first == SIZE_MAX && bad[w] != 0) {
        first = w * 64 + static_cast<size_t>(__builtin_ctzll(bad[w]));
      }
      if (nulls->validity == nullptr) continue;
      const uint64_t from = uint64_t{w} * 64;
      uint64_t valid = ~bad[w];
      if (count - from < 64) valid &= (uint64_t{1} << (count - from)) - 1;
      if (src.validity != nullptr)
        valid &= ValidityWord(src.validity, offset + from, offset + count);
      const size_t bytes = std::min<size_t>(8, (count - from + 7) / 8);
      for (size_t k = 0; k < bytes; ++k) {
        nulls->validity[w * 8 + k] = static_cast<uint8_t>(valid >> (8 * k));
      }
    }
    nulls->error_count = errors;
    nulls->first_error = first;
    return Status::Ok();
  });
}

Status CastToArrowStrings(const void* src, DataType src_type, ArrowStringsOut* dst, size_t count,
                          const CastOptions& options) {
  return check::Guarded("CastToArrowStrings", [&]() -> Status {
    Status s = CheckNumeric(src_type, "src_type");
    if (s.ok()) s = CheckOptions(options);
    size_t bytes = 0;
    if (s.ok()) s = CheckNumericBuffer(src, src_type, count, "src", &bytes);
    if (!s.ok()) return s;
    if (dst == nullptr) return Status(StatusCode::kInvalidArgument, "dst is null");
    if (dst->offset_width != 4 && dst->offset_width != 8) {
      return Status(StatusCode::kInvalidArgument, "dst->offset_width " +
                                                      std::to_string(dst->offset_width) +
                                                      " (expected 4 for utf8 or 8 for large_utf8)");
    }
    if (dst->offsets == nullptr)
      return Status(StatusCode::kInvalidArgument, "dst->offsets is null");
    if (dst->data == nullptr && dst->data_capacity > 0) {
      return Status(StatusCode::kInvalidArgument,
                    "dst->data is null with data_capacity " + std::to_string(dst->data_capacity));
    }
    text::TextBuffer out;
    out.offsets = dst->offsets;
    out.offset_width = dst->offset_width;
    out.data = dst->data;
    out.capacity = dst->data == nullptr ? 0 : dst->data_capacity;
    if (count == 0) {
      dst->data_size = 0;
      if (dst->offset_width == 8) {
        *static_cast<int64_t*>(dst->offsets) = 0;
      } else {
        *static_cast<int32_t*>(dst->offsets) = 0;
      }
      return Status::Ok();
    }
    s = text::FormatToBuffer(src, src_type, &out, count, options);
    if (s.ok() || s.code() == StatusCode::kBufferTooSmall) dst->data_size = out.data_size;
    return s;
  });
}

Status CastFromStringViews(const StringView* src, void* dst, DataType dst_type, size_t count,
                           const CastOptions& options) {
  return check::Guarded("CastFromStringViews", [&]() -> Status {
    Status s = CheckNumeric(dst_type, "dst_type");
    if (s.ok()) s = CheckOptions(options);
    if (s.ok()) s = CheckViewBytes(count);
    size_t bytes = 0;
    if (s.ok() && !check::FitsBytes(dst_type, count, &bytes)) {
      s = check::BytesOverflowError(dst_type, count);
    }
    if (s.ok()) s = CheckNotNull(src, count, "src");
    if (s.ok()) s = CheckNotNull(dst, count, "dst");
    if (s.ok()) s = CheckViews(src, count);
    if (!s.ok() || count == 0) return s;
    text::TextColumn column;
    column.layout = text::TextColumn::Layout::kViews;
    column.elements = src;
    return text::ParseColumn(column, dst, dst_type, count, options);
  });
}

Status CastToStringArena(const void* src, DataType src_type, StringArena* arena, size_t count,
                         const CastOptions& options) {
  return check::Guarded("CastToStringArena", [&]() -> Status {
    Status s;
    if (!check::IsCastType(src_type)) s = check::CastTypeError(src_type, "src_type");
    if (s.ok()) s = CheckOptions(options);
    if (!s.ok()) return s;
    if (count == 0) {
      if (arena != nullptr) arena->size = 0;
      return Status::Ok();
    }
    const bool copy = src_type == DataType::kString;
    s = CheckViewBytes(count);  // the arena's views, and a STRING source's
    size_t bytes = 0;
    if (s.ok() && !copy && !check::FitsBytes(src_type, count, &bytes)) {
      s = check::BytesOverflowError(src_type, count);
    }
    if (s.ok()) s = CheckNotNull(src, count, "src");
    if (s.ok()) s = CheckNotNull(arena, count, "arena");
    if (!s.ok()) return s;
    if (arena->views == nullptr) {
      return Status(StatusCode::kInvalidArgument,
                    "arena->views is null with count " + std::to_string(count));
    }
    if (arena->data == nullptr && arena->capacity > 0) {
      return Status(StatusCode::kInvalidArgument,
                    "arena->data is null with capacity " + std::to_string(arena->capacity));
    }
    if (copy) {
      const auto* views = static_cast<const StringView*>(src);
      s = CheckViews(views, count);
      return s.ok() ? CopyToArena(views, arena, count) : s;
    }
    text::TextBuffer out;
    out.views = arena->views;
    out.data = arena->data;
    out.capacity = arena->data == nullptr ? 0 : arena->capacity;
    s = text::FormatToBuffer(src, src_type, &out, count, options);
    if (s.ok() || s.code() == StatusCode::kBufferTooSmall) arena->size = out.data_size;
    return s;
  });
}

}  // namespace tensorcast
