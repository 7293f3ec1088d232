// The arithmetic of QuantizeLinear and DequantizeLinear on float32 lanes (Highway,
// foreach_target): the division with rounding, zero point and saturation, and the
// product with one rounding. Conversions to and from the tensor types are Cast kernels
// around these (lib/quantize.cc). Every function here is exact IEEE arithmetic and gives
// the same bits on every target (NaNs included: see FixNaN).

// Per-target include guard (Highway's foreach_target idiom).
#if defined(TENSORCAST_KERNELS_QUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORCAST_KERNELS_QUANTIZE_INL_H_
#undef TENSORCAST_KERNELS_QUANTIZE_INL_H_
#else
#define TENSORCAST_KERNELS_QUANTIZE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "lib/kernels/cast_loop_to_bytes-inl.h"
#include "lib/kernels/f4_codec-inl.h"
#include "lib/kernels/float8_codec-inl.h"
#include "lib/kernels/pack-inl.h"
#include "lib/quantize_runs.h"
#include "tensorcast/data_type.h"

HWY_BEFORE_NAMESPACE();
namespace tensorcast {
namespace HWY_NAMESPACE {
namespace qdq {

namespace hn = hwy::HWY_NAMESPACE;

// (IsNaN, not Ne(v, v): Highway's Ne is an ordered compare on some targets.)
// A NaN result is the NaN of the first NaN operand (a, then b), quiet; Inf * 0 gives the
// positive quiet NaN 0x7FC00000. Hardware agrees on the first two on x86 and Arm, not on
// the third (x86 gives the negative one), so they are set here for every target.
template <class D, class V>
HWY_INLINE V FixNaN(D d, V a, V b, V r) {
  const auto nan = hn::IsNaN(r);
  if (HWY_LIKELY(hn::AllFalse(d, nan))) return r;
  const hn::RebindToUnsigned<D> du;
  const auto quiet = hn::Set(du, 0x00400000u);
  const V qa = hn::BitCast(d, hn::Or(hn::BitCast(du, a), quiet));
  const V qb = hn::BitCast(d, hn::Or(hn::BitCast(du, b), quiet));
  const V dflt = hn::BitCast(d, hn::Set(du, 0x7FC00000u));
  const V fixed = hn::IfThenElse(hn::IsNaN(a), qa, hn::IfThenElse(hn::IsNaN(b), qb, dflt));
  return hn::IfThenElse(nan, fixed, r);
}

// QuantizeLinear to an integer type: round_half_even(x / s), saturated to [lo - z, hi - z],
// plus z; a NaN quotient gives z. The result is an exact integer in [lo, hi].
struct ToInt {
  float lo, hi;
  // The quotient, 0 for NaN, clamped to [lo - z, hi - z]; the bounds are integers, so
  // rounding after the clamp gives what rounding before it gives.
  template <class D, class V>
  HWY_INLINE V Clamped(D d, V x, V s, V z) const {
    const V q = hn::Div(x, s);
    const V a = hn::IfThenZeroElse(hn::IsNaN(q), q);
    return hn::Min(hn::Max(a, hn::Sub(hn::Set(d, lo), z)), hn::Sub(hn::Set(d, hi), z));
  }
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x, V s, V z) const {
    return hn::Add(hn::Round(Clamped(d, x, s, z)), z);
  }
};

// ToInt's integers on int32 lanes, for the 8- and 16-bit stores (z holds an integer).
struct ToIntLanes {
  ToInt to_int;
  template <class D, class V>
  HWY_INLINE hn::Vec<hn::RebindToSigned<D>> operator()(D d, V x, V s, V z) const {
    const hn::RebindToSigned<D> di;
    const V c = to_int.Clamped(d, x, s, z);
#if HWY_ARCH_X86
    const auto r = hn::NearestInt(c);  // cvtps2dq: to nearest, ties to even
#else
    const auto r = hn::ConvertTo(di, hn::Round(c));
#endif
    return hn::Add(r, hn::ConvertTo(di, z));
  }
};

// QuantizeLinear to a float type: the quotient, plus the zero point when there is one (a
// float zero point is +-0, so the sum is exact: it only decides the sign of a zero).
struct Quotient {
  bool add_zero_point;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x, V s, V z) const {
    const V q = FixNaN(d, x, s, hn::Div(x, s));
    return add_zero_point ? hn::Add(q, z) : q;
  }
};

// DequantizeLinear to FLOAT: (x - z) * s, rounded once (x - z is exact: the inputs that
// come here have at most 17 significant bits, and float inputs have a +-0 z).
template <bool kMayBeNaN>
struct Product {
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x, V s, V z) const {
    const V a = hn::Sub(x, z);
    return kMayBeNaN ? FixNaN(d, a, s, hn::Mul(a, s)) : hn::Mul(a, s);
  }
};

// Stores the float32 lanes v at p as OutT: float as they are; an integer type (the lanes
// hold exact integers in its range) converted and narrowed.
template <class D, class V, typename OutT>
HWY_INLINE void StoreAs(D d, V v, OutT* p) {
  if constexpr (std::is_same<OutT, float>::value) {
    hn::StoreU(v, d, p);
  } else if constexpr (!hwy::IsFloat<hn::TFromV<V>>()) {  // int32 lanes in OutT's range
    const hn::Rebind<OutT, D> dn;
    hn::StoreU(hn::DemoteTo(dn, v), dn, p);
  } else {
    const hn::RebindToSigned<D> di;
    const hn::Rebind<OutT, D> dn;
    hn::StoreU(hn::DemoteTo(dn, hn::ConvertTo(di, v)), dn, p);
  }
}

// Loads lanes of InT at p as float32: float as it is; an 8- or 16-bit integer widened
// (exactly).
template <class D, typename InT>
HWY_INLINE hn::Vec<D> LoadAs(D d, const InT* p) {
  if constexpr (std::is_same<InT, float>::value) {
    return hn::LoadU(d, p);
  } else {
    const hn::RebindToSigned<D> di;
    const hn::Rebind<InT, D> dn;
    return hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(dn, p)));
  }
}

// A float8 code of format F, as DequantizeLinear reads x: LoadAs decodes it (exactly, with
// the Cast kernel's decoder).
template <class F>
struct StoredF8 {
  int8_t bits;
};

template <class D, class F>
HWY_INLINE hn::Vec<D> LoadAs(D d, const StoredF8<F>* p) {
  const hn::Rebind<int8_t, D> di8;
  return hn::BitCast(d,
                     F8CodeToF32Bits<F>(di8, hn::LoadU(di8, reinterpret_cast<const int8_t*>(p))));
}

// Runs op on every element of a run whose scale and zero point are given by `run`. x and
// out may be the same array (each vector is loaded before its result is stored).
template <class Op, typename InT, typename OutT>
HWY_INLINE void Uniform(const InT* x, size_t n, float s, float z, OutT* out, const Op& op) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, s), vz = hn::Set(d, z);
  size_t j = 0;
  for (; j + N <= n; j += N) StoreAs(d, op(d, LoadAs(d, x + j), vs, vz), out + j);
  const hn::CappedTag<float, 1> d1;
  for (; j < n; ++j) {
    StoreAs(d1, op(d1, LoadAs(d1, x + j), hn::Set(d1, s), hn::Set(d1, z)), out + j);
  }
}

template <class Op, typename InT, typename OutT>
HWY_INLINE void PerElement(const InT* x, size_t n, const float* HWY_RESTRICT s,
                           const float* HWY_RESTRICT z, OutT* out, const Op& op) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t j = 0;
  if (z == nullptr) {
    for (; j + N <= n; j += N) {
      StoreAs(d, op(d, LoadAs(d, x + j), hn::LoadU(d, s + j), hn::Zero(d)), out + j);
    }
  } else {
    for (; j + N <= n; j += N) {
      StoreAs(d, op(d, LoadAs(d, x + j), hn::LoadU(d, s + j), hn::LoadU(d, z + j)), out + j);
    }
  }
  const hn::CappedTag<float, 1> d1;
  for (; j < n; ++j) {
    const auto vz = z == nullptr ? hn::Zero(d1) : hn::LoadU(d1, z + j);
    StoreAs(d1, op(d1, LoadAs(d1, x + j), hn::LoadU(d1, s + j), vz), out + j);
  }
}

template <class Op, typename InT, typename OutT>
HWY_INLINE void Run(const InT* x, size_t n, const QdqRun& run, OutT* out, const Op& op) {
  switch (run.mode) {
    case QdqRun::kUniform:
      Uniform(x, n, run.s[0], run.z == nullptr ? 0.0f : run.z[0], out, op);
      return;
    case QdqRun::kPerElement: PerElement(x, n, run.s, run.z, out, op); return;
    default: {  // blocked: element j has scale (phase + j) / block
      size_t j = 0, k = 0, phase = run.phase;
      const hn::ScalableTag<float> d;
      const size_t N = hn::Lanes(d);
      if (N > 1 && run.block % N == 0 && phase % N == 0) {
        // Every vector lies in one block: one loop over the vectors, the block's scale
        // broadcast to each (no call per block); the rest lies in block k too.
        const auto vectors = [&](auto has_z) TENSORCAST_LAMBDA_INLINE {
          for (size_t r = phase; j + N <= n; j += N) {
            const auto z = decltype(has_z)::value ? hn::Set(d, run.z[k]) : hn::Zero(d);
            StoreAs(d, op(d, LoadAs(d, x + j), hn::Set(d, run.s[k]), z), out + j);
            r += N;
            if (r == run.block) r = 0, ++k;
          }
        };
        if (run.z == nullptr) {
          vectors(std::false_type());
        } else {
          vectors(std::true_type());
        }
        if (j < n) Uniform(x + j, n - j, run.s[k], run.z == nullptr ? 0.0f : run.z[k], out + j, op);
        return;
      }
      while (j < n) {
        const size_t len = run.block - phase < n - j ? run.block - phase : n - j;
        Uniform(x + j, len, run.s[k], run.z == nullptr ? 0.0f : run.z[k], out + j, op);
        j += len;
        ++k;
        phase = 0;
      }
      return;
    }
  }
}

// DequantizeLinear to FLOAT16 / BFLOAT16: (x - z) * s rounded to float32 by round-to-odd
// (the exact product is computed in float64, where it fits), so that the Cast of the
// result to 16 bits rounds the exact product once.
template <class DD>
HWY_INLINE void RoundToOddLanes(DD dd, const float* x, const float* s_ptr, float s1,
                                const float* z_ptr, float z1, float* out) {
  const hn::Rebind<float, DD> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const auto xf = hn::LoadU(df, x);
  const auto sf = s_ptr != nullptr ? hn::LoadU(df, s_ptr) : hn::Set(df, s1);
  const auto zf = z_ptr != nullptr ? hn::LoadU(df, z_ptr) : hn::Set(df, z1);
  const auto af = hn::Sub(xf, zf);
  const auto p = hn::Mul(hn::PromoteTo(dd, af), hn::PromoteTo(dd, sf));  // exact
  const auto pf = hn::DemoteTo(df, p);                                   // nearest even
  // The sign of exact - rounded, scaled so that no nonzero difference underflows float32.
  const auto diff =
      hn::DemoteTo(df, hn::Mul(hn::Sub(p, hn::PromoteTo(dd, pf)), hn::Set(dd, 0x1p200)));
  const auto bits = hn::BitCast(du, pf);
  const auto even = hn::Eq(hn::And(bits, hn::Set(du, 1u)), hn::Zero(du));
  // Inexact: a nonzero difference; an infinite product gives NaN here and is exact.
  const auto inexact = hn::RebindMask(du, hn::AndNot(hn::IsNaN(diff), hn::Ne(diff, hn::Zero(df))));
  // Away from zero when the exact value is farther from zero than the rounded one: the
  // signs of the difference and of the rounded value agree.
  const auto sign_d = hn::And(hn::BitCast(du, diff), hn::Set(du, 0x80000000u));
  const auto sign_p = hn::And(bits, hn::Set(du, 0x80000000u));
  const auto up = hn::Eq(sign_d, sign_p);
  const auto adjusted =
      hn::IfThenElse(up, hn::Add(bits, hn::Set(du, 1u)), hn::Sub(bits, hn::Set(du, 1u)));
  const auto r = hn::BitCast(df, hn::IfThenElse(hn::And(inexact, even), adjusted, bits));
  hn::StoreU(FixNaN(df, af, sf, r), df, out);
}

HWY_INLINE void DequantizeOdd(const float* x, size_t n, const QdqRun& run, float* out) {
  const hn::ScalableTag<double> dd;
  const hn::CappedTag<double, 1> dd1;
  const size_t N = hn::Lanes(dd);
  auto span = [&](size_t j0, size_t len, const float* s, const float* z, bool per_element) {
    size_t j = 0;
    const float s1 = per_element ? 0.0f : s[0];
    const float z1 = per_element || z == nullptr ? 0.0f : z[0];
    for (; j + N <= len; j += N) {
      RoundToOddLanes(dd, x + j0 + j, per_element ? s + j : nullptr, s1,
                      per_element && z != nullptr ? z + j : nullptr, z1, out + j0 + j);
    }
    for (; j < len; ++j) {
      RoundToOddLanes(dd1, x + j0 + j, per_element ? s + j : nullptr, s1,
                      per_element && z != nullptr ? z + j : nullptr, z1, out + j0 + j);
    }
  };
  switch (run.mode) {
    case QdqRun::kUniform: span(0, n, run.s, run.z, false); return;
    case QdqRun::kPerElement: span(0, n, run.s, run.z, true); return;
    default: {
      size_t j = 0, k = 0, phase = run.phase;
      while (j < n) {
        const size_t len = run.block - phase < n - j ? run.block - phase : n - j;
        span(j, len, run.s + k, run.z == nullptr ? nullptr : run.z + k, false);
        j += len;
        ++k;
        phase = 0;
      }
      return;
    }
  }
}

// --- QuantizeLinear to float8 and FLOAT4E2M1 codes in one pass ----------------------------
// The quotient of Quotient, then the encoder of the Cast kernels (the same functions, so
// the same codes as the Cast of the float32 quotient), with no float32 chunk in between.

// The scale (or zero point) lanes p of a run for its elements [i, i + Lanes(d)): one value
// (kUniform), one per element (kPerElement), or the block's (kBlocked: the lanes lie in one
// block, see FusedRunsFit).
template <int kMode, class D>
HWY_INLINE hn::Vec<D> RunLanes(D d, const float* p, const QdqRun& run, size_t i) {
  if constexpr (kMode == QdqRun::kUniform) {
    (void)run;
    (void)i;
    return hn::Set(d, p[0]);
  } else if constexpr (kMode == QdqRun::kPerElement) {
    (void)run;
    return hn::LoadU(d, p + i);
  } else {
    return hn::Set(d, p[(run.phase + i) / run.block]);
  }
}

template <int kMode, class D>
HWY_INLINE hn::Vec<D> QuotientLanes(D d, const float* x, const QdqRun& run, size_t i) {
  const auto xv = hn::LoadU(d, x + i);
  const auto sv = RunLanes<kMode>(d, run.s, run, i);
  auto q = FixNaN(d, xv, sv, hn::Div(xv, sv));
  if (run.z != nullptr) q = hn::Add(q, RunLanes<kMode>(d, run.z, run, i));
  return q;
}

template <class F, bool kSat, class DU>
HWY_INLINE hn::Vec<DU> F8Code(DU du, hn::Vec<DU> bits) {
#if TENSORCAST_F8_FMIN_KEEPS_NAN
  return F32BitsToF8Fast<F, kSat>(du, bits);
#else
  return F32BitsToF8<F, kSat>(du, bits);
#endif
}

// Float8 codes of the `len` elements of a run at x into out.
template <class F, bool kSat, int kMode>
HWY_INLINE void F8Run(const float* x, size_t len, const QdqRun& run, uint8_t* out) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du;
  const auto at = [&](size_t i) TENSORCAST_LAMBDA_INLINE {
    return F8Code<F, kSat>(du, hn::BitCast(du, QuotientLanes<kMode>(df, x, run, i)));
  };
  size_t i = PackBytesLoop<false>(du, out, len, at, NoSourcePrefetch());
  const hn::CappedTag<float, 1> d1;
  const hn::RebindToUnsigned<decltype(d1)> du1;
  for (; i < len; ++i) {
    out[i] = static_cast<uint8_t>(
        hn::GetLane(F8Code<F, kSat>(du1, hn::BitCast(du1, QuotientLanes<kMode>(d1, x, run, i)))));
  }
}

// FLOAT4E2M1 codes of the `len` elements of a run at x (len even, or the chunk's last
// run), packed two per byte into out.
template <int kMode>
HWY_INLINE void F4Run(const float* x, size_t len, const QdqRun& run, uint8_t* out) {
  const subbyte::DU32 du;
  const subbyte::DF32 df;
  const size_t N = hn::Lanes(du);
  const size_t chunk = PackedChunk<4>();
  size_t i = 0;
  for (; i + chunk <= len; i += chunk) {
    const auto code = [&](size_t j) TENSORCAST_LAMBDA_INLINE {
      return subbyte::F4CodeFromF32(hn::BitCast(du, QuotientLanes<kMode>(df, x, run, i + j * N)));
    };
    hn::StoreU(PackCodes32<4>(du, code), DU8(), out + i / 2);
  }
#if HWY_TARGET != HWY_SCALAR
  // Whole vectors of a shorter rest: the codes of lanes 2k and 2k + 1 meet in u64 lane k.
  const hn::Repartition<uint64_t, decltype(du)> d64;
  const hn::Rebind<uint8_t, decltype(d64)> d8;
  for (; i + N <= len; i += N) {
    const auto c = hn::BitCast(
        d64, subbyte::F4CodeFromF32(hn::BitCast(du, QuotientLanes<kMode>(df, x, run, i))));
    const auto pair = hn::Or(hn::And(c, hn::Set(d64, 0xFu)), hn::ShiftRight<28>(c));
    hn::StoreU(hn::TruncateTo(d8, pair), d8, out + i / 2);
  }
#endif
  const hn::CappedTag<float, 1> d1;
  const hn::RebindToUnsigned<decltype(d1)> du1;
  for (; i < len; i += 2) {
    uint32_t c[2] = {0, 0};
    for (size_t k = 0; k < 2 && i + k < len; ++k) {
      // F4CodeFromF32 on one lane: its full-width tag takes the first lane.
      HWY_ALIGN uint32_t lanes[HWY_MAX_BYTES / 4] = {};
      lanes[0] = hn::GetLane(hn::BitCast(du1, QuotientLanes<kMode>(d1, x, run, i + k)));
      c[k] = hn::GetLane(subbyte::F4CodeFromF32(hn::Load(du, lanes)));
    }
    out[i / 2] = static_cast<uint8_t>(c[0] | c[1] << 4);
  }
}

template <class RunFn>
HWY_INLINE void ByMode(const QdqRun& run, const RunFn& f) {
  switch (run.mode) {
    case QdqRun::kUniform: f(std::integral_constant<int, QdqRun::kUniform>()); return;
    case QdqRun::kPerElement: f(std::integral_constant<int, QdqRun::kPerElement>()); return;
    default: f(std::integral_constant<int, QdqRun::kBlocked>()); return;
  }
}

// Whether the fused loops take every run of the chunk: blocked runs whose vectors each lie
// in one block, and (4-bit codes) runs that start on a whole byte.
HWY_INLINE bool FusedRunsFit(const QdqChunk& chunk, size_t n, bool nibbles) {
  const size_t N = hn::Lanes(hn::ScalableTag<float>());
  bool fit = true;
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    if (run.mode == QdqRun::kBlocked && (run.block % N != 0 || run.phase % N != 0)) fit = false;
    if (nibbles && j % 2 != 0) fit = false;
    (void)len;
  });
  return fit;
}

template <class F, bool kSat>
HWY_INLINE void F8Chunk(const QdqChunk& chunk, const float* x, size_t n, uint8_t* out) {
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    ByMode(run,
           [&](auto mode) { F8Run<F, kSat, decltype(mode)::value>(x + j, len, run, out + j); });
  });
}

template <class F>
HWY_INLINE void F8Chunk(const QdqChunk& chunk, const float* x, size_t n, bool saturate,
                        uint8_t* out) {
  if (saturate) return F8Chunk<F, true>(chunk, x, n, out);
  F8Chunk<F, false>(chunk, x, n, out);
}

}  // namespace qdq

// QuantizeLinear to a float8 type or FLOAT4E2M1 in one pass (QuantizeToFloatCodes in
// lib/dispatch/quantize_kernels.h).
inline bool QuantizeToFloatCodes(const QdqChunk& chunk, const float* x, size_t n, DataType y_type,
                                 bool saturate, void* out) {
  auto* o = static_cast<uint8_t*>(out);
  const bool nibbles = y_type == DataType::kFloat4E2M1;
  if (!qdq::FusedRunsFit(chunk, n, nibbles)) return false;
  switch (y_type) {
    case DataType::kFloat8E4M3FN: qdq::F8Chunk<FmtE4M3FN>(chunk, x, n, saturate, o); return true;
    case DataType::kFloat8E4M3FNUZ:
      qdq::F8Chunk<FmtE4M3FNUZ>(chunk, x, n, saturate, o);
      return true;
    case DataType::kFloat8E5M2: qdq::F8Chunk<FmtE5M2>(chunk, x, n, saturate, o); return true;
    case DataType::kFloat8E5M2FNUZ:
      qdq::F8Chunk<FmtE5M2FNUZ>(chunk, x, n, saturate, o);
      return true;
    case DataType::kFloat4E2M1:
      ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
        qdq::ByMode(
            run, [&](auto mode) { qdq::F4Run<decltype(mode)::value>(x + j, len, run, o + j / 2); });
      });
      return true;
    default: return false;
  }
}

inline void QuantizeToIntF32(const QdqChunk& chunk, const float* x, size_t n, float lo, float hi,
                             float* out) {
  const qdq::ToInt op{lo, hi};
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    qdq::Run(x + j, len, run, out + j, op);
  });
}

// The same, stored as OutT (8- and 16-bit integer outputs, written directly).
template <typename OutT>
HWY_INLINE void QuantizeToNarrow(const QdqChunk& chunk, const float* x, size_t n, float lo,
                                 float hi, void* out) {
  const qdq::ToIntLanes op{qdq::ToInt{lo, hi}};
  OutT* o = static_cast<OutT*>(out);
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    qdq::Run(x + j, len, run, o + j, op);
  });
}

inline void QuantizeToInteger(const QdqChunk& chunk, const float* x, size_t n, int bits,
                              bool is_signed, float lo, float hi, void* out) {
  if (bits == 8) {
    if (is_signed) return QuantizeToNarrow<int8_t>(chunk, x, n, lo, hi, out);
    return QuantizeToNarrow<uint8_t>(chunk, x, n, lo, hi, out);
  }
  if (is_signed) return QuantizeToNarrow<int16_t>(chunk, x, n, lo, hi, out);
  return QuantizeToNarrow<uint16_t>(chunk, x, n, lo, hi, out);
}

inline void QuantizeQuotientF32(const QdqChunk& chunk, const float* x, size_t n, float* out) {
  const qdq::Quotient op{chunk.z != nullptr};
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    qdq::Run(x + j, len, run, out + j, op);
  });
}

inline void DequantizeF32(const QdqChunk& chunk, const float* x, size_t n, bool round_to_odd,
                          float* out) {
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    if (round_to_odd) {
      qdq::DequantizeOdd(x + j, len, run, out + j);
    } else {
      if (chunk.nan_free) {
        qdq::Run(x + j, len, run, out + j, qdq::Product<false>{});
      } else {
        qdq::Run(x + j, len, run, out + j, qdq::Product<true>{});
      }
    }
  });
}

// DequantizeLinear of an 8- or 16-bit integer x straight to FLOAT: x widened in registers,
// (x - z) * s stored (no float32 copy of x).
template <typename InT>
HWY_INLINE void DequantizeNarrow(const QdqChunk& chunk, const void* x, size_t n, float* out) {
  const InT* in = static_cast<const InT*>(x);
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    if (chunk.nan_free) {
      qdq::Run(in + j, len, run, out + j, qdq::Product<false>{});
    } else {
      qdq::Run(in + j, len, run, out + j, qdq::Product<true>{});
    }
  });
}

// DequantizeLinear of float8 x straight to FLOAT: each code decoded in registers, then
// (x - z) * s (no float32 copy of x).
template <class F>
HWY_INLINE void DequantizeF8Codes(const QdqChunk& chunk, const void* x, size_t n, float* out) {
  const auto* in = static_cast<const qdq::StoredF8<F>*>(x);
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    qdq::Run(in + j, len, run, out + j, qdq::Product<true>{});
  });
}

inline bool DequantizeFloat8(const QdqChunk& chunk, const void* x, size_t n, DataType x_type,
                             float* out) {
  switch (x_type) {
    case DataType::kFloat8E4M3FN: DequantizeF8Codes<FmtE4M3FN>(chunk, x, n, out); return true;
    case DataType::kFloat8E4M3FNUZ: DequantizeF8Codes<FmtE4M3FNUZ>(chunk, x, n, out); return true;
    case DataType::kFloat8E5M2: DequantizeF8Codes<FmtE5M2>(chunk, x, n, out); return true;
    case DataType::kFloat8E5M2FNUZ: DequantizeF8Codes<FmtE5M2FNUZ>(chunk, x, n, out); return true;
    default: return false;
  }
}

namespace qdq {

#if HWY_TARGET != HWY_SCALAR
// The float32 values of 4-bit codes c (u32 lanes < 16), exact: INT4 (kKind 0) or UINT4 (1).
template <int kKind, class DU>
HWY_INLINE hn::Vec<hn::RebindToFloat<DU>> NibbleValues(DU du, hn::Vec<DU> c) {
  const hn::RebindToFloat<DU> df;
  const hn::RebindToSigned<DU> di;
  if constexpr (kKind == 0) {
    return hn::ConvertTo(df, hn::Sub(hn::BitCast(di, hn::Xor(c, hn::Set(du, 8u))), hn::Set(di, 8)));
  } else {
    return hn::ConvertTo(df, hn::BitCast(di, c));
  }
}

// The Lanes(d) codes of the packed bytes at p (element 2k: the low nibble of byte k), as u32.
template <class D>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<D>> LoadNibbles(D, const uint8_t* p) {
  const hn::RebindToUnsigned<D> du;
  const hn::Half<decltype(du)> dh;
  const hn::Rebind<uint8_t, decltype(dh)> d8h;
  const hn::Rebind<uint16_t, decltype(dh)> d16h;
  const hn::Rebind<uint8_t, decltype(du)> d8;
  const auto b = hn::PromoteTo(d16h, hn::LoadU(d8h, p));
  const auto w =
      hn::Or(hn::And(b, hn::Set(d16h, 0xF)), hn::ShiftLeft<4>(hn::And(b, hn::Set(d16h, 0xF0))));
  return hn::PromoteTo(du, hn::BitCast(d8, w));
}

// DequantizeLinear to FLOAT of the `len` 4-bit codes of a run whose first code is the low
// nibble of bytes[0].
template <int kKind, int kMode, class Op>
HWY_INLINE void NibbleRun(const uint8_t* bytes, size_t len, const QdqRun& run, float* out,
                          const Op& op) {
  const hn::ScalableTag<float> d;
  const hn::RebindToUnsigned<decltype(d)> du;
  const size_t N = hn::Lanes(d);
  const auto zero = [&](auto dz, size_t i) TENSORCAST_LAMBDA_INLINE {
    return run.z == nullptr ? hn::Zero(dz) : RunLanes<kMode>(dz, run.z, run, i);
  };
  size_t i = 0;
  if constexpr (kMode == QdqRun::kBlocked) {
    // Vectors lie in one block (FusedRunsFit): k counts the blocks, r the place in block k.
    size_t k = 0;
    for (size_t r = run.phase; i + N <= len; i += N) {
      const auto v = NibbleValues<kKind>(du, LoadNibbles(d, bytes + i / 2));
      const auto z = run.z == nullptr ? hn::Zero(d) : hn::Set(d, run.z[k]);
      hn::StoreU(op(d, v, hn::Set(d, run.s[k]), z), d, out + i);
      r += N;
      if (r == run.block) r = 0, ++k;
    }
  } else {
    for (; i + N <= len; i += N) {
      const auto v = NibbleValues<kKind>(du, LoadNibbles(d, bytes + i / 2));
      hn::StoreU(op(d, v, RunLanes<kMode>(d, run.s, run, i), zero(d, i)), d, out + i);
    }
  }
  const hn::CappedTag<float, 1> d1;
  const hn::RebindToUnsigned<decltype(d1)> du1;
  for (; i < len; ++i) {
    const uint32_t c = (bytes[i / 2] >> (4 * (i & 1))) & 0xFu;
    const auto v = NibbleValues<kKind>(du1, hn::Set(du1, c));
    hn::StoreU(op(d1, v, RunLanes<kMode>(d1, run.s, run, i), zero(d1, i)), d1, out + i);
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace qdq

// DequantizeLinear of INT4 / UINT4 x to FLOAT with the codes unpacked in registers
// (DequantizeNibbles in lib/dispatch/quantize_kernels.h).
inline bool DequantizeNibbles(const QdqChunk& chunk, const void* x, size_t n, DataType x_type,
                              float* out) {
#if HWY_TARGET == HWY_SCALAR
  (void)chunk, (void)x, (void)n, (void)x_type, (void)out;
  return false;
#else
  // FLOAT4E2M1 stays with the Cast kernel's table decoder: decoding it here by arithmetic
  // was twice as slow on Zen 4 (AVX-512).
  if (x_type != DataType::kInt4 && x_type != DataType::kUint4) return false;
  const int kind = x_type == DataType::kInt4 ? 0 : 1;
  if (!qdq::FusedRunsFit(chunk, n, true)) return false;
  const auto* bytes = static_cast<const uint8_t*>(x);
  ForEachRun(chunk, n, [&](size_t j, size_t len, const QdqRun& run) {
    qdq::ByMode(run, [&](auto mode) {
      constexpr int kMode = decltype(mode)::value;
      const auto go = [&](auto kind_c, const auto& op) TENSORCAST_LAMBDA_INLINE {
        qdq::NibbleRun<decltype(kind_c)::value, kMode>(bytes + j / 2, len, run, out + j, op);
      };
      const auto with = [&](const auto& op) TENSORCAST_LAMBDA_INLINE {
        if (kind == 0) return go(std::integral_constant<int, 0>(), op);
        go(std::integral_constant<int, 1>(), op);
      };
      if (chunk.nan_free) {
        with(qdq::Product<false>{});
      } else {
        with(qdq::Product<true>{});
      }
    });
  });
  return true;
#endif
}

inline void DequantizeInteger(const QdqChunk& chunk, const void* x, size_t n, int bits,
                              bool is_signed, float* out) {
  if (bits == 8) {
    if (is_signed) return DequantizeNarrow<int8_t>(chunk, x, n, out);
    return DequantizeNarrow<uint8_t>(chunk, x, n, out);
  }
  if (is_signed) return DequantizeNarrow<int16_t>(chunk, x, n, out);
  return DequantizeNarrow<uint16_t>(chunk, x, n, out);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace tensorcast
HWY_AFTER_NAMESPACE();

#endif  // TENSORCAST_KERNELS_QUANTIZE_INL_H_
