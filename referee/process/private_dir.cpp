#include "process/private_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "process/referee_names.h"

namespace allfives::referee {

namespace {

std::string temp_base() {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string base = (tmpdir != nullptr && *tmpdir != '\0') ? tmpdir : "/tmp";
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base;
}

// Whether process `pid` still runs: it exists and is not a zombie (an orphan not reaped yet
// holds no descriptors, so no lock either).
bool process_runs(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const size_t paren = text.rfind(')');  // the name may hold spaces and parentheses
  if (paren == std::string::npos || paren + 2 >= text.size()) return true;
  const char state = text[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

std::vector<std::string> sweep_stale_private_dirs() {
  std::vector<std::string> notes;
  const std::string base = temp_base();
  std::error_code ec;
  for (std::filesystem::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // A name create() makes: "allfives-PID-" and mkdtemp's six characters.
    const std::optional<RefereeName> made = parse_referee_name(name);
    if (!made || made->suffix.size() != 6) continue;
    const pid_t pid = made->pid;
    // The lock decides: its owner holds it as long as it lives (also in another PID namespace,
    // or after its id was reused). The owner's id only guards the moment between mkdtemp and
    // flock in create(), as does the folder's age once its id was reused.
    const int fd = ::open(it->path().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    const bool mine = ::fstat(fd, &st) == 0 && st.st_uid == ::geteuid();
    const bool old =
        std::chrono::system_clock::now() - std::chrono::system_clock::from_time_t(st.st_mtime) >
        kStaleAfter;
    if (mine && (old || !process_runs(pid)) && ::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      std::error_code rm;
      std::filesystem::remove_all(it->path(), rm);
      notes.push_back(rm ? "cannot remove the stale socket folder " + it->path().string() + ": " +
                               rm.message()
                         : "removed the socket folder " + it->path().string() + " of process " +
                               std::to_string(pid) + ", which is gone");
    }
    ::close(fd);
  }
  return notes;
}

std::optional<PrivateDir> PrivateDir::create(std::string* error) {
  const std::string base = temp_base();
  std::string templ = base + "/" + referee_name("XXXXXX");
  std::vector<char> buffer(templ.begin(), templ.end());
  buffer.push_back('\0');
  // mkdtemp creates the directory with mode 0700 and fails if the name exists: no races.
  if (mkdtemp(buffer.data()) == nullptr) {
    if (error != nullptr) {
      *error = "cannot create a private directory under '" + base + "': " + strerrordesc_np(errno);
    }
    return std::nullopt;
  }
  PrivateDir dir{std::string(buffer.data())};
  // mkdtemp already used 0700 (the umask can only narrow it); say so explicitly anyway.
  if (chmod(dir.path_.c_str(), S_IRWXU) != 0) {
    if (error != nullptr) {
      *error = "cannot set mode 0700 on '" + dir.path_ + "': " + strerrordesc_np(errno);
    }
    return std::nullopt;  // dir's destructor removes it
  }
  dir.lock_fd_ = ::open(dir.path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir.lock_fd_ < 0 || ::flock(dir.lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (error != nullptr) *error = "cannot lock '" + dir.path_ + "': " + strerrordesc_np(errno);
    return std::nullopt;
  }
  return dir;
}

PrivateDir& PrivateDir::operator=(PrivateDir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
    lock_fd_ = std::exchange(other.lock_fd_, -1);
  }
  return *this;
}

void PrivateDir::remove() noexcept {
  if (!path_.empty()) {
    std::error_code ignored;  // best effort: a destructor has no one to report to
    std::filesystem::remove_all(path_, ignored);
    path_.clear();
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

}  // namespace allfives::referee
