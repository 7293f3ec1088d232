// Split throughput next to memcpy of the same bytes, in the same binary.
// bytes_per_second counts bytes read + written (source + all outputs), for memcpy too
// (2 x its size), so rows of equal size compare directly. Each Split row also reports
// x_memcpy, measured inside the row (interleaved batches, see BM_Split), and for
// whole-byte types x_memcpy_blocks: next to glibc's memcpy called once per block. Times are CPU
// time; all buffers are 64-byte aligned.
//
//   Split/FLOAT[S,S]/axis0/4   the equal 4-way split along axis 0 (4 contiguous copies)
//   Split/FLOAT[S,S]/axis1/4   along the last axis (S rows x 4 blocks of S/4 floats)
//     S = 16, 32, 64 (1, 4, 16 KiB: the time of a small call), 128 (64 KiB), 256 (256 KiB:
//         source + outputs fit a 1 MiB L2), 512 (1 MiB: L3), 4096 (64 MiB) and 8192
//         (256 MiB), and the out-of-cache side: source + outputs at least 1 GiB and four
//         times the last-level cache (bench_util.h OutOfCacheTrafficBytes; 11648 for
//         1 GiB)
//   Split/FLOAT[N,8]/axis1/4   small blocks: N rows x 4 blocks of 2 floats (8 bytes)
//   Split/INT4[R,C]/axis1/...  packed 4-bit, sizes that put the boundaries mid-byte
//   memcpy/<bytes>             memcpy of the source size of the rows above
//
// On a shared machine, interleave repetitions so that load changes hit every row alike:
//   build-*/bench/split_bench --benchmark_repetitions=10
//       --benchmark_enable_random_interleaving=true --benchmark_min_time=0.05
#include <benchmark/benchmark.h>
#include <tensorcast/tensorcast.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "lib/cache_info.h"

namespace {

using tensorcast::DataType;

using tensorcast_bench::AlignedBuffer;

std::string SizeName(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + "MiB"
                                    : std::to_string(bytes >> 10) + "KiB";
}

// Source filled with a byte pattern, outputs allocated and touched up front (no page
// faults inside the timed loop).
void BM_Split(benchmark::State& state, DataType type, std::vector<int64_t> shape, int64_t axis,
              std::vector<int64_t> sizes) {
  size_t total = 1;
  for (int64_t d : shape) total *= static_cast<size_t>(d);
  const size_t src_bytes = tensorcast::StorageBytes(type, total);
  AlignedBuffer src(src_bytes, 0);
  for (size_t i = 0; i < src_bytes; ++i) src.data()[i] = static_cast<uint8_t>(i * 131 + 7);
  const size_t ax =
      static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis);
  size_t outer = 1, inner = 1;
  for (size_t k = 0; k < ax; ++k) outer *= static_cast<size_t>(shape[k]);
  for (size_t k = ax + 1; k < shape.size(); ++k) inner *= static_cast<size_t>(shape[k]);
  std::vector<std::unique_ptr<AlignedBuffer>> outs;
  std::vector<void*> ptrs;
  size_t out_bytes = 0;
  for (int64_t s : sizes) {
    const size_t bytes = tensorcast::StorageBytes(type, outer * static_cast<size_t>(s) * inner);
    outs.push_back(std::make_unique<AlignedBuffer>(bytes, uint8_t{1}));
    ptrs.push_back(outs.back()->data());
    out_bytes += bytes;
  }
  for (auto _ : state) {
    const tensorcast::Status s = tensorcast::Split(src.data(), type, shape.data(), shape.size(),
                                                   axis, sizes.data(), sizes.size(), ptrs.data());
    if (!s.ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
    benchmark::DoNotOptimize(ptrs.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(src_bytes + out_bytes));
  // x_memcpy: memcpy time of the same bytes (source size, into one buffer) divided by the
  // Split time; x_memcpy_blocks: the same for glibc's memcpy doing the split itself (one
  // call per block, what a plain implementation does). Both from interleaved batches
  // (bench_util.h InterleavedSpeedup). > 1 means Split is faster.
  AlignedBuffer copy_dst(src_bytes, uint8_t{1});
  const auto split_once = [&] {
    (void)tensorcast::Split(src.data(), type, shape.data(), shape.size(), axis, sizes.data(),
                            sizes.size(), ptrs.data());
    benchmark::DoNotOptimize(ptrs.data());
    benchmark::ClobberMemory();
  };
  const auto memcpy_once = [&] {
    std::memcpy(copy_dst.data(), src.data(), src_bytes);
    benchmark::DoNotOptimize(copy_dst.data());
    benchmark::ClobberMemory();
  };
  const size_t batch = tensorcast_bench::BatchCalls(src_bytes);
  state.counters["x_memcpy"] = tensorcast_bench::InterleavedSpeedup(split_once, memcpy_once, batch);
  // x_limit: the same against the traffic limit of a copy of the source (bench_util.h
  // TrafficLimit: aligned loads, whole-line non-temporal stores), out of cache only.
  if (src_bytes >= (size_t{1} << 20) && src_bytes % 512 == 0) {
    const auto limit_once = [&](tensorcast_bench::TrafficLimitVariant v) {
      tensorcast_bench::TrafficLimit(v, src.data(), copy_dst.data(), src_bytes, 8, 8);
      benchmark::DoNotOptimize(copy_dst.data());
      benchmark::ClobberMemory();
    };
    state.counters["x_limit"] =
        tensorcast_bench::InterleavedLimitSpeedup(split_once, limit_once, batch);
  }
  const int bits = tensorcast::BitWidth(type);
  if (bits % 8 == 0) {  // whole-byte elements: blocks are byte ranges
    const size_t elem = static_cast<size_t>(bits / 8);
    size_t row = 0;
    for (int64_t s : sizes) row += static_cast<size_t>(s) * inner * elem;
    const auto blocks_once = [&] {
      for (size_t r = 0; r < outer; ++r) {
        size_t offset = r * row;
        for (size_t i = 0; i < sizes.size(); ++i) {
          const size_t block = static_cast<size_t>(sizes[i]) * inner * elem;
          std::memcpy(static_cast<uint8_t*>(ptrs[i]) + r * block, src.data() + offset, block);
          offset += block;
        }
      }
      benchmark::DoNotOptimize(ptrs.data());
      benchmark::ClobberMemory();
    };
    state.counters["x_memcpy_blocks"] =
        tensorcast_bench::InterleavedSpeedup(split_once, blocks_once, batch);
  }
}

void BM_Memcpy(benchmark::State& state, size_t bytes) {
  AlignedBuffer src(bytes, 1), dst(bytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(2 * bytes));
}

// The side S of the out-of-cache [S, S] float rows: source + outputs of at least
// OutOfCacheTrafficBytes (1 GiB and four times the last-level cache), S a multiple of 64.
int64_t OutOfCacheSide() {
  const size_t traffic = tensorcast_bench::OutOfCacheTrafficBytes(
      tensorcast::cache_info::SystemCacheSizes().llc_bytes);
  int64_t s = 64;
  while (static_cast<size_t>(s * s) * 8 < traffic) s += 64;
  return s;
}

const bool kRegistered = [] {
  std::vector<size_t> memcpy_sizes;
  for (int64_t n : {int64_t{16}, int64_t{32}, int64_t{64}, int64_t{128}, int64_t{256}, int64_t{512},
                    int64_t{4096}, int64_t{8192}, OutOfCacheSide()}) {
    const std::string shape = "FLOAT[" + std::to_string(n) + "," + std::to_string(n) + "]";
    const std::vector<int64_t> quarters(4, n / 4);
    for (int64_t axis : {0, 1}) {
      benchmark::RegisterBenchmark(
          ("Split/" + shape + "/axis" + std::to_string(axis) + "/4").c_str(), BM_Split,
          DataType::kFloat, std::vector<int64_t>{n, n}, axis, quarters);
    }
    memcpy_sizes.push_back(static_cast<size_t>(n * n) * 4);
  }
  // [N, 8] floats into 4 blocks of 2: 256 KiB and 64 MiB, the sizes of S = 256 and 4096.
  for (int64_t n : {int64_t{8192}, int64_t{1} << 21}) {
    benchmark::RegisterBenchmark(("Split/FLOAT[" + std::to_string(n) + ",8]/axis1/4").c_str(),
                                 BM_Split, DataType::kFloat, std::vector<int64_t>{n, 8}, 1,
                                 std::vector<int64_t>{2, 2, 2, 2});
  }
  // INT4 with odd sizes: every block starts and ends mid-byte in source or output.
  benchmark::RegisterBenchmark("Split/INT4[512,1024]/axis1/255,257,253,259", BM_Split,
                               DataType::kInt4, std::vector<int64_t>{512, 1024}, 1,
                               std::vector<int64_t>{255, 257, 253, 259});
  benchmark::RegisterBenchmark("Split/INT4[4096,4096]/axis1/1021,1027,1023,1025", BM_Split,
                               DataType::kInt4, std::vector<int64_t>{4096, 4096}, 1,
                               std::vector<int64_t>{1021, 1027, 1023, 1025});
  memcpy_sizes.push_back(size_t{8} << 20);
  for (size_t bytes : memcpy_sizes) {
    benchmark::RegisterBenchmark(("memcpy/" + SizeName(bytes)).c_str(), BM_Memcpy, bytes);
  }
  return true;
}();

}  // namespace
