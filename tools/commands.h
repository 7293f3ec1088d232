// tools/commands.h: the subcommands of the tensorcast program and their shared
// conventions. Every command returns the process exit code; errors are printed as one
// line "tensorcast: error: ..." on stderr.
#ifndef TENSORCAST_TOOLS_COMMANDS_H_
#define TENSORCAST_TOOLS_COMMANDS_H_

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include <tensorcast/tensorcast.h>

#include "tensor_io.h"

namespace tensorcast {
namespace cli {

constexpr int kExitOk = 0;
constexpr int kExitRuntime = 1;  // missing/corrupt files, Cast/Split errors, failed writes
constexpr int kExitUsage = 2;    // bad command line: option, type name, file extension

// Prints "tensorcast: error: <message>" (newlines folded, control bytes escaped), returns
// `exit_code`.
int Fail(int exit_code, const std::string& message);

// The option name of args[i]: "--name" for both "--name=value" and "--name".
std::string OptionName(const std::string& arg);

// The value of the option at args[*i]: after '=', or else the next argument (advancing
// *i). Returns false when the value is missing.
bool OptionValue(const std::vector<std::string>& args, size_t* i, std::string* value);

// Parses --format: npy or pb (any case, with or without the dot).
int ParseFormat(const std::string& value, FileFormat* format);

// The whole of `text` as a decimal int64 (optional '-', no spaces, no '+').
bool ParseInt64(const std::string& text, int64_t* out);

// Parses --threads: an integer from 1 to 4096 (threads in total, the caller included).
int ParseThreads(const std::string& value, size_t* threads);

// Runs f() (returning a Status); out of memory becomes an error naming `what` (for example
// "reading 'in.npy'"), so that every message names the file or the step that failed.
template <class F>
Status Guarded(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "out of memory while " + what);
  }
}

// `tensorcast cast --to TYPE [--saturate 0|1] [--round-mode up|down|nearest] IN OUT`
int RunCast(const std::vector<std::string>& args);
// `tensorcast split [--axis A] (--sizes a,b,c | --num-outputs N) [--format npy|pb] IN PREFIX`
int RunSplit(const std::vector<std::string>& args);
// `tensorcast quantize IN OUT --scale S [--zero-point Z] [--axis N] [--block-size N]
//  [--output-dtype T] [--precision T] [--no-saturate] [--opset N] [--format F] [--threads N]`
int RunQuantize(const std::vector<std::string>& args);
// `tensorcast dequantize IN OUT --scale S [--zero-point Z] [--axis N] [--block-size N]
//  [--output-dtype T] [--opset N] [--format F] [--threads N]`
int RunDequantize(const std::vector<std::string>& args);
// `tensorcast types`
int RunTypes(const std::vector<std::string>& args);
// `tensorcast report [--count N] [--threads N] [IN]` (--count is for tests and quick looks)
int RunReport(const std::vector<std::string>& args);
// `tensorcast routes [--target NAME]`
int RunRoutes(const std::vector<std::string>& args);

// One line on the run-time tuning in force (DescribeTuning): the prefetch distance and
// where it comes from, the streaming thresholds and the last-level cache they follow.
std::string TuningLine();

}  // namespace cli
}  // namespace tensorcast

#endif  // TENSORCAST_TOOLS_COMMANDS_H_
