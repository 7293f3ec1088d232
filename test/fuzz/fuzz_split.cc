// Fuzz target: Split with a type, shape, axis and sizes taken from the input. Checks that
// arguments that do not add up are refused (an error, nothing written), and that accepted
// splits are a partition: the outputs, concatenated back along the axis element by element,
// give the source.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tensorcast/tensorcast.h"

namespace {

using tensorcast::DataType;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "fuzz_split: %s\n", what);
  std::abort();
}

// Element e of a packed or byte-aligned buffer, as an integer of its bits. A packed element
// is bits [e * bits, (e + 1) * bits) of the little-endian bit stream; a 6-bit one may
// continue in the next byte.
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  // Numeric types only (STRING elements are objects); complex types included.
  DataType type = static_cast<DataType>(1 + data[0] % tensorcast::kMaxDataTypeCode);
  if (type == DataType::kString) type = DataType::kUint8;
  const size_t bits = static_cast<size_t>(tensorcast::BitWidth(type));
  const size_t rank = 1 + data[1] % 4;
  int64_t shape[4];
  size_t count = 1;
  for (size_t d = 0; d < rank; ++d) {
    shape[d] = data[2 + d] % 9;  // 0..8
    count *= static_cast<size_t>(shape[d]);
  }
  const int64_t axis = static_cast<int8_t>(data[6]) % 6;  // may be out of range
  const size_t num_outputs = data[7] % 6;                 // 0 is an error
  data += 8;
  size -= 8;
  std::vector<int64_t> sizes(num_outputs + 1);
  for (size_t i = 0; i < num_outputs; ++i) {
    sizes[i] = i < size ? static_cast<int8_t>(data[i]) % 10 : 0;  // may be negative
  }
  const size_t src_bytes = tensorcast::StorageBytes(type, count);
  std::vector<uint8_t> src(src_bytes + 1);
  for (size_t i = 0; i < src_bytes; ++i) src[i] = i < size ? data[i] : static_cast<uint8_t>(i);
  if (bits < 8 && (count * bits) % 8 != 0) {
    src[src_bytes - 1] &= static_cast<uint8_t>((1u << (count * bits % 8)) - 1);
  }

  // Expected validity, written independently of the library.
  const int64_t r = static_cast<int64_t>(rank);
  bool valid = num_outputs > 0 && axis >= -r && axis < r;
  size_t ax = 0;
  if (valid) {
    ax = static_cast<size_t>(axis < 0 ? axis + r : axis);
    int64_t sum = 0;
    for (size_t i = 0; i < num_outputs; ++i) {
      valid = valid && sizes[i] >= 0;
      sum += sizes[i];
    }
    valid = valid && sum == shape[ax];
  }

  size_t outer = 1, inner = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (d < ax) outer *= static_cast<size_t>(shape[d]);
    if (d > ax) inner *= static_cast<size_t>(shape[d]);
  }
  std::vector<std::vector<uint8_t>> outs(num_outputs);
  std::vector<void*> ptrs(num_outputs + 1, nullptr);
  for (size_t i = 0; i < num_outputs; ++i) {
    const size_t n = valid ? outer * static_cast<size_t>(sizes[i]) * inner : 0;
    outs[i].assign(tensorcast::StorageBytes(type, n) + 1, 0x5A);
    ptrs[i] = outs[i].data();
  }
  const tensorcast::Status s = tensorcast::Split(src.data(), type, shape, rank, axis, sizes.data(),
                                                 num_outputs, ptrs.data());
  if (s.ok() != valid) Fail(valid ? "valid split refused" : "invalid split accepted");
  if (!valid) {
    for (const auto& o : outs) {
      for (uint8_t b : o) {
        if (b != 0x5A) Fail("a refused split wrote an output");
      }
    }
    return 0;
  }
  // Concatenation property: element (o, k, j) of the source is in output i at (o, k', j).
  size_t start = 0;
  for (size_t i = 0; i < num_outputs; ++i) {
    const size_t len = static_cast<size_t>(sizes[i]);
    for (size_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < len; ++k) {
        for (size_t j = 0; j < inner; ++j) {
          const size_t se = (o * static_cast<size_t>(shape[ax]) + start + k) * inner + j;
          const size_t oe = (o * len + k) * inner + j;
          if (bits > 64) {
            if (std::memcmp(src.data() + se * bits / 8, outs[i].data() + oe * bits / 8, bits / 8) !=
                0) {
              Fail("an output element differs from the source");
            }
          } else if (Element(src.data(), bits, se) != Element(outs[i].data(), bits, oe)) {
            Fail("an output element differs from the source");
          }
        }
      }
    }
    start += len;
  }
  return 0;
}
