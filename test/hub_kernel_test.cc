// The two-step route's round-to-odd integer decoders (test/dispatch_access.h), one test
// case per decoder, on every compiled Highway target, bit for bit against a round-to-odd
// computed here from the integer (top bit, shift, sticky bit): integers next to every
// power of two and to the float32 rounding points, the extremes, and random bits; counts
// 0 .. 4 vectors + 1, misaligned pointers, outputs in a test::GuardedBuffer. Every target
// under test (test/target_loop.h) is compared against the same expected values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hwy/highway.h"
#include "tensorcast/tensorcast.h"
#include "test/dispatch_access.h"
#include "test/target_loop.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using test::Bytes;
using test::GuardedBuffer;
using test::RoundToOddDecoder;
using test::TargetLoop;

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

// The expected float32 bits of source code `x` (low `bits` bits).
uint32_t Expected(const RoundToOddDecoder& dec, uint64_t x) {
  if (!dec.is_signed) return RoundToOddBits(false, x);
  const uint64_t sign = uint64_t{1} << (dec.bits - 1);
  if ((x & sign) == 0) return RoundToOddBits(false, x);
  const uint64_t mask = dec.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << dec.bits) - 1;
  return RoundToOddBits(true, (0 - x) & mask);  // |INT_MIN| = 2^(bits-1)
}

// Source codes: around every 2^t (exact values, the first inexact ones, the float32
// rounding midpoints, all-ones up to bit t), both signs; extremes; random bits.
std::vector<uint64_t> SourceCodes(const RoundToOddDecoder& dec) {
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

Bytes Pack(const RoundToOddDecoder& dec, const std::vector<uint64_t>& codes) {
  const size_t size = static_cast<size_t>(dec.bits) / 8;
  Bytes b(codes.size() * size);
  for (size_t i = 0; i < codes.size(); ++i) std::memcpy(&b[i * size], &codes[i], size);
  return b;
}

// Runs the decoder on the first `count` codes at the given byte offsets on every target
// under test and checks every output element and the guard bytes around the output.
void Check(TargetLoop& loop, const RoundToOddDecoder& dec, const std::vector<uint64_t>& codes,
           const Bytes& packed, size_t count, size_t src_offset, size_t dst_offset) {
  const size_t size = static_cast<size_t>(dec.bits) / 8;
  Bytes in(src_offset + count * size);
  if (count != 0) std::memcpy(in.data() + src_offset, packed.data(), count * size);
  std::vector<uint32_t> want(count);
  for (size_t i = 0; i < count; ++i) want[i] = Expected(dec, codes[i]);
  GuardedBuffer out(4 * count, dst_offset);
  loop.Run([&] {
    out.Reset();
    dec.decode(in.data() + src_offset, out.data(), count);
    if (count != 0 && std::memcmp(out.data(), want.data(), 4 * count) != 0) {
      for (size_t i = 0; i < count; ++i) {
        uint32_t got;
        std::memcpy(&got, out.data() + 4 * i, 4);
        ASSERT_EQ(test::Hex(got), test::Hex(want[i]))
            << dec.name << " on " << ActiveTargetName() << ": element " << i << " of " << count
            << ", source " << test::Hex(codes[i]);
      }
    }
    ASSERT_TRUE(out.GuardsIntact())
        << dec.name << " on " << ActiveTargetName() << ": count " << count;
  });
}

TEST(RoundToOddOracle, MatchesHandComputedValues) {
  EXPECT_EQ(RoundToOddBits(false, 16777216), 0x4B800000u);          // 2^24 exact
  EXPECT_EQ(RoundToOddBits(false, 16777217), 0x4B800001u);          // inexact: odd neighbour above
  EXPECT_EQ(RoundToOddBits(false, 16777219), 0x4B800001u);          // 2^24 + 3: truncated, odd
  EXPECT_EQ(RoundToOddBits(false, 16777218), 0x4B800001u);          // 2^24 + 2 exact
  EXPECT_EQ(RoundToOddBits(true, uint64_t{1} << 31), 0xCF000000u);  // INT32_MIN
  EXPECT_EQ(RoundToOddBits(false, 0xFFFFFFFFu), 0x4F7FFFFFu);       // 2^32 - 1 -> below 2^32
  EXPECT_EQ(RoundToOddBits(false, ~uint64_t{0}), 0x5F7FFFFFu);
  EXPECT_EQ(RoundToOddBits(false, 1), 0x3F800000u);
}

class RoundToOddDecoders : public ::testing::TestWithParam<RoundToOddDecoder> {};

INSTANTIATE_TEST_SUITE_P(, RoundToOddDecoders, ::testing::ValuesIn(test::RoundToOddDecoders()),
                         [](const ::testing::TestParamInfo<RoundToOddDecoder>& param_info) {
                           return std::string(param_info.param.name);
                         });

// Every source code of SourceCodes in one call.
TEST_P(RoundToOddDecoders, BitExactWithRoundToOddOnEveryTarget) {
  const RoundToOddDecoder& dec = GetParam();
  TargetLoop loop;
  const std::vector<uint64_t> codes = SourceCodes(dec);
  const Bytes packed = Pack(dec, codes);
  Check(loop, dec, codes, packed, codes.size(), 0, 0);
}

// Every count 0 .. 4 vectors + 1 of the widest target, source at 0, 1 and 3 bytes past
// the allocation's alignment, output at 0, 2 and 1.
TEST_P(RoundToOddDecoders, CountsAndMisalignedPointersOnEveryTarget) {
  const RoundToOddDecoder& dec = GetParam();
  TargetLoop loop;
  const size_t max_count = 4 * HWY_MAX_BYTES + 1;
  const std::vector<uint64_t> codes = SourceCodes(dec);
  const Bytes packed = Pack(dec, codes);
  for (size_t count = 0; count <= max_count; ++count) {
    for (size_t offset : {size_t{0}, size_t{1}, size_t{3}}) {
      Check(loop, dec, codes, packed, count, offset, (offset * 7) % 5);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace tensorcast
