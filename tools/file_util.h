// tools/file_util.h: whole-file reads, sized reads with truncation checks, and
// atomic writes (temporary file in the same directory, then rename) for the
// tensorcast command-line program. POSIX only. Errors are tensorcast::Status
// values whose message names the path.
#ifndef TENSORCAST_TOOLS_FILE_UTIL_H_
#define TENSORCAST_TOOLS_FILE_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include <tensorcast/tensorcast.h>

namespace tensorcast {
namespace cli {

// An open input file. Not copyable; closes on destruction.
class InputFile {
 public:
  InputFile() = default;
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Opens `path` for reading; fails for missing files and directories.
  Status Open(const std::string& path);
  // Size of the file in bytes (from fstat at Open).
  uint64_t size() const { return size_; }
  // Bytes not read yet.
  uint64_t remaining() const { return size_ - position_; }
  // Reads exactly `n` bytes or fails; `what` names the part being read in the message
  // ("truncated file: ... while reading <what>").
  Status ReadExact(void* data, size_t n, const char* what);

 private:
  int fd_ = -1;
  std::string path_;
  uint64_t size_ = 0;
  uint64_t position_ = 0;
};

// Reads the whole file into `out`.
Status ReadWholeFile(const std::string& path, std::string* out);

struct ByteSpan {
  const void* data;
  size_t size;
};

// Writes the concatenation of `pieces` to `path` without ever leaving a partial file
// there: the bytes go to a temporary file in the same directory, which is renamed over
// `path` once complete and is removed on any failure. The new file gets the usual
// 0666 & ~umask permissions.
Status WriteFileAtomic(const std::string& path, std::initializer_list<ByteSpan> pieces);

// The marker in temporary file names (".<name>.tensorcast-tmp-XXXXXX"), for tests that
// check nothing was left behind.
constexpr const char* kTempFileMarker = ".tensorcast-tmp-";

}  // namespace cli
}  // namespace tensorcast

#endif  // TENSORCAST_TOOLS_FILE_UTIL_H_
