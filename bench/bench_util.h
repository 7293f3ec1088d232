// Helpers shared by the family benchmarks (float8_bench, subbyte_bench).
#ifndef TENSORCAST_BENCH_BENCH_UTIL_H_
#define TENSORCAST_BENCH_BENCH_UTIL_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

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

}  // namespace tensorcast_bench

#endif  // TENSORCAST_BENCH_BENCH_UTIL_H_
