// tensorcast/status.h: error values. The library never throws out of its API,
// never aborts and never prints; every failure is a Status.
#ifndef TENSORCAST_STATUS_H_
#define TENSORCAST_STATUS_H_

#include <cstddef>
#include <string>
#include <utility>

namespace tensorcast {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,  // null pointer, unknown type code, bad option, bad Split sizes
  kUnsupported = 2,      // a type or pair the operation does not accept (e.g. complex in Cast)
  kParseError = 3,       // a string element that is not a number (index and text in message)
  kOverflow = 4,         // a byte count that does not fit in size_t
  kInternal = 5,         // out of memory while building strings, or a bug
  kBufferTooSmall = 6,   // an output buffer for texts is too small (the size needed is returned)
};

// Returns "OK", "INVALID_ARGUMENT", "UNSUPPORTED", "PARSE_ERROR", "OVERFLOW", "INTERNAL",
// "BUFFER_TOO_SMALL".
const char* StatusCodeName(StatusCode code) noexcept;

class [[nodiscard]] Status {
 public:
  Status() noexcept = default;  // OK
  Status(StatusCode code, std::string message, size_t elements_written = 0)
      : code_(code), message_(std::move(message)), elements_written_(elements_written) {}
  static Status Ok() noexcept { return Status(); }

  bool ok() const noexcept { return code_ == StatusCode::kOk; }
  StatusCode code() const noexcept { return code_; }
  // Empty when ok(). Otherwise one line naming the argument or element at fault.
  const std::string& message() const noexcept { return message_; }
  // For element errors (kParseError): how many leading elements were converted and
  // written before the bad one (equal to its index). 0 for argument errors, which
  // are detected before anything is written.
  size_t elements_written() const noexcept { return elements_written_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  size_t elements_written_ = 0;
};

}  // namespace tensorcast

#endif  // TENSORCAST_STATUS_H_
