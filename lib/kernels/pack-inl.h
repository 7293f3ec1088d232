// Per-target SIMD packing and unpacking of the sub-byte types (docs/semantics.md,
// "Packing"): 4-bit types two per byte, element 2k in the low
// nibble; 2-bit types four per byte, element 0 in bits 0-1; counts are in elements and
// a partial last byte has zero padding bits.
//
// Every packer and unpacker works on whole vectors with order-preserving shuffles,
// shifts and ORs; no element is handled on its own:
//   pack from u32 code lanes:  Pair<s>(a, b) = ConcatEven(b, a) | ConcatOdd(b, a) << s
//                              combines neighbouring codes, NarrowBytes takes the low
//                              byte of each lane of four vectors (ConcatEven u16, u8);
//   pack from u8 code lanes:   in u16 lanes, w = lo | hi << 8 -> (w | w >> 4) keeps the
//                              packed byte in the low byte, ConcatEven u8 collects it;
//   unpack:                    PromoteTo u8 -> u16 (4-bit) or u8 -> u32 (2-bit) gives one
//                              packed byte per lane, shifts spread its fields into the
//                              lane's bytes, so the u8 view lists the codes in order.
// The SCALAR target (1 lane, no Concat*) combines 1-lane vectors with the same shifts.
//
// Chunks: one chunk of a packed type is one u8 vector of packed bytes (Lanes(u8) * 8 /
// bits elements; 2 or 4 on SCALAR). SubbyteLoop runs a kernel body on whole chunks and
// the tail through zero-filled stack buffers: zero source elements encode to code 0,
// so the padding bits of a partial last byte come out 0, as in the reference.

// Highway per-target include guard (re-included once per target by foreach_target).
#if defined(TENSORCAST_LIB_KERNELS_PACK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_PACK_INL_H_
#undef TENSORCAST_LIB_KERNELS_PACK_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_PACK_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "lib/kernels/source_prefetch.h"
#include "lib/tuning.h"

// Lambdas in kernel loops: compiled for the current target and always inlined (GCC
// otherwise keeps a multiply-called lambda out of line, which spills its vectors).
#undef TENSORCAST_LAMBDA_INLINE
#define TENSORCAST_LAMBDA_INLINE HWY_ATTR __attribute__((always_inline))

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU8 = hn::ScalableTag<uint8_t>;

// Elements in one chunk of a kBits-wide packed type: one u8 vector of packed bytes.
template <int kBits>
HWY_INLINE size_t PackedChunk() {
  return hn::Lanes(DU8()) * 8 / kBits;
}

// The largest chunk, in bytes, of any side of a sub-byte kernel: 32 vectors (DOUBLE ->
// 2-bit reads 32 double vectors per chunk of 4 * Lanes(u32) packed bytes).
constexpr size_t kMaxChunkBytes = 32 * (HWY_MAX_BYTES > 16 ? HWY_MAX_BYTES : 16);

// Runs body(in, out) on `count` elements in chunks of `chunk` elements, where a chunk
// occupies chunk * kInBits / 8 source bytes and chunk * kOutBits / 8 target bytes.
// kPrefetch: prefetch the source tuning::PrefetchBytes() ahead (SourcePrefetch), for bodies
// with many operations per source byte (light bodies run a little slower with it: the
// hardware prefetcher suffices there; bench/results/tuning.md).
// The tail is copied into a zero-filled stack buffer, converted as a whole chunk, and
// only its ceil(rest * kOutBits / 8) bytes are copied out: no reads or writes past the
// caller's buffers.
template <int kInBits, int kOutBits, bool kPrefetch = false, class Body>
HWY_INLINE void SubbyteLoop(const void* src, void* dst, size_t count, size_t chunk,
                            const Body& body) {
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  const size_t in_step = chunk * kInBits / 8;
  const size_t out_step = chunk * kOutBits / 8;
  using Prefetch = std::conditional_t<kPrefetch, SourcePrefetch<1>, NoSourcePrefetch>;
  const Prefetch prefetch(src);
  size_t i = 0;
  for (; i + chunk <= count; i += chunk) {
    prefetch.Lines(i * kInBits / 8, in_step);  // the chunk's source bytes
    body(in, out);
    in += in_step;
    out += out_step;
  }
  if (i < count) {
    HWY_ALIGN uint8_t buf_in[kMaxChunkBytes];
    HWY_ALIGN uint8_t buf_out[kMaxChunkBytes];
    const size_t rest = count - i;
    std::memset(buf_in, 0, in_step);
    std::memcpy(buf_in, in, (rest * kInBits + 7) / 8);
    body(buf_in, buf_out);
    std::memcpy(out, buf_out, (rest * kOutBits + 7) / 8);
  }
}

// Decoders whose output reaches kStreamBytes write it with non-temporal stores.
constexpr size_t kStreamBytes = tuning::kSubbyteStreamBytes;

// Stores a vector of a decoder's output: Stream (needs a vector-aligned address, which
// DecodeLoop guarantees) when kStream, else StoreU.
template <bool kStream, class D>
HWY_INLINE void StoreOut(hn::Vec<D> v, D d, hn::TFromD<D>* HWY_RESTRICT p) {
  if constexpr (kStream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

// SubbyteLoop for decoders: body(in, out, std::bool_constant<kStream>) stores its output
// with StoreOut<kStream>. Outputs of at least kStreamBytes: a head of regular stores up to
// the first vector-aligned output byte (when that leaves the source byte-aligned), then
// streaming stores and one FlushStream.
// Encoders whose chunks store whole u8 vectors use it too (kPrefetch as SubbyteLoop). The
// streaming loop prefetches whenever the source is at least as wide as the output, as
// every streaming loop does (SourcePrefetch).
// kStreamAt: the output size from which on it streams (kStreamBytes unless given).
template <int kInBits, int kOutBits, bool kPrefetch = false, size_t kStreamAt = kStreamBytes,
          class Body>
HWY_INLINE void DecodeLoop(const void* src, void* dst, size_t count, size_t chunk,
                           const Body& body) {
  const auto regular = [&](const uint8_t* in, uint8_t* out)
                           TENSORCAST_LAMBDA_INLINE { body(in, out, std::false_type()); };
  if (count * kOutBits / 8 >= tuning::StreamBytes(kStreamAt)) {
    const size_t vector_bytes = hn::Lanes(DU8());
    const size_t misaligned = reinterpret_cast<uintptr_t>(dst) % vector_bytes;
    const size_t head_bytes = misaligned == 0 ? 0 : vector_bytes - misaligned;
    const size_t head = head_bytes * 8 / kOutBits;
    if (head * kOutBits == head_bytes * 8 && head * kInBits % 8 == 0) {
      SubbyteLoop<kInBits, kOutBits>(src, dst, head, chunk, regular);
      SubbyteLoop<kInBits, kOutBits, kPrefetch || kInBits >= kOutBits>(
          static_cast<const uint8_t*>(src) + head * kInBits / 8,
          static_cast<uint8_t*>(dst) + head_bytes, count - head, chunk,
          [&](const uint8_t* in, uint8_t* out)
              TENSORCAST_LAMBDA_INLINE { body(in, out, std::true_type()); });
      hwy::FlushStream();
      return;
    }
  }
  SubbyteLoop<kInBits, kOutBits, kPrefetch>(src, dst, count, chunk, regular);
}

// ------------------------------------------------------------------ packing

// Combines neighbouring codes: lane i of the result is code 2i | code 2i+1 << kShift,
// where codes 0..N-1 are the lanes of `a` and N..2N-1 those of `b`. Codes must be
// < 2^kShift. SCALAR: a | b << kShift.
template <int kShift, class D>
HWY_INLINE hn::Vec<D> Pair(D d, hn::Vec<D> a, hn::Vec<D> b) {
#if HWY_TARGET == HWY_SCALAR
  (void)d;
  return hn::Or(a, hn::ShiftLeft<kShift>(b));
#else
  return hn::Or(hn::ConcatEven(d, b, a), hn::ShiftLeft<kShift>(hn::ConcatOdd(d, b, a)));
#endif
}

#if HWY_TARGET != HWY_SCALAR
// The low byte of every u32 lane of z0, z1, z2, z3 (in that order) as one u8 vector;
// the other bytes are ignored.
template <class DU32>
HWY_INLINE hn::Vec<hn::Repartition<uint8_t, DU32>> NarrowBytes(DU32, hn::Vec<DU32> z0,
                                                               hn::Vec<DU32> z1, hn::Vec<DU32> z2,
                                                               hn::Vec<DU32> z3) {
  const hn::Repartition<uint16_t, DU32> du16;
  const hn::Repartition<uint8_t, DU32> du8;
  const auto w0 = hn::ConcatEven(du16, hn::BitCast(du16, z1), hn::BitCast(du16, z0));
  const auto w1 = hn::ConcatEven(du16, hn::BitCast(du16, z3), hn::BitCast(du16, z2));
  return hn::ConcatEven(du8, hn::BitCast(du8, w1), hn::BitCast(du8, w0));
}
#endif

// One u8 vector of packed bytes (one chunk) from u32 code lanes: code(j) returns the
// codes (< 2^kBits) of elements j * N .. j * N + N - 1 of the chunk (N = Lanes(du32)),
// j < 8 (4-bit) or j < 16 (2-bit); SCALAR: j < 2 or j < 4.
template <int kBits, class DU32, class CodeFn>
HWY_INLINE hn::Vec<DU8> PackCodes32(DU32 du32, const CodeFn& code) {
  static_assert(kBits == 4 || kBits == 2, "4- or 2-bit codes");
  // Two (4-bit) or four (2-bit) code vectors -> lanes of whole packed bytes. The codes
  // are computed in named variables, in address order: as function arguments, GCC
  // evaluates them last to first, and loads running backwards through each chunk cost
  // ~30% out of cache (the hardware prefetchers stream forwards).
  const auto byte_lanes = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
    if constexpr (kBits == 4) {
      const auto c0 = code(2 * j);
      const auto c1 = code(2 * j + 1);
      return Pair<4>(du32, c0, c1);
    } else {
      const auto c0 = code(4 * j);
      const auto c1 = code(4 * j + 1);
      const auto c2 = code(4 * j + 2);
      const auto c3 = code(4 * j + 3);
      return Pair<4>(du32, Pair<2>(du32, c0, c1), Pair<2>(du32, c2, c3));
    }
  };
#if HWY_TARGET == HWY_SCALAR
  return hn::TruncateTo(DU8(), byte_lanes(0));
#else
  const auto z0 = byte_lanes(0);
  const auto z1 = byte_lanes(1);
  const auto z2 = byte_lanes(2);
  const auto z3 = byte_lanes(3);
  return NarrowBytes(du32, z0, z1, z2, z3);
#endif
}

// One u8 vector of packed 4-bit codes (one chunk) from u16 code lanes: code(j) returns
// the codes (< 16) of elements j * N .. j * N + N - 1 of the chunk (N = Lanes(du16)),
// j < 4; SCALAR: j < 2.
template <class CodeFn>
HWY_INLINE hn::Vec<DU8> PackNibbles16(const CodeFn& code) {
#if HWY_TARGET == HWY_SCALAR
  const hn::Repartition<uint16_t, DU8> du16;
  const auto c0 = code(0);
  const auto c1 = code(1);
  return hn::TruncateTo(DU8(), Pair<4>(du16, c0, c1));
#else
  // u32 lane = c0 | c1 << 16 -> low byte of (lane | lane >> 12) = c0 | c1 << 4.
  const hn::Repartition<uint32_t, DU8> du32;
  const auto byte_lanes = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
    const auto v = hn::BitCast(du32, code(j));
    return hn::Or(v, hn::ShiftRight<12>(v));
  };
  const auto z0 = byte_lanes(0);
  const auto z1 = byte_lanes(1);
  const auto z2 = byte_lanes(2);
  const auto z3 = byte_lanes(3);
  return NarrowBytes(du32, z0, z1, z2, z3);
#endif
}

// One u8 vector of packed 4-bit codes from the low nibbles of the bytes of a (elements
// 0..N8-1) and b (elements N8..2*N8-1); the high nibbles are ignored (wrap).
HWY_INLINE hn::Vec<DU8> PackNibbles8(hn::Vec<DU8> a, hn::Vec<DU8> b) {
  const DU8 du8;
#if HWY_TARGET == HWY_SCALAR
  const auto lo = hn::And(a, hn::Set(du8, 0x0F));
  return hn::Or(lo, hn::ShiftLeft<4>(b));
#else
  const hn::Repartition<uint16_t, DU8> du16;
  const auto low_byte = [&](hn::Vec<DU8> v) TENSORCAST_LAMBDA_INLINE {
    const auto w = hn::And(hn::BitCast(du16, v), hn::Set(du16, 0x0F0F));
    return hn::BitCast(du8, hn::Or(w, hn::ShiftRight<4>(w)));  // low byte: lo | hi << 4
  };
  return hn::ConcatEven(du8, low_byte(b), low_byte(a));
#endif
}

// One u8 vector of packed 2-bit codes from bits 0-1 of the bytes of a, b, c, d
// (elements 0..4*N8-1 in that order); the other bits are ignored (wrap).
HWY_INLINE hn::Vec<DU8> PackCrumbs8(hn::Vec<DU8> a, hn::Vec<DU8> b, hn::Vec<DU8> c,
                                    hn::Vec<DU8> d) {
  const DU8 du8;
#if HWY_TARGET == HWY_SCALAR
  const auto m = hn::Set(du8, 0x03);
  return hn::Or(hn::Or(hn::And(a, m), hn::ShiftLeft<2>(hn::And(b, m))),
                hn::Or(hn::ShiftLeft<4>(hn::And(c, m)), hn::ShiftLeft<6>(d)));
#else
  const hn::Repartition<uint16_t, DU8> du16;
  // u16 lanes: crumb pair (x0, x1) -> low byte x0 | x1 << 2 (< 16), high byte junk.
  const auto pairs = [&](hn::Vec<DU8> v) TENSORCAST_LAMBDA_INLINE {
    const auto w = hn::And(hn::BitCast(du16, v), hn::Set(du16, 0x0303));
    return hn::BitCast(du8, hn::Or(w, hn::ShiftRight<6>(w)));
  };
  // Bytes < 16 in order; then two of them per byte as in PackNibbles8.
  const auto q0 = hn::ConcatEven(du8, pairs(b), pairs(a));
  const auto q1 = hn::ConcatEven(du8, pairs(d), pairs(c));
  const auto quads = [&](hn::Vec<DU8> q) TENSORCAST_LAMBDA_INLINE {
    const auto w = hn::BitCast(du16, q);
    return hn::BitCast(du8, hn::Or(w, hn::ShiftRight<4>(w)));
  };
  return hn::ConcatEven(du8, quads(q1), quads(q0));
#endif
}

// ------------------------------------------------------------------ unpacking

// Calls fn(codes, first) for each u8 vector of codes of one chunk of packed kBits-wide
// elements at `in` (one u8 vector of packed bytes); codes are zero-extended (0..15 or
// 0..3), `first` is the index in the chunk of the vector's first element.
template <int kBits, class Fn>
HWY_INLINE void ForEachCodeVector(const uint8_t* HWY_RESTRICT in, const Fn& fn) {
  static_assert(kBits == 4 || kBits == 2, "4- or 2-bit codes");
  const DU8 du8;
  const size_t n8 = hn::Lanes(du8);
#if HWY_TARGET == HWY_SCALAR
  (void)n8;
  const auto b = hn::LoadU(du8, in);
  const auto mask = hn::Set(du8, static_cast<uint8_t>((1u << kBits) - 1));
  fn(hn::And(b, mask), 0);
  fn(hn::And(hn::ShiftRight<kBits>(b), mask), 1);
  if constexpr (kBits == 2) {
    fn(hn::And(hn::ShiftRight<4>(b), mask), 2);
    fn(hn::ShiftRight<6>(b), 3);
  }
#else
  if constexpr (kBits == 4) {
    // u16 lane = packed byte b -> (b | b << 4) & 0x0F0F: low byte = low nibble,
    // high byte = high nibble.
    const hn::Repartition<uint16_t, DU8> du16;
    const hn::Rebind<uint8_t, decltype(du16)> du8_half;
    const size_t half = hn::Lanes(du16);
    for (size_t k = 0; k < 2; ++k) {
      const auto w = hn::PromoteTo(du16, hn::LoadU(du8_half, in + k * half));
      fn(hn::BitCast(du8, hn::And(hn::Or(w, hn::ShiftLeft<4>(w)), hn::Set(du16, 0x0F0F))), k * n8);
    }
  } else {
    // u32 lane = packed byte b; t = b | b << 12 holds b at bits 0 and 12, so
    // (t | t << 6) & 0x03030303 has crumb j in byte j.
    const hn::Repartition<uint32_t, DU8> du32;
    const hn::Rebind<uint8_t, decltype(du32)> du8_quarter;
    const size_t quarter = hn::Lanes(du32);
    for (size_t k = 0; k < 4; ++k) {
      const auto b = hn::PromoteTo(du32, hn::LoadU(du8_quarter, in + k * quarter));
      const auto t = hn::Or(b, hn::ShiftLeft<12>(b));
      fn(hn::BitCast(du8, hn::And(hn::Or(t, hn::ShiftLeft<6>(t)), hn::Set(du32, 0x03030303))),
         k * n8);
    }
  }
#endif
}

// Sign-extends kBits-wide codes (zero-extended in u8 lanes) to int8 bits.
template <int kBits>
HWY_INLINE hn::Vec<DU8> SignExtendCodes(hn::Vec<DU8> codes) {
  const DU8 du8;
  const auto half = hn::Set(du8, static_cast<uint8_t>(1u << (kBits - 1)));
  return hn::Sub(hn::Xor(codes, half), half);
}

// table[code] for codes 0..15 in u8 lanes.
HWY_INLINE hn::Vec<DU8> LookupCodes(const uint8_t* HWY_RESTRICT table16, hn::Vec<DU8> codes) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(DU8(), table16[hn::GetLane(codes)]);
#else
  return hn::TableLookupBytes(hn::LoadDup128(DU8(), table16), codes);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_PACK_INL_H_
