// Public QuantizeLinear / DequantizeLinear: the checks of each operator version's types,
// attributes and shapes (all before anything is written), then the conversion in chunks:
// Cast kernels to float32, the arithmetic kernels (lib/kernels/quantize-inl.h), Cast
// kernels to the output type. No exception leaves this file.
#include "tensorcast/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hwy/cache_control.h"  // hwy::FlushStream
#include "lib/check.h"
#include "lib/dispatch/quantize_kernels.h"
#include "lib/dispatch/route_plan.h"
#include "lib/dispatch/stream_copy.h"
#include "lib/parallel.h"
#include "lib/quantize_plan.h"
#include "lib/quantize_runs.h"
#include "lib/reference/quantize_reference.h"
#include "lib/reference/reference_cast.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace {

using T = DataType;

// --- Versions and their types -------------------------------------------------------------

constexpr int kVersions[] = {10, 13, 19, 21, 23, 24, 25, 28};

// A set of type codes as bits.
using TypeSet = uint32_t;
constexpr TypeSet Bit(T t) { return TypeSet{1} << static_cast<int>(t); }
constexpr bool Has(TypeSet set, T t) {
  return static_cast<int>(t) > 0 && static_cast<int>(t) <= kMaxDataTypeCode && (set & Bit(t));
}

constexpr TypeSet kFloat8 =
    Bit(T::kFloat8E4M3FN) | Bit(T::kFloat8E4M3FNUZ) | Bit(T::kFloat8E5M2) | Bit(T::kFloat8E5M2FNUZ);
constexpr TypeSet kFloats = Bit(T::kFloat) | Bit(T::kFloat16) | Bit(T::kBfloat16);

// The quantized types (QuantizeLinear's y, DequantizeLinear's x) of a version.
TypeSet QuantizedTypes(int v) {
  TypeSet s = Bit(T::kInt8) | Bit(T::kUint8);
  if (v >= 19) s |= kFloat8;
  if (v >= 21) s |= Bit(T::kInt16) | Bit(T::kUint16) | Bit(T::kInt4) | Bit(T::kUint4);
  if (v >= 23) s |= Bit(T::kFloat4E2M1);
  if (v >= 25) s |= Bit(T::kInt2) | Bit(T::kUint2);
  if (v >= 28) s |= Bit(T::kFloat6E2M3) | Bit(T::kFloat6E3M2);
  return s;
}

// "FLOAT, INT32" for messages.
std::string TypeList(TypeSet set) {
  std::string out;
  for (int c = 1; c <= kMaxDataTypeCode; ++c) {
    if (!(set & (TypeSet{1} << c))) continue;
    if (!out.empty()) out += ", ";
    out += DataTypeName(static_cast<T>(c));
  }
  return out;
}

struct Op {
  const char* name;  // "QuantizeLinear"
  bool quantize;
  int version;
  // Argument names as ONNX spells them.
  const char* scale_arg;
  const char* zero_point_arg;
};

Status Error(StatusCode code, const Op& op, const std::string& text) {
  return Status(code, std::string(op.name) + ": " + text);
}

Status TypeNotInVersion(const Op& op, const char* argument, T type, TypeSet allowed) {
  if (!IsValidDataType(type)) {
    return Error(StatusCode::kInvalidArgument, op,
                 std::string(argument) + ": unknown data type code " +
                     std::to_string(static_cast<int>(type)));
  }
  return Error(StatusCode::kUnsupported, op,
               std::string(argument) + ": " + check::TypeLabel(type) + " is not a type of " +
                   op.name + "-" + std::to_string(op.version) + " (" + TypeList(allowed) + ")");
}

Status NoSuchAttribute(const Op& op, const char* attribute, int since) {
  return Error(StatusCode::kInvalidArgument, op,
               std::string(attribute) + ": " + op.name + "-" + std::to_string(op.version) +
                   " has no such attribute (from opset " + std::to_string(since) + ")");
}

Status VersionOf(const char* name, int opset, int* version) {
  *version = QuantizeLinearVersion(opset);
  if (*version == 0) {
    return Status(StatusCode::kUnsupported, std::string(name) + ": opset " + std::to_string(opset) +
                                                " is outside 10..28, the opsets of " + name);
  }
  return Status::Ok();
}

// The attributes each version has: a field of a later version must keep its default.
Status CheckAttributes(const Op& op, const QuantizeAttributes& a) {
  const int v = op.version;
  if (v < 13 && a.axis != 1) return NoSuchAttribute(op, "axis", 13);
  if (v < 21 && a.block_size != 0) return NoSuchAttribute(op, "block_size", 21);
  if (a.block_size < 0) {
    return Error(StatusCode::kInvalidArgument, op,
                 "block_size: " + std::to_string(a.block_size) + " is negative");
  }
  if (a.output_dtype != T::kUndefined && v < (op.quantize ? 21 : 23)) {
    return NoSuchAttribute(op, "output_dtype", op.quantize ? 21 : 23);
  }
  if (op.quantize) {
    if (v < 19 && !a.saturate) return NoSuchAttribute(op, "saturate", 19);
    if (a.precision != T::kUndefined) {
      if (v < 23) return NoSuchAttribute(op, "precision", 23);
      if (!Has(kFloats, a.precision)) {
        return Error(StatusCode::kInvalidArgument, op,
                     "precision: " + check::TypeLabel(a.precision) +
                         " is not a precision of the division (FLOAT, FLOAT16, BFLOAT16)");
      }
    }
  } else {
    if (!a.saturate) {
      return Error(StatusCode::kInvalidArgument, op,
                   "saturate: DequantizeLinear has no such attribute");
    }
    if (a.precision != T::kUndefined) {
      return Error(StatusCode::kInvalidArgument, op,
                   "precision: DequantizeLinear has no such attribute");
    }
  }
  return Status::Ok();
}

Status QuantizeOutputType(const Op& op, const QuantizeAttributes& a, T zero_point_type, T* y) {
  const TypeSet allowed = QuantizedTypes(op.version);
  if (a.output_dtype != T::kUndefined && !Has(allowed, a.output_dtype)) {
    return TypeNotInVersion(op, "output_dtype", a.output_dtype, allowed);
  }
  if (zero_point_type != T::kUndefined) {
    if (!Has(allowed, zero_point_type)) {
      return TypeNotInVersion(op, op.zero_point_arg, zero_point_type, allowed);
    }
    if (a.output_dtype != T::kUndefined && a.output_dtype != zero_point_type) {
      return Error(StatusCode::kInvalidArgument, op,
                   "output_dtype: " + check::TypeLabel(a.output_dtype) +
                       " differs from the type of " + op.zero_point_arg + ", " +
                       check::TypeLabel(zero_point_type));
    }
    *y = zero_point_type;
  } else {
    *y = a.output_dtype != T::kUndefined ? a.output_dtype : T::kUint8;
  }
  return Status::Ok();
}

TypeSet DequantizeScaleTypes(int v) {
  if (v < 19) return Bit(T::kFloat);
  return v >= 24 ? kFloats | Bit(T::kFloat8E8M0) : kFloats;
}

Status DequantizeOutputType(const Op& op, const QuantizeAttributes& a, T scale_type, T* y) {
  const TypeSet scales = DequantizeScaleTypes(op.version);
  if (!Has(scales, scale_type)) return TypeNotInVersion(op, op.scale_arg, scale_type, scales);
  if (op.version < 19) {
    *y = T::kFloat;
  } else if (a.output_dtype != T::kUndefined) {
    if (!Has(kFloats, a.output_dtype)) {
      return TypeNotInVersion(op, "output_dtype", a.output_dtype, kFloats);
    }
    *y = a.output_dtype;
  } else if (scale_type == T::kFloat8E8M0) {
    return Error(StatusCode::kInvalidArgument, op,
                 std::string(op.scale_arg) +
                     ": a FLOAT8E8M0 scale needs output_dtype (FLOAT, FLOAT16 or BFLOAT16)");
  } else {
    *y = scale_type;
  }
  return Status::Ok();
}

// --- Shapes -----------------------------------------------------------------------------------

std::string ShapeText(const int64_t* shape, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// The element count of a shape; false with the message when a dimension is negative, the
// shape is null with rank > 0, or the count overflows.
Status ElementCount(const Op& op, const char* argument, const TensorView& t, size_t* count) {
  if (t.rank > 0 && t.shape == nullptr) {
    return Error(StatusCode::kInvalidArgument, op,
                 std::string(argument) + ": shape is null with rank " + std::to_string(t.rank));
  }
  size_t n = 1;
  for (size_t i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 0) {
      return Error(StatusCode::kInvalidArgument, op,
                   std::string(argument) + ": dimension " + std::to_string(i) + " is " +
                       std::to_string(t.shape[i]));
    }
    if (__builtin_mul_overflow(n, static_cast<size_t>(t.shape[i]), &n)) {
      return Error(StatusCode::kOverflow, op,
                   std::string(argument) + ": the element count of shape " +
                       ShapeText(t.shape, t.rank) + " does not fit in size_t");
    }
  }
  size_t bytes = 0;
  if (!check::FitsBytes(t.type, n, &bytes)) {
    return Error(StatusCode::kOverflow, op,
                 std::string(argument) + ": the storage of " + std::to_string(n) + " " +
                     DataTypeName(t.type) + " elements does not fit in size_t");
  }
  if (t.data == nullptr && n > 0) {
    return Error(StatusCode::kInvalidArgument, op,
                 std::string(argument) + ": data is null with " + std::to_string(n) + " elements");
  }
  *count = n;
  return Status::Ok();
}

bool SameShape(const TensorView& a, const TensorView& b) {
  if (a.rank != b.rank) return false;
  for (size_t i = 0; i < a.rank; ++i) {
    if (a.shape[i] != b.shape[i]) return false;
  }
  return true;
}

// The granularity of the scale, and the layout of x around the axis.
Status Layout(const Op& op, const TensorView& x, const TensorView& scale, size_t scale_count,
              const QuantizeAttributes& a, QuantizePlan* plan) {
  const auto per_tensor = [&] {
    plan->granularity = Granularity::kPerTensor;
    plan->outer = 1;
    plan->dim = plan->count;
    plan->inner = 1;
    return Status::Ok();
  };
  if (a.block_size == 0 && scale_count == 1 && scale.rank <= 1) return per_tensor();
  if (a.block_size == 0 && scale.rank > 1) {
    return Error(StatusCode::kInvalidArgument, op,
                 std::string(op.scale_arg) + ": shape " + ShapeText(scale.shape, scale.rank) +
                     " is neither a scalar nor 1-D, and block_size is 0");
  }
  if (op.version < 13) {
    return Error(StatusCode::kInvalidArgument, op,
                 std::string(op.scale_arg) + ": " + op.name + "-10 takes a scalar scale, not " +
                     ShapeText(scale.shape, scale.rank));
  }
  const int64_t r = static_cast<int64_t>(x.rank);
  if (a.axis < -r || a.axis >= r) {
    return Error(StatusCode::kInvalidArgument, op,
                 "axis: " + std::to_string(a.axis) + " is outside [" + std::to_string(-r) + ", " +
                     std::to_string(r - 1) + "] for x of rank " + std::to_string(r));
  }
  const size_t axis = static_cast<size_t>(a.axis < 0 ? a.axis + r : a.axis);
  plan->outer = 1;
  plan->inner = 1;
  for (size_t i = 0; i < axis; ++i) plan->outer *= static_cast<size_t>(x.shape[i]);
  for (size_t i = axis + 1; i < x.rank; ++i) plan->inner *= static_cast<size_t>(x.shape[i]);
  plan->dim = static_cast<size_t>(x.shape[axis]);
  if (a.block_size == 0) {
    if (scale_count != plan->dim) {
      return Error(StatusCode::kInvalidArgument, op,
                   std::string(op.scale_arg) + ": " + std::to_string(scale_count) +
                       " values for dimension " + std::to_string(axis) + " of x, which has " +
                       std::to_string(plan->dim) + " (a 1-D scale holds one per index)");
    }
    plan->granularity = Granularity::kPerAxis;
    return Status::Ok();
  }
  if (scale.rank != x.rank) {
    return Error(StatusCode::kInvalidArgument, op,
                 std::string(op.scale_arg) + ": rank " + std::to_string(scale.rank) +
                     " differs from x's rank " + std::to_string(x.rank) +
                     " (blocked scales have x's rank)");
  }
  for (size_t i = 0; i < x.rank; ++i) {
    if (i != axis && scale.shape[i] != x.shape[i]) {
      return Error(StatusCode::kInvalidArgument, op,
                   std::string(op.scale_arg) + ": shape " + ShapeText(scale.shape, scale.rank) +
                       " differs from x's " + ShapeText(x.shape, x.rank) + " in dimension " +
                       std::to_string(i) + " (blocked scales differ only along axis " +
                       std::to_string(axis) + ")");
    }
  }
  const size_t b = static_cast<size_t>(a.block_size);
  const size_t blocks = plan->dim / b + (plan->dim % b != 0);
  if (static_cast<size_t>(scale.shape[axis]) != blocks) {
    const int64_t si = scale.shape[axis];
    const int64_t d = x.shape[axis];
    // ceil(d / B) = si for B in [ceil(d / si), ceil(d / (si - 1)) - 1] (si > 1), B >= d (si = 1).
    const int64_t lo = si > 0 ? (d + si - 1) / si : 0;
    const int64_t hi = si > 1 ? (d + si - 2) / (si - 1) - 1 : INT64_MAX;
    std::string range;
    if (si <= 0 || lo < 1 || lo > hi) {
      range = "no block_size makes " + std::to_string(si) + " blocks of " + std::to_string(d);
    } else {
      range = "block_size must be in [" + std::to_string(lo) + ", " +
              (si == 1 ? std::string("inf") : std::to_string(hi)) + "]";
    }
    return Error(StatusCode::kInvalidArgument, op,
                 "block_size: " + std::to_string(b) + " makes " + std::to_string(blocks) +
                     " blocks of dimension " + std::to_string(axis) + " (" + std::to_string(d) +
                     "), but " + op.scale_arg + " has " + std::to_string(si) + "; " + range);
  }
  plan->granularity = Granularity::kBlocked;
  plan->block = b;
  plan->blocks = blocks;
  return Status::Ok();
}

// Float zero points must be zero (+0 or -0): the rule tensorcast takes where onnx.reference
// ignores, adds or rejects them (docs/semantics.md section 12).
Status CheckFloatZeroPoint(const Op& op, const TensorView& z, size_t n) {
  const int bits = Facts(z.type).bits;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t code = reference::LoadCode(z.data, bits, i);
    const bool zero =
        (code & ~sign) == 0 && !((z.type == T::kFloat8E4M3FNUZ || z.type == T::kFloat8E5M2FNUZ) &&
                                 code == sign);  // 0x80 is the NaN of the fnuz types
    if (!zero) {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llX", static_cast<unsigned long long>(code));
      return Error(StatusCode::kInvalidArgument, op,
                   std::string(op.zero_point_arg) + ": element " + std::to_string(i) +
                       " is the nonzero code " + hex + "; a " + DataTypeName(z.type) +
                       " zero point must be zero");
    }
  }
  return Status::Ok();
}

bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

// Every check of a call, in the order of the messages: the version, the attributes, the
// types, the shapes, the zero point, the buffers.
Status Plan(const Op& op, const TensorView& x, const TensorView& scale, const TensorView* zp,
            void* y, T y_type, const QuantizeAttributes& a, QuantizePlan* plan) {
  Status s = CheckAttributes(op, a);
  if (!s.ok()) return s;
  const int v = op.version;
  const T zp_type = zp != nullptr ? zp->type : T::kUndefined;
  T expected = T::kUndefined;
  if (op.quantize) {
    const TypeSet xs = v < 19 ? Bit(T::kFloat) | Bit(T::kInt32) : kFloats | Bit(T::kInt32);
    if (!Has(xs, x.type)) return TypeNotInVersion(op, "x", x.type, xs);
    if (v < 19) {
      if (scale.type != T::kFloat)
        return TypeNotInVersion(op, op.scale_arg, scale.type, Bit(T::kFloat));
    } else if (v < 23) {
      if (scale.type != x.type) {
        return Error(
            IsValidDataType(scale.type) ? StatusCode::kUnsupported : StatusCode::kInvalidArgument,
            op,
            std::string(op.scale_arg) + ": " + check::TypeLabel(scale.type) +
                " differs from x's type " + check::TypeLabel(x.type) + " (" + op.name + "-" +
                std::to_string(v) + " takes one type for both)");
      }
    } else {
      const TypeSet ss = kFloats | Bit(T::kInt32) | (v >= 24 ? Bit(T::kFloat8E8M0) : TypeSet{0});
      if (!Has(ss, scale.type)) return TypeNotInVersion(op, op.scale_arg, scale.type, ss);
    }
    s = QuantizeOutputType(op, a, zp_type, &expected);
    if (!s.ok()) return s;
    plan->precision = a.precision != T::kUndefined   ? a.precision
                      : scale.type == T::kInt32      ? T::kDouble
                      : scale.type == T::kFloat8E8M0 ? T::kFloat
                                                     : scale.type;
  } else {
    const TypeSet xs = QuantizedTypes(v) | Bit(T::kInt32);
    if (!Has(xs, x.type)) return TypeNotInVersion(op, "x", x.type, xs);
    if (zp != nullptr && zp_type != x.type) {
      // A zero point of another type than x is invalid in every version (INVALID_ARGUMENT);
      // a type the version does not list is UNSUPPORTED.
      return Error(StatusCode::kInvalidArgument, op,
                   std::string(op.zero_point_arg) + ": " + check::TypeLabel(zp_type) +
                       " differs from x's type " + check::TypeLabel(x.type));
    }
    s = DequantizeOutputType(op, a, scale.type, &expected);
    if (!s.ok()) return s;
  }
  if (y_type != expected) {
    return Error(StatusCode::kInvalidArgument, op,
                 "y: type " + check::TypeLabel(y_type) + " requested, but the node's output is " +
                     check::TypeLabel(expected));
  }
  size_t scale_count = 0, zp_count = 0;
  s = ElementCount(op, "x", x, &plan->count);
  if (s.ok()) s = ElementCount(op, op.scale_arg, scale, &scale_count);
  if (s.ok() && zp != nullptr) s = ElementCount(op, op.zero_point_arg, *zp, &zp_count);
  if (!s.ok()) return s;
  s = Layout(op, x, scale, scale_count, a, plan);
  if (!s.ok()) return s;
  if (zp != nullptr) {
    const bool ok = plan->granularity == Granularity::kPerTensor ? zp_count == 1 && zp->rank <= 1
                                                                 : SameShape(*zp, scale);
    if (!ok) {
      return Error(StatusCode::kInvalidArgument, op,
                   std::string(op.zero_point_arg) + ": shape " + ShapeText(zp->shape, zp->rank) +
                       " differs from " + op.scale_arg + "'s " +
                       ShapeText(scale.shape, scale.rank));
    }
    if (IsFloat(zp_type)) {
      s = CheckFloatZeroPoint(op, *zp, zp_count);
      if (!s.ok()) return s;
    }
  }
  size_t y_bytes = 0;
  if (!check::FitsBytes(y_type, plan->count, &y_bytes)) {
    return Error(StatusCode::kOverflow, op,
                 "y: the storage of " + std::to_string(plan->count) + " elements does not fit");
  }
  if (y == nullptr && plan->count > 0) {
    return Error(StatusCode::kInvalidArgument, op,
                 "y is null with " + std::to_string(plan->count) + " elements");
  }
  const auto overlaps = [&](const TensorView& t, size_t n) {
    return Overlaps(y, y_bytes, t.data, StorageBytes(t.type, n));
  };
  if (overlaps(x, plan->count)) return Error(StatusCode::kInvalidArgument, op, "y: overlaps x");
  if (overlaps(scale, scale_count)) {
    return Error(StatusCode::kInvalidArgument, op, std::string("y: overlaps ") + op.scale_arg);
  }
  if (zp != nullptr && overlaps(*zp, zp_count)) {
    return Error(StatusCode::kInvalidArgument, op, std::string("y: overlaps ") + op.zero_point_arg);
  }
  plan->quantize = op.quantize;
  plan->x_type = x.type;
  plan->scale_type = scale.type;
  plan->zero_point_type = zp_type;
  plan->zero_point = zp != nullptr ? zp->data : nullptr;
  plan->y_type = y_type;
  plan->saturate = a.saturate;
  plan->x = x.data;
  plan->scale = scale.data;
  plan->y = y;
  plan->runner = a.runner;
  return Status::Ok();
}

// --- The conversion -------------------------------------------------------------------------

// Elements per chunk (tuning.h kQuantizeChunkElements): the float32 buffers of a chunk stay
// in L1 or L2. A multiple of 8, so that every chunk starts on a whole byte of the packed types.
constexpr size_t kChunk = tuning::kQuantizeChunkElements;

// Cast of a chunk between numeric types (validated, non-overlapping buffers).
void CastChunk(const void* src, T src_type, void* dst, T dst_type, size_t n, bool saturate) {
  CastOptions options;
  options.saturate = saturate;
  if (!dispatch::CastWithPlan(src, src_type, dst, dst_type, n, options)) {
    (void)reference::Cast(src, src_type, dst, dst_type, n, options);
  }
}

const void* At(const void* p, T type, size_t e) {
  return static_cast<const unsigned char*>(p) + e * static_cast<size_t>(Facts(type).bits) / 8;
}

// The scales (or zero points) of a call as float32, once: the data itself when it is
// FLOAT already, else a converted copy (exact: every scale and zero-point type that
// reaches here is exact in float32).
struct F32Table {
  std::vector<float> copy;
  const float* values = nullptr;
  void Load(const void* data, T type, size_t n) {
    if (type == T::kFloat) {
      values = static_cast<const float*>(data);
      return;
    }
    copy.resize(n);
    CastChunk(data, type, copy.data(), T::kFloat, n, true);
    values = copy.data();
  }
};

size_t CountOf(const QuantizePlan& p) {
  switch (p.granularity) {
    case Granularity::kPerTensor: return 1;
    case Granularity::kPerAxis: return p.dim;
    default: return p.outer * p.blocks * p.inner;
  }
}

// The kernels take FLOAT precision and inputs that are exact in float32 (or FLOAT x).
bool KernelsTake(const QuantizePlan& p) {
  if (p.quantize) return p.precision != T::kDouble;
  return p.x_type != T::kInt32;
}

struct Tables {
  F32Table scale, zero_point;
  // Large outputs: each chunk's y is built in L1 and written with non-temporal stores, so
  // that out of cache the stores do not read y's lines first.
  bool stream = false;
  // DequantizeLinear of an integer type with finite scales: no NaN can arise.
  bool nan_free = false;
  // FLOAT16 / BFLOAT16 precision: the scales are rounded to it, and ones stand in for them
  // once the quotient is rounded (QuantizeChunk).
  std::vector<float> rounded, ones;
};

// Rounds n float32 values in place to the float type p and back (exact in float32),
// through `scratch` (n 16-bit codes).
void RoundToPrecision(float* v, size_t n, T p, uint16_t* scratch) {
  CastChunk(v, T::kFloat, scratch, p, n, true);
  CastChunk(scratch, p, v, T::kFloat, n, true);
}

// Elements [e0, e0 + n) of y from their float32 values `v`: a Cast into y, or, streamed, a
// Cast into `buffer` (kChunk floats, free by now) and a non-temporal copy.
void StoreChunk(const QuantizePlan& p, const Tables& t, const float* v, size_t e0, size_t n,
                bool saturate, float* buffer) {
  void* y = const_cast<void*>(At(p.y, p.y_type, e0));
  if (!t.stream) {
    CastChunk(v, T::kFloat, y, p.y_type, n, saturate);
    return;
  }
  const void* bytes = v;
  if (p.y_type != T::kFloat) {
    CastChunk(v, T::kFloat, buffer, p.y_type, n, saturate);
    bytes = buffer;
  }
  dispatch::StreamCopy(bytes, y, StorageBytes(p.y_type, n));
}

void QuantizeChunk(const QuantizePlan& p, const Tables& t, size_t e0, size_t n, float* xa,
                   float* out) {
  const bool wide = p.precision == T::kFloat;
  alignas(64) uint16_t scratch[kChunk];  // FLOAT16 / BFLOAT16 codes
  const float* x;
  if (p.x_type == T::kFloat && wide) {
    x = static_cast<const float*>(p.x) + e0;
  } else if (p.x_type == p.precision || wide) {
    CastChunk(At(p.x, p.x_type, e0), p.x_type, xa, T::kFloat, n, true);
    x = xa;
  } else {  // x rounded to the precision first, as astype
    CastChunk(At(p.x, p.x_type, e0), p.x_type, scratch, p.precision, n, true);
    CastChunk(scratch, p.precision, xa, T::kFloat, n, true);
    x = xa;
  }
  const TypeFacts& yf = Facts(p.y_type);
  const bool int_out = yf.kind == TypeKind::kSignedInt || yf.kind == TypeKind::kUnsignedInt;
  float lo = 0, hi = 0;
  if (int_out) {
    const bool is_signed = yf.kind == TypeKind::kSignedInt;
    lo = is_signed ? -static_cast<float>(1 << (yf.bits - 1)) : 0.0f;
    hi = is_signed ? static_cast<float>((1 << (yf.bits - 1)) - 1)
                   : static_cast<float>((1 << yf.bits) - 1);
  }
  QdqChunk chunk{&p, t.scale.values, t.zero_point.values, e0};
  if (!wide) {
    // FLOAT16 / BFLOAT16 precision: the float32 quotient of two such values rounded to the
    // precision is the correctly rounded quotient there (float32 has more than 2p + 2 bits,
    // so the double rounding is innocuous); then the zero point and the output rounding
    // divide by a table of ones.
    const QdqChunk divide{&p, t.scale.values, nullptr, e0};
    dispatch::QuantizeQuotientF32(divide, x, n, out);
    RoundToPrecision(out, n, p.precision, scratch);
    std::memcpy(xa, out, n * sizeof(float));
    x = xa;
    chunk.s = t.ones.data();
  }
  if (int_out && yf.bits >= 8) {
    // 8- and 16-bit integers: written by the kernel (into y, or streamed from L1).
    void* y = const_cast<void*>(At(p.y, p.y_type, e0));
    void* dst = t.stream ? static_cast<void*>(out) : y;
    dispatch::QuantizeToInteger(chunk, x, n, yf.bits, yf.kind == TypeKind::kSignedInt, lo, hi, dst);
    if (t.stream) dispatch::StreamCopy(out, y, StorageBytes(p.y_type, n));
    return;
  }
  if (!int_out) {
    // Float8 and FLOAT4E2M1: the quotient and its code in one pass where the layout allows
    // (into y, or into `out` and streamed from there).
    void* y = const_cast<void*>(At(p.y, p.y_type, e0));
    if (dispatch::QuantizeToFloatCodes(chunk, x, n, p.y_type, p.saturate,
                                       t.stream ? static_cast<void*>(out) : y)) {
      if (t.stream) dispatch::StreamCopy(out, y, StorageBytes(p.y_type, n));
      return;
    }
  }
  if (int_out) {
    dispatch::QuantizeToIntF32(chunk, x, n, lo, hi, out);
  } else {
    dispatch::QuantizeQuotientF32(chunk, x, n, out);
  }
  StoreChunk(p, t, out, e0, n, p.saturate, xa);  // x is consumed
}

void DequantizeChunk(const QuantizePlan& p, const Tables& t, size_t e0, size_t n, float* xa,
                     float* out) {
  const TypeFacts& xf = Facts(p.x_type);
  if (p.y_type == T::kFloat && IsInteger(p.x_type) && xf.bits >= 8) {
    // 8- and 16-bit integers to FLOAT: one kernel reads x and writes y (or L1, streamed).
    QdqChunk chunk{&p, t.scale.values, t.zero_point.values, e0};
    chunk.nan_free = t.nan_free;
    float* y = static_cast<float*>(p.y) + e0;
    dispatch::DequantizeInteger(chunk, At(p.x, p.x_type, e0), n, xf.bits,
                                xf.kind == TypeKind::kSignedInt, t.stream ? out : y);
    if (t.stream) dispatch::StreamCopy(out, y, n * sizeof(float));
    return;
  }
  const bool float8 = xf.kind == TypeKind::kFloat && xf.bits == 8;
  if (p.y_type == T::kFloat && (float8 || xf.bits == 4)) {
    // Float8, INT4 and UINT4 to FLOAT: one kernel decodes x in registers and writes y (or
    // L1, streamed).
    QdqChunk chunk{&p, t.scale.values, t.zero_point.values, e0};
    chunk.nan_free = t.nan_free;
    float* y = static_cast<float*>(p.y) + e0;
    const void* xc = At(p.x, p.x_type, e0);
    float* to = t.stream ? out : y;
    if (float8 ? dispatch::DequantizeFloat8(chunk, xc, n, p.x_type, to)
               : dispatch::DequantizeNibbles(chunk, xc, n, p.x_type, to)) {
      if (t.stream) dispatch::StreamCopy(out, y, n * sizeof(float));
      return;
    }
  }
  // FLOAT outputs not streamed: x is converted into y and multiplied there (in L1).
  const bool in_y = p.y_type == T::kFloat && !t.stream;
  float* dst = in_y ? static_cast<float*>(p.y) + e0 : out;
  float* src = in_y ? dst : xa;
  CastChunk(At(p.x, p.x_type, e0), p.x_type, src, T::kFloat, n, true);
  QdqChunk chunk{&p, t.scale.values, t.zero_point.values, e0};
  chunk.nan_free = t.nan_free;
  dispatch::DequantizeF32(chunk, src, n, p.y_type != T::kFloat, dst);
  if (!in_y) StoreChunk(p, t, out, e0, n, true, xa);  // x is consumed
}

// Elements per task of a parallel call (a multiple of kChunk), or 0: the calling thread.
size_t TaskElements(const QuantizePlan& p) {
  if (p.runner == nullptr) return 0;
  const size_t bits = static_cast<size_t>(Facts(p.x_type).bits + Facts(p.y_type).bits);
  const size_t bytes = p.count / 8 * bits;
  if (bytes < tuning::kParallelMinBytes) return 0;
  const size_t task_bytes = std::max(tuning::kParallelTaskBytes, bytes / tuning::kParallelMaxTasks);
  const size_t chunk = (task_bytes * 8 / bits + kChunk - 1) / kChunk * kChunk;
  return chunk < p.count ? chunk : 0;
}

Status Run(const QuantizePlan& p) {
  if (p.count == 0) return Status::Ok();
  const bool kernels = KernelsTake(p);
  Tables tables;
  tables.stream = kernels && StorageBytes(p.y_type, p.count) >=
                                 tuning::StreamBytes(tuning::kCastLoopStreamBytes);
  if (kernels) {
    tables.scale.Load(p.scale, p.scale_type, CountOf(p));
    if (!p.quantize && IsInteger(p.x_type)) {
      const size_t n = CountOf(p);
      tables.nan_free = std::all_of(tables.scale.values, tables.scale.values + n,
                                    [](float v) { return std::isfinite(v); });
    }
    if (p.quantize && p.precision != T::kFloat) {
      // The scales rounded once from their own type to the precision (an INT32 scale
      // through FLOAT would round twice).
      const size_t n = CountOf(p);
      std::vector<uint16_t> codes(n);
      CastChunk(p.scale, p.scale_type, codes.data(), p.precision, n, true);
      tables.rounded.resize(n);
      CastChunk(codes.data(), p.precision, tables.rounded.data(), T::kFloat, n, true);
      tables.scale.values = tables.rounded.data();
      tables.ones.assign(n, 1.0f);
    }
    if (p.zero_point != nullptr)
      tables.zero_point.Load(p.zero_point, p.zero_point_type, CountOf(p));
  }
  // Elements [begin, end) on this thread; begin a multiple of kChunk.
  auto range = [&](size_t begin, size_t end) {
    if (!kernels) {
      if (p.quantize) {
        reference::QuantizeLinear(p, begin, end);
      } else {
        reference::DequantizeLinear(p, begin, end);
      }
      return;
    }
    alignas(64) float xa[kChunk];
    alignas(64) float out[kChunk];
    const size_t step = tables.stream ? tuning::kQuantizeStreamChunkElements : kChunk;
    for (size_t e = begin; e < end; e += step) {
      const size_t n = std::min(step, end - e);
      if (p.quantize) {
        QuantizeChunk(p, tables, e, n, xa, out);
      } else {
        DequantizeChunk(p, tables, e, n, xa, out);
      }
    }
    if (tables.stream) hwy::FlushStream();  // this thread's non-temporal stores, before it ends
  };
  const size_t task = TaskElements(p);
  if (task == 0) {
    range(0, p.count);
    return Status::Ok();
  }
  auto f = [&](size_t i) { range(i * task, std::min(p.count, (i + 1) * task)); };
  parallel::RunTasks(p.runner, (p.count + task - 1) / task, f);
  return Status::Ok();
}

const Op kQuantize{"QuantizeLinear", true, 0, "y_scale", "y_zero_point"};
const Op kDequantize{"DequantizeLinear", false, 0, "x_scale", "x_zero_point"};

}  // namespace

int QuantizeLinearVersion(int opset) noexcept {
  if (opset < kVersions[0] || opset > 28) return 0;
  int v = kVersions[0];
  for (int k : kVersions) {
    if (k <= opset) v = k;
  }
  return v;
}

Status QuantizeLinearOutputType(const QuantizeAttributes& attrs, DataType zero_point_type,
                                DataType* y_type) {
  return check::Guarded("QuantizeLinear", [&]() -> Status {
    if (y_type == nullptr) return check::NullOutputError("QuantizeLinear: y_type");
    Op op = kQuantize;
    Status s = VersionOf(op.name, attrs.opset, &op.version);
    if (s.ok()) s = CheckAttributes(op, attrs);
    if (s.ok()) s = QuantizeOutputType(op, attrs, zero_point_type, y_type);
    return s;
  });
}

Status DequantizeLinearOutputType(const QuantizeAttributes& attrs, DataType scale_type,
                                  DataType* y_type) {
  return check::Guarded("DequantizeLinear", [&]() -> Status {
    if (y_type == nullptr) return check::NullOutputError("DequantizeLinear: y_type");
    Op op = kDequantize;
    Status s = VersionOf(op.name, attrs.opset, &op.version);
    if (s.ok()) s = CheckAttributes(op, attrs);
    if (s.ok()) s = DequantizeOutputType(op, attrs, scale_type, y_type);
    return s;
  });
}

Status PlanQuantizeCall(bool quantize, const TensorView& x, const TensorView& scale,
                        const TensorView* zero_point, void* y, DataType y_type,
                        const QuantizeAttributes& attrs, QuantizePlan* plan) {
  Op op = quantize ? kQuantize : kDequantize;
  Status s = VersionOf(op.name, attrs.opset, &op.version);
  if (s.ok()) s = Plan(op, x, scale, zero_point, y, y_type, attrs, plan);
  return s;
}

Status QuantizeLinear(const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                      void* y, DataType y_type, const QuantizeAttributes& attrs) {
  return check::Guarded("QuantizeLinear", [&]() -> Status {
    QuantizePlan plan;
    const Status s = PlanQuantizeCall(true, x, scale, zero_point, y, y_type, attrs, &plan);
    return s.ok() ? Run(plan) : s;
  });
}

Status DequantizeLinear(const TensorView& x, const TensorView& scale, const TensorView* zero_point,
                        void* y, DataType y_type, const QuantizeAttributes& attrs) {
  return check::Guarded("DequantizeLinear", [&]() -> Status {
    QuantizePlan plan;
    const Status s = PlanQuantizeCall(false, x, scale, zero_point, y, y_type, attrs, &plan);
    return s.ok() ? Run(plan) : s;
  });
}

}  // namespace tensorcast
