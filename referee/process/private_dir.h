// A private directory for the bots' Unix sockets.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace allfives::referee {

// A directory of mode 0700 under $TMPDIR (or /tmp if unset), named allfives-PID-XXXXXX (PID:
// the process that made it), made with mkdtemp and removed with all its contents on
// destruction. It stays locked (flock) while the object lives, in this process and the ones it
// forks, so a folder left behind by a killed referee can be told apart from a live one and
// removed by sweep_stale_private_dirs(). Keep the names inside short: a Unix socket path must
// fit in 107 bytes.
class PrivateDir {
 public:
  // Returns nullopt and sets *error (if error is not null) when the directory cannot be made.
  static std::optional<PrivateDir> create(std::string* error);

  PrivateDir(PrivateDir&& other) noexcept
      : path_(std::exchange(other.path_, {})), lock_fd_(std::exchange(other.lock_fd_, -1)) {}
  PrivateDir& operator=(PrivateDir&& other) noexcept;
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir() { remove(); }

  const std::string& path() const { return path_; }

 private:
  explicit PrivateDir(std::string path) : path_(std::move(path)) {}
  void remove() noexcept;
  std::string path_;  // empty once moved from
  int lock_fd_ = -1;  // the directory, opened and flock()ed while it is in use
};

// Removes the folders under $TMPDIR (or /tmp) that PrivateDir made for processes that are gone
// (killed with SIGKILL, so their destructors never ran): a folder is stale when the process in
// its name no longer exists and nobody holds its lock. Returns one note per folder removed or
// that could not be removed.
std::vector<std::string> sweep_stale_private_dirs();

}  // namespace allfives::referee
