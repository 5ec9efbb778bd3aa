#include "ladder/tree_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "text/utf8_text.h"

namespace allfives::referee {
namespace {

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd(const Fd&) = delete;
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

// The components of an entry's name, or why the name is refused.
std::string split_name(const std::string& name, std::vector<std::string>& parts) {
  uint64_t invalid = 0;
  valid_utf8(name, &invalid);
  if (invalid) return quote(name) + ": the name is not UTF-8";
  for (const unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return quote(name) + ": the name holds a control byte";
  if (name.empty() || name[0] == '/') return quote(name) + ": an absolute or empty name";
  size_t from = 0;
  while (from <= name.size()) {
    const size_t slash = std::min(name.find('/', from), name.size());
    const std::string part = name.substr(from, slash - from);
    from = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return quote(name) + ": the name climbs out with ..";
    parts.push_back(part);
  }
  return "";
}

}  // namespace

std::string quote(const std::string& name) {
  std::string out = "'";
  out += valid_utf8(name);
  out += '\'';
  return out;
}

TreeWriter::~TreeWriter() {
  if (file_ >= 0) close(file_);
}

std::string TreeWriter::add_dir(const std::string& name) {
  std::vector<std::string> parts;
  if (std::string why = split_name(name, parts); !why.empty()) return why;
  int unused = -1;
  return parts.empty() ? "" : walk(parts, parts.size(), name, unused, /*keep=*/false);
}

std::string TreeWriter::add_file(const std::string& name, bool executable) {
  if (file_ >= 0) close(file_);
  file_ = -1;
  std::vector<std::string> parts;
  if (std::string why = split_name(name, parts); !why.empty()) return why;
  if (parts.empty()) return quote(name) + ": a file without a name";
  int parent = -1;
  if (std::string why = walk(parts, parts.size() - 1, name, parent, true); !why.empty()) return why;
  Fd dir(parent);
  if (std::string why = count(name); !why.empty()) return why;
  file_ = openat(dir.fd, parts.back().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 executable ? 0755 : 0644);
  if (file_ < 0)
    return quote(name) + ": " +
           (errno == EEXIST ? std::string("the name appears twice") : strerror(errno));
  file_name_ = name;
  return "";
}

std::string TreeWriter::write(const char* data, size_t n) {
  bytes_ += n;
  if (bytes_ > limits_.max_bytes)
    return "more than " + std::to_string(limits_.max_bytes) +
           " bytes once unpacked (the ladder's max_upload_bytes)";
  while (n > 0) {
    const ssize_t w = ::write(file_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return quote(file_name_) + ": " + strerror(errno);
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return "";
}

std::string TreeWriter::add_link(const std::string& name, const std::string& target) {
  std::vector<std::string> parts, target_parts;
  if (std::string why = split_name(name, parts); !why.empty()) return why;
  if (parts.empty()) return quote(name) + ": a link without a name";
  if (target.empty() || target[0] == '/' || !split_name(target, target_parts).empty())
    return quote(name) + " is a link to " + quote(target) +
           ": a link may only lead below its own folder (no absolute target, no ..)";
  int parent = -1;
  if (std::string why = walk(parts, parts.size() - 1, name, parent, true); !why.empty()) return why;
  Fd dir(parent);
  if (std::string why = count(name); !why.empty()) return why;
  if (symlinkat(target.c_str(), dir.fd, parts.back().c_str()) != 0)
    return quote(name) + ": " + strerror(errno);
  return "";
}

std::string TreeWriter::count(const std::string& name) {
  if (++files_ > limits_.max_files)
    return quote(name) + ": more than " + std::to_string(limits_.max_files) +
           " files and folders (the ladder's max_upload_files)";
  return "";
}

// Opens (making them) the first `n` components as folders, refusing links on the way; the last
// folder's descriptor into *out if `keep`.
std::string TreeWriter::walk(const std::vector<std::string>& parts, size_t n,
                             const std::string& name, int& out, bool keep) {
  Fd cur(dup(root_));
  for (size_t i = 0; i < n; ++i) {
    int fd = openat(cur.fd, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
      if (std::string why = count(name); !why.empty()) return why;
      if (mkdirat(cur.fd, parts[i].c_str(), 0755) != 0) return quote(name) + ": " + strerror(errno);
      fd = openat(cur.fd, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
      return quote(name) + ": " +
             (errno == ELOOP || errno == ENOTDIR
                  ? "its folder " + quote(parts[i]) + " is a link or a file"
                  : std::string(strerror(errno)));
    cur = Fd(fd);
  }
  if (keep) {
    out = cur.fd;
    cur.fd = -1;
  }
  return "";
}

}  // namespace allfives::referee
