// `tensorcast quantize` and `tensorcast dequantize`: ONNX QuantizeLinear / DequantizeLinear
// of a tensor file (include/tensorcast/quantize.h, opsets 10-28).
//
//   tensorcast quantize IN OUT --scale S [--zero-point Z] [--axis N] [--block-size N]
//       [--output-dtype T] [--precision T] [--no-saturate] [--opset N] [--format F]
//       [--threads N]
//   tensorcast dequantize IN OUT --scale S [--zero-point Z] [--axis N] [--block-size N]
//       [--output-dtype T] [--opset N] [--format F] [--threads N]
//
// S and Z are a tensor file (a name ending in .npy or .pb: the tensor with its type and
// shape) or a number, which makes a scalar:
// - a number scale is FLOAT, except for QuantizeLinear-19 and -21, which take the scale
//   in x's type (FLOAT16, BFLOAT16 or INT32 there: the number is rounded to it as Cast
//   rounds text, and must be a whole number for INT32);
// - a number zero point of quantize has the type --output-dtype names, else UINT8 (ONNX's
//   default); below opset 21, which has no output_dtype attribute, --output-dtype then
//   only types the zero point. A number zero point of dequantize has x's type.
// Integer zero points must be whole numbers in the type's range.
//
// Errors that the command line alone decides (options, type names, numbers, opset,
// attributes the opset lacks, an output type .npy cannot hold) exit 2 before a file is
// read where possible; the rest (unreadable files, types and shapes the node refuses)
// exit 1. The output is written all or nothing (file_util.h).
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <tensorcast/tensorcast.h>

#include "checkpoint.h"
#include "commands.h"
#include "tensor_io.h"

namespace tensorcast {
namespace cli {
namespace {

// --scale / --zero-point: a file or a number.
struct Operand {
  explicit Operand(const char* name) : option(name) {}
  const char* option;  // "--scale"
  bool given = false;
  bool is_file = false;
  std::string text;  // the path or the number
  FileFormat format = FileFormat::kNpy;
};

// A file when the text ends in .npy or .pb (FormatFromPath accepts it), else a number in
// the syntax of Cast from STRING (docs/semantics.md section 7.1).
int ClassifyOperand(Operand* op) {
  if (FormatFromPath(op->text, &op->format).ok()) {
    op->is_file = true;
    return kExitOk;
  }
  const std::string text = op->text;
  double value = 0;
  if (!Cast(&text, DataType::kString, &value, DataType::kDouble, 1).ok()) {
    return Fail(kExitUsage, std::string(op->option) +
                                " takes a number or a .npy or .pb file, not '" + op->text + "'");
  }
  return kExitOk;
}

// The range of an integer type; false for the other types.
bool IntegerRange(DataType type, int64_t* lo, int64_t* hi) {
  switch (type) {
    case DataType::kInt2: *lo = -2, *hi = 1; return true;
    case DataType::kUint2: *lo = 0, *hi = 3; return true;
    case DataType::kInt4: *lo = -8, *hi = 7; return true;
    case DataType::kUint4: *lo = 0, *hi = 15; return true;
    case DataType::kInt8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case DataType::kUint8: *lo = 0, *hi = UINT8_MAX; return true;
    case DataType::kInt16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case DataType::kUint16: *lo = 0, *hi = UINT16_MAX; return true;
    case DataType::kInt32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    case DataType::kUint32: *lo = 0, *hi = UINT32_MAX; return true;
    default: return false;
  }
}

// The types a number can take: the integers of IntegerRange and the float types.
bool NumberType(DataType type) {
  int64_t lo, hi;
  if (IntegerRange(type, &lo, &hi)) return true;
  switch (type) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBfloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat8E8M0:
    case DataType::kFloat4E2M1:
    case DataType::kFloat6E2M3:
    case DataType::kFloat6E3M2: return true;
    default: return false;
  }
}

// The scalar of `type` that a number operand gives. Integer types take a whole number in
// range (optional sign, decimal digits); float types round the text as Cast does.
int MakeNumber(const Operand& op, DataType type, Tensor* out) {
  Status s = AllocateTensor(type, {}, out);
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  int64_t lo = 0, hi = 0;
  if (IntegerRange(type, &lo, &hi)) {
    // The digits after an optional sign, read as a magnitude.
    const std::string& t = op.text;
    const size_t sign = !t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0;
    int64_t v = 0;
    const char* first = t.data() + sign;
    const char* end = t.data() + t.size();
    const auto r = std::from_chars(first, end, v);
    const bool whole = first != end && *first >= '0' && *first <= '9' && r.ptr == end &&
                       (r.ec == std::errc() || r.ec == std::errc::result_out_of_range);
    if (!whole) {
      return Fail(kExitUsage, std::string(op.option) + " '" + t + "' must be a whole number (" +
                                  DataTypeName(type) + ")");
    }
    v = sign == 1 && t[0] == '-' ? -v : v;
    if (r.ec != std::errc() || v < lo || v > hi) {
      return Fail(kExitUsage, std::string(op.option) + " '" + t + "' is outside the range of " +
                                  DataTypeName(type) + ", [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "]");
    }
    s = Cast(&v, DataType::kInt64, out->data(), type, 1);
  } else {
    const std::string text = op.text;
    s = Cast(&text, DataType::kString, out->data(), type, 1);
  }
  if (!s.ok()) {
    return Fail(kExitUsage, std::string(op.option) + " '" + op.text + "' as " + DataTypeName(type) +
                                ": " + s.message());
  }
  return kExitOk;
}

int ParseTypeOption(const std::string& name, const std::string& value, DataType* out) {
  Status s = ParseDataType(value, out);
  if (!s.ok()) {
    return Fail(kExitUsage, name + ": " + s.message() + "; `tensorcast types` lists the types");
  }
  return kExitOk;
}

// Reads a file operand (the message names the option and the file).
Status ReadOperand(const Operand& op, Tensor* t) {
  return Guarded("reading " + std::string(op.option) + " '" + op.text + "'",
                 [&] { return ReadTensor(op.text, t, &op.format); });
}

int RunQdq(bool quantize, const std::vector<std::string>& args) {
  const std::string command = quantize ? "quantize" : "dequantize";
  Operand scale("--scale"), zero_point("--zero-point");
  QuantizeAttributes attrs;
  DataType output_dtype = DataType::kUndefined, precision = DataType::kUndefined;
  bool saturate = true;
  int64_t opset = attrs.opset;
  FileFormat format = FileFormat::kNpy;
  bool have_format = false;
  size_t threads = DefaultThreadCount();
  std::vector<std::string> files;
  bool only_files = false;
  CheckpointJob job;  // --format FORMAT: the scales computed
  bool have_quant_format = false;
  std::vector<std::string> given;            // the options given
  std::vector<std::string> checkpoint_only;  // options only --format FORMAT takes
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_files || arg.size() < 2 || arg[0] != '-') {
      files.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_files = true;
      continue;
    }
    const std::string name = OptionName(arg);
    if (quantize && (name == "--no-saturate" || name == "--per-tensor" || name == "--stats")) {
      if (name != arg) return Fail(kExitUsage, "option " + name + " takes no value");
      given.push_back(name);
      if (name == "--no-saturate") saturate = false;
      if (name == "--per-tensor") job.per_tensor = true;
      if (name == "--stats") job.print_stats = true;
      checkpoint_only.push_back(name == "--no-saturate" ? "" : name);
      continue;
    }
    const bool quantize_only = name == "--precision" || name == "--scale-rule" ||
                               name == "--include" || name == "--exclude";
    if (name != "--scale" && name != "--zero-point" && name != "--axis" && name != "--block-size" &&
        name != "--output-dtype" && !(quantize && quantize_only) && name != "--opset" &&
        name != "--format" && name != "--threads") {
      return Fail(kExitUsage, command + ": unknown option '" + name + "' (see tensorcast --help)");
    }
    std::string value;
    if (!OptionValue(args, &i, &value)) {
      return Fail(kExitUsage, "option " + name + " needs a value");
    }
    given.push_back(name);
    if (name == "--scale" || name == "--zero-point") {
      Operand& op = name == "--scale" ? scale : zero_point;
      op.given = true;
      op.text = value;
    } else if (name == "--axis") {
      if (!ParseInt64(value, &attrs.axis)) {
        return Fail(kExitUsage, "--axis takes an integer, not '" + value + "'");
      }
      job.axis = attrs.axis;
      job.axis_given = true;
    } else if (name == "--block-size") {
      if (!ParseInt64(value, &attrs.block_size) || attrs.block_size < 0) {
        return Fail(kExitUsage, "--block-size takes an integer >= 0, not '" + value + "'");
      }
      job.block_size = attrs.block_size;
    } else if (name == "--output-dtype") {
      if (int rc = ParseTypeOption(name, value, &output_dtype)) return rc;
    } else if (name == "--precision") {
      if (int rc = ParseTypeOption(name, value, &precision)) return rc;
    } else if (name == "--opset") {
      if (!ParseInt64(value, &opset) || opset < 10 || opset > 28) {
        return Fail(kExitUsage, "--opset takes an integer from 10 to 28, not '" + value + "'");
      }
    } else if (name == "--format") {
      if (quantize && ParseQuantFormat(value, &job.format)) {
        have_quant_format = true;
      } else if (quantize && !FormatFromPath("x." + value, &format).ok() &&
                 !FormatFromPath("x" + value, &format).ok()) {
        return Fail(kExitUsage, "--format takes npy or pb (the format of '-') or one of " +
                                    QuantFormatList() + ", not '" + value + "'");
      } else {
        if (int rc = ParseFormat(value, &format)) return rc;
        have_format = true;
      }
    } else if (name == "--scale-rule") {
      std::string lower = value;
      for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      if (lower != "floor" && lower != "rceil") {
        return Fail(kExitUsage, "--scale-rule takes floor or rceil, not '" + value + "'");
      }
      job.scale_rule = lower == "floor" ? ScaleRule::kFloor : ScaleRule::kRceil;
      checkpoint_only.push_back(name);
    } else if (name == "--include" || name == "--exclude") {
      (name == "--include" ? job.include : job.exclude).push_back(value);
      checkpoint_only.push_back(name);
    } else {
      if (int rc = ParseThreads(value, &threads)) return rc;
    }
  }
  if (have_quant_format) {
    // The scales computed: a checkpoint job (checkpoint.h).
    for (const char* option :
         {"--scale", "--zero-point", "--output-dtype", "--precision", "--opset", "--no-saturate"}) {
      if (std::find(given.begin(), given.end(), option) != given.end()) {
        return Fail(kExitUsage, std::string("quantize --format ") + job.format.name +
                                    " computes the scales; " + option + " is for --scale");
      }
    }
    if (files.size() != 2) {
      return Fail(kExitUsage, command + " needs an input and an output file (got " +
                                  std::to_string(files.size()) + " file names)");
    }
    job.quantize = true;
    job.threads = threads;
    job.progress = ::isatty(STDERR_FILENO) == 1;
    return RunCheckpoint(job, files[0], files[1]);
  }
  for (const std::string& option : checkpoint_only) {
    if (!option.empty()) {
      return Fail(kExitUsage,
                  option + " goes with --format " + QuantFormatList() + " (scales computed)");
    }
  }
  if (!scale.given) {
    return Fail(kExitUsage, command +
                                " needs --scale NUMBER|FILE or --format FORMAT (see "
                                "tensorcast --help)");
  }
  if (files.size() != 2) {
    return Fail(kExitUsage, command + " needs an input and an output file (got " +
                                std::to_string(files.size()) + " file names)");
  }
  const std::string& in = files[0];
  const std::string& out = files[1];
  if (int rc = ClassifyOperand(&scale)) return rc;
  if (zero_point.given) {
    if (int rc = ClassifyOperand(&zero_point)) return rc;
  }
  const FileFormat* forced_in = in == "-" && have_format ? &format : nullptr;
  const FileFormat* forced_out = out == "-" && have_format ? &format : nullptr;
  FileFormat in_format, out_format;
  Status s = FormatFromPath(in, &in_format, forced_in);
  if (s.ok()) s = FormatFromPath(out, &out_format, forced_out);
  if (!s.ok()) return Fail(kExitUsage, s.message());

  attrs.opset = static_cast<int>(opset);
  const int version = QuantizeLinearVersion(attrs.opset);
  attrs.saturate = saturate;
  attrs.precision = precision;
  // A number zero point of quantize takes --output-dtype's type; below opset 21 the node
  // has no output_dtype, and the zero point's type alone gives y's.
  const bool number_zero_point = zero_point.given && !zero_point.is_file;
  attrs.output_dtype =
      quantize && number_zero_point && version < 21 ? DataType::kUndefined : output_dtype;
  const DataType number_zero_point_type =
      quantize && output_dtype != DataType::kUndefined ? output_dtype : DataType::kUint8;

  // What the command line alone decides: the attributes, and y's type when no file
  // decides it.
  DataType y_type = DataType::kUndefined;
  bool y_known = false;
  if (quantize) {
    s = QuantizeLinearOutputType(
        attrs, number_zero_point ? number_zero_point_type : DataType::kUndefined, &y_type);
    y_known = !zero_point.is_file;
  } else {
    s = DequantizeLinearOutputType(attrs, DataType::kFloat, &y_type);
    y_known = !scale.is_file;
  }
  if (!s.ok()) return Fail(kExitUsage, command + ": " + s.message());
  if (y_known) {
    s = CheckFormatCanHold(out_format, y_type, out);
    if (!s.ok()) return Fail(kExitUsage, s.message());
  }

  Tensor x, scale_t, zero_point_t;
  s = Guarded("reading '" + in + "'", [&] { return ReadTensor(in, &x, &in_format); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  if (scale.is_file) {
    s = ReadOperand(scale, &scale_t);
    if (!s.ok()) return Fail(kExitRuntime, s.message());
  } else {
    // A number scale is FLOAT, or x's type where the version takes one type for both.
    DataType type = DataType::kFloat;
    if (quantize && (version == 19 || version == 21) &&
        (x.type == DataType::kFloat16 || x.type == DataType::kBfloat16 ||
         x.type == DataType::kInt32)) {
      type = x.type;
    }
    if (int rc = MakeNumber(scale, type, &scale_t)) return rc;
  }
  if (zero_point.is_file) {
    s = ReadOperand(zero_point, &zero_point_t);
    if (!s.ok()) return Fail(kExitRuntime, s.message());
  } else if (zero_point.given) {
    DataType type = number_zero_point_type;
    if (!quantize) type = NumberType(x.type) ? x.type : DataType::kUint8;
    if (int rc = MakeNumber(zero_point, type, &zero_point_t)) return rc;
  }

  const std::string context = "cannot " + command + " '" + in + "' (" + DataTypeName(x.type) + " " +
                              ShapeString(x.dims) + "): ";
  const DataType zp_type = zero_point.given ? zero_point_t.type : DataType::kUndefined;
  s = quantize ? QuantizeLinearOutputType(attrs, zp_type, &y_type)
               : DequantizeLinearOutputType(attrs, scale_t.type, &y_type);
  if (!s.ok()) {
    return Fail(kExitRuntime, context + StatusCodeName(s.code()) + ": " + s.message());
  }
  s = CheckFormatCanHold(out_format, y_type, out);
  if (!s.ok()) return Fail(kExitUsage, s.message());

  Tensor y;
  s = Guarded(
      "allocating the " + std::string(DataTypeName(y_type)) + " output " + ShapeString(x.dims),
      [&] { return AllocateTensor(y_type, x.dims, &y); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  y.name = x.name;
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<ThreadPool>(threads);
    attrs.runner = pool->runner();
  }
  const TensorView xv{x.data(), x.type, x.dims.data(), x.dims.size()};
  const TensorView sv{scale_t.data(), scale_t.type, scale_t.dims.data(), scale_t.dims.size()};
  const TensorView zv{zero_point_t.data(), zero_point_t.type, zero_point_t.dims.data(),
                      zero_point_t.dims.size()};
  const TensorView* zp = zero_point.given ? &zv : nullptr;
  s = Guarded(std::string(quantize ? "quantizing '" : "dequantizing '") + in + "'", [&] {
    return quantize ? QuantizeLinear(xv, sv, zp, y.data(), y_type, attrs)
                    : DequantizeLinear(xv, sv, zp, y.data(), y_type, attrs);
  });
  if (!s.ok()) {
    return Fail(kExitRuntime, context + StatusCodeName(s.code()) + ": " + s.message());
  }
  s = Guarded("writing '" + out + "'", [&] { return WriteTensor(out, y, &out_format); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  return kExitOk;
}

}  // namespace

int RunQuantize(const std::vector<std::string>& args) { return RunQdq(true, args); }

int RunDequantize(const std::vector<std::string>& args) { return RunQdq(false, args); }

}  // namespace cli
}  // namespace tensorcast
