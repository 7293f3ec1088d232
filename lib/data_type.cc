// Names, widths and storage sizes of the ONNX element types, read from the type table
// (lib/type_facts.h).
#include "tensorcast/data_type.h"

#include <cstdint>
#include <string>

#include "lib/check.h"
#include "lib/type_facts.h"

namespace tensorcast {
namespace {

constexpr char Upper(char c) {
  return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

constexpr bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Upper(a[i]) != Upper(b[i])) return false;
  }
  return true;
}

// The enumerators of data_type.h are the rows of the type table: each one's spelling
// without the leading 'k' is its row's name ignoring case (kFloat8E4M3FN is code 17,
// "FLOAT8E4M3FN"), and every code of the table has one. The switch has no default, so
// -Wswitch reports an enumerator missing from it.
#define TENSORCAST_ENUMERATOR(e) \
  case DataType::e: return std::string_view(#e).substr(1);
constexpr std::string_view EnumeratorName(DataType type) {
  switch (type) {
    TENSORCAST_ENUMERATOR(kUndefined)
    TENSORCAST_ENUMERATOR(kFloat)
    TENSORCAST_ENUMERATOR(kUint8)
    TENSORCAST_ENUMERATOR(kInt8)
    TENSORCAST_ENUMERATOR(kUint16)
    TENSORCAST_ENUMERATOR(kInt16)
    TENSORCAST_ENUMERATOR(kInt32)
    TENSORCAST_ENUMERATOR(kInt64)
    TENSORCAST_ENUMERATOR(kString)
    TENSORCAST_ENUMERATOR(kBool)
    TENSORCAST_ENUMERATOR(kFloat16)
    TENSORCAST_ENUMERATOR(kDouble)
    TENSORCAST_ENUMERATOR(kUint32)
    TENSORCAST_ENUMERATOR(kUint64)
    TENSORCAST_ENUMERATOR(kComplex64)
    TENSORCAST_ENUMERATOR(kComplex128)
    TENSORCAST_ENUMERATOR(kBfloat16)
    TENSORCAST_ENUMERATOR(kFloat8E4M3FN)
    TENSORCAST_ENUMERATOR(kFloat8E4M3FNUZ)
    TENSORCAST_ENUMERATOR(kFloat8E5M2)
    TENSORCAST_ENUMERATOR(kFloat8E5M2FNUZ)
    TENSORCAST_ENUMERATOR(kUint4)
    TENSORCAST_ENUMERATOR(kInt4)
    TENSORCAST_ENUMERATOR(kFloat4E2M1)
    TENSORCAST_ENUMERATOR(kFloat8E8M0)
    TENSORCAST_ENUMERATOR(kUint2)
    TENSORCAST_ENUMERATOR(kInt2)
    TENSORCAST_ENUMERATOR(kFloat6E2M3)
    TENSORCAST_ENUMERATOR(kFloat6E3M2)
  }
  return std::string_view();
}
#undef TENSORCAST_ENUMERATOR

// Codes 0..255: an enumerator exactly for the codes of the table, named as its row.
constexpr bool EnumMatchesTable() {
  for (int code = 0; code < 256; ++code) {
    const std::string_view name = EnumeratorName(static_cast<DataType>(code));
    if (code <= kMaxDataTypeCode) {
      if (!EqualsIgnoreCase(name, Facts(static_cast<DataType>(code)).name)) return false;
    } else if (!name.empty()) {
      return false;
    }
  }
  return true;
}
static_assert(EnumMatchesTable(), "enum DataType (data_type.h) and the type table disagree");

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool IsValidDataType(DataType type) noexcept { return Facts(type).kind != TypeKind::kUndefined; }

bool IsCastable(DataType type) noexcept { return Facts(type).cast_since != 0; }

const char* DataTypeName(DataType type) noexcept { return Facts(type).name; }

int BitWidth(DataType type) noexcept { return Facts(type).bits; }

Status CheckedStorageBytes(DataType type, size_t count, size_t* bytes) {
  if (bytes == nullptr) return check::NullOutputError("bytes");
  if (!check::IsKnownType(type)) return check::UnknownTypeError(type, "type");
  if (!check::FitsBytes(type, count, bytes)) return check::BytesOverflowError(type, count);
  return Status::Ok();
}

size_t StorageBytes(DataType type, size_t count) noexcept {
  size_t bytes = 0;
  if (!check::IsKnownType(type) || !check::FitsBytes(type, count, &bytes)) return SIZE_MAX;
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
  } else if (!s.empty()) {
    // The ONNX name, then the numpy name of each valid type.
    for (int code = 1; code <= kMaxDataTypeCode; ++code) {
      const TypeFacts& f = Facts(static_cast<DataType>(code));
      if (EqualsIgnoreCase(s, f.name) || EqualsIgnoreCase(s, f.numpy_name)) {
        *out = static_cast<DataType>(code);
        return Status::Ok();
      }
    }
    struct Alias {
      const char* name;
      DataType type;
    };
    static constexpr Alias kAliases[] = {
        {"half", DataType::kFloat16},
        {"bool_", DataType::kBool},
        {"str", DataType::kString},
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
                    "code 1.." +
                    std::to_string(kMaxDataTypeCode) + ")");
}

}  // namespace tensorcast
