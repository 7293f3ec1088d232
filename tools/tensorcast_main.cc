// The `tensorcast` command-line program: convert tensor files with ONNX Cast semantics,
// split them with ONNX Split semantics, quantize and dequantize them with ONNX
// QuantizeLinear / DequantizeLinear semantics, list the supported types and the route of each
// pair, and report throughput and round-trip error on this machine.
// Uses only the public tensorcast API.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <tensorcast/tensorcast.h>

#include "checkpoint.h"
#include "commands.h"
#include "tensor_io.h"
#include "text_table.h"

namespace tensorcast {
namespace cli {
namespace {

constexpr const char kUsage[] =
    "usage: tensorcast <command> [options]\n"
    "\n"
    "commands:\n"
    "  cast --to TYPE [--saturate 0|1] [--round-mode up|down|nearest] [--format F]\n"
    "       [--threads N] IN OUT\n"
    "      Convert the tensor in IN to TYPE (ONNX Cast-28 semantics) and write it to OUT.\n"
    "      Files are .npy (numpy) or .pb (one onnx.TensorProto), chosen by extension;\n"
    "      types numpy lacks (bfloat16, float8, float6, float4, int4, int2, ...) need .pb.\n"
    "      IN or OUT '-' is standard input or output, in the format --format npy|pb.\n"
    "      TYPE is an ONNX type name in any case (FLOAT8E4M3FN, float16) or its code (17).\n"
    "      --saturate 1     float8 targets: out-of-range values become +-max (default)\n"
    "      --saturate 0     ... become NaN or Inf, as the format allows\n"
    "      --round-mode M   FLOAT8E8M0 targets: round up (default), down or nearest\n"
    "      --threads N      threads in total (default: the CPUs this process may use,\n"
    "                       or OMP_NUM_THREADS when it is set and smaller)\n"
    "      A .safetensors IN (a checkpoint) casts its float tensors to TYPE and copies the\n"
    "      others into the .safetensors OUT, in one pass (docs/checkpoints.md):\n"
    "      --include PAT    cast the tensors whose names match PAT (a glob; repeatable)\n"
    "      --exclude PAT    leave the tensors whose names match PAT as they are\n"
    "  split [--axis A] (--sizes a,b,c | --num-outputs N) [--format npy|pb] [--threads N]\n"
    "        IN PREFIX\n"
    "      Split the tensor in IN along axis A (default 0; negative counts from the back)\n"
    "      with ONNX Split-18 semantics and write one file per output: PREFIX_0.npy,\n"
    "      PREFIX_1.npy, ... (the extension of IN unless --format says otherwise).\n"
    "      --sizes a,b,c    the outputs' extents along the axis; they must add up to it\n"
    "      --num-outputs N  N outputs of ceil(d/N) each; the last is smaller, and outputs\n"
    "                       past the end are empty (7 into 3: 3,3,1; 5 into 4: 2,2,1,0)\n"
    "      Every element type works (types numpy lacks need .pb). IN '-' is standard\n"
    "      input (--format names its format and the outputs'). At most 16384 outputs, and\n"
    "      at most 1024 more than the axis length.\n"
    "  quantize --scale S [--zero-point Z] [--axis A] [--block-size B] [--output-dtype T]\n"
    "           [--precision T] [--no-saturate] [--opset N] [--format F] [--threads N]\n"
    "           IN OUT\n"
    "      ONNX QuantizeLinear of IN at opset N (10 to 28, default 28), written to OUT.\n"
    "      S and Z are a .npy or .pb file (a tensor, with its type and shape) or a number\n"
    "      (a scalar). The scale's shape chooses: one element: per tensor; 1-D: one per\n"
    "      index of axis A (default 1); with --block-size B: IN's rank, ceil(d / B) along\n"
    "      axis A, one per block of B elements.\n"
    "      A number scale is FLOAT (at opsets 19-22, which take one type for x and the\n"
    "      scale: IN's type). A number zero point has the type --output-dtype names, else\n"
    "      UINT8; integer zero points must be whole numbers in the type's range.\n"
    "      OUT's type: the zero point's, else --output-dtype (opset 21+), else UINT8.\n"
    "      --precision T    the precision of the division (opset 23+): FLOAT, FLOAT16 or\n"
    "                       BFLOAT16 (default: the scale's type)\n"
    "      --no-saturate    float8 outputs: out-of-range values become NaN or Inf\n"
    "  quantize --format FORMAT [--axis A] [--block-size B] [--scale-rule floor|rceil]\n"
    "           [--per-tensor] [--include PAT] [--exclude PAT] [--stats] [--threads N]\n"
    "           IN OUT.safetensors\n"
    "      The scales computed: each selected tensor of IN (.safetensors: the 2-D FLOAT,\n"
    "      FLOAT16 and BFLOAT16 ones, or those --include names; .npy / .pb: its tensor)\n"
    "      becomes its codes and NAME_scale (NVFP4 also NAME_scale_2) in OUT; the rest is\n"
    "      copied. FORMAT: mxfp8_e4m3, mxfp8_e5m2, mxfp6_e2m3, mxfp6_e3m2, mxfp4 (blocks of\n"
    "      32, E8M0 scales), nvfp4 (blocks of 16), int8_absmax, fp8_absmax (FLOAT scales,\n"
    "      per channel along A, default 0; --per-tensor: one). Blocks run along A\n"
    "      (default -1, the last axis); --stats prints each tensor's RMSE and SQNR.\n"
    "  dequantize --scale S [--zero-point Z] [--axis A] [--block-size B]\n"
    "             [--output-dtype T] [--opset N] [--format F] [--threads N] IN OUT\n"
    "      ONNX DequantizeLinear, with quantize's S, Z, A and B. A number scale is FLOAT, a\n"
    "      number zero point has IN's type. OUT is FLOAT (opsets 10-18), the scale's type\n"
    "      (19-22), or --output-dtype (FLOAT, FLOAT16 or BFLOAT16) else the scale's type.\n"
    "      Both take --format and --threads as cast does; an option the opset lacks is a\n"
    "      usage error.\n"
    "\n"
    "Outputs appear together or not at all; a failed command leaves every existing file\n"
    "as it was and no temporary file. An existing output is replaced keeping its\n"
    "permissions; a symbolic link is followed; a read-only file or a directory is refused.\n"
    "  report [--threads N] [IN]\n"
    "      Throughput (GB/s and x memcpy) and round-trip error of FLOAT -> T -> FLOAT for\n"
    "      every type T and for each block-scaled and absmax format, on IN (converted to\n"
    "      FLOAT; a .safetensors IN: its float tensors) or on a built-in sample of 16M values;\n"
    "      --threads as for cast.\n"
    "  types\n"
    "      The element types with their codes and bit widths, and the castable pairs.\n"
    "  routes [--target NAME]\n"
    "      How Cast serves each ordered pair of the castable types on the active Highway\n"
    "      target (or on NAME, a compiled one this CPU supports): SRC DST ROUTE DETAIL, where\n"
    "      ROUTE is kernel, table, hub, copy or strings for large counts and DETAIL names\n"
    "      the kernels, with \"below N: ROUTE\" where smaller counts take another route.\n"
    "  --help\n"
    "      Show this text.\n"
    "\n"
    "Exit status: 0 on success, 1 on runtime errors, 2 on usage errors.\n";

int Usage(FILE* out, int exit_code) {
  std::fputs(kUsage, out);
  return exit_code;
}

// ---------------------------------------------------------------------------------------
// tensorcast cast

int ParseSaturate(const std::string& value, bool* out) {
  if (value == "1") {
    *out = true;
  } else if (value == "0") {
    *out = false;
  } else {
    return Fail(kExitUsage, "--saturate takes 0 or 1, not '" + value + "'");
  }
  return kExitOk;
}

}  // namespace

int ParseThreads(const std::string& value, size_t* threads) {
  size_t n = 0;
  bool ok = !value.empty() && value.size() <= 4;
  for (char c : value) {
    ok = ok && c >= '0' && c <= '9';
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  if (!ok || n < 1 || n > 4096) {
    return Fail(kExitUsage, "--threads takes an integer from 1 to 4096, not '" + value + "'");
  }
  *threads = n;
  return kExitOk;
}

namespace {

int ParseTargetType(const std::string& value, DataType* out) {
  Status s = ParseDataType(value, out);
  if (!s.ok()) {
    return Fail(kExitUsage, s.message() + "; `tensorcast types` lists the types");
  }
  if (!IsCastable(*out)) {
    return Fail(kExitUsage, std::string("Cast does not support ") + DataTypeName(*out));
  }
  return kExitOk;
}

}  // namespace

int Fail(int exit_code, const std::string& message) {
  std::string line;  // one line: newlines become spaces, other control bytes \xNN
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r' || c == '\t') {
      line += ' ';
    } else if (byte < 0x20 || byte == 0x7F) {
      line += Format("\\x%02X", byte);
    } else {
      line += c;
    }
  }
  std::fprintf(stderr, "tensorcast: error: %s\n", line.c_str());
  return exit_code;
}

std::string OptionName(const std::string& arg) { return arg.substr(0, arg.find('=')); }

int ParseFormat(const std::string& value, FileFormat* format) {
  std::string lower = value;
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  if (lower == "npy" || lower == ".npy") {
    *format = FileFormat::kNpy;
  } else if (lower == "pb" || lower == ".pb") {
    *format = FileFormat::kPb;
  } else {
    return Fail(kExitUsage, "--format takes npy or pb, not '" + value + "'");
  }
  return kExitOk;
}

bool OptionValue(const std::vector<std::string>& args, size_t* i, std::string* value) {
  const std::string& arg = args[*i];
  const size_t eq = arg.find('=');
  if (eq != std::string::npos) {
    *value = arg.substr(eq + 1);
    return true;
  }
  if (*i + 1 >= args.size()) return false;
  *value = args[++*i];
  return true;
}

int RunCast(const std::vector<std::string>& args) {
  FileFormat format = FileFormat::kNpy;
  bool have_format = false;
  std::string to_text;
  CastOptions options;
  size_t threads = DefaultThreadCount();
  std::vector<std::string> files, include, exclude;
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
    if (name != "--to" && name != "--saturate" && name != "--round-mode" && name != "--format" &&
        name != "--threads" && name != "--include" && name != "--exclude") {
      return Fail(kExitUsage, "cast: unknown option '" + name + "' (see tensorcast --help)");
    }
    std::string value;
    if (!OptionValue(args, &i, &value)) {
      return Fail(kExitUsage, "option " + name + " needs a value");
    }
    if (name == "--to") {
      to_text = value;
    } else if (name == "--include" || name == "--exclude") {
      (name == "--include" ? include : exclude).push_back(value);
    } else if (name == "--format") {
      if (int rc = ParseFormat(value, &format)) return rc;
      have_format = true;
    } else if (name == "--saturate") {
      if (int rc = ParseSaturate(value, &options.saturate)) return rc;
    } else if (name == "--threads") {
      if (int rc = ParseThreads(value, &threads)) return rc;
    } else {
      Status s = ParseRoundMode(value, &options.round_mode);
      if (!s.ok())
        return Fail(kExitUsage, "--round-mode takes up, down or nearest, not '" + value + "'");
    }
  }
  if (to_text.empty()) return Fail(kExitUsage, "cast needs --to TYPE (see tensorcast --help)");
  if (files.size() != 2) {
    return Fail(kExitUsage, "cast needs an input and an output file (got " +
                                std::to_string(files.size()) + " file names)");
  }
  const std::string& in = files[0];
  const std::string& out = files[1];
  DataType to;
  if (int rc = ParseTargetType(to_text, &to)) return rc;
  if (IsSafetensorsPath(in) || IsSafetensorsPath(out)) {
    CheckpointJob job;
    job.to = to;
    job.cast = options;
    job.include = include;
    job.exclude = exclude;
    job.threads = threads;
    job.progress = ::isatty(STDERR_FILENO) == 1;
    return RunCheckpoint(job, in, out);
  }
  if (!include.empty() || !exclude.empty()) {
    return Fail(kExitUsage, "--include and --exclude select tensors of a .safetensors file");
  }
  // --format applies to the sides given as "-" (standard input / output).
  const FileFormat* forced_in = in == "-" && have_format ? &format : nullptr;
  const FileFormat* forced_out = out == "-" && have_format ? &format : nullptr;
  FileFormat in_format, out_format;
  Status s = FormatFromPath(in, &in_format, forced_in);
  if (s.ok()) s = FormatFromPath(out, &out_format, forced_out);
  if (s.ok()) s = CheckFormatCanHold(out_format, to, out);
  if (!s.ok()) return Fail(kExitUsage, s.message());

  Tensor src;
  s = Guarded("reading '" + in + "'", [&] { return ReadTensor(in, &src, &in_format); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  Tensor dst;
  s = Guarded(
      "allocating the " + std::string(DataTypeName(to)) + " output " + ShapeString(src.dims),
      [&] { return AllocateTensor(to, src.dims, &dst); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  dst.name = src.name;
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1) {
    pool = std::make_unique<ThreadPool>(threads);
    options.runner = pool->runner();
  }
  s = Cast(src.data(), src.type, dst.data(), to, src.count, options);
  if (!s.ok()) {
    return Fail(kExitRuntime, std::string("cannot cast '") + in + "' from " +
                                  DataTypeName(src.type) + " to " + DataTypeName(to) + ": " +
                                  StatusCodeName(s.code()) + ": " + s.message());
  }
  s = Guarded("writing '" + out + "'", [&] { return WriteTensor(out, dst, &out_format); });
  if (!s.ok()) return Fail(kExitRuntime, s.message());
  return kExitOk;
}

// ---------------------------------------------------------------------------------------
// tensorcast types

int RunTypes(const std::vector<std::string>& args) {
  if (!args.empty()) return Fail(kExitUsage, "types takes no arguments, got '" + args[0] + "'");
  std::printf("tensorcast %d.%d.%d, Highway target on this CPU: %s\n\n", TENSORCAST_VERSION_MAJOR,
              TENSORCAST_VERSION_MINOR, TENSORCAST_VERSION_PATCH, ActiveTargetName());

  TextTable types({{"code", TextTable::kRight},
                   {"type", TextTable::kLeft},
                   {"bits", TextTable::kRight},
                   {"storage", TextTable::kLeft}});
  for (int code = 1; code <= kMaxDataTypeCode; ++code) {
    const auto t = static_cast<DataType>(code);
    const int bits = BitWidth(t);
    std::string storage;
    if (t == DataType::kString) {
      storage = "std::string per element (UTF-8)";
    } else if (bits == 4) {
      storage = "packed 2 per byte, element 2k in the low nibble";
    } else if (bits == 2) {
      storage = "packed 4 per byte, element 0 in bits 0-1";
    } else if (bits == 6) {
      storage = "packed 4 in 3 bytes, element i in bits 6i..6i+5";
    } else {
      storage = Format("%d byte%s", bits / 8, bits == 8 ? "" : "s");
    }
    if (!IsCastable(t)) storage += "; not castable (storage only)";
    types.AddRow(
        {std::to_string(code), DataTypeName(t), bits ? std::to_string(bits) : "-", storage});
  }
  types.Print(stdout);

  // Probe every pair with one element: x = converts, . = rejected as unsupported, ! = failed.
  std::printf(
      "\nCast pairs (row: source type, column: target code; x = supported, "
      ". = rejected, ! = failed)\n\n");
  std::string line = Format("%-16s", "");
  for (int to = 1; to <= kMaxDataTypeCode; ++to) line += Format("%3d", to);
  std::printf("%s\n", line.c_str());
  int supported = 0, failed = 0, castable = 0;
  std::string first_failure;
  for (int from = 1; from <= kMaxDataTypeCode; ++from) {
    const auto src_type = static_cast<DataType>(from);
    castable += IsCastable(src_type);
    line = Format("%-16s", DataTypeName(src_type));
    for (int to = 1; to <= kMaxDataTypeCode; ++to) {
      const auto dst_type = static_cast<DataType>(to);
      unsigned char src_bytes[16] = {}, dst_bytes[16] = {};
      std::string src_string = "0", dst_string;
      const void* src =
          src_type == DataType::kString ? static_cast<const void*>(&src_string) : src_bytes;
      void* dst = dst_type == DataType::kString ? static_cast<void*>(&dst_string) : dst_bytes;
      const Status s = Cast(src, src_type, dst, dst_type, 1);
      char mark = 'x';
      if (s.ok()) {
        ++supported;
      } else if (s.code() == StatusCode::kUnsupported || s.code() == StatusCode::kInvalidArgument) {
        mark = '.';
      } else {
        mark = '!';
        if (failed++ == 0) {
          first_failure = std::string(DataTypeName(src_type)) + " -> " + DataTypeName(dst_type) +
                          ": " + StatusCodeName(s.code()) + ": " + s.message();
        }
      }
      line += Format("%3c", mark);
    }
    std::printf("%s\n", line.c_str());
  }
  std::printf("\n%d of %d pairs of the %d castable types convert.\n", supported,
              castable * castable, castable);
  std::fflush(stdout);
  if (failed > 0) {
    return Fail(kExitRuntime, "Cast failed for " + std::to_string(failed) +
                                  " pairs (first: " + first_failure + ")");
  }
  return kExitOk;
}

}  // namespace cli
}  // namespace tensorcast

int main(int argc, char** argv) {
  using namespace tensorcast::cli;  // NOLINT(build/namespaces)
  if (argc < 2) return Usage(stderr, kExitUsage);
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "--help" || command == "-h" || command == "help") {
      return Usage(stdout, kExitOk);
    }
    if (command == "cast") return RunCast(args);
    if (command == "split") return RunSplit(args);
    if (command == "quantize") return RunQuantize(args);
    if (command == "dequantize") return RunDequantize(args);
    if (command == "types") return RunTypes(args);
    if (command == "report") return RunReport(args);
    if (command == "routes") return RunRoutes(args);
    return Fail(kExitUsage, "unknown command '" + command + "' (see tensorcast --help)");
  } catch (const std::bad_alloc&) {
    return Fail(kExitRuntime, "out of memory");
  } catch (const std::exception& e) {
    return Fail(kExitRuntime, e.what());
  }
}
