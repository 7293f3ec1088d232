// QuantizeLinear / DequantizeLinear on every compiled Highway target (test/target_loop.h)
// against the exact scalar reference (lib/reference/quantize_reference.cc), bit for bit:
// every code of each source type of at most 16 bits (FLOAT16, BFLOAT16 and each quantized
// type) under many scales, and random plus adversarial float32 and int32 inputs; every
// granularity (per tensor, per axis on each axis, blocked with partial blocks, inner and
// contiguous axes, chunk boundaries) and every output type; threads against one thread.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lib/quantize_plan.h"
#include "lib/reference/quantize_reference.h"
#include "lib/reference/reference_cast.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"
#include "tensorcast/quantize.h"
#include "tensorcast/runner.h"
#include "test/target_loop.h"

namespace tensorcast {
namespace {

using T = DataType;

// A tensor held as codes, stored packed as the API takes it.
struct Tensor {
  T type = T::kUndefined;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  Tensor() = default;
  Tensor(T t, std::vector<int64_t> s, const std::vector<uint64_t>& codes)
      : type(t), shape(std::move(s)), bytes(StorageBytes(t, codes.size()) + 1) {
    for (size_t i = 0; i < codes.size(); ++i)
      reference::StoreCode(bytes.data(), Facts(t).bits, i, codes[i]);
  }
  TensorView view() const {
    TensorView v;
    v.data = bytes.data();
    v.type = type;
    v.shape = shape.data();
    v.rank = shape.size();
    return v;
  }
};

uint64_t F32Code(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

std::string Describe(bool quantize, const Tensor& x, const Tensor& s, const Tensor* z, T y,
                     const QuantizeAttributes& a) {
  std::string d = std::string(quantize ? "QuantizeLinear" : "DequantizeLinear") + " x " +
                  DataTypeName(x.type) + "[";
  for (int64_t v : x.shape) d += std::to_string(v) + ",";
  d += "] scale " + std::string(DataTypeName(s.type)) + "[";
  for (int64_t v : s.shape) d += std::to_string(v) + ",";
  d += "]";
  if (z != nullptr) d += " zero point " + std::string(DataTypeName(z->type));
  d += std::string(" -> ") + DataTypeName(y) + " axis " + std::to_string(a.axis) + " block " +
       std::to_string(a.block_size) + (a.saturate ? "" : " saturate=0");
  return d;
}

// Runs the call through the reference once and through the public function on every target;
// the outputs must be the same bytes, and the bytes after y untouched.
void Check(test::TargetLoop& loop, bool quantize, const Tensor& x, const Tensor& s, const Tensor* z,
           T y_type, QuantizeAttributes a) {
  SCOPED_TRACE(Describe(quantize, x, s, z, y_type, a));
  const TensorView zv = z != nullptr ? z->view() : TensorView();
  const size_t n = Count(x.shape);
  const size_t bytes = StorageBytes(y_type, n);
  std::vector<uint8_t> expected(bytes + 8, 0xA5);
  QuantizePlan plan;
  const Status ps = PlanQuantizeCall(quantize, x.view(), s.view(), z != nullptr ? &zv : nullptr,
                                     expected.data(), y_type, a, &plan);
  ASSERT_TRUE(ps.ok()) << ps.message();
  if (quantize) {
    reference::QuantizeLinear(plan, 0, n);
  } else {
    reference::DequantizeLinear(plan, 0, n);
  }
  loop.Run([&] {
    std::vector<uint8_t> got(bytes + 8, 0xA5);
    const Status st = quantize ? QuantizeLinear(x.view(), s.view(), z != nullptr ? &zv : nullptr,
                                                got.data(), y_type, a)
                               : DequantizeLinear(x.view(), s.view(), z != nullptr ? &zv : nullptr,
                                                  got.data(), y_type, a);
    ASSERT_TRUE(st.ok()) << st.message();
    const int bits = Facts(y_type).bits;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t e = reference::LoadCode(expected.data(), bits, i);
      const uint64_t g = reference::LoadCode(got.data(), bits, i);
      if (e != g) {
        ADD_FAILURE() << "element " << i << " of " << n << ": expected code 0x" << std::hex << e
                      << ", got 0x" << g << std::dec;
        return;
      }
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      if (expected[i] != got[i]) {
        ADD_FAILURE() << "byte " << i << " of " << bytes << " (padding or past the end) differs";
        return;
      }
    }
  });
}

const T kQuantized[] = {T::kInt8,         T::kUint8,          T::kInt16,      T::kUint16,
                        T::kInt4,         T::kUint4,          T::kInt2,       T::kUint2,
                        T::kFloat8E4M3FN, T::kFloat8E4M3FNUZ, T::kFloat8E5M2, T::kFloat8E5M2FNUZ,
                        T::kFloat4E2M1,   T::kFloat6E2M3,     T::kFloat6E3M2};

bool IsInt(T t) { return IsInteger(t); }

// A zero point of type t with one element per scale: codes spread over the range.
Tensor ZeroPoint(T t, const std::vector<int64_t>& shape, std::mt19937& rng) {
  std::vector<uint64_t> codes(Count(shape));
  const int bits = Facts(t).bits;
  for (auto& c : codes) c = rng() & ((uint64_t{1} << bits) - 1);
  return Tensor(t, shape, codes);
}

std::vector<float> kScales() {
  return {1.0f,
          0.5f,
          3.0f,
          0.1f,
          1e-3f,
          -2.5f,
          7.0f / 3.0f,
          1e-30f,
          1e30f,
          0.0f,
          -0.0f,
          0x1p-149f,
          std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN(),
          65504.0f};
}

// How many of a list's scales each output type is checked with: every code of the source
// with each, the scales rotating over the output types so that the list is covered. Under
// qemu (the aarch64 runs name their targets) fewer, since the reference is emulated too.
size_t ScalesPerOutput(size_t native) {
  const char* targets = std::getenv("TENSORCAST_TEST_TARGETS");
  return targets != nullptr && *targets != '\0' ? 2 : native;
}

TEST(QuantizeKernel, EveryHalfCodeEveryOutput) {
  test::TargetLoop loop;
  std::mt19937 rng(1);
  const std::vector<float> scales = kScales();
  for (T xt : {T::kFloat16, T::kBfloat16}) {
    std::vector<uint64_t> codes(65536);
    for (uint64_t c = 0; c < 65536; ++c) codes[c] = c;
    const Tensor x(xt, {65536}, codes);
    size_t rotate = xt == T::kFloat16 ? 0 : 7;
    for (T yt : kQuantized) {
      const size_t per = ScalesPerOutput(5);
      for (size_t k = 0; k < per; ++k, ++rotate) {
        const Tensor s(T::kFloat, {}, {F32Code(scales[rotate % scales.size()])});
        QuantizeAttributes a;
        a.output_dtype = yt;
        Check(loop, true, x, s, nullptr, yt, a);
        if (k > 0) continue;
        if (IsInt(yt)) {
          const Tensor z = ZeroPoint(yt, {}, rng);
          Check(loop, true, x, s, &z, yt, QuantizeAttributes());
          continue;
        }
        // Float zero points are +-0: adding one decides the sign of a zero quotient.
        const uint64_t minus_zero = uint64_t{1} << (Facts(yt).bits - 1);
        for (uint64_t zc : {uint64_t{0}, minus_zero}) {
          if (zc != 0 && Facts(yt).nan_style == NanStyle::kFnuz) continue;
          const Tensor z(yt, {}, {zc});
          Check(loop, true, x, s, &z, yt, QuantizeAttributes());
        }
        if (Facts(yt).has_nan || Facts(yt).has_inf) {
          a.saturate = false;
          Check(loop, true, x, s, nullptr, yt, a);
        }
      }
    }
    // Division in the precision of FLOAT16 / BFLOAT16 scales (x's own type here), at the
    // opsets where the scale has x's type (19, 21) and at 28; and FLOAT precision by
    // attribute.
    const uint64_t half_scales[] = {0x3C00, 0x3555, 0x0001, 0x7BFF, 0xC100,
                                    0x0000, 0x7E00, 0x3F80, 0x3EAB};
    const T half_outputs[] = {T::kInt8,       T::kUint16,         T::kInt4,       T::kFloat8E4M3FN,
                              T::kFloat8E5M2, T::kFloat8E5M2FNUZ, T::kFloat4E2M1, T::kFloat6E2M3};
    const size_t per = ScalesPerOutput(3);
    for (size_t o = 0; o < sizeof(half_outputs) / sizeof(half_outputs[0]); ++o) {
      const T yt = half_outputs[o];
      for (size_t k = 0; k < per; ++k) {
        const Tensor s(xt, {}, {half_scales[(o * per + k) % 9]});
        const int opset = k % 2 == 0 || yt == T::kFloat4E2M1 || yt == T::kFloat6E2M3 ? 28 : 21;
        QuantizeAttributes a;
        a.opset = opset;
        a.output_dtype = yt;
        Check(loop, true, x, s, nullptr, yt, a);
        if (k > 0) continue;
        a.opset = 28;
        a.precision = T::kFloat;
        Check(loop, true, x, s, nullptr, yt, a);
        if (IsInt(yt)) {
          const Tensor z = ZeroPoint(yt, {}, rng);
          Check(loop, true, x, s, &z, yt, QuantizeAttributes());
        }
      }
    }
    // E8M0 scales (opset 24+): every exponent class, rotating over five outputs.
    const T e8m0_outputs[] = {T::kInt8, T::kUint4, T::kFloat8E4M3FN, T::kFloat4E2M1,
                              T::kFloat6E3M2};
    size_t o = 0;
    for (uint64_t e : {0u, 1u, 100u, 127u, 130u, 200u, 254u, 255u}) {
      const Tensor s(T::kFloat8E8M0, {}, {e});
      const T yt = e8m0_outputs[o++ % 5];
      QuantizeAttributes a;
      a.output_dtype = yt;
      Check(loop, true, x, s, nullptr, yt, a);
    }
  }
}

// Float32 and int32 inputs: ties of every output at many scales, the saturation bounds
// +- one ulp, specials, and random values.
TEST(QuantizeKernel, Float32AndInt32Inputs) {
  test::TargetLoop loop;
  std::mt19937 rng(2);
  std::vector<uint64_t> f32;
  for (int k = -300; k <= 300; ++k) {
    for (float frac : {0.0f, 0.5f, 0.25f, 0.75f}) {
      const float v = static_cast<float>(k) + (k < 0 ? -frac : frac);
      f32.push_back(F32Code(v));
      f32.push_back(F32Code(std::nextafter(v, 1e9f)));
      f32.push_back(F32Code(std::nextafter(v, -1e9f)));
    }
  }
  for (float v : {65535.5f, 65536.0f, 32767.5f, -32768.5f, 3e9f, -3e9f, 1e30f, -1e30f, 448.0f,
                  464.0f, 465.0f, 57344.0f, 61440.0f, 6.0f, 7.5f, 28.0f, 30.0f, 0x1p-149f}) {
    f32.push_back(F32Code(v));
    f32.push_back(F32Code(-v));
  }
  for (uint32_t c :
       {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x80000000u}) {
    f32.push_back(c);
  }
  for (int i = 0; i < 20000; ++i) f32.push_back(rng());
  const Tensor x(T::kFloat, {static_cast<int64_t>(f32.size())}, f32);
  std::vector<uint64_t> i32;
  for (int64_t v : {0LL, 1LL, -1LL, 16777216LL, 16777217LL, 16777219LL, -16777217LL, 2147483647LL,
                    -2147483648LL, 255LL, 256LL, -129LL}) {
    i32.push_back(static_cast<uint32_t>(v));
  }
  for (int i = 0; i < 5000; ++i) i32.push_back(rng());
  const Tensor xi(T::kInt32, {static_cast<int64_t>(i32.size())}, i32);
  for (uint64_t sc : {uint64_t{0x3C00}, uint64_t{0x2E66}, uint64_t{0x0001}, uint64_t{0xFBFF}}) {
    const Tensor s(T::kFloat16, {}, {sc});  // FLOAT16 precision (23+), or BFLOAT16 by attribute
    for (T yt : {T::kInt8, T::kUint8, T::kInt16, T::kFloat8E4M3FN, T::kFloat4E2M1}) {
      QuantizeAttributes a;
      a.output_dtype = yt;
      Check(loop, true, x, s, nullptr, yt, a);
      Check(loop, true, xi, s, nullptr, yt, a);
      a.precision = T::kBfloat16;
      Check(loop, true, x, s, nullptr, yt, a);
    }
  }
  const std::vector<float> scales = kScales();
  size_t rotate = 0;
  for (T yt : kQuantized) {
    for (size_t k = 0; k < ScalesPerOutput(6); ++k, ++rotate) {
      const Tensor s(T::kFloat, {}, {F32Code(scales[rotate % scales.size()])});
      QuantizeAttributes a;
      a.output_dtype = yt;
      Check(loop, true, x, s, nullptr, yt, a);
      Check(loop, true, xi, s, nullptr, yt, a);
      if (IsInt(yt)) {
        const Tensor z = ZeroPoint(yt, {1}, rng);
        Check(loop, true, x, s, &z, yt, QuantizeAttributes());
      }
    }
  }
}

// The granularities: per axis on every axis (negative too), blocked with partial last
// blocks on every axis, shapes across the chunk size, zero points per scale.
TEST(QuantizeKernel, Granularities) {
  test::TargetLoop loop;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> value(-300.0f, 300.0f);
  std::uniform_real_distribution<float> scale(0.05f, 40.0f);
  const std::vector<std::vector<int64_t>> shapes = {{3, 5, 7}, {2, 1030}, {1030, 3}, {4, 2, 3, 67},
                                                    {1, 2049}, {5},       {0, 4},    {3, 0}};
  for (const auto& shape : shapes) {
    const size_t n = Count(shape);
    std::vector<uint64_t> xc(n), xh(n);
    for (size_t i = 0; i < n; ++i) {
      xc[i] = F32Code(value(rng));
      xh[i] = rng() & 0xFFFF;
    }
    const Tensor x(T::kFloat, shape, xc);
    const Tensor xb(T::kBfloat16, shape, xh);
    const int64_t rank = static_cast<int64_t>(shape.size());
    for (int64_t axis = -rank; axis < rank; ++axis) {
      const size_t ax = static_cast<size_t>(axis < 0 ? axis + rank : axis);
      const int64_t d = shape[ax];
      std::vector<int64_t> blocks = {0};
      for (int64_t b : {1LL, 2LL, 3LL, 7LL, 32LL, 100LL}) {
        if (d > 0 && b <= d) blocks.push_back(b);
      }
      for (int64_t b : blocks) {
        std::vector<int64_t> s_shape;
        if (b == 0) {
          s_shape = {d};
        } else {
          s_shape = shape;
          s_shape[ax] = (d + b - 1) / b;
        }
        std::vector<uint64_t> sc(Count(s_shape));
        for (auto& c : sc) c = F32Code(scale(rng) * (rng() % 7 == 0 ? -1.0f : 1.0f));
        const Tensor s(T::kFloat, s_shape, sc);
        for (T yt : {T::kInt8, T::kUint8, T::kInt4, T::kUint2, T::kInt16, T::kFloat8E4M3FN,
                     T::kFloat4E2M1, T::kFloat6E2M3}) {
          QuantizeAttributes a;
          a.axis = axis;
          a.block_size = b;
          a.output_dtype = yt;
          Check(loop, true, x, s, nullptr, yt, a);
          Check(loop, true, xb, s, nullptr, yt, a);
          if (IsInt(yt)) {
            const Tensor z = ZeroPoint(yt, s_shape, rng);
            Check(loop, true, x, s, &z, yt, a);
            QuantizeAttributes da = a;
            da.output_dtype = T::kUndefined;
            Check(loop, false, Tensor(yt, shape, xh), s, &z, T::kFloat, da);
          }
        }
        for (T out : {T::kFloat, T::kFloat16, T::kBfloat16}) {
          QuantizeAttributes a;
          a.axis = axis;
          a.block_size = b;
          a.output_dtype = out;
          Check(loop, false, Tensor(T::kUint4, shape, xh), s, nullptr, out, a);
          Check(loop, false, Tensor(T::kFloat8E5M2, shape, xh), s, nullptr, out, a);
        }
      }
    }
  }
}

// DequantizeLinear: every code of every quantized type, zero points at the range's ends
// and middle, scales of every kind, each output type.
TEST(DequantizeKernel, EveryCodeEveryOutput) {
  test::TargetLoop loop;
  std::mt19937 rng(4);
  std::vector<Tensor> scales;
  for (float sv : kScales()) {
    scales.emplace_back(T::kFloat, std::vector<int64_t>{}, std::vector<uint64_t>{F32Code(sv)});
  }
  for (uint64_t c : {0x3C00u, 0x0001u, 0x7BFFu, 0xB555u, 0x7E00u}) {
    scales.emplace_back(T::kFloat16, std::vector<int64_t>{}, std::vector<uint64_t>{c});
  }
  for (uint64_t c : {0x3F80u, 0x0001u, 0x7F7Fu, 0xC2AAu, 0x7F80u}) {
    scales.emplace_back(T::kBfloat16, std::vector<int64_t>{}, std::vector<uint64_t>{c});
  }
  for (uint64_t c : {0u, 1u, 127u, 140u, 254u, 255u}) {
    scales.emplace_back(T::kFloat8E8M0, std::vector<int64_t>{}, std::vector<uint64_t>{c});
  }
  size_t rotate = 0;
  for (T xt : kQuantized) {
    const int bits = Facts(xt).bits;
    const size_t n = size_t{1} << bits;
    std::vector<uint64_t> codes(n);
    for (size_t c = 0; c < n; ++c) codes[c] = c;
    const Tensor x(xt, {static_cast<int64_t>(n)}, codes);
    // Every scale for the narrow types; the 16-bit ones rotate through the list.
    const size_t per = bits <= 8 ? scales.size() : ScalesPerOutput(8);
    for (size_t k = 0; k < per; ++k, ++rotate) {
      const Tensor& s = scales[bits <= 8 ? k : rotate % scales.size()];
      for (T out : {T::kFloat, T::kFloat16, T::kBfloat16}) {
        QuantizeAttributes a;
        a.output_dtype = out;
        Check(loop, false, x, s, nullptr, out, a);
        if (IsInt(xt)) {
          const uint64_t mask = (uint64_t{1} << bits) - 1;
          for (uint64_t zc : {uint64_t{0}, mask, mask / 2, mask / 2 + 1}) {
            const Tensor z(xt, {}, {zc});
            Check(loop, false, x, s, &z, out, a);
          }
        } else {
          for (uint64_t zc : {uint64_t{0}, uint64_t{1} << (bits - 1)}) {
            if (zc != 0 && Facts(xt).nan_style == NanStyle::kFnuz) continue;
            const Tensor z(xt, {}, {zc});
            Check(loop, false, x, s, &z, out, a);
          }
        }
      }
    }
  }
}

// Outputs above the streaming threshold are built in L1 and copied with non-temporal
// stores: the same bytes, padding included (the threshold lowered so that small calls take
// that path).
TEST(QuantizeKernel, StreamedOutputs) {
  test::TargetLoop loop;
  const size_t previous = tuning::SetStreamBytesForTest(64);
  std::mt19937 rng(6);
  const std::vector<int64_t> shape = {3, 4103};
  const size_t n = Count(shape);
  std::vector<uint64_t> xc(n), qc(n);
  for (size_t i = 0; i < n; ++i) {
    xc[i] = F32Code(std::uniform_real_distribution<float>(-50, 50)(rng));
    qc[i] = rng() & 0xFF;
  }
  const Tensor x(T::kFloat, shape, xc);
  std::vector<uint64_t> sc(3 * 129);
  for (auto& c : sc) c = F32Code(std::uniform_real_distribution<float>(0.05f, 3.0f)(rng));
  const Tensor s(T::kFloat, {3, 129}, sc);
  for (T yt : {T::kInt8, T::kUint4, T::kFloat8E4M3FN, T::kFloat6E3M2, T::kInt16}) {
    QuantizeAttributes a;
    a.block_size = 32;
    a.output_dtype = yt;
    Check(loop, true, x, s, nullptr, yt, a);
    QuantizeAttributes d;
    d.block_size = 32;
    Check(loop, false, Tensor(yt, shape, qc), s, nullptr, T::kFloat, d);
    d.output_dtype = T::kBfloat16;
    Check(loop, false, Tensor(yt, shape, qc), s, nullptr, T::kBfloat16, d);
  }
  tuning::SetStreamBytesForTest(previous);
}

// Large calls through a runner give the bytes of one thread.
TEST(QuantizeKernel, ThreadsMatchOneThread) {
  std::mt19937 rng(5);
  const size_t n = (size_t{1} << 19) + 77;
  std::vector<uint64_t> xc(n);
  for (auto& c : xc) c = F32Code(std::uniform_real_distribution<float>(-100, 100)(rng));
  const Tensor x(T::kFloat, {static_cast<int64_t>(n / 11), 11},
                 std::vector<uint64_t>(xc.begin(), xc.begin() + n / 11 * 11));
  std::vector<uint64_t> sc((n / 11) * 1);
  for (auto& c : sc) c = F32Code(std::uniform_real_distribution<float>(0.1f, 2.0f)(rng));
  const Tensor s(T::kFloat, {static_cast<int64_t>(n / 11), 1}, sc);
  ThreadPool pool(4);
  for (T yt : {T::kInt4, T::kFloat8E4M3FN, T::kUint8}) {
    QuantizeAttributes a;
    a.axis = 1;
    a.block_size = 11;
    a.output_dtype = yt;
    const size_t bytes = StorageBytes(yt, n / 11 * 11);
    std::vector<uint8_t> one(bytes), many(bytes);
    ASSERT_TRUE(QuantizeLinear(x.view(), s.view(), nullptr, one.data(), yt, a).ok());
    a.runner = pool.runner();
    ASSERT_TRUE(QuantizeLinear(x.view(), s.view(), nullptr, many.data(), yt, a).ok());
    EXPECT_EQ(one, many) << DataTypeName(yt);
    std::vector<uint8_t> back1(n / 11 * 11 * 4), back2(back1.size());
    QuantizeAttributes d = a;
    d.output_dtype = T::kFloat;
    d.runner = nullptr;
    const Tensor q{yt, x.shape, {}};
    TensorView qv = q.view();
    qv.data = one.data();
    ASSERT_TRUE(DequantizeLinear(qv, s.view(), nullptr, back1.data(), T::kFloat, d).ok());
    d.runner = pool.runner();
    ASSERT_TRUE(DequantizeLinear(qv, s.view(), nullptr, back2.data(), T::kFloat, d).ok());
    EXPECT_EQ(back1, back2) << DataTypeName(yt);
  }
}

}  // namespace
}  // namespace tensorcast
