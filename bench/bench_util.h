// Helpers shared by the benchmarks: NormalSample (float8_bench, subbyte_bench),
// AlignedBuffer, InterleavedSpeedup and TrafficLimit (kernel_bench, split_bench,
// parallel_bench).
#ifndef TENSORCAST_BENCH_BENCH_UTIL_H_
#define TENSORCAST_BENCH_BENCH_UTIL_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hwy/targets.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace tensorcast_bench {

// `count` float32 values N(0, 1) x scale from a fixed-seed generator (65536, tiled).
// "--target=NAME" (a Highway target name, e.g. AVX2): every dispatched kernel of the run uses
// that target instead of the best one (true when `arg` is that flag; an unknown or
// unsupported name leaves the best target).
inline bool ForceTargetFlag(const char* arg) {
  const std::string a = arg;
  if (a.rfind("--target=", 0) != 0) return false;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (a.substr(9) == hwy::TargetName(t)) hwy::SetSupportedTargetsForTest(t);
  }
  return true;
}

inline std::vector<float> NormalSample(size_t count, double scale) {
  std::vector<float> tile(65536);
  uint64_t state = 0x5EEDull;
  auto uniform = [&state] {  // SplitMix64 -> (0, 1]
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (static_cast<double>((z ^ (z >> 31)) >> 11) + 1) * 0x1.0p-53;
  };
  for (float& x : tile) {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    x = static_cast<float>(scale * r * std::cos(6.283185307179586 * uniform()));
  }
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) v[i] = tile[i % tile.size()];
  return v;
}

// A 64-byte aligned heap buffer, filled (so no page fault happens in a timed loop), as
// tensors usually are (a large std::vector starts 16 bytes into a page, which puts every
// vector store of a row across two cache lines).
class AlignedBuffer {
 public:
  AlignedBuffer(size_t n, uint8_t fill)
      : size_(n), data_(static_cast<uint8_t*>(std::aligned_alloc(64, (n + 63) / 64 * 64 + 64))) {
    std::memset(data_, fill, n);
  }
  ~AlignedBuffer() { std::free(data_); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  size_t size_;
  uint8_t* data_;
};

// A view of a process-wide buffer, one per `slot`, grown (and touched) when a row needs more
// bytes and otherwise reused as it is: rows of the out-of-cache sizes would spend most of
// their time faulting in fresh pages (gigabytes per row). The contents are whatever the
// last row left (fill: the byte a grown buffer starts with). base() is 64-byte aligned;
// data() is `offset` (< 64) bytes past it, as numpy's arrays usually are (16 or 32 bytes
// past a 64-byte boundary), which AlignedBuffer's 64 bytes of slack leave room for.
class ReusedBuffer {
 public:
  ReusedBuffer(int slot, size_t n, uint8_t fill, size_t offset = 0) : size_(n) {
    static std::unique_ptr<AlignedBuffer> slots[8];
    std::unique_ptr<AlignedBuffer>& b = slots[slot];
    if (b == nullptr || b->size() < n) {
      b.reset();  // free first: two copies of the largest rows need not fit at once
      b = std::make_unique<AlignedBuffer>(n, fill);
    }
    base_ = b->data();
    data_ = base_ + offset;
  }
  uint8_t* data() const { return data_; }
  uint8_t* base() const { return base_; }
  size_t size() const { return size_; }

 private:
  size_t size_;
  uint8_t* base_;
  uint8_t* data_;
};

// Seconds for `n` back-to-back calls of f.
template <typename F>
double BatchSeconds(const F& f, size_t n) {
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < n; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// How much faster `subject` runs than `baseline` (baseline time / subject time), each
// the best of `reps` batches of `batch` calls, the batches interleaved so that load
// changes of a shared machine (and the drift of memory bandwidth between processes) hit
// both alike. > 1: the subject is faster.
template <typename S, typename B>
double InterleavedSpeedup(const S& subject, const B& baseline, size_t batch, int reps = 7) {
  double best_subject = 1e30, best_baseline = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    best_subject = std::min(best_subject, BatchSeconds(subject, batch));
    best_baseline = std::min(best_baseline, BatchSeconds(baseline, batch));
  }
  return best_baseline / best_subject;
}

// The traffic limit of a conversion of `count` elements of in_bits into out_bits: the
// fastest of a few kernels with no arithmetic that read the source bytes with aligned
// 16-byte loads and write the destination bytes as whole 64-byte lines with non-temporal
// stores, the two interleaved in the conversion's proportion. The time of a cast out of
// cache over this limit's time is how far the cast is from the speed of the memory system
// (x_limit, < 1: slower than the limit). `in` and `out` are 64-byte aligned; count is a
// multiple of 512 (so both sides are whole lines). The variants (TrafficLimitVariant):
//   kBlocked    blocks of 512 elements (64 * in_bits bytes read, then 64 * out_bits
//               written), each block's stores depending on its loads;
//   kLines      per 64-byte output line, the source lines that feed it (in proportion)
//               ORed together, the line written with four 16-byte non-temporal stores of
//               a value that does not depend on the loads (no load-to-store dependence);
//   kLinesPrefetch  kLines with a software prefetch of the source 1 KiB ahead.
// No variant is always fastest: the dependent blocks lose about 20% on some Intel Xeons,
// the prefetch helps there and costs a little elsewhere, so each row takes the best.
enum class TrafficLimitVariant { kBlocked, kLines, kLinesPrefetch };
constexpr TrafficLimitVariant kTrafficLimitVariants[] = {TrafficLimitVariant::kBlocked,
                                                         TrafficLimitVariant::kLines,
                                                         TrafficLimitVariant::kLinesPrefetch};

inline void TrafficLimitBlocked(const uint8_t* in, uint8_t* out, size_t count, size_t in_bits,
                                size_t out_bits) {
  const size_t blocks = count / 512, in_step = 64 * in_bits, out_step = 64 * out_bits;
#if defined(__SSE2__)
  __m128i acc = _mm_setzero_si128();
  for (size_t b = 0; b < blocks; ++b) {
    const auto* s = reinterpret_cast<const __m128i*>(in + b * in_step);
    for (size_t i = 0; i < in_step / 16; ++i) acc = _mm_xor_si128(acc, _mm_load_si128(s + i));
    auto* d = reinterpret_cast<__m128i*>(out + b * out_step);
    for (size_t i = 0; i < out_step / 16; ++i) _mm_stream_si128(d + i, acc);
  }
  _mm_sfence();
#else
  uint64_t acc = 0;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t i = 0; i < in_step; i += 8) {
      uint64_t v;
      std::memcpy(&v, in + b * in_step + i, 8);
      acc ^= v;
    }
    for (size_t i = 0; i < out_step; i += 8) std::memcpy(out + b * out_step + i, &acc, 8);
  }
#endif
}

// Where the OR of the kLines variants ends up, so that the loads are not optimised away.
inline volatile uint64_t g_traffic_sink = 0;

template <bool kPrefetch>
inline void TrafficLimitLines(const uint8_t* in, uint8_t* out, size_t count, size_t in_bits,
                              size_t out_bits) {
  const size_t in_lines = count * in_bits / 512, out_lines = count * out_bits / 512;
  size_t s = 0;  // next source line to read
#if defined(__SSE2__)
  __m128i acc = _mm_setzero_si128();
  const __m128i fill = _mm_set1_epi32(0x5A5A5A5A);
  for (size_t k = 0; k < out_lines; ++k) {
    const size_t e = (k + 1) * in_lines / out_lines;  // source lines [s, e) feed line k
    for (; s < e; ++s) {
      const auto* p = reinterpret_cast<const __m128i*>(in + 64 * s);
      if (kPrefetch) _mm_prefetch(reinterpret_cast<const char*>(in + 64 * s + 1024), _MM_HINT_T0);
      acc = _mm_or_si128(acc,
                         _mm_or_si128(_mm_or_si128(_mm_load_si128(p), _mm_load_si128(p + 1)),
                                      _mm_or_si128(_mm_load_si128(p + 2), _mm_load_si128(p + 3))));
    }
    auto* d = reinterpret_cast<__m128i*>(out + 64 * k);
    _mm_stream_si128(d, fill);
    _mm_stream_si128(d + 1, fill);
    _mm_stream_si128(d + 2, fill);
    _mm_stream_si128(d + 3, fill);
  }
  _mm_sfence();
  g_traffic_sink = static_cast<uint64_t>(_mm_cvtsi128_si64(acc));
#else
  uint64_t acc = 0;
  for (size_t k = 0; k < out_lines; ++k) {
    const size_t e = (k + 1) * in_lines / out_lines;
    for (; s < e; ++s) {
      for (size_t i = 0; i < 64; i += 8) {
        uint64_t v;
        std::memcpy(&v, in + 64 * s + i, 8);
        acc |= v;
      }
    }
    std::memset(out + 64 * k, 0x5A, 64);
  }
  g_traffic_sink = acc;
#endif
}

inline void TrafficLimit(TrafficLimitVariant variant, const uint8_t* in, uint8_t* out, size_t count,
                         size_t in_bits, size_t out_bits) {
  switch (variant) {
    case TrafficLimitVariant::kBlocked:
      return TrafficLimitBlocked(in, out, count, in_bits, out_bits);
    case TrafficLimitVariant::kLines:
      return TrafficLimitLines<false>(in, out, count, in_bits, out_bits);
    case TrafficLimitVariant::kLinesPrefetch:
      return TrafficLimitLines<true>(in, out, count, in_bits, out_bits);
  }
}

// How much faster `subject` runs than the fastest of the traffic-limit variants
// (limit(variant) runs one of them on the subject's bytes): t_limit / t_subject, each the
// best of `reps` interleaved batches of `batch` calls, as InterleavedSpeedup.
template <typename S, typename L>
double InterleavedLimitSpeedup(const S& subject, const L& limit, size_t batch, int reps = 5) {
  double best_subject = 1e30, best_limit = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    best_subject = std::min(best_subject, BatchSeconds(subject, batch));
    for (TrafficLimitVariant v : kTrafficLimitVariants) {
      best_limit = std::min(best_limit, BatchSeconds([&] { limit(v); }, batch));
    }
  }
  return best_limit / best_subject;
}

// The source + destination bytes of the out-of-cache rows: at least 1 GiB and at least
// four times the last-level cache (sysfs; a VM may report its host's cache, hundreds of
// MiB, which the rows must still exceed).
inline size_t OutOfCacheTrafficBytes(size_t llc_bytes) {
  return std::max<size_t>(size_t{1} << 30, 4 * llc_bytes);
}

// Calls per batch for a call that moves `bytes` bytes: about 16 MiB per batch (a few
// milliseconds), at least one call.
inline size_t BatchCalls(size_t bytes) {
  return std::max<size_t>(1, (size_t{16} << 20) / (bytes + 1));
}

}  // namespace tensorcast_bench

#endif  // TENSORCAST_BENCH_BENCH_UTIL_H_
