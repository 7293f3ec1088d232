#include "tensorcast/status.h"

namespace tensorcast {

const char* StatusCodeName(StatusCode code) noexcept {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kUnsupported: return "UNSUPPORTED";
    case StatusCode::kParseError: return "PARSE_ERROR";
    case StatusCode::kOverflow: return "OVERFLOW";
    case StatusCode::kInternal: return "INTERNAL";
    case StatusCode::kBufferTooSmall: return "BUFFER_TOO_SMALL";
  }
  return "UNKNOWN";
}

}  // namespace tensorcast
