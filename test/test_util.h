// Small helpers shared by the GoogleTest suites: bit views of floats, hex printing,
// raw byte buffers, and GuardedBuffer, the one way tests check that a call writes
// nothing outside its output.
#ifndef TENSORCAST_TEST_TEST_UTIL_H_
#define TENSORCAST_TEST_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "lib/tuning.h"
#include "tensorcast/tensorcast.h"

namespace tensorcast {
namespace test {

// Lowers every streaming threshold to `bytes` for its lifetime (0: the defaults; SIZE_MAX:
// never stream), so that small calls reach the non-temporal paths.
class StreamBytesOverride {
 public:
  explicit StreamBytesOverride(size_t bytes) : previous_(tuning::SetStreamBytesForTest(bytes)) {}
  ~StreamBytesOverride() { tuning::SetStreamBytesForTest(previous_); }
  StreamBytesOverride(const StreamBytesOverride&) = delete;
  StreamBytesOverride& operator=(const StreamBytesOverride&) = delete;

 private:
  size_t previous_;
};

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

// Guard bytes. An output buffer lives inside a larger allocation whose other bytes all
// hold kGuardByte: at least kGuardBytes before the output (plus the padding that places
// it at the requested offset or address) and exactly kGuardBytes after it. A call that
// writes outside its output changes one of them, and GuardsIntact() says where.
constexpr uint8_t kGuardByte = 0xA5;
constexpr size_t kGuardBytes = 64;
// STRING outputs (arrays of std::string) are followed by elements holding this sentinel,
// which a call must leave unchanged.
constexpr const char* kStringGuard = "guard";

class GuardedBuffer {
 public:
  // `size` output bytes, `offset` bytes past the front guard (the front guard starts at a
  // malloc-aligned address and is a multiple of 64 bytes, so `offset` is the output's
  // misalignment from the allocator's alignment). The output bytes start as `fill`.
  explicit GuardedBuffer(size_t size, size_t offset = 0, uint8_t fill = kGuardByte)
      : size_(size), fill_(fill), bytes_(kGuardBytes + offset + size + kGuardBytes) {
    start_ = kGuardBytes + offset;
    Reset();
  }

  // `size` output bytes at an address that is `remainder` modulo `modulus`.
  static GuardedBuffer AtAddress(size_t size, size_t modulus, size_t remainder,
                                 uint8_t fill = kGuardByte) {
    GuardedBuffer b(size, modulus, fill);
    const uintptr_t front = reinterpret_cast<uintptr_t>(b.bytes_.data()) + kGuardBytes;
    b.start_ = kGuardBytes + (modulus + remainder % modulus - front % modulus) % modulus;
    b.Reset();
    return b;
  }

  // Moves keep the allocation (and so the output's address); copies would not.
  GuardedBuffer(GuardedBuffer&&) = default;
  GuardedBuffer& operator=(GuardedBuffer&&) = default;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  uint8_t* data() { return bytes_.data() + start_; }
  const uint8_t* data() const { return bytes_.data() + start_; }
  size_t size() const { return size_; }
  uint8_t operator[](size_t i) const { return bytes_[start_ + i]; }
  // A copy of the output bytes.
  Bytes Output() const { return Bytes(data(), data() + size_); }

  // Guards back to kGuardByte, the output bytes to the fill given at construction.
  void Reset() {
    std::fill(bytes_.begin(), bytes_.end(), kGuardByte);
    std::fill(bytes_.begin() + static_cast<std::ptrdiff_t>(start_),
              bytes_.begin() + static_cast<std::ptrdiff_t>(start_ + size_), fill_);
  }

  // Success when no byte outside the output has changed; otherwise names the first
  // changed byte before and after the output.
  ::testing::AssertionResult GuardsIntact() const {
    std::string problems;
    for (size_t i = 0; i < start_; ++i) {
      if (bytes_[i] != kGuardByte) {
        problems += "wrote " + std::to_string(start_ - i) + " bytes before the output";
        break;
      }
    }
    for (size_t i = start_ + size_; i < bytes_.size(); ++i) {
      if (bytes_[i] != kGuardByte) {
        if (!problems.empty()) problems += "; ";
        problems += "wrote byte " + std::to_string(i - start_) + " of a " + std::to_string(size_) +
                    "-byte output";
        break;
      }
    }
    if (problems.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << problems;
  }

 private:
  size_t size_;
  uint8_t fill_;
  Bytes bytes_;
  size_t start_ = 0;
};

}  // namespace test
}  // namespace tensorcast

#endif  // TENSORCAST_TEST_TEST_UTIL_H_
