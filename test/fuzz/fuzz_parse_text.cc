// Fuzz target: text -> every numeric type through Cast(STRING -> T).
// Checks, for any input bytes:
// - text in the accepted syntax (optional ASCII whitespace around an optional sign and a
//   decimal number with optional fraction and exponent, or inf / infinity / nan in any
//   case) parses; FLOAT and DOUBLE results equal glibc's correctly rounded strtof /
//   strtod (an independent exact parse); other targets succeed;
// - BOOL also accepts true / false in any case;
// - any other text is a kParseError, and nothing crashes.
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::DataType;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool EqualsIgnoreCase(const std::string& a, const char* b) {
  if (a.size() != std::strlen(b)) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

// The accepted syntax, written independently of the library's parser.
bool Accepted(const std::string& text, std::string* core) {
  size_t b = 0, e = text.size();
  while (b < e && IsSpace(text[b])) ++b;
  while (e > b && IsSpace(text[e - 1])) --e;
  *core = text.substr(b, e - b);
  size_t i = 0;
  const std::string& s = *core;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const std::string word = s.substr(i);
  if (EqualsIgnoreCase(word, "inf") || EqualsIgnoreCase(word, "infinity") ||
      EqualsIgnoreCase(word, "nan")) {
    return true;
  }
  size_t digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

void Fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "fuzz_parse_text: %s for text of %zu bytes\n", what, text.size());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string core;
  const bool ok = Accepted(text, &core) && text.find('\0') == std::string::npos;
  for (int code = 1; code <= tensorcast::kMaxDataTypeCode; ++code) {
    const auto type = static_cast<DataType>(code);
    if (!tensorcast::IsCastable(type) || type == DataType::kString) continue;
    // BOOL also takes "true" / "false" in any case.
    const bool accept = ok || (type == DataType::kBool && text.find('\0') == std::string::npos &&
                               (EqualsIgnoreCase(core, "true") || EqualsIgnoreCase(core, "false")));
    uint8_t out[16] = {};
    const tensorcast::Status s = tensorcast::Cast(&text, DataType::kString, out, type, 1);
    if (accept != s.ok()) Fail(accept ? "accepted text refused" : "bad text accepted", text);
    if (!accept) {
      if (s.code() != tensorcast::StatusCode::kParseError) Fail("not a parse error", text);
      continue;
    }
    if (type == DataType::kDouble) {
      const double want = std::strtod(core.c_str(), nullptr);
      double got;
      std::memcpy(&got, out, sizeof got);
      if (std::isnan(want) ? !std::isnan(got) : std::memcmp(&want, &got, 8) != 0) {
        Fail("DOUBLE differs from strtod", text);
      }
    } else if (type == DataType::kFloat) {
      const float want = std::strtof(core.c_str(), nullptr);
      float got;
      std::memcpy(&got, out, sizeof got);
      if (std::isnan(want) ? !std::isnan(got) : std::memcmp(&want, &got, 4) != 0) {
        Fail("FLOAT differs from strtof", text);
      }
    }
  }
  return 0;
}
