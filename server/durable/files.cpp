#include "files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace linkage::server::durable {
namespace {

Error io_error(const std::string& what, const std::string& path, int err) {
  return Error{ErrorCode::failed_precondition, "cannot " + what + " " + path + ": " + std::strerror(err)};
}

// write(2) until all is written (it may write less, or be interrupted).
bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

Result<Dir> Dir::open(const std::string& path, bool create) {
  if (create) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return Error{ErrorCode::failed_precondition, "cannot make the directory " + path + ": " + ec.message()};
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return io_error("open the directory", path, errno);
  return Dir(fd, path);
}

Dir::Dir(Dir&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

Dir& Dir::operator=(Dir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

Dir::~Dir() {
  if (fd_ >= 0) ::close(fd_);
}

Status Dir::failed(const std::string& what, const std::string& name) const {
  return io_error(what, path_ + "/" + name, errno);
}

Result<std::string> Dir::read(const std::string& name) const {
  const int fd = ::openat(fd_, name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Error{ErrorCode::not_found, path_ + "/" + name + " does not exist"};
    return failed("open", name).error();
  }
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const Status bad = failed("read", name);
      ::close(fd);
      return bad.error();
    }
    out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

Status Dir::write_atomically(const std::string& name, std::string_view bytes) const {
  const std::string temp = name + ".tmp";
  const int fd = ::openat(fd_, temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return failed("create", temp);
  if (!write_all(fd, bytes) || ::fsync(fd) != 0) {
    const Status bad = failed("write", temp);
    ::close(fd);
    ::unlinkat(fd_, temp.c_str(), 0);
    return bad;
  }
  ::close(fd);
  if (::renameat(fd_, temp.c_str(), fd_, name.c_str()) != 0) return failed("rename to " + name, temp);
  return sync();
}

std::vector<std::string> Dir::list() const {
  std::vector<std::string> names;
  const int fd = ::dup(fd_);
  if (fd < 0) return names;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return names;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status Dir::remove(const std::string& name) const {
  if (::unlinkat(fd_, name.c_str(), 0) != 0 && errno != ENOENT) return failed("remove", name);
  return ok_status();
}

Status Dir::rename(const std::string& from, const std::string& to) const {
  if (::renameat(fd_, from.c_str(), fd_, to.c_str()) != 0) return failed("rename to " + to, from);
  return ok_status();
}

Status Dir::sync() const {
  if (::fsync(fd_) != 0) return io_error("sync the directory", path_, errno);
  return ok_status();
}

Result<AppendFile> AppendFile::create(const Dir& dir, const std::string& name, std::string_view header) {
  const std::string path = dir.path() + "/" + name;
  const int fd = ::openat(dir.fd(), name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return io_error("create", path, errno);
  AppendFile file(fd, path);
  if (Status ok = file.append(header); !ok) return ok.error();
  if (Status ok = file.sync(); !ok) return ok.error();
  if (Status ok = dir.sync(); !ok) return ok.error();
  return file;
}

Result<AppendFile> AppendFile::reopen(const Dir& dir, const std::string& name, std::uint64_t keep) {
  const std::string path = dir.path() + "/" + name;
  const int fd = ::openat(dir.fd(), name.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return io_error("open", path, errno);
  AppendFile file(fd, path);
  if (::ftruncate(fd, static_cast<off_t>(keep)) != 0) return io_error("cut the damaged end of", path, errno);
  if (Status ok = file.sync(); !ok) return ok.error();
  return file;
}

AppendFile::AppendFile(AppendFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

AppendFile& AppendFile::operator=(AppendFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status AppendFile::append(std::string_view bytes) {
  if (!write_all(fd_, bytes)) return io_error("append to", path_, errno);
  return ok_status();
}

Status AppendFile::sync() {
  if (::fdatasync(fd_) != 0) return io_error("sync", path_, errno);
  return ok_status();
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

}  // namespace linkage::server::durable
