// The columns of texts (columns.h).
#include "lib/text/columns.h"

#include <string>

namespace tensorcast {
namespace text {

Status CheckArrowOffsets(const ArrowStrings& src, size_t count) {
  if (src.offset < 0) {
    return Status(StatusCode::kInvalidArgument,
                  "offset " + std::to_string(src.offset) + " is negative");
  }
  if (src.offset_width != 4 && src.offset_width != 8) {
    return Status(StatusCode::kInvalidArgument, "offset_width " + std::to_string(src.offset_width) +
                                                    " (expected 4 for utf8 or 8 for large_utf8)");
  }
  if (count == 0) return Status::Ok();
  if (src.offsets == nullptr) {
    return Status(StatusCode::kInvalidArgument,
                  "offsets is null with count " + std::to_string(count));
  }
  const auto at = static_cast<size_t>(src.offset);
  const auto check = [&](const auto* o) -> Status {
    if (o[at] < 0) {
      return Status(StatusCode::kInvalidArgument,
                    "element 0: offset " + std::to_string(o[at]) + " is negative");
    }
    bool ordered = true;
    for (size_t i = at; i < at + count; ++i) ordered &= o[i] <= o[i + 1];
    if (ordered) return Status::Ok();
    for (size_t i = at; i < at + count; ++i) {
      if (o[i] > o[i + 1]) {
        return Status(StatusCode::kInvalidArgument,
                      "element " + std::to_string(i - at) + ": offsets decrease (" +
                          std::to_string(o[i]) + " then " + std::to_string(o[i + 1]) + ")");
      }
    }
    return Status::Ok();
  };
  const Status s = src.offset_width == 8 ? check(static_cast<const int64_t*>(src.offsets))
                                         : check(static_cast<const int32_t*>(src.offsets));
  if (!s.ok()) return s;
  const int64_t last = src.offset_width == 8 ? static_cast<const int64_t*>(src.offsets)[at + count]
                                             : static_cast<const int32_t*>(src.offsets)[at + count];
  if (src.data == nullptr &&
      last > (src.offset_width == 8 ? static_cast<const int64_t*>(src.offsets)[at]
                                    : static_cast<const int32_t*>(src.offsets)[at])) {
    return Status(StatusCode::kInvalidArgument, "data is null but the texts are not empty");
  }
  return Status::Ok();
}

}  // namespace text
}  // namespace tensorcast
