// `tensorcast split`: split a tensor file along one axis into one file per output, with
// ONNX Split-18 semantics (explicit sizes, or num_outputs with the ceil rule).
//
//   tensorcast split [--axis A] (--sizes a,b,c | --num-outputs N) [--format npy|pb] IN PREFIX
//
// writes PREFIX_0.<ext>, PREFIX_1.<ext>, ... where <ext> is IN's extension unless --format
// says otherwise (IN "-" is standard input and needs --format). The outputs are written as
// a group, all or nothing (file_util.h): a failure at any point leaves every existing file
// as it was. At most kMaxOutputs outputs, and no more than the axis length plus
// kMaxEmptyOutputs: more could only be empty files.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <tensorcast/split.h>
#include <tensorcast/tensorcast.h>

#include "commands.h"
#include "file_util.h"
#include "tensor_io.h"

namespace tensorcast {
namespace cli {
namespace {

// Bounds on the number of outputs (each one is a file).
constexpr int64_t kMaxOutputs = 16384;
constexpr int64_t kMaxEmptyOutputs = 1024;

int ParseSizes(const std::string& value, std::vector<int64_t>* sizes) {
  sizes->clear();
  size_t start = 0;
  while (true) {
    const size_t comma = value.find(',', start);
    const std::string item =
        value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int64_t size = 0;
    if (!ParseInt64(item, &size)) {
      return Fail(kExitUsage,
                  "--sizes takes a comma-separated list of integers such as 2,3,1, "
                  "not '" +
                      value + "' (bad entry '" + item + "')");
    }
    if (size < 0) {
      return Fail(kExitUsage, "--sizes: entry " + std::to_string(sizes->size()) + " is " +
                                  std::to_string(size) + "; sizes must be >= 0");
    }
    sizes->push_back(size);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return kExitOk;
}

// The extents of the outputs along the axis, from the library's Split opset helper
// (Split-18: explicit sizes, or num_outputs with the ceil rule and empty trailing
// outputs). It also validates the axis against the rank and the sizes against the shape.
Status OutputSizes(const Tensor& src, int64_t axis, const std::vector<int64_t>& sizes,
                   int64_t num_outputs, std::vector<int64_t>* out) {
  SplitAttributes attrs;
  attrs.opset = 18;
  attrs.axis = axis;
  if (num_outputs > 0) {
    attrs.has_num_outputs = true;
    attrs.num_outputs = num_outputs;
    attrs.output_count = static_cast<size_t>(num_outputs);
  } else {
    attrs.has_split = true;
    attrs.split = sizes.data();
    attrs.split_count = sizes.size();
    attrs.output_count = sizes.size();
  }
  out->assign(attrs.output_count, 0);
  return SplitSizes(attrs, src.dims.data(), src.dims.size(), out->data());
}

// Writes every tensor to its path, all or nothing (file_util.h: a failure leaves every
// existing file as it was and no temporary file).
Status WriteAllOrNothing(const std::vector<std::string>& paths, const std::vector<Tensor>& tensors,
                         const FileFormat& format) {
  OutputGroup group;
  for (size_t i = 0; i < paths.size(); ++i) {
    Status s = WriteTensor(paths[i], tensors[i], &format, &group);
    if (!s.ok()) {
      return Status(s.code(), "cannot write output " + std::to_string(i) + " '" + paths[i] +
                                  "' (no output was written): " + s.message());
    }
  }
  return group.Commit();
}

}  // namespace

bool ParseInt64(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto result = std::from_chars(text.data(), end, *out);
  return result.ec == std::errc() && result.ptr == end;
}

int RunSplit(const std::vector<std::string>& args) {
  int64_t axis = 0;
  std::vector<int64_t> sizes;
  int64_t num_outputs = 0;
  bool have_sizes = false, have_num_outputs = false, have_format = false;
  FileFormat format = FileFormat::kNpy;
  size_t threads = DefaultThreadCount();
  std::vector<std::string> files;
  bool only_files = false;
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
    if (name != "--axis" && name != "--sizes" && name != "--num-outputs" && name != "--format" &&
        name != "--threads") {
      return Fail(kExitUsage, "split: unknown option '" + name + "' (see tensorcast --help)");
    }
    std::string value;
    if (!OptionValue(args, &i, &value)) {
      return Fail(kExitUsage, "option " + name + " needs a value");
    }
    if (name == "--axis") {
      if (!ParseInt64(value, &axis)) {
        return Fail(kExitUsage, "--axis takes an integer, not '" + value + "'");
      }
    } else if (name == "--sizes") {
      if (int rc = ParseSizes(value, &sizes)) return rc;
      have_sizes = true;
    } else if (name == "--threads") {
      if (int rc = ParseThreads(value, &threads)) return rc;
    } else if (name == "--num-outputs") {
      if (!ParseInt64(value, &num_outputs) || num_outputs < 1) {
        return Fail(kExitUsage, "--num-outputs takes an integer >= 1, not '" + value + "'");
      }
      have_num_outputs = true;
    } else {
      if (int rc = ParseFormat(value, &format)) return rc;
      have_format = true;
    }
  }
  if (have_sizes == have_num_outputs) {
    return Fail(kExitUsage, have_sizes ? "split takes --sizes or --num-outputs, not both"
                                       : "split needs --sizes a,b,... or --num-outputs N "
                                         "(see tensorcast --help)");
  }
  if (files.size() != 2) {
    return Fail(kExitUsage, "split needs an input file and an output prefix (got " +
                                std::to_string(files.size()) + " file names)");
  }
  const std::string& in = files[0];
  const std::string& prefix = files[1];
  if (prefix.empty() || prefix.back() == '/') {
    return Fail(kExitUsage, "the output prefix '" + prefix +
                                "' must name files (PREFIX_0.npy, ...), not a directory");
  }
  if (prefix == "-") {
    return Fail(kExitUsage, "split writes one file per output: the prefix cannot be -");
  }
  const int64_t requested = have_num_outputs ? num_outputs : static_cast<int64_t>(sizes.size());
  if (requested > kMaxOutputs) {
    return Fail(kExitUsage, std::string(have_num_outputs ? "--num-outputs" : "--sizes") + ": " +
                                std::to_string(requested) + " outputs is more than the limit of " +
                                std::to_string(kMaxOutputs) + " files");
  }
  FileFormat in_format;
  Status s = FormatFromPath(in, &in_format, in == "-" && have_format ? &format : nullptr);
  if (!s.ok()) return Fail(kExitUsage, s.message());
  if (!have_format) format = in_format;
  const std::string ext = format == FileFormat::kNpy ? ".npy" : ".pb";

  Tensor src;
  s = Guarded("reading '" + in + "'", [&] { return ReadTensor(in, &src, &in_format); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  s = CheckFormatCanHold(format, src.type, prefix + "_0" + ext);
  if (!s.ok()) return Fail(kExitUsage, s.message() + " (--format pb)");

  std::vector<int64_t> out_sizes;
  s = OutputSizes(src, axis, sizes, num_outputs, &out_sizes);
  if (!s.ok()) {
    return Fail(kExitRuntime, "cannot split '" + in + "' (" + DataTypeName(src.type) + " " +
                                  ShapeString(src.dims) + "): " + s.message());
  }
  const auto rank = static_cast<int64_t>(src.dims.size());
  const int64_t axis_index = axis < 0 ? axis + rank : axis;  // validated by OutputSizes
  if (axis_index < 0 || axis_index >= rank) {
    return Fail(kExitRuntime, "axis " + std::to_string(axis) + " is out of range for '" + in +
                                  "' of rank " + std::to_string(rank));
  }
  const int64_t axis_length = src.dims[static_cast<size_t>(axis_index)];
  if (requested > axis_length + kMaxEmptyOutputs) {
    return Fail(kExitUsage, std::string(have_num_outputs ? "--num-outputs" : "--sizes") + ": " +
                                std::to_string(requested) + " outputs for an axis of length " +
                                std::to_string(axis_length) + " (at most the length plus " +
                                std::to_string(kMaxEmptyOutputs) + " empty outputs)");
  }

  std::vector<Tensor> outputs(out_sizes.size());
  std::vector<void*> pointers(out_sizes.size());
  for (size_t i = 0; i < out_sizes.size(); ++i) {
    std::vector<int64_t> dims = src.dims;
    dims[static_cast<size_t>(axis_index)] = out_sizes[i];
    s = Guarded("allocating output " + std::to_string(i) + " " + ShapeString(dims),
                [&] { return AllocateTensor(src.type, dims, &outputs[i]); });
    if (!s.ok()) return Fail(kExitRuntime, "output " + std::to_string(i) + ": " + s.message());
    if (!src.name.empty()) outputs[i].name = src.name + "_" + std::to_string(i);
    pointers[i] = outputs[i].data();
  }
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) pool = std::make_unique<ThreadPool>(threads);
  s = Guarded("splitting '" + in + "'", [&] {
    return Split(src.data(), src.type, src.dims.data(), src.dims.size(), axis, out_sizes.data(),
                 out_sizes.size(), pointers.data(), pool ? pool->runner() : nullptr);
  });
  if (!s.ok()) {
    return Fail(kExitRuntime, "cannot split '" + in + "' (" + DataTypeName(src.type) + " " +
                                  ShapeString(src.dims) + "): " + StatusCodeName(s.code()) + ": " +
                                  s.message());
  }

  std::vector<std::string> paths(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) paths[i] = prefix + "_" + std::to_string(i) + ext;
  s = Guarded("writing the outputs '" + prefix + "_*" + ext + "' (no output was written)",
              [&] { return WriteAllOrNothing(paths, outputs, format); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  return kExitOk;
}

}  // namespace cli
}  // namespace tensorcast
