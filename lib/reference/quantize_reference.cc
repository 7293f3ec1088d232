// The exact scalar QuantizeLinear / DequantizeLinear: the rules of docs/semantics.md
// section 12, written per element with the exact decoders and encoders of exact.h.
#include "lib/reference/quantize_reference.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "lib/reference/exact.h"
#include "lib/reference/reference_cast.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace reference {
namespace {

Exact Element(DataType type, const void* data, size_t i) {
  const TypeFacts& f = Facts(type);
  const uint64_t code = LoadCode(data, f.bits, i);
  switch (f.kind) {
    case TypeKind::kSignedInt: return FromSigned(SignExtend(code, f.bits));
    case TypeKind::kUnsignedInt: return FromUnsigned(code);
    default: return DecodeFloat(type, code);
  }
}

// The value of x rounded once to the float type p (DOUBLE included), as a double.
double RoundTo(DataType p, const Exact& x) {
  const uint64_t code = EncodeFloat(p, x, CastOptions{});
  return ToDouble(DecodeFloat(p, code));
}

// The float32 bits of a NaN as the kernels see it: Cast's FLOAT code of x, quiet.
uint32_t QuietF32NaN(const Exact& x) {
  return static_cast<uint32_t>(EncodeFloat(DataType::kFloat, x, CastOptions{})) | 0x00400000u;
}

// Rounds half to even; NaN and +-Inf are handled by the caller.
double RoundHalfEven(double q) {
  const double r = std::floor(q);
  const double diff = q - r;  // exact: q and r are close doubles
  if (diff > 0.5) return r + 1;
  if (diff < 0.5) return r;
  return std::fmod(r, 2.0) == 0 ? r : r + 1;
}

}  // namespace

void QuantizeLinear(const QuantizePlan& p, size_t begin, size_t end) {
  const TypeFacts& yf = Facts(p.y_type);
  const bool int_out = yf.kind == TypeKind::kSignedInt || yf.kind == TypeKind::kUnsignedInt;
  double lo = 0, hi = 0;
  if (int_out) {
    const bool is_signed = yf.kind == TypeKind::kSignedInt;
    lo = is_signed ? -std::ldexp(1.0, yf.bits - 1) : 0.0;
    hi = is_signed ? std::ldexp(1.0, yf.bits - 1) - 1 : std::ldexp(1.0, yf.bits) - 1;
  }
  CastOptions cast;
  cast.saturate = p.saturate;
  for (size_t e = begin; e < end; ++e) {
    const size_t si = p.ScaleIndex(e);
    const double a = RoundTo(p.precision, Element(p.x_type, p.x, e));
    const double b = RoundTo(p.precision, Element(p.scale_type, p.scale, si));
    // A NaN quotient is x's NaN when x is one, else the scale's; as the hardware divides.
    double q = std::isnan(a) ? a : std::isnan(b) ? b : a / b;
    if (p.precision != DataType::kDouble && !std::isnan(q)) q = RoundTo(p.precision, FromDouble(q));
    uint64_t code;
    if (int_out) {
      const double z =
          p.zero_point != nullptr ? ToDouble(Element(p.zero_point_type, p.zero_point, si)) : 0.0;
      double r;
      if (std::isnan(q)) {
        r = z;
      } else {
        r = std::isinf(q) ? q : RoundHalfEven(q);
        r = r < lo - z ? lo : r > hi - z ? hi : r + z;  // saturate before adding: no wrap
      }
      code = static_cast<uint64_t>(static_cast<int64_t>(r));
    } else {
      // Float outputs: a Cast of the quotient plus the zero point.
      Exact qx;
      if (std::isnan(q)) {
        // The NaN of the quotient in float32, as the kernels divide: x's NaN, else the
        // scale's, quiet; 0 / 0 and Inf / Inf give the positive quiet NaN.
        uint32_t bits = 0x7FC00000u;
        if (std::isnan(a)) {
          bits = QuietF32NaN(Element(p.x_type, p.x, e));
        } else if (std::isnan(b)) {
          bits = QuietF32NaN(Element(p.scale_type, p.scale, si));
        }
        qx = DecodeFloat(DataType::kFloat, bits);
      } else {
        // A float zero point is +-0 (validated): adding it decides the sign of a zero.
        if (p.zero_point != nullptr) q += ToDouble(Element(p.zero_point_type, p.zero_point, si));
        qx = FromDouble(q);
      }
      code = EncodeFloat(p.y_type, qx, cast);
    }
    StoreCode(p.y, yf.bits, e, code);
  }
}

void DequantizeLinear(const QuantizePlan& p, size_t begin, size_t end) {
  const TypeFacts& xf = Facts(p.x_type);
  const TypeFacts& yf = Facts(p.y_type);
  const bool int_in = xf.kind == TypeKind::kSignedInt || xf.kind == TypeKind::kUnsignedInt;
  for (size_t e = begin; e < end; ++e) {
    const size_t si = p.ScaleIndex(e);
    Exact d = Element(p.x_type, p.x, e);
    if (int_in && p.zero_point != nullptr) {
      const Exact z = Element(p.zero_point_type, p.zero_point, si);
      const int64_t dv = static_cast<int64_t>(d.int_bits) - static_cast<int64_t>(z.int_bits);
      // int_bits is sign-extended for signed types and zero-extended for unsigned ones;
      // the difference of two 32-bit values fits in 64 bits.
      d = FromSigned(dv);
    } else if (!int_in && p.zero_point != nullptr) {
      // A float zero point is +-0 (validated): x - z is x, but for the sign of a zero x
      // (-0 - -0 = +0, as IEEE subtraction rounds to nearest).
      const Exact z = Element(p.zero_point_type, p.zero_point, si);
      if (d.kind == Exact::kFinite && d.mant == 0) d.neg = d.neg && !z.neg;
    }
    const Exact s = Element(p.scale_type, p.scale, si);
    Exact y;
    if (d.kind == Exact::kNaN || s.kind == Exact::kNaN) {
      y = DecodeFloat(DataType::kFloat, QuietF32NaN(d.kind == Exact::kNaN ? d : s));
    } else if ((d.kind == Exact::kInf && s.kind == Exact::kFinite && s.mant == 0) ||
               (s.kind == Exact::kInf && d.kind == Exact::kFinite && d.mant == 0)) {
      y = DecodeFloat(DataType::kFloat, 0x7FC00000u);  // Inf * 0: the positive quiet NaN
    } else if (d.kind == Exact::kInf || s.kind == Exact::kInf) {
      y.kind = Exact::kInf;
      y.neg = d.neg != s.neg;
    } else {
      // The exact product: at most 64 + 64 bits, kept in 64 with a sticky low bit (the
      // targets have at most 24 bits, so the sticky bit decides ties and nothing else).
      unsigned __int128 m = static_cast<unsigned __int128>(d.mant) * s.mant;
      int32_t exp = d.exp + s.exp;
      bool sticky = false;
      while (m >> 63 != 0) {
        sticky |= (m & 1) != 0;
        m >>= 1;
        ++exp;
      }
      y.neg = d.neg != s.neg;
      y.mant = static_cast<uint64_t>(m) | (sticky ? 1u : 0u);
      y.exp = exp;
    }
    StoreCode(p.y, yf.bits, e, EncodeFloat(p.y_type, y, CastOptions{}));
  }
}

}  // namespace reference
}  // namespace tensorcast
