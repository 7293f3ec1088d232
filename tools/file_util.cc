// File reads and atomic writes for the tensorcast command-line program.
#include "file_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

}  // namespace

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status InputFile::Open(const std::string& path) {
  path_ = path;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return IoError("cannot open", path, errno);
  struct stat st;
  if (::fstat(fd_, &st) != 0) return IoError("cannot stat", path, errno);
  if (S_ISDIR(st.st_mode)) return IoError("cannot read", path, EISDIR);
  size_ = static_cast<uint64_t>(st.st_size);
  position_ = 0;
  return Status::Ok();
}

Status InputFile::ReadExact(void* data, size_t n, const char* what) {
  const ssize_t r = ReadFully(fd_, data, n);
  if (r < 0) return IoError("cannot read", path_, errno);
  position_ += static_cast<uint64_t>(r);
  if (static_cast<size_t>(r) != n) {
    return Status(StatusCode::kInvalidArgument, "truncated file '" + path_ +
                                                    "': " + std::to_string(r) + " of " +
                                                    std::to_string(n) + " bytes of " + what);
  }
  return Status::Ok();
}

Status ReadWholeFile(const std::string& path, std::string* out) {
  InputFile file;
  Status s = file.Open(path);
  if (!s.ok()) return s;
  if (file.size() > SIZE_MAX / 2) {
    return Status(StatusCode::kOverflow, "file '" + path + "' is too large");
  }
  out->resize(static_cast<size_t>(file.size()));
  return file.ReadExact(out->data(), out->size(), "the file");
}

Status WriteFileAtomic(const std::string& path, std::initializer_list<ByteSpan> pieces) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) {
    return Status(StatusCode::kInvalidArgument, "output path '" + path + "' names a directory");
  }
  std::string temp =
      (slash == std::string::npos ? std::string() : dir) + "." + base + kTempFileMarker + "XXXXXX";
  std::vector<char> templ(temp.begin(), temp.end());
  templ.push_back('\0');
  const int fd = ::mkstemp(templ.data());
  if (fd < 0) return IoError("cannot create a temporary file in", dir, errno);
  temp = templ.data();

  int err = 0;
  for (const ByteSpan& piece : pieces) {
    if (!WriteFully(fd, piece.data, piece.size)) {
      err = errno;
      break;
    }
  }
  if (err == 0 && ::fchmod(fd, 0666 & ~CurrentUmask()) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(temp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    return IoError("cannot write", path, err);
  }
  return Status::Ok();
}

}  // namespace cli
}  // namespace tensorcast
