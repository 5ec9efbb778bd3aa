#include "ladder/bot_upload.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>

#include "bots/bot_spec.h"
#include "ladder/tree_writer.h"
#include "rounds/child_process.h"

namespace allfives::referee {
namespace fs = std::filesystem;
namespace {

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
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

// The archive unpacked by the helper program, in a process of its own (archive_unpack.h).
std::string unpack(const std::string& archive, const std::string& into, const UploadLimits& limits,
                   const std::string& unpacker) {
  const std::string report = into + ".why";
  std::string why;
  std::optional<ChildProcess> child = ChildProcess::start(
      {unpacker, archive, into, std::to_string(limits.max_bytes), std::to_string(limits.max_files)},
      report, &why);
  if (!child) return why;
  const int code = child->wait();
  std::ifstream in(report);
  std::getline(in, why);
  std::error_code ec;
  fs::remove(report, ec);
  if (code == 0) return "";
  return why.empty() ? unpacker + " failed (exit " + std::to_string(code) + ")" : why;
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

// Whether `p` lies in a folder every sandbox binds read-only anyway (sandbox.h).
bool in_system_folder(const fs::path& p) {
  for (const char* top : {"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/"})
    if (p.string().rfind(top, 0) == 0) return true;
  return false;
}

// --command's words: a path may only name something of the version's own folder (made
// absolute), or, for the program, a system one, the ladder's Python runner or a name looked
// up in PATH. A bot's paths decide what its sandbox lets it read, so a command naming another
// version's files (or the ladder's) would read them.
std::string given_command(const fs::path& dir, const std::vector<std::string>& given,
                          const std::string& python, std::vector<std::string>& argv) {
  std::error_code ec;
  for (size_t i = 0; i < given.size(); ++i) {
    const std::string& word = given[i];
    const bool path_like = word.find('/') != std::string::npos && !word.starts_with('-');
    const fs::path as_path(word);
    if (!word.starts_with('-') && std::find(as_path.begin(), as_path.end(), "..") != as_path.end())
      return "--command: " + quote(word) +
             " climbs out with ..; paths name files of the bot's "
             "own folder";
    if (!path_like && !fs::exists(dir / word, ec)) {
      argv.push_back(word);  // a flag, a number, or a program looked up in PATH
      continue;
    }
    if (word.starts_with('/')) {
      if (i == 0 && (word == python || in_system_folder(word))) {
        argv.push_back(word);
        continue;
      }
      return "--command: " + quote(word) +
             " is outside the bot's folder; name its files "
             "relative to the folder (./mybot, models/net.bin)";
    }
    argv.push_back((dir / word).lexically_normal().string());
  }
  return "";
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
                         const UploadLimits& limits, const std::string& unpacker) {
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
    why = unpack(source, into.string(), limits, unpacker);
  else if (fs::is_regular_file(st))
    why = copy_file_into(w, source, fs::path(source).filename().string());
  else
    why = source + ": not a file or a folder";
  if (!why.empty()) {  // nothing of a refused upload stays
    fs::remove_all(into, ec);
    fs::remove_all(dest, ec);
    return why;
  }
  if (!archive) return why;
  const fs::path top = lone_top_folder(into);
  fs::rename(top.empty() ? into : top, dest, ec);
  if (ec) return dest + ": " + ec.message();
  fs::remove_all(into, ec);
  return "";
}

std::string default_unpacker() {
  return (fs::path(own_program()).parent_path() / "referee-unpack").string();
}

bool command_words(const std::string& text, std::vector<std::string>& words, std::string* why) {
  words.clear();
  if (text.empty()) return true;
  BotSpec spec;
  if (!parse_bot_spec("x=" + text, spec, why)) return false;
  words = spec.command;
  return true;
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
    // A file that cannot be looked at (a path longer than PATH_MAX) would stay writable.
    if (lstat(p.c_str(), &st) != 0) return p.string() + ": " + strerror(errno);
    if (S_ISLNK(st.st_mode)) continue;
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
  if (!given.empty()) return given_command(dir, given, python, argv);
  for (const char* name : {"bot", "run"})
    if (executable(dir / name)) return argv = {(dir / name).string()}, "";
  std::vector<fs::path> scripts, programs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".py" && regular(entry.path()))
      scripts.push_back(entry.path());
    else if (executable(entry.path()))
      programs.push_back(entry.path());
  }
  for (const char* name : {"bot.py", "main.py"})
    if (regular(dir / name)) return argv = {python, (dir / name).string()}, "";
  if (scripts.size() == 1) return argv = {python, scripts[0].string()}, "";
  if (scripts.empty() && programs.size() == 1) return argv = {programs[0].string()}, "";
  return "which program starts the bot? Name it with --command (e.g. --command './mybot "
         "--depth 3'), or call it bot (an executable), bot.py or main.py";
}

}  // namespace allfives::referee
