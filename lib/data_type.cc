// Names, widths and storage sizes of the ONNX element types.
#include "tensorcast/data_type.h"

#include <climits>
#include <cstdint>
#include <string>

namespace tensorcast {
namespace {

struct TypeInfo {
  const char* name;  // ONNX TensorProto.DataType name
  int bits;          // bits per element; 0 = variable (STRING) or invalid
};

// Indexed by the ONNX code.
constexpr TypeInfo kTypes[kMaxDataTypeCode + 1] = {
    {"UNDEFINED", 0},      {"FLOAT", 32},       {"UINT8", 8},          {"INT8", 8},
    {"UINT16", 16},        {"INT16", 16},       {"INT32", 32},         {"INT64", 64},
    {"STRING", 0},         {"BOOL", 8},         {"FLOAT16", 16},       {"DOUBLE", 64},
    {"UINT32", 32},        {"UINT64", 64},      {"COMPLEX64", 64},     {"COMPLEX128", 128},
    {"BFLOAT16", 16},      {"FLOAT8E4M3FN", 8}, {"FLOAT8E4M3FNUZ", 8}, {"FLOAT8E5M2", 8},
    {"FLOAT8E5M2FNUZ", 8}, {"UINT4", 4},        {"INT4", 4},           {"FLOAT4E2M1", 4},
    {"FLOAT8E8M0", 8},     {"UINT2", 2},        {"INT2", 2},
};

int Code(DataType type) { return static_cast<int>(type); }

char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Upper(a[i]) != Upper(b[i])) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool IsValidDataType(DataType type) noexcept {
  return Code(type) >= 1 && Code(type) <= kMaxDataTypeCode;
}

bool IsCastable(DataType type) noexcept {
  return IsValidDataType(type) && type != DataType::kComplex64 && type != DataType::kComplex128;
}

const char* DataTypeName(DataType type) noexcept {
  if (Code(type) < 0 || Code(type) > kMaxDataTypeCode) return "INVALID";
  return kTypes[Code(type)].name;
}

int BitWidth(DataType type) noexcept {
  if (!IsValidDataType(type)) return 0;
  return kTypes[Code(type)].bits;
}

Status CheckedStorageBytes(DataType type, size_t count, size_t* bytes) {
  if (bytes == nullptr) return Status(StatusCode::kInvalidArgument, "bytes is null");
  if (!IsValidDataType(type)) {
    return Status(StatusCode::kInvalidArgument,
                  "unknown data type code " + std::to_string(Code(type)));
  }
  const size_t per = type == DataType::kString ? sizeof(std::string) * CHAR_BIT
                                               : static_cast<size_t>(BitWidth(type));
  // ceil(count * per / 8) without overflowing: split count into whole bytes and a rest.
  if (per % 8 == 0) {
    const size_t b = per / 8;
    if (count > SIZE_MAX / b) {
      return Status(StatusCode::kOverflow, std::string("byte count of ") + std::to_string(count) +
                                               " elements of " + DataTypeName(type) +
                                               " overflows size_t");
    }
    *bytes = count * b;
  } else {
    const size_t per_byte = 8 / per;  // 2 or 4 elements per byte
    *bytes = count / per_byte + (count % per_byte != 0 ? 1 : 0);
  }
  return Status::Ok();
}

size_t StorageBytes(DataType type, size_t count) noexcept {
  size_t bytes = 0;
  if (!IsValidDataType(type)) return SIZE_MAX;
  const int bits =
      type == DataType::kString ? static_cast<int>(sizeof(std::string) * CHAR_BIT) : BitWidth(type);
  if (bits % 8 == 0) {
    const size_t b = static_cast<size_t>(bits / 8);
    if (count > SIZE_MAX / b) return SIZE_MAX;
    bytes = count * b;
  } else {
    const size_t per_byte = static_cast<size_t>(8 / bits);
    bytes = count / per_byte + (count % per_byte != 0 ? 1 : 0);
  }
  return bytes;
}

Status ParseDataType(std::string_view text, DataType* out) {
  if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
  std::string_view s = Trim(text);
  if (s.size() > 8 && EqualsIgnoreCase(s.substr(0, 7), "tensor(") && s.back() == ')') {
    s = Trim(s.substr(7, s.size() - 8));
  }
  if (!s.empty() && s.size() <= 3 && s.find_first_not_of("0123456789") == std::string_view::npos) {
    int code = 0;
    for (char c : s) code = code * 10 + (c - '0');
    if (code >= 1 && code <= kMaxDataTypeCode) {
      *out = static_cast<DataType>(code);
      return Status::Ok();
    }
  } else {
    for (int code = 1; code <= kMaxDataTypeCode; ++code) {
      if (EqualsIgnoreCase(s, kTypes[code].name)) {
        *out = static_cast<DataType>(code);
        return Status::Ok();
      }
    }
    struct Alias {
      const char* name;
      DataType type;
    };
    static constexpr Alias kAliases[] = {
        {"float32", DataType::kFloat}, {"float64", DataType::kDouble}, {"half", DataType::kFloat16},
        {"bool_", DataType::kBool},    {"str", DataType::kString},
    };
    for (const Alias& a : kAliases) {
      if (EqualsIgnoreCase(s, a.name)) {
        *out = a.type;
        return Status::Ok();
      }
    }
  }
  return Status(StatusCode::kInvalidArgument,
                "unknown data type \"" + std::string(text) +
                    "\" (expected an ONNX name such as FLOAT8E4M3FN, tensor(float16) or a "
                    "code 1..26)");
}

}  // namespace tensorcast
