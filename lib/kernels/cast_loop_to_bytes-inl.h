// CastLoopToBytes and PackBytes: the loops of every kernel whose outputs are bytes computed
// in wider lanes (float8 and E8M0 encoders, FLOAT and FLOAT16 -> 8-bit integers and BOOL).
// Four (u32 lanes) or two (u16 lanes) vectors of byte values are packed into one with an OR
// tree and two shuffles instead of a narrowing per vector; the head and the tail go through
// CastLoop (cast_loop-inl.h).

// Highway per-target include guard (re-included once per target by foreach_target).
#if defined(TENSORCAST_LIB_KERNELS_CAST_LOOP_TO_BYTES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_CAST_LOOP_TO_BYTES_INL_H_
#undef TENSORCAST_LIB_KERNELS_CAST_LOOP_TO_BYTES_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_CAST_LOOP_TO_BYTES_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "lib/kernels/cast_loop-inl.h"
#include "lib/kernels/source_prefetch.h"
#include "lib/tuning.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The packing loop of CastLoopToBytes: out[i] for whole groups of R = 4 (u32 lanes) or 2
// (u16 lanes) vectors of `dw`, where at(i) returns the byte values (<= 255) of elements
// i .. i + Lanes(dw) - 1 in `dw` lanes; the bytes are packed with one OR tree and two
// shuffles instead of a narrowing per vector. kStream: non-temporal stores (`out` must be
// vector-aligned) and prefetch.Lines() of each group's source. Returns the elements done
// (SCALAR: 0).
template <bool kStream, class DW, class At, class Prefetch>
HWY_INLINE size_t PackBytesLoop(DW dw, uint8_t* HWY_RESTRICT out, size_t count, const At& at,
                                const Prefetch& prefetch) {
  using TW = hn::TFromD<DW>;
  static_assert(sizeof(TW) == 4 || sizeof(TW) == 2, "u32 or u16 lanes");
  size_t i = 0;
  (void)dw;
  (void)out;
  (void)count;
  (void)at;
  (void)prefetch;
#if HWY_TARGET != HWY_SCALAR
  constexpr size_t kR = sizeof(TW);  // vectors per packed vector
  const size_t N = hn::Lanes(dw);
  const hn::Repartition<uint8_t, DW> dbytes;  // a full vector of bytes
  // A group: the bytes of one r_j within a 128-bit block (4 bytes for u32 lanes, 8 for u16).
  using TG = typename std::conditional<kR == 4, uint32_t, uint64_t>::type;
  const hn::Repartition<TG, DW> dg;
  // w = r0 | r1 << 8 (| r2 << 16 | r3 << 24) holds in each 128-bit block, lane by lane,
  // the bytes r0[l] r1[l] ..; `transpose` gathers them into group j = r_j's bytes of the
  // block, then `groups` moves group j of block b to position j * blocks + b.
  HWY_ALIGN uint8_t transpose_bytes[16];
  for (size_t j = 0; j < kR; ++j) {
    for (size_t l = 0; l < 16 / kR; ++l) {
      transpose_bytes[j * (16 / kR) + l] = static_cast<uint8_t>(l * kR + j);
    }
  }
  const auto transpose = hn::LoadDup128(dbytes, transpose_bytes);
  const size_t group_count = hn::Lanes(dg);
  const size_t blocks = group_count / kR;
  using TI = hwy::MakeSigned<TG>;
  HWY_ALIGN TI group_index[HWY_MAX_BYTES / sizeof(TG)];
  for (size_t p = 0; p < group_count; ++p) {
    group_index[p] = static_cast<TI>(kR * (p % blocks) + p / blocks);
  }
  const auto groups = hn::SetTableIndices(dg, group_index);
  for (; i + kR * N <= count; i += kR * N) {
    if constexpr (kStream) prefetch.Lines(i, kR * N);
    auto w = at(i);
    w = hn::Or(w, hn::ShiftLeft<8>(at(i + N)));
    if constexpr (kR == 4) {
      w = hn::Or(w, hn::Or(hn::ShiftLeft<16>(at(i + 2 * N)), hn::ShiftLeft<24>(at(i + 3 * N))));
    }
    auto packed = hn::BitCast(dg, hn::TableLookupBytes(hn::BitCast(dbytes, w), transpose));
    if (blocks > 1) packed = hn::TableLookupLanes(packed, groups);
    if constexpr (kStream) {
      hn::Stream(hn::BitCast(dbytes, packed), dbytes, out + i);
    } else {
      hn::StoreU(hn::BitCast(dbytes, packed), dbytes, out + i);
    }
  }
#endif
  return i;
}

// PackBytesLoop over `count` elements of kSourceBytes each at `src`, rest(from, to) for
// the elements it leaves. With kMayStream, outputs of kCastLoopStreamBytes and more are
// streamed (non-temporal stores, like memcpy at that size: the loop then does not read
// every output line before writing it) with the source prefetched (SourcePrefetch), after
// a head up to the first vector-aligned output byte that rest() converts.
// CastLoopToBytes streams for every source width: faster for 4- and 8-byte sources on
// Zen 4 and Zen 5, and for 2-byte sources on Zen 5, on one thread and more so on two; the
// 2-byte case is still to be confirmed on Zen 4 (bench/results/tuning.md).
template <bool kMayStream, size_t kSourceBytes, class DW, class At, class Rest>
HWY_INLINE void PackBytes(DW dw, const void* src, uint8_t* HWY_RESTRICT out, size_t count,
                          const At& at, const Rest& rest) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  // Every packed vector is stored aligned (in cache too, as memcpy does): rest() converts
  // the head up to the first vector-aligned output byte.
  const size_t vector_bytes = hn::Lanes(hn::Repartition<uint8_t, DW>());
  // Non-temporal stores need that alignment: without a whole aligned vector, no streaming.
  const size_t head = detail::ElementsToAlignment(out, vector_bytes);
  const bool aligned = head + vector_bytes <= count;
  if (aligned) {
    rest(0, head);
    i = head;
  }
  const auto at_i = [&, from = i](size_t k) TENSORCAST_LAMBDA_INLINE { return at(from + k); };
  if (kMayStream && aligned && count >= tuning::StreamBytes(kCastLoopStreamBytes)) {
    const SourcePrefetch<kSourceBytes> prefetch(static_cast<const uint8_t*>(src) +
                                                i * kSourceBytes);
    i += PackBytesLoop<true>(dw, out + i, count - i, at_i, prefetch);
    hwy::FlushStream();
  } else {
    i += PackBytesLoop<false>(dw, out + i, count - i, at_i, NoSourcePrefetch());
  }
#else
  (void)dw;
  (void)src;
  (void)out;
  (void)at;
#endif
  rest(i, count);
}

// out[i] = op(in[i]), where op maps a vector of `din` to a vector of `dw` (u32 or u16
// lanes, as many as `din` has) holding byte values (<= 255): PackBytesLoop, then the
// rest through CastLoop.
template <class DW, class DIn, class Op>
HWY_INLINE void CastLoopToBytes(DW dw, DIn din, const hn::TFromD<DIn>* HWY_RESTRICT in,
                                uint8_t* HWY_RESTRICT out, size_t count, const Op& op) {
  using TW = hn::TFromD<DW>;
  const hn::Rebind<uint8_t, DW> du8;
  PackBytes<true, sizeof(hn::TFromD<DIn>)>(
      dw, in, out, count,
      [&](size_t k) TENSORCAST_LAMBDA_INLINE { return op(hn::LoadU(din, in + k)); },
      [&](size_t from, size_t to) HWY_ATTR {
        CastLoop(din, du8, in + from, out + from, to - from,
                 [&](hn::Vec<DIn> v) TENSORCAST_LAMBDA_INLINE {
                   if constexpr (sizeof(TW) == 4) {
                     return hn::U8FromU32(op(v));
                   } else {
                     return hn::TruncateTo(du8, op(v));
                   }
                 });
      });
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_CAST_LOOP_TO_BYTES_INL_H_
