// Test-only C ABI over the public tensorcast API, loaded by differential_test.py
// through ctypes. Nothing here is part of the library; no C++ exception crosses it.
//
// Conventions (every function):
// - Type codes are the ONNX TensorProto.DataType values; numeric buffers are the
//   library's storage (little-endian, 4- and 2-bit types packed, zero padding).
// - saturate: 0 or 1. round_mode: 0 up, 1 down, 2 nearest (RoundMode values).
// - flags: bit 0 set -> call CastLike(src, src_type, dst, dst_type, ...) instead of Cast.
// - Return value: the StatusCode (0 = OK). On error, `err` (if not null) receives the
//   NUL-terminated "CODE: message" text, cut to err_len bytes, and `*written` (if not
//   null) the Status's elements_written.
// - STRING sources are passed as `str_data` (all elements' UTF-8 bytes concatenated)
//   plus `str_offsets` (count + 1 offsets into it; element i is
//   str_data[str_offsets[i], str_offsets[i+1])).
// - STRING results come back through a handle: tc_cast_to_strings converts and keeps
//   the strings, tc_strings_total_bytes tells the size, tc_strings_fill copies them out
//   in the same data + offsets form, tc_strings_free releases the handle.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "tensorcast/cast.h"
#include "tensorcast/data_type.h"
#include "tensorcast/status.h"

#if defined(_WIN32)
#define TENSORCAST_SHIM_EXPORT extern "C" __declspec(dllexport)
#else
#define TENSORCAST_SHIM_EXPORT extern "C" __attribute__((visibility("default")))
#endif

namespace {

using tensorcast::CastOptions;
using tensorcast::DataType;
using tensorcast::RoundMode;
using tensorcast::Status;
using tensorcast::StatusCode;

constexpr int kInternalCode = static_cast<int>(StatusCode::kInternal);
constexpr int kInvalidCode = static_cast<int>(StatusCode::kInvalidArgument);

void WriteError(char* err, size_t err_len, const char* text) noexcept {
  if (err == nullptr || err_len == 0) return;
  const size_t n = std::strlen(text);
  const size_t m = n < err_len - 1 ? n : err_len - 1;
  std::memcpy(err, text, m);
  err[m] = '\0';
}

int Report(const Status& s, char* err, size_t err_len, size_t* written) noexcept {
  if (written != nullptr) *written = s.elements_written();
  if (s.ok()) {
    WriteError(err, err_len, "");
    return 0;
  }
  try {
    const std::string text = std::string(tensorcast::StatusCodeName(s.code())) + ": " + s.message();
    WriteError(err, err_len, text.c_str());
  } catch (...) {
    WriteError(err, err_len, "INTERNAL: (message lost: out of memory)");
  }
  return static_cast<int>(s.code());
}

CastOptions MakeOptions(int saturate, int round_mode) {
  CastOptions o;
  o.saturate = saturate != 0;
  // Passed through unchecked on purpose: the library must reject a bad value itself.
  o.round_mode = static_cast<RoundMode>(round_mode);
  return o;
}

Status Run(const void* src, int src_type, void* dst, int dst_type, size_t count, int saturate,
           int round_mode, int flags) {
  const CastOptions o = MakeOptions(saturate, round_mode);
  if (flags & 1) {
    return tensorcast::CastLike(src, static_cast<DataType>(src_type), dst,
                                static_cast<DataType>(dst_type), count, o);
  }
  return tensorcast::Cast(src, static_cast<DataType>(src_type), dst,
                          static_cast<DataType>(dst_type), count, o);
}

// Builds std::string elements from data + offsets. Returns false on bad offsets.
bool BuildStrings(const char* data, const uint64_t* offsets, size_t count,
                  std::vector<std::string>* out) {
  out->clear();
  if (count == 0) return true;
  if (offsets == nullptr) return false;
  out->reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (offsets[i + 1] < offsets[i]) return false;
    const size_t len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
    if (len > 0 && data == nullptr) return false;
    out->emplace_back(len > 0 ? data + offsets[i] : "", len);
  }
  return true;
}

struct StringResult {
  std::vector<std::string> values;
};

}  // namespace

// Numeric (non-STRING) source and target. With STRING codes the pointers must be
// arrays of std::string, which ctypes cannot build: use the functions below instead.
TENSORCAST_SHIM_EXPORT int tc_cast(const void* src, int src_type, void* dst, int dst_type,
                                   size_t count, int saturate, int round_mode, int flags,
                                   size_t* written, char* err, size_t err_len) {
  try {
    if (src_type == static_cast<int>(DataType::kString) ||
        dst_type == static_cast<int>(DataType::kString)) {
      WriteError(err, err_len,
                 "INVALID_ARGUMENT: shim: use tc_cast_from_strings / tc_cast_to_strings");
      if (written != nullptr) *written = 0;
      return kInvalidCode;
    }
    return Report(Run(src, src_type, dst, dst_type, count, saturate, round_mode, flags), err,
                  err_len, written);
  } catch (...) {
    WriteError(err, err_len, "INTERNAL: shim: exception");
    return kInternalCode;
  }
}

// STRING source -> numeric target.
TENSORCAST_SHIM_EXPORT int tc_cast_from_strings(const char* str_data, const uint64_t* str_offsets,
                                                void* dst, int dst_type, size_t count, int saturate,
                                                int round_mode, int flags, size_t* written,
                                                char* err, size_t err_len) {
  try {
    std::vector<std::string> src;
    if (!BuildStrings(str_data, str_offsets, count, &src)) {
      WriteError(err, err_len, "INVALID_ARGUMENT: shim: bad string offsets");
      return kInvalidCode;
    }
    return Report(Run(src.data(), static_cast<int>(DataType::kString), dst, dst_type, count,
                      saturate, round_mode, flags),
                  err, err_len, written);
  } catch (...) {
    WriteError(err, err_len, "INTERNAL: shim: exception");
    return kInternalCode;
  }
}

// Any source (numeric at `src`, or STRING from str_data/str_offsets) -> STRING target.
// On success *handle receives the result (free it with tc_strings_free); on error it is
// null. The strings of a partial result are not kept.
TENSORCAST_SHIM_EXPORT int tc_cast_to_strings(const void* src, const char* str_data,
                                              const uint64_t* str_offsets, int src_type,
                                              size_t count, int saturate, int round_mode, int flags,
                                              void** handle, size_t* written, char* err,
                                              size_t err_len) {
  if (handle != nullptr) *handle = nullptr;
  try {
    auto* result = new StringResult();
    result->values.resize(count);
    std::vector<std::string> in;
    const void* src_ptr = src;
    if (src_type == static_cast<int>(DataType::kString)) {
      if (!BuildStrings(str_data, str_offsets, count, &in)) {
        delete result;
        WriteError(err, err_len, "INVALID_ARGUMENT: shim: bad string offsets");
        return kInvalidCode;
      }
      src_ptr = in.data();
    }
    const int rc =
        Report(Run(src_ptr, src_type, result->values.data(), static_cast<int>(DataType::kString),
                   count, saturate, round_mode, flags),
               err, err_len, written);
    if (rc != 0 || handle == nullptr) {
      delete result;
    } else {
      *handle = result;
    }
    return rc;
  } catch (...) {
    WriteError(err, err_len, "INTERNAL: shim: exception");
    return kInternalCode;
  }
}

TENSORCAST_SHIM_EXPORT size_t tc_strings_count(const void* handle) {
  return handle == nullptr ? 0 : static_cast<const StringResult*>(handle)->values.size();
}

TENSORCAST_SHIM_EXPORT uint64_t tc_strings_total_bytes(const void* handle) {
  if (handle == nullptr) return 0;
  uint64_t total = 0;
  for (const std::string& s : static_cast<const StringResult*>(handle)->values) total += s.size();
  return total;
}

// Copies the strings: `data` must hold tc_strings_total_bytes bytes and `offsets`
// tc_strings_count + 1 entries.
TENSORCAST_SHIM_EXPORT void tc_strings_fill(const void* handle, char* data, uint64_t* offsets) {
  if (handle == nullptr || offsets == nullptr) return;
  const auto& values = static_cast<const StringResult*>(handle)->values;
  uint64_t pos = 0;
  offsets[0] = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].empty() && data != nullptr) {
      std::memcpy(data + pos, values[i].data(), values[i].size());
    }
    pos += values[i].size();
    offsets[i + 1] = pos;
  }
}

TENSORCAST_SHIM_EXPORT void tc_strings_free(void* handle) {
  delete static_cast<StringResult*>(handle);
}

// StorageBytes(type, count) (SIZE_MAX for STRING or invalid types).
TENSORCAST_SHIM_EXPORT size_t tc_storage_bytes(int type, size_t count) {
  if (type == static_cast<int>(DataType::kString)) return SIZE_MAX;
  return tensorcast::StorageBytes(static_cast<DataType>(type), count);
}

// The Highway target the library dispatches to; static storage.
TENSORCAST_SHIM_EXPORT const char* tc_active_target() { return tensorcast::ActiveTargetName(); }
