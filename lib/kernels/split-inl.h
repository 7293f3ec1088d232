// Split copy kernels (per Highway target; lib/split.cc compiles them for each target
// with foreach_target and dispatches once per Split call).
//
// What: an ONNX Split of a tensor viewed as [outer, d, inner] is, for each outer row
//   r and each non-empty output i, one contiguous block of size_i * inner elements
//   copied from source row r to row r of output i. Units are bytes for whole-byte
//   element types and bits for the packed 4-/2-bit types. Empty outputs are not in
//   the plan and are never touched. Every source byte is read exactly once.
// Order (bytes):
//   - outer == 1 (axis 0 or leading dimensions of 1): one copy per output;
//   - every block >= kRowMajorMinBlock: row by row, each row's blocks in order, so the
//     source is read as one sequential stream (the hardware prefetcher's case);
//   - equal blocks of one 1/2/4/8-byte lane into 2..4 outputs (e.g. [N, 8] floats into
//     4 x 2): a vector lane deinterleave (Highway LoadInterleaved2/3/4);
//   - otherwise tiles of about kTileBytes of source rows; inside a tile each output
//     copies its block of every row with one loop of one block size (fixed-size
//     inlined moves for 1..64 bytes, two overlapping moves for other sizes < 64).
//     The tile stays in L1 while its blocks are copied: memory sees one pass.
// Copies: vector loops of 32-byte vectors (512-bit copies measured slower), 8 per iteration with
// all loads before the stores, aligned stores from
//   kAlignMin bytes on (a misaligned output would split every store across two cache
//   lines), an overlapping last vector. Exception: a contiguous block (outer == 1) of
//   kMemcpyMinBlock bytes or more that is not streamed goes to memcpy, which measured
//   faster than the vector loop for L2-resident tensors (bench/results/tuning.md).
// Streaming: when the source is larger than the caches (plan.stream: at least
//   tuning::StreamBytes(kSplitStreamBytes), at most 16 MiB), blocks of kStreamMinBlock
//   bytes and more are copied with vector loads and non-temporal stores (no
//   read-for-ownership of the outputs; glibc's memcpy does not stream at these sizes, so
//   this beats it out of cache; bench/results/tuning.md, "Split"); smaller blocks are
//   gathered per tile and output in an L1 stage, which is then streamed.
// Packed types: a block starting or ending inside a byte is shifted into place with
//   64-bit lanes (vector funnel shift: two unaligned loads 8 bytes apart, two shifts,
//   one Or; full vectors, then one last overlapping 32-byte vector; 64-bit scalar words
//   for short blocks and at the end of the source) and a final masked byte. Outputs
//   are written sequentially, so a block that starts mid-byte merges with the bits
//   already written below it, and the bits above the end of a block are written as
//   zero (the padding of the last byte ends up zero).
// Bounds: no store outside the blocks' byte ranges; no load outside the source tensor
//   (packed vector loads may read source bytes past a block) and the first byte of a
//   packed output block that starts mid-byte.
#ifndef TENSORCAST_LIB_KERNELS_SPLIT_PLAN_H_
#define TENSORCAST_LIB_KERNELS_SPLIT_PLAN_H_

#include <cstddef>
#include <cstdint>

#include "lib/tuning.h"

namespace tensorcast {
namespace split_internal {

// One non-empty output: destination, block length per outer row and the block's
// offset inside a source row (bytes, or bits for packed types).
struct SplitPart {
  uint8_t* dst;
  size_t block;
  size_t offset;
};

// A validated split of a non-empty tensor; only non-empty outputs are listed.
struct SplitPlan {
  const uint8_t* src;
  const SplitPart* parts;
  size_t num_parts;
  size_t outer;  // product of the dimensions before the axis
  size_t row;    // units per outer row of the source (= sum of the blocks)
  bool stream;   // the split is larger than the caches: use non-temporal stores
};

// The thresholds of lib/tuning.h under shorter names.
constexpr size_t kTileBytes = tuning::kSplitTileBytes;
constexpr size_t kRowMajorMinBlock = tuning::kSplitRowMajorMinBlock;
constexpr size_t kAlignMin = tuning::kSplitAlignMinBytes;
constexpr size_t kStreamMinBlock = tuning::kSplitStreamMinBlock;
constexpr size_t kMemcpyMinBlock = tuning::kSplitMemcpyMinBlock;

}  // namespace split_internal
}  // namespace tensorcast

#endif  // TENSORCAST_LIB_KERNELS_SPLIT_PLAN_H_

// Per-target part (Highway toggle guard).
#if defined(TENSORCAST_LIB_KERNELS_SPLIT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_SPLIT_INL_H_
#undef TENSORCAST_LIB_KERNELS_SPLIT_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_SPLIT_INL_H_
#endif

#include <algorithm>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "lib/kernels/stream_copy-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace split_kernels {

namespace hn = hwy::HWY_NAMESPACE;
using split_internal::SplitPart;
using split_internal::SplitPlan;

// ------------------------------------------------------------------ byte copies

#if HWY_TARGET != HWY_SCALAR
// 8 vectors from s to the vector-aligned d, all loads before the stores.
template <class D>
HWY_INLINE void Move8Vectors(D du8, uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s) {
  const size_t N = hn::Lanes(du8);
  const auto v0 = hn::LoadU(du8, s);
  const auto v1 = hn::LoadU(du8, s + 1 * N);
  const auto v2 = hn::LoadU(du8, s + 2 * N);
  const auto v3 = hn::LoadU(du8, s + 3 * N);
  const auto v4 = hn::LoadU(du8, s + 4 * N);
  const auto v5 = hn::LoadU(du8, s + 5 * N);
  const auto v6 = hn::LoadU(du8, s + 6 * N);
  const auto v7 = hn::LoadU(du8, s + 7 * N);
  hn::Store(v0, du8, d);
  hn::Store(v1, du8, d + 1 * N);
  hn::Store(v2, du8, d + 2 * N);
  hn::Store(v3, du8, d + 3 * N);
  hn::Store(v4, du8, d + 4 * N);
  hn::Store(v5, du8, d + 5 * N);
  hn::Store(v6, du8, d + 6 * N);
  hn::Store(v7, du8, d + 7 * N);
}
#endif

// n >= 64 bytes with 32-byte vectors (16 on 128-bit targets). From kAlignMin bytes
// on, one unaligned head vector if d is misaligned, then aligned groups of 8; the
// tail is one overlapping vector. (See the header comment for why not memcpy.)
HWY_INLINE void CopyVectors(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t n) {
#if HWY_TARGET == HWY_SCALAR
  std::memcpy(d, s, n);
#else
  const hn::CappedTag<uint8_t, 32> du8;
  const size_t N = hn::Lanes(du8);    // 16 or 32
  uint8_t* const last_d = d + n - N;  // the overlapping tail vector
  const uint8_t* const last_s = s + n - N;
  if (n >= split_internal::kAlignMin) {
    const size_t head = (N - (reinterpret_cast<uintptr_t>(d) & (N - 1))) & (N - 1);
    if (head != 0) {
      hn::StoreU(hn::LoadU(du8, s), du8, d);
      d += head;
      s += head;
      n -= head;
    }
    // Pointer increments keep the stores in base + displacement form (faster than indexed).
    for (; n >= 8 * N; n -= 8 * N, d += 8 * N, s += 8 * N) Move8Vectors(du8, d, s);
  }
  for (; n >= N; n -= N, d += N, s += N) hn::StoreU(hn::LoadU(du8, s), du8, d);
  if (n != 0) hn::StoreU(hn::LoadU(du8, last_s), du8, last_d);
#endif
}

// n a multiple of the vector size (Lanes of CappedTag<uint8_t, 32>), d aligned to it:
// no head or tail work (rows of equal splits whose blocks keep the outputs aligned).
HWY_INLINE void CopyAlignedVectors(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s,
                                   size_t n) {
#if HWY_TARGET == HWY_SCALAR
  std::memcpy(d, s, n);
#else
  const hn::CappedTag<uint8_t, 32> du8;
  const size_t N = hn::Lanes(du8);
  for (; n >= 8 * N; n -= 8 * N, d += 8 * N, s += 8 * N) Move8Vectors(du8, d, s);
  for (; n != 0; n -= N, d += N, s += N) hn::Store(hn::LoadU(du8, s), du8, d);
#endif
}

// Any n, inlined.
HWY_INLINE void CopyBytes(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t n) {
  if (n < 64) {
    CopySmall(d, s, n);
  } else {
    CopyVectors(d, s, n);
  }
}

// `rows` blocks of kBytes: source rows `stride` apart, destination rows contiguous.
// Unrolled by 4: the loop is bound by stores (two per cycle on current x86 cores).
template <size_t kBytes>
HWY_NOINLINE void CopyRowsFixed(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t rows,
                                size_t stride) {
  size_t r = 0;
  for (; r + 4 <= rows; r += 4, d += 4 * kBytes, s += 4 * stride) {
    MoveBytes<kBytes>(d, s);
    MoveBytes<kBytes>(d + kBytes, s + stride);
    MoveBytes<kBytes>(d + 2 * kBytes, s + 2 * stride);
    MoveBytes<kBytes>(d + 3 * kBytes, s + 3 * stride);
  }
  for (; r < rows; ++r, d += kBytes, s += stride) MoveBytes<kBytes>(d, s);
}

HWY_NOINLINE void CopyRowsSmall(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t rows,
                                size_t block, size_t stride) {
  for (size_t r = 0; r < rows; ++r) CopySmall(d + r * block, s + r * stride, block);
}

// `rows` blocks of `block` bytes from source rows `stride` apart to contiguous rows.
HWY_INLINE void CopyRows(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t rows,
                         size_t block, size_t stride, bool stream) {
  switch (block) {
    case 1: return CopyRowsFixed<1>(d, s, rows, stride);
    case 2: return CopyRowsFixed<2>(d, s, rows, stride);
    case 4: return CopyRowsFixed<4>(d, s, rows, stride);
    case 8: return CopyRowsFixed<8>(d, s, rows, stride);
    case 16: return CopyRowsFixed<16>(d, s, rows, stride);
    case 32: return CopyRowsFixed<32>(d, s, rows, stride);
    case 64: return CopyRowsFixed<64>(d, s, rows, stride);
    default: break;
  }
  if (block < 64) return CopyRowsSmall(d, s, rows, block, stride);
  if (stream && block >= split_internal::kStreamMinBlock) {
    for (size_t r = 0; r < rows; ++r) StreamCopy(s + r * stride, d + r * block, block);
    return;
  }
  for (size_t r = 0; r < rows; ++r) CopyVectors(d + r * block, s + r * stride, block);
}

// An equal split of short rows into 2..4 blocks of one lane each (T: 1, 2, 4 or 8
// bytes), e.g. [N, 8] floats into 4 x 2 or boxes [N, 4] into x, y, w, h: a lane
// deinterleave of Lanes(d) rows per step (full-vector stores instead of one small
// store per block), scalar moves for the last rows. Pointers are aligned to T.
template <typename T>
HWY_NOINLINE void DeinterleaveRows(uint8_t* const* dst, const uint8_t* HWY_RESTRICT src,
                                   size_t rows, size_t parts) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const T* s = reinterpret_cast<const T*>(src);
  T* d0 = reinterpret_cast<T*>(dst[0]);
  T* d1 = reinterpret_cast<T*>(dst[1]);
  size_t r = 0;
  if (parts == 2) {
    for (; r + N <= rows; r += N) {
      hn::Vec<decltype(d)> v0, v1;
      hn::LoadInterleaved2(d, s + 2 * r, v0, v1);
      hn::StoreU(v0, d, d0 + r);
      hn::StoreU(v1, d, d1 + r);
    }
  } else if (parts == 3) {
    T* d2 = reinterpret_cast<T*>(dst[2]);
    for (; r + N <= rows; r += N) {
      hn::Vec<decltype(d)> v0, v1, v2;
      hn::LoadInterleaved3(d, s + 3 * r, v0, v1, v2);
      hn::StoreU(v0, d, d0 + r);
      hn::StoreU(v1, d, d1 + r);
      hn::StoreU(v2, d, d2 + r);
    }
  } else {
    T* d2 = reinterpret_cast<T*>(dst[2]);
    T* d3 = reinterpret_cast<T*>(dst[3]);
    for (; r + N <= rows; r += N) {
      hn::Vec<decltype(d)> v0, v1, v2, v3;
      hn::LoadInterleaved4(d, s + 4 * r, v0, v1, v2, v3);
      hn::StoreU(v0, d, d0 + r);
      hn::StoreU(v1, d, d1 + r);
      hn::StoreU(v2, d, d2 + r);
      hn::StoreU(v3, d, d3 + r);
    }
  }
  for (; r < rows; ++r) {
    for (size_t i = 0; i < parts; ++i) {
      MoveBytes<sizeof(T)>(dst[i] + r * sizeof(T), src + (r * parts + i) * sizeof(T));
    }
  }
}

HWY_INLINE void Deinterleave(size_t lane_bytes, uint8_t* const* dst, const uint8_t* src,
                             size_t rows, size_t parts) {
  switch (lane_bytes) {
    case 1: return DeinterleaveRows<uint8_t>(dst, src, rows, parts);
    case 2: return DeinterleaveRows<uint16_t>(dst, src, rows, parts);
    case 4: return DeinterleaveRows<uint32_t>(dst, src, rows, parts);
    default: return DeinterleaveRows<uint64_t>(dst, src, rows, parts);
  }
}

// Whether `plan` is an equal split of rows into 2..4 single-lane blocks with pointers
// aligned to the lane.
HWY_INLINE bool IsLaneDeinterleave(const SplitPlan& plan) {
  const size_t parts = plan.num_parts, lane = plan.parts[0].block;
  if (parts < 2 || parts > 4 || plan.row != parts * lane) return false;
  if (lane != 1 && lane != 2 && lane != 4 && lane != 8) return false;
  uintptr_t bits = reinterpret_cast<uintptr_t>(plan.src);
  for (size_t i = 0; i < parts; ++i) {
    if (plan.parts[i].block != lane) return false;
    bits |= reinterpret_cast<uintptr_t>(plan.parts[i].dst);
  }
  return (bits & (lane - 1)) == 0;
}

// Whole-byte element types (and complex, bool, float8 ...): units are bytes.
HWY_NOINLINE void SplitBytes(const SplitPlan& plan) {
  const SplitPart* parts = plan.parts;
  if (plan.outer == 1) {
    for (size_t i = 0; i < plan.num_parts; ++i) {
      const SplitPart& p = parts[i];
      if (plan.stream && p.block >= split_internal::kStreamMinBlock) {
        StreamCopy(plan.src + p.offset, p.dst, p.block);
      } else if (p.block >= split_internal::kMemcpyMinBlock) {
        // Cache-resident contiguous blocks: glibc's memcpy (rep movsb on the CPUs measured)
        // is faster than the vector loop when source and outputs fit in L2
        // (bench/results/tuning.md, "Split").
        std::memcpy(p.dst, plan.src + p.offset, p.block);
      } else {
        CopyBytes(p.dst, plan.src + p.offset, p.block);
      }
    }
  } else {
    // Blocks of kRowMajorMinBlock and more: row by row, reading the source in order
    // (the hardware prefetcher follows one stream), one vector loop per block.
    size_t min_block = plan.row;
    for (size_t i = 0; i < plan.num_parts; ++i) min_block = std::min(min_block, parts[i].block);
    if (min_block >= split_internal::kRowMajorMinBlock) {
#if HWY_TARGET != HWY_SCALAR
      // Every block starts aligned in its output: the head/tail-free loop.
      const size_t N = hn::Lanes(hn::CappedTag<uint8_t, 32>());
      bool aligned = !plan.stream;
      for (size_t i = 0; i < plan.num_parts; ++i) {
        aligned &= ((reinterpret_cast<uintptr_t>(parts[i].dst) | parts[i].block) & (N - 1)) == 0;
      }
      if (aligned) {
        for (size_t r = 0; r < plan.outer; ++r) {
          const uint8_t* s = plan.src + r * plan.row;
          for (size_t i = 0; i < plan.num_parts; ++i) {
            CopyAlignedVectors(parts[i].dst + r * parts[i].block, s + parts[i].offset,
                               parts[i].block);
          }
        }
        return;
      }
#endif
      for (size_t r = 0; r < plan.outer; ++r) {
        const uint8_t* s = plan.src + r * plan.row;
        for (size_t i = 0; i < plan.num_parts; ++i) {
          const SplitPart& p = parts[i];
          if (plan.stream && p.block >= split_internal::kStreamMinBlock) {
            StreamCopy(s + p.offset, p.dst + r * p.block, p.block);
          } else {
            CopyVectors(p.dst + r * p.block, s + p.offset, p.block);
          }
        }
      }
      if (plan.stream) hwy::FlushStream();
      return;
    }
    // Smaller blocks: tiles of rows, one loop per output and tile.
    const size_t tile = std::max<size_t>(1, split_internal::kTileBytes / plan.row);
    // Streaming small blocks: a tile's blocks of one output are gathered in an
    // L1-resident stage, then streamed to the output as one contiguous run.
    HWY_ALIGN uint8_t stage[split_internal::kTileBytes];
#if HWY_TARGET != HWY_SCALAR
    if (IsLaneDeinterleave(plan)) {
      const size_t lane = parts[0].block, n = plan.num_parts;
      uint8_t* dst[4];
      if (!plan.stream) {
        for (size_t i = 0; i < n; ++i) dst[i] = parts[i].dst;
        Deinterleave(lane, dst, plan.src, plan.outer, n);
        return;
      }
      for (size_t r0 = 0; r0 < plan.outer; r0 += tile) {
        const size_t rows = std::min(tile, plan.outer - r0);
        for (size_t i = 0; i < n; ++i) dst[i] = stage + i * rows * lane;
        Deinterleave(lane, dst, plan.src + r0 * plan.row, rows, n);
        for (size_t i = 0; i < n; ++i) {
          const size_t run = rows * lane;
          if (run >= split_internal::kStreamMinBlock) {
            StreamCopy(dst[i], parts[i].dst + r0 * lane, run);
          } else {
            CopyBytes(parts[i].dst + r0 * lane, dst[i], run);
          }
        }
      }
      hwy::FlushStream();
      return;
    }
#endif
    for (size_t r0 = 0; r0 < plan.outer; r0 += tile) {
      const size_t rows = std::min(tile, plan.outer - r0);
      const uint8_t* s = plan.src + r0 * plan.row;
      for (size_t i = 0; i < plan.num_parts; ++i) {
        const SplitPart& p = parts[i];
        const size_t run = rows * p.block;  // contiguous in the output
        if (plan.stream && p.block < split_internal::kStreamMinBlock &&
            run >= split_internal::kStreamMinBlock && run <= sizeof(stage)) {
          CopyRows(stage, s + p.offset, rows, p.block, plan.row, false);
          StreamCopy(stage, p.dst + r0 * p.block, run);
        } else {
          CopyRows(p.dst + r0 * p.block, s + p.offset, rows, p.block, plan.row, plan.stream);
        }
      }
    }
  }
  if (plan.stream) hwy::FlushStream();
}

// ------------------------------------------------------------------ bit copies

// Loads `nbytes` (1..8) bytes little-endian.
HWY_INLINE uint64_t LoadLE(const uint8_t* p, size_t nbytes) {
  uint64_t v = 0;
  if (nbytes == 8) {
    std::memcpy(&v, p, 8);
  } else {
    for (size_t i = 0; i < nbytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  }
  return v;
}

// Stores the low 8 * nbytes (1..7) bits of v little-endian.
HWY_INLINE void StoreLE(uint8_t* p, uint64_t v, size_t nbytes) {
  for (size_t i = 0; i < nbytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Bits [pos, pos + n) of s (1 <= n <= 57) in the low bits, zero above; reads only the
// bytes those bits occupy.
HWY_INLINE uint64_t LoadBits(const uint8_t* s, size_t pos, size_t n) {
  const size_t sh = pos & 7;
  const size_t nbytes = (sh + n + 7) >> 3;
  return (LoadLE(s + (pos >> 3), nbytes) >> sh) & ((uint64_t{1} << n) - 1);
}

// One funnel-shifted vector: d[0..N) from s[0..N+8).
template <class D>
HWY_INLINE void FunnelVector(D du8, uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s,
                             int sr) {
#if HWY_TARGET == HWY_SCALAR
  (void)du8, (void)d, (void)s, (void)sr;
#else
  const hn::Repartition<uint64_t, D> du64;
  const auto lo = hn::BitCast(du64, hn::LoadU(du8, s));
  const auto hi = hn::BitCast(du64, hn::LoadU(du8, s + 8));
  const auto w = hn::Or(hn::ShiftRightSame(lo, sr), hn::ShiftLeftSame(hi, 64 - sr));
  hn::StoreU(hn::BitCast(du8, w), du8, d);
#endif
}

// d[0..n) = the bytes at s shifted right by sr (1..7) bits: byte k takes bits sr..7 of
// s[k] and bits 0..sr-1 of s[k+1]; s[0..n] is the run, s[0..readable) may be read.
// 64-bit lanes: two unaligned loads 8 bytes apart, two shifts, one Or per vector;
// full vectors, then a last vector overlapping the previous one (rewriting bytes with
// the same values). Without 8 readable bytes past the run (the end of the tensor), or
// for short runs: 64-bit words, the last one overlapping too.
HWY_INLINE void FunnelBytes(uint8_t* HWY_RESTRICT d, const uint8_t* HWY_RESTRICT s, size_t n,
                            size_t readable, size_t sr) {
#if HWY_TARGET == HWY_SCALAR
  (void)readable;
#else
  const int shift = static_cast<int>(sr);
  const hn::CappedTag<uint8_t, 32> d32;
  const size_t N32 = hn::Lanes(d32);
  if (n >= N32 && n + 8 <= readable) {
    const hn::ScalableTag<uint8_t> dv;
    const size_t N = hn::Lanes(dv);
    size_t k = 0;
    for (; k + N <= n; k += N) FunnelVector(dv, d + k, s + k, shift);
    for (; k + N32 <= n; k += N32) FunnelVector(d32, d + k, s + k, shift);
    if (k < n) FunnelVector(d32, d + n - N32, s + n - N32, shift);
    return;
  }
#endif
  size_t k = 0;
  for (; k + 8 <= n; k += 8) {  // s[k + 8] is part of the run: bits remain after byte n-1
    uint64_t lo;
    std::memcpy(&lo, s + k, 8);
    const uint64_t w = (lo >> sr) | (uint64_t{s[k + 8]} << (64 - sr));
    std::memcpy(d + k, &w, 8);
  }
  if (k < n) {
    if (n >= 8) {  // one more word, overlapping
      uint64_t lo;
      std::memcpy(&lo, s + n - 8, 8);
      const uint64_t w = (lo >> sr) | (uint64_t{s[n]} << (64 - sr));
      std::memcpy(d + n - 8, &w, 8);
    } else {
      StoreLE(d, LoadBits(s, sr, 8 * n), n);
    }
  }
}

// As LoadBits, with one 8-byte load when [s + pos / 8, +8) lies below `end`.
HWY_INLINE uint64_t LoadBitsBefore(const uint8_t* s, size_t pos, size_t n, const uint8_t* end) {
  const uint8_t* p = s + (pos >> 3);
  if (end - p < 8) return LoadBits(s, pos, n);
  uint64_t v;
  std::memcpy(&v, p, 8);
  return (v >> (pos & 7)) & ((uint64_t{1} << n) - 1);
}

// Copies nbits >= 1 bits from src bit sbit to dst bit dbit (bit k of byte j is bit
// 8j + k). dst bits below dbit in its first byte are kept, bits above the end in the
// last byte are set to zero. Reads source bytes below src_bytes (the whole source
// tensor: vector loads may reach past the run) and the first destination byte (when
// dbit is not byte-aligned); writes only the destination bytes of the run.
HWY_INLINE void CopyBits(uint8_t* HWY_RESTRICT dst, size_t dbit, const uint8_t* HWY_RESTRICT src,
                         size_t src_bytes, size_t sbit, size_t nbits) {
  uint8_t* d = dst + (dbit >> 3);
  const size_t dr = dbit & 7;
  if (dr != 0) {  // finish the partial destination byte
    const size_t t = std::min(nbits, 8 - dr);
    const uint64_t v = LoadBitsBefore(src, sbit, t, src + src_bytes);
    *d = static_cast<uint8_t>((*d & ((1u << dr) - 1)) | (v << dr));
    sbit += t;
    nbits -= t;
    if (nbits == 0) return;
    ++d;
  }
  // d is byte-aligned from here on.
  const uint8_t* s = src + (sbit >> 3);
  const size_t sr = sbit & 7;
  const size_t full = nbits >> 3;  // whole destination bytes
  if (sr == 0) {
    CopyBytes(d, s, full);
  } else {
    FunnelBytes(d, s, full, src_bytes - (sbit >> 3), sr);
  }
  const size_t rest = nbits & 7;
  if (rest != 0) {
    d[full] = static_cast<uint8_t>(LoadBitsBefore(s, sr + 8 * full, rest, src + src_bytes));
  }
}

// Packed 4-/2-bit element types: units are bits.
HWY_NOINLINE void SplitBits(const SplitPlan& plan) {
  const SplitPart* parts = plan.parts;
  const size_t tile = std::max<size_t>(1, split_internal::kTileBytes * 8 / plan.row);
  const size_t src_bytes = (plan.outer * plan.row + 7) / 8;
  for (size_t r0 = 0; r0 < plan.outer; r0 += tile) {
    const size_t rows = std::min(tile, plan.outer - r0);
    for (size_t i = 0; i < plan.num_parts; ++i) {
      const SplitPart& p = parts[i];
      size_t sbit = r0 * plan.row + p.offset;
      size_t dbit = r0 * p.block;
      for (size_t r = 0; r < rows; ++r, sbit += plan.row, dbit += p.block) {
        CopyBits(p.dst, dbit, plan.src, src_bytes, sbit, p.block);
      }
    }
  }
}

}  // namespace split_kernels

// Entry points exported by lib/split.cc.
HWY_NOINLINE void SplitBytesImpl(const split_internal::SplitPlan& plan) {
  split_kernels::SplitBytes(plan);
}
HWY_NOINLINE void SplitBitsImpl(const split_internal::SplitPlan& plan) {
  split_kernels::SplitBits(plan);
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_SPLIT_INL_H_ toggle guard
