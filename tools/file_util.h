// tools/file_util.h: reading input files and writing output files for the tensorcast
// command-line program. POSIX only. Errors are tensorcast::Status values whose message
// names the path and the cause.
//
// Inputs: a regular file, or "-" for standard input (read to its end). Anything else (a
// directory, a FIFO, a device, a socket) is refused as "not a regular file" without
// blocking. A regular file that reports size 0 (such as a /proc file) is read to its end.
//
// Outputs are written all or nothing, and a failure leaves every existing file as it was:
// - Each output is first written to a temporary file next to its final name
//   (".<name>.tensorcast-tmp-XXXXXX", shortened to fit the 255-byte name limit).
// - "Replace" means: a symbolic link is followed and its target replaced; an existing
//   regular file is replaced atomically (rename) and the new file keeps its permission
//   bits; an existing file that the user may not write (read-only) is refused, as is
//   anything that is not a regular file (a directory, a FIFO, ...). A new file gets the
//   usual 0666 & ~umask permissions.
// - A group of outputs (Split) is committed only when every one is staged. While the
//   group is moved into place, each replaced file is kept as a hard link (or, where the
//   file system has none, under a temporary name) until the group is complete, so a
//   failure part way puts every old file back and removes the new ones.
// - Temporary files never outlive the program: they are removed on every failure, and
//   SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ and SIGBUS (a mapped input truncated
//   by another process) remove them (and restore replaced
//   files) before the signal takes its default action.
#ifndef TENSORCAST_TOOLS_FILE_UTIL_H_
#define TENSORCAST_TOOLS_FILE_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <tensorcast/tensorcast.h>

namespace tensorcast {
namespace cli {

// An open input file (see the file comment). Not copyable; closes on destruction.
class InputFile {
 public:
  InputFile() = default;
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Opens `path` ("-": standard input) for reading.
  Status Open(const std::string& path);
  // Size of the input in bytes.
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
  bool buffered_ = false;  // streams and size-0 files: the whole input is in buffer_
  std::string buffer_;
};

// Reads the whole input into `out`; fails, before reading, when it is larger than
// `max_bytes`.
Status ReadWholeFile(const std::string& path, std::string* out, uint64_t max_bytes = SIZE_MAX / 2);

struct ByteSpan {
  const void* data;
  size_t size;
};

// Takes the next `size` bytes of an output.
using ByteSink = std::function<Status(const void* data, size_t size)>;

// Output files written all or nothing (see the file comment). Stage each file, then
// Commit; a group that is destroyed without a successful Commit leaves no trace.
class OutputGroup {
 public:
  OutputGroup() = default;
  ~OutputGroup();
  OutputGroup(const OutputGroup&) = delete;
  OutputGroup& operator=(const OutputGroup&) = delete;

  // Writes the concatenation of `pieces` to a temporary file that will replace `path`.
  // Fails for outputs that may not be replaced, two outputs with the same final file,
  // and write errors (the message names `path`).
  Status Stage(const std::string& path, const std::vector<ByteSpan>& pieces);
  // As Stage, for an output produced piece by piece: `produce` passes each piece to the
  // sink in order (the sink's error, naming `path`, says the write failed: return it).
  // An error from `produce` fails the stage as a write error does.
  Status StageStream(const std::string& path,
                     const std::function<Status(const ByteSink&)>& produce);
  // Moves every staged file into place, or none.
  Status Commit();

 private:
  struct Output {
    std::string path;    // as given, for messages
    std::string target;  // symbolic links resolved
    std::string temp;    // staged content
    std::string backup;  // the replaced file while the group is committed
    bool existed = false;
    bool backup_moved = false;  // the backup is a rename, not a hard link
    bool committed = false;
    size_t temp_undo = kNoUndo, backup_undo = kNoUndo, target_undo = kNoUndo;  // signal undo
  };
  static const size_t kNoUndo;
  void Rollback();
  std::vector<Output> outputs_;
  std::set<std::string> targets_;
  bool done_ = false;
};

// Writes one output all or nothing (a group of one). "-" writes to standard output.
Status WriteFileAtomic(const std::string& path, const std::vector<ByteSpan>& pieces);

// The markers in temporary file names, for tests that check that nothing was left.
constexpr const char* kTempFileMarker = ".tensorcast-tmp-";
constexpr const char* kBackupFileMarker = ".tensorcast-old-";

}  // namespace cli
}  // namespace tensorcast

#endif  // TENSORCAST_TOOLS_FILE_UTIL_H_
