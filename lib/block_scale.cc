// Public block-scaled quantization (tensorcast/block_scale.h): the checks, the scale rules
// and the passes. MX of FLOAT along the contiguous axis is one pass in chunks (the MxChunk
// kernel, then a Cast kernel into the codes); everything else computes the scales first
// (largest magnitudes by the MaxAbsBits kernels) and then runs QuantizeLinear /
// DequantizeLinear with them, so that the codes are those operators' by construction.
// No exception leaves this file.
#include "tensorcast/block_scale.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hwy/cache_control.h"  // hwy::FlushStream
#include "lib/block_scale_rules.h"
#include "lib/check.h"
#include "lib/dispatch/block_scale_kernels.h"
#include "lib/dispatch/quantize_kernels.h"
#include "lib/dispatch/route_plan.h"
#include "lib/dispatch/stream_copy.h"
#include "lib/parallel.h"
#include "lib/quantize_plan.h"
#include "lib/quantize_runs.h"
#include "lib/reference/reference_cast.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace {

using T = DataType;

struct FormatInfo {
  const char* name;
  T element;
  T scale;
  int64_t block;
  MxRule rule;  // the element format's largest value (rceil flag unset)
};

// Largest values: E4M3FN 448 = 1.75 * 2^8, E5M2 57344 = 1.75 * 2^15, E2M3 7.5 = 1.875 * 2^2,
// E3M2 28 = 1.75 * 2^4, E2M1 6 = 1.5 * 2^2.
const FormatInfo kFormats[] = {
    {"mxfp8_e4m3", T::kFloat8E4M3FN, T::kFloat8E8M0, 32, {8, 0x600000u, false}},
    {"mxfp8_e5m2", T::kFloat8E5M2, T::kFloat8E8M0, 32, {15, 0x600000u, false}},
    {"mxfp6_e2m3", T::kFloat6E2M3, T::kFloat8E8M0, 32, {2, 0x700000u, false}},
    {"mxfp6_e3m2", T::kFloat6E3M2, T::kFloat8E8M0, 32, {4, 0x600000u, false}},
    {"mxfp4", T::kFloat4E2M1, T::kFloat8E8M0, 32, {2, 0x400000u, false}},
    {"nvfp4", T::kFloat4E2M1, T::kFloat8E4M3FN, 16, {2, 0x400000u, false}},
};

const FormatInfo* Info(BlockFormat f) {
  const int i = static_cast<int>(f);
  return i >= 1 && i <= 6 ? &kFormats[i - 1] : nullptr;
}

constexpr size_t kChunk = tuning::kQuantizeChunkElements;

Status Invalid(const char* fn, const std::string& text) {
  return Status(StatusCode::kInvalidArgument, std::string(fn) + ": " + text);
}

std::string ShapeText(const int64_t* shape, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

// x as [outer, dim, inner] around the axis; blocks of `block` along it.
struct Layout {
  size_t count = 0;
  size_t outer = 1, dim = 1, inner = 1;
  size_t axis = 0;
  size_t block = 1, blocks = 1;
  size_t ScaleCount() const { return outer * blocks * inner; }
};

Status ShapeLayout(const char* fn, const char* argument, const int64_t* shape, size_t rank,
                   int64_t axis, Layout* l) {
  if (rank > 0 && shape == nullptr) {
    return Invalid(fn, std::string(argument) + ": shape is null with rank " + std::to_string(rank));
  }
  if (rank == 0) {
    return Invalid(fn, std::string(argument) + ": a scalar has no axis to scale along");
  }
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    return Invalid(fn, "axis: " + std::to_string(axis) + " is outside [" + std::to_string(-r) +
                           ", " + std::to_string(r - 1) + "] for " + argument + " of rank " +
                           std::to_string(r));
  }
  l->axis = static_cast<size_t>(axis < 0 ? axis + r : axis);
  size_t n = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      return Invalid(fn, std::string(argument) + ": dimension " + std::to_string(i) + " is " +
                             std::to_string(shape[i]));
    }
    if (__builtin_mul_overflow(n, static_cast<size_t>(shape[i]), &n)) {
      return Status(StatusCode::kOverflow, std::string(fn) + ": " + argument +
                                               ": the element count of shape " +
                                               ShapeText(shape, rank) + " does not fit in size_t");
    }
  }
  l->count = n;
  l->outer = 1;
  l->inner = 1;
  for (size_t i = 0; i < l->axis; ++i) l->outer *= static_cast<size_t>(shape[i]);
  for (size_t i = l->axis + 1; i < rank; ++i) l->inner *= static_cast<size_t>(shape[i]);
  l->dim = static_cast<size_t>(shape[l->axis]);
  return Status::Ok();
}

Status BlockLayout(const char* fn, const int64_t* shape, size_t rank, const BlockScaleOptions& o,
                   const FormatInfo& info, Layout* l) {
  Status s = ShapeLayout(fn, "x", shape, rank, o.axis, l);
  if (!s.ok()) return s;
  if (o.block_size < 0) {
    return Invalid(fn, "block_size: " + std::to_string(o.block_size) +
                           " is negative (0 takes the format's, " + std::to_string(info.block) +
                           ")");
  }
  l->block = static_cast<size_t>(o.block_size == 0 ? info.block : o.block_size);
  l->blocks = l->dim / l->block + (l->dim % l->block != 0);
  return Status::Ok();
}

Status CheckInputType(const char* fn, T type) {
  if (type == T::kFloat || type == T::kFloat16 || type == T::kBfloat16) return Status::Ok();
  return Status(IsValidDataType(type) ? StatusCode::kUnsupported : StatusCode::kInvalidArgument,
                std::string(fn) + ": x: " + check::TypeLabel(type) +
                    " is not FLOAT, FLOAT16 or BFLOAT16 (cast it to FLOAT first)");
}

bool Overlaps(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0) return false;
  const auto* pa = static_cast<const unsigned char*>(a);
  const auto* pb = static_cast<const unsigned char*>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

// The buffers of a call: none null when it has elements, no output overlapping another
// buffer. Each entry: name, pointer, bytes, is an output.
struct Buffer {
  const char* name;
  const void* data;
  size_t bytes;
  bool output;
};

Status CheckBuffers(const char* fn, const std::vector<Buffer>& buffers) {
  for (const Buffer& b : buffers) {
    if (b.data == nullptr && b.bytes > 0) {
      return Invalid(fn, std::string(b.name) + " is null with " + std::to_string(b.bytes) +
                             " bytes to " + (b.output ? "write" : "read"));
    }
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    for (size_t j = 0; j < buffers.size(); ++j) {
      if (i != j && buffers[i].output && (j > i || !buffers[j].output) &&
          Overlaps(buffers[i].data, buffers[i].bytes, buffers[j].data, buffers[j].bytes)) {
        return Invalid(fn, std::string(buffers[i].name) + ": overlaps " + buffers[j].name);
      }
    }
  }
  return Status::Ok();
}

// Cast of n elements between numeric types (validated, non-overlapping buffers).
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

// n elements of x from element e as float32: x itself when it is FLOAT, else converted into
// buf (at least n floats).
const float* AsFloat(const void* x, T type, size_t e, size_t n, float* buf) {
  if (type == T::kFloat) return static_cast<const float*>(x) + e;
  CastChunk(At(x, type, e), type, buf, T::kFloat, n, true);
  return buf;
}

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Runs f(begin, end) over [0, n) units, in tasks through the runner when `bytes` (the
// call's traffic) is large enough to be worth it; the cuts do not change any result.
template <class F>
void ForRanges(const Runner* runner, size_t n, size_t bytes, const F& f) {
  size_t tasks = 1;
  if (runner != nullptr && bytes >= tuning::kParallelMinBytes && n > 1) {
    tasks = std::min(
        {n, tuning::kParallelMaxTasks, std::max<size_t>(1, bytes / tuning::kParallelTaskBytes)});
  }
  if (tasks <= 1) {
    f(size_t{0}, n);
    return;
  }
  auto task = [&](size_t i) { f(n * i / tasks, n * (i + 1) / tasks); };
  parallel::RunTasks(runner, tasks, task);
}

// The largest |x| of each block (o, b, i) as float32 bits, at (o * blocks + b) * inner + i;
// with finite_only NaN and infinities count as 0.
std::vector<uint32_t> BlockAmax(const void* x, T type, const Layout& l, const Runner* runner) {
  std::vector<uint32_t> amax(l.ScaleCount(), 0u);
  const size_t slabs = l.outer * l.blocks;
  const size_t bytes = l.count * static_cast<size_t>(Facts(type).bits) / 8;
  ForRanges(runner, slabs, bytes, [&](size_t begin, size_t end) {
    std::vector<float> buf(type == T::kFloat ? 0 : kChunk);
    for (size_t slab = begin; slab < end; ++slab) {
      const size_t o = slab / l.blocks, b = slab % l.blocks;
      const size_t a0 = b * l.block, a1 = std::min(l.dim, a0 + l.block);
      uint32_t* acc = amax.data() + slab * l.inner;
      if (l.inner == 1) {
        const size_t e0 = o * l.dim + a0, len = a1 - a0;
        uint32_t m = 0;
        for (size_t j = 0; j < len; j += kChunk) {
          const size_t n = std::min(kChunk, len - j);
          m = std::max(m, dispatch::MaxAbsBits(AsFloat(x, type, e0 + j, n, buf.data()), n, false));
        }
        *acc = m;
        continue;
      }
      for (size_t i0 = 0; i0 < l.inner; i0 += kChunk) {
        const size_t n = std::min(kChunk, l.inner - i0);
        for (size_t a = a0; a < a1; ++a) {
          const size_t e = (o * l.dim + a) * l.inner + i0;
          dispatch::MaxAbsBitsInto(AsFloat(x, type, e, n, buf.data()), n, false, acc + i0);
        }
      }
    }
  });
  return amax;
}

// The largest finite |x| of the whole tensor, as float32 bits.
uint32_t FiniteAmax(const void* x, T type, size_t count, const Runner* runner) {
  const size_t chunks = (count + kChunk - 1) / kChunk;
  std::vector<uint32_t> partial(chunks, 0u);
  const size_t bytes = count * static_cast<size_t>(Facts(type).bits) / 8;
  ForRanges(runner, chunks, bytes, [&](size_t begin, size_t end) {
    std::vector<float> buf(type == T::kFloat ? 0 : kChunk);
    for (size_t c = begin; c < end; ++c) {
      const size_t e = c * kChunk, n = std::min(kChunk, count - e);
      partial[c] = dispatch::MaxAbsBits(AsFloat(x, type, e, n, buf.data()), n, true);
    }
  });
  uint32_t m = 0;
  for (uint32_t p : partial) m = std::max(m, p);
  return m;
}

// The scales' shape: x's with dimension axis -> blocks.
std::vector<int64_t> ScaleShape(const int64_t* shape, size_t rank, const Layout& l) {
  std::vector<int64_t> s(shape, shape + rank);
  s[l.axis] = static_cast<int64_t>(l.blocks);
  return s;
}

QuantizeAttributes LinearAttributes(const Layout& l, T output, const Runner* runner) {
  QuantizeAttributes a;
  a.opset = 28;
  a.axis = static_cast<int64_t>(l.axis);
  a.block_size = static_cast<int64_t>(l.block);
  a.output_dtype = output;
  a.saturate = true;
  a.runner = runner;
  return a;
}

// A status from QuantizeLinear / DequantizeLinear under this call's name (its checks have
// passed here already, so only out-of-memory can come back).
Status Renamed(const char* fn, const Status& s) {
  if (s.ok()) return s;
  return Status(s.code(), std::string(fn) + " (" + s.message() + ")");
}

// --- Statistics ----------------------------------------------------------------------------

struct Partial {
  uint64_t nan = 0, inf = 0, saturated = 0, flushed = 0, n = 0;
  uint32_t amax = 0;
  double error = 0, signal = 0;
};

// The statistics of a finished quantization: x (count elements of x_type), its codes
// (code_type) and scale_of(e), the scale of element e as double (NaN for a NaN block).
template <class ScaleOf>
void FillStats(const void* x, T x_type, const void* codes, T code_type, size_t count,
               const ScaleOf& scale_of, const Runner* runner, CastStats* out) {
  const CodeRange range = RangeOf(code_type);
  const size_t chunks = (count + kChunk - 1) / kChunk;
  std::vector<Partial> parts(chunks);
  const size_t bytes = StorageBytes(x_type, count) + StorageBytes(code_type, count);
  ForRanges(runner, chunks, bytes, [&](size_t begin, size_t end) {
    std::vector<float> xb(kChunk), yb(kChunk);
    for (size_t c = begin; c < end; ++c) {
      const size_t e0 = c * kChunk, n = std::min(kChunk, count - e0);
      const float* xv = AsFloat(x, x_type, e0, n, xb.data());
      CastChunk(At(codes, code_type, e0), code_type, yb.data(), T::kFloat, n, true);
      Partial& p = parts[c];
      for (size_t j = 0; j < n; ++j) {
        const float v = xv[j];
        if (std::isnan(v)) {
          ++p.nan;
          continue;
        }
        if (std::isinf(v)) {
          ++p.inf;
          continue;
        }
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        p.amax = std::max(p.amax, bits & 0x7FFFFFFFu);
        const double s = scale_of(e0 + j);
        const double y = static_cast<double>(yb[j]) * s;  // exact
        if (std::isfinite(s) && s != 0 && range.Saturated(static_cast<double>(v) / s)) {
          ++p.saturated;
        }
        if (v != 0 && y == 0) ++p.flushed;
        if (std::isfinite(y)) {
          const double d = y - static_cast<double>(v);
          p.error += d * d;
          p.signal += static_cast<double>(v) * static_cast<double>(v);
          ++p.n;
        }
      }
    }
  });
  CastStats r;
  r.count = count;
  uint32_t amax = 0;
  for (const Partial& p : parts) {  // in chunk order: the same sums for any thread count
    r.nan_count += p.nan;
    r.inf_count += p.inf;
    r.saturated += p.saturated;
    r.flushed += p.flushed;
    r.error_count += p.n;
    r.sum_squared_error += p.error;
    r.sum_squared_signal += p.signal;
    amax = std::max(amax, p.amax);
  }
  r.amax = static_cast<double>(FromBits(amax));
  *out = r;
}

// The scale of element e of a blocked layout, from a table of doubles.
struct BlockedScale {
  const Layout& l;
  const std::vector<double>& table;
  double operator()(size_t e) const {
    const size_t row = e / l.inner, o = row / l.dim, a = row % l.dim;
    return table[(o * l.blocks + a / l.block) * l.inner + e % l.inner];
  }
};

// --- MX ------------------------------------------------------------------------------------

// One pass along the contiguous axis of FLOAT x: chunks of whole bytes of the codes.
void MxOnePass(const float* x, const Layout& l, const FormatInfo& info, const MxRule& rule,
               void* codes, uint8_t* scales, const Runner* runner) {
  const T elem = info.element;
  const size_t out_bytes = StorageBytes(elem, l.count);
  const bool stream = out_bytes >= tuning::StreamBytes(tuning::kCastLoopStreamBytes);
  const size_t chunks = (l.count + kChunk - 1) / kChunk;
  // Blocks of 32 that tile the rows: scales and codes in registers (MxChunk32), the
  // chunk's blocks being whole.
  const bool fused = l.block == 32 && l.dim % 32 == 0;
  ForRanges(runner, chunks, l.count * 4 + out_bytes, [&](size_t begin, size_t end) {
    alignas(64) float scaled[kChunk];
    alignas(64) unsigned char staged[kChunk];  // the codes of a chunk (at most a byte each)
    for (size_t c = begin; c < end; ++c) {
      if (fused) {
        const size_t e0 = c * kChunk, n = std::min(kChunk, l.count - e0);
        void* dst = const_cast<void*>(At(codes, elem, e0));
        uint8_t* to = stream ? reinterpret_cast<uint8_t*>(staged) : static_cast<uint8_t*>(dst);
        if (dispatch::MxChunk32(x + e0, n, rule, elem, stream, scales + e0 / 32, to)) {
          if (stream) dispatch::StreamCopy(staged, dst, StorageBytes(elem, n));
          continue;
        }
      }
      MxChunkArgs args;
      args.x = x;
      args.e0 = c * kChunk;
      args.n = std::min(kChunk, l.count - args.e0);
      args.dim = l.dim;
      args.block = l.block;
      args.blocks = l.blocks;
      args.rule = rule;
      args.scaled = scaled;
      args.scales = scales;
      dispatch::MxChunk(args);
      void* dst = const_cast<void*>(At(codes, elem, args.e0));
      if (stream) {
        CastChunk(scaled, T::kFloat, staged, elem, args.n, true);
        dispatch::StreamCopy(staged, dst, StorageBytes(elem, args.n));
      } else {
        CastChunk(scaled, T::kFloat, dst, elem, args.n, true);
      }
    }
    if (stream) hwy::FlushStream();
  });
}

Status QuantizeMxChecked(const TensorView& x, BlockFormat format, void* codes, void* scales,
                         const BlockScaleOptions& o) {
  const char* fn = "QuantizeMx";
  const FormatInfo* info = Info(format);
  if (info == nullptr || format == BlockFormat::kNvfp4) {
    return Invalid(fn, "format: " + std::to_string(static_cast<int>(format)) +
                           " is not an MX format (1..5; NVFP4 is QuantizeNvfp4)");
  }
  Status s = CheckInputType(fn, x.type);
  if (!s.ok()) return s;
  if (o.scale_rule != ScaleRule::kFloor && o.scale_rule != ScaleRule::kRceil) {
    return Invalid(fn, "scale_rule: " + std::to_string(static_cast<int>(o.scale_rule)) +
                           " is neither floor (0) nor rceil (1)");
  }
  Layout l;
  s = BlockLayout(fn, x.shape, x.rank, o, *info, &l);
  if (!s.ok()) return s;
  s = CheckBuffers(fn, {{"x", x.data, StorageBytes(x.type, l.count), false},
                        {"codes", codes, StorageBytes(info->element, l.count), true},
                        {"scales", scales, l.count == 0 ? 0 : l.ScaleCount(), true}});
  if (!s.ok()) return s;
  if (l.count == 0) {
    if (o.stats != nullptr) *o.stats = CastStats();
    return s;
  }
  MxRule rule = info->rule;
  rule.rceil = o.scale_rule == ScaleRule::kRceil;
  auto* scale_codes = static_cast<uint8_t*>(scales);
  if (x.type == T::kFloat && l.inner == 1) {
    MxOnePass(static_cast<const float*>(x.data), l, *info, rule, codes, scale_codes, o.runner);
  } else {
    const std::vector<uint32_t> amax = BlockAmax(x.data, x.type, l, o.runner);
    for (size_t i = 0; i < amax.size(); ++i) scale_codes[i] = MxScaleOf(amax[i], rule).code;
    const std::vector<int64_t> shape = ScaleShape(x.shape, x.rank, l);
    const TensorView sv{scales, T::kFloat8E8M0, shape.data(), shape.size()};
    s = QuantizeLinear(x, sv, nullptr, codes, info->element,
                       LinearAttributes(l, info->element, o.runner));
    if (!s.ok()) return Renamed(fn, s);
  }
  if (o.stats != nullptr) {
    std::vector<double> table(l.ScaleCount());
    for (size_t i = 0; i < table.size(); ++i) {
      table[i] = scale_codes[i] == kE8M0NaN ? std::nan("") : std::ldexp(1.0, scale_codes[i] - 127);
    }
    FillStats(x.data, x.type, codes, info->element, l.count, BlockedScale{l, table}, o.runner,
              o.stats);
  }
  return Status::Ok();
}

Status DequantizeChecked(const char* fn, const TensorView& codes, const TensorView& scales, void* y,
                         T y_type, const Layout& l, const Runner* runner) {
  if (y_type != T::kFloat && y_type != T::kFloat16 && y_type != T::kBfloat16) {
    return Invalid(fn,
                   "y: type " + check::TypeLabel(y_type) + " is not FLOAT, FLOAT16 or BFLOAT16");
  }
  Status s =
      CheckBuffers(fn, {{"codes", codes.data, StorageBytes(codes.type, l.count), false},
                        {"scales", scales.data, StorageBytes(scales.type, l.ScaleCount()), false},
                        {"y", y, StorageBytes(y_type, l.count), true}});
  if (!s.ok() || l.count == 0) return s;
  return Renamed(
      fn, DequantizeLinear(codes, scales, nullptr, y, y_type, LinearAttributes(l, y_type, runner)));
}

Status CheckCodesType(const char* fn, const TensorView& codes, const FormatInfo& info) {
  if (codes.type == info.element) return Status::Ok();
  return Invalid(fn, "codes: type " + check::TypeLabel(codes.type) + ", but " + info.name +
                         " codes are " + check::TypeLabel(info.element));
}

Status DequantizeMxChecked(const TensorView& codes, const void* scales, BlockFormat format, void* y,
                           T y_type, const BlockScaleOptions& o) {
  const char* fn = "DequantizeMx";
  const FormatInfo* info = Info(format);
  if (info == nullptr || format == BlockFormat::kNvfp4) {
    return Invalid(fn, "format: " + std::to_string(static_cast<int>(format)) +
                           " is not an MX format (1..5; NVFP4 is DequantizeNvfp4)");
  }
  Status s = CheckCodesType(fn, codes, *info);
  if (!s.ok()) return s;
  Layout l;
  s = BlockLayout(fn, codes.shape, codes.rank, o, *info, &l);
  if (!s.ok()) return s;
  const std::vector<int64_t> shape = ScaleShape(codes.shape, codes.rank, l);
  const TensorView sv{scales, T::kFloat8E8M0, shape.data(), shape.size()};
  return DequantizeChecked(fn, codes, sv, y, y_type, l, o.runner);
}

// --- NVFP4 -----------------------------------------------------------------------------------

Status CheckNvfp4Options(const char* fn, const BlockScaleOptions& o) {
  if (o.scale_rule != ScaleRule::kFloor) {
    return Invalid(fn, "scale_rule: NVFP4 has one block-scale rule; leave it kFloor (0)");
  }
  return Status::Ok();
}

// The FLOAT block scales S = fl(E4M3FN value * g) of NVFP4 codes: DequantizeLinear of the
// scale codes by the tensor scale, as the first node of the ONNX graph computes them.
Status Nvfp4FloatScales(const void* scale_codes, size_t n, float g, std::vector<float>* s) {
  s->resize(n);
  const int64_t shape[1] = {static_cast<int64_t>(n)};
  const TensorView codes{scale_codes, T::kFloat8E4M3FN, shape, 1};
  const TensorView gv{&g, T::kFloat, nullptr, 0};
  QuantizeAttributes a;
  a.opset = 28;
  return DequantizeLinear(codes, gv, nullptr, s->data(), T::kFloat, a);
}

// NVFP4 along the contiguous axis with blocks that tile the rows and the chunks: one pass
// over x after the tensor scale g, chunk by chunk (each chunk's block scales, then its
// codes), with the arithmetic of QuantizeNvfp4Checked's general path.
bool Nvfp4OnePassTakes(const Layout& l) {
  return l.inner == 1 && l.dim % l.block == 0 && kChunk % l.block == 0 &&
         tuning::kQuantizeStreamChunkElements % l.block == 0;
}

void Nvfp4OnePass(const void* x, T x_type, const Layout& l, float g, void* codes, uint8_t* scales,
                  const Runner* runner) {
  const T elem = T::kFloat4E2M1;
  const size_t out_bytes = StorageBytes(elem, l.count);
  const bool stream = out_bytes >= tuning::StreamBytes(tuning::kCastLoopStreamBytes);
  const size_t step = stream ? tuning::kQuantizeStreamChunkElements : kChunk;
  const size_t chunks = (l.count + step - 1) / step;
  const double six_g = 6.0 * static_cast<double>(g);  // exact: 26 bits
  // The chunk as QuantizeLinear's blocked layout along the contiguous axis: its scales
  // start at the chunk's first block.
  QuantizePlan plan;
  plan.granularity = Granularity::kBlocked;
  plan.dim = l.block;
  plan.block = l.block;
  plan.blocks = 1;
  const size_t bytes = StorageBytes(x_type, l.count) + out_bytes;
  ForRanges(runner, chunks, bytes, [&](size_t begin, size_t end) {
    alignas(64) float xa[kChunk];
    alignas(64) float q[kChunk];
    alignas(64) unsigned char staged[kChunk / 2];
    std::vector<double> quotient(step / l.block);
    std::vector<float> block_scale(step / l.block);
    for (size_t c = begin; c < end; ++c) {
      const size_t e0 = c * step, n = std::min(step, l.count - e0), nb = n / l.block;
      const float* xf = AsFloat(x, x_type, e0, n, xa);
      // Block scale codes: E4M3FN of amax_b / (6 g), the exact quotient rounded once, at
      // least 0x01; 0x7F for a block holding a NaN or an infinity. The double quotient is
      // within 2^-53 (relative) of the exact one, which is at least 2^-31 away from every
      // E4M3 midpoint it does not equal (a 24-bit amax over the 26-bit 6 g): rounding it
      // gives the same code.
      dispatch::AmaxQuotients(xf, nb, l.block, six_g, quotient.data());
      uint8_t* sc = scales + e0 / l.block;
      CastChunk(quotient.data(), T::kDouble, sc, T::kFloat8E4M3FN, nb, true);
      for (size_t b = 0; b < nb; ++b) {
        if (std::isnan(quotient[b])) {
          sc[b] = 0x7F;
        } else if (sc[b] == 0) {
          sc[b] = 0x01;
        }
      }
      // S = fl(value(c) * g), DequantizeLinear's product; NaN for 0x7F.
      CastChunk(sc, T::kFloat8E4M3FN, block_scale.data(), T::kFloat, nb, true);
      for (size_t b = 0; b < nb; ++b) block_scale[b] *= g;
      const QdqChunk chunk{&plan, block_scale.data(), nullptr, 0};
      void* dst = const_cast<void*>(At(codes, elem, e0));
      void* to = stream ? static_cast<void*>(staged) : dst;
      if (!dispatch::QuantizeToFloatCodes(chunk, xf, n, elem, true, to)) {
        dispatch::QuantizeQuotientF32(chunk, xf, n, q);
        CastChunk(q, T::kFloat, to, elem, n, true);
      }
      if (stream) dispatch::StreamCopy(staged, dst, StorageBytes(elem, n));
    }
    if (stream) hwy::FlushStream();
  });
}

Status QuantizeNvfp4Checked(const TensorView& x, void* codes, void* scales, float* global_scale,
                            bool given, const BlockScaleOptions& o) {
  const char* fn = "QuantizeNvfp4";
  const FormatInfo& info = kFormats[5];
  Status s = CheckInputType(fn, x.type);
  if (s.ok()) s = CheckNvfp4Options(fn, o);
  if (!s.ok()) return s;
  if (global_scale == nullptr) return Invalid(fn, "global_scale is null");
  if (given && !(std::isfinite(*global_scale) && *global_scale > 0.0f)) {
    return Invalid(
        fn, "global_scale: " + std::to_string(*global_scale) + " is not a positive finite float");
  }
  Layout l;
  s = BlockLayout(fn, x.shape, x.rank, o, info, &l);
  if (!s.ok()) return s;
  const size_t n_scales = l.count == 0 ? 0 : l.ScaleCount();
  s = CheckBuffers(fn, {{"x", x.data, StorageBytes(x.type, l.count), false},
                        {"codes", codes, StorageBytes(info.element, l.count), true},
                        {"scales", scales, n_scales, true},
                        {"global_scale", global_scale, sizeof(float), true}});
  if (!s.ok()) return s;
  float g = given ? *global_scale : 1.0f;
  if (!given && l.count > 0) {
    const uint32_t amax = FiniteAmax(x.data, x.type, l.count, o.runner);
    if (amax != 0) g = std::max(FromBits(amax) / 2688.0f, 0x1p-126f);
  }
  if (l.count == 0) {
    *global_scale = g;
    if (o.stats != nullptr) *o.stats = CastStats();
    return Status::Ok();
  }
  auto* sc = static_cast<uint8_t*>(scales);
  if (Nvfp4OnePassTakes(l)) {
    Nvfp4OnePass(x.data, x.type, l, g, codes, sc, o.runner);
    *global_scale = g;
    if (o.stats != nullptr) {
      std::vector<float> fs;
      s = Nvfp4FloatScales(sc, n_scales, g, &fs);
      if (!s.ok()) return Renamed(fn, s);
      const std::vector<double> table(fs.begin(), fs.end());
      FillStats(x.data, x.type, codes, info.element, l.count, BlockedScale{l, table}, o.runner,
                o.stats);
    }
    return Status::Ok();
  }
  // Block scale codes as in Nvfp4OnePass.
  const std::vector<uint32_t> amax = BlockAmax(x.data, x.type, l, o.runner);
  std::vector<double> q(n_scales);
  const double six_g = 6.0 * static_cast<double>(g);
  for (size_t i = 0; i < n_scales; ++i) {
    q[i] = amax[i] >= 0x7F800000u ? std::nan("") : static_cast<double>(FromBits(amax[i])) / six_g;
  }
  CastChunk(q.data(), T::kDouble, sc, T::kFloat8E4M3FN, n_scales, true);
  for (size_t i = 0; i < n_scales; ++i) {
    if (amax[i] >= 0x7F800000u) {
      sc[i] = 0x7F;
    } else if (sc[i] == 0) {
      sc[i] = 0x01;
    }
  }
  std::vector<float> fs;
  s = Nvfp4FloatScales(sc, n_scales, g, &fs);
  if (!s.ok()) return Renamed(fn, s);
  const std::vector<int64_t> shape = ScaleShape(x.shape, x.rank, l);
  const TensorView sv{fs.data(), T::kFloat, shape.data(), shape.size()};
  s = QuantizeLinear(x, sv, nullptr, codes, info.element,
                     LinearAttributes(l, info.element, o.runner));
  if (!s.ok()) return Renamed(fn, s);
  *global_scale = g;
  if (o.stats != nullptr) {
    const std::vector<double> table(fs.begin(), fs.end());
    FillStats(x.data, x.type, codes, info.element, l.count, BlockedScale{l, table}, o.runner,
              o.stats);
  }
  return Status::Ok();
}

Status DequantizeNvfp4Checked(const TensorView& codes, const void* scales, float g, void* y,
                              T y_type, const BlockScaleOptions& o) {
  const char* fn = "DequantizeNvfp4";
  const FormatInfo& info = kFormats[5];
  Status s = CheckCodesType(fn, codes, info);
  if (s.ok()) s = CheckNvfp4Options(fn, o);
  if (!s.ok()) return s;
  Layout l;
  s = BlockLayout(fn, codes.shape, codes.rank, o, info, &l);
  if (!s.ok()) return s;
  const size_t n_scales = l.count == 0 ? 0 : l.ScaleCount();
  s = CheckBuffers(
      fn, {{"scales", scales, n_scales, false}, {"y", y, StorageBytes(y_type, l.count), true}});
  if (!s.ok() || l.count == 0) return s;
  std::vector<float> fs;
  s = Nvfp4FloatScales(scales, n_scales, g, &fs);
  if (!s.ok()) return Renamed(fn, s);
  const std::vector<int64_t> shape = ScaleShape(codes.shape, codes.rank, l);
  const TensorView sv{fs.data(), T::kFloat, shape.data(), shape.size()};
  return DequantizeChecked(fn, codes, sv, y, y_type, l, o.runner);
}

// --- absmax ----------------------------------------------------------------------------------

Status QuantizeAbsmaxChecked(const TensorView& x, T code_type, void* codes, float* scales,
                             const AbsmaxOptions& o) {
  const char* fn = "QuantizeAbsmax";
  Status s = CheckInputType(fn, x.type);
  if (!s.ok()) return s;
  if (code_type != T::kInt8 && code_type != T::kFloat8E4M3FN) {
    return Status(
        IsValidDataType(code_type) ? StatusCode::kUnsupported : StatusCode::kInvalidArgument,
        std::string(fn) + ": code type: " + check::TypeLabel(code_type) +
            " is neither INT8 nor FLOAT8E4M3FN");
  }
  Layout l;
  if (o.per_channel) {
    s = ShapeLayout(fn, "x", x.shape, x.rank, o.axis, &l);
  } else {
    int64_t one = 1;
    s = ShapeLayout(fn, "x", x.rank == 0 ? &one : x.shape, x.rank == 0 ? 1 : x.rank, 0, &l);
    l.outer = 1;
    l.dim = 1;
    l.inner = l.count;
  }
  if (!s.ok()) return s;
  const size_t n_scales = o.per_channel ? l.dim : 1;
  s = CheckBuffers(fn, {{"x", x.data, StorageBytes(x.type, l.count), false},
                        {"codes", codes, StorageBytes(code_type, l.count), true},
                        {"scales", scales, n_scales * sizeof(float), true}});
  if (!s.ok()) return s;
  const float q = code_type == T::kInt8 ? 127.0f : 448.0f;
  std::vector<uint32_t> amax(n_scales, 0u);
  if (l.count > 0) {
    if (!o.per_channel) {
      amax[0] = FiniteAmax(x.data, x.type, l.count, o.runner);
    } else {
      std::vector<float> buf(x.type == T::kFloat ? 0 : kChunk);
      for (size_t r = 0; r < l.outer * l.dim; ++r) {
        uint32_t& m = amax[r % l.dim];
        for (size_t i = 0; i < l.inner; i += kChunk) {
          const size_t n = std::min(kChunk, l.inner - i);
          m = std::max(m, dispatch::MaxAbsBits(
                              AsFloat(x.data, x.type, r * l.inner + i, n, buf.data()), n, true));
        }
      }
    }
  }
  for (size_t i = 0; i < n_scales; ++i) {
    scales[i] = amax[i] == 0 ? 1.0f : std::max(FromBits(amax[i]) / q, 0x1p-126f);
  }
  if (l.count == 0) {
    if (o.stats != nullptr) *o.stats = CastStats();
    return Status::Ok();
  }
  const int64_t shape[1] = {static_cast<int64_t>(n_scales)};
  const TensorView sv{scales, T::kFloat, shape, 1};
  QuantizeAttributes a;
  a.opset = 28;
  a.axis = static_cast<int64_t>(l.axis);
  a.output_dtype = code_type;
  a.saturate = true;
  a.runner = o.runner;
  const TensorView xv = x.rank == 0 ? TensorView{x.data, x.type, shape, 1} : x;
  const TensorView one{scales, T::kFloat, nullptr, 0};
  s = QuantizeLinear(xv, o.per_channel ? sv : one, nullptr, codes, code_type, a);
  if (!s.ok()) return Renamed(fn, s);
  if (o.stats != nullptr) {
    const size_t inner = l.inner, dim = l.dim;
    const bool per_channel = o.per_channel;
    FillStats(
        x.data, x.type, codes, code_type, l.count,
        [&](size_t e) { return static_cast<double>(scales[per_channel ? e / inner % dim : 0]); },
        o.runner, o.stats);
  }
  return Status::Ok();
}

}  // namespace

const char* BlockFormatName(BlockFormat format) noexcept {
  const FormatInfo* i = Info(format);
  return i == nullptr ? nullptr : i->name;
}

DataType BlockFormatElementType(BlockFormat format) noexcept {
  const FormatInfo* i = Info(format);
  return i == nullptr ? T::kUndefined : i->element;
}

DataType BlockFormatScaleType(BlockFormat format) noexcept {
  const FormatInfo* i = Info(format);
  return i == nullptr ? T::kUndefined : i->scale;
}

int64_t BlockFormatBlockSize(BlockFormat format) noexcept {
  const FormatInfo* i = Info(format);
  return i == nullptr ? 0 : i->block;
}

Status BlockScaleCount(const int64_t* shape, size_t rank, const BlockScaleOptions& options,
                       BlockFormat format, size_t* count) {
  return check::Guarded("BlockScaleCount", [&]() -> Status {
    const FormatInfo* info = Info(format);
    if (info == nullptr) {
      return Invalid("BlockScaleCount",
                     "format: " + std::to_string(static_cast<int>(format)) + " is not 1..6");
    }
    if (count == nullptr) return Invalid("BlockScaleCount", "count is null");
    Layout l;
    const Status s = BlockLayout("BlockScaleCount", shape, rank, options, *info, &l);
    if (s.ok()) *count = l.count == 0 ? 0 : l.ScaleCount();
    return s;
  });
}

Status QuantizeMx(const TensorView& x, BlockFormat format, void* codes, void* scales,
                  const BlockScaleOptions& options) {
  return check::Guarded("QuantizeMx",
                        [&] { return QuantizeMxChecked(x, format, codes, scales, options); });
}

Status DequantizeMx(const TensorView& codes, const void* scales, BlockFormat format, void* y,
                    DataType y_type, const BlockScaleOptions& options) {
  return check::Guarded("DequantizeMx", [&] {
    return DequantizeMxChecked(codes, scales, format, y, y_type, options);
  });
}

Status QuantizeNvfp4(const TensorView& x, void* codes, void* scales, float* global_scale,
                     bool global_scale_given, const BlockScaleOptions& options) {
  return check::Guarded("QuantizeNvfp4", [&] {
    return QuantizeNvfp4Checked(x, codes, scales, global_scale, global_scale_given, options);
  });
}

Status DequantizeNvfp4(const TensorView& codes, const void* scales, float global_scale, void* y,
                       DataType y_type, const BlockScaleOptions& options) {
  return check::Guarded("DequantizeNvfp4", [&] {
    return DequantizeNvfp4Checked(codes, scales, global_scale, y, y_type, options);
  });
}

Status QuantizeAbsmax(const TensorView& x, DataType code_type, void* codes, float* scales,
                      const AbsmaxOptions& options) {
  return check::Guarded("QuantizeAbsmax", [&] {
    return QuantizeAbsmaxChecked(x, code_type, codes, scales, options);
  });
}

}  // namespace tensorcast
