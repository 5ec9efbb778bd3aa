#include "ladder/bot_upload.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "text/utf8_text.h"

namespace allfives::referee {
namespace fs = std::filesystem;
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

// A name in a message: quoted, made UTF-8.
std::string quote(const std::string& name) {
  std::string out = "'";
  out += valid_utf8(name);
  out += '\'';
  return out;
}

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

// Writes a tree below one folder, never through a link, within the limits.
class TreeWriter {
 public:
  TreeWriter(int root, const UploadLimits& limits) : root_(root), limits_(limits) {}

  std::string add_dir(const std::string& name) {
    std::vector<std::string> parts;
    if (std::string why = split_name(name, parts); !why.empty()) return why;
    int dummy = -1;
    return parts.empty() ? "" : walk(parts, parts.size(), name, dummy, /*keep=*/false);
  }

  // Opens a new file; write() appends to it.
  std::string add_file(const std::string& name, bool executable) {
    file_.reset();
    std::vector<std::string> parts;
    if (std::string why = split_name(name, parts); !why.empty()) return why;
    if (parts.empty()) return quote(name) + ": a file without a name";
    int parent = -1;
    if (std::string why = walk(parts, parts.size() - 1, name, parent, true); !why.empty())
      return why;
    Fd dir(parent);
    if (std::string why = count(name); !why.empty()) return why;
    const int fd = openat(dir.fd, parts.back().c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          executable ? 0755 : 0644);
    if (fd < 0)
      return quote(name) + ": " +
             (errno == EEXIST ? std::string("the name appears twice") : strerror(errno));
    file_ = std::make_unique<Fd>(fd);
    file_name_ = name;
    return "";
  }

  std::string write(const char* data, size_t n) {
    bytes_ += n;
    if (bytes_ > limits_.max_bytes)
      return "more than " + std::to_string(limits_.max_bytes) +
             " bytes once unpacked (the ladder's max_upload_bytes)";
    while (n > 0) {
      const ssize_t w = ::write(file_->fd, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return quote(file_name_) + ": " + strerror(errno);
      }
      data += w;
      n -= static_cast<size_t>(w);
    }
    return "";
  }

  std::string add_link(const std::string& name, const std::string& target) {
    std::vector<std::string> parts, target_parts;
    if (std::string why = split_name(name, parts); !why.empty()) return why;
    if (parts.empty()) return quote(name) + ": a link without a name";
    if (target.empty() || target[0] == '/' || !split_name(target, target_parts).empty())
      return quote(name) + " is a link to " + quote(target) +
             ": a link may only lead below its own folder (no absolute target, no ..)";
    int parent = -1;
    if (std::string why = walk(parts, parts.size() - 1, name, parent, true); !why.empty())
      return why;
    Fd dir(parent);
    if (std::string why = count(name); !why.empty()) return why;
    if (symlinkat(target.c_str(), dir.fd, parts.back().c_str()) != 0)
      return quote(name) + ": " + strerror(errno);
    return "";
  }

 private:
  std::string count(const std::string& name) {
    if (++files_ > limits_.max_files)
      return quote(name) + ": more than " + std::to_string(limits_.max_files) +
             " files and folders (the ladder's max_upload_files)";
    return "";
  }

  // Opens (making them) the first `n` components as folders, refusing links on the way; the
  // last folder's descriptor into *out if `keep`.
  std::string walk(const std::vector<std::string>& parts, size_t n, const std::string& name,
                   int& out, bool keep) {
    Fd cur(dup(root_));
    for (size_t i = 0; i < n; ++i) {
      int fd = openat(cur.fd, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT) {
        if (std::string why = count(name); !why.empty()) return why;
        if (mkdirat(cur.fd, parts[i].c_str(), 0755) != 0)
          return quote(name) + ": " + strerror(errno);
        fd = openat(cur.fd, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      }
      if (fd < 0)
        return quote(name) + ": " +
               (errno == ELOOP || errno == ENOTDIR
                    ? std::string("its folder '") + parts[i] + "' is a link or a file"
                    : std::string(strerror(errno)));
      cur = Fd(fd);
    }
    if (keep) {
      out = cur.fd;
      cur.fd = -1;
    }
    return "";
  }

  int root_;
  UploadLimits limits_;
  uint64_t bytes_ = 0;
  uint32_t files_ = 0;
  std::unique_ptr<Fd> file_;
  std::string file_name_;
};

std::string copy_file_into(TreeWriter& w, const fs::path& from, const std::string& name) {
  struct stat st {};
  if (lstat(from.c_str(), &st) != 0) return from.string() + ": " + strerror(errno);
  if (std::string why = w.add_file(name, st.st_mode & 0111); !why.empty()) return why;
  Fd in(open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (in.fd < 0) return from.string() + ": " + strerror(errno);
  std::array<char, 1 << 16> buf{};
  for (;;) {
    const ssize_t r = read(in.fd, buf.data(), buf.size());
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return from.string() + ": " + strerror(errno);
    if (r == 0) return "";
    if (std::string why = w.write(buf.data(), static_cast<size_t>(r)); !why.empty()) return why;
  }
}

std::string copy_folder(TreeWriter& w, const fs::path& source) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(source, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const std::string name = it->path().lexically_relative(source).string();
    const fs::file_status st = it->symlink_status(ec);
    std::string why;
    if (fs::is_symlink(st))
      why = w.add_link(name, fs::read_symlink(it->path(), ec).string());
    else if (fs::is_directory(st))
      why = w.add_dir(name);
    else if (fs::is_regular_file(st))
      why = copy_file_into(w, it->path(), name);
    else
      why = quote(name) + " is not a file, a folder or a link (a device, FIFO or socket)";
    if (!why.empty()) return why;
  }
  return ec ? source.string() + ": " + ec.message() : "";
}

std::string unpack(TreeWriter& w, const std::string& path) {
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  archive_read_support_filter_all(a.get());
  archive_read_support_format_all(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
    return path + ": not an archive this referee reads: " + archive_error_string(a.get());
  archive_entry* e = nullptr;
  std::array<char, 1 << 16> buf{};
  for (;;) {
    const int rc = archive_read_next_header(a.get(), &e);
    if (rc == ARCHIVE_EOF) return "";
    if (rc < ARCHIVE_WARN) return path + ": " + archive_error_string(a.get());
    const char* raw = archive_entry_pathname(e);
    const std::string name = raw ? raw : "";
    std::string why;
    if (archive_entry_hardlink(e)) {
      why = quote(name) + " is a hard link";
    } else {
      switch (archive_entry_filetype(e)) {
        case AE_IFDIR: why = w.add_dir(name); break;
        case AE_IFLNK: {
          const char* t = archive_entry_symlink(e);
          why = w.add_link(name, t ? t : "");
          break;
        }
        case AE_IFREG:
          why = w.add_file(name, archive_entry_perm(e) & 0111);
          for (la_ssize_t r; why.empty() && (r = archive_read_data(a.get(), buf.data(),
                                                                   buf.size())) != 0;) {
            if (r < 0) return path + ": " + archive_error_string(a.get());
            why = w.write(buf.data(), static_cast<size_t>(r));
          }
          break;
        default:
          why = quote(name) + " is a device, a FIFO or a socket";
      }
    }
    if (!why.empty()) return why;
  }
}

// The one folder an unpacked archive put everything in, or empty.
fs::path lone_top_folder(const fs::path& dir) {
  std::error_code ec;
  fs::path only;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!only.empty() || !fs::is_directory(entry.symlink_status(ec))) return {};
    only = entry.path();
  }
  return only;
}

}  // namespace

bool is_archive_name(const std::string& path) {
  static constexpr std::array<const char*, 8> kEndings = {
      ".zip", ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tar.zst"};
  return std::any_of(kEndings.begin(), kEndings.end(), [&](const char* end) {
    const std::string e(end);
    return path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  });
}

std::string store_upload(const std::string& source, const std::string& dest,
                         const UploadLimits& limits) {
  std::error_code ec;
  const fs::file_status st = fs::status(source, ec);
  if (ec || !fs::exists(st)) return source + ": no such file or folder";
  const bool archive = fs::is_regular_file(st) && is_archive_name(source);
  const fs::path into = archive ? fs::path(dest + ".unpacking") : fs::path(dest);
  if (mkdir(into.c_str(), 0755) != 0) return into.string() + ": " + strerror(errno);
  Fd root(open(into.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (root.fd < 0) return into.string() + ": " + strerror(errno);
  TreeWriter w(root.fd, limits);
  std::string why;
  if (fs::is_directory(st))
    why = copy_folder(w, source);
  else if (archive)
    why = unpack(w, source);
  else if (fs::is_regular_file(st))
    why = copy_file_into(w, source, fs::path(source).filename().string());
  else
    why = source + ": not a file or a folder";
  if (!why.empty() || !archive) return why;
  const fs::path top = lone_top_folder(into);
  fs::rename(top.empty() ? into : top, dest, ec);
  if (ec) return dest + ": " + ec.message();
  fs::remove_all(into, ec);
  return "";
}

std::string make_read_only(const std::string& folder) {
  std::error_code ec;
  std::vector<fs::path> all{folder};
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::end(it);
       it.increment(ec))
    all.push_back(it->path());
  if (ec) return folder + ": " + ec.message();
  for (const fs::path& p : all) {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
    const mode_t mode = S_ISDIR(st.st_mode) ? 0555 : (st.st_mode & 0111 ? 0555 : 0444);
    if (chmod(p.c_str(), mode) != 0) return p.string() + ": " + strerror(errno);
  }
  return "";
}

std::string choose_command(const std::string& folder, const std::vector<std::string>& given,
                           const std::string& python, std::vector<std::string>& argv) {
  std::error_code ec;
  auto executable = [&](const fs::path& p) {
    return fs::is_regular_file(fs::symlink_status(p, ec)) && access(p.c_str(), X_OK) == 0;
  };
  auto regular = [&](const fs::path& p) { return fs::is_regular_file(fs::symlink_status(p, ec)); };
  const fs::path dir(folder);
  argv.clear();
  if (!given.empty()) {
    for (const std::string& word : given) {
      const bool inside = !word.empty() && word[0] != '-' && word[0] != '/' &&
                          word.find("..") == std::string::npos && fs::exists(dir / word, ec);
      argv.push_back(inside ? (dir / word).lexically_normal().string() : word);
    }
    return "";
  }
  for (const char* name : {"bot", "run"})
    if (executable(dir / name)) return argv = {(dir / name).string()}, "";
  std::vector<fs::path> scripts, programs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".py" && regular(entry.path())) scripts.push_back(entry.path());
    else if (executable(entry.path())) programs.push_back(entry.path());
  }
  for (const char* name : {"bot.py", "main.py"})
    if (regular(dir / name)) return argv = {python, (dir / name).string()}, "";
  if (scripts.size() == 1) return argv = {python, scripts[0].string()}, "";
  if (scripts.empty() && programs.size() == 1) return argv = {programs[0].string()}, "";
  return "which program starts the bot? Name it with --command (e.g. --command './mybot "
         "--depth 3'), or call it bot (an executable), bot.py or main.py";
}

}  // namespace allfives::referee
