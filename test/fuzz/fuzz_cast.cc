// Fuzz target: Cast with a type pair, options, count and misalignment taken from the input,
// and the rest of the input as source bytes. Checks the result bit for bit against the
// scalar reference (lib/reference) and that the guard bytes around the output are intact.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "lib/reference/reference_cast.h"
#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;

constexpr size_t kGuard = 64;
constexpr uint8_t kGuardByte = 0xA5;

std::vector<DataType> NumericTypes() {
  std::vector<DataType> types;
  for (int code = 1; code <= tensorcast::kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (tensorcast::IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  return types;
}

[[noreturn]] void Fail(const char* what, DataType src, DataType dst, size_t count) {
  std::fprintf(stderr, "fuzz_cast: %s: %s -> %s, count %zu\n", what, tensorcast::DataTypeName(src),
               tensorcast::DataTypeName(dst), count);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<DataType> types = NumericTypes();
  if (size < 4) return 0;
  const DataType src = types[data[0] % types.size()];
  const DataType dst = types[data[1] % types.size()];
  CastOptions options;
  options.saturate = (data[2] & 1) != 0;
  options.round_mode = static_cast<tensorcast::RoundMode>((data[2] >> 1) % 3);
  const size_t src_offset = (data[3] & 15), dst_offset = (data[3] >> 4);
  data += 4;
  size -= 4;
  // As many elements as the bytes hold (packed types: whole bytes), at most 64 K.
  const size_t bits = static_cast<size_t>(tensorcast::BitWidth(src));
  size_t count = size * 8 / bits;
  if (count > 65536) count = 65536;
  const size_t src_bytes = tensorcast::StorageBytes(src, count);
  const size_t dst_bytes = tensorcast::StorageBytes(dst, count);

  std::vector<uint8_t> in(src_offset + src_bytes + 1);
  if (src_bytes > 0) std::memcpy(in.data() + src_offset, data, src_bytes);
  // Inputs must meet Cast's contract: BOOL bytes are 0 or 1, packed padding is zero.
  if (src == DataType::kBool) {
    for (size_t i = 0; i < count; ++i) in[src_offset + i] &= 1;
  }
  if (bits < 8 && (count * bits) % 8 != 0) {
    in[src_offset + src_bytes - 1] &= static_cast<uint8_t>((1u << (count * bits % 8)) - 1);
  }

  std::vector<uint8_t> got(kGuard + dst_offset + dst_bytes + kGuard, kGuardByte);
  std::vector<uint8_t> want(dst_bytes + 1, 0);
  uint8_t* out = got.data() + kGuard + dst_offset;
  const tensorcast::Status s =
      tensorcast::Cast(in.data() + src_offset, src, out, dst, count, options);
  const tensorcast::Status r =
      tensorcast::reference::Cast(in.data() + src_offset, src, want.data(), dst, count, options);
  if (s.ok() != r.ok()) Fail("status differs from the reference", src, dst, count);
  if (!s.ok()) return 0;
  if (dst_bytes > 0 && std::memcmp(out, want.data(), dst_bytes) != 0) {
    Fail("result differs from the reference", src, dst, count);
  }
  for (size_t i = 0; i < kGuard + dst_offset; ++i) {
    if (got[i] != kGuardByte) Fail("wrote before the output", src, dst, count);
  }
  for (size_t i = kGuard + dst_offset + dst_bytes; i < got.size(); ++i) {
    if (got[i] != kGuardByte) Fail("wrote past the output", src, dst, count);
  }
  return 0;
}
