// The hub's round-to-odd integer decoders (lib/dispatch/hub_kernels.h) on every compiled
// Highway target, bit for bit against a round-to-odd computed here from the integer
// (top bit, shift, sticky bit): integers next to every power of two and to the float32
// rounding points, the extremes, and random bits; counts 0 .. 4 vectors + 1, misaligned
// pointers, guard bytes after the output. Every target under test (test/target_loop.h)
// is compared against the same expected values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hwy/highway.h"
#include "lib/dispatch/hub_kernels.h"
#include "tensorcast/tensorcast.h"
#include "test/target_loop.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using test::Bytes;
using test::TargetLoop;

constexpr uint8_t kGuard = 0xA5;
constexpr size_t kGuardBytes = 64;

// float32 bits of `neg ? -m : m` rounded to odd: truncate the magnitude to 24
// significant bits, then set the last kept bit if any dropped bit was set.
uint32_t RoundToOddBits(bool neg, uint64_t m) {
  if (m == 0) return 0;
  int t = 63;
  while ((m >> t) == 0) --t;
  uint64_t significand;
  if (t <= 23) {
    significand = m << (23 - t);
  } else {
    const int k = t - 23;
    significand = m >> k;
    if ((m & ((uint64_t{1} << k) - 1)) != 0) significand |= 1;
  }
  const uint32_t bits =
      (static_cast<uint32_t>(t + 127) << 23) | static_cast<uint32_t>(significand & 0x7FFFFF);
  return neg ? bits | 0x80000000u : bits;
}

struct Decoder {
  const char* name;
  int bits;
  bool is_signed;
  void (*fn)(const void*, void*, size_t);
};

const Decoder kDecoders[] = {
    {"Int32ToF32RoundToOdd", 32, true, &dispatch::Int32ToF32RoundToOdd},
    {"Uint32ToF32RoundToOdd", 32, false, &dispatch::Uint32ToF32RoundToOdd},
    {"Int64ToF32RoundToOdd", 64, true, &dispatch::Int64ToF32RoundToOdd},
    {"Uint64ToF32RoundToOdd", 64, false, &dispatch::Uint64ToF32RoundToOdd},
};

// The expected float32 bits of source code `x` (low `bits` bits).
uint32_t Expected(const Decoder& dec, uint64_t x) {
  if (!dec.is_signed) return RoundToOddBits(false, x);
  const uint64_t sign = uint64_t{1} << (dec.bits - 1);
  if ((x & sign) == 0) return RoundToOddBits(false, x);
  const uint64_t mask = dec.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << dec.bits) - 1;
  return RoundToOddBits(true, (0 - x) & mask);  // |INT_MIN| = 2^(bits-1)
}

// Source codes: around every 2^t (exact values, the first inexact ones, the float32
// rounding midpoints, all-ones up to bit t), both signs; extremes; random bits.
std::vector<uint64_t> SourceCodes(const Decoder& dec) {
  const uint64_t mask = dec.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << dec.bits) - 1;
  std::vector<uint64_t> v;
  for (int t = 0; t < dec.bits; ++t) {
    const uint64_t base = uint64_t{1} << t;
    const uint64_t top = (base - 1) * 2 + 1;
    std::vector<uint64_t> near = {base, base + 1, base + 2, base + 3, base - 1, top, top - 1};
    if (t > 23) {
      const uint64_t ulp = uint64_t{1} << (t - 23);
      for (uint64_t off : {ulp / 2, ulp, ulp + ulp / 2, 2 * ulp}) {
        for (uint64_t d : {off - 1, off, off + 1}) {
          near.push_back(base + d);
          near.push_back(top - d);
        }
      }
    }
    for (uint64_t x : near) {
      v.push_back(x & mask);
      v.push_back((0 - x) & mask);
    }
  }
  std::mt19937_64 rng(99 + static_cast<unsigned>(dec.bits) + (dec.is_signed ? 1u : 0u));
  for (int i = 0; i < 100000; ++i) {
    // Random bits, and random values with a random number of leading zeros.
    v.push_back(rng() & mask);
    v.push_back((rng() >> (rng() % 64)) & mask);
  }
  return v;
}

Bytes Pack(const Decoder& dec, const std::vector<uint64_t>& codes) {
  const size_t size = static_cast<size_t>(dec.bits) / 8;
  Bytes b(codes.size() * size);
  for (size_t i = 0; i < codes.size(); ++i) std::memcpy(&b[i * size], &codes[i], size);
  return b;
}

// Runs the decoder on the first `count` codes at the given byte offsets on every target
// under test and checks every output element and the guard bytes after the output.
void Check(TargetLoop& loop, const Decoder& dec, const std::vector<uint64_t>& codes,
           const Bytes& packed, size_t count, size_t src_offset, size_t dst_offset) {
  const size_t size = static_cast<size_t>(dec.bits) / 8;
  Bytes in(src_offset + count * size);
  std::memcpy(in.data() + src_offset, packed.data(), count * size);
  std::vector<uint32_t> want(count);
  for (size_t i = 0; i < count; ++i) want[i] = Expected(dec, codes[i]);
  Bytes out(dst_offset + 4 * count + kGuardBytes);
  loop.Run([&] {
    std::fill(out.begin(), out.end(), kGuard);
    dec.fn(in.data() + src_offset, out.data() + dst_offset, count);
    if (count != 0 && std::memcmp(out.data() + dst_offset, want.data(), 4 * count) != 0) {
      for (size_t i = 0; i < count; ++i) {
        uint32_t got;
        std::memcpy(&got, out.data() + dst_offset + 4 * i, 4);
        ASSERT_EQ(test::Hex(got), test::Hex(want[i]))
            << dec.name << " on " << ActiveTargetName() << ": element " << i << " of " << count
            << ", source " << test::Hex(codes[i]);
      }
    }
    for (size_t i = 0; i < kGuardBytes; ++i) {
      ASSERT_EQ(out[dst_offset + 4 * count + i], kGuard)
          << dec.name << " on " << ActiveTargetName() << ": count " << count
          << " wrote past the output";
    }
  });
}

TEST(RoundToOddOracle, KnownValues) {
  EXPECT_EQ(RoundToOddBits(false, 16777216), 0x4B800000u);          // 2^24 exact
  EXPECT_EQ(RoundToOddBits(false, 16777217), 0x4B800001u);          // inexact: odd neighbour above
  EXPECT_EQ(RoundToOddBits(false, 16777219), 0x4B800001u);          // 2^24 + 3: truncated, odd
  EXPECT_EQ(RoundToOddBits(false, 16777218), 0x4B800001u);          // 2^24 + 2 exact
  EXPECT_EQ(RoundToOddBits(true, uint64_t{1} << 31), 0xCF000000u);  // INT32_MIN
  EXPECT_EQ(RoundToOddBits(false, 0xFFFFFFFFu), 0x4F7FFFFFu);       // 2^32 - 1 -> below 2^32
  EXPECT_EQ(RoundToOddBits(false, ~uint64_t{0}), 0x5F7FFFFFu);
  EXPECT_EQ(RoundToOddBits(false, 1), 0x3F800000u);
}

TEST(HubKernelTest, RoundToOddDecodersBitExact) {
  TargetLoop loop;
  for (const Decoder& dec : kDecoders) {
    const std::vector<uint64_t> codes = SourceCodes(dec);
    const Bytes packed = Pack(dec, codes);
    Check(loop, dec, codes, packed, codes.size(), 0, 0);
    if (HasFatalFailure()) return;
  }
}

TEST(HubKernelTest, CountsAndMisalignment) {
  TargetLoop loop;
  const size_t max_count = 4 * HWY_MAX_BYTES + 1;  // 4 vectors + 1 of the widest target
  for (const Decoder& dec : kDecoders) {
    const std::vector<uint64_t> codes = SourceCodes(dec);
    const Bytes packed = Pack(dec, codes);
    for (size_t count = 0; count <= max_count; ++count) {
      for (size_t offset : {size_t{0}, size_t{1}, size_t{3}}) {
        Check(loop, dec, codes, packed, count, offset, (offset * 7) % 5);
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace tensorcast
