// sweep_f32_test: all 2^32 float32 bit patterns -> FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
// FLOAT8E5M2FNUZ, FLOAT4E2M1, FLOAT6E2M3 and FLOAT6E3M2 (the float8 formats with saturate =
// 1 and 0; FLOAT4E2M1 and FLOAT6, which always saturate, once: their saturate = 0 calls are
// the kernel tests' registry rows, which run every option set), through tensorcast::Cast in
// blocks, compared bit for bit with independent transcriptions
// of the ONNX reference's encoders (onnx/reference/ops/op_cast.py and
// onnx/numpy_helper.py: float8 with and without saturation, float4e2m1; the FLOAT6 types
// are ml_dtypes' float6_e2m3fn / float6_e3m2fn, which onnx.reference 1.23 casts to with
// astype: round to nearest even, always saturating, +NaN -> 0x20, -NaN -> 0x00), which
// agree with ml_dtypes on every float32 input and which tensorcast follows
// (docs/semantics.md).
//
// Prints, per format and mode, the count checked and the mismatches (the first few with
// their bits), the elapsed seconds, and finally "N passed, M failed". Exit status 1 on any
// mismatch. Plain main(), no GoogleTest: ctest label "sweep".
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;

// ---------------------------------------------------------------------------------------
// The ONNX reference's float32 -> float8 encoder, transcribed.

struct Float8Params {
  int m;  // mantissa bits
  int bias;
  uint32_t max_bits;  // float32 bits of MAX
  uint32_t maxb;      // max-finite code without the sign
  bool fnuz;
  bool has_inf;        // E5M2 only
  uint32_t nan_canon;  // E4M3FN: 0x7F, E5M2: 0x7E (unused for FNUZ)
};

uint8_t EncodeFloat8(uint32_t bits, const Float8Params& p, bool saturate) {
  uint32_t a = bits & 0x7FFFFFFFu;
  const uint32_t s = bits >> 31;
  if (a > 0x7F800000u) {  // NaN
    return static_cast<uint8_t>(p.fnuz ? 0x80 : (s << 7) | p.nan_canon);
  }
  const uint32_t ovf = p.fnuz ? 0x80 : (s << 7) | (p.has_inf ? 0x7C : 0x7F);
  if (saturate && a > p.max_bits) a = p.max_bits;  // also catches +-Inf
  if (a == 0x7F800000u) return static_cast<uint8_t>(ovf);
  const int e = static_cast<int>(a >> 23);
  const int te = e - 127 + p.bias;
  uint32_t r;
  if (te <= 0) {  // subnormal or zero in the target
    if (e == 0) {
      r = 0;
    } else {
      const uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
      const int sh = (23 - p.m) + (1 - te);
      r = sh > 24 ? 0 : (mant + ((mant >> sh) & 1) + (1u << (sh - 1)) - 1) >> sh;
    }
  } else {
    const int d = 23 - p.m;
    uint32_t t = a + ((a >> d) & 1) + (1u << (d - 1)) - 1;  // RNE
    t &= ~((1u << d) - 1);
    t -= static_cast<uint32_t>(127 - p.bias) << 23;  // re-bias the exponent
    if (t > (p.maxb << d)) return static_cast<uint8_t>(ovf);
    r = t >> d;
  }
  if (r == 0) return static_cast<uint8_t>(p.fnuz ? 0x00 : (s << 7));
  return static_cast<uint8_t>((s << 7) | r);
}

// The ONNX reference's float32 -> float4e2m1 encoder, transcribed. `saturate` is ignored:
// float4 always saturates.
uint8_t EncodeFloat4(uint32_t bits) {
  const uint32_t s = bits >> 31;
  const uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return s == 0 ? 0x8 : 0x0;  // NaN quirk
  float a;
  std::memcpy(&a, &abs_bits, 4);
  uint32_t code;
  if (a > 5.0f)
    code = 7;  // includes Inf
  else if (a <= 0.25f)
    code = 0;
  else if (a < 0.75f)
    code = 1;
  else if (a <= 1.25f)
    code = 2;
  else if (a < 1.75f)
    code = 3;
  else if (a <= 2.5f)
    code = 4;
  else if (a < 3.5f)
    code = 5;
  else
    code = 6;  // a <= 5.0
  return static_cast<uint8_t>((s << 3) | code);
}

// ml_dtypes' float32 -> float6 (e2m3fn, e3m2fn): the same rounding with the 6-bit fields,
// always saturating (no Inf), and NaN -> the zero of the other sign. `saturate` is ignored.
uint8_t EncodeFloat6(uint32_t bits, const Float8Params& p) {
  const uint32_t s = bits >> 31;
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint8_t>(s == 0 ? 0x20 : 0x00);
  const uint8_t c = EncodeFloat8(bits, p, /*saturate=*/true);  // sign in bit 7
  return static_cast<uint8_t>((c & 0x1F) | (s << 5));
}

// ---------------------------------------------------------------------------------------
// The sweep.

struct Format {
  const char* name;
  DataType type;
  int bits;  // 8, 6 (EncodeFloat6) or 4 (EncodeFloat4)
  Float8Params p;
};

const Format kFormats[] = {
    {"FLOAT8E4M3FN", DataType::kFloat8E4M3FN, 8, {3, 7, 0x43E00000u, 0x7E, false, false, 0x7F}},
    {"FLOAT8E4M3FNUZ", DataType::kFloat8E4M3FNUZ, 8, {3, 8, 0x43700000u, 0x7F, true, false, 0}},
    {"FLOAT8E5M2", DataType::kFloat8E5M2, 8, {2, 15, 0x47600000u, 0x7B, false, true, 0x7E}},
    {"FLOAT8E5M2FNUZ", DataType::kFloat8E5M2FNUZ, 8, {2, 16, 0x47600000u, 0x7F, true, false, 0}},
    {"FLOAT4E2M1", DataType::kFloat4E2M1, 4, {}},
    // max 7.5 (0x40F00000) and 28 (0x41E00000); largest magnitude code 0x1F
    {"FLOAT6E2M3", DataType::kFloat6E2M3, 6, {3, 1, 0x40F00000u, 0x1F, false, false, 0}},
    {"FLOAT6E3M2", DataType::kFloat6E3M2, 6, {2, 3, 0x41E00000u, 0x1F, false, false, 0}},
};

struct Combo {
  const Format* format;
  bool saturate;
};

constexpr int kShownMismatches = 5;

struct Mismatch {
  uint32_t input;
  unsigned expected;
  unsigned got;
};

struct Result {
  std::atomic<uint64_t> checked{0};
  std::atomic<uint64_t> mismatches{0};
  std::mutex mu;
  std::vector<Mismatch> first;  // up to kShownMismatches with the smallest inputs
  std::string error;            // first error status from Cast
};

constexpr uint32_t kBlockBits = 16;
constexpr uint64_t kBlock = uint64_t{1} << kBlockBits;
constexpr uint64_t kBlocks = (uint64_t{1} << 32) / kBlock;

void SweepBlocks(const std::vector<Combo>& combos, std::vector<Result>& results,
                 unsigned thread_index, unsigned thread_count) {
  std::vector<uint32_t> src(kBlock);
  std::vector<uint8_t> dst(kBlock);
  for (uint64_t block = thread_index; block < kBlocks; block += thread_count) {
    const uint32_t first = static_cast<uint32_t>(block << kBlockBits);
    for (uint64_t i = 0; i < kBlock; ++i) src[i] = first + static_cast<uint32_t>(i);
    for (size_t c = 0; c < combos.size(); ++c) {
      const Combo& combo = combos[c];
      Result& result = results[c];
      CastOptions options;
      options.saturate = combo.saturate;
      const tensorcast::Status status = tensorcast::Cast(src.data(), DataType::kFloat, dst.data(),
                                                         combo.format->type, kBlock, options);
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(result.mu);
        if (result.error.empty()) {
          result.error =
              std::string(tensorcast::StatusCodeName(status.code())) + ": " + status.message();
        }
        result.checked += kBlock;
        result.mismatches += kBlock;
        continue;
      }
      uint64_t bad = 0;
      Mismatch shown[kShownMismatches];
      int shown_count = 0;
      for (uint64_t i = 0; i < kBlock; ++i) {
        unsigned got, expected;
        if (combo.format->bits == 4) {
          got = (dst[i / 2] >> (4 * (i % 2))) & 0xF;  // element 2k in the low nibble
          expected = EncodeFloat4(src[i]);
        } else if (combo.format->bits == 6) {
          const uint64_t bit = 6 * i;  // element i in bits [6i, 6i + 6)
          unsigned w = dst[bit / 8];
          if (bit % 8 > 2) w |= static_cast<unsigned>(dst[bit / 8 + 1]) << 8;
          got = (w >> (bit % 8)) & 0x3F;
          expected = EncodeFloat6(src[i], combo.format->p);
        } else {
          got = dst[i];
          expected = EncodeFloat8(src[i], combo.format->p, combo.saturate);
        }
        if (got != expected) {
          if (shown_count < kShownMismatches) shown[shown_count++] = {src[i], expected, got};
          ++bad;
        }
      }
      result.checked += kBlock;
      if (bad != 0) {
        result.mismatches += bad;
        std::lock_guard<std::mutex> lock(result.mu);
        result.first.insert(result.first.end(), shown, shown + shown_count);
        std::sort(result.first.begin(), result.first.end(),
                  [](const Mismatch& x, const Mismatch& y) { return x.input < y.input; });
        if (result.first.size() > kShownMismatches) result.first.resize(kShownMismatches);
      }
    }
  }
}

}  // namespace

int main() {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Combo> combos;
  for (const Format& f : kFormats) {
    combos.push_back({&f, true});
    if (f.bits == 8) combos.push_back({&f, false});
  }
  std::vector<Result> results(combos.size());

  constexpr unsigned kThreads = 2;  // the CI machine has two cores
  std::printf(
      "sweep_f32_test: all 2^32 float32 inputs -> %zu format x saturate combos, "
      "%u threads, Highway target %s\n",
      combos.size(), kThreads, tensorcast::ActiveTargetName());
  std::fflush(stdout);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back(SweepBlocks, std::cref(combos), std::ref(results), t, kThreads);
  }
  for (std::thread& t : threads) t.join();

  int passed = 0, failed = 0;
  for (size_t c = 0; c < combos.size(); ++c) {
    const Result& r = results[c];
    const uint64_t checked = r.checked.load();
    const uint64_t mismatches = r.mismatches.load();
    const bool ok = mismatches == 0 && checked == (uint64_t{1} << 32);
    std::printf("%-15s saturate=%d: %" PRIu64 " checked, %" PRIu64 " mismatches%s\n",
                combos[c].format->name, combos[c].saturate ? 1 : 0, checked, mismatches,
                ok ? "" : "  FAILED");
    if (!r.error.empty()) std::printf("    Cast error: %s\n", r.error.c_str());
    for (const Mismatch& m : r.first) {
      std::printf("    float32 0x%08" PRIx32 ": expected 0x%02x, got 0x%02x\n", m.input, m.expected,
                  m.got);
    }
    (ok ? passed : failed) += 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("elapsed %.1f s\n", seconds);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
