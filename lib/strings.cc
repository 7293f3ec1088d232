// Cast between numbers and Arrow's string layout (tensorcast/strings.h).
#include "tensorcast/strings.h"

#include <new>
#include <string>

#include "lib/text/text_cast.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace {

Status CheckNumeric(DataType type, const char* which) {
  if (!IsValidDataType(type)) {
    return Status(StatusCode::kInvalidArgument, std::string(which) + ": unknown data type code " +
                                                    std::to_string(static_cast<int>(type)));
  }
  if (!IsCastable(type) || type == DataType::kString) {
    return Status(StatusCode::kUnsupported, std::string(which) + ": " + DataTypeName(type) +
                                                " is not a numeric type Cast supports");
  }
  return Status::Ok();
}

Status CheckOptions(const CastOptions& options) {
  const int mode = static_cast<int>(options.round_mode);
  if (mode < 0 || mode > 2) {
    return Status(
        StatusCode::kInvalidArgument,
        "round_mode: invalid value " + std::to_string(mode) + " (expected up, down or nearest)");
  }
  return Status::Ok();
}

Status CheckNumericBuffer(const void* p, DataType type, size_t count, const char* which,
                          size_t* bytes) {
  Status s = CheckedStorageBytes(type, count, bytes);
  if (!s.ok()) return s;
  if (p == nullptr && count > 0) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(which) + " is null with count " + std::to_string(count));
  }
  return Status::Ok();
}

}  // namespace

Status CastFromArrowStrings(const ArrowStrings& src, void* dst, DataType dst_type, size_t count,
                            const CastOptions& options) {
  try {
    Status s = CheckNumeric(dst_type, "dst_type");
    if (s.ok()) s = CheckOptions(options);
    size_t bytes = 0;
    if (s.ok()) s = CheckNumericBuffer(dst, dst_type, count, "dst", &bytes);
    if (s.ok() && src.null_policy != NullPolicy::kError && src.null_policy != NullPolicy::kZero) {
      s = Status(StatusCode::kInvalidArgument,
                 "null_policy " + std::to_string(static_cast<int>(src.null_policy)) +
                     " (expected ERROR 0 or ZERO 1)");
    }
    if (s.ok()) s = text::CheckArrowOffsets(src, count);
    if (!s.ok() || count == 0) return s;
    text::TextColumn column;
    column.layout = text::TextColumn::Layout::kArrow;
    column.arrow = src;
    return text::ParseColumn(column, dst, dst_type, count, options);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "out of memory");
  } catch (...) {
    return Status(StatusCode::kInternal, "unexpected exception");
  }
}

Status CastToArrowStrings(const void* src, DataType src_type, ArrowStringsOut* dst, size_t count,
                          const CastOptions& options) {
  try {
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
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "out of memory");
  } catch (...) {
    return Status(StatusCode::kInternal, "unexpected exception");
  }
}

}  // namespace tensorcast
