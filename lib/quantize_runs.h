// How the elements of a chunk of a QuantizeLinear / DequantizeLinear call find their scale
// (internal; plain C++, included by lib/quantize.cc and by the kernels).
#ifndef TENSORCAST_LIB_QUANTIZE_RUNS_H_
#define TENSORCAST_LIB_QUANTIZE_RUNS_H_

#include <algorithm>
#include <cstddef>

#include "lib/quantize_plan.h"

namespace tensorcast {

// Where the n elements of a run find their scale s and zero point z (z null: none).
struct QdqRun {
  enum Mode { kUniform, kPerElement, kBlocked };
  Mode mode = kUniform;
  // kUniform: s[0], z[0] for every element. kPerElement: s[j], z[j].
  // kBlocked: s[(phase + j) / block], z[(phase + j) / block].
  const float* s = nullptr;
  const float* z = nullptr;
  size_t block = 0;
  size_t phase = 0;
};

// A chunk of a call: elements [e0, e0 + n) of x, and the scales and zero points of the
// whole call as float32 (z null: no zero point).
struct QdqChunk {
  const QuantizePlan* plan = nullptr;
  const float* s = nullptr;
  const float* z = nullptr;
  size_t e0 = 0;
  // DequantizeLinear: no product can be NaN (integer x, every scale finite), so the
  // kernel skips the NaN fix-up.
  bool nan_free = false;
};

// Calls f(j, len, run) for the runs of elements [e0, e0 + n) that share one way of finding
// their scale: uniform over the run, one scale per element, or blocks along the contiguous
// axis. The position (o, a, i) of e0 in [outer, dim, inner] is divided out once; the runs
// then advance it.
template <class F>
inline void ForEachRun(const QdqChunk& c, size_t n, const F& f) {
  const QuantizePlan& p = *c.plan;
  const float* s = c.s;
  const float* z = c.z;
  const size_t e0 = c.e0;
  QdqRun run;
  if (p.granularity == Granularity::kPerTensor) {
    run.s = s;
    run.z = z;
    f(0, n, run);
    return;
  }
  const bool per_axis = p.granularity == Granularity::kPerAxis;
  if (!per_axis && p.inner == 1 && p.dim % p.block == 0) {
    // Blocks along the contiguous axis that tile each row: element e has scale e / block
    // across rows too, so the chunk is one run.
    run.mode = QdqRun::kBlocked;
    run.s = s + e0 / p.block;
    run.z = z == nullptr ? nullptr : z + e0 / p.block;
    run.block = p.block;
    run.phase = e0 % p.block;
    f(0, n, run);
    return;
  }
  const size_t block = per_axis ? 1 : p.block;
  size_t i = e0 % p.inner;
  const size_t row = e0 / p.inner;
  size_t a = row % p.dim, o = row / p.dim;
  // a = b * block + r: the block of a and a's place in it, advanced without dividing.
  size_t b = a / block, r = a % block;
  size_t j = 0;
  while (j < n) {
    size_t len;
    if (p.inner > 1) {
      len = std::min(p.inner - i, n - j);
      const size_t first = per_axis ? a : (o * p.blocks + b) * p.inner + i;
      run.mode = per_axis ? QdqRun::kUniform : QdqRun::kPerElement;
      run.s = s + first;
      run.z = z == nullptr ? nullptr : z + first;
      i += len;
      if (i == p.inner) {
        i = 0;
        if (++r == block) r = 0, ++b;
        if (++a == p.dim) a = 0, b = 0, r = 0, ++o;
      }
    } else {
      len = std::min(p.dim - a, n - j);
      const size_t first = per_axis ? a : o * p.blocks + b;
      run.mode = per_axis ? QdqRun::kPerElement : QdqRun::kBlocked;
      run.s = s + first;
      run.z = z == nullptr ? nullptr : z + first;
      run.block = block;
      run.phase = r;
      a += len;
      if (a == p.dim) {
        a = 0, b = 0, r = 0, ++o;
      } else {  // the chunk ends inside the row: no further run uses them
        b = a / block, r = a % block;
      }
    }
    f(j, len, run);
    j += len;
  }
}

}  // namespace tensorcast

#endif  // TENSORCAST_LIB_QUANTIZE_RUNS_H_
