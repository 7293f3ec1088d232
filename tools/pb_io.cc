// .pb reading and writing: one serialized onnx.TensorProto per file.
//
// Reading follows the ONNX TensorProto rules (docs/semantics.md, "Packing"): raw_data
// (little-endian, sub-byte types packed) when present, otherwise the typed field of the data type:
//   float_data   FLOAT, COMPLEX64      double_data  DOUBLE, COMPLEX128 (re, im pairs)
//   int64_data   INT64                 uint64_data  UINT32, UINT64
//   string_data  STRING
//   int32_data   INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16, BFLOAT16, the float8
//                types and FLOAT8E8M0 (one element each, low 16 or 8 bits), FLOAT6E2M3 and
//                FLOAT6E3M2 (one element each, low 6 bits, as onnx.numpy_helper reads them),
//                and the 4-/2-bit types (one packed byte each: two 4-bit or four 2-bit
//                elements).
// raw_data of FLOAT6E2M3/FLOAT6E3M2 is packed four elements in three bytes (element i in
// bits [6i, 6i + 6) of the little-endian bit stream, ceil(6n / 8) bytes), as onnx writes it.
// Writing uses raw_data (string_data for STRING) and keeps dims and name.
#include <onnx/onnx_pb.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "file_util.h"
#include "tensor_io.h"

namespace tensorcast {
namespace cli {
namespace {

Status PbError(const std::string& path, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "'" + path + "' is not a valid tensor: " + what);
}

// The typed field that holds a tensor's elements when raw_data is absent.
struct TypedField {
  const char* name;
  size_t have;      // values in the file
  size_t expected;  // values the shape needs
};

// True for the 4-/2-bit types, whose int32_data values are packed bytes; the 6-bit types
// store one element per value there (four 6-bit elements do not fit a byte).
bool Int32DataHoldsPackedBytes(DataType type) {
  const int bits = BitWidth(type);
  return bits < 8 && 8 % bits == 0;
}

TypedField FieldFor(const onnx::TensorProto& tp, DataType type, size_t count) {
  auto n = [](int size) { return static_cast<size_t>(size); };
  switch (type) {
    case DataType::kString: return {"string_data", n(tp.string_data_size()), count};
    case DataType::kFloat: return {"float_data", n(tp.float_data_size()), count};
    case DataType::kDouble: return {"double_data", n(tp.double_data_size()), count};
    case DataType::kComplex64: return {"float_data", n(tp.float_data_size()), 2 * count};
    case DataType::kComplex128: return {"double_data", n(tp.double_data_size()), 2 * count};
    case DataType::kInt64: return {"int64_data", n(tp.int64_data_size()), count};
    case DataType::kUint32:
    case DataType::kUint64: return {"uint64_data", n(tp.uint64_data_size()), count};
    default:  // one element per value, or one packed byte of 4-/2-bit elements
      return {"int32_data", n(tp.int32_data_size()),
              Int32DataHoldsPackedBytes(type) ? StorageBytes(type, count) : count};
  }
}

// Copies `field` into the tensor bytes keeping the low `width` bytes of each value
// (little-endian, so the first `width` bytes).
template <class Field>
void CopyLowBytes(const Field& field, size_t width, Tensor* t) {
  unsigned char* out = t->bytes.data();
  for (int i = 0; i < field.size(); ++i) {
    const auto v = field.Get(i);
    std::memcpy(out + static_cast<size_t>(i) * width, &v, width);
  }
}

// Packs one 6-bit element per value (its low 6 bits) into the zeroed bytes of `t`:
// element i goes to bits [6i, 6i + 6) of the little-endian bit stream.
template <class Field>
void PackSixBitValues(const Field& field, Tensor* t) {
  unsigned char* out = t->bytes.data();
  for (int i = 0; i < field.size(); ++i) {
    const unsigned code = static_cast<uint32_t>(field.Get(i)) & 0x3Fu;
    const size_t bit = static_cast<size_t>(i) * 6;
    const unsigned shift = static_cast<unsigned>(bit % 8);
    out[bit / 8] = static_cast<unsigned char>(out[bit / 8] | (code << shift));
    if (shift > 2) {  // the element continues in the next byte
      out[bit / 8 + 1] = static_cast<unsigned char>(out[bit / 8 + 1] | (code >> (8 - shift)));
    }
  }
}

// Copies the typed field (already checked by FieldFor) into `t`.
void CopyTypedData(const onnx::TensorProto& tp, Tensor* t) {
  switch (t->type) {
    case DataType::kString:
      for (size_t i = 0; i < t->count; ++i) t->strings[i] = tp.string_data(static_cast<int>(i));
      return;
    case DataType::kFloat: return CopyLowBytes(tp.float_data(), 4, t);
    case DataType::kDouble: return CopyLowBytes(tp.double_data(), 8, t);
    case DataType::kComplex64: return CopyLowBytes(tp.float_data(), 4, t);  // re, im, re, ...
    case DataType::kComplex128: return CopyLowBytes(tp.double_data(), 8, t);
    case DataType::kInt64: return CopyLowBytes(tp.int64_data(), 8, t);
    case DataType::kUint32: return CopyLowBytes(tp.uint64_data(), 4, t);
    case DataType::kUint64: return CopyLowBytes(tp.uint64_data(), 8, t);
    case DataType::kBool:  // any non-zero value is true, as numpy's astype(bool)
      for (size_t i = 0; i < t->count; ++i) t->bytes[i] = tp.int32_data(static_cast<int>(i)) != 0;
      return;
    case DataType::kFloat6E2M3:
    case DataType::kFloat6E3M2: return PackSixBitValues(tp.int32_data(), t);
    default: {
      const int bits = BitWidth(t->type);
      return CopyLowBytes(tp.int32_data(), bits < 8 ? 1 : static_cast<size_t>(bits / 8), t);
    }
  }
}

}  // namespace

Status ReadPb(const std::string& path, Tensor* out) {
  // Protobuf messages are limited to 2 GiB: larger files are refused before reading.
  std::string file;
  Status s = ReadWholeFile(path, &file, static_cast<uint64_t>(INT_MAX));
  if (!s.ok()) return s;
  onnx::TensorProto tp;
  if (!tp.ParseFromArray(file.data(), static_cast<int>(file.size()))) {
    return PbError(path, "cannot parse an onnx.TensorProto (corrupt or truncated file)");
  }
  file.clear();
  file.shrink_to_fit();

  if (tp.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) {
    return PbError(path, "external data (data_location = EXTERNAL) is not supported");
  }
  if (tp.has_segment()) return PbError(path, "segmented tensors are not supported");
  const auto type = static_cast<DataType>(tp.data_type());
  if (!IsValidDataType(type)) {
    return PbError(path,
                   "data_type " + std::to_string(tp.data_type()) + " is not an ONNX element type");
  }
  const std::vector<int64_t> dims(tp.dims().begin(), tp.dims().end());
  size_t count = 0;
  s = ShapeElementCount(dims, &count);
  if (!s.ok()) return PbError(path, s.message());
  const std::string what = " for shape " + ShapeString(dims) + " of " + DataTypeName(type);

  // Check the stored size before allocating anything the shape asks for.
  const bool raw = tp.has_raw_data() && type != DataType::kString;
  if (raw) {
    size_t expected = 0;
    if (!CheckedStorageBytes(type, count, &expected).ok()) {
      return PbError(path, "shape " + ShapeString(dims) + " of " + DataTypeName(type) +
                               " is too large (its byte count overflows)");
    }
    if (tp.raw_data().size() != expected) {
      return PbError(path, "raw_data has " + std::to_string(tp.raw_data().size()) + " bytes, " +
                               std::to_string(expected) + " expected" + what);
    }
  } else if (tp.has_raw_data() && !tp.raw_data().empty()) {
    return PbError(path, "STRING tensors store their elements in string_data, not raw_data");
  } else {
    const TypedField field = FieldFor(tp, type, count);
    if (field.have != field.expected) {
      if (field.have == 0) {
        return PbError(path, "no data" + what + " (expected raw_data or " + field.name + ")");
      }
      return PbError(path, std::string(field.name) + " has " + std::to_string(field.have) +
                               " values, " + std::to_string(field.expected) + " expected" + what);
    }
  }

  Tensor t;
  s = AllocateTensor(type, dims, &t);
  if (!s.ok()) return PbError(path, s.message());
  t.name = tp.name();
  if (raw) {
    if (!t.bytes.empty()) std::memcpy(t.bytes.data(), tp.raw_data().data(), t.bytes.size());
  } else {
    CopyTypedData(tp, &t);
  }
  NormalizeStorage(&t);
  *out = std::move(t);
  return Status::Ok();
}

Status WritePb(const std::string& path, const Tensor& t, OutputGroup* group) {
  onnx::TensorProto tp;
  if (!t.name.empty()) tp.set_name(t.name);
  for (int64_t d : t.dims) tp.add_dims(d);
  tp.set_data_type(static_cast<int32_t>(t.type));
  if (t.type == DataType::kString) {
    for (const std::string& str : t.strings) tp.add_string_data(str);
  } else {
    tp.set_raw_data(t.bytes.data(), t.bytes.size());
  }
  std::string bytes;
  if (tp.ByteSizeLong() > static_cast<size_t>(INT_MAX) || !tp.SerializeToString(&bytes)) {
    return Status(StatusCode::kOverflow,
                  "cannot write '" + path + "': the tensor exceeds protobuf's 2 GiB limit");
  }
  const std::vector<ByteSpan> pieces = {{bytes.data(), bytes.size()}};
  return group != nullptr ? group->Stage(path, pieces) : WriteFileAtomic(path, pieces);
}

}  // namespace cli
}  // namespace tensorcast
