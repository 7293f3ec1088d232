// .npy reading and writing (numpy format versions 1.0, 2.0 and 3.0; written as 1.0,
// or 2.0 when a header does not fit 1.0's 16-bit length).
//
// File layout: "\x93NUMPY", major, minor, header length (uint16 LE in 1.0, uint32 LE in
// 2.0/3.0), then an ASCII Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a '\n' so that the data starts at a multiple of 64 bytes,
// then the elements. Unicode strings ('<U<n>') hold n UTF-32LE code points per element,
// padded with NULs.
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "file_util.h"
#include "tensor_io.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the tensorcast CLI reads and writes little-endian data on little-endian hosts only"
#endif

namespace tensorcast {
namespace cli {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;

Status NpyError(const std::string& path, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "'" + path + "' is not a valid .npy file: " + what);
}

// ---------------------------------------------------------------------------------------
// dtype descriptors

struct NpyDtype {
  DataType type = DataType::kUndefined;
  size_t itemsize = 0;  // bytes per element in the file
};

// Maps a numpy descr ('<f4', '|b1', '<U12', ...) to a tensor type.
bool ParseDescr(const std::string& descr, NpyDtype* out, std::string* why) {
  if (descr.empty()) {
    *why = "empty dtype descr";
    return false;
  }
  char order = '=';
  std::string rest = descr;
  if (std::strchr("<>|=", descr[0]) != nullptr) {
    order = descr[0];
    rest = descr.substr(1);
  }
  if (rest == "?") rest = "b1";
  if (rest.size() < 2 || rest.find_first_not_of("0123456789", 1) != std::string::npos ||
      rest.size() > 10) {
    *why = "dtype '" + descr + "' is not supported";
    return false;
  }
  const char kind = rest[0];
  const size_t size = std::stoul(rest.substr(1));
  DataType type = DataType::kUndefined;
  size_t itemsize = size;
  switch (kind) {
    case 'f':
      type = size == 2   ? DataType::kFloat16
             : size == 4 ? DataType::kFloat
             : size == 8 ? DataType::kDouble
                         : DataType::kUndefined;
      break;
    case 'i':
      type = size == 1   ? DataType::kInt8
             : size == 2 ? DataType::kInt16
             : size == 4 ? DataType::kInt32
             : size == 8 ? DataType::kInt64
                         : DataType::kUndefined;
      break;
    case 'u':
      type = size == 1   ? DataType::kUint8
             : size == 2 ? DataType::kUint16
             : size == 4 ? DataType::kUint32
             : size == 8 ? DataType::kUint64
                         : DataType::kUndefined;
      break;
    case 'b': type = size == 1 ? DataType::kBool : DataType::kUndefined; break;
    case 'c':
      type = size == 8    ? DataType::kComplex64
             : size == 16 ? DataType::kComplex128
                          : DataType::kUndefined;
      break;
    case 'U':
      type = DataType::kString;
      itemsize = size * 4;  // UTF-32 code units
      break;
    default: break;
  }
  if (type == DataType::kUndefined && kind == 'V' && size > 0) {
    // np.save writes every ml_dtypes type as raw bytes ('<V1' for float8, float6, float4,
    // int4, int2; '<V2' for bfloat16): the file does not say which type it holds.
    *why = "dtype '" + descr +
           "' is untyped raw bytes (numpy saves the ml_dtypes types bfloat16, float8, float6, "
           "float4, int4 and int2 this way, without naming the type); store such tensors in a "
           ".pb (onnx.TensorProto) file";
    return false;
  }
  if (type == DataType::kUndefined) {
    *why = "dtype '" + descr +
           "' is not supported (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 "
           "u8 b1 c8 c16 and <U unicode strings)";
    return false;
  }
  if (itemsize == 0) {  // '<U0', '|S0', '|V0': numpy never writes them
    *why = "dtype '" + descr + "' has itemsize 0";
    return false;
  }
  if (order == '>' && itemsize > 1) {
    *why = "big-endian dtype '" + descr + "' is not supported";
    return false;
  }
  out->type = type;
  out->itemsize = itemsize;
  return true;
}

// The descr written for `type`; nullptr when numpy has no such dtype.
const char* DescrFor(DataType type) {
  switch (type) {
    case DataType::kFloat16: return "<f2";
    case DataType::kFloat: return "<f4";
    case DataType::kDouble: return "<f8";
    case DataType::kInt8: return "|i1";
    case DataType::kInt16: return "<i2";
    case DataType::kInt32: return "<i4";
    case DataType::kInt64: return "<i8";
    case DataType::kUint8: return "|u1";
    case DataType::kUint16: return "<u2";
    case DataType::kUint32: return "<u4";
    case DataType::kUint64: return "<u8";
    case DataType::kBool: return "|b1";
    case DataType::kComplex64: return "<c8";
    case DataType::kComplex128: return "<c16";
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------------------
// Header dict: {'descr': <str>, 'fortran_order': <bool>, 'shape': <tuple of ints>}

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  bool Parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape, std::string* why) {
    bool have_descr = false, have_order = false, have_shape = false;
    if (!Consume('{')) return Fail("expected '{'", why);
    while (!Consume('}')) {
      std::string key;
      if (!ParseString(&key)) return Fail("expected a quoted key", why);
      if (!Consume(':')) return Fail("expected ':' after '" + key + "'", why);
      if (key == "descr") {
        if (Peek() == '[') return Fail("structured dtypes are not supported", why);
        if (!ParseString(descr)) return Fail("'descr' is not a string", why);
        have_descr = true;
      } else if (key == "fortran_order") {
        if (!ParseBool(fortran)) return Fail("'fortran_order' is not True or False", why);
        have_order = true;
      } else if (key == "shape") {
        if (!ParseShape(shape)) return Fail("'shape' is not a tuple of integers", why);
        have_shape = true;
      } else {
        return Fail("unexpected key '" + key + "'", why);
      }
      if (!Consume(',') && Peek() != '}') return Fail("expected ',' or '}'", why);
    }
    SkipSpace();
    if (pos_ != s_.size()) return Fail("text after the closing '}'", why);
    if (!have_descr || !have_order || !have_shape) {
      return Fail("the header needs the keys 'descr', 'fortran_order' and 'shape'", why);
    }
    return true;
  }

 private:
  static bool Fail(const std::string& what, std::string* why) {
    *why = "bad header: " + what;
    return false;
  }
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char Peek() {
    SkipSpace();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool ParseString(std::string* out) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return false;
    const size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    *out = std::string(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  bool ParseWord(std::string_view word) {
    SkipSpace();
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool ParseBool(bool* out) {
    if (ParseWord("True")) {
      *out = true;
      return true;
    }
    if (ParseWord("False")) {
      *out = false;
      return true;
    }
    return false;
  }
  bool ParseInt(int64_t* out) {
    SkipSpace();
    const size_t start = pos_;
    int64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const int digit = s_[pos_] - '0';
      if (v > (INT64_MAX - digit) / 10) return false;
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return false;
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 long
    *out = v;
    return true;
  }
  bool ParseShape(std::vector<int64_t>* shape) {
    shape->clear();
    if (!Consume('(')) return false;
    while (!Consume(')')) {
      int64_t d;
      if (!ParseInt(&d)) return false;
      shape->push_back(d);
      if (!Consume(',') && Peek() != ')') return false;
    }
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------
// Unicode: UTF-8 (tensor strings) <-> UTF-32LE (npy '<U')

// Calls `emit(code_point)` for each code point of strict UTF-8 (no overlong forms, no
// surrogates, <= U+10FFFF). Returns false on invalid input.
template <class Emit>
bool ForEachCodePoint(std::string_view s, Emit emit) {
  size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    uint32_t cp;
    size_t len;
    if (b0 < 0x80) {
      cp = b0;
      len = 1;
    } else if ((b0 & 0xE0) == 0xC0) {
      cp = b0 & 0x1F;
      len = 2;
    } else if ((b0 & 0xF0) == 0xE0) {
      cp = b0 & 0x0F;
      len = 3;
    } else if ((b0 & 0xF8) == 0xF0) {
      cp = b0 & 0x07;
      len = 4;
    } else
      return false;
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMinForLength[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    emit(cp);
    i += len;
  }
  return true;
}

bool AppendUtf8(uint32_t cp, std::string* out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
  return true;
}

uint32_t LoadU32LE(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

void StoreU32LE(uint32_t v, unsigned char* p) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}

// ---------------------------------------------------------------------------------------

// Reorders `count` elements of `itemsize` bytes from Fortran (column-major) to C order.
std::vector<unsigned char> FortranToC(const std::vector<unsigned char>& f,
                                      const std::vector<int64_t>& dims, size_t count,
                                      size_t itemsize) {
  std::vector<unsigned char> c(f.size());
  const size_t rank = dims.size();
  std::vector<size_t> stride(rank), index(rank, 0);  // Fortran strides in elements
  size_t s = 1;
  for (size_t k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= static_cast<size_t>(dims[k]);
  }
  size_t offset = 0;  // Fortran element offset of the C-order element i
  for (size_t i = 0; i < count; ++i) {
    std::memcpy(&c[i * itemsize], &f[offset * itemsize], itemsize);
    for (size_t k = rank; k-- > 0;) {  // odometer, last axis fastest
      if (++index[k] < static_cast<size_t>(dims[k])) {
        offset += stride[k];
        break;
      }
      offset -= stride[k] * (index[k] - 1);
      index[k] = 0;
    }
  }
  return c;
}

std::string ShapeTuple(const std::vector<int64_t>& dims) {
  if (dims.size() == 1) return "(" + std::to_string(dims[0]) + ",)";
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + ")";
}

}  // namespace

Status ReadNpy(const std::string& path, Tensor* out) {
  InputFile file;
  Status s = file.Open(path);
  if (!s.ok()) return s;
  unsigned char prelude[12];
  if (file.size() < 8) return NpyError(path, "too short for the .npy magic");
  s = file.ReadExact(prelude, 8, "the .npy magic");
  if (!s.ok()) return s;
  if (std::memcmp(prelude, kMagic, kMagicLen) != 0) return NpyError(path, "bad magic");
  const int major = prelude[6], minor = prelude[7];
  size_t header_len;
  if (major == 1) {
    s = file.ReadExact(prelude + 8, 2, "the .npy header length");
    if (!s.ok()) return s;
    header_len = prelude[8] | static_cast<size_t>(prelude[9]) << 8;
  } else if (major == 2 || major == 3) {
    s = file.ReadExact(prelude + 8, 4, "the .npy header length");
    if (!s.ok()) return s;
    header_len = LoadU32LE(prelude + 8);
  } else {
    return NpyError(
        path, "unsupported format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  if (header_len > file.remaining()) {
    return Status(StatusCode::kInvalidArgument, "truncated file '" + path +
                                                    "': the .npy header needs " +
                                                    std::to_string(header_len) + " bytes, " +
                                                    std::to_string(file.remaining()) + " remain");
  }
  std::string header(header_len, '\0');
  s = file.ReadExact(header.data(), header.size(), "the .npy header");
  if (!s.ok()) return s;

  std::string descr, why;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!HeaderParser(header).Parse(&descr, &fortran, &shape, &why)) return NpyError(path, why);
  NpyDtype dtype;
  if (!ParseDescr(descr, &dtype, &why)) return NpyError(path, why);

  size_t count = 0;
  s = ShapeElementCount(shape, &count);
  if (!s.ok()) return NpyError(path, s.message());
  if (dtype.itemsize != 0 && count > SIZE_MAX / dtype.itemsize) {
    return NpyError(path, "shape " + ShapeString(shape) + " is too large");
  }
  const size_t data_bytes = count * dtype.itemsize;
  if (data_bytes > file.remaining()) {  // checked before allocating what the shape asks for
    return Status(StatusCode::kInvalidArgument,
                  "truncated file '" + path + "': shape " + ShapeString(shape) + " of '" + descr +
                      "' needs " + std::to_string(data_bytes) + " data bytes, only " +
                      std::to_string(file.remaining()) + " follow the header");
  }
  Tensor t;
  s = AllocateTensor(dtype.type, shape, &t);
  if (!s.ok()) return NpyError(path, s.message());
  const bool reorder = fortran && shape.size() > 1;
  if (dtype.type != DataType::kString && !reorder) {
    s = file.ReadExact(t.bytes.data(), data_bytes, "the .npy data");
    if (!s.ok()) return s;
  } else {
    std::vector<unsigned char> raw(data_bytes);
    s = file.ReadExact(raw.data(), raw.size(), "the .npy data");
    if (!s.ok()) return s;
    if (reorder) raw = FortranToC(raw, shape, t.count, dtype.itemsize);
    if (dtype.type != DataType::kString) {
      t.bytes = std::move(raw);
    } else {
      const size_t width = dtype.itemsize / 4;
      for (size_t i = 0; i < t.count; ++i) {
        const unsigned char* e = raw.data() + i * dtype.itemsize;
        size_t len = width;  // numpy drops trailing NULs
        while (len > 0 && LoadU32LE(e + (len - 1) * 4) == 0) --len;
        std::string& str = t.strings[i];
        str.reserve(len);
        for (size_t k = 0; k < len; ++k) {
          if (!AppendUtf8(LoadU32LE(e + k * 4), &str)) {
            return NpyError(
                path, "element " + std::to_string(i) + " holds an invalid unicode code point");
          }
        }
      }
    }
  }
  NormalizeStorage(&t);
  *out = std::move(t);
  return Status::Ok();
}

Status WriteNpy(const std::string& path, const Tensor& t, OutputGroup* group) {
  std::string descr;
  std::vector<unsigned char> unicode;  // the '<U' payload for STRING tensors
  if (t.type == DataType::kString) {
    size_t width = 1;  // numpy's minimum for an array of empty strings
    for (size_t i = 0; i < t.count; ++i) {
      size_t n = 0;
      if (!ForEachCodePoint(t.strings[i], [&n](uint32_t) { ++n; })) {
        return Status(StatusCode::kInvalidArgument, "cannot write '" + path + "': string element " +
                                                        std::to_string(i) + " is not valid UTF-8");
      }
      // numpy pads '<U' elements with NULs, so a trailing NUL would be lost on reading.
      if (!t.strings[i].empty() && t.strings[i].back() == '\0') {
        return Status(StatusCode::kInvalidArgument,
                      "cannot write '" + path + "': string element " + std::to_string(i) +
                          " ends with a NUL byte, which .npy unicode strings cannot hold "
                          "(write a .pb file instead)");
      }
      if (n > width) width = n;
    }
    if (t.count > SIZE_MAX / 4 / width) {
      return Status(StatusCode::kOverflow, "cannot write '" + path + "': too much string data");
    }
    unicode.assign(t.count * width * 4, 0);
    for (size_t i = 0; i < t.count; ++i) {
      unsigned char* e = unicode.data() + i * width * 4;
      ForEachCodePoint(t.strings[i], [&e](uint32_t cp) {
        StoreU32LE(cp, e);
        e += 4;
      });
    }
    descr = "<U" + std::to_string(width);
  } else {
    const char* d = DescrFor(t.type);
    if (d == nullptr) {
      Status s = CheckFormatCanHold(FileFormat::kNpy, t.type, path);
      return s.ok() ? Status(StatusCode::kUnsupported, "no .npy dtype") : s;
    }
    descr = d;
  }

  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + ShapeTuple(t.dims) + ", }";
  // Version 1.0 unless the header length does not fit its 16-bit field.
  size_t prelude = kMagicLen + 2 + 2;
  size_t total = prelude + dict.size() + 1;
  const bool v2 = ((total + kAlign - 1) / kAlign) * kAlign - prelude > 0xFFFF;
  if (v2) {
    prelude += 2;
    total += 2;
  }
  dict.append((kAlign - total % kAlign) % kAlign, ' ');
  dict.push_back('\n');
  const size_t header_len = dict.size();
  std::string head(kMagic, kMagicLen);
  head.push_back(static_cast<char>(v2 ? 2 : 1));
  head.push_back('\0');
  unsigned char len_bytes[4];
  StoreU32LE(static_cast<uint32_t>(header_len), len_bytes);
  head.append(reinterpret_cast<const char*>(len_bytes), v2 ? 4 : 2);
  head += dict;

  const void* payload = t.type == DataType::kString ? static_cast<const void*>(unicode.data())
                                                    : static_cast<const void*>(t.bytes.data());
  const size_t payload_size = t.type == DataType::kString ? unicode.size() : t.bytes.size();
  const std::vector<ByteSpan> pieces = {{head.data(), head.size()}, {payload, payload_size}};
  return group != nullptr ? group->Stage(path, pieces) : WriteFileAtomic(path, pieces);
}

}  // namespace cli
}  // namespace tensorcast
