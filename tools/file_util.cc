// File reads and all-or-nothing writes for the tensorcast command-line program.
#include "file_util.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <set>
#include <string>
#include <vector>

namespace tensorcast {
namespace cli {
namespace {

Status IoError(const std::string& what, const std::string& path, int err) {
  return Status(StatusCode::kInvalidArgument, what + " '" + path + "': " + std::strerror(err));
}

// Reads up to `n` bytes, retrying on EINTR and short reads. Returns the number of bytes
// read (< n only at end of file) or -1 with errno set.
ssize_t ReadFully(int fd, void* data, size_t n) {
  auto* p = static_cast<unsigned char*>(data);
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::read(fd, p + done, n - done);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(done);
}

bool WriteFully(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

mode_t CurrentUmask() {
  const mode_t mask = ::umask(0);  // the only way to read it; the CLI is single-threaded
  ::umask(mask);
  return mask;
}

// ------------------------------------------------------------------ cleanup on signals

// Files to undo when a signal ends the program: `from` is removed, or renamed to `to`
// when `to` is set (a replaced file put back). Slots are claimed and released by the
// main thread; the handler only reads them. The strings are leaked on purpose while
// registered: the handler may run at any moment.
struct UndoSlot {
  std::atomic<const char*> from{nullptr};
  std::atomic<const char*> to{nullptr};
};
constexpr size_t kUndoSlots = 4 * 16384 + 16;  // Split's output limit: 16384 files
UndoSlot g_undo[kUndoSlots];
std::atomic<size_t> g_undo_used{0};  // slots [0, used) may be in use

void UndoAndReraise(int sig) {
  const size_t used = g_undo_used.load();
  for (size_t i = used; i-- > 0;) {
    const char* from = g_undo[i].from.load();
    if (from == nullptr) continue;
    const char* to = g_undo[i].to.load();
    // A backup that is still a hard link of `to` makes rename() a no-op (POSIX: same
    // file), so the name is removed afterwards in every case.
    if (to != nullptr) ::rename(from, to);
    ::unlink(from);
  }
  // SA_RESETHAND restored the default action; SA_NODEFER lets it act now.
  ::raise(sig);
}

void InstallHandlersOnce() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = &UndoAndReraise;
  sa.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGBUS}) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

const char* CopyString(const std::string& s) {
  char* p = new char[s.size() + 1];
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// Registers an undo action; returns its slot, or kUndoSlots when none is free.
size_t RegisterUndo(const std::string& from, const std::string& to) {
  InstallHandlersOnce();
  static size_t next = 0;
  for (size_t k = 0; k < kUndoSlots; ++k) {
    const size_t i = (next + k) % kUndoSlots;
    if (g_undo[i].from.load() != nullptr) continue;
    g_undo[i].to.store(to.empty() ? nullptr : CopyString(to));
    g_undo[i].from.store(CopyString(from));
    if (g_undo_used.load() <= i) g_undo_used.store(i + 1);
    next = i + 1;
    return i;
  }
  return kUndoSlots;
}

// Forgets the undo action in `*slot` (if any) and clears it.
void ReleaseUndo(size_t* slot) {
  if (*slot >= kUndoSlots) return;
  const char* from = g_undo[*slot].from.exchange(nullptr);
  const char* to = g_undo[*slot].to.exchange(nullptr);
  delete[] from;
  delete[] to;
  *slot = kUndoSlots;
}

}  // namespace

// The "no undo action" slot value of OutputGroup::Output.
const size_t OutputGroup::kNoUndo = kUndoSlots;

namespace {

// ------------------------------------------------------------------------ test faults

// Tests only: TENSORCAST_TEST_FAULT=POINT:INDEX:ACTION makes output INDEX (0-based) fail at
// POINT ("stage": after its temporary file is created; "commit": just before it is moved
// into place) with ACTION: "eio" (a write error), "enomem" (std::bad_alloc) or a signal
// number (raised). Unset in normal use.
void MaybeFault(const char* point, size_t index, int* err) {
  static const char* spec = std::getenv("TENSORCAST_TEST_FAULT");
  if (spec == nullptr) return;
  const std::string text = spec;
  const size_t a = text.find(':'), b = text.find(':', a == std::string::npos ? a : a + 1);
  if (a == std::string::npos || b == std::string::npos || text.substr(0, a) != point ||
      text.substr(a + 1, b - a - 1) != std::to_string(index)) {
    return;
  }
  const std::string action = text.substr(b + 1);
  if (action == "eio") {
    *err = EIO;
  } else if (action == "enomem") {
    throw std::bad_alloc();
  } else {
    ::raise(std::atoi(action.c_str()));
  }
}

// ------------------------------------------------------------------------ paths

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Follows symbolic links from `path` (at most 40, as the kernel) to the file that a
// write through it would replace.
Status ResolveOutput(const std::string& path, std::string* target) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) {
      *target = p;
      return Status::Ok();
    }
    std::vector<char> buf(PATH_MAX + 1);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) return IoError("cannot read the link", p, errno);
    const std::string link(buf.data(), static_cast<size_t>(n));
    p = !link.empty() && link[0] == '/' ? link : DirName(p) + link;
  }
  return IoError("cannot write", path, ELOOP);
}

// A name next to `target` made of its base name (shortened so the whole name fits in
// NAME_MAX bytes), `marker` and "XXXXXX" for mkstemp.
std::string SiblingTemplate(const std::string& target, const char* marker) {
  const std::string base = BaseName(target);
  const size_t fixed = 1 + std::strlen(marker) + 6;  // "." + marker + "XXXXXX"
  const size_t keep = base.size() + fixed > NAME_MAX ? NAME_MAX - fixed : base.size();
  return DirName(target) + "." + base.substr(0, keep) + marker + "XXXXXX";
}

}  // namespace

// ------------------------------------------------------------------------ inputs

InputFile::~InputFile() {
  if (fd_ > 2) ::close(fd_);
}

Status InputFile::Open(const std::string& path) {
  path_ = path;
  position_ = 0;
  size_ = 0;
  buffered_ = false;
  buffer_.clear();
  if (path == "-") {
    fd_ = STDIN_FILENO;
    buffered_ = true;
  } else {
    // O_NONBLOCK: opening a FIFO without a writer must not wait (it is refused below).
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) return IoError("cannot open", path, errno);
    struct stat st;
    if (::fstat(fd_, &st) != 0) return IoError("cannot stat", path, errno);
    if (S_ISDIR(st.st_mode)) return IoError("cannot read", path, EISDIR);
    if (!S_ISREG(st.st_mode)) {
      return Status(StatusCode::kInvalidArgument,
                    "cannot read '" + path +
                        "': not a regular file (use - to read standard input with --format)");
    }
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    size_ = static_cast<uint64_t>(st.st_size);
    buffered_ = st.st_size == 0;  // /proc files report 0: read them to the end
  }
  if (buffered_) {
    char chunk[1 << 16];
    while (true) {
      const ssize_t r = ::read(fd_, chunk, sizeof chunk);
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError("cannot read", path, errno);
      }
      if (r == 0) break;
      try {
        buffer_.append(chunk, static_cast<size_t>(r));
      } catch (const std::bad_alloc&) {
        return Status(StatusCode::kInternal, "cannot read '" + path + "': out of memory after " +
                                                 std::to_string(buffer_.size()) + " bytes");
      }
    }
    size_ = buffer_.size();
  }
  return Status::Ok();
}

Status InputFile::ReadExact(void* data, size_t n, const char* what) {
  size_t got = 0;
  if (buffered_) {
    got = n <= remaining() ? n : static_cast<size_t>(remaining());
    std::memcpy(data, buffer_.data() + position_, got);
  } else {
    const ssize_t r = ReadFully(fd_, data, n);
    if (r < 0) return IoError("cannot read", path_, errno);
    got = static_cast<size_t>(r);
  }
  position_ += got;
  if (got != n) {
    return Status(StatusCode::kInvalidArgument, "truncated file '" + path_ +
                                                    "': " + std::to_string(got) + " of " +
                                                    std::to_string(n) + " bytes of " + what);
  }
  return Status::Ok();
}

Status ReadWholeFile(const std::string& path, std::string* out, uint64_t max_bytes) {
  InputFile file;
  Status s = file.Open(path);
  if (!s.ok()) return s;
  if (file.size() > max_bytes) {
    return Status(StatusCode::kInvalidArgument,
                  "cannot read '" + path + "': " + std::to_string(file.size()) +
                      " bytes is more than the limit of " + std::to_string(max_bytes));
  }
  try {
    out->resize(static_cast<size_t>(file.size()));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kInternal, "cannot read '" + path + "': out of memory for " +
                                             std::to_string(file.size()) + " bytes");
  }
  return file.ReadExact(out->data(), out->size(), "the file");
}

// ------------------------------------------------------------------------ outputs

OutputGroup::~OutputGroup() {
  if (!done_) Rollback();
}

Status OutputGroup::Stage(const std::string& path, const std::vector<ByteSpan>& pieces) {
  return StageStream(path, [&](const ByteSink& sink) {
    for (const ByteSpan& piece : pieces) {
      Status s = sink(piece.data, piece.size);
      if (!s.ok()) return s;
    }
    return Status::Ok();
  });
}

Status OutputGroup::StageStream(const std::string& path,
                                const std::function<Status(const ByteSink&)>& produce) {
  if (BaseName(path).empty()) {
    return Status(StatusCode::kInvalidArgument, "output path '" + path + "' names a directory");
  }
  Output out;
  out.path = path;
  Status s = ResolveOutput(path, &out.target);
  if (!s.ok()) return s;
  if (!targets_.insert(out.target).second) {
    return Status(StatusCode::kInvalidArgument,
                  "cannot write '" + path + "': another output names the same file");
  }
  mode_t mode = 0666 & ~CurrentUmask();
  struct stat st;
  if (::stat(out.target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return IoError("cannot write", path, EISDIR);
    if (!S_ISREG(st.st_mode)) {
      return Status(StatusCode::kInvalidArgument,
                    "cannot write '" + path + "': it exists and is not a regular file");
    }
    // Read-only: no write permission bit, or none for this user (root included: it
    // could write the file, but a read-only file says "do not replace me").
    if ((st.st_mode & 0222) == 0 || ::access(out.target.c_str(), W_OK) != 0) {
      return Status(StatusCode::kInvalidArgument,
                    "cannot write '" + path +
                        "': the existing file is read-only; it was left "
                        "as it is");
    }
    out.existed = true;
    mode = st.st_mode & 07777;
  }
  std::string temp = SiblingTemplate(out.target, kTempFileMarker);
  std::vector<char> templ(temp.begin(), temp.end());
  templ.push_back('\0');
  const int fd = ::mkostemp(templ.data(), O_CLOEXEC);
  if (fd < 0) return IoError("cannot create a temporary file for", path, errno);
  out.temp = templ.data();
  out.temp_undo = RegisterUndo(out.temp, "");
  outputs_.push_back(out);  // from here on the destructor removes the temporary file

  int err = 0;
  try {
    MaybeFault("stage", outputs_.size() - 1, &err);
  } catch (...) {
    ::close(fd);
    throw;
  }
  Status produced = Status::Ok();
  if (err == 0) {
    const ByteSink sink = [&](const void* data, size_t size) {
      if (err == 0 && !WriteFully(fd, data, size)) err = errno;
      return err == 0 ? Status::Ok() : IoError("cannot write", path, err);
    };
    try {
      produced = produce(sink);
    } catch (...) {
      ::close(fd);
      throw;
    }
  }
  if (err == 0 && produced.ok() && ::fchmod(fd, mode) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) return IoError("cannot write", path, err);
  return produced;
}

Status OutputGroup::Commit() {
  for (size_t i = 0; i < outputs_.size(); ++i) {
    Output& o = outputs_[i];
    int err = 0;
    if (o.existed) {
      // Keep the replaced file under a temporary name until the whole group is in place.
      std::string b = SiblingTemplate(o.target, kBackupFileMarker);
      std::vector<char> templ(b.begin(), b.end());
      templ.push_back('\0');
      const int fd = ::mkostemp(templ.data(), O_CLOEXEC);
      if (fd < 0) {
        err = errno;
      } else {
        ::close(fd);
        o.backup = templ.data();
        if (::unlink(o.backup.c_str()) != 0 || ::link(o.target.c_str(), o.backup.c_str()) != 0) {
          o.backup_moved = true;  // no hard links here: move the old file aside instead
          if (::rename(o.target.c_str(), o.backup.c_str()) != 0) {
            err = errno;
            ::unlink(o.backup.c_str());
            o.backup.clear();
          }
        }
        if (!o.backup.empty()) o.backup_undo = RegisterUndo(o.backup, o.target);
      }
    }
    if (err == 0) MaybeFault("commit", i, &err);
    if (err == 0 && ::rename(o.temp.c_str(), o.target.c_str()) != 0) err = errno;
    if (err != 0) {
      Rollback();
      done_ = true;
      std::string msg = "cannot write '" + o.path + "': " + std::strerror(err);
      msg += outputs_.size() == 1 ? "; no output was written"
                                  : "; no output was written and every existing file is unchanged";
      return Status(StatusCode::kInvalidArgument, msg);
    }
    ReleaseUndo(&o.temp_undo);
    o.committed = true;
    if (!o.existed) o.target_undo = RegisterUndo(o.target, "");
  }
  // Every output is in place: forget the undo actions, drop the replaced files.
  for (Output& o : outputs_) {
    ReleaseUndo(&o.target_undo);
    ReleaseUndo(&o.backup_undo);
    if (!o.backup.empty()) ::unlink(o.backup.c_str());
  }
  done_ = true;
  return Status::Ok();
}

// Puts back every replaced file (committed outputs, and one moved aside but not yet
// replaced), removes new files and every temporary file.
void OutputGroup::Rollback() {
  for (size_t i = outputs_.size(); i-- > 0;) {
    Output& o = outputs_[i];
    if (!o.backup.empty() && (o.committed || o.backup_moved)) {
      ::rename(o.backup.c_str(), o.target.c_str());
      ::unlink(o.backup.c_str());  // rename() does nothing when both name the same file
    } else if (!o.backup.empty()) {
      ::unlink(o.backup.c_str());  // a hard link: the file itself is still in place
    } else if (o.committed) {
      ::unlink(o.target.c_str());  // a new file
    }
    if (!o.committed) ::unlink(o.temp.c_str());
    ReleaseUndo(&o.backup_undo);
    ReleaseUndo(&o.target_undo);
    ReleaseUndo(&o.temp_undo);
  }
}

Status WriteFileAtomic(const std::string& path, const std::vector<ByteSpan>& pieces) {
  if (path == "-") {
    for (const ByteSpan& piece : pieces) {
      if (!WriteFully(STDOUT_FILENO, piece.data, piece.size)) {
        return IoError("cannot write", "standard output", errno);
      }
    }
    return Status::Ok();
  }
  OutputGroup group;
  Status s = group.Stage(path, pieces);
  if (!s.ok()) return s;
  return group.Commit();
}

}  // namespace cli
}  // namespace tensorcast
