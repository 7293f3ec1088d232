// The scale rules of block-scaled quantization on float32 bits (internal, plain C++): the
// MX scale of a block from its largest magnitude, shared by the kernels and the driver
// (lib/block_scale.cc). docs/semantics.md section 13 states them as formulas.
#ifndef TENSORCAST_LIB_BLOCK_SCALE_RULES_H_
#define TENSORCAST_LIB_BLOCK_SCALE_RULES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tensorcast/data_type.h"

namespace tensorcast {

constexpr uint8_t kE8M0NaN = 0xFF;

// The element format's largest value, 1.f * 2^emax (f: its float32 fraction bits), and
// whether the rule is rceil (else floor).
struct MxRule {
  int emax = 0;
  uint32_t max_fraction = 0;
  bool rceil = false;
};

// A block's scale 2^e: its FLOAT8E8M0 code e + 127 (kE8M0NaN: NaN) and 2^-e as float32.
struct MxScale {
  uint8_t code = 0;
  float multiplier = 0.0f;
};

// The scale of a block whose largest |x| has the float32 bits amax (>= 0x7F800000: the
// block holds a NaN or an infinity).
//   floor: e = floor(log2(amax)) - emax; rceil: e + 1 when amax * 2^-e exceeds the
//   largest value, i.e. when amax's fraction exceeds max_fraction (both are in the binade
//   [2^emax, 2^(emax+1)) after the scaling). e is clamped to [-127, 127]; amax = 0 gives
//   -127.
inline MxScale MxScaleOf(uint32_t amax, const MxRule& rule) {
  MxScale s;
  if (amax >= 0x7F800000u) {
    s.code = kE8M0NaN;
    uint32_t nan = 0x7FC00000u;
    std::memcpy(&s.multiplier, &nan, sizeof nan);
    return s;
  }
  int e = -127;
  if (amax != 0) {
    int log2;
    uint32_t fraction;
    if (amax >= 0x00800000u) {
      log2 = static_cast<int>(amax >> 23) - 127;
      fraction = amax & 0x7FFFFFu;
    } else {  // subnormal: amax * 2^-149, normalised
      const int lz = __builtin_clz(amax);
      log2 = (31 - lz) - 149;
      fraction = (amax << (lz - 8)) & 0x7FFFFFu;
    }
    e = log2 - rule.emax;
    if (rule.rceil && fraction > rule.max_fraction) ++e;
    e = e < -127 ? -127 : e > 127 ? 127 : e;
  }
  s.code = static_cast<uint8_t>(e + 127);
  // 2^-e: a normal float32 for -e >= -126, else (e = 127) the subnormal 2^-127.
  const uint32_t bits = -e >= -126 ? static_cast<uint32_t>(127 - e) << 23 : 0x00200000u;
  std::memcpy(&s.multiplier, &bits, sizeof bits);
  return s;
}

// x / NaN as QuantizeLinear computes it (the NaN of the first NaN operand, quiet): x's
// quiet NaN when x is NaN, else the positive quiet NaN of the decoded NaN scale.
inline float QuotientByNaN(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (bits & 0x7FFFFFFFu) > 0x7F800000u ? bits | 0x00400000u : 0x7FC00000u;
  float r;
  std::memcpy(&r, &bits, sizeof r);
  return r;
}

// Saturation, for the statistics (tensorcast/stats.h). The codes' largest magnitudes above and
// below zero and the half step beyond them: a scaled value q saturated when round-half-even on the
// unbounded grid would leave the range, i.e. |q| > edge, or |q| == edge and the tie rounds away
// from the largest code (its last bit is odd).
struct CodeRange {
  double hi_edge, lo_edge;  // M + h, -(M' + h)
  bool hi_tie_out, lo_tie_out;
  bool Saturated(double q) const {
    return q > hi_edge || (q == hi_edge && hi_tie_out) || q < lo_edge ||
           (q == lo_edge && lo_tie_out);
  }
};

inline CodeRange RangeOf(DataType code_type) {
  switch (code_type) {
    case DataType::kInt8: return {127.5, -128.5, true, false};       // 127 odd, -128 even
    case DataType::kFloat8E4M3FN: return {464, -464, false, false};  // 448 = 1.110b * 2^8, step 32
    case DataType::kFloat8E5M2:
      return {61440, -61440, true, true};  // 57344 = 1.11b * 2^15, step 8192
    case DataType::kFloat6E2M3: return {7.75, -7.75, true, true};  // 7.5 = 1.111b * 2^2, step 0.5
    case DataType::kFloat6E3M2: return {30, -30, true, true};      // 28 = 1.11b * 2^4, step 4
    default: return {7, -7, true, true};  // FLOAT4E2M1: 6 = 1.1b * 2^2, step 2
  }
}

// One chunk of a one-pass MX quantization of FLOAT x along its contiguous axis: x is the
// whole tensor as rows of `dim` elements, each cut into `blocks` blocks of `block` (the
// last may be shorter); the chunk is elements [e0, e0 + n). For every block that meets
// the chunk the kernel reads the whole block, stores its scale code into
// scales[row * blocks + b] when the block starts in the chunk, and its elements of the
// chunk times 2^-e into scaled (n floats; QuotientByNaN in a NaN block).
struct MxChunkArgs {
  const float* x = nullptr;
  size_t e0 = 0, n = 0;
  size_t dim = 0, block = 0, blocks = 0;
  MxRule rule;
  float* scaled = nullptr;
  uint8_t* scales = nullptr;
};

}  // namespace tensorcast

#endif  // TENSORCAST_LIB_BLOCK_SCALE_RULES_H_
