// Checkpoints: every tensor of the input is read once, in file order, and written to the
// output in the same order, cast, quantized (codes, then scales) or copied as it is. The
// output header is decided, and every tensor checked, before the first byte is written.
#include "checkpoint.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "file_util.h"
#include "safetensors_io.h"
#include "tensor_io.h"
#include "text_table.h"

namespace tensorcast {
namespace cli {
namespace {

constexpr size_t kChunkBytes = size_t{4} << 20;  // a cast or a copy moves this much at a time

struct FormatName {
  const char* name;
  bool absmax;
  BlockFormat block;
  DataType absmax_type;
};

constexpr FormatName kFormats[] = {
    {"mxfp8_e4m3", false, BlockFormat::kMxfp8E4m3, DataType::kUndefined},
    {"mxfp8_e5m2", false, BlockFormat::kMxfp8E5m2, DataType::kUndefined},
    {"mxfp6_e2m3", false, BlockFormat::kMxfp6E2m3, DataType::kUndefined},
    {"mxfp6_e3m2", false, BlockFormat::kMxfp6E3m2, DataType::kUndefined},
    {"mxfp4", false, BlockFormat::kMxfp4, DataType::kUndefined},
    {"nvfp4", false, BlockFormat::kNvfp4, DataType::kUndefined},
    {"int8_absmax", true, BlockFormat::kMxfp4, DataType::kInt8},
    {"fp8_absmax", true, BlockFormat::kMxfp4, DataType::kFloat8E4M3FN},
};

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string Quote(const std::string& name) { return "'" + name + "'"; }

Status Error(const std::string& message) { return Status(StatusCode::kInvalidArgument, message); }

// The float types a cast converts by default (FLOAT8E8M0 holds scales, not values).
bool IsValueFloat(DataType t) {
  switch (t) {
    case DataType::kFloat:
    case DataType::kDouble:
    case DataType::kFloat16:
    case DataType::kBfloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
    case DataType::kFloat4E2M1:
    case DataType::kFloat6E2M3:
    case DataType::kFloat6E3M2: return true;
    default: return false;
  }
}

bool IsQuantizerInput(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kBfloat16;
}

bool Matches(const std::vector<std::string>& patterns, const std::string& name) {
  for (const std::string& p : patterns) {
    if (::fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

// Fails unless `count` elements of `type` fill whole bytes (safetensors stores no padding).
Status CheckWholeBytes(DataType type, size_t count, const std::string& what) {
  const int bits = BitWidth(type);
  if (bits >= 8 || (static_cast<unsigned __int128>(count) * bits) % 8 == 0) return Status::Ok();
  return Error(what + ": " + std::to_string(count) + " " + DataTypeName(type) +
               " elements do not fill whole bytes, which safetensors requires (leave the "
               "tensor out with --exclude)");
}

// The alignment the kernels take for elements of `type`: the element's size, up to 8.
size_t ElementAlignment(DataType type) {
  const int bits = BitWidth(type);
  return bits >= 8 ? std::min<size_t>(8, static_cast<size_t>(bits / 8)) : 1;
}

// ------------------------------------------------------------------------------- input

// The input: a .safetensors file read in place, or one tensor of a .npy / .pb file held in
// memory (the entry's name: the TensorProto's, else the file name without its extension).
class Input {
 public:
  ~Input() {
    if (map_ != nullptr) ::munmap(map_, map_size_);
    if (fd_ >= 0) ::close(fd_);
  }

  Status Open(const std::string& path) {
    path_ = path;
    if (!IsSafetensorsPath(path)) {
      FileFormat format;
      Status s = FormatFromPath(path, &format);
      if (s.ok()) s = ReadTensor(path, &single_, &format);
      if (!s.ok()) return s;
      SafetensorsEntry e;
      e.name = single_.name;
      if (e.name.empty()) {
        const size_t slash = path.rfind('/');
        e.name = path.substr(slash == std::string::npos ? 0 : slash + 1);
        e.name = e.name.substr(0, e.name.rfind('.'));
      }
      e.type = single_.type;
      e.dims = single_.dims;
      e.count = single_.count;
      e.end = single_.type == DataType::kString ? 0 : single_.bytes.size();
      if (single_.type == DataType::kString || SafetensorsDtype(e.type) == nullptr) {
        return Error("'" + path + "' holds " + DataTypeName(e.type) +
                     ", which safetensors cannot store");
      }
      header_.tensors.push_back(std::move(e));
      return Status::Ok();
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) return Error("cannot open '" + path + "': " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0) return Error("cannot read '" + path + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
      return Error("cannot read '" + path +
                   "': not a regular file (.safetensors inputs are "
                   "read in place)");
    }
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    Status s = ReadSafetensorsHeader(fd_, static_cast<uint64_t>(st.st_size), path, &header_);
    if (!s.ok()) return s;
    // The data is read through a mapping where one can be made (no copy, no buffer to
    // fault in), else with pread.
    map_size_ = static_cast<size_t>(st.st_size);
    void* map = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (map != MAP_FAILED) {
      map_ = static_cast<unsigned char*>(map);
      ::madvise(map_, map_size_, MADV_SEQUENTIAL);
    }
    return Status::Ok();
  }

  // Bytes [offset, ...) of tensor `e` in memory, or null when the input is not mapped or
  // they are not aligned to `alignment` bytes (the kernels take aligned elements).
  const unsigned char* Mapped(const SafetensorsEntry& e, uint64_t offset, size_t alignment) const {
    const unsigned char* p = nullptr;
    if (fd_ < 0) {
      p = single_.bytes.data() + offset;
    } else if (map_ != nullptr) {
      p = map_ + header_.data_start + e.begin + offset;
    }
    if (p != nullptr && reinterpret_cast<uintptr_t>(p) % alignment != 0) return nullptr;
    return p;
  }

  const SafetensorsHeader& header() const { return header_; }

  // Bytes [offset, offset + n) of tensor `e` into `out`.
  Status Read(const SafetensorsEntry& e, uint64_t offset, size_t n, void* out) const {
    if (fd_ < 0) {
      std::memcpy(out, single_.bytes.data() + offset, n);
      return Status::Ok();
    }
    auto* p = static_cast<unsigned char*>(out);
    uint64_t at = header_.data_start + e.begin + offset;
    while (n > 0) {
      const ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(at));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        return Error("cannot read tensor " + Quote(e.name) + " of '" + path_ +
                     "': " + (r == 0 ? "the file shrank while it was read" : std::strerror(errno)));
      }
      p += r, at += static_cast<uint64_t>(r), n -= static_cast<size_t>(r);
    }
    return Status::Ok();
  }

  // The whole tensor in memory: in place for a .npy / .pb input, else read into `buffer`.
  Status Whole(const SafetensorsEntry& e, std::vector<unsigned char>* buffer,
               const unsigned char** data) const {
    *data = Mapped(e, 0, ElementAlignment(e.type));
    if (*data != nullptr) return Status::Ok();
    buffer->resize(static_cast<size_t>(e.end - e.begin));
    *data = buffer->data();
    return Read(e, 0, buffer->size(), buffer->data());
  }

 private:
  std::string path_;
  int fd_ = -1;
  unsigned char* map_ = nullptr;  // the whole file, when mapped
  size_t map_size_ = 0;
  SafetensorsHeader header_;
  Tensor single_;
};

// ---------------------------------------------------------------------------- progress

// A line on standard error, redrawn at most ten times a second: bytes of input done, the
// share of the whole and the rate so far.
class Progress {
 public:
  Progress(bool on, uint64_t total) : on_(on), total_(total), start_(Clock::now()) {}
  ~Progress() {
    if (drawn_) std::fputs("\n", stderr);
  }
  void Advance(uint64_t bytes) {
    done_ += bytes;
    if (!on_) return;
    const auto now = Clock::now();
    if (drawn_ && now - last_ < std::chrono::milliseconds(100) && done_ != total_) return;
    last_ = now;
    drawn_ = true;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r%.2f of %.2f GB (%3.0f%%), %.2f GB/s\x1b[K", done_ * 1e-9,
                 total_ * 1e-9, total_ ? 100.0 * done_ / total_ : 100.0,
                 seconds > 0 ? done_ * 1e-9 / seconds : 0.0);
    std::fflush(stderr);
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  uint64_t total_, done_ = 0;
  Clock::time_point start_, last_;
  bool drawn_ = false;
};

// -------------------------------------------------------------------------------- plan

enum class Action { kCopy, kCast, kQuantize };

struct Step {
  Action action = Action::kCopy;
  size_t source = 0;           // index in the input's tensors
  size_t first = 0, outs = 1;  // output entries [first, first + outs)
  int64_t axis = 0;            // quantize: the normalized axis
};

struct Plan {
  std::vector<SafetensorsEntry> outputs;
  std::vector<Step> steps;
  std::vector<std::string> quantized;  // names, for the metadata
};

// The output entries for tensor `t` under `job`, appended to `plan` (offsets set later).
Status PlanTensor(const CheckpointJob& job, const SafetensorsEntry& t, size_t index, bool selected,
                  Plan* plan) {
  Step step;
  step.source = index;
  step.first = plan->outputs.size();
  const std::string what = "tensor " + Quote(t.name);
  if (!selected) {
    plan->outputs.push_back(t);
    plan->steps.push_back(step);
    return Status::Ok();
  }
  if (!job.quantize) {
    Status s = CheckWholeBytes(job.to, t.count, what + " as " + DataTypeName(job.to));
    if (!s.ok()) return s;
    SafetensorsEntry out = t;
    out.type = job.to;
    step.action = Action::kCast;
    plan->outputs.push_back(out);
    plan->steps.push_back(step);
    return Status::Ok();
  }
  if (!IsQuantizerInput(t.type)) {
    return Error(what + " is " + DataTypeName(t.type) +
                 "; the quantizers take FLOAT, FLOAT16 or BFLOAT16 (leave it out with "
                 "--exclude)");
  }
  const QuantFormat& f = job.format;
  const int64_t rank = static_cast<int64_t>(t.dims.size());
  const int64_t axis = job.axis_given ? job.axis : (f.absmax ? 0 : -1);
  const bool per_channel = f.absmax && !job.per_tensor;
  step.action = Action::kQuantize;
  if ((!f.absmax || per_channel) && (axis < -rank || axis >= rank)) {
    return Error(what + " " + ShapeString(t.dims) + " has no axis " + std::to_string(axis));
  }
  step.axis = axis < 0 ? axis + rank : axis;
  SafetensorsEntry codes = t, scales, global;
  scales.name = t.name + "_scale";
  codes.type = QuantFormatCodeType(f);
  if (f.absmax) {
    scales.type = DataType::kFloat;
    if (per_channel) scales.dims = {t.dims[static_cast<size_t>(step.axis)]};
  } else {
    scales.type = BlockFormatScaleType(f.block);
    BlockScaleOptions options;
    options.axis = axis;
    options.block_size = job.block_size;
    size_t n = 0;
    Status s = BlockScaleCount(t.dims.data(), t.dims.size(), options, f.block, &n);
    if (!s.ok()) return Error(what + " " + ShapeString(t.dims) + ": " + s.message());
    const int64_t block = job.block_size ? job.block_size : BlockFormatBlockSize(f.block);
    scales.dims = t.dims;
    int64_t& d = scales.dims[static_cast<size_t>(step.axis)];
    d = (d + block - 1) / block;
  }
  Status s = CheckWholeBytes(codes.type, codes.count, what + "'s codes");
  if (!s.ok()) return s;
  s = ShapeElementCount(scales.dims, &scales.count);
  if (!s.ok()) return s;
  plan->outputs.push_back(codes);
  plan->outputs.push_back(scales);
  if (!f.absmax && f.block == BlockFormat::kNvfp4) {
    global.name = t.name + "_scale_2";
    global.type = DataType::kFloat;
    global.count = 1;
    plan->outputs.push_back(global);
  }
  step.outs = plan->outputs.size() - step.first;
  plan->steps.push_back(step);
  plan->quantized.push_back(t.name);
  return Status::Ok();
}

Status MakePlan(const CheckpointJob& job, const SafetensorsHeader& in, bool single, Plan* plan) {
  const std::vector<SafetensorsEntry>& tensors = in.tensors;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const SafetensorsEntry& t = tensors[i];
    bool selected;
    if (single) {
      selected = true;  // a .npy / .pb input is the tensor the user named
    } else if (!job.include.empty()) {
      selected = Matches(job.include, t.name);
    } else {
      selected =
          job.quantize ? IsQuantizerInput(t.type) && t.dims.size() == 2 : IsValueFloat(t.type);
    }
    selected = selected && !Matches(job.exclude, t.name);
    Status s = PlanTensor(job, t, i, selected, plan);
    if (!s.ok()) return s;
  }
  // Names: the scales' must not meet another tensor's.
  std::set<std::string> names;
  for (const SafetensorsEntry& t : tensors) names.insert(t.name);
  for (const Step& step : plan->steps) {
    for (size_t k = 1; k < step.outs; ++k) {
      const std::string& name = plan->outputs[step.first + k].name;
      if (!names.insert(name).second) {
        return Error("the scales of tensor " + Quote(tensors[step.source].name) + " would be " +
                     Quote(name) + ", a name the checkpoint already has");
      }
    }
  }
  uint64_t at = 0;
  for (SafetensorsEntry& out : plan->outputs) {
    out.begin = at;
    at += StorageBytes(out.type, out.count);
    out.end = at;
  }
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> OutputMetadata(const CheckpointJob& job,
                                                                const SafetensorsHeader& in,
                                                                const Plan& plan) {
  const char* kKey = "tensorcast.quantization";
  std::vector<std::pair<std::string, std::string>> metadata;
  for (const auto& kv : in.metadata) {
    if (!(job.quantize && kv.first == kKey)) metadata.push_back(kv);
  }
  if (job.quantize) {
    nlohmann::ordered_json q;
    q["format"] = job.format.name;
    if (job.format.absmax) {
      q["granularity"] = job.per_tensor ? "tensor" : "channel";
      if (!job.per_tensor) q["axis"] = job.axis_given ? job.axis : 0;
    } else {
      q["block_size"] = job.block_size ? job.block_size : BlockFormatBlockSize(job.format.block);
      q["axis"] = job.axis_given ? job.axis : -1;
      if (job.format.block != BlockFormat::kNvfp4) {
        q["scale_rule"] = job.scale_rule == ScaleRule::kRceil ? "rceil" : "floor";
      }
    }
    q["scale_suffix"] = "_scale";
    if (!job.format.absmax && job.format.block == BlockFormat::kNvfp4) {
      q["global_scale_suffix"] = "_scale_2";
    }
    q["tensors"] = plan.quantized;
    metadata.emplace_back(kKey, q.dump());
  }
  return metadata;
}

// ---------------------------------------------------------------------------------- run

struct Runtime {
  const CheckpointJob& job;
  const Input& input;
  const Runner* runner;
  Progress* progress;
  std::vector<unsigned char> in_buffer, out_buffer, scale_buffer;
  std::vector<std::pair<std::string, CastStats>>* stats;
};

Status CopyTensor(Runtime& rt, const SafetensorsEntry& t, const ByteSink& sink) {
  const uint64_t size = t.end - t.begin;
  const unsigned char* mapped = rt.input.Mapped(t, 0, 1);
  if (mapped == nullptr) {
    rt.in_buffer.resize(static_cast<size_t>(std::min<uint64_t>(size, kChunkBytes)));
  }
  for (uint64_t at = 0; at < size;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(size - at, kChunkBytes));
    Status s = Status::Ok();
    if (mapped != nullptr) {
      s = sink(mapped + at, n);
    } else {
      s = rt.input.Read(t, at, n, rt.in_buffer.data());
      if (s.ok()) s = sink(rt.in_buffer.data(), n);
    }
    if (!s.ok()) return s;
    at += n;
    rt.progress->Advance(n);
  }
  return Status::Ok();
}

Status CastTensor(Runtime& rt, const SafetensorsEntry& t, const SafetensorsEntry& out,
                  const ByteSink& sink) {
  const int bits = std::max(BitWidth(t.type), BitWidth(out.type));
  const size_t chunk = std::max<size_t>(8, kChunkBytes * 8 / static_cast<size_t>(bits) / 8 * 8);
  CastOptions options = rt.job.cast;
  options.runner = rt.runner;
  rt.in_buffer.resize(StorageBytes(t.type, std::min(chunk, t.count)));
  rt.out_buffer.resize(StorageBytes(out.type, std::min(chunk, t.count)));
  for (size_t done = 0; done < t.count;) {
    const size_t n = std::min(chunk, t.count - done);
    const size_t in_bytes = StorageBytes(t.type, n);
    const uint64_t offset = StorageBytes(t.type, done);
    // BOOL bytes are made 0 / 1 (Cast's input contract) in a copy.
    const unsigned char* src =
        t.type == DataType::kBool ? nullptr : rt.input.Mapped(t, offset, ElementAlignment(t.type));
    Status s = Status::Ok();
    if (src == nullptr) {
      s = rt.input.Read(t, offset, in_bytes, rt.in_buffer.data());
      if (!s.ok()) return s;
      if (t.type == DataType::kBool) {
        for (size_t i = 0; i < n; ++i) rt.in_buffer[i] = rt.in_buffer[i] != 0;
      }
      src = rt.in_buffer.data();
    }
    s = Cast(src, t.type, rt.out_buffer.data(), out.type, n, options);
    if (!s.ok()) {
      return Error("cannot cast tensor " + Quote(t.name) + " from " + DataTypeName(t.type) +
                   " to " + DataTypeName(out.type) + ": " + s.message());
    }
    s = sink(rt.out_buffer.data(), StorageBytes(out.type, n));
    if (!s.ok()) return s;
    done += n;
    rt.progress->Advance(in_bytes);
  }
  return Status::Ok();
}

Status QuantizeTensor(Runtime& rt, const Step& step, const SafetensorsEntry& t,
                      const SafetensorsEntry* outs, const ByteSink& sink) {
  const unsigned char* x = nullptr;
  Status s = rt.input.Whole(t, &rt.in_buffer, &x);
  if (!s.ok()) return s;
  const TensorView view{x, t.type, t.dims.data(), t.dims.size()};
  const QuantFormat& f = rt.job.format;
  rt.out_buffer.resize(StorageBytes(outs[0].type, outs[0].count));
  rt.scale_buffer.resize(StorageBytes(outs[1].type, outs[1].count));
  CastStats stats;
  QuantizeChoice choice;
  choice.axis = step.axis;
  choice.block_size = rt.job.block_size;
  choice.scale_rule = rt.job.scale_rule;
  choice.per_tensor = rt.job.per_tensor;
  choice.runner = rt.runner;
  choice.stats = rt.stats != nullptr ? &stats : nullptr;
  float global = 0;
  s = QuantizeWithFormat(f, view, rt.out_buffer.data(), rt.scale_buffer.data(), &global, choice);
  if (!s.ok()) {
    return Error("cannot quantize tensor " + Quote(t.name) + " " + ShapeString(t.dims) + " to " +
                 f.name + ": " + s.message());
  }
  if (rt.stats != nullptr) rt.stats->emplace_back(t.name, stats);
  s = sink(rt.out_buffer.data(), rt.out_buffer.size());
  if (s.ok()) s = sink(rt.scale_buffer.data(), rt.scale_buffer.size());
  if (s.ok() && step.outs == 3) s = sink(&global, sizeof(global));
  rt.progress->Advance(t.end - t.begin);
  return s;
}

void PrintStats(const std::vector<std::pair<std::string, CastStats>>& stats) {
  TextTable table({{"tensor", TextTable::kLeft},
                   {"elements", TextTable::kRight},
                   {"RMSE", TextTable::kRight},
                   {"SQNR dB", TextTable::kRight},
                   {"saturated", TextTable::kRight},
                   {"flushed", TextTable::kRight},
                   {"NaN/Inf", TextTable::kRight}});
  for (const auto& [name, s] : stats) {
    const double n = s.count ? static_cast<double>(s.count) : 1.0;
    table.AddRow({name, std::to_string(s.count), Format("%.4g", s.Rmse()),
                  Format("%.2f", s.SqnrDb()), Format("%.3f%%", 100.0 * s.saturated / n),
                  Format("%.3f%%", 100.0 * s.flushed / n),
                  std::to_string(s.nan_count + s.inf_count)});
  }
  table.Print(stdout);
}

}  // namespace

bool ParseQuantFormat(const std::string& value, QuantFormat* out) {
  const std::string lower = Lower(value);
  for (const FormatName& f : kFormats) {
    if (lower == f.name) {
      out->name = f.name;
      out->absmax = f.absmax;
      out->block = f.block;
      out->absmax_type = f.absmax_type;
      return true;
    }
  }
  return false;
}

DataType QuantFormatCodeType(const QuantFormat& f) {
  return f.absmax ? f.absmax_type : BlockFormatElementType(f.block);
}

Status QuantizeWithFormat(const QuantFormat& f, const TensorView& x, void* codes, void* scales,
                          float* global, const QuantizeChoice& choice) {
  if (f.absmax) {
    AbsmaxOptions options;
    options.per_channel = !choice.per_tensor;
    options.axis = choice.axis;
    options.runner = choice.runner;
    options.stats = choice.stats;
    return QuantizeAbsmax(x, f.absmax_type, codes, static_cast<float*>(scales), options);
  }
  BlockScaleOptions options;
  options.axis = choice.axis;
  options.block_size = choice.block_size;
  options.scale_rule = choice.scale_rule;
  options.runner = choice.runner;
  options.stats = choice.stats;
  return f.block == BlockFormat::kNvfp4 ? QuantizeNvfp4(x, codes, scales, global, false, options)
                                        : QuantizeMx(x, f.block, codes, scales, options);
}

std::vector<QuantFormat> QuantFormats() {
  std::vector<QuantFormat> formats;
  for (const FormatName& f : kFormats)
    formats.push_back({f.name, f.absmax, f.block, f.absmax_type});
  return formats;
}

std::string QuantFormatList() {
  std::string list;
  for (const FormatName& f : kFormats) list += (list.empty() ? "" : ", ") + std::string(f.name);
  return list;
}

bool IsSafetensorsPath(const std::string& path) {
  const std::string suffix = ".safetensors";
  return path.size() > suffix.size() && Lower(path.substr(path.size() - suffix.size())) == suffix;
}

Status ReadCheckpointFloats(const std::string& path, size_t limit, std::vector<float>* out,
                            std::string* description, size_t* row) {
  Input input;
  Status s = input.Open(path);
  if (!s.ok()) return s;
  size_t tensors = 0, total = 0;
  *row = 0;
  std::vector<unsigned char> buffer;
  out->clear();
  for (const SafetensorsEntry& t : input.header().tensors) {
    if (!IsValueFloat(t.type) || t.count == 0) continue;
    ++tensors;
    total += t.count;
    *row = std::gcd(*row, static_cast<size_t>(t.dims.empty() ? 1 : t.dims.back()));
    if (out->size() >= limit) continue;
    const size_t n = std::min(t.count, limit - out->size());
    buffer.resize(StorageBytes(t.type, n));
    s = input.Read(t, 0, buffer.size(), buffer.data());
    const size_t at = out->size();
    out->resize(at + n);
    if (s.ok()) s = Cast(buffer.data(), t.type, out->data() + at, DataType::kFloat, n);
    if (!s.ok()) return s;
  }
  *description =
      Format("'%s', the %zu value float tensors (%zu values)", path.c_str(), tensors, total);
  if (out->size() < total) *description += Format(", first %zu values", out->size());
  *description += " as FLOAT";
  return Status::Ok();
}

int RunCheckpoint(const CheckpointJob& job, const std::string& in, const std::string& out) {
  const std::string command = job.quantize ? "quantize" : "cast";
  if (!IsSafetensorsPath(out)) {
    return Fail(kExitUsage, command + ": the output '" + out + "' must be a .safetensors file" +
                                (job.quantize ? " (it holds the codes and the scales)" : ""));
  }
  if (!job.quantize && SafetensorsDtype(job.to) == nullptr) {
    return Fail(kExitUsage, std::string("safetensors has no dtype for ") + DataTypeName(job.to));
  }
  if (!IsSafetensorsPath(in)) {
    FileFormat format;
    Status s = FormatFromPath(in, &format);
    if (!s.ok() || in == "-") {
      return Fail(kExitUsage,
                  command + ": the input '" + in + "' must be a .safetensors, .npy or .pb file");
    }
  }
  Input input;
  Status s = Guarded("reading '" + in + "'", [&] { return input.Open(in); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  Plan plan;
  s = Guarded("reading '" + in + "'",
              [&] { return MakePlan(job, input.header(), !IsSafetensorsPath(in), &plan); });
  if (!s.ok()) return Fail(kExitRuntime, command + " '" + in + "': " + s.message());
  const std::string header =
      SafetensorsHeaderBytes(plan.outputs, OutputMetadata(job, input.header(), plan));

  uint64_t total = 0;
  for (const SafetensorsEntry& t : input.header().tensors) total += t.end - t.begin;
  Progress progress(job.progress, total);
  std::unique_ptr<ThreadPool> pool;
  if (job.threads > 1) pool = std::make_unique<ThreadPool>(job.threads);
  std::vector<std::pair<std::string, CastStats>> stats;
  Runtime rt{job, input, pool ? pool->runner() : nullptr,   &progress, {},
             {},  {},    job.print_stats ? &stats : nullptr};
  OutputGroup group;
  s = Guarded(command + " '" + in + "'", [&] {
    return group.StageStream(out, [&](const ByteSink& sink) {
      Status w = sink(header.data(), header.size());
      for (const Step& step : plan.steps) {
        if (!w.ok()) break;
        const SafetensorsEntry& t = input.header().tensors[step.source];
        switch (step.action) {
          case Action::kCopy: w = CopyTensor(rt, t, sink); break;
          case Action::kCast: w = CastTensor(rt, t, plan.outputs[step.first], sink); break;
          case Action::kQuantize:
            w = QuantizeTensor(rt, step, t, &plan.outputs[step.first], sink);
            break;
        }
      }
      return w;
    });
  });
  if (s.ok()) s = group.Commit();
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  if (job.print_stats) PrintStats(stats);
  return kExitOk;
}

}  // namespace cli
}  // namespace tensorcast
