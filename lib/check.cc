#include "lib/check.h"

#include <string>

namespace tensorcast {
namespace check {
std::string TypeLabel(DataType type) {
  return std::string(DataTypeName(type)) + " (" + std::to_string(static_cast<int>(type)) + ")";
}

Status UnknownTypeError(DataType type, const char* argument) {
  return Status(StatusCode::kInvalidArgument, std::string(argument) + ": unknown data type code " +
                                                  std::to_string(static_cast<int>(type)));
}

Status CastTypeError(DataType type, const char* argument) {
  if (!IsKnownType(type)) return UnknownTypeError(type, argument);
  return Status(StatusCode::kUnsupported,
                std::string(argument) + ": " + TypeLabel(type) + " is not supported by Cast");
}

Status CastLikeTypeError(DataType type, const char* argument) {
  if (!IsCastType(type)) return CastTypeError(type, argument);
  return Status(StatusCode::kUnsupported,
                std::string(argument) + ": " + TypeLabel(type) + " is a type of Cast from opset " +
                    std::to_string(Facts(type).cast_since) + "; CastLike (opsets 15-" +
                    std::to_string(kCastLikeMaxOpset) + ") does not accept it: use Cast");
}

Status CastLikeTypes(DataType src, DataType like, const char* function, const char* src_argument,
                     const char* like_argument) {
  for (DataType t : {src, like}) {
    if (IsCastType(t) && !IsCastLikeType(t)) {
      const Status s = CastLikeTypeError(t, t == src ? src_argument : like_argument);
      return Status(s.code(), std::string(function) + ": " + s.message());
    }
  }
  return Status::Ok();
}

Status NumericCastTypeError(DataType type, const char* argument) {
  if (!IsCastType(type)) return CastTypeError(type, argument);
  return Status(StatusCode::kUnsupported,
                std::string(argument) + ": " + TypeLabel(type) + " is not a numeric type");
}

Status RoundModeError(RoundMode mode) {
  return Status(StatusCode::kInvalidArgument, "round_mode: invalid value " +
                                                  std::to_string(static_cast<int>(mode)) +
                                                  " (expected up, down or nearest)");
}

Status BytesOverflowError(DataType type, size_t count) {
  return Status(StatusCode::kOverflow, "count: the storage of " + std::to_string(count) +
                                           " elements of " + DataTypeName(type) +
                                           " overflows size_t");
}

Status NullBufferError(const char* argument, size_t count) {
  return Status(StatusCode::kInvalidArgument,
                std::string(argument) + " is null with " + std::to_string(count) + " elements");
}

Status NullOutputError(const char* argument) {
  return Status(StatusCode::kInvalidArgument, std::string(argument) + " is null");
}

// The message of an exception: built with care, since memory may be exhausted; a Status
// without a message if even that fails.
Status OutOfMemoryError(const char* what) noexcept {
  try {
    return Status(StatusCode::kInternal, std::string(what) + ": out of memory");
  } catch (...) {
    return Status(StatusCode::kInternal, std::string());
  }
}

Status UnexpectedExceptionError(const char* what) noexcept {
  try {
    return Status(StatusCode::kInternal, std::string(what) + ": unexpected exception");
  } catch (...) {
    return Status(StatusCode::kInternal, std::string());
  }
}

}  // namespace check
}  // namespace tensorcast
