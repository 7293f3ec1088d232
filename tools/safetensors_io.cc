// .safetensors headers: reading (a SAX parser over nlohmann-json, so that a hostile
// header costs no more memory than the entries it describes) and writing.
#include "safetensors_io.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor_io.h"
#include "text_table.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the tensorcast CLI reads and writes little-endian data on little-endian hosts only"
#endif

namespace tensorcast {
namespace cli {
namespace {

struct DtypeName {
  const char* name;
  DataType type;
};

constexpr DtypeName kDtypes[] = {
    {"BOOL", DataType::kBool},
    {"U8", DataType::kUint8},
    {"I8", DataType::kInt8},
    {"U16", DataType::kUint16},
    {"I16", DataType::kInt16},
    {"U32", DataType::kUint32},
    {"I32", DataType::kInt32},
    {"U64", DataType::kUint64},
    {"I64", DataType::kInt64},
    {"F16", DataType::kFloat16},
    {"BF16", DataType::kBfloat16},
    {"F32", DataType::kFloat},
    {"F64", DataType::kDouble},
    {"C64", DataType::kComplex64},
    {"F8_E4M3", DataType::kFloat8E4M3FN},
    {"F8_E5M2", DataType::kFloat8E5M2},
    {"F8_E4M3FNUZ", DataType::kFloat8E4M3FNUZ},
    {"F8_E5M2FNUZ", DataType::kFloat8E5M2FNUZ},
    {"F8_E8M0", DataType::kFloat8E8M0},
    {"F4", DataType::kFloat4E2M1},
    {"F6_E2M3", DataType::kFloat6E2M3},
    {"F6_E3M2", DataType::kFloat6E3M2},
};

Status HeaderError(const std::string& path, const std::string& what) {
  return Status(StatusCode::kInvalidArgument,
                "'" + path + "' is not a valid .safetensors file: " + what);
}

// Text from the file for a message: bytes outside printable ASCII as \xNN, at most
// `limit` characters.
std::string Quoted(const std::string& text, size_t limit = 80) {
  std::string out = "'";
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == limit) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte >= 0x7F || byte == '\\') {
      out += Format("\\x%02X", byte);
    } else {
      out += text[i];
    }
  }
  return out + "'";
}

// The SAX handler: builds the entries and the metadata, and stops at the first value
// that breaks a rule, with the reason in `error`.
class HeaderSax {
 public:
  using json = nlohmann::json;

  std::vector<SafetensorsEntry> tensors;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string error;

  bool null() { return Scalar("null"); }
  bool boolean(bool) { return Scalar("a boolean"); }
  bool number_integer(json::number_integer_t v) {
    if (v >= 0) return number_unsigned(static_cast<json::number_unsigned_t>(v));
    return Scalar("a negative number");
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (state_ == State::kShape && skip_ == 0) {
      if (v > static_cast<uint64_t>(INT64_MAX)) return Fail("has a dimension above 2^63 - 1");
      if (tensors.back().dims.size() == kMaxSafetensorsRank) {
        return Fail("has more than " + std::to_string(kMaxSafetensorsRank) + " dimensions");
      }
      tensors.back().dims.push_back(static_cast<int64_t>(v));
      return true;
    }
    if (state_ == State::kOffsets && skip_ == 0) {
      if (offsets_seen_ == 2) return Fail("has more than two data_offsets");
      (offsets_seen_++ == 0 ? tensors.back().begin : tensors.back().end) = v;
      return true;
    }
    return Scalar("a number");
  }
  bool number_float(json::number_float_t, const json::string_t&) {
    return Scalar("a number that is not an integer in [0, 2^64)");
  }
  bool binary(json::binary_t&) { return Scalar("binary data"); }
  bool string(json::string_t& s) {
    if (state_ == State::kDtype && skip_ == 0) {
      state_ = State::kEntry;
      for (const DtypeName& d : kDtypes) {
        if (s == d.name) {
          tensors.back().type = d.type;
          have_dtype_ = true;
          return true;
        }
      }
      return Fail("has the unknown dtype " + Quoted(s));
    }
    if (state_ == State::kMetadataValue && skip_ == 0) {
      metadata.back().second = std::move(s);
      state_ = State::kMetadata;
      return true;
    }
    return Scalar("a string");
  }
  bool start_object(size_t) {
    if (Skipping(true)) return true;
    if (state_ == State::kStart) {
      state_ = State::kTop;
      return true;
    }
    if (state_ == State::kEntryValue) {
      state_ = State::kEntry;
      have_dtype_ = have_shape_ = have_offsets_ = false;
      offsets_seen_ = 0;
      return true;
    }
    if (state_ == State::kMetadataStart) {
      state_ = State::kMetadata;
      return true;
    }
    return Scalar("an object");
  }
  bool key(json::string_t& k) {
    if (skip_ > 0) return true;
    if (state_ == State::kTop) {
      if (k == "__metadata__") {
        if (seen_metadata_) return Fail("appears twice", "\"__metadata__\"");
        seen_metadata_ = true;
        state_ = State::kMetadataStart;
        return true;
      }
      if (!names_.insert(k).second) return Fail("appears twice", "tensor " + Quoted(k));
      tensors.emplace_back();
      tensors.back().name = std::move(k);
      state_ = State::kEntryValue;
      return true;
    }
    if (state_ == State::kMetadata) {
      if (!metadata_keys_.insert(k).second) return Fail("has the key " + Quoted(k) + " twice");
      metadata.emplace_back(std::move(k), std::string());
      state_ = State::kMetadataValue;
      return true;
    }
    // An entry's key (the only other place a key can be).
    const bool again = (k == "dtype" && have_dtype_) || (k == "shape" && have_shape_) ||
                       (k == "data_offsets" && have_offsets_);
    if (again) return Fail("has \"" + k + "\" twice");
    if (k == "dtype") {
      state_ = State::kDtype;
    } else if (k == "shape") {
      state_ = State::kShapeStart;
    } else if (k == "data_offsets") {
      state_ = State::kOffsetsStart;
    } else {
      state_ = State::kIgnored;  // another key: its value is skipped
    }
    return true;
  }
  bool end_object() {
    if (Skipping(false)) return true;
    if (state_ == State::kEntry) {
      const char* missing = !have_dtype_         ? "no dtype"
                            : !have_shape_       ? "no shape"
                            : offsets_seen_ != 2 ? "no data_offsets"
                                                 : nullptr;
      if (missing != nullptr) return Fail(std::string("has ") + missing);
      state_ = State::kTop;
    } else if (state_ == State::kMetadata) {
      state_ = State::kTop;
    } else {
      state_ = State::kDone;  // the top-level object
    }
    return true;
  }
  bool start_array(size_t) {
    if (Skipping(true)) return true;
    if (state_ == State::kShapeStart) {
      state_ = State::kShape;
      have_shape_ = true;
      return true;
    }
    if (state_ == State::kOffsetsStart) {
      state_ = State::kOffsets;
      have_offsets_ = true;
      return true;
    }
    return Scalar("an array");
  }
  bool end_array() {
    if (Skipping(false)) return true;
    if (state_ == State::kOffsets && offsets_seen_ != 2) {
      return Fail("has " + std::to_string(offsets_seen_) + " data_offsets, not 2");
    }
    state_ = State::kEntry;
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception& ex) {
    // nlohmann's message without its "[json.exception.parse_error.101] " prefix; the
    // bytes it quotes from the file are escaped.
    std::string what = ex.what();
    const size_t bracket = what.find("] ");
    if (bracket != std::string::npos) what = what.substr(bracket + 2);
    error = "invalid JSON: " + Quoted(what, 400).substr(1);
    error.pop_back();
    return false;
  }

  bool done() const { return state_ == State::kDone; }

 private:
  enum class State {
    kStart,          // before the top-level object
    kTop,            // in the top-level object: a key is next
    kEntryValue,     // after a tensor's name: its object is next
    kEntry,          // in a tensor's object
    kDtype,          // after "dtype"
    kShapeStart,     // after "shape"
    kShape,          // in the shape array
    kOffsetsStart,   // after "data_offsets"
    kOffsets,        // in the data_offsets array
    kIgnored,        // after another key of an entry: its value is skipped
    kMetadataStart,  // after "__metadata__"
    kMetadata,       // in the metadata object
    kMetadataValue,  // after a metadata key
    kDone,
  };

  // Where the current value sits, for messages.
  std::string Where() const {
    switch (state_) {
      case State::kStart:
      case State::kTop:
      case State::kDone: return "the header";
      case State::kMetadataStart:
      case State::kMetadata: return "\"__metadata__\"";
      case State::kMetadataValue: return "\"__metadata__\" key " + Quoted(metadata.back().first);
      default: return "tensor " + Quoted(tensors.back().name);
    }
  }

  bool Fail(const std::string& what, const std::string& where = "") {
    error = (where.empty() ? Where() : where) + " " + what;
    return false;
  }

  // Inside the value of an ignored key (or at its start when `opens`): counts the depth
  // and returns true.
  bool Skipping(bool opens) {
    if (skip_ == 0 && !(opens && state_ == State::kIgnored)) return false;
    if (opens) {
      ++skip_;
    } else if (--skip_ == 0) {
      state_ = State::kEntry;
    }
    return true;
  }

  // A value where the state expects another kind (or the scalar value of an ignored key).
  bool Scalar(const char* what) {
    if (skip_ > 0) return true;
    const std::string is = std::string("is ") + what;
    switch (state_) {
      case State::kIgnored: state_ = State::kEntry; return true;
      case State::kStart: return Fail(is + ", not a JSON object");
      case State::kEntryValue:
      case State::kMetadataStart: return Fail(is + ", not an object");
      case State::kDtype: return Fail(std::string("has a dtype that is ") + what);
      case State::kShapeStart:
      case State::kShape:
        return Fail(std::string("has a shape holding ") + what + " (dimensions are integers >= 0)");
      case State::kOffsetsStart:
      case State::kOffsets:
        return Fail(std::string("has data_offsets holding ") + what +
                    " (offsets are integers >= 0)");
      case State::kMetadataValue: return Fail(is + ", not a string");
      default: return Fail(std::string("holds ") + what + " where none may be");
    }
  }

  State state_ = State::kStart;
  size_t skip_ = 0;  // depth inside an ignored value
  bool seen_metadata_ = false;
  bool have_dtype_ = false, have_shape_ = false, have_offsets_ = false;
  int offsets_seen_ = 0;
  std::unordered_set<std::string> names_, metadata_keys_;
};

}  // namespace

const char* SafetensorsDtype(DataType type) {
  for (const DtypeName& d : kDtypes) {
    if (d.type == type) return d.name;
  }
  return nullptr;
}

Status ParseSafetensorsHeader(const char* json, size_t size, uint64_t data_size,
                              const std::string& path, SafetensorsHeader* out) {
  HeaderSax sax;
  const bool parsed = nlohmann::json::sax_parse(json, json + size, &sax);
  if (!parsed || !sax.done()) {
    return HeaderError(path, "header: " + (sax.error.empty() ? "incomplete JSON" : sax.error));
  }
  std::vector<SafetensorsEntry>& tensors = sax.tensors;
  for (SafetensorsEntry& t : tensors) {
    const std::string name = "tensor " + Quoted(t.name);
    Status s = ShapeElementCount(t.dims, &t.count);
    size_t bytes = 0;
    if (s.ok()) s = CheckedStorageBytes(t.type, t.count, &bytes);
    if (!s.ok())
      return HeaderError(path, name + ": shape " + ShapeString(t.dims) + ": " + s.message());
    const int bits = BitWidth(t.type);
    if (bits < 8 && (static_cast<unsigned __int128>(t.count) * bits) % 8 != 0) {
      return HeaderError(path, name + ": " + std::to_string(t.count) + " " +
                                   SafetensorsDtype(t.type) +
                                   " elements do not fill whole bytes (safetensors requires it)");
    }
    if (t.end < t.begin) {
      return HeaderError(path, name + ": data_offsets [" + std::to_string(t.begin) + ", " +
                                   std::to_string(t.end) + "] end before they begin");
    }
    if (t.end - t.begin != bytes) {
      return HeaderError(path, name + ": data_offsets [" + std::to_string(t.begin) + ", " +
                                   std::to_string(t.end) + "] hold " +
                                   std::to_string(t.end - t.begin) + " bytes, but " +
                                   SafetensorsDtype(t.type) + " " + ShapeString(t.dims) +
                                   " takes " + std::to_string(bytes));
    }
  }
  std::stable_sort(tensors.begin(), tensors.end(),
                   [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
                     return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
                   });
  uint64_t at = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const SafetensorsEntry& t = tensors[i];
    if (t.begin != at) {
      const std::string before = i == 0 ? std::string("the start of the data")
                                        : "byte " + std::to_string(at) + ", where tensor " +
                                              Quoted(tensors[i - 1].name) + " ends";
      return HeaderError(path, "tensor " + Quoted(t.name) + " begins at data byte " +
                                   std::to_string(t.begin) + ", not at " + before +
                                   (t.begin < at ? " (the tensors overlap)"
                                                 : " (a gap: the tensors must tile the data)"));
    }
    at = t.end;
  }
  if (at != data_size) {
    return HeaderError(path, "the tensors end at data byte " + std::to_string(at) +
                                 ", but the file holds " + std::to_string(data_size) +
                                 " bytes after the header");
  }
  out->tensors = std::move(tensors);
  out->metadata = std::move(sax.metadata);
  return Status::Ok();
}

Status ReadSafetensorsHeader(int fd, uint64_t file_size, const std::string& path,
                             SafetensorsHeader* out) {
  unsigned char length_bytes[8];
  if (file_size < 8) {
    return HeaderError(path, "it has " + std::to_string(file_size) +
                                 " bytes, fewer than the 8 of the header length");
  }
  if (::pread(fd, length_bytes, 8, 0) != 8) {
    return Status(StatusCode::kInvalidArgument,
                  "cannot read '" + path + "': " + std::strerror(errno ? errno : EIO));
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | length_bytes[i];
  if (n > kMaxSafetensorsHeader) {
    return HeaderError(path, "its header length " + std::to_string(n) +
                                 " is above the safetensors limit of " +
                                 std::to_string(kMaxSafetensorsHeader) + " bytes");
  }
  if (n > file_size - 8) {
    return HeaderError(path, "its header length " + std::to_string(n) +
                                 " runs past the end of the file (" + std::to_string(file_size) +
                                 " bytes)");
  }
  std::string json(static_cast<size_t>(n), '\0');
  size_t done = 0;
  while (done < json.size()) {
    const ssize_t r = ::pread(fd, &json[done], json.size() - done, static_cast<off_t>(8 + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      return Status(StatusCode::kInvalidArgument,
                    "cannot read '" + path + "': " +
                        (r == 0 ? std::string("the file shrank while it was read")
                                : std::string(std::strerror(errno))));
    }
    done += static_cast<size_t>(r);
  }
  out->data_start = 8 + n;
  return ParseSafetensorsHeader(json.data(), json.size(), file_size - 8 - n, path, out);
}

std::string SafetensorsHeaderBytes(
    const std::vector<SafetensorsEntry>& tensors,
    const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string json = "{";
  const auto quote = [](const std::string& s) { return nlohmann::json(s).dump(); };
  if (!metadata.empty()) {
    json += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      if (i > 0) json += ',';
      json += quote(metadata[i].first) + ':' + quote(metadata[i].second);
    }
    json += '}';
  }
  for (const SafetensorsEntry& t : tensors) {
    if (json.size() > 1) json += ',';
    json += quote(t.name) + ":{\"dtype\":\"" + SafetensorsDtype(t.type) + "\",\"shape\":[";
    for (size_t i = 0; i < t.dims.size(); ++i) {
      if (i > 0) json += ',';
      json += std::to_string(t.dims[i]);
    }
    json += "],\"data_offsets\":[" + std::to_string(t.begin) + ',' + std::to_string(t.end) + "]}";
  }
  json += '}';
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string bytes(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i, n >>= 8) bytes[i] = static_cast<char>(n & 0xFF);
  return bytes + json;
}

}  // namespace cli
}  // namespace tensorcast
