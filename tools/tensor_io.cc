// Tensor allocation and format dispatch for the tensorcast command-line program.
#include "tensor_io.h"

#include <string>
#include <utility>

namespace tensorcast {
namespace cli {
namespace {

bool EndsWithIgnoreCase(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    char c = s[s.size() - suffix.size() + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != suffix[i]) return false;
  }
  return true;
}

}  // namespace

const void* Tensor::data() const {
  if (type == DataType::kString) return strings.data();
  return bytes.data();
}

void* Tensor::data() {
  if (type == DataType::kString) return strings.data();
  return bytes.data();
}

std::string ShapeString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

Status ShapeElementCount(const std::vector<int64_t>& dims, size_t* count) {
  size_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return Status(StatusCode::kInvalidArgument,
                    "negative dimension in shape " + ShapeString(dims));
    }
    const auto ud = static_cast<uint64_t>(d);
    if (ud != 0 && n > SIZE_MAX / ud) {
      return Status(StatusCode::kOverflow, "shape " + ShapeString(dims) + " is too large");
    }
    n *= static_cast<size_t>(ud);
  }
  *count = n;
  return Status::Ok();
}

Status AllocateTensor(DataType type, std::vector<int64_t> dims, Tensor* t) {
  if (!IsValidDataType(type)) {
    return Status(StatusCode::kUnsupported, std::string("tensors of type ") + DataTypeName(type) +
                                                " (" + std::to_string(static_cast<int>(type)) +
                                                ") are not supported");
  }
  size_t count = 0;
  Status s = ShapeElementCount(dims, &count);
  if (!s.ok()) return s;
  size_t bytes = 0;
  s = CheckedStorageBytes(type, count, &bytes);
  if (!s.ok()) return s;
  t->type = type;
  t->dims = std::move(dims);
  t->count = count;
  t->bytes.clear();
  t->strings.clear();
  if (type == DataType::kString) {
    t->strings.resize(count);
  } else {
    t->bytes.assign(bytes, 0);
  }
  return Status::Ok();
}

void NormalizeStorage(Tensor* t) {
  if (t->type == DataType::kBool) {
    for (unsigned char& b : t->bytes) b = b != 0;
    return;
  }
  const int bits = BitWidth(t->type);
  if (t->type == DataType::kString || bits >= 8 || t->bytes.empty()) return;
  // Bits of the last byte that hold elements: count * bits mod 8 (0 = the byte is full).
  // count % 8 keeps the product small; 8 * bits is a multiple of 8.
  const unsigned used = static_cast<unsigned>(t->count % 8 * static_cast<size_t>(bits) % 8);
  if (used != 0) {
    t->bytes.back() &= static_cast<unsigned char>((1u << used) - 1);
  }
}

Status FormatFromPath(const std::string& path, FileFormat* format, const FileFormat* forced) {
  if (forced != nullptr) {
    *format = *forced;
    return Status::Ok();
  }
  if (path == "-") {
    return Status(StatusCode::kInvalidArgument,
                  "standard input or output (-) needs --format npy or --format pb");
  }
  if (EndsWithIgnoreCase(path, ".npy")) {
    *format = FileFormat::kNpy;
  } else if (EndsWithIgnoreCase(path, ".pb")) {
    *format = FileFormat::kPb;
  } else {
    return Status(StatusCode::kInvalidArgument,
                  "unsupported file extension in '" + path + "' (expected .npy or .pb)");
  }
  return Status::Ok();
}

Status CheckFormatCanHold(FileFormat format, DataType type, const std::string& path) {
  if (format == FileFormat::kPb) return Status::Ok();
  switch (type) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64:
    case DataType::kBool:
    case DataType::kString:
    case DataType::kComplex64:
    case DataType::kComplex128: return Status::Ok();
    default:
      return Status(StatusCode::kUnsupported, std::string("numpy has no dtype for ") +
                                                  DataTypeName(type) +
                                                  ", so it cannot be written to '" + path +
                                                  "'; write a .pb (onnx.TensorProto) file instead");
  }
}

Status ReadTensor(const std::string& path, Tensor* out, const FileFormat* forced) {
  FileFormat format;
  Status s = FormatFromPath(path, &format, forced);
  if (!s.ok()) return s;
  return format == FileFormat::kNpy ? ReadNpy(path, out) : ReadPb(path, out);
}

Status WriteTensor(const std::string& path, const Tensor& t, const FileFormat* forced,
                   OutputGroup* group) {
  FileFormat format;
  Status s = FormatFromPath(path, &format, forced);
  if (!s.ok()) return s;
  s = CheckFormatCanHold(format, t.type, path);
  if (!s.ok()) return s;
  return format == FileFormat::kNpy ? WriteNpy(path, t, group) : WritePb(path, t, group);
}

}  // namespace cli
}  // namespace tensorcast
