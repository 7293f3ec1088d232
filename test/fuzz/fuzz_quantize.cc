// Fuzz target: QuantizeLinear / DequantizeLinear with the operator, opset, shapes, axis,
// block size, types, attributes and values taken from the input. Checks:
// - the call is accepted exactly when the rules of docs/semantics.md section 12 (the
//   versions' types and attributes, the granularities, float zero points +-0; written
//   here again, independently of lib/quantize.cc) accept it;
// - a refused call writes nothing, an accepted one writes nothing outside y (guard bytes);
// - y is bit for bit what the exact scalar reference (lib/reference/quantize_reference.h)
//   gives for a QuantizePlan built here from the same arguments (lib/quantize_plan.h);
// - QuantizeLinearOutputType / DequantizeLinearOutputType agree with the accepted y type.
//
// Input layout: 16 header bytes (below), then the bytes of x, the scale and the zero point
// (reused cyclically when the input is short).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "lib/quantize_plan.h"
#include "lib/reference/quantize_reference.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::DataType;
using T = DataType;

constexpr size_t kGuard = 32;
constexpr uint8_t kGuardByte = 0xA5;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_quantize: %s\n", what.c_str());
  std::abort();
}

// ---- the rules, written independently of lib/quantize.cc ---------------------------------

int Version(int opset) {
  if (opset < 10 || opset > 28) return 0;
  for (int v : {28, 25, 24, 23, 21, 19, 13, 10}) {
    if (opset >= v) return v;
  }
  return 0;
}

bool In(T t, std::initializer_list<T> set) {
  for (T s : set) {
    if (s == t) return true;
  }
  return false;
}

bool IsFloat3(T t) { return In(t, {T::kFloat, T::kFloat16, T::kBfloat16}); }

// The quantized types of a version (QuantizeLinear's y, DequantizeLinear's x).
bool Quantized(int v, T t) {
  if (In(t, {T::kInt8, T::kUint8})) return true;
  if (In(t, {T::kFloat8E4M3FN, T::kFloat8E4M3FNUZ, T::kFloat8E5M2, T::kFloat8E5M2FNUZ})) {
    return v >= 19;
  }
  if (In(t, {T::kInt16, T::kUint16, T::kInt4, T::kUint4})) return v >= 21;
  if (t == T::kFloat4E2M1) return v >= 23;
  if (In(t, {T::kInt2, T::kUint2})) return v >= 25;
  if (In(t, {T::kFloat6E2M3, T::kFloat6E3M2})) return v >= 28;
  return false;
}

bool IsSmallFloat(T t) {
  return In(t, {T::kFloat8E4M3FN, T::kFloat8E4M3FNUZ, T::kFloat8E5M2, T::kFloat8E5M2FNUZ,
                T::kFloat4E2M1, T::kFloat6E2M3, T::kFloat6E3M2});
}

// Element e of a packed or byte-aligned buffer as an integer of its bits.
uint64_t Element(const uint8_t* p, size_t bits, size_t e) {
  if (bits < 8) {
    const size_t bit = e * bits;
    unsigned window = p[bit / 8];
    if (bit % 8 + bits > 8) window |= static_cast<unsigned>(p[bit / 8 + 1]) << 8;
    return (window >> (bit % 8)) & ((1u << bits) - 1);
  }
  uint64_t v = 0;
  std::memcpy(&v, p + e * bits / 8, bits / 8 > 8 ? 8 : bits / 8);
  return v;
}

struct Tensor {
  DataType type = T::kUndefined;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  size_t count = 1;
  tensorcast::TensorView View() const {
    return {bytes.data(), type, shape.empty() ? nullptr : shape.data(), shape.size()};
  }
};

size_t Count(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return n;
}

// Fills a tensor's elements from the byte stream; packed padding bits cleared.
struct ByteSource {
  const uint8_t* data;
  size_t size;
  size_t pos = 0;
  uint8_t Next() {
    if (size == 0) return static_cast<uint8_t>(pos++ * 37);
    const uint8_t b = data[pos % size];
    ++pos;
    return static_cast<uint8_t>(b + pos / size);  // a new pass differs from the last
  }
};

void Fill(Tensor* t, ByteSource* src, bool zero) {
  t->count = Count(t->shape);
  const int bits = tensorcast::BitWidth(t->type);
  const size_t bytes = bits > 0 ? (t->count * static_cast<size_t>(bits) + 7) / 8 : 0;
  t->bytes.assign(bytes + 1, 0);  // never empty: data is never null
  for (size_t i = 0; i < bytes && !zero; ++i) t->bytes[i] = src->Next();
  if (bits > 0 && bits < 8 && t->count * static_cast<size_t>(bits) % 8 != 0) {
    t->bytes[bytes - 1] &= static_cast<uint8_t>((1u << (t->count * bits % 8)) - 1);
  }
  t->bytes[bytes] = 0;
}

struct Call {
  bool quantize = true;
  tensorcast::QuantizeAttributes attrs;
  Tensor x, scale, zp;
  bool has_zp = false;
  DataType y_type = T::kUndefined;
};

// Layout decided by the rules (valid calls only).
struct Layout {
  tensorcast::Granularity granularity = tensorcast::Granularity::kPerTensor;
  size_t outer = 1, dim = 0, inner = 1, block = 0, blocks = 0;
};

// The y type the rules give, or false when the types or attributes are refused.
bool ExpectedYType(const Call& c, int v, DataType* y) {
  const auto& a = c.attrs;
  if (v < 13 && a.axis != 1) return false;
  if (v < 21 && a.block_size != 0) return false;
  if (a.block_size < 0) return false;
  if (a.output_dtype != T::kUndefined && v < (c.quantize ? 21 : 23)) return false;
  if (c.quantize) {
    if (v < 19 && !a.saturate) return false;
    if (a.precision != T::kUndefined && (v < 23 || !IsFloat3(a.precision))) return false;
    const T x = c.x.type, s = c.scale.type;
    if (!(In(x, {T::kFloat, T::kInt32}) || (v >= 19 && In(x, {T::kFloat16, T::kBfloat16})))) {
      return false;
    }
    if (v < 19 && s != T::kFloat) return false;
    if ((v == 19 || v == 21) && s != x) return false;
    if (v >= 23 && !(IsFloat3(s) || s == T::kInt32 || (v >= 24 && s == T::kFloat8E8M0))) {
      return false;
    }
    if (a.output_dtype != T::kUndefined && !Quantized(v, a.output_dtype)) return false;
    if (c.has_zp) {
      if (!Quantized(v, c.zp.type)) return false;
      if (a.output_dtype != T::kUndefined && a.output_dtype != c.zp.type) return false;
      *y = c.zp.type;
    } else {
      *y = a.output_dtype != T::kUndefined ? a.output_dtype : T::kUint8;
    }
    return true;
  }
  if (!a.saturate || a.precision != T::kUndefined) return false;
  const T x = c.x.type, s = c.scale.type;
  if (!Quantized(v, x) && x != T::kInt32) return false;
  if (c.has_zp && c.zp.type != x) return false;
  if (!(s == T::kFloat || (v >= 19 && IsFloat3(s)) || (v >= 24 && s == T::kFloat8E8M0))) {
    return false;
  }
  if (v < 19) {
    *y = T::kFloat;
  } else if (a.output_dtype != T::kUndefined) {
    if (!IsFloat3(a.output_dtype)) return false;
    *y = a.output_dtype;
  } else if (s == T::kFloat8E8M0) {
    return false;
  } else {
    *y = s;
  }
  return true;
}

// Whether the shapes and the zero point's values are accepted, and the layout.
bool ExpectedLayout(const Call& c, int v, Layout* l) {
  const auto& a = c.attrs;
  const size_t count = c.x.count;
  const Tensor& s = c.scale;
  bool ok = true;
  if (a.block_size == 0 && s.count == 1 && s.shape.size() <= 1) {
    l->granularity = tensorcast::Granularity::kPerTensor;
    l->dim = count;
  } else if (a.block_size == 0 && s.shape.size() > 1) {
    return false;
  } else if (v < 13) {
    return false;
  } else {
    const auto r = static_cast<int64_t>(c.x.shape.size());
    if (a.axis < -r || a.axis >= r) return false;
    const size_t axis = static_cast<size_t>(a.axis < 0 ? a.axis + r : a.axis);
    for (size_t i = 0; i < axis; ++i) l->outer *= static_cast<size_t>(c.x.shape[i]);
    for (size_t i = axis + 1; i < c.x.shape.size(); ++i) {
      l->inner *= static_cast<size_t>(c.x.shape[i]);
    }
    l->dim = static_cast<size_t>(c.x.shape[axis]);
    if (a.block_size == 0) {
      l->granularity = tensorcast::Granularity::kPerAxis;
      ok = s.count == l->dim;
    } else {
      l->granularity = tensorcast::Granularity::kBlocked;
      l->block = static_cast<size_t>(a.block_size);
      l->blocks = (l->dim + l->block - 1) / l->block;
      ok = s.shape.size() == c.x.shape.size();
      for (size_t i = 0; ok && i < s.shape.size(); ++i) {
        ok = i == axis ? static_cast<size_t>(s.shape[i]) == l->blocks : s.shape[i] == c.x.shape[i];
      }
    }
  }
  if (!ok) return false;
  if (c.has_zp) {
    if (l->granularity == tensorcast::Granularity::kPerTensor) {
      if (c.zp.count != 1 || c.zp.shape.size() > 1) return false;
    } else if (c.zp.shape != s.shape) {
      return false;
    }
    if (IsSmallFloat(c.zp.type)) {
      const size_t bits = static_cast<size_t>(tensorcast::BitWidth(c.zp.type));
      const uint64_t sign = uint64_t{1} << (bits - 1);
      const bool fnuz = In(c.zp.type, {T::kFloat8E4M3FNUZ, T::kFloat8E5M2FNUZ});
      for (size_t i = 0; i < c.zp.count; ++i) {
        const uint64_t code = Element(c.zp.bytes.data(), bits, i);
        if ((code & ~sign) != 0 || (fnuz && code == sign)) return false;
      }
    }
  }
  return true;
}

// ---- decoding the input -------------------------------------------------------------------

constexpr T kQuantizedTypes[] = {
    T::kInt8,           T::kUint8, T::kFloat8E4M3FN, T::kFloat8E4M3FNUZ, T::kFloat8E5M2,
    T::kFloat8E5M2FNUZ, T::kInt16, T::kUint16,       T::kInt4,           T::kUint4,
    T::kFloat4E2M1,     T::kInt2,  T::kUint2,        T::kFloat6E2M3,     T::kFloat6E3M2};
constexpr size_t kQuantizedCount = sizeof(kQuantizedTypes) / sizeof(kQuantizedTypes[0]);

// A type from `list` (b < 0x80 mostly), or any code 0..30 (valid or not) when b >= 0xF0.
template <size_t N>
T Pick(uint8_t b, const T (&list)[N]) {
  if (b >= 0xF0) return static_cast<T>(b % 31);
  return list[b % N];
}

std::vector<int64_t> RandomShape(uint8_t b, ByteSource* src) {
  std::vector<int64_t> shape(b % 5);
  for (auto& d : shape) d = src->Next() % 4;
  return shape;
}

std::string Describe(const Call& c) {
  auto shape = [](const std::vector<int64_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
    return out + "]";
  };
  std::string d = std::string(c.quantize ? "QuantizeLinear" : "DequantizeLinear") + " opset " +
                  std::to_string(c.attrs.opset) + " x " + tensorcast::DataTypeName(c.x.type) +
                  shape(c.x.shape) + " scale " + tensorcast::DataTypeName(c.scale.type) +
                  shape(c.scale.shape);
  if (c.has_zp) d += std::string(" zp ") + tensorcast::DataTypeName(c.zp.type) + shape(c.zp.shape);
  d += " axis " + std::to_string(c.attrs.axis) + " block " + std::to_string(c.attrs.block_size) +
       " output_dtype " + tensorcast::DataTypeName(c.attrs.output_dtype) + " precision " +
       tensorcast::DataTypeName(c.attrs.precision) + " saturate " +
       std::to_string(c.attrs.saturate) + " y " + tensorcast::DataTypeName(c.y_type);
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kHeader = 16;
  if (size < kHeader) return 0;
  const uint8_t* h = data;
  ByteSource src{data + kHeader, size - kHeader};
  Call c;
  // h[0]: the operator (bit 0), saturate (bit 1), zero point (bits 2-3: none, zero-filled,
  // from the input, from the input with a shape of its own), y type mutated (bit 4),
  // a scale dimension off by one (bit 5).
  c.quantize = (h[0] & 1) == 0;
  // saturate = 0 is an attribute of QuantizeLinear-19+ only: rarely for DequantizeLinear.
  c.attrs.saturate = (h[0] & 2) == 0 || (c.quantize ? (h[14] & 1) != 0 : h[14] < 0xF0);
  const int zp_mode = (h[0] >> 2) & 3;
  c.has_zp = zp_mode != 0;
  // h[1]: opset 9..29 (9 and 29 are refused).
  c.attrs.opset = 9 + h[1] % 21;
  const int v = Version(c.attrs.opset);
  // h[2]: x's rank 0..4, h[3..6]: its dimensions 0..6 (zero rarely), or up to 64 when
  // the top two bits are set (runs across the library's chunks of 4096 elements; x has at
  // most 10000).
  const size_t rank = h[2] % 5;
  for (size_t i = 0; i < rank; ++i) {
    const uint8_t b = h[3 + i];
    c.x.shape.push_back(b % 16 == 0 ? 0 : b >= 0xC0 ? 1 + b % 64 : 1 + b % 6);
  }
  // h[7]: the axis -5..5 (out of range sometimes); default 1 when bit 7 is set.
  c.attrs.axis = (h[7] & 0x80) ? 1 : static_cast<int8_t>(h[7] << 1) / 2 % 6;
  // h[8]: granularity (bits 0-1: per tensor, per axis, blocked, any shape), block size
  // (bits 2-5: 1..16).
  const int mode = h[8] & 3;
  const int64_t block = 1 + ((h[8] >> 2) & 15);
  // h[9..13]: types of x, the scale, the zero point, output_dtype, precision.
  static const T kQx[] = {T::kFloat, T::kFloat16, T::kBfloat16, T::kInt32};
  static const T kQs[] = {T::kFloat,      T::kFloat16,   T::kBfloat16, T::kInt32,
                          T::kFloat8E8M0, T::kUndefined, T::kUndefined};  // undefined: x's
  static const T kDs[] = {T::kFloat, T::kFloat16, T::kBfloat16, T::kFloat8E8M0};
  static const T kDy[] = {T::kUndefined, T::kUndefined, T::kFloat, T::kFloat16, T::kBfloat16};
  static const T kPrecision[] = {T::kUndefined, T::kUndefined, T::kUndefined,
                                 T::kFloat,     T::kFloat16,   T::kBfloat16};
  T dq_x[kQuantizedCount + 1];
  for (size_t i = 0; i < kQuantizedCount; ++i) dq_x[i] = kQuantizedTypes[i];
  dq_x[kQuantizedCount] = T::kInt32;
  if (c.quantize) {
    c.x.type = Pick(h[9], kQx);
    c.scale.type = Pick(h[10], kQs);
    if (c.scale.type == T::kUndefined) c.scale.type = c.x.type;
    c.zp.type = Pick(h[11], kQuantizedTypes);
    // output_dtype: absent, the zero point's type, or another quantized type.
    const int od = h[12] % 4;
    c.attrs.output_dtype = od <= 1   ? T::kUndefined
                           : od == 2 ? (c.has_zp ? c.zp.type : Pick(h[13], kQuantizedTypes))
                                     : Pick(h[12] >= 0xF0 ? h[12] : h[13], kQuantizedTypes);
    c.attrs.precision = Pick(h[14] >> 1, kPrecision);
    if (h[14] >= 0xF8) c.attrs.precision = static_cast<T>(h[13] % 31);
  } else {
    c.x.type = Pick(h[9], dq_x);
    c.scale.type = Pick(h[10], kDs);
    c.zp.type = h[11] >= 0xF0 ? static_cast<T>(h[11] % 31) : c.x.type;
    c.attrs.output_dtype = Pick(h[12], kDy);
    if (h[14] >= 0xFC) c.attrs.precision = T::kFloat;  // DequantizeLinear has none
  }
  const int bits_x = tensorcast::BitWidth(c.x.type);
  const int bits_s = tensorcast::BitWidth(c.scale.type);
  const int bits_z = tensorcast::BitWidth(c.zp.type);
  if (bits_x == 0 || bits_s == 0 || (c.has_zp && bits_z == 0) || bits_x > 64 || bits_s > 64 ||
      bits_z > 64) {
    return 0;  // STRING, undefined, invalid and complex elements: not buffers of bits
  }

  // The scale's shape.
  const auto r = static_cast<int64_t>(rank);
  const int64_t axis_n = c.attrs.axis < 0 ? c.attrs.axis + r : c.attrs.axis;
  const bool axis_ok = axis_n >= 0 && axis_n < r;
  switch (mode) {
    case 0:
      if (h[15] & 1) c.scale.shape = {1};
      break;
    case 1: c.scale.shape = {axis_ok ? c.x.shape[static_cast<size_t>(axis_n)] : 2}; break;
    case 2:
      c.attrs.block_size = block;
      c.scale.shape = c.x.shape;
      if (axis_ok) {
        auto& d = c.scale.shape[static_cast<size_t>(axis_n)];
        d = (d + block - 1) / block;
      }
      break;
    default:
      c.scale.shape = RandomShape(h[15], &src);
      if (h[15] & 0x80) c.attrs.block_size = block;
      break;
  }
  if ((h[0] & 0x20) && !c.scale.shape.empty()) {
    c.scale.shape[h[15] % c.scale.shape.size()] += 1;
  }
  if (h[15] & 0x40 && mode != 2) c.attrs.block_size = block;  // a block size where none fits
  c.zp.shape = zp_mode == 3 ? RandomShape(h[13], &src) : c.scale.shape;

  if (Count(c.x.shape) > 10000 || Count(c.scale.shape) > 4096 || Count(c.zp.shape) > 4096) {
    return 0;
  }
  Fill(&c.x, &src, false);
  Fill(&c.scale, &src, false);
  Fill(&c.zp, &src, zp_mode == 1);
  if (zp_mode == 1 && IsSmallFloat(c.zp.type) && (h[15] & 2) && c.zp.count > 0) {
    // A negative zero in the first element (0x80 is the NaN of the FNUZ types).
    const auto bits = static_cast<size_t>(bits_z);
    c.zp.bytes[(bits - 1) / 8] |= static_cast<uint8_t>(1u << ((bits - 1) % 8));
  }

  // The expected outcome, and y's type (mutated when h[0] bit 4 is set).
  DataType want_y = T::kUndefined;
  Layout layout;
  bool valid = v != 0 && ExpectedYType(c, v, &want_y);
  c.y_type = valid ? want_y : (c.quantize ? T::kUint8 : T::kFloat);
  if (h[0] & 0x10) {
    const T other = static_cast<T>(1 + h[13] % tensorcast::kMaxDataTypeCode);
    if (other != c.y_type) {
      c.y_type = other;
      valid = false;
    }
  }
  valid = valid && ExpectedLayout(c, v, &layout);
  const int bits_y = tensorcast::BitWidth(c.y_type);
  if (bits_y == 0 || bits_y > 64) return 0;

  // The public type functions agree with the rules on the types they decide.
  {
    DataType api_y = T::kUndefined;
    const tensorcast::Status s =
        c.quantize ? tensorcast::QuantizeLinearOutputType(
                         c.attrs, c.has_zp ? c.zp.type : T::kUndefined, &api_y)
                   : tensorcast::DequantizeLinearOutputType(c.attrs, c.scale.type, &api_y);
    if (valid && (!s.ok() || api_y != want_y)) {
      Fail("the output type function disagrees (" + s.message() + "): " + Describe(c));
    }
  }

  const size_t y_bytes = (c.x.count * static_cast<size_t>(bits_y) + 7) / 8;
  std::vector<uint8_t> got(kGuard + y_bytes + kGuard, kGuardByte);
  uint8_t* y = got.data() + kGuard;
  const tensorcast::TensorView xv = c.x.View(), sv = c.scale.View(), zv = c.zp.View();
  const tensorcast::TensorView* zp = c.has_zp ? &zv : nullptr;
  const tensorcast::Status s = c.quantize
                                   ? tensorcast::QuantizeLinear(xv, sv, zp, y, c.y_type, c.attrs)
                                   : tensorcast::DequantizeLinear(xv, sv, zp, y, c.y_type, c.attrs);
  if (s.ok() != valid) {
    Fail(std::string(valid ? "a valid call was refused (" + s.message() + ")"
                           : "an invalid call was accepted") +
         ": " + Describe(c));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    const bool in_y = i >= kGuard && i < kGuard + y_bytes;
    if ((!in_y || !s.ok()) && got[i] != kGuardByte) {
      Fail(std::string(s.ok() ? "wrote outside y" : "a refused call wrote y") + ": " + Describe(c));
    }
  }
  if (!s.ok()) {
    if (s.message().empty()) Fail("an error without a message: " + Describe(c));
    return 0;
  }

  // The reference, on a plan built here from the same arguments.
  tensorcast::QuantizePlan plan;
  plan.quantize = c.quantize;
  plan.x_type = c.x.type;
  plan.scale_type = c.scale.type;
  plan.zero_point_type = c.has_zp ? c.zp.type : T::kUndefined;
  plan.y_type = c.y_type;
  plan.precision = c.attrs.precision != T::kUndefined ? c.attrs.precision
                   : c.scale.type == T::kInt32        ? T::kDouble
                   : c.scale.type == T::kFloat8E8M0   ? T::kFloat
                                                      : c.scale.type;
  plan.saturate = c.attrs.saturate;
  plan.granularity = layout.granularity;
  plan.count = c.x.count;
  plan.outer = layout.outer;
  plan.dim = layout.dim;
  plan.inner = layout.inner;
  plan.block = layout.block;
  plan.blocks = layout.blocks;
  plan.x = c.x.bytes.data();
  plan.scale = c.scale.bytes.data();
  plan.zero_point = c.has_zp ? c.zp.bytes.data() : nullptr;
  std::vector<uint8_t> want(y_bytes + 1, 0);
  plan.y = want.data();
  if (c.quantize) {
    tensorcast::reference::QuantizeLinear(plan, 0, plan.count);
  } else {
    tensorcast::reference::DequantizeLinear(plan, 0, plan.count);
  }
  // Element by element (packed types too), then the padding bits of a partial last byte.
  const auto bits = static_cast<size_t>(bits_y);
  for (size_t e = 0; e < plan.count; ++e) {
    const uint64_t g = Element(y, bits, e), w = Element(want.data(), bits, e);
    if (g != w) {
      const size_t si = plan.ScaleIndex(e);
      const auto bx = static_cast<size_t>(tensorcast::BitWidth(c.x.type));
      const auto bs = static_cast<size_t>(tensorcast::BitWidth(c.scale.type));
      char where[200];
      std::snprintf(where, sizeof where,
                    "element %zu (x 0x%llX, scale %zu 0x%llX): 0x%llX, reference 0x%llX", e,
                    static_cast<unsigned long long>(Element(c.x.bytes.data(), bx, e)), si,
                    static_cast<unsigned long long>(Element(c.scale.bytes.data(), bs, si)),
                    static_cast<unsigned long long>(g), static_cast<unsigned long long>(w));
      Fail(std::string("y differs from the reference at ") + where + ": " + Describe(c));
    }
  }
  if (bits < 8 && plan.count * bits % 8 != 0 && (y[y_bytes - 1] >> (plan.count * bits % 8)) != 0) {
    Fail("padding bits after the last element are not zero: " + Describe(c));
  }
  return 0;
}
