// The table-lookup kernel (the route plan's "table" route, large counts of
// pairs whose source has at most 8 bits): the source has at most 256 codes, so the cast
// is out[i] = table[code(in[i])] with a table that the caller builds once per call with
// the exact kernel path. Here: that lookup on every target.
//   8-bit sources: a 256-entry byte table; AVX3_DL: two VPERMT2B (128 entries each) and
//     a select on bit 7; other SIMD targets: 16 TableLookupBytes over the low nibble
//     (one per high nibble) and a tree of 15 selects on bits 4..7; tables whose
//     entries 1..255 are equal (bool sources, byte targets): a compare and select.
//   4-/2-bit sources: the codes unpacked into u8 lanes (pack-inl.h order), one 16-entry
//     TableLookupBytes.
//   4-/2-bit targets: the looked-up codes packed with PackNibbles8 / PackCrumbs8.
//   16-bit targets, and 32/64-bit integer targets whose results are all sign or zero
//     extensions of 16 bits: two byte tables ("planes": the low and the high byte of the
//     16-bit results), each looked up as above, interleaved into u16 lanes
//     (InterleaveLower/Upper, which work within 128-bit blocks, after one permute of the
//     codes' 64-bit lanes that makes the interleaved lanes come out in element order;
//     SVE stores 16-bit results with StoreInterleaved2 instead), then widened with
//     PromoteTo of each half; for 8-bit sources on AVX3_DL only (TablePlanes,
//     capabilities-inl.h; the figures are in bench/results/tuning.md).
//   SCALAR: an element loop.
// Outputs of kTableStreamBytes and more are written with non-temporal stores.
#if defined(TENSORCAST_LIB_KERNELS_TABLE_LOOKUP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_LIB_KERNELS_TABLE_LOOKUP_INL_H_
#undef TENSORCAST_LIB_KERNELS_TABLE_LOOKUP_INL_H_
#else
#define TENSORCAST_LIB_KERNELS_TABLE_LOOKUP_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/highway.h"
#include "lib/kernels/capabilities-inl.h"
#include "lib/kernels/pack-inl.h"
#include "lib/tuning.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {

// Outputs of at least this many bytes are written with non-temporal stores (as CastLoop).
using tuning::kTableStreamBytes;

#if HWY_TARGET == HWY_SCALAR

template <int kIn, int kOut, bool kSigned>
void TableLoopScalar(const uint8_t* HWY_RESTRICT table, const uint8_t* HWY_RESTRICT in,
                     uint8_t* HWY_RESTRICT out, size_t count) {
  constexpr unsigned kInMask = (1u << kIn) - 1;
  constexpr unsigned kOutMask = (1u << (kOut < 8 ? kOut : 8)) - 1;
  for (size_t i = 0; i < count; ++i) {
    const unsigned code = kIn == 8 ? in[i] : (in[i * kIn / 8] >> (i * kIn % 8)) & kInMask;
    const unsigned value = table[code];
    if constexpr (kOut >= 16) {
      using T = hwy::UnsignedFromSize<kOut / 8>;
      const auto r = static_cast<uint16_t>(value | table[256 + code] << 8);
      const T wide = kSigned ? static_cast<T>(static_cast<int64_t>(static_cast<int16_t>(r))) : r;
      std::memcpy(out + i * (kOut / 8), &wide, sizeof(T));
    } else if constexpr (kOut == 8) {
      out[i] = static_cast<uint8_t>(value);
    } else {
      const size_t byte = i * kOut / 8;
      const unsigned shift = static_cast<unsigned>(i * kOut % 8);
      if (shift == 0) out[byte] = 0;
      out[byte] = static_cast<uint8_t>(out[byte] | ((value & kOutMask) << shift));
    }
  }
}

#else  // HWY_TARGET != HWY_SCALAR

// table[v] for every byte v of a u8 vector, with a 256-entry table.
#if HWY_TARGET == HWY_AVX3_DL
class Lookup256 {
 public:
  explicit Lookup256(const uint8_t* table)
      : t0_(_mm512_loadu_si512(table)),
        t1_(_mm512_loadu_si512(table + 64)),
        t2_(_mm512_loadu_si512(table + 128)),
        t3_(_mm512_loadu_si512(table + 192)) {}
  HWY_INLINE hn::Vec<DU8> operator()(hn::Vec<DU8> v) const {
    const __m512i lo = _mm512_permutex2var_epi8(t0_, v.raw, t1_);  // entries 0..127
    const __m512i hi = _mm512_permutex2var_epi8(t2_, v.raw, t3_);  // entries 128..255
    return hn::Vec<DU8>{_mm512_mask_blend_epi8(_mm512_movepi8_mask(v.raw), lo, hi)};
  }

 private:
  __m512i t0_, t1_, t2_, t3_;
};
#else
class Lookup256 {
 public:
  explicit Lookup256(const uint8_t* table) : table_(table) {}
  HWY_INLINE hn::Vec<DU8> operator()(hn::Vec<DU8> v) const {
    const DU8 du8;
    const hn::Repartition<int8_t, DU8> di8;
    const hn::Repartition<uint16_t, DU8> du16;
    const auto lo = hn::And(v, hn::Set(du8, 0x0F));
    // Bit b (4..7) of each byte moved to its sign bit; in u16 lanes, bits shifted out of
    // the low byte land in the high byte's low bits, which the selects ignore.
    // Masks from the sign bits (not IfNegativeThenElse: Highway 1.0.3's int8 version on
    // SSSE3 is IfThenElse(MaskFromVec(v)), an and/andnot that needs all-ones lanes).
    const auto w = hn::BitCast(du16, v);
    const auto sign = [&](hn::Vec<decltype(du16)> x) TENSORCAST_LAMBDA_INLINE {
      return hn::MaskFromVec(hn::BroadcastSignBit(hn::BitCast(di8, x)));
    };
    const auto m4 = sign(hn::ShiftLeft<3>(w));
    const auto m5 = sign(hn::ShiftLeft<2>(w));
    const auto m6 = sign(hn::ShiftLeft<1>(w));
    const auto m7 = sign(w);
    const auto row = [&](size_t h) HWY_ATTR {
      return hn::BitCast(di8, hn::TableLookupBytes(hn::LoadDup128(du8, table_ + 16 * h), lo));
    };
    const auto pair4 = [&](size_t h) HWY_ATTR {  // rows h, h + 1 selected by bit 4
      const auto a = row(h);
      const auto b = row(h + 1);
      return hn::IfThenElse(m4, b, a);
    };
    const auto quad5 = [&](size_t h) HWY_ATTR {
      const auto a = pair4(h);
      const auto b = pair4(h + 2);
      return hn::IfThenElse(m5, b, a);
    };
    const auto oct6 = [&](size_t h) HWY_ATTR {
      const auto a = quad5(h);
      const auto b = quad5(h + 4);
      return hn::IfThenElse(m6, b, a);
    };
    const auto a = oct6(0);
    const auto b = oct6(8);
    return hn::BitCast(du8, hn::IfThenElse(m7, b, a));
  }

 private:
  const uint8_t* table_;
};
#endif

// For 256-entry tables whose entries 1..255 are equal (bool sources, and any other
// source whose non-zero codes all give one result): one compare and select.
// (Scalable vectors, SVE, cannot be class members: there the lookups keep the table
// bytes and build the vectors on each call.)
class LookupZero {
 public:
#if HWY_HAVE_SCALABLE
  explicit LookupZero(const uint8_t* table) : zero_(table[0]), nonzero_(table[1]) {}
  HWY_INLINE hn::Vec<DU8> operator()(hn::Vec<DU8> v) const {
    const DU8 du8;
    return hn::IfThenElse(hn::Eq(v, hn::Zero(du8)), hn::Set(du8, zero_), hn::Set(du8, nonzero_));
  }

 private:
  uint8_t zero_, nonzero_;
#else
  explicit LookupZero(const uint8_t* table)
      : zero_(hn::Set(DU8(), table[0])), nonzero_(hn::Set(DU8(), table[1])) {}
  HWY_INLINE hn::Vec<DU8> operator()(hn::Vec<DU8> v) const {
    return hn::IfThenElse(hn::Eq(v, hn::Zero(DU8())), zero_, nonzero_);
  }

 private:
  hn::Vec<DU8> zero_, nonzero_;
#endif
};

// table16[code] for codes 0..15 in u8 lanes.
class Lookup16 {
 public:
#if HWY_HAVE_SCALABLE
  explicit Lookup16(const uint8_t* table) : table_(table) {}
  HWY_INLINE hn::Vec<DU8> operator()(hn::Vec<DU8> codes) const {
    return hn::TableLookupBytes(hn::LoadDup128(DU8(), table_), codes);
  }

 private:
  const uint8_t* table_;
#else
  explicit Lookup16(const uint8_t* table) : t_(hn::LoadDup128(DU8(), table)) {}
  HWY_INLINE hn::Vec<DU8> operator()(hn::Vec<DU8> codes) const {
    return hn::TableLookupBytes(t_, codes);
  }

 private:
  hn::Vec<DU8> t_;
#endif
};

// The indices that permute the 64-bit lanes of a vector so that block k (128 bits)
// holds lanes k and k + Lanes / 2: then InterleaveLower and InterleaveUpper (which pair
// the lower / upper halves of each block) of two such vectors are the first and the
// second half of their interleaved lanes, in order.
template <class DU64>
HWY_INLINE auto HalvesToBlocks(DU64 du64) {
  const auto j = hn::Iota(du64, 0);
  const auto one = hn::Set(du64, 1);
  const auto odd_offset =
      hn::IfThenElseZero(hn::Eq(hn::And(j, one), one), hn::Set(du64, hn::Lanes(du64) / 2));
  const hn::RebindToSigned<DU64> di64;
  return hn::IndicesFromVec(du64, hn::BitCast(di64, hn::Add(odd_offset, hn::ShiftRight<1>(j))));
}

// 16-bit results from two byte tables ("planes" at table and table + 256: the low and
// the high byte of each result), one Lookup each, widened to kOutBytes (2, 4 or 8) by
// sign (kSigned) or zero extension: Store<kStream>(codes, out) writes the kOutBytes * n8
// bytes of the results of the n8 codes in `codes` (u8 lanes) to out, with
// StoreOut<kStream>.
template <class Lookup, int kOutBytes, bool kSigned>
class LookupPlanes {
 public:
  explicit LookupPlanes(const uint8_t* table) : low_(table), high_(table + 256) {}

  template <bool kStream>
  HWY_INLINE void Store(hn::Vec<DU8> codes, uint8_t* HWY_RESTRICT out) const {
    const DU8 du8;
#if HWY_HAVE_SCALABLE
    if constexpr (kOutBytes == 2) {
      // ST2B interleaves whole vectors (it has no non-temporal form).
      const auto b0 = low_(codes);
      const auto b1 = high_(codes);
      hn::StoreInterleaved2(b0, b1, du8, out);
      return;
    }
#endif
    // One permute of the codes puts the interleaved results in element order (x86's
    // StoreInterleaved2 instead shuffles both of its outputs across blocks); 128-bit
    // vectors are one block. The indices do not depend on the codes (hoisted).
    const hn::Repartition<uint64_t, DU8> du64;
    auto c = codes;
    if (hn::Lanes(du64) > 2) {
      c = hn::BitCast(du8, hn::TableLookupLanes(hn::BitCast(du64, codes), HalvesToBlocks(du64)));
    }
    const auto b0 = low_(c);
    const auto b1 = high_(c);
    const hn::Repartition<std::conditional_t<kSigned, int16_t, uint16_t>, DU8> d16;
    const auto w0 = hn::BitCast(d16, hn::InterleaveLower(du8, b0, b1));
    const auto w1 = hn::BitCast(d16, hn::InterleaveUpper(du8, b0, b1));
    Emit<kStream>(d16, w0, out);
    Emit<kStream>(d16, w1, out + hn::Lanes(d16) * kOutBytes);
  }

 private:
  // Stores v widened to kOutBytes lanes (PromoteTo of each half, recursively), in order.
  template <bool kStream, class D>
  static HWY_INLINE void Emit(D d, hn::Vec<D> v, uint8_t* HWY_RESTRICT out) {
    (void)d;  // only the widening branch uses it
    using T = hn::TFromD<D>;
    if constexpr (sizeof(T) == kOutBytes) {
      const DU8 du8;
      StoreOut<kStream>(hn::BitCast(du8, v), du8, out);
    } else {
      const hn::Repartition<hwy::MakeWide<T>, D> dw;
      const hn::Half<D> dh;
      const auto lo = hn::PromoteTo(dw, hn::LowerHalf(dh, v));
      const auto hi = hn::PromoteTo(dw, hn::UpperHalf(dh, v));
      Emit<kStream>(dw, lo, out);
      Emit<kStream>(dw, hi, out + hn::Lanes(dw) * kOutBytes);
    }
  }

  Lookup low_, high_;
};

// The codes (zero-extended) of the n8 elements starting at in (element 0 at bit 0 of
// in[0]), in u8 lanes, for 4- or 2-bit elements (as ForEachCodeVector).
template <int kBits>
HWY_INLINE hn::Vec<DU8> UnpackCodes(const uint8_t* HWY_RESTRICT in) {
  const DU8 du8;
  if constexpr (kBits == 4) {
    const hn::Repartition<uint16_t, DU8> du16;
    const hn::Rebind<uint8_t, decltype(du16)> du8_half;
    const auto w = hn::PromoteTo(du16, hn::LoadU(du8_half, in));
    return hn::BitCast(du8, hn::And(hn::Or(w, hn::ShiftLeft<4>(w)), hn::Set(du16, 0x0F0F)));
  } else {
    const hn::Repartition<uint32_t, DU8> du32;
    const hn::Rebind<uint8_t, decltype(du32)> du8_quarter;
    const auto b = hn::PromoteTo(du32, hn::LoadU(du8_quarter, in));
    const auto t = hn::Or(b, hn::ShiftLeft<12>(b));
    return hn::BitCast(du8, hn::And(hn::Or(t, hn::ShiftLeft<6>(t)), hn::Set(du32, 0x03030303)));
  }
}

// One chunk: 8 / min(kIn, kOut) u8 vectors of elements; the output of a chunk is a whole
// number of u8 vectors (stored with StoreOut<kStream>: aligned when streaming). kOut 16,
// 32, 64: `lookup` is a LookupPlanes, which stores kOut / 8 vectors per vector of codes.
template <int kIn, int kOut, bool kStream, class Lookup>
HWY_INLINE void TableChunk(const Lookup& lookup, const uint8_t* HWY_RESTRICT in,
                           uint8_t* HWY_RESTRICT out) {
  const DU8 du8;
  const size_t n8 = hn::Lanes(du8);
  const auto codes = [&](size_t j) HWY_ATTR {  // codes of vector j of the chunk
    if constexpr (kIn == 8) {
      return hn::LoadU(du8, in + j * n8);
    } else {
      return UnpackCodes<kIn>(in + j * n8 * kIn / 8);
    }
  };
  // Looked-up codes of vector j (generic: instantiated for byte lookups only).
  const auto value = [&](auto j) HWY_ATTR { return lookup(codes(j)); };
  constexpr int kMin = kIn < kOut ? kIn : kOut;
  constexpr size_t kVectors = 8 / kMin;
  if constexpr (kOut >= 16) {
    for (size_t j = 0; j < kVectors; ++j) {
      lookup.template Store<kStream>(codes(j), out + j * n8 * (kOut / 8));
    }
  } else if constexpr (kOut == 8) {
    for (size_t j = 0; j < kVectors; ++j) StoreOut<kStream>(value(j), du8, out + j * n8);
  } else if constexpr (kOut == 4) {
    for (size_t m = 0; m < kVectors / 2; ++m) {
      const auto a = value(2 * m);
      const auto b = value(2 * m + 1);
      StoreOut<kStream>(PackNibbles8(a, b), du8, out + m * n8);
    }
  } else {
    for (size_t m = 0; m < kVectors / 4; ++m) {
      const auto a = value(4 * m);
      const auto b = value(4 * m + 1);
      const auto c = value(4 * m + 2);
      const auto d = value(4 * m + 3);
      StoreOut<kStream>(PackCrumbs8(a, b, c, d), du8, out + m * n8);
    }
  }
}

// TableChunk over `count` elements (SubbyteLoop: tails through zero-filled stack buffers),
// with streaming stores from kTableStreamBytes of output on (after a head of regular
// chunks up to the first vector-aligned output byte, as DecodeLoop), prefetching the
// source when it is wider than the output (SourcePrefetch; a lookup of equal widths is one
// shuffle per vector and measured slower with it).
template <int kIn, int kOut, class Lookup>
HWY_INLINE void TableLoop(const Lookup& lookup, const void* src, void* dst, size_t count) {
  const size_t n8 = hn::Lanes(DU8());
  constexpr int kMin = kIn < kOut ? kIn : kOut;
  const size_t chunk = n8 * 8 / kMin;
  const auto regular = [&](const uint8_t* in, uint8_t* out) TENSORCAST_LAMBDA_INLINE {
    TableChunk<kIn, kOut, false>(lookup, in, out);
  };
  if (count * kOut / 8 >= tuning::StreamBytes(kTableStreamBytes)) {
    const size_t misaligned = reinterpret_cast<uintptr_t>(dst) % n8;
    const size_t head_bytes = misaligned == 0 ? 0 : n8 - misaligned;
    const size_t head = head_bytes * 8 / kOut;
    if (head * kOut == head_bytes * 8 && head * kIn % 8 == 0) {
      SubbyteLoop<kIn, kOut>(src, dst, head, chunk, regular);
      SubbyteLoop<kIn, kOut, (kIn > kOut)>(
          static_cast<const uint8_t*>(src) + head * kIn / 8,
          static_cast<uint8_t*>(dst) + head_bytes, count - head, chunk,
          [&](const uint8_t* in, uint8_t* out)
              TENSORCAST_LAMBDA_INLINE { TableChunk<kIn, kOut, true>(lookup, in, out); });
      hwy::FlushStream();
      return;
    }
  }
  SubbyteLoop<kIn, kOut>(src, dst, count, chunk, regular);
}

template <int kIn, int kOut, bool kSigned>
HWY_NOINLINE void TableLoopVector(const uint8_t* HWY_RESTRICT table, const void* src, void* dst,
                                  size_t count) {
  if constexpr (kOut >= 16) {
    using Lookup = std::conditional_t<kIn == 8, Lookup256, Lookup16>;
    TableLoop<kIn, kOut>(LookupPlanes<Lookup, kOut / 8, kSigned>(table), src, dst, count);
  } else if constexpr (kIn == 8) {
    bool zero_or_not = true;
    for (size_t c = 2; c < 256; ++c) zero_or_not = zero_or_not && table[c] == table[1];
    if (zero_or_not) {
      TableLoop<kIn, kOut>(LookupZero(table), src, dst, count);
    } else {
      TableLoop<kIn, kOut>(Lookup256(table), src, dst, count);
    }
  } else {
    TableLoop<kIn, kOut>(Lookup16(table), src, dst, count);
  }
  // Padding bits of a partial last byte: the tail converted zero codes, whose table
  // entry need not be 0.
  if constexpr (kOut < 8) {
    const size_t bits = count * kOut % 8;
    if (bits != 0) {
      uint8_t* last = static_cast<uint8_t*>(dst) + count * kOut / 8;
      *last = static_cast<uint8_t>(*last & ((1u << bits) - 1));
    }
  }
}

#endif  // HWY_TARGET == HWY_SCALAR

template <int kIn, int kOut, bool kSigned = false>
void TableRun(const uint8_t* table, const void* src, void* dst, size_t count) {
#if HWY_TARGET == HWY_SCALAR
  TableLoopScalar<kIn, kOut, kSigned>(table, static_cast<const uint8_t*>(src),
                                      static_cast<uint8_t*>(dst), count);
#else
  TableLoopVector<kIn, kOut, kSigned>(table, src, dst, count);
#endif
}

// out[i] = table[code i of src] for `count` elements of src_bits (8, 4 or 2) into codes
// of dst_bits (8, 4 or 2; the table's entries in the low dst_bits bits), or into
// dst_bits (16, 32 or 64) integers from 16-bit results: their low bytes at table[c],
// their high bytes at table[256 + c], sign- (sign_extend) or zero-extended to dst_bits.
// Each 256-byte table: all entries for 8-bit sources, the first 16 for 4- and 2-bit
// ones (entries past 2^src_bits unused). Targets of 16 bits and more only where
// TablePlanes(src_bits) (capabilities-inl.h).
void TableLookupCast(const uint8_t* table, int src_bits, int dst_bits, bool sign_extend,
                     const void* src, void* dst, size_t count) {
  switch (src_bits * 256 + dst_bits * 2 + (dst_bits > 16 && sign_extend ? 1 : 0)) {
#define TENSORCAST_TABLE_BYTE_CASES(kIn)                                   \
  case kIn * 256 + 8 * 2: return TableRun<kIn, 8>(table, src, dst, count); \
  case kIn * 256 + 4 * 2: return TableRun<kIn, 4>(table, src, dst, count); \
  case kIn * 256 + 2 * 2:                                                  \
    return TableRun<kIn, 2>(table, src, dst, count);
#define TENSORCAST_TABLE_WIDE_CASES(kIn)                                               \
  case kIn * 256 + 64 * 2 + 1: return TableRun<kIn, 64, true>(table, src, dst, count); \
  case kIn * 256 + 64 * 2: return TableRun<kIn, 64>(table, src, dst, count);           \
  case kIn * 256 + 32 * 2 + 1: return TableRun<kIn, 32, true>(table, src, dst, count); \
  case kIn * 256 + 32 * 2: return TableRun<kIn, 32>(table, src, dst, count);           \
  case kIn * 256 + 16 * 2: return TableRun<kIn, 16>(table, src, dst, count);
    TENSORCAST_TABLE_BYTE_CASES(8)
    TENSORCAST_TABLE_BYTE_CASES(4)
    TENSORCAST_TABLE_BYTE_CASES(2)
    // Wide targets: where TablePlanes says so.
#if HWY_TARGET == HWY_SCALAR
    TENSORCAST_TABLE_WIDE_CASES(8)
#else
    TENSORCAST_TABLE_WIDE_CASES(4)
    TENSORCAST_TABLE_WIDE_CASES(2)
#if HWY_TARGET == HWY_AVX3_DL
    TENSORCAST_TABLE_WIDE_CASES(8)
#endif
#endif
#undef TENSORCAST_TABLE_BYTE_CASES
#undef TENSORCAST_TABLE_WIDE_CASES
    default: return;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_LIB_KERNELS_TABLE_LOOKUP_INL_H_
