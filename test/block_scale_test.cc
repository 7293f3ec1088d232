// Block-scaled quantization (tensorcast/block_scale.h) on every compiled Highway target
// (test/target_loop.h) against an independent oracle written from the specifications:
// the element formats decoded from their parameters (sign, exponent bits, mantissa bits,
// bias), the MX scale rules from logarithms (ilogb) and a search, every rounding by exact
// comparisons against midpoints in double. Nothing here shares code with the library's
// arithmetic. Inputs are random plus adversarial blocks: zeros of both signs, NaN, +-Inf,
// float32 subnormals, the largest floats, amax exactly at and just above the element
// format's largest value times a power of two, and elements on rounding ties.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tensorcast/block_scale.h"
#include "tensorcast/cast.h"
#include "tensorcast/runner.h"
#include "test/target_loop.h"
#include "test/test_util.h"

namespace tensorcast {
namespace {

using T = DataType;

float F(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// --- The oracle -------------------------------------------------------------------------------

// A small float format: 1 sign bit, `e` exponent bits, `m` mantissa bits, `bias`; NaN codes
// as the format has them (E4M3FN: magnitude all ones; E5M2: exponent all ones, m != 0;
// none for FP6 / FP4; E5M2's exponent-all-ones codes are not finite).
struct Format {
  int e, m, bias;
  bool fn;    // E4M3FN-style: no Inf, magnitude all ones is NaN
  bool ieee;  // E5M2-style: exponent all ones is Inf / NaN
  int width() const { return 1 + e + m; }
  // The value of magnitude code c (c < 2^(e+m)): infinity or NaN for those codes.
  double Value(uint32_t c) const {
    const uint32_t ef = c >> m, mf = c & ((1u << m) - 1);
    if (fn && c == (1u << (e + m)) - 1) return std::nan("");
    if (ieee && ef == (1u << e) - 1) return mf == 0 ? INFINITY : std::nan("");
    if (ef == 0) return std::ldexp(static_cast<double>(mf), 1 - bias - m);
    return std::ldexp(static_cast<double>(mf + (1u << m)), static_cast<int>(ef) - bias - m);
  }
  // The finite magnitude codes in increasing order.
  std::vector<uint32_t> Finite() const {
    std::vector<uint32_t> v;
    for (uint32_t c = 0; c < (1u << (e + m)); ++c) {
      if (std::isfinite(Value(c))) v.push_back(c);
    }
    return v;
  }
  // Finite(), computed once per format.
  const std::vector<uint32_t>& finite() const {
    if (cache.empty()) cache = Finite();
    return cache;
  }
  mutable std::vector<uint32_t> cache;
  double Max() const { return Value(finite().back()); }
  int Emax() const { return std::ilogb(Max()); }
  // The code of the real number num / den (den > 0, both exact in double and their
  // products with midpoints exact): nearest, ties to the even code, saturating at Max.
  // Sign from num (a zero num keeps its sign).
  uint32_t Encode(double num, double den) const {
    const uint32_t sign = std::signbit(num) ? 1u << (e + m) : 0u;
    const double a = std::fabs(num);
    const std::vector<uint32_t>& codes = finite();
    size_t k = 0, hi = codes.size();  // k: the largest code whose value * den <= a
    while (hi - k > 1) {
      const size_t mid = (k + hi) / 2;
      if (Value(codes[mid]) * den <= a) {
        k = mid;
      } else {
        hi = mid;
      }
    }
    uint32_t c = codes[k];
    if (k + 1 < codes.size()) {
      const double mid = (Value(codes[k]) + Value(codes[k + 1])) / 2 * den;
      if (a > mid || (a == mid && (codes[k] & 1u))) c = codes[k + 1];
    }
    return c | sign;
  }
};

const Format kE4M3{4, 3, 7, true, false, {}};
const Format kE5M2{5, 2, 15, false, true, {}};
const Format kE2M3{2, 3, 1, false, false, {}};
const Format kE3M2{3, 2, 3, false, false, {}};
const Format kE2M1{2, 1, 1, false, false, {}};

struct MxCase {
  BlockFormat format;
  const Format* elem;
  T type;
};
const MxCase kMx[] = {
    {BlockFormat::kMxfp8E4m3, &kE4M3, T::kFloat8E4M3FN},
    {BlockFormat::kMxfp8E5m2, &kE5M2, T::kFloat8E5M2},
    {BlockFormat::kMxfp6E2m3, &kE2M3, T::kFloat6E2M3},
    {BlockFormat::kMxfp6E3m2, &kE3M2, T::kFloat6E3M2},
    {BlockFormat::kMxfp4, &kE2M1, T::kFloat4E2M1},
};

// The code of a NaN quotient with the given sign in the element format (Cast's rules:
// E4M3FN 0x7F | sign, E5M2 0x7E | sign; FP6 / FP4 have no NaN: a zero with the sign
// flipped).
uint32_t NanCode(const Format& f, bool negative) {
  const uint32_t sign = 1u << (f.e + f.m);
  if (f.fn) return 0x7F | (negative ? sign : 0);
  if (f.ieee) return 0x7E | (negative ? sign : 0);
  return negative ? 0 : sign;
}

// The OCP MX scale exponent of a block (amax finite, >= 0); floor or rceil.
int MxExponent(double amax, const Format& f, bool rceil) {
  if (amax == 0) return -127;
  int e = std::ilogb(amax) - f.Emax();
  if (rceil) {
    e -= 2;
    while (std::ldexp(amax, -e) > f.Max()) ++e;
  }
  return e < -127 ? -127 : e > 127 ? 127 : e;
}

// Elements and scale codes of one MX quantization, computed block by block.
void MxOracle(const std::vector<float>& x, const std::vector<int64_t>& shape, size_t axis,
              size_t block, const Format& f, bool rceil, std::vector<uint32_t>* codes,
              std::vector<uint8_t>* scales) {
  size_t outer = 1, inner = 1;
  for (size_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(shape[i]);
  for (size_t i = axis + 1; i < shape.size(); ++i) inner *= static_cast<size_t>(shape[i]);
  const size_t dim = static_cast<size_t>(shape[axis]);
  const size_t blocks = (dim + block - 1) / block;
  codes->assign(x.size(), 0);
  scales->assign(outer * blocks * inner, 0);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t b = 0; b < blocks; ++b) {
      for (size_t i = 0; i < inner; ++i) {
        double amax = 0;
        bool special = false;
        const size_t a1 = std::min(dim, (b + 1) * block);
        for (size_t a = b * block; a < a1; ++a) {
          const float v = x[(o * dim + a) * inner + i];
          if (!std::isfinite(v)) special = true;
          amax = std::max(amax, std::fabs(static_cast<double>(v)));
        }
        const size_t si = (o * blocks + b) * inner + i;
        const int e = special ? 0 : MxExponent(amax, f, rceil);
        (*scales)[si] = special ? 0xFF : static_cast<uint8_t>(e + 127);
        for (size_t a = b * block; a < a1; ++a) {
          const size_t xi = (o * dim + a) * inner + i;
          const float v = x[xi];
          if (special) {
            // x / NaN: x's NaN when x is NaN, else the scale's positive NaN.
            (*codes)[xi] = NanCode(f, std::isnan(v) && std::signbit(v));
          } else {
            (*codes)[xi] = f.Encode(static_cast<double>(v), std::ldexp(1.0, e));
          }
        }
      }
    }
  }
}

// --- Tensors ---------------------------------------------------------------------------------

uint32_t LoadCode(const std::vector<uint8_t>& bytes, int bits, size_t i) {
  const size_t bit = i * static_cast<size_t>(bits);
  uint32_t v = 0;
  for (int k = 0; k < bits; ++k) {
    const size_t b = bit + static_cast<size_t>(k);
    v |= static_cast<uint32_t>((bytes[b / 8] >> (b % 8)) & 1u) << k;
  }
  return v;
}

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

// Random values with adversarial blocks mixed in, for an element format f.
std::vector<float> Inputs(size_t n, const Format& f, std::mt19937& rng, bool specials) {
  std::vector<float> x(n);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> ex(-20, 20);
  const std::vector<uint32_t> fin = f.Finite();
  for (size_t i = 0; i < n; ++i) {
    const int kind = static_cast<int>(rng() % 16);
    const int e = ex(rng);
    switch (kind) {
      case 0: x[i] = 0.0f; break;
      case 1: x[i] = -0.0f; break;
      case 2: {  // a rounding tie of the element format, scaled
        const size_t k = rng() % (fin.size() - 1);
        const double mid = (f.Value(fin[k]) + f.Value(fin[k + 1])) / 2;
        x[i] = static_cast<float>(std::ldexp(mid, e)) * (rng() & 1 ? -1.0f : 1.0f);
        break;
      }
      case 3:  // the largest element value scaled, exactly or one ulp above
        x[i] = static_cast<float>(std::ldexp(f.Max(), e));
        if (rng() & 1) x[i] = std::nextafter(x[i], INFINITY);
        break;
      case 4: x[i] = F(static_cast<uint32_t>(rng() % 0x00800000u)); break;  // subnormal
      case 7:  // halfway between the largest value and the next step of its binade, scaled
        x[i] = static_cast<float>(std::ldexp(f.Max() + std::ldexp(1.0, f.Emax() - f.m) / 2, e)) *
               (rng() & 1 ? -1.0f : 1.0f);
        break;
      case 5: x[i] = F(0x7F7FFFFFu - static_cast<uint32_t>(rng() % 1000)); break;
      case 6:
        if (specials) {
          const int s = static_cast<int>(rng() % 4);
          x[i] = s == 0   ? INFINITY
                 : s == 1 ? -INFINITY
                 : s == 2 ? F(0x7FC00000u | static_cast<uint32_t>(rng() % 100))
                          : F(0xFFC00123u);
        } else {
          x[i] = 1.0f;
        }
        break;
      default: x[i] = std::ldexp(u(rng), e);
    }
  }
  // Runs of whole blocks of one kind: all zero, all tiny.
  for (size_t i = 0; i + 64 <= n; i += 997) {
    const bool zero = (i / 997) % 2 == 0;
    for (size_t j = 0; j < 32; ++j) x[i + j] = zero ? (j % 3 ? 0.0f : -0.0f) : F(1u + j);
  }
  return x;
}

// x's values as the given input type (exact: the values are taken from that type).
std::vector<uint8_t> Store(const std::vector<float>& x, T type) {
  std::vector<uint8_t> out(StorageBytes(type, x.size()));
  if (x.empty()) return out;  // (memcpy takes no null pointer, even for 0 bytes)
  if (type == T::kFloat) {
    std::memcpy(out.data(), x.data(), x.size() * 4);
  } else {
    EXPECT_TRUE(Cast(x.data(), T::kFloat, out.data(), type, x.size()).ok());
  }
  return out;
}
std::vector<float> Load(const std::vector<uint8_t>& bytes, T type, size_t n) {
  std::vector<float> out(n);
  EXPECT_TRUE(Cast(bytes.data(), type, out.data(), T::kFloat, n).ok());
  return out;
}

// --- MX ---------------------------------------------------------------------------------------

struct Shape {
  std::vector<int64_t> dims;
  int64_t axis;
  int64_t block;
};

TEST(BlockScale, MxMatchesTheOracleOnEveryTarget) {
  test::TargetLoop loop;
  std::mt19937 rng(11);
  const std::vector<Shape> shapes = {
      {{4096 * 2 + 96}, -1, 32}, {{37, 70}, 1, 32},   {{3, 4100}, -1, 32}, {{9, 33}, 1, 7},
      {{70, 5}, 0, 32},          {{2, 40, 3}, 1, 16}, {{5, 64}, 1, 64},    {{1, 1}, 0, 32},
      {{6, 100}, 1, 1},          {{0, 32}, 1, 32}};
  for (const MxCase& mx : kMx) {
    const int bits = static_cast<int>(StorageBytes(mx.type, 8));  // bits per element
    for (const Shape& sh : shapes) {
      const size_t n = Count(sh.dims);
      for (int variant = 0; variant < 5; ++variant) {
        // 0-2: FLOAT, BFLOAT16, FLOAT16 with NaN and infinities; 3: FLOAT without them
        // (the chunks of the one-pass kernels that hold no NaN block); 4: as 3, with runs
        // of 32 elements that are all zeros, all float32 subnormals, scaled down to
        // subnormals and zeros, or scaled up (the scale's clamps and its subnormal amax).
        const T in = variant == 1 ? T::kBfloat16 : variant == 2 ? T::kFloat16 : T::kFloat;
        if (in != T::kFloat && n > 2000) continue;
        std::vector<float> x = Inputs(n, *mx.elem, rng, variant < 3);
        for (size_t i = 0; variant == 4 && i < n; ++i) {
          const float up = std::ldexp(x[i], 60);
          switch (i / 32 % 5) {
            case 0: x[i] = i & 1 ? 0.0f : -0.0f; break;
            case 1: x[i] = F(static_cast<uint32_t>(rng() % 0x00800000u) | (i & 2u) << 30); break;
            case 2: x[i] = std::ldexp(x[i], -120); break;
            case 3: x[i] = std::isfinite(up) ? up : x[i]; break;
            default: break;
          }
        }
        std::vector<uint8_t> stored = Store(x, in);
        x = Load(stored, in, n);  // the values the call sees
        const size_t axis = static_cast<size_t>(
            sh.axis < 0 ? sh.axis + static_cast<int64_t>(sh.dims.size()) : sh.axis);
        for (ScaleRule rule : {ScaleRule::kFloor, ScaleRule::kRceil}) {
          std::vector<uint32_t> want;
          std::vector<uint8_t> want_scales;
          MxOracle(x, sh.dims, axis, static_cast<size_t>(sh.block), *mx.elem,
                   rule == ScaleRule::kRceil, &want, &want_scales);
          BlockScaleOptions o;
          o.axis = sh.axis;
          o.block_size = sh.block;
          o.scale_rule = rule;
          size_t count = 0;
          ASSERT_TRUE(BlockScaleCount(sh.dims.data(), sh.dims.size(), o, mx.format, &count).ok());
          ASSERT_EQ(count, want_scales.size());
          const TensorView xv{stored.data(), in, sh.dims.data(), sh.dims.size()};
          loop.Run([&] {
            std::vector<uint8_t> codes(StorageBytes(mx.type, n) + 1, 0xAA);
            std::vector<uint8_t> scales(count + 1, 0xAA);
            const Status s = QuantizeMx(xv, mx.format, codes.data(), scales.data(), o);
            ASSERT_TRUE(s.ok()) << s.message();
            for (size_t i = 0; i < count; ++i) {
              ASSERT_EQ(scales[i], want_scales[i])
                  << BlockFormatName(mx.format) << " scale " << i << " input " << DataTypeName(in)
                  << " rule " << static_cast<int>(rule);
            }
            EXPECT_EQ(scales[count], 0xAA);
            EXPECT_EQ(codes.back(), 0xAA);
            for (size_t i = 0; i < n; ++i) {
              ASSERT_EQ(LoadCode(codes, bits, i), want[i])
                  << BlockFormatName(mx.format) << " element " << i << " x=" << x[i] << " input "
                  << DataTypeName(in) << " rule " << static_cast<int>(rule) << " shape axis "
                  << sh.axis << " block " << sh.block;
            }
          });
        }
      }
    }
  }
}

// Dequantization: code * 2^e rounded once to FLOAT (exact here: every product fits).
TEST(BlockScale, MxDequantizesToCodeTimesScale) {
  test::TargetLoop loop;
  std::mt19937 rng(12);
  for (const MxCase& mx : kMx) {
    const int bits = static_cast<int>(StorageBytes(mx.type, 8));
    const std::vector<int64_t> shape = {7, 96};
    const size_t n = Count(shape);
    std::vector<uint8_t> codes(StorageBytes(mx.type, n));
    for (auto& c : codes) c = static_cast<uint8_t>(rng());
    std::vector<uint8_t> scales(7 * 3);
    for (auto& s : scales) s = static_cast<uint8_t>(rng() % 256);
    scales[0] = 0xFF;
    scales[1] = 0x00;
    scales[2] = 0xFE;
    const TensorView cv{codes.data(), mx.type, shape.data(), 2};
    loop.Run([&] {
      std::vector<float> y(n);
      const Status s = DequantizeMx(cv, scales.data(), mx.format, y.data(), T::kFloat);
      ASSERT_TRUE(s.ok()) << s.message();
      for (size_t i = 0; i < n; ++i) {
        const uint32_t c = LoadCode(codes, bits, i);
        const uint32_t mag = c & ((1u << (mx.elem->e + mx.elem->m)) - 1);
        const uint8_t sc = scales[(i / 96) * 3 + (i % 96) / 32];
        double v = mx.elem->Value(mag);
        if (c != mag) v = -v;
        const double want = sc == 0xFF ? std::nan("") : std::ldexp(v, sc - 127);
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(y[i])) << BlockFormatName(mx.format) << " element " << i
                                        << " code " << c << " scale " << int{sc} << " y " << y[i];
        } else {
          ASSERT_EQ(Bits(y[i]), Bits(static_cast<float>(want)))
              << BlockFormatName(mx.format) << " element " << i << " code " << c << " scale "
              << int{sc};
        }
      }
    });
  }
}

// --- NVFP4 ------------------------------------------------------------------------------------

TEST(BlockScale, Nvfp4MatchesTheOracleOnEveryTarget) {
  test::TargetLoop loop;
  std::mt19937 rng(13);
  // [5, 160] and [3, 4608] along the last axis take the one-pass path (the second over
  // several chunks, and streamed when the threshold is lowered); the others the general one.
  const std::vector<Shape> shapes = {
      {{5, 160}, 1, 16}, {{3, 4608}, 1, 16}, {{4100}, 0, 16}, {{48, 3}, 0, 16}, {{3, 50}, 1, 16}};
  for (const Shape& sh : shapes) {
    const size_t n = Count(sh.dims);
    for (int variant = 0; variant < 4; ++variant) {
      // Variant 3: values drawn as for variant 0, with the output streamed (non-temporal
      // stores from 64 bytes on).
      const test::StreamBytesOverride stream_override(variant == 3 ? 64 : 0);
      std::vector<float> x = Inputs(n, kE2M1, rng, variant == 2);
      if (variant == 1) {  // a wide range: some blocks far below the tensor's amax
        for (size_t i = 0; i < n; ++i) x[i] *= std::ldexp(1.0f, static_cast<int>(i % 40) - 20);
      }
      const size_t axis = static_cast<size_t>(sh.axis);
      size_t outer = 1, inner = 1;
      for (size_t i = 0; i < axis; ++i) outer *= static_cast<size_t>(sh.dims[i]);
      for (size_t i = axis + 1; i < sh.dims.size(); ++i) inner *= static_cast<size_t>(sh.dims[i]);
      const size_t dim = static_cast<size_t>(sh.dims[axis]), blocks = (dim + 15) / 16;
      // The tensor scale: largest finite |x| / 2688, at least 2^-126; 1 for amax 0.
      float amax_t = 0;
      for (float v : x) {
        if (std::isfinite(v)) amax_t = std::max(amax_t, std::fabs(v));
      }
      const float g = amax_t == 0 ? 1.0f : std::max(amax_t / 2688.0f, std::ldexp(1.0f, -126));
      std::vector<uint8_t> want_scales(outer * blocks * inner);
      std::vector<uint32_t> want(n);
      for (size_t o = 0; o < outer; ++o) {
        for (size_t b = 0; b < blocks; ++b) {
          for (size_t i = 0; i < inner; ++i) {
            double amax = 0;
            bool special = false;
            const size_t a1 = std::min(dim, (b + 1) * 16);
            for (size_t a = b * 16; a < a1; ++a) {
              const float v = x[(o * dim + a) * inner + i];
              special |= !std::isfinite(v);
              amax = std::max(amax, std::fabs(static_cast<double>(v)));
            }
            uint32_t code = special ? 0x7F : kE4M3.Encode(amax, 6.0 * g);
            if (!special && code == 0) code = 1;
            want_scales[(o * blocks + b) * inner + i] = static_cast<uint8_t>(code);
            const float S = special ? NAN : static_cast<float>(kE4M3.Value(code) * g);
            for (size_t a = b * 16; a < a1; ++a) {
              const size_t xi = (o * dim + a) * inner + i;
              // QuantizeLinear with a FLOAT scale: the float32 quotient, then E2M1.
              want[xi] = special ? NanCode(kE2M1, std::isnan(x[xi]) && std::signbit(x[xi]))
                                 : kE2M1.Encode(static_cast<double>(x[xi] / S), 1.0);
            }
          }
        }
      }
      const TensorView xv{x.data(), T::kFloat, sh.dims.data(), sh.dims.size()};
      BlockScaleOptions o;
      o.axis = sh.axis;
      loop.Run([&] {
        std::vector<uint8_t> codes(StorageBytes(T::kFloat4E2M1, n)), scales(want_scales.size());
        float got_g = 0;
        const Status s = QuantizeNvfp4(xv, codes.data(), scales.data(), &got_g, false, o);
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_EQ(Bits(got_g), Bits(g));
        ASSERT_EQ(scales, want_scales);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(LoadCode(codes, 4, i), want[i]) << i << " " << x[i];
        // Dequantization: code * S rounded once to FLOAT.
        std::vector<float> y(n);
        const TensorView cv{codes.data(), T::kFloat4E2M1, sh.dims.data(), sh.dims.size()};
        ASSERT_TRUE(DequantizeNvfp4(cv, scales.data(), g, y.data(), T::kFloat, o).ok());
        for (size_t i = 0; i < n; ++i) {
          const size_t a = (i / inner) % dim,
                       si = ((i / inner / dim) * blocks + a / 16) * inner + i % inner;
          const uint8_t sc = scales[si];
          const double S = sc == 0x7F ? NAN : static_cast<float>(kE4M3.Value(sc) * g);
          const uint32_t c = LoadCode(codes, 4, i);
          const double v = (c & 8 ? -1 : 1) * kE2M1.Value(c & 7);
          const float w = static_cast<float>(v * S);
          if (std::isnan(w)) {
            ASSERT_TRUE(std::isnan(y[i]));
          } else {
            ASSERT_EQ(Bits(y[i]), Bits(w)) << i;
          }
        }
      });
    }
  }
}

TEST(BlockScale, Nvfp4TakesAGivenTensorScale) {
  const std::vector<int64_t> shape = {32};
  std::vector<float> x(32);
  for (size_t i = 0; i < 32; ++i) x[i] = static_cast<float>(i) - 10.0f;
  const TensorView xv{x.data(), T::kFloat, shape.data(), 1};
  std::vector<uint8_t> codes(16), scales(2);
  float g = 0.5f;
  ASSERT_TRUE(QuantizeNvfp4(xv, codes.data(), scales.data(), &g, true).ok());
  EXPECT_EQ(g, 0.5f);
  // Block 1 holds 6..21: amax 21 / (6 * 0.5) = 7 -> E4M3FN 7.0 is 0x4E; block 0: 10 / 3
  // = 3.333 -> 3.25 (0x45) and 3.5 (0x46) are the neighbours, 3.333 is nearer 3.25.
  EXPECT_EQ(scales[1], 0x4E);
  EXPECT_EQ(scales[0], 0x45);
  g = -1.0f;
  EXPECT_EQ(QuantizeNvfp4(xv, codes.data(), scales.data(), &g, true).code(),
            StatusCode::kInvalidArgument);
  // The codes are QuantizeLinear's, which rounds the quotient to float32 first. With
  // g = 1 + 2^-23 a block of amax 6 has the scale code 1.0 (0x38), so S = g; x = 0.75 + 2^-24
  // gives x / S = 0.75 - 2^-25 + 2^-48, just below the E2M1 tie 0.75 (so 0.5, code 0x1,
  // by one rounding), but fl32(x / S) = 0.75, which ties to the even 1.0 (code 0x2).
  std::vector<float> t(16, 0.0f);
  t[0] = 6.0f;
  t[1] = 0.75f + 0x1p-24f;
  const int64_t t_shape[1] = {16};
  const TensorView tv{t.data(), T::kFloat, t_shape, 1};
  g = 1.0f + 0x1p-23f;
  ASSERT_TRUE(QuantizeNvfp4(tv, codes.data(), scales.data(), &g, true).ok());
  EXPECT_EQ(scales[0], 0x38);
  EXPECT_EQ(codes[0], 0x7 | 0x2 << 4);
}

// --- absmax -----------------------------------------------------------------------------------

TEST(BlockScale, AbsmaxMatchesTheOracleOnEveryTarget) {
  test::TargetLoop loop;
  std::mt19937 rng(14);
  const std::vector<int64_t> shape = {9, 70};
  const size_t n = Count(shape);
  for (T ct : {T::kInt8, T::kFloat8E4M3FN}) {
    const float q = ct == T::kInt8 ? 127.0f : 448.0f;
    for (int per_channel = 0; per_channel < 2; ++per_channel) {
      for (int64_t axis : {0, 1, -1}) {
        if (!per_channel && axis != 0) continue;
        std::vector<float> x = Inputs(n, kE4M3, rng, true);
        const size_t ax = static_cast<size_t>(axis < 0 ? axis + 2 : axis);
        const size_t channels = per_channel ? static_cast<size_t>(shape[ax]) : 1;
        std::vector<float> amax(channels, 0.0f);
        for (size_t i = 0; i < n; ++i) {
          const size_t c = per_channel ? (ax == 0 ? i / 70 : i % 70) : 0;
          if (std::isfinite(x[i])) amax[c] = std::max(amax[c], std::fabs(x[i]));
        }
        std::vector<float> want_s(channels);
        for (size_t c = 0; c < channels; ++c) {
          want_s[c] = amax[c] == 0 ? 1.0f : std::max(amax[c] / q, std::ldexp(1.0f, -126));
        }
        const TensorView xv{x.data(), T::kFloat, shape.data(), 2};
        AbsmaxOptions o;
        o.per_channel = per_channel != 0;
        o.axis = axis;
        loop.Run([&] {
          std::vector<uint8_t> codes(n);
          std::vector<float> s(channels);
          const Status st = QuantizeAbsmax(xv, ct, codes.data(), s.data(), o);
          ASSERT_TRUE(st.ok()) << st.message();
          for (size_t c = 0; c < channels; ++c) ASSERT_EQ(Bits(s[c]), Bits(want_s[c])) << c;
          for (size_t i = 0; i < n; ++i) {
            const size_t c = per_channel ? (ax == 0 ? i / 70 : i % 70) : 0;
            uint32_t want;
            if (ct == T::kInt8) {
              // QuantizeLinear: the float32 quotient, rounded half to even, saturated.
              const float quotient = x[i] / want_s[c];
              const float r = std::isnan(quotient)
                                  ? 0.0f
                                  : std::fmax(-128.0f, std::fmin(127.0f, std::nearbyint(quotient)));
              want = static_cast<uint8_t>(static_cast<int8_t>(r));
            } else if (std::isnan(x[i])) {
              want = NanCode(kE4M3, std::signbit(x[i]));
            } else if (std::isinf(x[i])) {
              want = 0x7E | (x[i] < 0 ? 0x80u : 0u);
            } else {  // QuantizeLinear: the float32 quotient, then E4M3FN
              want = kE4M3.Encode(static_cast<double>(x[i] / want_s[c]), 1.0);
            }
            ASSERT_EQ(codes[i], want) << DataTypeName(ct) << " element " << i << " x=" << x[i];
          }
        });
      }
    }
  }
}

// --- Statistics ---------------------------------------------------------------------------

// The statistics of x quantized to values y (NaN for a NaN block) with scales s (q = x / s,
// the scaled value), recomputed from their definitions (tensorcast/stats.h) in the order
// the library promises: per chunk of 4096 elements, the chunks in order. A scaled value
// saturates when round-half-even on the unbounded grid leaves the codes' range: beyond
// the largest value M plus half the step there (the step at M is 2^(emax - m)), or on the
// tie when M's code is odd (the tie then rounds away from M).
CastStats ExpectedStats(const std::vector<float>& x, const std::vector<double>& y,
                        const std::vector<double>& s, double hi_edge, bool hi_tie_out,
                        double lo_edge, bool lo_tie_out) {
  CastStats r;
  r.count = x.size();
  for (size_t c = 0; c < x.size(); c += 4096) {
    double err = 0, sig = 0;
    for (size_t i = c; i < std::min(x.size(), c + 4096); ++i) {
      const double v = x[i];
      if (std::isnan(v)) {
        ++r.nan_count;
        continue;
      }
      if (std::isinf(v)) {
        ++r.inf_count;
        continue;
      }
      r.amax = std::max(r.amax, std::fabs(v));
      if (std::isfinite(s[i]) && s[i] != 0) {
        const double q = v / s[i];
        if (q > hi_edge || (q == hi_edge && hi_tie_out) || q < lo_edge ||
            (q == lo_edge && lo_tie_out)) {
          ++r.saturated;
        }
      }
      if (v != 0 && y[i] == 0) ++r.flushed;
      if (std::isfinite(y[i])) {
        const double d = y[i] - v;
        err += d * d;
        sig += v * v;
        ++r.error_count;
      }
    }
    r.sum_squared_error += err;
    r.sum_squared_signal += sig;
  }
  return r;
}

void ExpectSameStats(const CastStats& got, const CastStats& want) {
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.nan_count, want.nan_count);
  EXPECT_EQ(got.inf_count, want.inf_count);
  EXPECT_EQ(got.saturated, want.saturated);
  EXPECT_EQ(got.flushed, want.flushed);
  EXPECT_EQ(got.error_count, want.error_count);
  EXPECT_EQ(got.amax, want.amax);
  EXPECT_EQ(got.sum_squared_error, want.sum_squared_error);
  EXPECT_EQ(got.sum_squared_signal, want.sum_squared_signal);
}

double Signed(const Format& f, uint32_t code) {
  const uint32_t sign = 1u << (f.e + f.m);
  const double v = f.Value(code & (sign - 1));
  return code & sign ? -v : v;
}

TEST(BlockScale, StatisticsMatchTheirDefinitions) {
  test::TargetLoop loop;
  std::mt19937 rng(16);
  ThreadPool pool(2);
  for (const MxCase& mx : kMx) {
    const Format& f = *mx.elem;
    const double M = f.Max(), edge = M + std::ldexp(1.0, f.Emax() - f.m) / 2;
    const bool tie_out = (f.finite().back() & 1u) != 0;
    for (const Shape& sh : std::vector<Shape>{{{9, 4096 + 512}, 1, 32}, {{70, 33}, 0, 32}}) {
      const size_t n = Count(sh.dims);
      for (bool specials : {false, true}) {
        const std::vector<float> x = Inputs(n, f, rng, specials);
        const size_t axis = static_cast<size_t>(sh.axis);
        std::vector<uint32_t> codes;
        std::vector<uint8_t> scales;
        MxOracle(x, sh.dims, axis, 32, f, false, &codes, &scales);
        std::vector<double> y(n), s(n);
        const size_t inner = axis == 1 ? 1 : static_cast<size_t>(sh.dims[1]);
        const size_t dim = static_cast<size_t>(sh.dims[axis]), blocks = (dim + 31) / 32;
        for (size_t i = 0; i < n; ++i) {
          const size_t row = i / inner, o = row / dim, a = row % dim;
          const uint8_t sc = scales[(o * blocks + a / 32) * inner + i % inner];
          s[i] = sc == 0xFF ? NAN : std::ldexp(1.0, sc - 127);
          y[i] = Signed(f, codes[i]) * s[i];
        }
        const CastStats want = ExpectedStats(x, y, s, edge, tie_out, -edge, tie_out);
        const TensorView xv{x.data(), T::kFloat, sh.dims.data(), 2};
        loop.Run([&] {
          for (const Runner* runner : {static_cast<const Runner*>(nullptr), pool.runner()}) {
            BlockScaleOptions o;
            o.axis = sh.axis;
            o.runner = runner;
            CastStats got;
            o.stats = &got;
            std::vector<uint8_t> c(StorageBytes(mx.type, n)), sc(scales.size());
            ASSERT_TRUE(QuantizeMx(xv, mx.format, c.data(), sc.data(), o).ok());
            SCOPED_TRACE(std::string(BlockFormatName(mx.format)) + (specials ? " specials" : "") +
                         (runner ? " threads" : ""));
            ExpectSameStats(got, want);
          }
        });
        EXPECT_GT(want.saturated, 0u) << BlockFormatName(mx.format);
        EXPECT_GT(want.flushed, 0u) << BlockFormatName(mx.format);
      }
    }
  }
  // absmax INT8 per channel: y = code * scale, q = x / scale; 127 is odd, -128 even.
  const std::vector<int64_t> shape = {64, 300};
  const std::vector<float> x = Inputs(64 * 300, kE4M3, rng, true);
  const TensorView xv{x.data(), T::kFloat, shape.data(), 2};
  AbsmaxOptions o;
  o.per_channel = true;
  o.axis = 1;
  std::vector<int8_t> codes(x.size());
  std::vector<float> scales(300);
  ASSERT_TRUE(QuantizeAbsmax(xv, T::kInt8, codes.data(), scales.data(), o).ok());
  std::vector<double> y(x.size()), s(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    s[i] = scales[i % 300];
    y[i] = codes[i] * s[i];
  }
  const CastStats want = ExpectedStats(x, y, s, 127.5, true, -128.5, false);
  loop.Run([&] {
    CastStats got;
    o.stats = &got;
    ASSERT_TRUE(QuantizeAbsmax(xv, T::kInt8, codes.data(), scales.data(), o).ok());
    ExpectSameStats(got, want);
  });
  EXPECT_GT(want.saturated + want.flushed, 0u);  // the inputs reach both cases
}

// --- Threads, errors ----------------------------------------------------------------------

TEST(BlockScale, ThreadsGiveTheBitsOfOneThread) {
  std::mt19937 rng(15);
  const std::vector<int64_t> shape = {1000, 1056};
  const size_t n = Count(shape);
  std::vector<float> x = Inputs(n, kE2M1, rng, true);
  ThreadPool pool(3);
  for (const MxCase& mx : kMx) {
    for (int64_t axis : {1, 0}) {
      const TensorView xv{x.data(), T::kFloat, shape.data(), 2};
      BlockScaleOptions o;
      o.axis = axis;
      size_t count = 0;
      ASSERT_TRUE(BlockScaleCount(shape.data(), 2, o, mx.format, &count).ok());
      std::vector<uint8_t> c1(StorageBytes(mx.type, n)), c2(c1.size()), s1(count), s2(count);
      ASSERT_TRUE(QuantizeMx(xv, mx.format, c1.data(), s1.data(), o).ok());
      o.runner = pool.runner();
      ASSERT_TRUE(QuantizeMx(xv, mx.format, c2.data(), s2.data(), o).ok());
      EXPECT_EQ(c1, c2) << BlockFormatName(mx.format);
      EXPECT_EQ(s1, s2) << BlockFormatName(mx.format);
    }
  }
}

TEST(BlockScale, ErrorsNameTheArgument) {
  const std::vector<int64_t> shape = {4, 64};
  std::vector<float> x(256, 1.0f);
  std::vector<uint8_t> codes(256), scales(8);
  const TensorView xv{x.data(), T::kFloat, shape.data(), 2};
  auto message = [](const Status& s) { return s.message(); };
  BlockScaleOptions o;
  o.axis = 2;
  EXPECT_EQ(message(QuantizeMx(xv, BlockFormat::kMxfp4, codes.data(), scales.data(), o)),
            "QuantizeMx: axis: 2 is outside [-2, 1] for x of rank 2");
  o.axis = -1;
  o.block_size = -3;
  EXPECT_NE(message(QuantizeMx(xv, BlockFormat::kMxfp4, codes.data(), scales.data(), o))
                .find("block_size: -3"),
            std::string::npos);
  o.block_size = 0;
  EXPECT_NE(message(QuantizeMx(xv, BlockFormat::kNvfp4, codes.data(), scales.data(), o))
                .find("format: 6 is not an MX format"),
            std::string::npos);
  EXPECT_NE(
      message(QuantizeMx(xv, BlockFormat::kMxfp4, nullptr, scales.data(), o)).find("codes is null"),
      std::string::npos);
  EXPECT_NE(message(QuantizeMx(xv, BlockFormat::kMxfp8E4m3, x.data(), scales.data(), o))
                .find("codes: overlaps x"),
            std::string::npos);
  const TensorView dv{x.data(), T::kDouble, shape.data(), 2};
  EXPECT_EQ(QuantizeMx(dv, BlockFormat::kMxfp4, codes.data(), scales.data(), o).code(),
            StatusCode::kUnsupported);
  const TensorView cv{codes.data(), T::kFloat8E5M2, shape.data(), 2};
  EXPECT_NE(message(DequantizeMx(cv, scales.data(), BlockFormat::kMxfp8E4m3, x.data(), T::kFloat))
                .find("codes: type FLOAT8E5M2 (19), but mxfp8_e4m3 codes are FLOAT8E4M3FN (17)"),
            std::string::npos);
  o.scale_rule = ScaleRule::kRceil;
  float g = 1;
  EXPECT_NE(
      message(QuantizeNvfp4(xv, codes.data(), scales.data(), &g, false, o)).find("scale_rule"),
      std::string::npos);
  EXPECT_EQ(
      QuantizeAbsmax(xv, T::kUint8, codes.data(), reinterpret_cast<float*>(scales.data())).code(),
      StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tensorcast
