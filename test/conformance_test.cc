// conformance_test: runs ONNX's backend node tests ("conformance data") for Cast,
// CastLike, Split, QuantizeLinear and DequantizeLinear through tensorcast and compares
// every output element bit for bit.
//
//   conformance_test <data folder>      (or env TENSORCAST_ONNX_NODE_TESTS)
//
// The data folder is given by CMake (TENSORCAST_ONNX_NODE_TESTS; the QuantizeLinear /
// DequantizeLinear cases are test/data/onnx-qdq-node-tests, a second ctest entry). In scope:
//   <folder>/test_cast_*, <folder>/test_castlike_* (the `_expanded` twins included)
//   <folder>/test_split_*                          (Split-13 and Split-18)
//   <folder>/test_quantizelinear*, test_dequantizelinear*  (QuantizeLinear / DequantizeLinear)
//   <folder>/legacy-v1.18.0/*                      (the v1.18.0 STRING tests)
// test_split_to_sequence_* match the prefix but test the SplitToSequence op: they are
// listed as "SKIP <name>: not a Split case" and count neither as passed nor as failed.
// Each test directory holds model.onnx (a single-node graph) and test_data_set_*/ with
// input_<i>.pb and output_<j>.pb (serialized onnx.TensorProto).
//
// Output: one "PASS <name>", "FAIL <name>: <why>" or "SKIP <name>: <why>" line per test,
// then "conformance: N cases, N skipped" and "N passed, N failed" (CI parses the last
// line).
// Exit status: 0 when every case passed and at least one ran, 1 otherwise, and 77 when
// the data folder is absent (ctest reports the test as skipped).
//
// Adding another operator means: a prefix in kTopLevelPrefixes, and an entry in kOps
// with a function that turns the node's input tensors into its outputs (or, for an
// operator that only shares the prefix, an entry without a function and a skip reason).
// Loading, the per-case loop and the comparison do not depend on the operator.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "tensorcast/cast.h"
#include "tensorcast/data_type.h"
#include "tensorcast/quantize.h"
#include "tensorcast/split.h"
#include "tensorcast/status.h"

namespace {

namespace fs = std::filesystem;
using tensorcast::DataType;

constexpr int kSkipExitCode = 77;

// Top-level test directories in scope, by name prefix.
constexpr const char* kTopLevelPrefixes[] = {"test_cast_", "test_castlike_", "test_split_",
                                             "test_quantizelinear", "test_dequantizelinear"};
// Sub-folder whose every directory is a test (ONNX v1.18.0 string tests).
constexpr const char* kLegacyFolder = "legacy-v1.18.0";
// Files larger than this are treated as corrupt rather than read.
constexpr std::uintmax_t kMaxFileBytes = 256u << 20;

// ---------------------------------------------------------------------------------------
// Tensors

// One tensor in the layout tensorcast expects: numeric elements packed little-endian in
// `bytes` (StorageBytes(type, count) bytes, sub-byte padding bits zero), or `strings`.
struct Tensor {
  DataType type = DataType::kUndefined;
  std::vector<int64_t> dims;
  size_t count = 0;
  std::vector<uint8_t> bytes;
  std::vector<std::string> strings;

  const void* data() const {
    return type == DataType::kString ? static_cast<const void*>(strings.data())
                                     : static_cast<const void*>(bytes.data());
  }
  void* mutable_data() {
    return type == DataType::kString ? static_cast<void*>(strings.data())
                                     : static_cast<void*>(bytes.data());
  }
};

// "FLOAT (1)".
std::string TypeLabel(DataType type) {
  return std::string(tensorcast::DataTypeName(type)) + " (" +
         std::to_string(static_cast<int>(type)) + ")";
}

std::string DimsLabel(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

std::string StatusLabel(const tensorcast::Status& status) {
  return std::string(tensorcast::StatusCodeName(status.code())) + ": " + status.message();
}

// Allocates storage for `count` elements of `type` (zero-filled / empty strings).
bool AllocateTensor(DataType type, size_t count, Tensor* tensor, std::string* error) {
  tensor->type = type;
  tensor->count = count;
  tensor->bytes.clear();
  tensor->strings.clear();
  if (type == DataType::kString) {
    tensor->strings.resize(count);
    return true;
  }
  size_t bytes = 0;
  const tensorcast::Status status = tensorcast::CheckedStorageBytes(type, count, &bytes);
  if (!status.ok()) {
    *error = "cannot size " + std::to_string(count) + " elements of " + TypeLabel(type) + ": " +
             StatusLabel(status);
    return false;
  }
  tensor->bytes.assign(bytes, 0);
  return true;
}

// Sub-byte types: clears the unused high bits of the last byte (readers ignore them).
void ClearPaddingBits(Tensor* tensor) {
  const int bits = tensorcast::BitWidth(tensor->type);
  if (bits >= 8 || bits <= 0 || tensor->bytes.empty()) return;
  const size_t used_bits = (tensor->count * static_cast<size_t>(bits)) % 8;
  if (used_bits != 0) tensor->bytes.back() &= static_cast<uint8_t>((1u << used_bits) - 1);
}

// The bits of element `index` as hex, most significant digit first ("0x7fc00000";
// "0xf" for a 4-bit element, "0x3" for a 2-bit one).
std::string ElementHex(const Tensor& tensor, size_t index) {
  static const char kDigits[] = "0123456789abcdef";
  const int bits = tensorcast::BitWidth(tensor.type);
  std::string out = "0x";
  if (bits == 4 || bits == 2) {
    const size_t per_byte = 8 / static_cast<size_t>(bits);
    const unsigned shift = static_cast<unsigned>((index % per_byte) * static_cast<size_t>(bits));
    const unsigned value = (tensor.bytes[index / per_byte] >> shift) & ((1u << bits) - 1);
    out += kDigits[value];
    return out;
  }
  const size_t width = static_cast<size_t>(bits) / 8;
  for (size_t b = width; b-- > 0;) {
    const uint8_t byte = tensor.bytes[index * width + b];
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0xF];
  }
  return out;
}

// A string in double quotes, with quotes, backslashes and non-printable bytes escaped.
std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7F) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\x%02x", u);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string ElementLabel(const Tensor& tensor, size_t index) {
  return tensor.type == DataType::kString ? Quote(tensor.strings[index])
                                          : ElementHex(tensor, index);
}

// ---------------------------------------------------------------------------------------
// Reading files

bool ReadFile(const fs::path& path, std::string* contents, std::string* error) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) {
    *error = "cannot stat " + path.string() + ": " + ec.message();
    return false;
  }
  if (size > kMaxFileBytes) {
    *error = path.string() + " is too large (" + std::to_string(size) + " bytes)";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open " + path.string();
    return false;
  }
  contents->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) {
    *error = "cannot read " + path.string();
    return false;
  }
  return true;
}

template <typename Message>
bool ParseProtoFile(const fs::path& path, Message* message, std::string* error) {
  std::string contents;
  if (!ReadFile(path, &contents, error)) return false;
  if (!message->ParseFromString(contents)) {
    *error = "cannot parse " + path.filename().string() + " as " + message->GetTypeName();
    return false;
  }
  return true;
}

// Copies a typed repeated field (int32_data, float_data, ...) into `tensor->bytes`:
// `expected` values, each stored as its low `width` bytes, little-endian.
template <typename Field>
bool CopyTypedField(const Field& field, const char* field_name, size_t expected, size_t width,
                    Tensor* tensor, std::string* error) {
  if (static_cast<size_t>(field.size()) != expected) {
    *error = std::string(field_name) + " has " + std::to_string(field.size()) +
             " values, expected " + std::to_string(expected) + " for " + TypeLabel(tensor->type) +
             DimsLabel(tensor->dims);
    return false;
  }
  if (expected * width != tensor->bytes.size()) {
    *error = std::string(field_name) + ": storage size mismatch for " + TypeLabel(tensor->type);
    return false;
  }
  for (size_t i = 0; i < expected; ++i) {
    uint64_t bits = 0;
    const auto value = field.Get(static_cast<int>(i));
    static_assert(sizeof(value) <= sizeof(bits), "field value wider than 64 bits");
    std::memcpy(&bits, &value, sizeof(value));  // little-endian host assumed (x86, arm64)
    for (size_t b = 0; b < width; ++b) {
      tensor->bytes[i * width + b] = static_cast<uint8_t>(bits >> (8 * b));
    }
  }
  return true;
}

// Fills `tensor->bytes`/`strings` from the typed field that onnx.proto assigns to the
// tensor's type (onnx.proto: TensorProto's typed data fields).
bool ReadTypedFields(const onnx::TensorProto& proto, Tensor* tensor, std::string* error) {
  const size_t n = tensor->count;
  const size_t packed_bytes = tensor->bytes.size();  // for 4- and 2-bit types
  switch (tensor->type) {
    case DataType::kString:
      if (static_cast<size_t>(proto.string_data_size()) != n) {
        *error = "string_data has " + std::to_string(proto.string_data_size()) +
                 " values, expected " + std::to_string(n);
        return false;
      }
      tensor->strings.assign(proto.string_data().begin(), proto.string_data().end());
      return true;
    case DataType::kFloat:
      return CopyTypedField(proto.float_data(), "float_data", n, 4, tensor, error);
    case DataType::kComplex64:
      return CopyTypedField(proto.float_data(), "float_data", 2 * n, 4, tensor, error);
    case DataType::kDouble:
      return CopyTypedField(proto.double_data(), "double_data", n, 8, tensor, error);
    case DataType::kComplex128:
      return CopyTypedField(proto.double_data(), "double_data", 2 * n, 8, tensor, error);
    case DataType::kInt64:
      return CopyTypedField(proto.int64_data(), "int64_data", n, 8, tensor, error);
    case DataType::kUint32:
      return CopyTypedField(proto.uint64_data(), "uint64_data", n, 4, tensor, error);
    case DataType::kUint64:
      return CopyTypedField(proto.uint64_data(), "uint64_data", n, 8, tensor, error);
    case DataType::kInt32:
      return CopyTypedField(proto.int32_data(), "int32_data", n, 4, tensor, error);
    case DataType::kInt16:
    case DataType::kUint16:
    case DataType::kFloat16:
    case DataType::kBfloat16:
      return CopyTypedField(proto.int32_data(), "int32_data", n, 2, tensor, error);
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kBool:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
      return CopyTypedField(proto.int32_data(), "int32_data", n, 1, tensor, error);
    case DataType::kUint4:
    case DataType::kInt4:
    case DataType::kFloat4E2M1:
    case DataType::kUint2:
    case DataType::kInt2:
      // Each int32 holds one packed byte (two 4-bit or four 2-bit elements).
      return CopyTypedField(proto.int32_data(), "int32_data", packed_bytes, 1, tensor, error);
    case DataType::kFloat6E2M3:
    case DataType::kFloat6E3M2: {
      // One element per int32 (its low 6 bits), packed here into the 6-bit stream.
      if (static_cast<size_t>(proto.int32_data_size()) != n) {
        *error = "int32_data has " + std::to_string(proto.int32_data_size()) +
                 " values, expected " + std::to_string(n);
        return false;
      }
      std::fill(tensor->bytes.begin(), tensor->bytes.end(), uint8_t{0});
      for (size_t i = 0; i < n; ++i) {
        const auto code = static_cast<uint32_t>(proto.int32_data(static_cast<int>(i))) & 0x3F;
        const size_t bit = 6 * i;
        tensor->bytes[bit / 8] = static_cast<uint8_t>(tensor->bytes[bit / 8] | code << (bit % 8));
        if (bit % 8 > 2) tensor->bytes[bit / 8 + 1] = static_cast<uint8_t>(code >> (8 - bit % 8));
      }
      return true;
    }
    case DataType::kUndefined: break;
  }
  *error = "no typed field for " + TypeLabel(tensor->type);
  return false;
}

// Converts a TensorProto into a Tensor, checking everything a corrupt file could break.
bool TensorFromProto(const onnx::TensorProto& proto, Tensor* tensor, std::string* error) {
  const auto type = static_cast<DataType>(proto.data_type());
  if (!tensorcast::IsValidDataType(type)) {
    *error = "unknown data_type " + std::to_string(proto.data_type());
    return false;
  }
  if (proto.has_segment()) {
    *error = "segmented tensors are not supported";
    return false;
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    *error = "external data is not supported";
    return false;
  }
  tensor->dims.assign(proto.dims().begin(), proto.dims().end());
  size_t count = 1;
  for (const int64_t dim : proto.dims()) {
    if (dim < 0) {
      *error = "negative dimension in " + DimsLabel(tensor->dims);
      return false;
    }
    const auto d = static_cast<uint64_t>(dim);
    if (d != 0 && count > SIZE_MAX / d) {
      *error = "element count of " + DimsLabel(tensor->dims) + " overflows";
      return false;
    }
    count *= static_cast<size_t>(d);
  }
  if (proto.has_raw_data()) {
    if (type == DataType::kString) {
      *error = "STRING tensor with raw_data";
      return false;
    }
    // Size the tensor from the bytes present first, so a huge shape cannot allocate.
    size_t expected_bytes = 0;
    const tensorcast::Status status = tensorcast::CheckedStorageBytes(type, count, &expected_bytes);
    if (!status.ok() || expected_bytes != proto.raw_data().size()) {
      *error = "raw_data has " + std::to_string(proto.raw_data().size()) + " bytes, expected " +
               (status.ok() ? std::to_string(expected_bytes) : StatusLabel(status)) + " for " +
               TypeLabel(type) + DimsLabel(tensor->dims);
      return false;
    }
    if (!AllocateTensor(type, count, tensor, error)) return false;
    std::memcpy(tensor->bytes.data(), proto.raw_data().data(), expected_bytes);
  } else {
    // A typed field holds one value per element (one per packed byte for the sub-byte
    // types), so the file bounds the element count. Check that before allocating.
    const int bits = tensorcast::BitWidth(type);
    const size_t elements_per_value = bits > 0 && bits < 8 ? 8 / static_cast<size_t>(bits) : 1;
    const size_t values = static_cast<size_t>(
        std::max({proto.float_data_size(), proto.int32_data_size(), proto.string_data_size(),
                  proto.int64_data_size(), proto.double_data_size(), proto.uint64_data_size()}));
    if (count > values * elements_per_value) {
      *error = "tensor " + TypeLabel(type) + DimsLabel(tensor->dims) + " has " +
               std::to_string(count) + " elements but only " + std::to_string(values) +
               " stored values";
      return false;
    }
    if (!AllocateTensor(type, count, tensor, error)) return false;
    if (!ReadTypedFields(proto, tensor, error)) return false;
  }
  ClearPaddingBits(tensor);
  return true;
}

bool LoadTensor(const fs::path& path, Tensor* tensor, std::string* error) {
  onnx::TensorProto proto;
  if (!ParseProtoFile(path, &proto, error)) return false;
  if (!TensorFromProto(proto, tensor, error)) {
    *error = path.filename().string() + ": " + *error;
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Operators

// A node ready to run: its attributes are in `node`, its inputs are aligned with
// node.input() (null for an omitted optional input).
struct NodeRun {
  const onnx::NodeProto& node;
  int64_t opset;  // of the default ONNX domain
  std::vector<const Tensor*> inputs;
};

// Computes the node's outputs, aligned with node.output().
using OpFunction = bool (*)(const NodeRun& run, std::vector<Tensor>* outputs, std::string* error);

struct CastAttributes {
  DataType to = DataType::kUndefined;  // Cast only
  tensorcast::CastOptions options;     // saturate = 1, round_mode = "up" by default
};

// Reads `to` (Cast only; INT, or Cast-1's STRING type name), `saturate` (INT) and
// `round_mode` (STRING). Any other attribute is an error.
bool ReadCastAttributes(const onnx::NodeProto& node, bool cast_like, CastAttributes* attrs,
                        std::string* error) {
  bool have_to = false;
  for (const onnx::AttributeProto& attr : node.attribute()) {
    const std::string& name = attr.name();
    if (name == "to" && !cast_like) {
      if (attr.type() == onnx::AttributeProto::INT) {
        attrs->to = static_cast<DataType>(attr.i());
        if (attr.i() < 0 || attr.i() > tensorcast::kMaxDataTypeCode ||
            !tensorcast::IsValidDataType(attrs->to)) {
          *error = "attribute to: invalid type code " + std::to_string(attr.i());
          return false;
        }
      } else if (attr.type() == onnx::AttributeProto::STRING) {
        const tensorcast::Status status = tensorcast::ParseDataType(attr.s(), &attrs->to);
        if (!status.ok()) {
          *error = "attribute to: " + StatusLabel(status);
          return false;
        }
      } else {
        *error = "attribute to: expected INT or STRING";
        return false;
      }
      have_to = true;
    } else if (name == "saturate") {
      if (attr.type() != onnx::AttributeProto::INT) {
        *error = "attribute saturate: expected INT";
        return false;
      }
      attrs->options.saturate = attr.i() != 0;
    } else if (name == "round_mode") {
      if (attr.type() != onnx::AttributeProto::STRING) {
        *error = "attribute round_mode: expected STRING";
        return false;
      }
      const tensorcast::Status status =
          tensorcast::ParseRoundMode(attr.s(), &attrs->options.round_mode);
      if (!status.ok()) {
        *error = "attribute round_mode: " + StatusLabel(status);
        return false;
      }
    } else {
      *error = "unexpected attribute \"" + name + "\" on " + node.op_type();
      return false;
    }
  }
  if (!cast_like && !have_to) {
    *error = "Cast node without attribute to";
    return false;
  }
  return true;
}

// Cast and CastLike: one output, element-wise, same shape as input 0.
bool RunCastOrCastLike(const NodeRun& run, bool cast_like, std::vector<Tensor>* outputs,
                       std::string* error) {
  const size_t arity = cast_like ? 2 : 1;
  if (run.inputs.size() != arity || run.node.output_size() != 1) {
    *error = run.node.op_type() + " node with " + std::to_string(run.inputs.size()) +
             " inputs and " + std::to_string(run.node.output_size()) + " outputs";
    return false;
  }
  for (const Tensor* input : run.inputs) {
    if (input == nullptr) {
      *error = run.node.op_type() + " node with an omitted input";
      return false;
    }
  }
  CastAttributes attrs;
  if (!ReadCastAttributes(run.node, cast_like, &attrs, error)) return false;
  const Tensor& src = *run.inputs[0];
  const DataType to = cast_like ? run.inputs[1]->type : attrs.to;

  const tensorcast::Status opset_status =
      tensorcast::CheckCastOpset(static_cast<int>(run.opset), src.type, to, cast_like);
  if (!opset_status.ok()) {
    *error = "CheckCastOpset(" + std::to_string(run.opset) + ", " + TypeLabel(src.type) + ", " +
             TypeLabel(to) + "): " + StatusLabel(opset_status);
    return false;
  }

  outputs->assign(1, Tensor());
  Tensor& dst = outputs->front();
  if (!AllocateTensor(to, src.count, &dst, error)) return false;
  dst.dims = src.dims;
  tensorcast::Status status;
  try {
    status = cast_like ? tensorcast::CastLike(src.data(), src.type, dst.mutable_data(), to,
                                              src.count, attrs.options)
                       : tensorcast::Cast(src.data(), src.type, dst.mutable_data(), to, src.count,
                                          attrs.options);
  } catch (const std::exception& e) {
    *error = std::string("the library threw: ") + e.what();
    return false;
  } catch (...) {
    *error = "the library threw a non-std exception";
    return false;
  }
  if (!status.ok()) {
    *error = std::string(cast_like ? "CastLike" : "Cast") + "(" + TypeLabel(src.type) + " -> " +
             TypeLabel(to) + ", saturate=" + (attrs.options.saturate ? "1" : "0") +
             ", round_mode=" + tensorcast::RoundModeName(attrs.options.round_mode) + ") returned " +
             StatusLabel(status);
    return false;
  }
  return true;
}

bool RunCast(const NodeRun& run, std::vector<Tensor>* outputs, std::string* error) {
  return RunCastOrCastLike(run, /*cast_like=*/false, outputs, error);
}

bool RunCastLike(const NodeRun& run, std::vector<Tensor>* outputs, std::string* error) {
  return RunCastOrCastLike(run, /*cast_like=*/true, outputs, error);
}

// ---------------------------------------------------------------------------------------
// Split

// The node's `axis` (INT), `num_outputs` (INT) and `split` (INTS) attributes. Any other
// attribute is an error; which of them an opset allows is for tensorcast::SplitSizes.
struct SplitNodeAttributes {
  int64_t axis = 0;  // default 0 (Split-2 and later)
  bool has_num_outputs = false;
  int64_t num_outputs = 0;
  bool has_split = false;  // the attribute (Split-1, 2, 11)
  std::vector<int64_t> split;
};

bool ReadSplitAttributes(const onnx::NodeProto& node, SplitNodeAttributes* attrs,
                         std::string* error) {
  for (const onnx::AttributeProto& attr : node.attribute()) {
    const std::string& name = attr.name();
    if (name == "axis" || name == "num_outputs") {
      if (attr.type() != onnx::AttributeProto::INT) {
        *error = "attribute " + name + ": expected INT";
        return false;
      }
      if (name == "axis") {
        attrs->axis = attr.i();
      } else {
        attrs->has_num_outputs = true;
        attrs->num_outputs = attr.i();
      }
    } else if (name == "split") {
      if (attr.type() != onnx::AttributeProto::INTS) {
        *error = "attribute split: expected INTS";
        return false;
      }
      attrs->has_split = true;
      attrs->split.assign(attr.ints().begin(), attr.ints().end());
    } else {
      *error = "unexpected attribute \"" + name + "\" on " + node.op_type();
      return false;
    }
  }
  return true;
}

// The values of the optional `split` input: tensor(int64) from Split-13; Split-1 took a
// float tensor, converted here with Cast's truncation toward zero.
bool ReadSplitInput(const Tensor& tensor, int64_t opset, std::vector<int64_t>* split,
                    std::string* error) {
  split->assign(tensor.count, 0);
  if (tensor.type == DataType::kInt64) {
    if (tensor.count > 0) std::memcpy(split->data(), tensor.bytes.data(), tensor.count * 8);
    return true;
  }
  if (opset >= 13) {
    *error = "split input of type " + TypeLabel(tensor.type) + ", expected INT64 (7)";
    return false;
  }
  const tensorcast::Status status =
      tensorcast::Cast(tensor.data(), tensor.type, split->data(), DataType::kInt64, tensor.count);
  if (!status.ok()) {
    *error = "split input of type " + TypeLabel(tensor.type) + ": " + StatusLabel(status);
    return false;
  }
  return true;
}

// Split: input 0 is the tensor, input 1 the optional `split` sizes; one output per node
// output. The sizes come from the library's opset helper (tensorcast::SplitSizes: opset,
// axis, split attribute or input, num_outputs, number of node outputs), the data from
// tensorcast::Split.
bool RunSplit(const NodeRun& run, std::vector<Tensor>* outputs, std::string* error) {
  if (run.inputs.empty() || run.inputs.size() > 2 || run.inputs[0] == nullptr) {
    *error = "Split node with " + std::to_string(run.inputs.size()) + " inputs";
    return false;
  }
  SplitNodeAttributes attrs;
  if (!ReadSplitAttributes(run.node, &attrs, error)) return false;
  const Tensor& src = *run.inputs[0];
  const Tensor* split_input = run.inputs.size() > 1 ? run.inputs[1] : nullptr;
  if (split_input != nullptr) {
    if (attrs.has_split) {
      *error = "Split node with both a split input and a split attribute";
      return false;
    }
    if (!ReadSplitInput(*split_input, run.opset, &attrs.split, error)) return false;
    attrs.has_split = true;
  }

  tensorcast::SplitAttributes query;
  query.opset = static_cast<int>(run.opset);
  query.axis = attrs.axis;
  query.has_split = attrs.has_split;
  query.split = attrs.split.data();
  query.split_count = attrs.split.size();
  query.has_num_outputs = attrs.has_num_outputs;
  query.num_outputs = attrs.num_outputs;
  query.output_count = static_cast<size_t>(run.node.output_size());
  std::vector<int64_t> sizes(query.output_count, -1);
  const tensorcast::Status sizes_status =
      tensorcast::SplitSizes(query, src.dims.data(), src.dims.size(), sizes.data());
  if (!sizes_status.ok()) {
    *error = "SplitSizes(opset " + std::to_string(run.opset) + ", " + TypeLabel(src.type) +
             DimsLabel(src.dims) + ", axis " + std::to_string(attrs.axis) + ", " +
             std::to_string(query.output_count) + " outputs) returned " + StatusLabel(sizes_status);
    return false;
  }
  const auto rank = static_cast<int64_t>(src.dims.size());
  const int64_t axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
  if (axis < 0 || axis >= rank) {
    *error = "axis " + std::to_string(attrs.axis) + " out of range for rank " +
             std::to_string(rank) + " (SplitSizes accepted it)";
    return false;
  }

  outputs->assign(sizes.size(), Tensor());
  std::vector<void*> pointers(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    Tensor& out = (*outputs)[i];
    out.dims = src.dims;
    out.dims[static_cast<size_t>(axis)] = sizes[i];
    size_t count = 1;
    for (const int64_t dim : out.dims) {
      if (dim < 0) {
        *error = "SplitSizes gave a negative size for output " + std::to_string(i);
        return false;
      }
      count *= static_cast<size_t>(dim);  // at most the input's count: sizes add up to it
    }
    if (!AllocateTensor(src.type, count, &out, error)) return false;  // keeps out.dims
    pointers[i] = out.mutable_data();
  }
  tensorcast::Status status;
  try {
    status = tensorcast::Split(src.data(), src.type, src.dims.data(), src.dims.size(), attrs.axis,
                               sizes.data(), sizes.size(), pointers.data());
  } catch (const std::exception& e) {
    *error = std::string("the library threw: ") + e.what();
    return false;
  } catch (...) {
    *error = "the library threw a non-std exception";
    return false;
  }
  if (!status.ok()) {
    std::string list;
    for (const int64_t size : sizes) list += (list.empty() ? "" : ", ") + std::to_string(size);
    *error = "Split(" + TypeLabel(src.type) + DimsLabel(src.dims) + ", axis " +
             std::to_string(attrs.axis) + ", sizes [" + list + "]) returned " + StatusLabel(status);
    return false;
  }
  return true;
}

// QuantizeLinear / DequantizeLinear: inputs x, scale and an optional zero point; the
// attributes axis, block_size, output_dtype, saturate and precision.
bool RunQuantizeOrDequantize(const NodeRun& run, bool quantize, std::vector<Tensor>* outputs,
                             std::string* error) {
  if (run.inputs.size() < 2 || run.inputs.size() > 3 || run.inputs[0] == nullptr ||
      run.inputs[1] == nullptr || run.node.output_size() != 1) {
    *error = run.node.op_type() + " node with " + std::to_string(run.inputs.size()) + " inputs";
    return false;
  }
  tensorcast::QuantizeAttributes attrs;
  attrs.opset = static_cast<int>(run.opset);
  for (const onnx::AttributeProto& attr : run.node.attribute()) {
    if (attr.type() != onnx::AttributeProto::INT) {
      *error = "attribute " + attr.name() + ": expected INT";
      return false;
    }
    const std::string& name = attr.name();
    if (name == "axis") {
      attrs.axis = attr.i();
    } else if (name == "block_size") {
      attrs.block_size = attr.i();
    } else if (name == "output_dtype") {
      attrs.output_dtype = static_cast<DataType>(attr.i());
    } else if (name == "saturate" && quantize) {
      attrs.saturate = attr.i() != 0;
    } else if (name == "precision" && quantize) {
      attrs.precision = static_cast<DataType>(attr.i());
    } else {
      *error = "unexpected attribute \"" + name + "\" on " + run.node.op_type();
      return false;
    }
  }
  const auto view = [](const Tensor& t) {
    tensorcast::TensorView v;
    v.data = t.data();
    v.type = t.type;
    v.shape = t.dims.data();
    v.rank = t.dims.size();
    return v;
  };
  const Tensor& x = *run.inputs[0];
  const tensorcast::TensorView xv = view(x), sv = view(*run.inputs[1]);
  const Tensor* zp = run.inputs.size() > 2 ? run.inputs[2] : nullptr;
  tensorcast::TensorView zv;
  if (zp != nullptr) zv = view(*zp);
  DataType y_type = DataType::kUndefined;
  tensorcast::Status status =
      quantize ? tensorcast::QuantizeLinearOutputType(
                     attrs, zp != nullptr ? zp->type : DataType::kUndefined, &y_type)
               : tensorcast::DequantizeLinearOutputType(attrs, run.inputs[1]->type, &y_type);
  if (status.ok()) {
    outputs->assign(1, Tensor());
    Tensor& y = outputs->front();
    if (!AllocateTensor(y_type, x.count, &y, error)) return false;
    y.dims = x.dims;
    status = quantize ? tensorcast::QuantizeLinear(xv, sv, zp != nullptr ? &zv : nullptr,
                                                   y.mutable_data(), y_type, attrs)
                      : tensorcast::DequantizeLinear(xv, sv, zp != nullptr ? &zv : nullptr,
                                                     y.mutable_data(), y_type, attrs);
  }
  if (!status.ok()) {
    *error = run.node.op_type() + "(" + TypeLabel(x.type) + DimsLabel(x.dims) + ") returned " +
             StatusLabel(status);
    return false;
  }
  return true;
}

bool RunQuantizeLinear(const NodeRun& run, std::vector<Tensor>* outputs, std::string* error) {
  return RunQuantizeOrDequantize(run, /*quantize=*/true, outputs, error);
}

bool RunDequantizeLinear(const NodeRun& run, std::vector<Tensor>* outputs, std::string* error) {
  return RunQuantizeOrDequantize(run, /*quantize=*/false, outputs, error);
}

struct OpEntry {
  const char* op_type;
  // Null for an operator that is not tested here although its directories match a
  // prefix in kTopLevelPrefixes; such cases are reported as SKIP with `skip_reason`.
  OpFunction run;
  // Output element i depends only on input 0's element i: a mismatch report then also
  // shows that input element.
  bool elementwise;
  const char* skip_reason;
};

constexpr OpEntry kOps[] = {
    {"Cast", RunCast, true, nullptr},
    {"CastLike", RunCastLike, true, nullptr},
    {"Split", RunSplit, false, nullptr},
    {"QuantizeLinear", RunQuantizeLinear, false, nullptr},
    {"DequantizeLinear", RunDequantizeLinear, false, nullptr},
    // test_split_to_sequence_*: the SplitToSequence op (opset 24), whose output is a
    // sequence, not Split.
    {"SplitToSequence", nullptr, false, "not a Split case (SplitToSequence op)"},
};

const OpEntry* FindOp(const std::string& op_type) {
  for (const OpEntry& op : kOps) {
    if (op_type == op.op_type) return &op;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------
// Comparing

// Checks `got` against `expected`: type, shape, every element bit for bit (strings
// exactly), and the zero padding of packed types. On a mismatch, describes the first
// differing element (and the input element it came from when `source` is given).
bool CompareTensors(const Tensor& expected, const Tensor& got, const Tensor* source,
                    std::string* error) {
  if (got.type != expected.type) {
    *error = "type: expected " + TypeLabel(expected.type) + ", got " + TypeLabel(got.type);
    return false;
  }
  if (got.dims != expected.dims || got.count != expected.count) {
    *error = "shape: expected " + DimsLabel(expected.dims) + ", got " + DimsLabel(got.dims);
    return false;
  }
  size_t first = expected.count;
  size_t differing = 0;
  for (size_t i = 0; i < expected.count; ++i) {
    const bool equal = expected.type == DataType::kString
                           ? expected.strings[i] == got.strings[i]
                           : ElementHex(expected, i) == ElementHex(got, i);
    if (!equal) {
      if (differing == 0) first = i;
      ++differing;
    }
  }
  if (differing > 0) {
    std::ostringstream out;
    out << "element " << first;
    if (source != nullptr && first < source->count) {
      out << " (input " << TypeLabel(source->type) << " " << ElementLabel(*source, first) << ")";
    }
    out << ": expected " << ElementLabel(expected, first) << ", got " << ElementLabel(got, first)
        << " [" << differing << " of " << expected.count << " elements differ]";
    *error = out.str();
    return false;
  }
  if (got.bytes != expected.bytes) {  // elements equal: only padding bits can differ
    std::ostringstream out;
    out << "padding bits of the last byte are not zero: got 0x" << std::hex
        << static_cast<unsigned>(got.bytes.back());
    *error = out.str();
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------
// Test cases

struct Model {
  onnx::ModelProto proto;
  const OpEntry* op = nullptr;
  int64_t opset = 0;
};

bool LoadModel(const fs::path& dir, Model* model, std::string* error) {
  if (!ParseProtoFile(dir / "model.onnx", &model->proto, error)) return false;
  const onnx::GraphProto& graph = model->proto.graph();
  if (graph.node_size() != 1) {
    *error = "model.onnx: expected a single-node graph, found " +
             std::to_string(graph.node_size()) + " nodes";
    return false;
  }
  const onnx::NodeProto& node = graph.node(0);
  if (!node.domain().empty() && node.domain() != "ai.onnx") {
    *error = "model.onnx: node in domain \"" + node.domain() + "\"";
    return false;
  }
  model->op = FindOp(node.op_type());
  if (model->op == nullptr) {
    *error = "model.onnx: operator " + node.op_type() + " is not covered by this runner";
    return false;
  }
  for (const onnx::OperatorSetIdProto& opset : model->proto.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") model->opset = opset.version();
  }
  if (model->opset <= 0) {
    *error = "model.onnx: no opset_import for the default domain";
    return false;
  }
  return true;
}

// Index of the value info named `name` in `values` (graph inputs or outputs), or -1.
template <typename Values>
int FindByName(const Values& values, const std::string& name) {
  for (int i = 0; i < values.size(); ++i) {
    if (values.Get(i).name() == name) return i;
  }
  return -1;
}

// Loads <data_set>/<prefix>_<i>.pb for each graph value i and checks each tensor's type
// against the element type the graph declares.
template <typename Values>
bool LoadDataSetTensors(const fs::path& data_set, const char* prefix, const Values& values,
                        std::vector<Tensor>* tensors, std::string* error) {
  tensors->assign(static_cast<size_t>(values.size()), Tensor());
  for (int i = 0; i < values.size(); ++i) {
    const std::string file = std::string(prefix) + "_" + std::to_string(i) + ".pb";
    Tensor& tensor = (*tensors)[static_cast<size_t>(i)];
    if (!LoadTensor(data_set / file, &tensor, error)) return false;
    const onnx::ValueInfoProto& info = values.Get(i);
    if (info.type().has_tensor_type() &&
        info.type().tensor_type().elem_type() != static_cast<int>(tensor.type)) {
      *error = file + ": type " + TypeLabel(tensor.type) + " but the graph declares " +
               TypeLabel(static_cast<DataType>(info.type().tensor_type().elem_type())) + " for " +
               info.name();
      return false;
    }
  }
  return true;
}

bool RunDataSet(const Model& model, const fs::path& data_set, std::string* error) {
  const onnx::GraphProto& graph = model.proto.graph();
  const onnx::NodeProto& node = graph.node(0);

  std::vector<Tensor> graph_inputs;
  if (!LoadDataSetTensors(data_set, "input", graph.input(), &graph_inputs, error)) return false;
  std::vector<Tensor> expected;
  if (!LoadDataSetTensors(data_set, "output", graph.output(), &expected, error)) return false;

  NodeRun run{node, model.opset, {}};
  for (const std::string& name : node.input()) {
    if (name.empty()) {
      run.inputs.push_back(nullptr);
      continue;
    }
    const int index = FindByName(graph.input(), name);
    if (index < 0) {
      *error = "node input \"" + name + "\" is not a graph input";
      return false;
    }
    run.inputs.push_back(&graph_inputs[static_cast<size_t>(index)]);
  }

  std::vector<Tensor> outputs;
  if (!model.op->run(run, &outputs, error)) return false;
  if (outputs.size() != static_cast<size_t>(node.output_size())) {
    *error = "runner produced " + std::to_string(outputs.size()) + " outputs for " +
             std::to_string(node.output_size()) + " node outputs";
    return false;
  }

  const Tensor* source =
      model.op->elementwise && !run.inputs.empty() ? run.inputs.front() : nullptr;
  for (int j = 0; j < graph.output_size(); ++j) {
    const std::string& name = graph.output(j).name();
    const auto it = std::find(node.output().begin(), node.output().end(), name);
    if (it == node.output().end()) {
      *error = "graph output \"" + name + "\" is not produced by the node";
      return false;
    }
    std::string mismatch;
    if (!CompareTensors(expected[static_cast<size_t>(j)],
                        outputs[static_cast<size_t>(it - node.output().begin())], source,
                        &mismatch)) {
      *error = "output " + std::to_string(j) + " (" + name + "): " + mismatch;
      return false;
    }
  }
  return true;
}

// Sub-directories of `dir` whose names start with `prefix`, sorted.
std::vector<fs::path> ListDirectories(const fs::path& dir, std::string_view prefix) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    const std::string name = it->path().filename().string();
    if (it->is_directory(type_ec) && name.compare(0, prefix.size(), prefix) == 0) {
      found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

enum class Outcome { kPass, kFail, kSkip };

// Runs every test_data_set_* of one test directory. Returns kFail with a reason on the
// first failure, kSkip with a reason for an operator that only shares the name prefix.
Outcome RunCase(const fs::path& dir, std::string* error) {
  Model model;
  if (!LoadModel(dir, &model, error)) return Outcome::kFail;
  if (model.op->run == nullptr) {
    *error = model.op->skip_reason;
    return Outcome::kSkip;
  }
  const std::vector<fs::path> data_sets = ListDirectories(dir, "test_data_set_");
  if (data_sets.empty()) {
    *error = "no test_data_set_* directory";
    return Outcome::kFail;
  }
  for (const fs::path& data_set : data_sets) {
    if (!RunDataSet(model, data_set, error)) {
      if (data_sets.size() > 1) *error = data_set.filename().string() + ": " + *error;
      return Outcome::kFail;
    }
  }
  return Outcome::kPass;
}

struct Case {
  std::string name;  // relative to the data folder, e.g. "legacy-v1.18.0/test_cast_..."
  fs::path dir;
};

std::vector<Case> DiscoverCases(const fs::path& root) {
  std::vector<Case> cases;
  for (const char* prefix : kTopLevelPrefixes) {
    for (const fs::path& dir : ListDirectories(root, prefix)) {
      cases.push_back({dir.filename().string(), dir});
    }
  }
  for (const fs::path& dir : ListDirectories(root / kLegacyFolder, "")) {
    cases.push_back({std::string(kLegacyFolder) + "/" + dir.filename().string(), dir});
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

int Run(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    std::fprintf(stderr,
                 "\n"
                 "**********************************************************************\n"
                 "ONNX conformance data NOT FOUND at %s: conformance NOT RUN.\n"
                 "No Cast/CastLike/Split conformance case has been checked.\n"
                 "Pass the onnx-node-tests folder as the first argument, set\n"
                 "TENSORCAST_ONNX_NODE_TESTS, or configure CMake with\n"
                 "-DTENSORCAST_ONNX_NODE_TESTS=<folder>. Exiting with %d (skipped).\n"
                 "**********************************************************************\n\n",
                 root.string().c_str(), kSkipExitCode);
    return kSkipExitCode;
  }

  const std::vector<Case> cases = DiscoverCases(root);
  size_t passed = 0;
  size_t failed = 0;
  size_t skipped = 0;
  for (const Case& test : cases) {
    std::string error;
    Outcome outcome = Outcome::kFail;
    try {
      outcome = RunCase(test.dir, &error);
    } catch (const std::exception& e) {
      error = std::string("exception: ") + e.what();
    } catch (...) {
      error = "unknown exception";
    }
    if (outcome == Outcome::kPass) {
      ++passed;
      std::printf("PASS %s\n", test.name.c_str());
    } else if (outcome == Outcome::kSkip) {
      ++skipped;
      std::printf("SKIP %s: %s\n", test.name.c_str(), error.c_str());
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", test.name.c_str(), error.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("conformance: %zu cases, %zu skipped\n", cases.size(), skipped);
  std::printf("%zu passed, %zu failed\n", passed, failed);
  if (passed + failed == 0) {
    std::fprintf(stderr, "No conformance case found under %s\n", root.string().c_str());
  }
  return failed == 0 && passed > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  GOOGLE_PROTOBUF_VERIFY_VERSION;
  std::string root;
  if (argc > 1) {
    root = argv[1];
  } else if (const char* env = std::getenv("TENSORCAST_ONNX_NODE_TESTS")) {
    root = env;
  }
  if (argc > 2 || root.empty()) {
    std::fprintf(stderr,
                 "usage: %s <onnx-node-tests folder>  (or set TENSORCAST_ONNX_NODE_TESTS)\n",
                 argc > 0 ? argv[0] : "conformance_test");
    return 2;
  }
  const int status = Run(root);
  google::protobuf::ShutdownProtobufLibrary();
  return status;
}
