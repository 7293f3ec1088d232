// Split (include/tensorcast/split.h): the ONNX conformance examples (test_split_*),
// property tests against an element-by-element model (concatenating the outputs gives
// the input back) over random shapes of rank 1..6, random axes and sizes with zeros,
// every element type incl. packed 4-/2-bit types with mid-byte boundaries and strings,
// every numeric output in a test::GuardedBuffer; every validation error with its message
// (an invalid call returns an error and writes nothing); the opset helper (SplitSizes)
// incl. the reference's ceil rule for num_outputs. The property tests run on every
// compiled Highway target (test/target_loop.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lib/split_check.h"
#include "lib/tuning.h"
#include "tensorcast/tensorcast.h"
#include "test/target_loop.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using DT = DataType;
using test::Bytes;
using test::GuardedBuffer;
using test::kStringGuard;
using test::TargetLoop;

// ------------------------------------------------------------ helpers

size_t Product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  size_t p = 1;
  for (size_t k = from; k < to; ++k) p *= static_cast<size_t>(dims[k]);
  return p;
}

// Element `i` (bits-wide code) of a packed or byte buffer.
uint64_t GetCode(const uint8_t* p, int bits, size_t i) {
  if (bits < 8) {  // bits [i * bits, (i + 1) * bits): a 6-bit code may cross a byte
    const size_t bit = i * static_cast<size_t>(bits);
    unsigned v = p[bit / 8] >> (bit % 8);
    if (bit % 8 + static_cast<size_t>(bits) > 8)
      v |= static_cast<unsigned>(p[bit / 8 + 1]) << (8 - bit % 8);
    return v & ((1u << bits) - 1);
  }
  return 0;  // whole-byte elements are compared as bytes
}

// A tensor of any type as raw storage (numeric) or strings.
struct Tensor {
  DT type = DT::kFloat;
  size_t count = 0;
  Bytes bytes;                       // numeric storage
  std::vector<std::string> strings;  // STRING
};

Tensor RandomTensor(DT type, size_t count, std::mt19937_64& rng) {
  Tensor t;
  t.type = type;
  t.count = count;
  if (type == DT::kString) {
    t.strings.resize(count);
    for (size_t i = 0; i < count; ++i) {
      // Short (SSO) and long (heap) strings.
      const size_t len = rng() % 3 == 0 ? 20 + rng() % 30 : rng() % 6;
      for (size_t c = 0; c < len; ++c) t.strings[i] += static_cast<char>('a' + rng() % 26);
    }
  } else {
    t.bytes.resize(StorageBytes(type, count));
    // Random padding bits too: they must not leak into the outputs.
    for (uint8_t& b : t.bytes) b = static_cast<uint8_t>(rng());
  }
  return t;
}

// The outputs of one Split call. Numeric outputs are test::GuardedBuffer objects; string outputs
// end in a test::kStringGuard sentinel element.
struct OutputBuffers {
  DT type;
  std::vector<size_t> counts;
  std::vector<GuardedBuffer> raw;                 // numeric outputs
  std::vector<std::vector<std::string>> strings;  // count + 1 sentinel
  std::vector<void*> ptrs;

  // misalign_mod: outputs start at a random offset in [0, misalign_mod) bytes past a
  // 64-byte boundary (1: 64-byte aligned).
  OutputBuffers(DT t, const std::vector<size_t>& c, std::mt19937_64& rng, bool null_empty,
                size_t misalign_mod = 16)
      : type(t), counts(c) {
    const size_t n = counts.size();
    raw.reserve(n);
    strings.resize(n);
    ptrs.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (type == DT::kString) {
        strings[i].assign(counts[i] + 1, std::string("stale value that must be replaced"));
        strings[i].back() = kStringGuard;
        ptrs[i] = strings[i].data();
        raw.emplace_back(0);
      } else {
        raw.push_back(
            GuardedBuffer::AtAddress(StorageBytes(type, counts[i]), 64, rng() % misalign_mod));
        ptrs[i] = raw[i].data();
      }
      if (null_empty && counts[i] == 0) ptrs[i] = nullptr;
    }
  }

  const uint8_t* Data(size_t i) const { return raw[i].data(); }
};

// The model: element (o, j, k) of output i is element (o, offset_i + j, k) of the input.
// Checks the outputs against it, the zero padding of packed outputs, and the guards.

::testing::AssertionResult CheckSplit(const Tensor& in, const std::vector<int64_t>& shape,
                                      size_t axis, const std::vector<int64_t>& sizes,
                                      const OutputBuffers& out) {
  const size_t outer = Product(shape, 0, axis);
  const size_t inner = Product(shape, axis + 1, shape.size());
  const size_t d = static_cast<size_t>(shape[axis]);
  const int bits = BitWidth(in.type);
  const size_t esize = in.type == DT::kString ? 0 : static_cast<size_t>(bits / 8);
  size_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    const size_t s = static_cast<size_t>(sizes[i]);
    const size_t count = outer * s * inner;
    if (in.type == DT::kString) {
      for (size_t o = 0; o < outer; ++o) {
        for (size_t e = 0; e < s * inner; ++e) {
          const std::string& want = in.strings[(o * d + offset) * inner + e];
          const std::string& got = out.strings[i][o * s * inner + e];
          if (got != want) {
            return ::testing::AssertionFailure()
                   << "output " << i << " element " << o * s * inner + e << ": \"" << got
                   << "\" != \"" << want << "\"";
          }
        }
      }
      if (out.strings[i].back() != kStringGuard) {
        return ::testing::AssertionFailure() << "output " << i << ": string guard overwritten";
      }
    } else {
      const size_t data_bytes = StorageBytes(in.type, count);
      const ::testing::AssertionResult guards = out.raw[i].GuardsIntact();
      if (!guards)
        return ::testing::AssertionFailure() << "output " << i << ": " << guards.message();
      const uint8_t* got = out.Data(i);
      for (size_t o = 0; o < outer; ++o) {
        const size_t src0 = (o * d + offset) * inner, dst0 = o * s * inner;
        if (bits < 8) {
          for (size_t e = 0; e < s * inner; ++e) {
            const uint64_t want = GetCode(in.bytes.data(), bits, src0 + e);
            const uint64_t have = GetCode(got, bits, dst0 + e);
            if (want != have) {
              return ::testing::AssertionFailure()
                     << "output " << i << " element " << dst0 + e << ": " << have << " != " << want
                     << " (input element " << src0 + e << ")";
            }
          }
        } else if (s * inner > 0 && std::memcmp(got + dst0 * esize, in.bytes.data() + src0 * esize,
                                                s * inner * esize) != 0) {
          return ::testing::AssertionFailure() << "output " << i << " row " << o << " differs";
        }
      }
      if (bits < 8 && count * static_cast<size_t>(bits) % 8 != 0) {
        const uint8_t last = got[data_bytes - 1];
        const unsigned used = static_cast<unsigned>(count * static_cast<size_t>(bits) % 8);
        if ((last >> used) != 0) {
          return ::testing::AssertionFailure()
                 << "output " << i << ": padding bits of the last byte are not zero ("
                 << static_cast<int>(last) << ")";
        }
      }
    }
    offset += s;
  }
  return ::testing::AssertionSuccess();
}

Status RunSplit(const Tensor& in, const std::vector<int64_t>& shape, int64_t axis,
                const std::vector<int64_t>& sizes, OutputBuffers* out) {
  const void* src = in.type == DT::kString ? static_cast<const void*>(in.strings.data())
                                           : static_cast<const void*>(in.bytes.data());
  return Split(src, in.type, shape.data(), shape.size(), axis, sizes.data(), sizes.size(),
               out->ptrs.data());
}

std::vector<size_t> OutputCounts(const std::vector<int64_t>& shape, size_t axis,
                                 const std::vector<int64_t>& sizes) {
  std::vector<size_t> counts;
  for (int64_t s : sizes) {
    counts.push_back(Product(shape, 0, axis) * static_cast<size_t>(s) *
                     Product(shape, axis + 1, shape.size()));
  }
  return counts;
}

// Random sizes >= 0 summing to d, with zeros, for `n` outputs.
std::vector<int64_t> RandomSizes(int64_t d, size_t n, std::mt19937_64& rng) {
  std::vector<int64_t> cuts = {0, d};
  for (size_t i = 1; i < n; ++i) {
    cuts.push_back(d == 0 ? 0 : static_cast<int64_t>(rng() % static_cast<uint64_t>(d + 1)));
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<int64_t> sizes;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) sizes.push_back(cuts[i + 1] - cuts[i]);
  return sizes;
}

std::vector<DT> AllTypes() {
  std::vector<DT> types;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) types.push_back(static_cast<DT>(code));
  return types;
}

// ------------------------------------------------------------ spec examples

// test_split_* (Split op) of the ONNX conformance data: the node's attributes go through
// SplitSizes, the result through Split; outputs compared exactly.
struct SpecCase {
  const char* name;
  int opset;
  std::vector<int64_t> shape;
  int64_t axis;
  bool has_split;
  std::vector<int64_t> split;
  int64_t num_outputs;  // 0: absent
  std::vector<std::vector<float>> expected;
};

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return v;
}

TEST(SplitSpec, OnnxConformanceExamplesGiveTheExpectedOutputs) {
  const std::vector<SpecCase> cases = {
      {"test_split_1d_uneven_split_opset18",
       18,
       {7},
       0,
       false,
       {},
       4,
       {{1, 2}, {3, 4}, {5, 6}, {7}}},
      {"test_split_2d_uneven_split_opset18",
       18,
       {2, 8},
       1,
       false,
       {},
       3,
       {{1, 2, 3, 9, 10, 11}, {4, 5, 6, 12, 13, 14}, {7, 8, 15, 16}}},
      {"test_split_equal_parts_1d_opset13", 13, {6}, 0, false, {}, 0, {{1, 2}, {3, 4}, {5, 6}}},
      {"test_split_equal_parts_1d_opset18", 18, {6}, 0, false, {}, 3, {{1, 2}, {3, 4}, {5, 6}}},
      {"test_split_equal_parts_2d",
       18,
       {2, 6},
       1,
       false,
       {},
       2,
       {{1, 2, 3, 7, 8, 9}, {4, 5, 6, 10, 11, 12}}},
      {"test_split_equal_parts_2d_opset13",
       13,
       {2, 6},
       1,
       false,
       {},
       0,
       {{1, 2, 3, 7, 8, 9}, {4, 5, 6, 10, 11, 12}}},
      {"test_split_equal_parts_default_axis_opset13",
       13,
       {6},
       0,
       false,
       {},
       0,
       {{1, 2}, {3, 4}, {5, 6}}},
      {"test_split_equal_parts_default_axis_opset18",
       18,
       {6},
       0,
       false,
       {},
       3,
       {{1, 2}, {3, 4}, {5, 6}}},
      {"test_split_variable_parts_1d_opset13", 13, {6}, 0, true, {2, 4}, 0, {{1, 2}, {3, 4, 5, 6}}},
      {"test_split_variable_parts_1d_opset18", 18, {6}, 0, true, {2, 4}, 0, {{1, 2}, {3, 4, 5, 6}}},
      {"test_split_variable_parts_2d_opset13",
       13,
       {2, 6},
       1,
       true,
       {2, 4},
       0,
       {{1, 2, 7, 8}, {3, 4, 5, 6, 9, 10, 11, 12}}},
      {"test_split_variable_parts_2d_opset18",
       18,
       {2, 6},
       1,
       true,
       {2, 4},
       0,
       {{1, 2, 7, 8}, {3, 4, 5, 6, 9, 10, 11, 12}}},
      {"test_split_variable_parts_default_axis_opset13",
       13,
       {6},
       0,
       true,
       {2, 4},
       0,
       {{1, 2}, {3, 4, 5, 6}}},
      {"test_split_variable_parts_default_axis_opset18",
       18,
       {6},
       0,
       true,
       {2, 4},
       0,
       {{1, 2}, {3, 4, 5, 6}}},
      {"test_split_zero_size_splits_opset13", 13, {0}, 0, true, {0, 0, 0}, 0, {{}, {}, {}}},
      {"test_split_zero_size_splits_opset18", 18, {0}, 0, true, {0, 0, 0}, 0, {{}, {}, {}}},
  };
  for (const SpecCase& c : cases) {
    SCOPED_TRACE(c.name);
    SplitAttributes attrs;
    attrs.opset = c.opset;
    attrs.axis = c.axis;
    attrs.has_split = c.has_split;
    attrs.split = c.split.data();
    attrs.split_count = c.split.size();
    attrs.has_num_outputs = c.num_outputs != 0;
    attrs.num_outputs = c.num_outputs;
    attrs.output_count = c.expected.size();
    std::vector<int64_t> sizes(c.expected.size(), -1);
    ASSERT_TRUE(SplitSizes(attrs, c.shape.data(), c.shape.size(), sizes.data()).ok());
    size_t total = 1;
    for (int64_t dim : c.shape) total *= static_cast<size_t>(dim);
    const std::vector<float> input = Iota(total);
    std::vector<std::vector<float>> outs;
    std::vector<void*> ptrs;
    for (const auto& e : c.expected) outs.emplace_back(e.size(), -1.0f);
    for (auto& o : outs) ptrs.push_back(o.data());
    const Status s = Split(input.data(), DT::kFloat, c.shape.data(), c.shape.size(), attrs.axis,
                           sizes.data(), sizes.size(), ptrs.data());
    ASSERT_TRUE(s.ok()) << s.message();
    for (size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(outs[i], c.expected[i]) << "output " << i;
  }
}

// ref: the reference's Split: `split` attribute on [2, 6] along axis 1 (the operator doc's example)
// with a negative axis, and axis 0 of a 3-D tensor.
TEST(SplitSpec, NegativeAxisAndRank3TensorGiveTheExpectedOutputs) {
  const std::vector<float> input = Iota(12);
  const int64_t shape[2] = {2, 6};
  const int64_t sizes[2] = {2, 4};
  std::vector<float> a(4), b(8);
  void* outs[2] = {a.data(), b.data()};
  ASSERT_TRUE(Split(input.data(), DT::kFloat, shape, 2, -1, sizes, 2, outs).ok());
  EXPECT_EQ(a, (std::vector<float>{1, 2, 7, 8}));
  EXPECT_EQ(b, (std::vector<float>{3, 4, 5, 6, 9, 10, 11, 12}));

  const std::vector<float> in3 = Iota(24);
  const int64_t shape3[3] = {2, 3, 4};
  const int64_t sizes3[3] = {1, 0, 2};
  std::vector<float> x(8), z(16);
  void* outs3[3] = {x.data(), nullptr, z.data()};  // the empty output may be null
  ASSERT_TRUE(Split(in3.data(), DT::kFloat, shape3, 3, -2, sizes3, 3, outs3).ok());
  EXPECT_EQ(x, (std::vector<float>{1, 2, 3, 4, 13, 14, 15, 16}));
  EXPECT_EQ(z, (std::vector<float>{5, 6, 7, 8, 9, 10, 11, 12, 17, 18, 19, 20, 21, 22, 23, 24}));
}

// ref: ONNX packing of 4-/2-bit types packing: INT4 [5, 5] (-8..7 wrapping, the Cast conformance
// input) split along axis 1 into 2 + 3: rows of 5 nibbles start mid-byte in the source.
TEST(SplitSpec, Int4OutputsArePackedIndependently) {
  // Elements e = 0..24 with values (e & 15): bytes 0x10, 0x32, ...
  Bytes in(13);
  for (size_t e = 0; e < 25; ++e) in[e / 2] |= static_cast<uint8_t>((e & 15) << (4 * (e % 2)));
  const int64_t shape[2] = {5, 5};
  const int64_t sizes[2] = {2, 3};
  Bytes a(5, 0xFF), b(8, 0xFF);
  void* outs[2] = {a.data(), b.data()};
  ASSERT_TRUE(Split(in.data(), DT::kInt4, shape, 2, 1, sizes, 2, outs).ok());
  // a: elements 0,1, 5,6, 10,11, 15,16, 20,21 -> values 0,1,5,6,10,11,15,0,4,5.
  EXPECT_EQ(a, (Bytes{0x10, 0x65, 0xBA, 0x0F, 0x54}));
  // b: 2,3,4, 7,8,9, 12,13,14, 17,18,19, 22,23,24 -> values 2,3,4,7,8,9,12,13,14,1,2,3,6,7,8;
  // 15 nibbles: the high nibble of the last byte is zero padding.
  EXPECT_EQ(b, (Bytes{0x32, 0x74, 0x98, 0xDC, 0x1E, 0x32, 0x76, 0x08}));
}

TEST(SplitSpec, StringsAreCopied) {
  const std::vector<std::string> in = {"a", "bb", "a string longer than the SSO buffer",
                                       "",  "e",  "f"};
  const int64_t shape[2] = {3, 2};
  const int64_t sizes[2] = {1, 1};
  std::vector<std::string> c0(3, "x"), c1(3, "y");
  void* outs[2] = {c0.data(), c1.data()};
  ASSERT_TRUE(Split(in.data(), DT::kString, shape, 2, 1, sizes, 2, outs).ok());
  EXPECT_EQ(c0, (std::vector<std::string>{"a", "a string longer than the SSO buffer", "e"}));
  EXPECT_EQ(c1, (std::vector<std::string>{"bb", "", "f"}));
}

// ------------------------------------------------------------ property tests

// Random shapes of rank 1..6 (dims 0..6, some larger), random axes (negative too),
// random sizes with zeros, every type; outputs misaligned, guarded, empty ones null.
TEST(SplitProperty, RandomShapesOfEveryTypeMatchTheModelOnEveryTarget) {
  TargetLoop loop;
  loop.Run([] {
    std::mt19937_64 rng(0x5B11Full);
    for (DT type : AllTypes()) {
      SCOPED_TRACE(DataTypeName(type));
      for (int iter = 0; iter < 120; ++iter) {
        const size_t rank = 1 + rng() % 6;
        std::vector<int64_t> shape(rank);
        for (auto& dim : shape) {
          const uint64_t r = rng() % 16;
          dim = static_cast<int64_t>(r == 0 ? 0 : r < 12 ? 1 + rng() % 5 : 1 + rng() % 40);
        }
        // Keep the tensors small: shrink dims until <= 20000 elements.
        while (Product(shape, 0, rank) > 20000) {
          for (auto& dim : shape) dim = (dim + 1) / 2;
        }
        const size_t axis = rng() % rank;
        const int64_t axis_arg = rng() % 2
                                     ? static_cast<int64_t>(axis)
                                     : static_cast<int64_t>(axis) - static_cast<int64_t>(rank);
        const std::vector<int64_t> sizes = RandomSizes(shape[axis], 1 + rng() % 6, rng);
        const Tensor in = RandomTensor(type, Product(shape, 0, rank), rng);
        OutputBuffers out(type, OutputCounts(shape, axis, sizes), rng, rng() % 2 == 0);
        const Status s = RunSplit(in, shape, axis_arg, sizes, &out);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_TRUE(CheckSplit(in, shape, axis, sizes, out))
            << "rank " << rank << " axis " << axis_arg << " iteration " << iter;
      }
    }
  });
}

// Every block length 1..200 bytes (the fixed-size, small and memcpy paths) and every
// split point of a packed row: [37, W] along the last axis, and along axis 0.
TEST(SplitProperty, EveryBlockLengthAndPackedCutMatchesTheModelOnEveryTarget) {
  TargetLoop loop;
  loop.Run([] {
    std::mt19937_64 rng(0xB10Cull);
    for (DT type : {DT::kUint8, DT::kFloat16, DT::kFloat, DT::kComplex128}) {
      SCOPED_TRACE(DataTypeName(type));
      for (int64_t w = 1; w <= 200 / (BitWidth(type) / 8) + 1; ++w) {
        const std::vector<int64_t> shape = {37, w};
        const Tensor in = RandomTensor(type, Product(shape, 0, 2), rng);
        for (size_t axis : {size_t{0}, size_t{1}}) {
          const std::vector<int64_t> sizes = RandomSizes(shape[axis], 1 + rng() % 4, rng);
          OutputBuffers out(type, OutputCounts(shape, axis, sizes), rng, false);
          ASSERT_TRUE(RunSplit(in, shape, static_cast<int64_t>(axis), sizes, &out).ok());
          ASSERT_TRUE(CheckSplit(in, shape, axis, sizes, out)) << "W " << w << " axis " << axis;
        }
      }
    }
    for (DT type : {DT::kInt4, DT::kUint2, DT::kFloat4E2M1, DT::kInt2}) {
      SCOPED_TRACE(DataTypeName(type));
      for (int64_t w = 1; w <= 70; ++w) {
        for (int64_t rows : {int64_t{1}, int64_t{3}, int64_t{20}}) {
          const std::vector<int64_t> shape = {rows, w};
          const Tensor in = RandomTensor(type, Product(shape, 0, 2), rng);
          for (int64_t cut = 0; cut <= w; cut += (w > 20 ? 7 : 1)) {
            const std::vector<int64_t> sizes = {cut, w - cut};
            OutputBuffers out(type, OutputCounts(shape, 1, sizes), rng, false);
            ASSERT_TRUE(RunSplit(in, shape, 1, sizes, &out).ok());
            ASSERT_TRUE(CheckSplit(in, shape, 1, sizes, out))
                << "[" << rows << ", " << w << "] cut " << cut;
          }
        }
      }
    }
  });
}

// Equal splits of short rows into 2..4 blocks of 1, 2, 4 or 8 bytes (the lane
// deinterleave path when aligned, the block loops otherwise), streamed or not.
TEST(SplitProperty, EqualSplitsOfShortRowsMatchTheModelStreamedOrNotOnEveryTarget) {
  std::mt19937_64 rng(0xDE1Aull);
  TargetLoop loop;
  for (size_t threshold : {size_t{0}, size_t{1}}) {  // 0: default, 1: stream everything
    const size_t old = tuning::SetStreamBytesForTest(threshold);
    loop.Run([&] {
      for (DT type : {DT::kUint8, DT::kFloat16, DT::kFloat, DT::kDouble, DT::kComplex64}) {
        for (int64_t parts = 2; parts <= 4; ++parts) {
          for (int64_t per : {int64_t{1}, int64_t{2}}) {
            for (int64_t rows : {int64_t{1}, int64_t{5}, int64_t{67}, int64_t{1500}}) {
              const std::vector<int64_t> shape = {rows, parts * per};
              const Tensor in = RandomTensor(type, Product(shape, 0, 2), rng);
              const std::vector<int64_t> sizes(static_cast<size_t>(parts), per);
              for (size_t mod : {size_t{1}, size_t{16}}) {
                OutputBuffers out(type, OutputCounts(shape, 1, sizes), rng, false, mod);
                ASSERT_TRUE(RunSplit(in, shape, -1, sizes, &out).ok());
                ASSERT_TRUE(CheckSplit(in, shape, 1, sizes, out))
                    << DataTypeName(type) << " rows " << rows << " parts " << parts << " x " << per
                    << " misalign mod " << mod << " threshold " << threshold;
              }
            }
          }
        }
      }
    });
    tuning::SetStreamBytesForTest(old);
  }
}

// Blocks of >= 256 bytes, copied row by row: aligned outputs with blocks that are
// multiples of 32 bytes (the head/tail-free loop), other lengths, misaligned outputs,
// streamed or not.
TEST(SplitProperty, RowByRowBlocksMatchTheModelStreamedOrNotOnEveryTarget) {
  std::mt19937_64 rng(0x20Bull);
  TargetLoop loop;
  for (size_t threshold : {size_t{0}, size_t{1}}) {
    const size_t old = tuning::SetStreamBytesForTest(threshold);
    loop.Run([&] {
      for (int64_t k : {64, 72, 100, 128, 200, 257}) {
        const std::vector<int64_t> shape = {2, 9, 4 * k};
        const Tensor in = RandomTensor(DT::kFloat, Product(shape, 0, 3), rng);
        for (const std::vector<int64_t>& sizes :
             {std::vector<int64_t>{k, k, k, k}, std::vector<int64_t>{k + 8, k - 8, 2 * k}}) {
          for (size_t mod : {size_t{1}, size_t{64}}) {
            OutputBuffers out(DT::kFloat, OutputCounts(shape, 2, sizes), rng, false, mod);
            ASSERT_TRUE(RunSplit(in, shape, 2, sizes, &out).ok());
            ASSERT_TRUE(CheckSplit(in, shape, 2, sizes, out))
                << "k " << k << " mod " << mod << " threshold " << threshold;
          }
        }
      }
    });
    tuning::SetStreamBytesForTest(old);
  }
}

// Long packed runs (the vector funnel-shift loop) with every source/destination bit phase.
TEST(SplitProperty, LongPackedRunsMatchTheModelAtEveryBitPhaseOnEveryTarget) {
  TargetLoop loop;
  loop.Run([] {
    std::mt19937_64 rng(0x1417ull);
    for (DT type : {DT::kInt4, DT::kInt2}) {
      for (int64_t first = 0; first < 9; ++first) {
        const std::vector<int64_t> shape = {3, 1500 + first};
        const Tensor in = RandomTensor(type, Product(shape, 0, 2), rng);
        const std::vector<int64_t> sizes = {first, 700, 1, 799};
        OutputBuffers out(type, OutputCounts(shape, 1, sizes), rng, false);
        ASSERT_TRUE(RunSplit(in, shape, 1, sizes, &out).ok());
        ASSERT_TRUE(CheckSplit(in, shape, 1, sizes, out)) << DataTypeName(type) << " " << first;
        // Axis 0: one long run per output.
        const std::vector<int64_t> sizes0 = {1, 0, 2};
        OutputBuffers out0(type, OutputCounts(shape, 0, sizes0), rng, false);
        ASSERT_TRUE(RunSplit(in, shape, 0, sizes0, &out0).ok());
        ASSERT_TRUE(CheckSplit(in, shape, 0, sizes0, out0));
      }
    }
  });
}

// The non-temporal store path (normally for sources >= 16 MiB), forced on through the
// test hook: misaligned outputs, blocks that are not multiples of a vector, the
// streamed and the normal block sizes mixed, every target.
TEST(SplitProperty, StreamedOutputsMatchTheModelOnEveryTarget) {
  const size_t old = tuning::SetStreamBytesForTest(1);
  std::mt19937_64 rng(0xB16ull);
  // Long rows (blocks streamed directly) and short rows (small blocks gathered in a
  // stage, then streamed as one run).
  const int64_t kRowBytes[] = {3000, 64, 36};
  TargetLoop loop;
  loop.Run([&] {
    for (DT type : {DT::kFloat, DT::kUint8, DT::kComplex128}) {
      for (int64_t row_bytes : kRowBytes) {
        const std::vector<int64_t> shape = {15000 / row_bytes, row_bytes / (BitWidth(type) / 8)};
        const Tensor in = RandomTensor(type, Product(shape, 0, 2), rng);
        for (size_t axis : {size_t{0}, size_t{1}}) {
          for (int iter = 0; iter < 10; ++iter) {
            const std::vector<int64_t> sizes = RandomSizes(shape[axis], 1 + rng() % 5, rng);
            OutputBuffers out(type, OutputCounts(shape, axis, sizes), rng, true);
            ASSERT_TRUE(RunSplit(in, shape, static_cast<int64_t>(axis), sizes, &out).ok());
            ASSERT_TRUE(CheckSplit(in, shape, axis, sizes, out))
                << DataTypeName(type) << " [" << shape[0] << ", " << shape[1] << "] axis " << axis;
          }
        }
      }
    }
  });
  tuning::SetStreamBytesForTest(old);
}

// ------------------------------------------------------------ validation errors

class SplitErrors : public ::testing::Test {
 protected:
  // A valid call on FLOAT [2, 6] along axis 1 into 2 + 4; tests break one argument.
  std::vector<float> input = Iota(12);
  std::vector<int64_t> shape = {2, 6};
  std::vector<int64_t> sizes = {2, 4};
  std::vector<float> a = std::vector<float>(4, -1.0f), b = std::vector<float>(8, -1.0f);
  std::vector<void*> outs = {a.data(), b.data()};

  Status Call(DT type = DT::kFloat, int64_t axis = 1) {
    return Split(input.data(), type, shape.data(), shape.size(), axis, sizes.data(), sizes.size(),
                 outs.data());
  }
  void ExpectError(const Status& s, StatusCode code, const std::vector<std::string>& parts) {
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), code) << s.message();
    for (const std::string& p : parts) {
      EXPECT_NE(s.message().find(p), std::string::npos)
          << "\"" << s.message() << "\" lacks \"" << p << "\"";
    }
    // Nothing written.
    EXPECT_EQ(a, std::vector<float>(4, -1.0f));
    EXPECT_EQ(b, std::vector<float>(8, -1.0f));
  }
};

TEST_F(SplitErrors, ValidCallSucceeds) {
  ASSERT_TRUE(Call().ok());
  EXPECT_EQ(a, (std::vector<float>{1, 2, 7, 8}));
}

TEST_F(SplitErrors, UnknownTypeCode) {
  ExpectError(Call(static_cast<DT>(0)), StatusCode::kInvalidArgument, {"unknown data type code 0"});
  ExpectError(Call(static_cast<DT>(29)), StatusCode::kInvalidArgument,
              {"unknown data type code 29"});
  ExpectError(Call(static_cast<DT>(-3)), StatusCode::kInvalidArgument,
              {"unknown data type code -3"});
}

TEST_F(SplitErrors, RankZero) {
  ExpectError(Split(input.data(), DT::kFloat, shape.data(), 0, 0, sizes.data(), 2, outs.data()),
              StatusCode::kInvalidArgument, {"rank is 0"});
}

TEST_F(SplitErrors, NullPointers) {
  ExpectError(Split(input.data(), DT::kFloat, nullptr, 2, 1, sizes.data(), 2, outs.data()),
              StatusCode::kInvalidArgument, {"shape is null", "rank 2"});
  ExpectError(Split(input.data(), DT::kFloat, shape.data(), 2, 1, nullptr, 2, outs.data()),
              StatusCode::kInvalidArgument, {"sizes is null", "num_outputs 2"});
  ExpectError(Split(input.data(), DT::kFloat, shape.data(), 2, 1, sizes.data(), 2, nullptr),
              StatusCode::kInvalidArgument, {"outputs is null", "num_outputs 2"});
  ExpectError(Split(nullptr, DT::kFloat, shape.data(), 2, 1, sizes.data(), 2, outs.data()),
              StatusCode::kInvalidArgument, {"src is null", "12 elements"});
  outs[1] = nullptr;
  ExpectError(Call(), StatusCode::kInvalidArgument, {"outputs[1] is null", "8 elements"});
}

TEST_F(SplitErrors, NullIsFineForEmptyTensors) {
  // An empty output may be null; an empty input may be null too.
  sizes = {6, 0};
  std::vector<float> all(12, -1.0f);
  outs = {all.data(), nullptr};
  ASSERT_TRUE(Call().ok());
  EXPECT_EQ(all, input);
  const int64_t empty_shape[3] = {4, 0, 3};
  const int64_t empty_sizes[2] = {1, 3};
  void* nulls[2] = {nullptr, nullptr};
  EXPECT_TRUE(Split(nullptr, DT::kString, empty_shape, 3, 0, empty_sizes, 2, nulls).ok());
  // Huge dimensions are fine when another one is 0.
  const int64_t huge[3] = {int64_t{1} << 62, int64_t{1} << 62, 0};
  const int64_t huge_sizes[1] = {int64_t{1} << 62};
  EXPECT_TRUE(Split(nullptr, DT::kDouble, huge, 3, 0, huge_sizes, 1, nulls).ok());
  EXPECT_TRUE(Split(nullptr, DT::kInt4, huge, 3, 1, huge_sizes, 1, nulls).ok());
}

TEST_F(SplitErrors, NegativeDimension) {
  shape = {2, -6};
  ExpectError(Call(), StatusCode::kInvalidArgument, {"shape[1] is -6"});
}

TEST_F(SplitErrors, AxisOutOfRange) {
  ExpectError(Call(DT::kFloat, 2), StatusCode::kInvalidArgument,
              {"axis 2 is out of range for rank 2", "-2 to 1"});
  ExpectError(Call(DT::kFloat, -3), StatusCode::kInvalidArgument, {"axis -3", "rank 2"});
  ExpectError(Call(DT::kFloat, std::numeric_limits<int64_t>::min()), StatusCode::kInvalidArgument,
              {"axis -9223372036854775808"});
  ExpectError(Call(DT::kFloat, std::numeric_limits<int64_t>::max()), StatusCode::kInvalidArgument,
              {"axis 9223372036854775807"});
  // In range: -2 is axis 0.
  sizes = {1, 1};
  std::vector<float> all(12, -1.0f);
  outs = {all.data(), all.data() + 6};
  EXPECT_TRUE(Call(DT::kFloat, -2).ok());
  EXPECT_EQ(all, input);
}

TEST_F(SplitErrors, NumOutputsZero) {
  ExpectError(Split(input.data(), DT::kFloat, shape.data(), 2, 1, sizes.data(), 0, outs.data()),
              StatusCode::kInvalidArgument, {"num_outputs is 0"});
}

TEST_F(SplitErrors, NegativeSize) {
  sizes = {8, -2};
  ExpectError(Call(), StatusCode::kInvalidArgument, {"sizes[1] is -2", ">= 0"});
}

TEST_F(SplitErrors, SizesDoNotSum) {
  sizes = {2, 3};
  ExpectError(Call(), StatusCode::kInvalidArgument, {"(5)", "axis 1", "length 6"});
  sizes = {4, 4};
  ExpectError(Call(), StatusCode::kInvalidArgument, {"(8)", "length 6"});
  const int64_t big = std::numeric_limits<int64_t>::max();
  sizes = {big, big};
  ExpectError(Call(), StatusCode::kInvalidArgument, {"overflows int64", "length 6"});
}

TEST_F(SplitErrors, ByteCountOverflow) {
  void* nulls[1] = {nullptr};
  // Element count beyond size_t.
  const int64_t s1[2] = {int64_t{1} << 40, int64_t{1} << 40};
  const int64_t z1[1] = {int64_t{1} << 40};
  Status s = Split(input.data(), DT::kFloat, s1, 2, 0, z1, 1, nulls);
  EXPECT_EQ(s.code(), StatusCode::kOverflow) << s.message();
  EXPECT_NE(s.message().find("[1099511627776, 1099511627776]"), std::string::npos) << s.message();
  // Elements fit, bytes do not: 2^62 doubles.
  const int64_t s2[1] = {int64_t{1} << 62};
  s = Split(input.data(), DT::kDouble, s2, 1, 0, s2, 1, nulls);
  EXPECT_EQ(s.code(), StatusCode::kOverflow) << s.message();
  EXPECT_NE(s.message().find("4611686018427387904"), std::string::npos) << s.message();
  // Packed: 2^62 INT4 elements fit in bytes but not as a bit count.
  s = Split(input.data(), DT::kInt4, s2, 1, 0, s2, 1, nulls);
  EXPECT_EQ(s.code(), StatusCode::kOverflow) << s.message();
  EXPECT_NE(s.message().find("INT4"), std::string::npos) << s.message();
  // Strings: 2^62 std::string objects.
  s = Split(input.data(), DT::kString, s2, 1, 0, s2, 1, nulls);
  EXPECT_EQ(s.code(), StatusCode::kOverflow) << s.message();
}

// Split has no rank limit: the dimensions before and after the axis collapse into two
// counts, so any rank >= 1 works whose element count fits in size_t.
TEST(SplitLimits, HighRanksSplitLikeTheirCollapsedShape) {
  // Rank 64: dims of 1 except 3 at index 10, 4 at the axis (40) and 2 at index 63. Element
  // (o, a, i) of the collapsed [3, 4, 2] is o * 8 + a * 2 + i.
  std::vector<int64_t> shape(64, 1);
  shape[10] = 3;
  shape[40] = 4;
  shape[63] = 2;
  const std::vector<float> input = Iota(24);
  const int64_t sizes[2] = {1, 3};
  std::vector<float> a(6, -1.0f), b(18, -1.0f);
  void* outs[2] = {a.data(), b.data()};
  ASSERT_TRUE(Split(input.data(), DT::kFloat, shape.data(), shape.size(), 40, sizes, 2, outs).ok());
  std::vector<float> want_a, want_b;
  for (int o = 0; o < 3; ++o) {
    for (int x = 0; x < 4; ++x) {
      for (int i = 0; i < 2; ++i) (x < 1 ? want_a : want_b).push_back(input[o * 8 + x * 2 + i]);
    }
  }
  EXPECT_EQ(a, want_a);
  EXPECT_EQ(b, want_b);
  // A million dimensions of 1 around the axis.
  std::vector<int64_t> ones(1000000, 1);
  ones[500000] = 24;
  const int64_t halves[2] = {12, 12};
  std::vector<float> c(12, -1.0f), d(12, -1.0f);
  void* outs2[2] = {c.data(), d.data()};
  ASSERT_TRUE(
      Split(input.data(), DT::kFloat, ones.data(), ones.size(), -500000, halves, 2, outs2).ok());
  EXPECT_EQ(c, std::vector<float>(input.begin(), input.begin() + 12));
  EXPECT_EQ(d, std::vector<float>(input.begin() + 12, input.end()));
}

TEST(SplitLimits, AnElementCountBeyondSizeMaxIsAnOverflowAtAnyRank) {
  // 64 dimensions of 2: 2^64 elements.
  const std::vector<int64_t> shape(64, 2);
  const int64_t sizes[2] = {1, 1};
  float x = 0;
  void* outs[2] = {&x, &x};
  const Status s = Split(&x, DT::kFloat, shape.data(), shape.size(), 0, sizes, 2, outs);
  EXPECT_EQ(s.code(), StatusCode::kOverflow) << s.message();
  EXPECT_EQ(x, 0.0f);
}

// ------------------------------------------------------------ opset helper

struct SizesCase {
  int64_t d;
  int64_t n;
  std::vector<int64_t> want;
};

// ref: the reference's Split table: every row, through SplitSizesFromNumOutputs and Split-18
// num_outputs.
TEST(SplitSizesTest, NumOutputsFollowsTheCeilRule) {
  const std::vector<SizesCase> rows = {
      {7, 3, {3, 3, 1}},    {8, 3, {3, 3, 2}},       {7, 4, {2, 2, 2, 1}},
      {6, 4, {2, 2, 2, 0}}, {5, 4, {2, 2, 1, 0}},    {2, 4, {1, 1, 0, 0}},
      {0, 1, {0}},          {0, 3, {0, 0, 0}},       {6, 3, {2, 2, 2}},
      {1, 1, {1}},          {3, 5, {1, 1, 1, 0, 0}}, {10, 4, {3, 3, 3, 1}},
      {9, 4, {3, 3, 3, 0}},
  };
  for (const SizesCase& r : rows) {
    SCOPED_TRACE(std::to_string(r.d) + " into " + std::to_string(r.n));
    std::vector<int64_t> got(static_cast<size_t>(r.n), -7);
    ASSERT_TRUE(SplitSizesFromNumOutputs(r.d, static_cast<size_t>(r.n), got.data()).ok());
    EXPECT_EQ(got, r.want);
    SplitAttributes attrs;
    attrs.opset = 18;
    attrs.axis = -1;
    attrs.has_num_outputs = true;
    attrs.num_outputs = r.n;
    attrs.output_count = static_cast<size_t>(r.n);
    const int64_t shape[2] = {3, r.d};
    std::fill(got.begin(), got.end(), -7);
    ASSERT_TRUE(SplitSizes(attrs, shape, 2, got.data()).ok());
    EXPECT_EQ(got, r.want);
  }
  // Large values stay exact.
  const int64_t big = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> got(3);
  ASSERT_TRUE(SplitSizesFromNumOutputs(big, 3, got.data()).ok());
  EXPECT_EQ(got, (std::vector<int64_t>{big / 3 + 1, big / 3 + 1, big - 2 * (big / 3 + 1)}));
  got.resize(2);
  ASSERT_TRUE(SplitSizesFromNumOutputs(big, 2, got.data()).ok());
  EXPECT_EQ(got[0] + got[1], big);
}

TEST(SplitSizesTest, NumOutputsErrors) {
  int64_t out[2];
  EXPECT_EQ(SplitSizesFromNumOutputs(5, 0, out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SplitSizesFromNumOutputs(-1, 2, out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SplitSizesFromNumOutputs(5, 2, nullptr).code(), StatusCode::kInvalidArgument);
}

TEST(SplitSizesTest, VersionMapsOpsetsToSplitSchemas) {
  EXPECT_EQ(SplitVersion(0), 0);
  EXPECT_EQ(SplitVersion(-5), 0);
  EXPECT_EQ(SplitVersion(1), 1);
  EXPECT_EQ(SplitVersion(2), 2);
  EXPECT_EQ(SplitVersion(10), 2);
  EXPECT_EQ(SplitVersion(11), 11);
  EXPECT_EQ(SplitVersion(12), 11);
  EXPECT_EQ(SplitVersion(13), 13);
  EXPECT_EQ(SplitVersion(17), 13);
  EXPECT_EQ(SplitVersion(18), 18);
  EXPECT_EQ(SplitVersion(25), 18);
}

class SplitSizesCases : public ::testing::Test {
 protected:
  int64_t shape[3] = {4, 6, 5};
  std::vector<int64_t> split;
  std::vector<int64_t> out = std::vector<int64_t>(8, -7);

  SplitAttributes Attrs(int opset, int64_t axis, size_t outputs) {
    SplitAttributes a;
    a.opset = opset;
    a.axis = axis;
    a.output_count = outputs;
    return a;
  }
  SplitAttributes WithSplit(SplitAttributes a, std::vector<int64_t> values) {
    split = std::move(values);
    a.has_split = true;
    a.split = split.data();
    a.split_count = split.size();
    return a;
  }
  std::vector<int64_t> Ok(const SplitAttributes& a) {
    const Status s = SplitSizes(a, shape, 3, out.data());
    EXPECT_TRUE(s.ok()) << s.message();
    std::vector<int64_t> got(out.begin(), out.begin() + static_cast<ptrdiff_t>(a.output_count));
    std::fill(out.begin(), out.end(), -7);
    return got;
  }
  void Error(const SplitAttributes& a, StatusCode code, const std::vector<std::string>& parts) {
    const Status s = SplitSizes(a, shape, 3, out.data());
    EXPECT_EQ(s.code(), code) << s.message();
    for (const std::string& p : parts) {
      EXPECT_NE(s.message().find(p), std::string::npos)
          << "\"" << s.message() << "\" lacks \"" << p << "\"";
    }
    EXPECT_EQ(out, std::vector<int64_t>(8, -7)) << "written on error";
  }
};

TEST_F(SplitSizesCases, EqualPartsBefore18) {
  for (int opset : {1, 2, 7, 11, 13, 17}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(Ok(Attrs(opset, 1, 3)), (std::vector<int64_t>{2, 2, 2}));
    EXPECT_EQ(Ok(Attrs(opset, 0, 4)), (std::vector<int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(Ok(Attrs(opset, -1, 1)), (std::vector<int64_t>{5}));
    // Not divisible: error (shape inference and ORT; the reference would use the ceil rule).
    Error(Attrs(opset, -1, 3), StatusCode::kInvalidArgument,
          {"Split-" + std::to_string(SplitVersion(opset)), "not evenly splittable", "length 5",
           "3 outputs"});
  }
}

TEST_F(SplitSizesCases, SplitValuesEveryVersion) {
  for (int opset : {1, 2, 11, 13, 18, 25}) {
    SCOPED_TRACE(opset);
    EXPECT_EQ(Ok(WithSplit(Attrs(opset, 1, 3), {1, 0, 5})), (std::vector<int64_t>{1, 0, 5}));
    Error(WithSplit(Attrs(opset, 1, 3), {1, 5}), StatusCode::kInvalidArgument,
          {"Mismatch between number of splits (2) and outputs (3)"});
    Error(WithSplit(Attrs(opset, 1, 2), {1, 4}), StatusCode::kInvalidArgument,
          {"Mismatch between the sum of 'split' (5)", "length 6"});
    Error(WithSplit(Attrs(opset, 1, 2), {-1, 7}), StatusCode::kInvalidArgument,
          {"'split'[0] is -1"});
    Error(WithSplit(Attrs(opset, 1, 1), {}), StatusCode::kInvalidArgument,
          {"Mismatch between number of splits (0) and outputs (1)"});
  }
}

TEST_F(SplitSizesCases, Opset18Rules) {
  SplitAttributes a = Attrs(18, 1, 4);
  a.has_num_outputs = true;
  a.num_outputs = 4;
  EXPECT_EQ(Ok(a), (std::vector<int64_t>{2, 2, 2, 0}));
  // Both.
  SplitAttributes both = WithSplit(a, {1, 1, 1, 3});
  Error(both, StatusCode::kInvalidArgument,
        {"Both 'split' input and 'num_outputs' attribute were given"});
  // Neither.
  Error(Attrs(18, 1, 3), StatusCode::kInvalidArgument,
        {"Neither 'split' input nor 'num_outputs' attribute has been given"});
  // num_outputs < 1.
  for (int64_t bad : {int64_t{0}, int64_t{-2}}) {
    SplitAttributes z = Attrs(18, 1, 1);
    z.has_num_outputs = true;
    z.num_outputs = bad;
    Error(z, StatusCode::kInvalidArgument,
          {"cannot be lower than 1", "(got " + std::to_string(bad) + ")"});
  }
  // num_outputs and the output count disagree.
  SplitAttributes m = Attrs(18, 1, 3);
  m.has_num_outputs = true;
  m.num_outputs = 4;
  Error(m, StatusCode::kInvalidArgument, {"(4)", "number of outputs (3)"});
  // num_outputs before 18.
  SplitAttributes old = Attrs(13, 1, 3);
  old.has_num_outputs = true;
  old.num_outputs = 3;
  Error(old, StatusCode::kInvalidArgument, {"num_outputs", "Split-18"});
}

TEST_F(SplitSizesCases, ArgumentErrors) {
  Error(Attrs(0, 0, 2), StatusCode::kUnsupported, {"opset 0"});
  Error(Attrs(13, 3, 2), StatusCode::kInvalidArgument, {"Split-13", "axis 3", "rank 3"});
  Error(Attrs(13, -4, 2), StatusCode::kInvalidArgument, {"axis -4"});
  Error(Attrs(13, 0, 0), StatusCode::kInvalidArgument, {"output_count is 0"});
  SplitAttributes a = Attrs(13, 0, 2);
  EXPECT_EQ(SplitSizes(a, shape, 0, out.data()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SplitSizes(a, nullptr, 3, out.data()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(SplitSizes(a, shape, 3, nullptr).code(), StatusCode::kInvalidArgument);
  shape[2] = -5;
  Error(Attrs(13, 0, 2), StatusCode::kInvalidArgument, {"shape[2] is -5"});
}

}  // namespace
}  // namespace tensorcast
