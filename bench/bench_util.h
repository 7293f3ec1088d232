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
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tensorcast_bench {

// `count` float32 values N(0, 1) x scale from a fixed-seed generator (65536, tiled).
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

// The traffic limit of a conversion of `count` elements of in_bits into out_bits: a
// kernel with no arithmetic that reads the source bytes with aligned 16-byte loads and
// writes the destination bytes as whole 64-byte lines with non-temporal stores, the two
// interleaved in the conversion's proportion (blocks of 512 elements: 64 * in_bits bytes
// read, 64 * out_bits written, both whole lines). Each block's stores depend on its loads,
// as a conversion's do. `in` and `out` are 64-byte aligned; count is a multiple of 512.
// The time of a cast out of cache over this kernel's time is how far the cast is from the
// speed of the memory system (x_limit, < 1: slower than the limit).
inline void TrafficLimit(const uint8_t* in, uint8_t* out, size_t count, size_t in_bits,
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

// Calls per batch for a call that moves `bytes` bytes: about 16 MiB per batch (a few
// milliseconds), at least one call.
inline size_t BatchCalls(size_t bytes) {
  return std::max<size_t>(1, (size_t{16} << 20) / (bytes + 1));
}

}  // namespace tensorcast_bench

#endif  // TENSORCAST_BENCH_BENCH_UTIL_H_
