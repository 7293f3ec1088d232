// Every registry row (lib/dispatch/cast_pairs.inc) on every compiled Highway target,
// bit for bit against the scalar reference (lib/reference): exhaustive for sources of
// <= 16 bits, random bit patterns plus rounding boundaries for 32/64-bit sources;
// counts 0 .. 4 vectors + 1, misaligned pointers, guard bytes after the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hwy/highway.h"
#include "hwy/tests/hwy_gtest.h"
#include "lib/dispatch/cast_kernels.h"
#include "lib/reference/reference_cast.h"
#include "tensorcast/tensorcast.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using test::Bytes;

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
    const size_t n = bits < 8 ? 8 * 256 / static_cast<size_t>(bits)
                              : std::max(size_t{1} << bits, size_t{512});
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
    const uint32_t lows[] = {0, 1, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x3000,
                             0x7FFF, 0x8000, 0x8001, 0xFFFF};
    for (uint32_t hi = 0; hi < 0x10000; ++hi) {
      for (uint32_t lo : lows) v.push_back((hi << 16) | lo);
    }
    for (int i = 0; i < 200000; ++i) v.push_back(rng() & 0xFFFFFFFFu);
  } else {
    // Every sign/exponent/top-4-mantissa prefix with low bits around the f32 rounding
    // point (bit 28/29) and the f16/bf16 ones, then random bits.
    const uint64_t lows[] = {0, 1, (1ull << 28) - 1, 1ull << 28, (1ull << 28) + 1,
                             (1ull << 29) - 1, 1ull << 29, 3ull << 28, (1ull << 41),
                             (1ull << 44), (1ull << 48) - 1};
    for (uint64_t hi = 0; hi < 0x10000; ++hi) {
      for (uint64_t lo : lows) v.push_back((hi << 48) | lo);
    }
    for (int i = 0; i < 200000; ++i) v.push_back(rng());
  }
  AppendIntFloatBoundaries(type, &v);
  *count = v.size();
  b.resize(StorageBytes(type, v.size()));
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(&b[i * bits / 8], &v[i], static_cast<size_t>(bits / 8));
  return b;
}

std::string Describe(const kernels::KernelRow& row, const CastOptions& o) {
  return std::string(row.name) + " (" + DataTypeName(row.src) + " -> " + DataTypeName(row.dst) +
         ", saturate=" + std::to_string(o.saturate) + ", round_mode=" + RoundModeName(o.round_mode) +
         ") on " + ActiveTargetName();
}

// Runs the kernel on `count` elements at byte offsets (misalignment) and checks the output
// against the reference and the guard bytes after it.
void CheckRow(const kernels::KernelRow& row, const Bytes& src, size_t count, size_t src_offset,
              size_t dst_offset, const CastOptions& o) {
  const size_t in_bytes = StorageBytes(row.src, count);
  const size_t out_bytes = StorageBytes(row.dst, count);
  Bytes in(in_bytes + src_offset);
  std::memcpy(in.data() + src_offset, src.data(), in_bytes);
  Bytes want(out_bytes);
  ASSERT_TRUE(reference::Cast(in.data() + src_offset, row.src, want.data(), row.dst, count, o).ok());
  Bytes got(dst_offset + out_bytes + kGuardBytes, kGuard);
  row.kernel(in.data() + src_offset, got.data() + dst_offset, count, o);
  const int dbits = BitWidth(row.dst);
  for (size_t i = 0; i < out_bytes; ++i) {
    if (got[dst_offset + i] != want[i]) {
      const size_t elem = i * 8 / static_cast<size_t>(dbits);
      uint64_t s = 0;
      std::memcpy(&s, in.data() + src_offset + elem * static_cast<size_t>(BitWidth(row.src)) / 8,
                  static_cast<size_t>(BitWidth(row.src)) / 8);
      FAIL() << Describe(row, o) << ": count " << count << ", element " << elem << " (source bits "
             << test::Hex(s) << "): byte " << i << " expected " << test::Hex(want[i]) << ", got "
             << test::Hex(got[dst_offset + i]);
    }
  }
  for (size_t i = 0; i < kGuardBytes; ++i) {
    ASSERT_EQ(got[dst_offset + out_bytes + i], kGuard)
        << Describe(row, o) << ": count " << count << " wrote past the output";
  }
}

class KernelTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(KernelTest);

TEST_P(KernelTest, DispatchesToTheRequestedTarget) {
  // Any Cast that has a kernel initialises the dispatch; then the target must match.
  float x = 1.0f;
  uint16_t y = 0;
  ASSERT_TRUE(Cast(&x, DataType::kFloat, &y, DataType::kFloat16, 1).ok());
  EXPECT_STREQ(hwy::TargetName(GetParam()), ActiveTargetName());
}

TEST_P(KernelTest, EveryRowBitExactAgainstTheReference) {
  size_t rows = 0;
  const kernels::KernelRow* table = kernels::KernelRows(&rows);
  for (size_t r = 0; r < rows; ++r) {
    const kernels::KernelRow& row = table[r];
    size_t count = 0;
    const Bytes src = SourceBytes(row.src, &count);
    for (bool saturate : {true, false}) {
      for (RoundMode mode : {RoundMode::kUp, RoundMode::kDown, RoundMode::kNearest}) {
        const CastOptions o{saturate, mode};
        CheckRow(row, src, count, 0, 0, o);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_STREQ(hwy::TargetName(GetParam()), ActiveTargetName());
}

// Every numeric pair that the kernel path takes (a registry row or the blocked
// two-step hub), with the options that matter for its target, against the reference.
TEST_P(KernelTest, EveryPairThroughKernelsOrHub) {
  std::vector<DataType> types;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  size_t pairs = 0;
  for (DataType st : types) {
    size_t count = 0;
    const Bytes src = SourceBytes(st, &count);
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
      for (const CastOptions& o : options) {
        const size_t out_bytes = StorageBytes(dt, count);
        Bytes want(out_bytes), got(out_bytes + kGuardBytes, kGuard);
        ASSERT_TRUE(reference::Cast(src.data(), st, want.data(), dt, count, o).ok());
        if (!kernels::CastWithKernels(src.data(), st, got.data(), dt, count, o)) continue;
        ++pairs;
        for (size_t i = 0; i < out_bytes; ++i) {
          ASSERT_EQ(test::Hex(got[i]), test::Hex(want[i]))
              << DataTypeName(st) << " -> " << DataTypeName(dt) << " saturate=" << o.saturate
              << " round_mode=" << RoundModeName(o.round_mode) << " on " << ActiveTargetName()
              << ": byte " << i;
        }
        for (size_t i = 0; i < kGuardBytes; ++i) ASSERT_EQ(got[out_bytes + i], kGuard);
      }
    }
  }
  EXPECT_GT(pairs, 0u);
  std::printf("%s: %zu pair/option combinations through kernels or the hub\n",
              ActiveTargetName(), pairs);
}

// Large outputs (kernels may switch to non-temporal stores from 8 MiB of output, e.g. the
// sub-byte decoders): one call over more than 8 MiB of output, into a buffer that is not
// vector-aligned, must give the same bytes as the same kernel called on 64K-element pieces
// (the small-count path, checked against the reference above). Rows whose target is at
// least as wide as the source.
TEST_P(KernelTest, LargeOutputsMatchSmallCalls) {
  size_t rows = 0;
  const kernels::KernelRow* table = kernels::KernelRows(&rows);
  for (size_t r = 0; r < rows; ++r) {
    const kernels::KernelRow& row = table[r];
    const size_t sbits = static_cast<size_t>(BitWidth(row.src));
    const size_t dbits = static_cast<size_t>(BitWidth(row.dst));
    if (dbits < sbits) continue;
    size_t total = 0;
    const Bytes pattern = SourceBytes(row.src, &total);
    const size_t count = (size_t{8} << 20) * 8 / dbits + 37;
    Bytes src(StorageBytes(row.src, count));
    const size_t pattern_bytes = StorageBytes(row.src, total & ~size_t{7});  // whole bytes
    for (size_t done = 0; done < src.size(); done += pattern_bytes) {
      std::memcpy(src.data() + done, pattern.data(), std::min(pattern_bytes, src.size() - done));
    }
    const size_t out_bytes = StorageBytes(row.dst, count);
    // Output at 16 mod 64 bytes, like a large malloc block: element-aligned for every
    // type, not aligned for 32- or 64-byte vectors.
    Bytes big(out_bytes + 64 + kGuardBytes, kGuard), pieces(out_bytes);
    const size_t offset = (64 + 16 - reinterpret_cast<uintptr_t>(big.data()) % 64) % 64;
    row.kernel(src.data(), big.data() + offset, count, CastOptions{});
    constexpr size_t kPiece = 65536;  // a multiple of 8: pieces start on whole bytes
    for (size_t i = 0; i < count; i += kPiece) {
      row.kernel(src.data() + i * sbits / 8, pieces.data() + i * dbits / 8,
                 std::min(kPiece, count - i), CastOptions{});
    }
    ASSERT_EQ(0, std::memcmp(big.data() + offset, pieces.data(), out_bytes))
        << Describe(row, CastOptions{}) << ": count " << count;
    for (size_t i = 0; i < kGuardBytes; ++i) {
      ASSERT_EQ(big[offset + out_bytes + i], kGuard)
          << Describe(row, CastOptions{}) << ": count " << count << " wrote past the output";
    }
  }
}

TEST_P(KernelTest, CountsAndMisalignment) {
  size_t rows = 0;
  const kernels::KernelRow* table = kernels::KernelRows(&rows);
  const size_t max_count = 4 * HWY_MAX_BYTES + 1;  // 4 vectors + 1 of the widest target
  for (size_t r = 0; r < rows; ++r) {
    const kernels::KernelRow& row = table[r];
    size_t total = 0;
    const Bytes src = SourceBytes(row.src, &total);
    for (size_t count = 0; count <= max_count; count += (count < 80 ? 1 : 37)) {
      for (size_t offset : {size_t{0}, size_t{1}, size_t{3}}) {
        CheckRow(row, src, count, offset, (offset * 7) % 5, CastOptions{});
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace tensorcast
