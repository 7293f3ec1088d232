// Every registry row (lib/dispatch/cast_pairs.inc) on every compiled Highway target,
// bit for bit against the scalar reference (lib/reference): exhaustive for sources of
// <= 16 bits, random bit patterns plus rounding boundaries for 32/64-bit sources;
// counts 0 .. 4 vectors + 1, misaligned pointers, guard bytes after the output.
// Each check computes the reference output once and compares every target under test
// against it (test/target_loop.h: all compiled targets this CPU supports, SCALAR included,
// or those TENSORCAST_TEST_TARGETS names).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "hwy/highway.h"
#include "lib/dispatch/route_plan.h"
#include "lib/reference/reference_cast.h"
#include "lib/tuning.h"
#include "tensorcast/tensorcast.h"
#include "test/target_loop.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using test::Bytes;
using test::TargetLoop;

constexpr uint8_t kGuard = 0xA5;
constexpr size_t kGuardBytes = 64;

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
    // code twice, so that CountsAndMisalignment's 4 * HWY_MAX_BYTES + 1 elements exist.
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
  if (std::memcmp(a, b, n) == 0) return false;
  size_t i = 0;
  while (a[i] == b[i]) ++i;
  *at = i;
  return true;
}

std::string Describe(const dispatch::KernelRow& row, const CastOptions& o) {
  return std::string(row.name) + " (" + DataTypeName(row.src) + " -> " + DataTypeName(row.dst) +
         ", saturate=" + std::to_string(o.saturate) +
         ", round_mode=" + RoundModeName(o.round_mode) + ") on " + ActiveTargetName();
}

// Runs the kernel on `count` elements at byte offsets (misalignment) on every target under
// test and checks the output against the reference (computed once) and the guard bytes
// after it.
void CheckRow(TargetLoop& loop, const dispatch::KernelRow& row, const Bytes& src, size_t count,
              size_t src_offset, size_t dst_offset, const CastOptions& o) {
  const size_t in_bytes = StorageBytes(row.src, count);
  const size_t out_bytes = StorageBytes(row.dst, count);
  Bytes in(in_bytes + src_offset);
  std::memcpy(in.data() + src_offset, src.data(), in_bytes);
  Bytes want(out_bytes);
  ASSERT_TRUE(
      reference::Cast(in.data() + src_offset, row.src, want.data(), row.dst, count, o).ok());
  Bytes got(dst_offset + out_bytes + kGuardBytes);
  loop.Run([&] {
    std::fill(got.begin(), got.end(), kGuard);
    row.kernel(in.data() + src_offset, got.data() + dst_offset, count, o);
    size_t i = 0;
    if (FirstDifference(got.data() + dst_offset, want.data(), out_bytes, &i)) {
      const int dbits = BitWidth(row.dst);
      const size_t elem = i * 8 / static_cast<size_t>(dbits);
      uint64_t s = 0;
      std::memcpy(&s, in.data() + src_offset + elem * static_cast<size_t>(BitWidth(row.src)) / 8,
                  static_cast<size_t>((BitWidth(row.src) + 7) / 8));
      FAIL() << Describe(row, o) << ": count " << count << ", element " << elem << " (source bits "
             << test::Hex(s) << "): byte " << i << " expected " << test::Hex(want[i]) << ", got "
             << test::Hex(got[dst_offset + i]);
    }
    for (size_t g = 0; g < kGuardBytes; ++g) {
      ASSERT_EQ(got[dst_offset + out_bytes + g], kGuard)
          << Describe(row, o) << ": count " << count << " wrote past the output";
    }
  });
}

TEST(KernelTest, DispatchesToEveryTargetUnderTest) {
  TargetLoop loop;
  loop.Run([] {
    // Any Cast that has a kernel initialises the dispatch; then the target must match
    // the forced one (TargetLoop checks ActiveTargetName before each body).
    float x = 1.0f;
    uint16_t y = 0;
    ASSERT_TRUE(Cast(&x, DataType::kFloat, &y, DataType::kFloat16, 1).ok());
    EXPECT_EQ(y, 0x3C00);
  });
}

TEST(KernelTest, EveryRowBitExactAgainstTheReference) {
  TargetLoop loop;
  size_t rows = 0;
  const dispatch::KernelRow* table = dispatch::KernelRows(&rows);
  for (size_t r = 0; r < rows; ++r) {
    const dispatch::KernelRow& row = table[r];
    size_t count = 0;
    const Bytes& src = Source(row.src, &count);
    for (bool saturate : {true, false}) {
      for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
        const CastOptions o{saturate, mode};
        CheckRow(loop, row, src, count, 0, 0, o);
        if (HasFailure()) return;
      }
    }
  }
}

// Every numeric pair that the kernel path takes (a registry row or the blocked
// two-step hub), with the options that matter for its target, against the reference.
TEST(KernelTest, EveryPairThroughKernelsOrHub) {
  TargetLoop loop;
  std::vector<DataType> types;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  size_t pairs = 0;
  for (DataType st : types) {
    size_t count = 0;
    const Bytes& src = Source(st, &count);
    // Wide sources: the boundary prefix of the pattern set is enough per pair here
    // (the registry rows get the full set above).
    if (BitWidth(st) > 16) count = std::min<size_t>(count, 300000);
    for (DataType dt : types) {
      std::vector<CastOptions> options = {CastOptions{}};
      if (dt == DataType::kFloat8E4M3FN || dt == DataType::kFloat8E4M3FNUZ ||
          dt == DataType::kFloat8E5M2 || dt == DataType::kFloat8E5M2FNUZ) {
        options.push_back(CastOptions{false, RoundMode::kUp});
      }
      if (dt == DataType::kFloat8E8M0) {
        for (bool sat : {true, false}) {
          for (RoundMode m : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
            options.push_back(CastOptions{sat, m});
          }
        }
      }
      const size_t out_bytes = StorageBytes(dt, count);
      Bytes want(out_bytes), got(out_bytes + kGuardBytes);
      for (const CastOptions& o : options) {
        // The kernel path either takes the pair on every target or on none.
        std::fill(got.begin(), got.end(), kGuard);
        if (!dispatch::CastWithPlan(src.data(), st, got.data(), dt, count, o)) continue;
        ASSERT_TRUE(reference::Cast(src.data(), st, want.data(), dt, count, o).ok());
        ++pairs;
        loop.Run([&] {
          std::fill(got.begin(), got.end(), kGuard);
          ASSERT_TRUE(dispatch::CastWithPlan(src.data(), st, got.data(), dt, count, o))
              << DataTypeName(st) << " -> " << DataTypeName(dt) << " has no kernel path on "
              << ActiveTargetName();
          size_t i = 0;
          if (FirstDifference(got.data(), want.data(), out_bytes, &i)) {
            FAIL() << DataTypeName(st) << " -> " << DataTypeName(dt) << " saturate=" << o.saturate
                   << " round_mode=" << RoundModeName(o.round_mode) << " on " << ActiveTargetName()
                   << ": byte " << i << " expected " << test::Hex(want[i]) << ", got "
                   << test::Hex(got[i]);
          }
          for (size_t g = 0; g < kGuardBytes; ++g) ASSERT_EQ(got[out_bytes + g], kGuard);
        });
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GT(pairs, 0u);
  std::printf("%zu pair/option combinations through kernels or the hub on each target\n", pairs);
}

// Streaming stores: kernels write outputs of 4 or 8 MiB and more with non-temporal
// stores (cast_loop-inl.h, pack-inl.h), after a head that aligns the output. Here the
// threshold is lowered to 1 KiB (tuning::SetStreamBytesForTest) and every row's output
// into a buffer that is not vector-aligned must equal the same call with streaming off
// (the regular path, checked against the reference above; computed on the first target
// under test, so every target's streamed call is compared with it), with the guard bytes
// after the output intact.
TEST(KernelTest, StreamedOutputsMatchRegularStores) {
  struct Override {
    explicit Override(size_t bytes) { tuning::SetStreamBytesForTest(bytes); }
    ~Override() { tuning::SetStreamBytesForTest(0); }
  };
  TargetLoop loop;
  std::string first;
  size_t rows = 0;
  const dispatch::KernelRow* table = dispatch::KernelRows(&rows);
  for (size_t r = 0; r < rows; ++r) {
    const dispatch::KernelRow& row = table[r];
    size_t total = 0;
    const Bytes& pattern = Source(row.src, &total);
    const size_t count = 50000 + 37;
    Bytes src(StorageBytes(row.src, count));
    const size_t pattern_bytes = StorageBytes(row.src, total & ~size_t{7});  // whole bytes
    for (size_t done = 0; done < src.size(); done += pattern_bytes) {
      std::memcpy(src.data() + done, pattern.data(), std::min(pattern_bytes, src.size() - done));
    }
    const size_t out_bytes = StorageBytes(row.dst, count);
    // Output at 16 mod 64 bytes, like a large malloc block: element-aligned for every
    // type, not aligned for 32- or 64-byte vectors.
    Bytes big(out_bytes + 64 + kGuardBytes), regular;
    const size_t offset = (64 + 16 - reinterpret_cast<uintptr_t>(big.data()) % 64) % 64;
    loop.Run([&] {
      if (regular.empty()) {
        first = ActiveTargetName();
        regular.resize(out_bytes);
        Override never(SIZE_MAX);
        row.kernel(src.data(), regular.data(), count, CastOptions{});
      }
      std::fill(big.begin(), big.end(), kGuard);
      {
        Override early(1024);
        row.kernel(src.data(), big.data() + offset, count, CastOptions{});
      }
      size_t i = 0;
      if (FirstDifference(big.data() + offset, regular.data(), out_bytes, &i)) {
        FAIL() << Describe(row, CastOptions{}) << ": count " << count << ", byte " << i
               << " differs from the call without streaming on " << first;
      }
      for (size_t g = 0; g < kGuardBytes; ++g) {
        ASSERT_EQ(big[offset + out_bytes + g], kGuard)
            << Describe(row, CastOptions{}) << ": count " << count << " wrote past the output";
      }
    });
    if (HasFailure()) return;
  }
}

// The paths of pairs without a kernel of their own stream outputs of 4 MiB and more too:
// the blocked two-step hub encodes each block into an L1 stage and copies it out with
// non-temporal stores from the first 64-byte-aligned output byte on, the table lookup
// streams from the first vector-aligned one (lib/dispatch/cast_kernels.cc,
// lut_kernels.cc). Here the threshold is lowered to 1 KiB, and every numeric pair without
// a registry row must give the reference's bytes with and without streaming, at
// destinations 0, 8, 16 and 3 bytes past a 64-byte boundary (the last: a head that is not
// a whole number of elements for most targets, which falls back to regular stores), with
// the guard bytes after the output intact.
TEST(KernelTest, HubStreamedOutputsMatchRegularStores) {
  struct Override {
    explicit Override(size_t bytes) { tuning::SetStreamBytesForTest(bytes); }
    ~Override() { tuning::SetStreamBytesForTest(0); }
  };
  TargetLoop loop;
  std::vector<DataType> types;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  const size_t count = 20 * 1024 + 37;  // blocks of 1024, a partial one, any head
  size_t pairs = 0;
  for (DataType st : types) {
    size_t total = 0;
    const Bytes& pattern = Source(st, &total);
    Bytes src(StorageBytes(st, count));
    const size_t pattern_bytes = StorageBytes(st, total & ~size_t{7});  // whole bytes
    for (size_t done = 0; done < src.size(); done += pattern_bytes) {
      std::memcpy(src.data() + done, pattern.data(), std::min(pattern_bytes, src.size() - done));
    }
    for (DataType dt : types) {
      if (st == dt || dispatch::FindKernel(st, dt) != nullptr) continue;
      const size_t out_bytes = StorageBytes(dt, count);
      Bytes want(out_bytes);
      ASSERT_TRUE(reference::Cast(src.data(), st, want.data(), dt, count, CastOptions{}).ok());
      Bytes big(out_bytes + 128 + kGuardBytes);
      const size_t aligned = (64 - reinterpret_cast<uintptr_t>(big.data()) % 64) % 64;
      ++pairs;
      loop.Run([&] {
        for (size_t past : {size_t{0}, size_t{8}, size_t{16}, size_t{3}}) {
          for (size_t stream_bytes : {size_t{1024}, ~size_t{0}}) {
            const size_t offset = aligned + past;
            std::fill(big.begin(), big.end(), kGuard);
            {
              Override stream(stream_bytes);
              ASSERT_TRUE(dispatch::CastWithPlan(src.data(), st, big.data() + offset, dt, count,
                                                 CastOptions{}));
            }
            size_t i = 0;
            if (FirstDifference(big.data() + offset, want.data(), out_bytes, &i)) {
              FAIL() << DataTypeName(st) << " -> " << DataTypeName(dt) << ": destination " << past
                     << " bytes past 64, streaming from " << stream_bytes << " bytes on "
                     << ActiveTargetName() << ": byte " << i << " expected " << test::Hex(want[i])
                     << ", got " << test::Hex(big[offset + i]);
            }
            for (size_t g = 0; g < kGuardBytes; ++g) {
              ASSERT_EQ(big[offset + out_bytes + g], kGuard)
                  << DataTypeName(st) << " -> " << DataTypeName(dt) << " wrote past the output";
            }
            for (size_t g = 0; g < offset; ++g) {
              ASSERT_EQ(big[g], kGuard)
                  << DataTypeName(st) << " -> " << DataTypeName(dt) << " wrote before the output";
            }
          }
        }
      });
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(pairs, 0u);
  std::printf("%zu pairs through the hub or the table, streamed and not, on each target\n", pairs);
}

TEST(KernelTest, CountsAndMisalignment) {
  TargetLoop loop;
  size_t rows = 0;
  const dispatch::KernelRow* table = dispatch::KernelRows(&rows);
  const size_t max_count = 4 * HWY_MAX_BYTES + 1;  // 4 vectors + 1 of the widest target
  for (size_t r = 0; r < rows; ++r) {
    const dispatch::KernelRow& row = table[r];
    size_t total = 0;
    const Bytes& src = Source(row.src, &total);
    for (size_t count = 0; count <= max_count; count += (count < 80 ? 1 : 37)) {
      for (size_t offset : {size_t{0}, size_t{1}, size_t{3}}) {
        CheckRow(loop, row, src, count, offset, (offset * 7) % 5, CastOptions{});
        if (HasFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace tensorcast

namespace tensorcast {
namespace {

// Pairs of a type with at most 8 bits and a type with at most 8 or exactly 16 bits, or a
// 32/64-bit integer type, go through a table lookup from dispatch::CastWithPlan' 4096
// elements on where cast_kernels.cc picks it (per pair and target: IsTableTarget,
// TableBeatsKernel, LutPlanes; lib/dispatch/lut_kernels.cc; the table comes from the
// kernel path, the lookup itself is checked here): every such pair and option set,
// whichever path it takes, every source code repeated to 3 * 4096 + 37 elements, at
// misaligned source and target offsets (odd and even), with and without streaming stores
// (threshold lowered to 1 KiB; wider targets stream from the even offset), against the
// reference, with the guard bytes after the output intact.
TEST(KernelTest, SmallCodePairsByTableLookup) {
  struct StreamOverride {
    explicit StreamOverride(size_t bytes) { tuning::SetStreamBytesForTest(bytes); }
    ~StreamOverride() { tuning::SetStreamBytesForTest(0); }
  };
  TargetLoop loop;
  std::vector<DataType> sources, targets;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (!IsCastable(t) || t == DataType::kString) continue;
    if (BitWidth(t) <= 8) sources.push_back(t);
    if (BitWidth(t) <= 8 || BitWidth(t) == 16 || t == DataType::kInt32 || t == DataType::kUint32 ||
        t == DataType::kInt64 || t == DataType::kUint64) {
      targets.push_back(t);
    }
  }
  const size_t count = 3 * 4096 + 37;
  size_t checks = 0;
  for (DataType st : sources) {
    size_t total = 0;
    const Bytes& pattern = Source(st, &total);
    const size_t pattern_bytes = StorageBytes(st, total);  // every code, whole bytes
    const size_t src_bytes = StorageBytes(st, count);
    for (DataType dt : targets) {
      if (dt == st) continue;
      std::vector<CastOptions> options = {CastOptions{}};
      if (dt == DataType::kFloat8E4M3FN || dt == DataType::kFloat8E4M3FNUZ ||
          dt == DataType::kFloat8E5M2 || dt == DataType::kFloat8E5M2FNUZ) {
        options.push_back(CastOptions{false, RoundMode::kUp});
      }
      if (dt == DataType::kFloat8E8M0) {
        for (bool sat : {true, false}) {
          for (RoundMode m : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
            options.push_back(CastOptions{sat, m});
          }
        }
      }
      const size_t out_bytes = StorageBytes(dt, count);
      for (const CastOptions& o : options) {
        for (size_t src_offset : {size_t{0}, size_t{1}, size_t{3}, size_t{2}}) {
          const size_t dst_offset = (src_offset * 7) % 5;  // 0, 2, 1, 4
          const size_t stream_bytes = src_offset >= 2 ? 1024 : 0;
          Bytes src(src_offset + src_bytes);
          for (size_t done = 0; done < src_bytes; done += pattern_bytes) {
            std::memcpy(src.data() + src_offset + done, pattern.data(),
                        std::min(pattern_bytes, src_bytes - done));
          }
          Bytes want(out_bytes), got(dst_offset + out_bytes + kGuardBytes);
          ASSERT_TRUE(reference::Cast(src.data() + src_offset, st, want.data(), dt, count, o).ok());
          ++checks;
          loop.Run([&] {
            std::fill(got.begin(), got.end(), kGuard);
            {
              StreamOverride stream(stream_bytes);
              ASSERT_TRUE(dispatch::CastWithPlan(src.data() + src_offset, st,
                                                 got.data() + dst_offset, dt, count, o))
                  << DataTypeName(st) << " -> " << DataTypeName(dt) << " on " << ActiveTargetName();
            }
            size_t i = 0;
            if (FirstDifference(got.data() + dst_offset, want.data(), out_bytes, &i)) {
              FAIL() << DataTypeName(st) << " -> " << DataTypeName(dt) << " saturate=" << o.saturate
                     << " round_mode=" << RoundModeName(o.round_mode) << " offsets " << src_offset
                     << "/" << dst_offset << " streaming " << stream_bytes << " on "
                     << ActiveTargetName() << ": byte " << i << " expected " << test::Hex(want[i])
                     << ", got " << test::Hex(got[dst_offset + i]);
            }
            for (size_t g = 0; g < kGuardBytes; ++g) {
              ASSERT_EQ(got[dst_offset + out_bytes + g], kGuard)
                  << DataTypeName(st) << " -> " << DataTypeName(dt) << " wrote past the output";
            }
          });
          if (HasFailure()) return;
        }
      }
    }
  }
  EXPECT_GT(checks, 0u);
  std::printf("%zu pair/option/offset combinations by table lookup on each target\n", checks);
}

}  // namespace
}  // namespace tensorcast
