// The Highway kernels and the route plan on every compiled Highway target, bit for bit
// against the scalar reference (lib/reference), one test case per registry row
// (KernelRow.*/SRC_to_DST) and one per ordered pair of numeric types (CastPlan.*/SRC_to_DST):
// - every registry row: exhaustive for sources of <= 16 bits, random bit patterns plus
//   rounding and integer-range boundaries for 32/64-bit sources, with every option set;
//   counts 0 .. 4 vectors + 1 at misaligned pointers; streamed stores equal to regular ones;
// - every pair through the plan (kernel, byte table, sub-byte copy or two-step route):
//   the same sources; counts below and above tuning::kTableMinCount (where small-code pairs
//   switch to a table lookup) at misaligned pointers; outputs streamed and not, at
//   destinations with every relation to a 64-byte boundary.
// Every output sits in a test::GuardedBuffer: nothing outside it may change. Each check
// computes the reference output once and compares every target under test against it
// (test/target_loop.h: all compiled targets this CPU supports, SCALAR included, or those
// TENSORCAST_TEST_TARGETS names). A failure names the pair, the options and the target.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hwy/highway.h"
#include "lib/reference/reference_cast.h"
#include "lib/tuning.h"
#include "tensorcast/tensorcast.h"
#include "test/dispatch_access.h"
#include "test/target_loop.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using test::Bytes;
using test::GuardedBuffer;
using test::PairLabel;
using test::TargetLoop;
using test::TypePair;

// int <-> float boundaries (intfloat family), appended to the 32/64-bit sources:
// integers next to 2^t, and next to the float32 / float64 rounding ties and the
// round-up-to-2^(t+1) points at each t, both signs; floats next to every integer type's
// range limits (B - 1, B, B + 1, B +- 0.5 and their float neighbours, both signs).
void AppendIntFloatBoundaries(DataType type, std::vector<uint64_t>* v) {
  const int bits = BitWidth(type);
  const uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  if (type == DataType::kFloat || type == DataType::kDouble) {
    std::vector<double> values = {0.0, 0.25, 0.5, 0.75, 0.999, 1.0, 1.5};
    for (int e : {7, 8, 15, 16, 31, 32, 63, 64}) {
      const double b = std::ldexp(1.0, e);
      for (double x : {b - 1, b, b + 1}) {
        for (double d : {-0.5, 0.0, 0.5}) values.push_back(x + d);
      }
    }
    for (double x : values) {
      for (double sx : {x, -x}) {
        if (type == DataType::kFloat) {
          const float f = static_cast<float>(sx);
          for (float g : {f, std::nextafter(f, -INFINITY), std::nextafter(f, INFINITY)}) {
            v->push_back(test::Bits(g));
          }
        } else {
          for (double g : {sx, std::nextafter(sx, -INFINITY), std::nextafter(sx, INFINITY)}) {
            v->push_back(test::Bits(g));
          }
        }
      }
    }
    return;
  }
  if (type != DataType::kInt32 && type != DataType::kUint32 && type != DataType::kInt64 &&
      type != DataType::kUint64) {
    return;
  }
  std::vector<uint64_t> values;
  for (int t = 0; t < bits; ++t) {
    const uint64_t base = 1ull << t;
    for (uint64_t d : {0ull, 1ull, 2ull, 3ull}) values.push_back(base + d);
    values.push_back(base - 1);
    for (int p : {24, 53}) {
      if (t <= p) continue;
      const uint64_t ulp = 1ull << (t - p), tie = ulp / 2;
      for (uint64_t off : {tie, ulp + tie}) {
        for (uint64_t d : {off - 1, off, off + 1}) values.push_back(base + d);
      }
      const uint64_t top = (base - 1) * 2 + 1;  // all ones up to bit t
      for (uint64_t d : {tie - 1, tie, tie + 1}) values.push_back(top - d);
    }
  }
  for (uint64_t x : values) {
    v->push_back(x & mask);
    v->push_back((0 - x) & mask);
  }
}

// Source bit patterns for a row: every code of a <= 16-bit type; otherwise random bits
// and values next to the rounding boundaries of the narrow formats.
Bytes SourceBytes(DataType type, size_t* count) {
  const int bits = BitWidth(type);
  Bytes b;
  std::mt19937_64 rng(1234 + static_cast<int>(type));
  if (bits <= 16) {
    // Sub-byte types: all 256 byte values (every pair / quad of codes). 8-bit types: every
    // code twice, so that the 4 * HWY_MAX_BYTES + 1 elements of the counts test exist.
    const size_t n =
        bits < 8 ? 8 * 256 / static_cast<size_t>(bits) : std::max(size_t{1} << bits, size_t{512});
    *count = n;
    b.resize(StorageBytes(type, n));
    if (bits < 8) {
      for (size_t i = 0; i < 256; ++i) b[i] = static_cast<uint8_t>(i);
      return b;
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t code = i & ((size_t{1} << bits) - 1);
      std::memcpy(&b[i * bits / 8], &code, static_cast<size_t>(bits / 8));
    }
    return b;
  }
  std::vector<uint64_t> v;
  if (bits == 32) {
    // Every high half with low halves around the f16 (bit 12/13) and bf16 (bit 15/16)
    // rounding points, then random bits.
    const uint32_t lows[] = {0,      1,      0x0FFF, 0x1000, 0x1001, 0x1FFF,
                             0x2000, 0x3000, 0x7FFF, 0x8000, 0x8001, 0xFFFF};
    for (uint32_t hi = 0; hi < 0x10000; ++hi) {
      for (uint32_t lo : lows) v.push_back((hi << 16) | lo);
    }
    for (int i = 0; i < 200000; ++i) v.push_back(rng() & 0xFFFFFFFFu);
  } else {
    // Every sign/exponent/top-4-mantissa prefix with low bits around the f32 rounding
    // point (bit 28/29) and the f16/bf16 ones, then random bits.
    const uint64_t lows[] = {
        0,          1,          (1ull << 28) - 1, 1ull << 28,   (1ull << 28) + 1, (1ull << 29) - 1,
        1ull << 29, 3ull << 28, (1ull << 41),     (1ull << 44), (1ull << 48) - 1};
    for (uint64_t hi = 0; hi < 0x10000; ++hi) {
      for (uint64_t lo : lows) v.push_back((hi << 48) | lo);
    }
    for (int i = 0; i < 200000; ++i) v.push_back(rng());
  }
  AppendIntFloatBoundaries(type, &v);
  *count = v.size();
  b.resize(StorageBytes(type, v.size()));
  for (size_t i = 0; i < v.size(); ++i)
    std::memcpy(&b[i * bits / 8], &v[i], static_cast<size_t>(bits / 8));
  return b;
}

// SourceBytes, built once per type.
const Bytes& Source(DataType type, size_t* count) {
  static std::map<DataType, std::pair<Bytes, size_t>> cache;
  auto it = cache.find(type);
  if (it == cache.end()) {
    size_t n = 0;
    Bytes b = SourceBytes(type, &n);
    it = cache.emplace(type, std::make_pair(std::move(b), n)).first;
  }
  *count = it->second.second;
  return it->second.first;
}

// The first differing byte of two equal-sized buffers (memcmp first: fast under qemu).
bool FirstDifference(const uint8_t* a, const uint8_t* b, size_t n, size_t* at) {
  if (n == 0 || std::memcmp(a, b, n) == 0) return false;
  size_t i = 0;
  while (a[i] == b[i]) ++i;
  *at = i;
  return true;
}

using test::StreamBytesOverride;

// `count` elements of the type's source pattern (repeated as needed; whole bytes).
Bytes RepeatedSource(DataType type, size_t count) {
  size_t total = 0;
  const Bytes& pattern = Source(type, &total);
  const size_t pattern_bytes = StorageBytes(type, total & ~size_t{7});
  Bytes src(StorageBytes(type, count));
  for (size_t done = 0; done < src.size(); done += pattern_bytes) {
    std::memcpy(src.data() + done, pattern.data(), std::min(pattern_bytes, src.size() - done));
  }
  return src;
}

// The option sets that matter for a destination type: the defaults; saturate=false for
// the four float8 types with an overflow code; every saturate/round_mode combination for
// FLOAT8E8M0. (The registry rows get all six option sets.)
std::vector<CastOptions> OptionsThatMatter(DataType dst) {
  std::vector<CastOptions> options = {CastOptions{}};
  if (dst == DataType::kFloat8E4M3FN || dst == DataType::kFloat8E4M3FNUZ ||
      dst == DataType::kFloat8E5M2 || dst == DataType::kFloat8E5M2FNUZ) {
    options.push_back(CastOptions{false, RoundMode::kUp});
  }
  if (dst == DataType::kFloat8E8M0) {
    for (bool saturate : {true, false}) {
      for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
        options.push_back(CastOptions{saturate, mode});
      }
    }
  }
  return options;
}

std::vector<CastOptions> AllOptions() {
  std::vector<CastOptions> options;
  for (bool saturate : {true, false}) {
    for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
      options.push_back(CastOptions{saturate, mode});
    }
  }
  return options;
}

std::string Describe(DataType src, DataType dst, const CastOptions& o) {
  return PairLabel(src, dst) + " (saturate=" + std::to_string(o.saturate) +
         ", round_mode=" + RoundModeName(o.round_mode) + ") on " + ActiveTargetName();
}

std::string Describe(const test::KernelRow& row, const CastOptions& o) {
  return std::string(row.name) + ": " + Describe(row.src, row.dst, o);
}

// The element, its source bits and the byte at which `got` first differs from `want`.
std::string FirstDifferenceMessage(DataType src_type, const uint8_t* src, DataType dst_type,
                                   const uint8_t* got, const Bytes& want, size_t at) {
  const size_t elem = at * 8 / static_cast<size_t>(BitWidth(dst_type));
  const size_t src_bits = static_cast<size_t>(BitWidth(src_type));
  uint64_t s = 0;
  std::memcpy(&s, src + elem * src_bits / 8, (src_bits + 7) / 8);
  return "element " + std::to_string(elem) + " (source bits " + test::Hex(s) + "): byte " +
         std::to_string(at) + " expected " + test::Hex(want[at]) + ", got " + test::Hex(got[at]);
}

// Runs the kernel on `count` elements at byte offsets (misalignment) on every target under
// test and checks the output against the reference (computed once) and the guard bytes
// around it. The offsets are from the allocator's alignment, or with `modulus` != 0 the
// addresses' remainders modulo `modulus`.
void CheckRow(TargetLoop& loop, const test::KernelRow& row, const Bytes& src, size_t count,
              size_t src_offset, size_t dst_offset, const CastOptions& o, size_t modulus = 0) {
  const size_t in_bytes = StorageBytes(row.src, count);
  const size_t out_bytes = StorageBytes(row.dst, count);
  Bytes in(in_bytes + src_offset + modulus);
  if (modulus != 0) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(in.data());
    src_offset = (modulus + src_offset % modulus - base % modulus) % modulus;
  }
  if (in_bytes != 0) std::memcpy(in.data() + src_offset, src.data(), in_bytes);
  Bytes want(out_bytes);
  ASSERT_TRUE(
      reference::Cast(in.data() + src_offset, row.src, want.data(), row.dst, count, o).ok());
  GuardedBuffer got = modulus != 0 ? GuardedBuffer::AtAddress(out_bytes, modulus, dst_offset)
                                   : GuardedBuffer(out_bytes, dst_offset);
  loop.Run([&] {
    got.Reset();
    row.kernel(in.data() + src_offset, got.data(), count, o);
    size_t i = 0;
    if (FirstDifference(got.data(), want.data(), out_bytes, &i)) {
      FAIL() << Describe(row, o) << ": count " << count << ", offsets " << src_offset << "/"
             << dst_offset << ", "
             << FirstDifferenceMessage(row.src, in.data() + src_offset, row.dst, got.data(), want,
                                       i);
    }
    ASSERT_TRUE(got.GuardsIntact()) << Describe(row, o) << ": count " << count;
  });
}

// ------------------------------------------------------------------------------------------
// The dispatch itself.

TEST(TargetLoop, CastDispatchesToEveryTargetUnderTest) {
  TargetLoop loop;
  loop.Run([&] {
    // Any Cast that has a kernel initialises the dispatch; then the target must be the
    // forced one (TargetLoop also checks ActiveTargetName before each body).
    float x = 1.0f;
    uint16_t y = 0;
    ASSERT_TRUE(Cast(&x, DataType::kFloat, &y, DataType::kFloat16, 1).ok());
    EXPECT_EQ(y, 0x3C00);
    EXPECT_STREQ(ActiveTargetName(), loop.target());
  });
}

// ------------------------------------------------------------------------------------------
// One case per registry row.

class KernelRow : public ::testing::TestWithParam<test::KernelRow> {};

INSTANTIATE_TEST_SUITE_P(, KernelRow, ::testing::ValuesIn(test::KernelRows()),
                         [](const ::testing::TestParamInfo<test::KernelRow>& param_info) {
                           return test::PairName(param_info.param.src, param_info.param.dst);
                         });

// The whole source pattern with every saturate/round_mode combination.
TEST_P(KernelRow, BitExactWithReferenceOnEveryTarget) {
  const test::KernelRow& row = GetParam();
  TargetLoop loop;
  size_t count = 0;
  const Bytes& src = Source(row.src, &count);
  for (const CastOptions& o : AllOptions()) {
    CheckRow(loop, row, src, count, 0, 0, o);
    if (HasFailure()) return;
  }
}

// Counts 0 .. 4 vectors + 1 of the widest target (every count up to 80, then every 37th),
// source at 0, 1 and 3 bytes past the allocation's alignment, output at 0, 2 and 1.
TEST_P(KernelRow, CountsAndMisalignedPointersOnEveryTarget) {
  const test::KernelRow& row = GetParam();
  TargetLoop loop;
  size_t total = 0;
  const Bytes& src = Source(row.src, &total);
  const size_t max_count = 4 * HWY_MAX_BYTES + 1;
  for (size_t count = 0; count <= max_count; count += (count < 80 ? 1 : 37)) {
    for (size_t offset : {size_t{0}, size_t{1}, size_t{3}}) {
      CheckRow(loop, row, src, count, offset, (offset * 7) % 5, CastOptions{});
      if (HasFailure()) return;
    }
  }
}

// Loops store whole vectors aligned to their size from an early output element on (after
// an unaligned first vector, or a head through a narrower path), in cache as out of it.
// Both buffers at every remainder modulo 64 that a vector head can meet (element-aligned
// ones and odd ones) must still give the reference.
TEST_P(KernelRow, EveryBufferAlignmentOnEveryTarget) {
  const test::KernelRow& row = GetParam();
  TargetLoop loop;
  size_t total = 0;
  const Bytes& src = Source(row.src, &total);
  // A few vectors: the head, aligned vectors and a tail (the counts test covers every tail).
  const size_t count = 2 * HWY_MAX_BYTES + 3;
  ASSERT_LE(count, total);
  for (size_t r :
       std::initializer_list<size_t>{0, 1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 60, 62, 63}) {
    CheckRow(loop, row, src, count, r, r, CastOptions{}, 64);
    if (HasFailure()) return;
  }
}

// Kernels write large outputs with non-temporal stores after a head that aligns the
// output. Here the threshold is lowered to 1 KiB, and the row's output of 50037 elements
// into a buffer 16 bytes past a 64-byte boundary (element-aligned for every type, not
// aligned for 32- or 64-byte vectors, like a large malloc block) must equal the same call
// with streaming off (the regular path, checked against the reference above; computed on
// the first target under test, so every target's streamed call is compared with it).
TEST_P(KernelRow, StreamedStoresEqualRegularStoresOnEveryTarget) {
  const test::KernelRow& row = GetParam();
  TargetLoop loop;
  const size_t count = 50000 + 37;
  const Bytes src = RepeatedSource(row.src, count);
  const size_t out_bytes = StorageBytes(row.dst, count);
  GuardedBuffer big = GuardedBuffer::AtAddress(out_bytes, 64, 16);
  Bytes regular;
  std::string first;
  loop.Run([&] {
    if (regular.empty()) {
      first = ActiveTargetName();
      regular.resize(out_bytes);
      StreamBytesOverride never(SIZE_MAX);
      row.kernel(src.data(), regular.data(), count, CastOptions{});
    }
    big.Reset();
    {
      StreamBytesOverride early(1024);
      row.kernel(src.data(), big.data(), count, CastOptions{});
    }
    size_t i = 0;
    if (FirstDifference(big.data(), regular.data(), out_bytes, &i)) {
      FAIL() << Describe(row, CastOptions{}) << ": count " << count << ", byte " << i
             << " differs from the call without streaming on " << first;
    }
    ASSERT_TRUE(big.GuardsIntact()) << Describe(row, CastOptions{}) << ": count " << count;
  });
}

// ------------------------------------------------------------------------------------------
// One case per ordered pair of numeric types, through the route plan.

class CastPlan : public ::testing::TestWithParam<TypePair> {};

INSTANTIATE_TEST_SUITE_P(, CastPlan, ::testing::ValuesIn(test::OrderedNumericPairs()),
                         [](const ::testing::TestParamInfo<TypePair>& param_info) {
                           return test::PairName(param_info.param.src, param_info.param.dst);
                         });

// Every numeric pair has a route in the plan (none falls back to the scalar reference).
// The source type's pattern (for 32/64-bit sources its first 300000 elements: the
// boundary prefix; the registry rows get the full set) with the option sets that matter
// for the destination.
TEST_P(CastPlan, BitExactWithReferenceOnEveryTarget) {
  const DataType st = GetParam().src, dt = GetParam().dst;
  size_t count = 0;
  const Bytes& src = Source(st, &count);
  if (BitWidth(st) > 16) count = std::min<size_t>(count, 300000);
  const size_t out_bytes = StorageBytes(dt, count);
  Bytes want(out_bytes);
  GuardedBuffer got(out_bytes);
  TargetLoop loop;
  for (const CastOptions& o : OptionsThatMatter(dt)) {
    ASSERT_TRUE(reference::Cast(src.data(), st, want.data(), dt, count, o).ok());
    loop.Run([&] {
      got.Reset();
      ASSERT_TRUE(test::CastThroughPlan(src.data(), st, got.data(), dt, count, o))
          << Describe(st, dt, o) << ": no route in the plan (Cast would use the scalar reference)";
      size_t i = 0;
      if (FirstDifference(got.data(), want.data(), out_bytes, &i)) {
        FAIL() << Describe(st, dt, o) << ": count " << count << ", "
               << FirstDifferenceMessage(st, src.data(), dt, got.data(), want, i);
      }
      ASSERT_TRUE(got.GuardsIntact()) << Describe(st, dt, o) << ": count " << count;
    });
    if (HasFailure()) return;
  }
}

// Counts just below tuning::kTableMinCount and 3 * kTableMinCount + 37 (from
// kTableMinCount on, pairs of small-code types may be cast by table lookup, where the plan
// gives them a table; others keep their route), every option set that matters, source
// and destination at offsets 0/0, 1/2, 3/1 and 2/4 bytes (odd and even), the last two with
// streaming stores from 1 KiB on (wider targets stream from the even offset).
TEST_P(CastPlan, CountsAroundTableMinCountMisalignedAndStreamedOnEveryTarget) {
  const DataType st = GetParam().src, dt = GetParam().dst;
  TargetLoop loop;
  for (size_t count : {tuning::kTableMinCount - 1, 3 * tuning::kTableMinCount + 37}) {
    const Bytes pattern = RepeatedSource(st, count);
    const size_t src_bytes = pattern.size();
    const size_t out_bytes = StorageBytes(dt, count);
    for (const CastOptions& o : OptionsThatMatter(dt)) {
      for (size_t src_offset : {size_t{0}, size_t{1}, size_t{3}, size_t{2}}) {
        const size_t dst_offset = (src_offset * 7) % 5;  // 0, 2, 1, 4
        const size_t stream_bytes = src_offset >= 2 ? 1024 : 0;
        Bytes src(src_offset + src_bytes);
        std::memcpy(src.data() + src_offset, pattern.data(), src_bytes);
        Bytes want(out_bytes);
        ASSERT_TRUE(reference::Cast(src.data() + src_offset, st, want.data(), dt, count, o).ok());
        GuardedBuffer got(out_bytes, dst_offset);
        loop.Run([&] {
          got.Reset();
          {
            StreamBytesOverride stream(stream_bytes);
            ASSERT_TRUE(
                test::CastThroughPlan(src.data() + src_offset, st, got.data(), dt, count, o))
                << Describe(st, dt, o) << ": no route in the plan";
          }
          size_t i = 0;
          if (FirstDifference(got.data(), want.data(), out_bytes, &i)) {
            FAIL() << Describe(st, dt, o) << ": count " << count << ", offsets " << src_offset
                   << "/" << dst_offset << ", streaming from " << stream_bytes << " bytes, "
                   << FirstDifferenceMessage(st, src.data() + src_offset, dt, got.data(), want, i);
          }
          ASSERT_TRUE(got.GuardsIntact()) << Describe(st, dt, o) << ": count " << count;
        });
        if (HasFailure()) return;
      }
    }
  }
}

// The routes stream large outputs too: a kernel after a head that aligns the output; the
// two-step route encodes each block into an L1 stage and copies it out with non-temporal
// stores from the first 64-byte-aligned output byte on; the table lookup streams from the
// first vector-aligned one. Here the threshold is lowered to 1 KiB, and the pair must give
// the reference's bytes with and without streaming for 20 blocks of 1024 elements and a
// partial one, at destinations 0, 8, 16 and 3 bytes past a 64-byte boundary (the last: a
// head that is not a whole number of elements for most types, which falls back to regular
// stores).
TEST_P(CastPlan, StreamedOutputsAtEveryAlignmentMatchReferenceOnEveryTarget) {
  const DataType st = GetParam().src, dt = GetParam().dst;
  TargetLoop loop;
  const size_t count = 20 * 1024 + 37;
  const Bytes src = RepeatedSource(st, count);
  const size_t out_bytes = StorageBytes(dt, count);
  Bytes want(out_bytes);
  ASSERT_TRUE(reference::Cast(src.data(), st, want.data(), dt, count, CastOptions{}).ok());
  for (size_t past : {size_t{0}, size_t{8}, size_t{16}, size_t{3}}) {
    GuardedBuffer big = GuardedBuffer::AtAddress(out_bytes, 64, past);
    loop.Run([&] {
      for (size_t stream_bytes : {size_t{1024}, SIZE_MAX}) {
        big.Reset();
        {
          StreamBytesOverride stream(stream_bytes);
          ASSERT_TRUE(test::CastThroughPlan(src.data(), st, big.data(), dt, count, CastOptions{}))
              << Describe(st, dt, CastOptions{}) << ": no route in the plan";
        }
        size_t i = 0;
        if (FirstDifference(big.data(), want.data(), out_bytes, &i)) {
          FAIL() << Describe(st, dt, CastOptions{}) << ": destination " << past
                 << " bytes past 64, streaming from " << stream_bytes << " bytes, "
                 << FirstDifferenceMessage(st, src.data(), dt, big.data(), want, i);
        }
        ASSERT_TRUE(big.GuardsIntact())
            << Describe(st, dt, CastOptions{}) << ": destination " << past << " bytes past 64";
      }
    });
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace tensorcast
