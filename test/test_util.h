// Small helpers shared by the GoogleTest suites: bit views of floats, hex printing
// and raw byte buffers.
#ifndef TENSORCAST_TEST_TEST_UTIL_H_
#define TENSORCAST_TEST_TEST_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tensorcast/tensorcast.h"

namespace tensorcast {
namespace test {

using Bytes = std::vector<uint8_t>;

inline CastOptions Opt(bool saturate, RoundMode mode = RoundMode::kUp) {
  CastOptions o;
  o.saturate = saturate;
  o.round_mode = mode;
  return o;
}

inline uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
inline uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}
inline float F32(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
inline double F64(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

// "0x7E": integers compared as hex strings so that failures print readably.
inline std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
  return buf;
}

// "87 a9 0f": raw bytes as in the reference document.
inline std::string HexBytes(const Bytes& b) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    if (i) s += ' ';
    s += buf;
  }
  return s;
}

template <class T>
Bytes Raw(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace test
}  // namespace tensorcast

#endif  // TENSORCAST_TEST_TEST_UTIL_H_
