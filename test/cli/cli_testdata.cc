// Test helper for the tensorcast program's ctest entries (not installed).
//
//   tensorcast_cli_testdata write DIR
//       Writes the fixtures: f32.pb (FLOAT [2, 4] in float_data), i4.pb (INT4 [5] packed
//       in int32_data), bad_string.pb (STRING ["1.5", "abc"]), truncated.npy (a header for
//       10 floats followed by 3), corrupt.pb (a length that runs past the end); for
//       `tensorcast split`, the expected pieces split_*.pb (see WriteSplitPieces) and an
//       empty directory blocked_1.pb (an output name that cannot be written).
//   tensorcast_cli_testdata compare A B
//       Exit 0 when the two tensor files hold the same type, shape and element bits.
//   tensorcast_cli_testdata expect-error CODE OUT[,OUT...] -- PROGRAM ARGS...
//       Runs PROGRAM and checks that it exits with CODE, prints exactly one line
//       "tensorcast: error: ..." on stderr, and leaves neither OUT (unless OUT is "-") nor
//       a temporary file next to it, for each comma-separated OUT.
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tools/file_util.h"
#include "tools/tensor_io.h"

namespace tensorcast {
namespace cli {
namespace {

int Check(bool ok, const std::string& what) {
  if (ok) return 0;
  std::fprintf(stderr, "tensorcast_cli_testdata: %s\n", what.c_str());
  return 1;
}

int WriteBytes(const std::string& path, const std::string& bytes) {
  Status s = WriteFileAtomic(path, {{bytes.data(), bytes.size()}});
  return Check(s.ok(), s.message());
}

int WriteProto(const std::string& path, const onnx::TensorProto& tp) {
  std::string bytes;
  if (!tp.SerializeToString(&bytes)) return Check(false, "cannot serialize " + path);
  return WriteBytes(path, bytes);
}

int WriteFloats(const std::string& path, std::vector<int64_t> dims, std::vector<float> values) {
  onnx::TensorProto tp;
  tp.set_data_type(static_cast<int>(DataType::kFloat));
  for (int64_t d : dims) tp.add_dims(d);
  for (float v : values) tp.add_float_data(v);
  return WriteProto(path, tp);
}

// The expected outputs of the `tensorcast split` smoke tests (tools/CMakeLists.txt):
//   f32.pb [2, 4] --axis 1 --sizes 1,3        -> split_a_0 [2, 1], split_a_1 [2, 3]
//   f32.pb [2, 4] --axis -1 --num-outputs 3   -> split_b_0..2: [2, 2], [2, 2], [2, 0]
//   f32.pb [2, 4] --num-outputs 2 (axis 0)    -> split_c_0..1: [1, 4], [1, 4]
//   i4.pb [5] = [1, -2, 7, -8, 3] --num-outputs 2 -> split_i4_0 [1, -2, 7], split_i4_1
//       [-8, 3] (a boundary inside a byte: output 1 is shifted by one nibble)
//   bad_string.pb ["1.5", "abc"] --sizes 1,1  -> split_s_0 ["1.5"], split_s_1 ["abc"]
int WriteSplitPieces(const std::string& dir) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // f32.pb rows: {0.5, -1.5, 2.25, 448}, {-0, 65504, inf, nan}.
  int rc = 0;
  rc |= WriteFloats(dir + "/split_a_0.pb", {2, 1}, {0.5f, -0.0f});
  rc |= WriteFloats(dir + "/split_a_1.pb", {2, 3}, {-1.5f, 2.25f, 448.0f, 65504.0f, inf, nan});
  rc |= WriteFloats(dir + "/split_b_0.pb", {2, 2}, {0.5f, -1.5f, -0.0f, 65504.0f});
  rc |= WriteFloats(dir + "/split_b_1.pb", {2, 2}, {2.25f, 448.0f, inf, nan});
  rc |= WriteFloats(dir + "/split_b_2.pb", {2, 0}, {});
  rc |= WriteFloats(dir + "/split_c_0.pb", {1, 4}, {0.5f, -1.5f, 2.25f, 448.0f});
  rc |= WriteFloats(dir + "/split_c_1.pb", {1, 4}, {-0.0f, 65504.0f, inf, nan});
  {
    onnx::TensorProto tp;
    tp.set_data_type(static_cast<int>(DataType::kInt4));
    tp.add_dims(3);
    tp.set_raw_data(std::string("\xE1\x07", 2));  // 1, -2 | 7
    rc |= WriteProto(dir + "/split_i4_0.pb", tp);
    tp.set_dims(0, 2);
    tp.set_raw_data(std::string("\x38", 1));  // -8, 3
    rc |= WriteProto(dir + "/split_i4_1.pb", tp);
  }
  for (const char* text : {"1.5", "abc"}) {
    onnx::TensorProto tp;
    tp.set_data_type(static_cast<int>(DataType::kString));
    tp.add_dims(1);
    tp.add_string_data(text);
    rc |= WriteProto(dir + (text[0] == '1' ? "/split_s_0.pb" : "/split_s_1.pb"), tp);
  }
  return rc;
}

int WriteFixtures(const std::string& dir) {
  int rc = 0;
  {  // Values exact in FLOAT16 and printed exactly by the STRING cast.
    onnx::TensorProto tp;
    tp.set_name("f32");
    tp.set_data_type(static_cast<int>(DataType::kFloat));
    tp.add_dims(2);
    tp.add_dims(4);
    for (float v :
         {0.5f, -1.5f, 2.25f, 448.0f, -0.0f, 65504.0f, std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN()}) {
      tp.add_float_data(v);
    }
    rc |= WriteProto(dir + "/f32.pb", tp);
  }
  {  // INT4 [1, -2, 7, -8, 3]: bytes 0xE1 0x87 0x03, one per int32_data value.
    onnx::TensorProto tp;
    tp.set_data_type(static_cast<int>(DataType::kInt4));
    tp.add_dims(5);
    for (int byte : {0xE1, 0x87, 0x03}) tp.add_int32_data(byte);
    rc |= WriteProto(dir + "/i4.pb", tp);
  }
  {
    onnx::TensorProto tp;
    tp.set_data_type(static_cast<int>(DataType::kString));
    tp.add_dims(2);
    tp.add_string_data("1.5");
    tp.add_string_data("abc");
    rc |= WriteProto(dir + "/bad_string.pb", tp);
  }
  {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (10,), }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
    header.push_back('\n');
    std::string npy("\x93NUMPY\x01\x00", 8);
    npy.push_back(static_cast<char>(header.size()));
    npy.push_back('\0');
    npy += header;
    npy.append(12, '\0');  // 3 of the 10 floats
    rc |= WriteBytes(dir + "/truncated.npy", npy);
  }
  // Field 8 (name, length-delimited) claiming 100 bytes, followed by 3.
  rc |= WriteBytes(dir + "/corrupt.pb", std::string("\x42\x64"
                                                    "abc",
                                                    5));
  rc |= WriteSplitPieces(dir);
  if (::mkdir((dir + "/blocked_1.pb").c_str(), 0777) != 0 && errno != EEXIST) {
    rc |= Check(false, "cannot create " + dir + "/blocked_1.pb");
  }
  return rc;
}

int Compare(const std::string& a_path, const std::string& b_path) {
  Tensor a, b;
  Status s = ReadTensor(a_path, &a);
  if (s.ok()) s = ReadTensor(b_path, &b);
  if (!s.ok()) return Check(false, s.message());
  if (a.type != b.type) {
    return Check(false, std::string("types differ: ") + DataTypeName(a.type) + " vs " +
                            DataTypeName(b.type));
  }
  if (a.dims != b.dims) {
    return Check(false, "shapes differ: " + ShapeString(a.dims) + " vs " + ShapeString(b.dims));
  }
  if (a.bytes != b.bytes) return Check(false, "element bytes differ");
  for (size_t i = 0; i < a.strings.size(); ++i) {
    if (a.strings[i] != b.strings[i]) {
      return Check(false, "string " + std::to_string(i) + " differs: '" + a.strings[i] + "' vs '" +
                              b.strings[i] + "'");
    }
  }
  return 0;
}

// Any "<dir>/.<name>.tensorcast-tmp-*" left next to `path`.
bool TempFileLeft(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string prefix =
      "." + (slash == std::string::npos ? path : path.substr(slash + 1)) + kTempFileMarker;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return false;
  bool found = false;
  while (const dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) found = true;
  }
  closedir(d);
  return found;
}

int ExpectError(int expected_code, const std::string& outs, char** argv) {
  int fds[2];
  if (pipe(fds) != 0) return Check(false, "pipe failed");
  const pid_t pid = fork();
  if (pid < 0) return Check(false, "fork failed");
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    execv(argv[0], argv);
    std::perror("execv");
    _exit(127);
  }
  close(fds[1]);
  std::string err;
  char buf[4096];
  ssize_t r;
  while ((r = read(fds[0], buf, sizeof(buf))) > 0) err.append(buf, static_cast<size_t>(r));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::fprintf(stderr, "%s", err.c_str());  // shown by ctest --output-on-failure
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  int rc = Check(code == expected_code, "exit code " + std::to_string(code) + ", expected " +
                                            std::to_string(expected_code));
  rc |= Check(err.rfind("tensorcast: error: ", 0) == 0 && !err.empty() && err.back() == '\n' &&
                  err.find('\n') == err.size() - 1,
              "stderr is not one 'tensorcast: error: ...' line");
  if (outs != "-") {
    size_t start = 0;
    while (start <= outs.size()) {
      const size_t comma = std::min(outs.find(',', start), outs.size());
      const std::string out = outs.substr(start, comma - start);
      rc |= Check(access(out.c_str(), F_OK) != 0, "the output file '" + out + "' exists");
      rc |= Check(!TempFileLeft(out), "a temporary file was left next to '" + out + "'");
      start = comma + 1;
    }
  }
  return rc;
}

}  // namespace
}  // namespace cli
}  // namespace tensorcast

int main(int argc, char** argv) {
  using namespace tensorcast::cli;  // NOLINT(build/namespaces)
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 3) return WriteFixtures(argv[2]);
  if (mode == "compare" && argc == 4) return Compare(argv[2], argv[3]);
  if (mode == "expect-error" && argc > 5 && std::strcmp(argv[4], "--") == 0) {
    return ExpectError(std::atoi(argv[2]), argv[3], argv + 5);
  }
  std::fprintf(stderr,
               "usage: tensorcast_cli_testdata write DIR | compare A B | "
               "expect-error CODE OUT[,OUT...] -- PROGRAM ARGS...\n");
  return 2;
}
