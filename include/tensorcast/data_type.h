// tensorcast/data_type.h: ONNX element types (TensorProto.DataType codes) and
// their storage.
#ifndef TENSORCAST_DATA_TYPE_H_
#define TENSORCAST_DATA_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tensorcast/status.h"

namespace tensorcast {

// Enumerator values are the ONNX TensorProto.DataType codes.
enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,  // elements are std::string objects
  kBool = 9,    // one byte per element, 0 or 1
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,   // storage only: Cast does not accept complex types
  kComplex128 = 15,  // storage only
  kBfloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,       // packed two per byte, element 2k in the low nibble
  kInt4 = 22,        // packed two per byte, two's complement
  kFloat4E2M1 = 23,  // packed two per byte
  kFloat8E8M0 = 24,
  kUint2 = 25,       // packed four per byte, element 0 in bits 0-1
  kInt2 = 26,        // packed four per byte, two's complement
  kFloat6E2M3 = 27,  // packed four in three bytes: element i in bits [6i, 6i + 6)
  kFloat6E3M2 = 28,  // packed four in three bytes
};

constexpr int32_t kMaxDataTypeCode = 28;

// True for the codes 1..28 (complex included); false for kUndefined and unknown codes.
bool IsValidDataType(DataType type) noexcept;

// True when Cast/CastLike accept the type: every valid type except the complex ones.
bool IsCastable(DataType type) noexcept;

// The ONNX name, upper case as in onnx.proto: "FLOAT", "FLOAT8E4M3FN", "INT4", ...
// "UNDEFINED" for 0 and "INVALID" for an unknown code. Never null.
const char* DataTypeName(DataType type) noexcept;

// Parses a type name. Accepts, in any case, the ONNX name ("FLOAT8E4M3FN",
// "float8e4m3fn"), the ONNX type string "tensor(float8e4m3fn)", the numeric code
// ("17"), the numpy / ml_dtypes dtype name ("float32", "float64", "bool",
// "float8_e4m3fn", "float4_e2m1fn", "float8_e8m0fnu", "object" for STRING, ...) and the
// spellings "half", "bool_" and "str". Leading and trailing ASCII spaces and tabs are
// ignored. kUndefined/"0" is rejected.
Status ParseDataType(std::string_view text, DataType* out);

// Bits per element: 1..128 for numeric types and bool (8), 4 for INT4/UINT4/FLOAT4E2M1,
// 2 for INT2/UINT2; 0 for STRING (variable), kUndefined and unknown codes.
int BitWidth(DataType type) noexcept;

// Bytes occupied by `count` elements: ceil(count * BitWidth / 8) for numeric types,
// count * sizeof(std::string) for STRING. Returns SIZE_MAX when the type is not valid
// or the byte count does not fit in size_t (use CheckedStorageBytes to tell them apart).
size_t StorageBytes(DataType type, size_t count) noexcept;

// As StorageBytes, with an error Status naming the type or the overflowing count.
Status CheckedStorageBytes(DataType type, size_t count, size_t* bytes);

}  // namespace tensorcast

#endif  // TENSORCAST_DATA_TYPE_H_
