// Running an entry of the route plan (route_plan.h): the kernel, the two-step route through
// an L1 block, the copy and the table lookup.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "lib/dispatch/route_plan.h"
#include "lib/dispatch/stream_copy.h"
#include "lib/dispatch/table_kernels.h"
#include "lib/tuning.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace dispatch {
namespace {

void RunHub(const Entry& e, const void* src, DataType src_type, void* dst, DataType dst_type,
            size_t count, const CastOptions& options) {
  constexpr size_t kBlock = tuning::kHubBlockElements;
  static_assert(kBlock % 8 == 0, "blocks start on a byte of packed 4- and 2-bit types");
  alignas(64) uint8_t block[kBlock * 4];
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  const size_t src_bits = static_cast<size_t>(BitWidth(src_type));
  const size_t dst_bits = static_cast<size_t>(BitWidth(dst_type));
  CastOptions encode_options = options;
  if (e.encode_saturating) encode_options.saturate = true;
  // Elements i .. i + n - 1 into d.
  const auto step = [&](size_t i, size_t n, void* d) {
    const void* s = in + i * src_bits / 8;
    const void* mid = s;
    if (e.odd_decode.fn != nullptr) {
      e.odd_decode.fn(s, block, n);
      mid = block;
    } else if (e.decode != nullptr) {
      e.decode->kernel(s, e.encode != nullptr ? block : d, n, options);
      mid = block;
    }
    if (e.encode != nullptr) e.encode->kernel(mid, d, n, encode_options);
  };
  if (e.stream && count * dst_bits / 8 >= tuning::StreamBytes(tuning::kHubStreamBytes)) {
    // A head of regular stores up to the first 64-byte-aligned output byte (when it is a
    // whole number of elements on both sides), then blocks encoded into an aligned L1
    // stage and streamed out: every block's output is a multiple of 64 bytes, so only
    // the last block has a partial vector (StreamCopy stores it regularly).
    constexpr size_t kAlign = 64;
    const size_t misaligned = reinterpret_cast<uintptr_t>(out) % kAlign;
    const size_t head_bytes = misaligned == 0 ? 0 : kAlign - misaligned;
    const size_t head = head_bytes * 8 / dst_bits;
    if (head * dst_bits == head_bytes * 8 && head * src_bits % 8 == 0 && head <= count) {
      if (head != 0) step(0, head, out);
      alignas(64) uint8_t stage[kBlock * 8];
      for (size_t i = head; i < count; i += kBlock) {
        const size_t n = std::min(count - i, kBlock);
        step(i, n, stage);
        StreamCopy(stage, out + i * dst_bits / 8, (n * dst_bits + 7) / 8);
      }
      hwy::FlushStream();
      return;
    }
  }
  for (size_t i = 0; i < count; i += kBlock) {
    const size_t n = std::min(count - i, kBlock);
    step(i, n, out + i * dst_bits / 8);
  }
}

void RunCopy(const Entry& e, const void* src, DataType src_type, void* dst, DataType dst_type,
             size_t count, const CastOptions& options) {
  if (e.hub_when_saturating && options.saturate) {
    RunHub(e, src, src_type, dst, dst_type, count, options);
    return;
  }
  const size_t bits = count * static_cast<size_t>(BitWidth(src_type));
  const size_t bytes = (bits + 7) / 8;
  if (src != dst) {
    if (src_type != dst_type && bytes >= tuning::StreamBytes(tuning::kHubStreamBytes)) {
      StreamCopy(src, dst, bytes);
      hwy::FlushStream();
    } else {
      std::memcpy(dst, src, bytes);
    }
  }
  if (bits % 8 != 0) {  // packed: the padding of a partial last byte is zero
    auto* last = static_cast<uint8_t*>(dst) + bytes - 1;
    *last = static_cast<uint8_t>(*last & ((1u << (bits % 8)) - 1));
  }
}

}  // namespace

size_t ResultsOnEveryCode(const Entry& e, DataType src_type, DataType dst_type,
                          const CastOptions& options, uint8_t (&out)[256 * 8]) {
  const auto sb = static_cast<size_t>(BitWidth(src_type));
  const size_t codes = size_t{1} << sb;
  // Every source code in order, packed like the type (element 0 in the low bits).
  uint8_t in[256] = {};
  for (size_t c = 0; c < codes; ++c) {
    in[c * sb / 8] = static_cast<uint8_t>(in[c * sb / 8] | c << (c * sb % 8));
  }
  RunRoute(e.small_route, e, in, src_type, out, dst_type, codes, options);
  return codes;
}

namespace {

void RunTable(const Entry& e, const void* src, DataType src_type, void* dst, DataType dst_type,
              size_t count, const CastOptions& options) {
  const int src_bits = BitWidth(src_type), dst_bits = BitWidth(dst_type);
  alignas(64) uint8_t out[256 * 8] = {};
  const size_t codes = ResultsOnEveryCode(e, src_type, dst_type, options, out);
  alignas(64) uint8_t table[256 * 2] = {};
  if (dst_bits >= 16) {
    // Two byte tables: the low and the high byte of each result's low 16 bits (the plan
    // checked that wider results extend from them).
    // The stride is a constant in each loop so that the compiler vectorises it: this runs
    // on every call, and a scalar loop over 256 codes costs as much as the lookup of a
    // few thousand elements.
    const auto planes = [&](auto bytes) {
      for (size_t c = 0; c < codes; ++c) {
        table[c] = out[bytes * c];
        table[256 + c] = out[bytes * c + 1];
      }
    };
    switch (dst_bits) {
      case 16: planes(std::integral_constant<size_t, 2>()); break;
      case 32: planes(std::integral_constant<size_t, 4>()); break;
      default: planes(std::integral_constant<size_t, 8>()); break;
    }
  } else {
    const unsigned dst_mask = (1u << dst_bits) - 1;
    for (size_t c = 0; c < codes; ++c) {
      const size_t bit = c * static_cast<size_t>(dst_bits);
      table[c] = static_cast<uint8_t>((out[bit / 8] >> (bit % 8)) & dst_mask);
    }
  }
  TableLookup(table, src_bits, dst_bits, e.table_sign_extend, src, dst, count);
}

}  // namespace

void RunRoute(Route route, const Entry& e, const void* src, DataType src_type, void* dst,
              DataType dst_type, size_t count, const CastOptions& options) {
  switch (route) {
    case Route::kKernel: e.row->kernel(src, dst, count, options); return;
    case Route::kTable: RunTable(e, src, src_type, dst, dst_type, count, options); return;
    case Route::kHub: RunHub(e, src, src_type, dst, dst_type, count, options); return;
    case Route::kCopy: RunCopy(e, src, src_type, dst, dst_type, count, options); return;
    case Route::kStrings: return;
  }
}

bool CastWithPlan(const void* src, DataType src_type, void* dst, DataType dst_type, size_t count,
                  const CastOptions& options) {
  const Plan* plan = PlanAt(ActiveTargetIndex());
  if (plan == nullptr) return false;
  const Entry& e = plan->entries[static_cast<size_t>(src_type)][static_cast<size_t>(dst_type)];
  if (!e.planned || e.route == Route::kStrings) return false;
  const Route route = e.table_min_count != 0 && count < e.table_min_count ? e.small_route : e.route;
  RunRoute(route, e, src, src_type, dst, dst_type, count, options);
  return true;
}

}  // namespace dispatch
}  // namespace tensorcast
