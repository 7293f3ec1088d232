// The library's internal dispatch interface as the tests see it: the kernel registry,
// the route plan (Cast without its argument checks) and the two-step route's round-to-odd
// decoders. This is the only test file that includes the dispatch headers, so a change
// to their names or namespace is a change here only.
//
// Also the parameter lists of the per-row and per-pair test suites, and their names
// ("FLOAT_to_FLOAT8E4M3FN"), so that a failing case names its pair.
#ifndef TENSORCAST_TEST_DISPATCH_ACCESS_H_
#define TENSORCAST_TEST_DISPATCH_ACCESS_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "lib/dispatch/hub_kernels.h"
#include "lib/dispatch/route_plan.h"
#include "tensorcast/tensorcast.h"

namespace tensorcast {
namespace test {

// One row of the kernel registry: a direct kernel for (src, dst).
using KernelRow = ::tensorcast::dispatch::KernelRow;

// Every registry row, in registry order.
inline std::vector<KernelRow> KernelRows() {
  size_t count = 0;
  const KernelRow* rows = ::tensorcast::dispatch::KernelRows(&count);
  return std::vector<KernelRow>(rows, rows + count);
}

// True when the registry has a direct kernel for (src, dst).
inline bool HasKernelRow(DataType src, DataType dst) {
  return ::tensorcast::dispatch::FindKernel(src, dst) != nullptr;
}

// Cast through the route plan of the active target: the pair's kernel, byte table,
// sub-byte copy or two-step route, chosen by count. False, writing nothing, when the plan
// has no route for the pair (Cast then uses the scalar reference).
inline bool CastThroughPlan(const void* src, DataType src_type, void* dst, DataType dst_type,
                            size_t count, const CastOptions& options) {
  return ::tensorcast::dispatch::CastWithPlan(src, src_type, dst, dst_type, count, options);
}

// A decoder of the two-step route: `bits`-wide integers to float32 rounded to odd.
struct RoundToOddDecoder {
  const char* name;
  int bits;
  bool is_signed;
  void (*decode)(const void* src, void* dst, size_t count);
};

inline std::vector<RoundToOddDecoder> RoundToOddDecoders() {
  return {
      {"Int32ToF32RoundToOdd", 32, true, &::tensorcast::dispatch::Int32ToF32RoundToOdd},
      {"Uint32ToF32RoundToOdd", 32, false, &::tensorcast::dispatch::Uint32ToF32RoundToOdd},
      {"Int64ToF32RoundToOdd", 64, true, &::tensorcast::dispatch::Int64ToF32RoundToOdd},
      {"Uint64ToF32RoundToOdd", 64, false, &::tensorcast::dispatch::Uint64ToF32RoundToOdd},
  };
}

// The 23 numeric element types (every castable type but STRING; BOOL included), in
// ONNX code order.
inline std::vector<DataType> NumericTypes() {
  std::vector<DataType> types;
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    if (IsCastable(t) && t != DataType::kString) types.push_back(t);
  }
  return types;
}

struct TypePair {
  DataType src;
  DataType dst;
};

// Every ordered pair of two different numeric types (23 * 22 = 506).
inline std::vector<TypePair> OrderedNumericPairs() {
  std::vector<TypePair> pairs;
  for (DataType src : NumericTypes()) {
    for (DataType dst : NumericTypes()) {
      if (src != dst) pairs.push_back({src, dst});
    }
  }
  return pairs;
}

// "FLOAT_to_FLOAT8E4M3FN": the name of a per-pair test case.
inline std::string PairName(DataType src, DataType dst) {
  return std::string(DataTypeName(src)) + "_to_" + DataTypeName(dst);
}

// "FLOAT -> FLOAT8E4M3FN": the pair in a failure message.
inline std::string PairLabel(DataType src, DataType dst) {
  return std::string(DataTypeName(src)) + " -> " + DataTypeName(dst);
}

// How GoogleTest prints the parameters of these suites.
inline void PrintTo(const TypePair& pair, std::ostream* os) {
  *os << PairLabel(pair.src, pair.dst);
}
inline void PrintTo(const RoundToOddDecoder& decoder, std::ostream* os) { *os << decoder.name; }

}  // namespace test

namespace dispatch {
// How GoogleTest prints a registry row (a test's parameter).
inline void PrintTo(const KernelRow& row, std::ostream* os) {
  *os << row.name << " (" << DataTypeName(row.src) << " -> " << DataTypeName(row.dst) << ")";
}
}  // namespace dispatch
}  // namespace tensorcast

#endif  // TENSORCAST_TEST_DISPATCH_ACCESS_H_
